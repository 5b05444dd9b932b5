/*! \file memory_plan.h
 *  \brief Static memory planning of a function's bytecode (TVM's StaticPlanBlockMemory, on
 *         the VM's instructions): intermediates whose size is known, or bounded through the
 *         shape variables' upper bounds, get fixed places in one arena allocated once per call.
 *
 *  An intermediate is planned when its size has a bound and its register only ever feeds
 *  kernels and runtime functions (destination passing) or R.match_cast: then nothing can hold
 *  it past its last use. Planned buffers get offsets in one arena per call, greedy by size
 *  (largest first, each in the smallest gap among the buffers alive with it), which comes
 *  close to the most bytes ever alive at once. The inputs of a CONCAT (R.concat_in_place) are
 *  placed inside its result, each where its bytes go, for as long as any of them is alive: their
 *  producers write them in place and the VM copies nothing. Returned values, tensors that
 *  enter tuples or other functions, and functions with branches keep the run-time pool.
 */
#ifndef MLC_CODEGEN_MEMORY_PLAN_H_
#define MLC_CODEGEN_MEMORY_PLAN_H_

#include <cstdint>
#include <vector>

#include "vm/executable.pb.h"

namespace mlc {
namespace codegen {

/*! \brief Plans `fn` in place: sets arena_bytes and gives planned ALLOC_TENSORs their offset
 *         and bound (two more operands).
 *         `upper_bounds` is indexed like fn.shape_vars (-1: none). */
void PlanMemory(const std::vector<int64_t>& upper_bounds, proto::VMFunction* fn);

}  // namespace codegen
}  // namespace mlc

#endif  // MLC_CODEGEN_MEMORY_PLAN_H_
