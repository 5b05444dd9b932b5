/*! \file build.h
 *  \brief IRModule -> executable: every PrimFunc is lowered and compiled by LLVM into one
 *         shared object (structurally equal ones once, sharing a symbol); every graph-level
 *         function becomes VM bytecode (vm_codegen.h).
 */
#ifndef MLC_CODEGEN_BUILD_H_
#define MLC_CODEGEN_BUILD_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/llvm/codegen_llvm.h"
#include "ir/graph/module.h"
#include "vm/executable.pb.h"
#include "vm/executable_format.h"

namespace mlc {
namespace codegen {

/*! \brief What a build did and how long it took (build --timing prints it). */
struct BuildStats {
  int kernels = 0;           // PrimFuncs
  int distinct_kernels = 0;  // compiled: structurally equal kernels share one
  int cached_kernels = 0;    // of those, taken from the kernel cache (CodegenOptions::kernel_cache_dir)
  int codegen_threads = 1;
  std::vector<std::pair<std::string, double>> phases;          // seconds per phase, in order
  std::vector<std::pair<std::string, double>> kernel_seconds;  // per compiled kernel, slowest first
};

struct BuildOptions {
  CodegenOptions codegen;
  /*! \brief When set, the lowered PrimFuncs (TVMScript) and LLVM IR are written here. */
  std::string dump_lowered_path;
  std::string dump_llvm_path;
  /*! \brief When set, filled with the build's statistics. */
  BuildStats* stats = nullptr;
};

/*! \brief The module must be verified and lowered to call_tir / call_dps_packed: a remaining
 *         high-level operator call is an error that names it. */
absl::StatusOr<proto::Executable> Build(const IRModule& mod, const BuildOptions& options = {});

/*! \brief Compiles graph-level functions to bytecode; fills functions, constants and
 *         extern_functions. `kernel_index` maps PrimFunc names to Executable.kernels. */
absl::StatusOr<proto::Executable> CompileBytecode(const IRModule& mod, const std::map<std::string, int>& kernel_index);

}  // namespace codegen
}  // namespace mlc

#endif  // MLC_CODEGEN_BUILD_H_
