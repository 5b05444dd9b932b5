/*! \file resource_check.h
 *  \brief A module against the process's resource limits (support/resource_limits.h): what a
 *         model declares, checked before anything is allocated for it or run.
 */
#ifndef MLC_IR_GRAPH_RESOURCE_CHECK_H_
#define MLC_IR_GRAPH_RESOURCE_CHECK_H_

#include "absl/status/status.h"
#include "ir/graph/module.h"

namespace mlc {

/*! \brief Refuses, naming the function, the binding or buffer and the limit:
 *   - a tensor (parameter, binding, constant) or a buffer of a PrimFunc larger than
 *     max_tensor_bytes;
 *   - a PrimFunc whose loops run more than max_kernel_iterations statement instances;
 *   - constants adding up to more than max_constant_bytes.
 *  VerifyModule calls it, so every stage that verifies its input or output checks it. */
absl::Status CheckResourceLimits(const IRModule& mod);

}  // namespace mlc

#endif  // MLC_IR_GRAPH_RESOURCE_CHECK_H_
