/*! \file kernel_main.h
 *  \brief One PrimFunc as a runnable program: `main(inputs...) = call_tir(func, inputs)`, built
 *         with LLVM and loaded into a VM. For tests and benchmarks of single kernels.
 */
#ifndef MLC_TOOLS_TESTING_KERNEL_MAIN_H_
#define MLC_TOOLS_TESTING_KERNEL_MAIN_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "ir/graph/module.h"
#include "ir/tir/stmt.h"
#include "vm/virtual_machine.h"

namespace mlc {
namespace testing_util {

/*! \brief A module holding `func` as `name` and a `main` that calls it: every parameter of the
 *  function but the last is an input; the last is the output. Shapes must be constant. */
absl::StatusOr<IRModule> WithMainCalling(const tir::PrimFunc& func, const std::string& name);

/*! \brief Builds the module (LLVM) and loads it into a VM through serialized bytes, as the stages exchange it. */
absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> Compile(const IRModule& mod);

}  // namespace testing_util
}  // namespace mlc

#endif  // MLC_TOOLS_TESTING_KERNEL_MAIN_H_
