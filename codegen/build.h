/*! \file build.h
 *  \brief IRModule -> executable: every PrimFunc is lowered and compiled by LLVM into one
 *         shared object; every graph-level function becomes VM bytecode (vm_codegen.h).
 */
#ifndef MLC_CODEGEN_BUILD_H_
#define MLC_CODEGEN_BUILD_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "codegen/llvm/codegen_llvm.h"
#include "ir/graph/module.h"
#include "vm/executable.pb.h"
#include "vm/executable_format.h"

namespace mlc {
namespace codegen {

struct BuildOptions {
  CodegenOptions codegen;
  /*! \brief When set, the lowered PrimFuncs (TVMScript) and LLVM IR are written here. */
  std::string dump_lowered_path;
  std::string dump_llvm_path;
};

/*! \brief The module must be verified and lowered to call_tir / call_dps_packed: a remaining
 *         high-level operator call is an error that names it. */
absl::StatusOr<proto::Executable> Build(const IRModule& mod, const BuildOptions& options = {});

/*! \brief Compiles graph-level functions to bytecode; fills functions, constants and
 *         extern_functions. `kernel_index` maps PrimFunc names to Executable.kernels. */
absl::StatusOr<proto::Executable> CompileBytecode(const IRModule& mod,
                                                  const std::map<std::string, int>& kernel_index);

}  // namespace codegen
}  // namespace mlc

#endif  // MLC_CODEGEN_BUILD_H_
