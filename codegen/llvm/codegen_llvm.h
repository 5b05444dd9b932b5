/*! \file codegen_llvm.h
 *  \brief Lowered PrimFuncs -> LLVM IR -> optimized native code for the host CPU -> one shared
 *         object, linked by the system linker.
 *
 *  Every kernel is its own LLVM module, compiled to its own object file on one of a few threads
 *  (each with its own LLVM context), then all are linked in the kernels' order: the shared
 *  object does not depend on the number of threads.
 *
 *  Each kernel `f` is exported as `int32_t __mlc_kernel_f(void* const* args)`, args[i] being the
 *  data pointer of buffer parameter i (shapes are static and checked by the VM before the
 *  call). The body is compiled into an internal function whose pointer parameters are
 *  `noalias`, so loads hoist and loops vectorize.
 *
 *  Loop kinds: `parallel` bodies are outlined into `(closure, begin, end)` functions and run
 *  through the runtime's thread pool, reached through an exported global pointer that the
 *  loader sets (vm/kernel_abi.h; buffers above 16 KB come from the runtime's workspace pool the
 *  same way); `vectorized` and `unroll` loops carry
 *  llvm.loop metadata forcing vectorization / full unrolling. Floating-point arithmetic allows
 *  reassociation and contraction (so reductions vectorize and use FMA) but keeps inf and NaN.
 *  The pipeline is LLVM's O3 for the target's CPU and features (ir/target), with glibc's libmvec
 *  as the vector math library.
 */
#ifndef MLC_CODEGEN_LLVM_CODEGEN_LLVM_H_
#define MLC_CODEGEN_LLVM_CODEGEN_LLVM_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/target/target.h"
#include "ir/tir/prim_func.h"

namespace mlc {
namespace codegen {

/*! \brief A parallel loop whose iterations run fewer innermost statements than this in all
 *  runs on the calling thread (decided at run time when the extents are symbolic). Handing
 *  chunks to the thread pool and joining them costs a few microseconds on the machines measured
 *  (2 vCPUs, KVM: a 1024-element kernel took 0.3 us alone and 3.5 us in parallel); 16384 steps
 *  of a vectorized elementwise loop or of a reduction take about as long. */
inline constexpr int64_t kMinParallelIterations = 16384;

struct CodegenOptions {
  int opt_level = 3;
  /*! \brief Threads compiling kernels; 0: one per core. */
  int num_threads = 0;
  /*! \brief When set, a directory of kernel objects keyed by everything that determines them
   *  (the lowered kernel as text, its name, the target and its features, the optimization level,
   *  the LLVM version and this code generator's own binary): a kernel found there is not
   *  compiled again, so rebuilding a model with one changed layer compiles one kernel. Not used
   *  with keep_llvm_ir. Entries are never evicted: delete the directory to reclaim it. */
  std::string kernel_cache_dir;
  /*! \brief Keep the optimized LLVM IR text in the result (for --dump). */
  bool keep_llvm_ir = false;
};

struct CompiledKernels {
  struct Kernel {
    std::string symbol;
    std::string object;          // its ELF object file
    std::string llvm_ir;         // optimized, when keep_llvm_ir
    double compile_seconds = 0;  // emitting, optimizing and generating code
    int thread = 0;              // which compiling thread (0 .. threads - 1) compiled it
    bool cached = false;         // taken from the kernel cache, not compiled
  };
  std::string shared_object;    // ELF bytes
  std::vector<Kernel> kernels;  // one per input function, same order
  int threads = 1;              // threads that compiled
  double link_seconds = 0;
};

/*! \brief How many threads CompileKernels uses for `kernels` kernels. */
int CodegenThreads(const CodegenOptions& options, size_t kernels);

/*! \brief The exported symbol of a kernel. */
std::string KernelSymbol(const std::string& name);

/*! \brief Compiles lowered PrimFuncs (see lower_tir.h) into one shared object for `target`'s
 *  CPU, using exactly its features. */
absl::StatusOr<CompiledKernels> CompileKernels(const std::vector<std::pair<std::string, tir::PrimFunc>>& funcs,
                                               const Target& target, const CodegenOptions& options = {});

}  // namespace codegen
}  // namespace mlc

#endif  // MLC_CODEGEN_LLVM_CODEGEN_LLVM_H_
