/*! \file kernel_abi.h
 *  \brief The contract between generated kernel libraries and the runtime that loads them.
 *
 *  A kernel `f` is exported as `int32_t __mlc_kernel_f(void* const* args)`: args holds its buffers
 *  data pointers (inputs, then outputs) followed, for a kernel with symbolic shapes, by one
 *  `const int64_t*` per shape variable (the executable's Kernel.shape_vars order). The library reaches
 *  the runtime's services through exported global function pointers, which the loader
 *  (vm/kernel_library.cc) sets right after dlopen and code generation (codegen/llvm) declares:
 *   - parallel launch: `launch(body, closure, n)` runs body(closure, begin, end) over [0, n);
 *   - workspace: `alloc(bytes)` / `free(ptr)` for buffers too large for the stack, 64-byte
 *     aligned and recycled between calls (a 4 MB packed weight costs no page faults after the
 *     first call).
 *  The header is plain C++ with no dependency, so the compiler and the runtime share it.
 */
#ifndef MLC_VM_KERNEL_ABI_H_
#define MLC_VM_KERNEL_ABI_H_

#include <cstdint>

namespace mlc {
namespace kernel_abi {

inline constexpr char kKernelPrefix[] = "__mlc_kernel_";

using ParallelBody = void (*)(void* closure, int64_t begin, int64_t end);
using ParallelLaunchFn = void (*)(ParallelBody body, void* closure, int64_t n);
using WorkspaceAllocFn = void* (*)(int64_t bytes);
using WorkspaceFreeFn = void (*)(void* ptr);

inline constexpr char kParallelLaunchSymbol[] = "__mlc_parallel_launch";
inline constexpr char kWorkspaceAllocSymbol[] = "__mlc_workspace_alloc";
inline constexpr char kWorkspaceFreeSymbol[] = "__mlc_workspace_free";

/*! \brief Buffers up to this size live on the kernel's stack; larger ones in the workspace. A
 *  convolution's padded window per tile (3 rows of a 112-wide, 16-channel block: 21 KiB) fits. */
inline constexpr int64_t kMaxStackBytes = 32 * 1024;

}  // namespace kernel_abi
}  // namespace mlc

#endif  // MLC_VM_KERNEL_ABI_H_
