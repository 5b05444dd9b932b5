/*! \file executable_variants.h
 *  \brief Multi-target executables: one *.mlcx holding a complete executable per target
 *         (`Executable.variants`), of which the VM runs the best this CPU can.
 *
 *  Built by `--target=x86-64-v3,x86-64-v4` (pipeline, build --merge, Python, compile_model): the
 *  passes and codegen run once per target (tiles, packed layouts and int8 weight formats
 *  differ), and the results are merged here. The variants must offer the same functions with
 *  the same parameters, so a caller cannot tell which one runs but by its speed and by
 *  `VirtualMachine::executable().target()`. Weights that two variants hold byte for byte are
 *  stored once in the file (executable_format.cc).
 */
#ifndef MLC_VM_EXECUTABLE_VARIANTS_H_
#define MLC_VM_EXECUTABLE_VARIANTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "vm/executable.pb.h"

namespace mlc {
namespace vm {

/*! \brief One executable of the given single-target ones, in their order. Errors name the
 *  variant (by its target) that is itself multi-target, repeats a target, or differs from the
 *  first in a function or its parameters. */
absl::StatusOr<proto::Executable> MergeVariants(std::vector<proto::Executable> variants);

/*! \brief The features of `exe.cpu_features()` this CPU lacks (MLC_MAX_ISA caps the host). */
std::vector<std::string> LackingCpuFeatures(const proto::Executable& exe);

/*! \brief The variant the VM runs: among those whose CPU features this CPU has all of, the one
 *  with the most (the first of equals). An error lists each variant's target and what this CPU
 *  lacks for it when none runs here. */
absl::StatusOr<int> SelectVariant(const proto::Executable& exe);

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_EXECUTABLE_VARIANTS_H_
