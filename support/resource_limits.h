/*! \file resource_limits.h
 *  \brief What a model may ask of the compiler and the runtime before it gets a clear error
 *         instead of an out-of-memory kill, a stack overflow or a run that never ends.
 *
 *  Models are input: a file can declare a tensor of 10^12 elements, a loop of 2^40 iterations or
 *  an expression nested 100,000 deep in a few bytes. Every stage checks what it is given against
 *  these limits before it allocates or recurses, and names the limit in its error. The limits are
 *  process-wide (like the stage's flags) and every stage binary takes them as one flag,
 *  `--limits=name=value,...` (support/resource_limit_flag.h); the pipeline passes it on.
 */
#ifndef MLC_SUPPORT_RESOURCE_LIMITS_H_
#define MLC_SUPPORT_RESOURCE_LIMITS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace mlc {

struct ResourceLimits {
  /*! \brief Bytes of one tensor, graph-level or a loop-level buffer, at compile time and when
   *         the VM allocates it. */
  int64_t max_tensor_bytes = int64_t{64} << 30;
  /*! \brief Block iterations of one kernel (the product of its loop extents, summed over its
   *         loop nests): 2^38 is minutes of scalar work. */
  int64_t max_kernel_iterations = int64_t{1} << 38;
  /*! \brief Nesting of expressions and statements in TVMScript text and .irpb files: the
   *         parser, the passes and the printer recurse over the tree. */
  int64_t max_nesting_depth = 2000;
  /*! \brief Bytes of all the constants of one module. A .irpb or an executable is one Protobuf
   *         message, which cannot exceed 2 GiB; weights beyond that stay parameters of main
   *         (import --keep_params_in_input). */
  int64_t max_constant_bytes = int64_t{1792} << 20;
  /*! \brief Stores the constant folder may execute for one operator (fold-constant, ONNX shape
   *         subgraphs): more and the operator is left for run time. */
  int64_t max_fold_steps = int64_t{1} << 24;
};

/*! \brief The limits in force in this process (the defaults unless SetResourceLimits ran). */
const ResourceLimits& GetResourceLimits();
void SetResourceLimits(const ResourceLimits& limits);

/*! \brief Applies "name=value,..." to `limits`. Values are integers with an optional binary
 *         suffix (K, M, G, T) or powers of two written 2^N. An unknown name or a value that is not a
 *         positive integer is an error naming it. */
absl::Status ParseResourceLimits(absl::string_view spec, ResourceLimits* limits);

/*! \brief Every limit with its current value and what it bounds, one per line. */
std::string DescribeResourceLimits(const ResourceLimits& limits);

/*! \brief "limit max_tensor_bytes (64 GiB; raise with --limits=max_tensor_bytes=...)": what an
 *         error appends so the user knows which knob to turn. */
std::string LimitHint(absl::string_view name);

/*! \brief Bytes as "2.0 GiB", "512 MiB", "64 B". */
std::string HumanBytes(int64_t bytes);

/*! \brief The process's resident memory now, in bytes (Linux /proc/self/statm); 0 when unknown.
 *  What the benchmarks and `run --bench` report a loaded model to hold. */
int64_t ResidentBytes();

}  // namespace mlc

#endif  // MLC_SUPPORT_RESOURCE_LIMITS_H_
