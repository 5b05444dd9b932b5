/*! \file parallel_order.h
 *  \brief Which kernel calls run their parallel loops last to first.
 *
 *  A kernel that sweeps a constant larger than the cache in front of one core (a recurrent
 *  layer's 1 MB matrix-vector product, step after step) finds none of it cached when the
 *  kernel before it swept the same constant in the same order: with LRU-like replacement the
 *  first bytes it wants are the ones evicted first. Swept the other way, it starts with what
 *  the last sweep left. So where a kernel call reads a constant of at least half the cache
 *  that the previous kernel call reading it swept, with less than half the cache of other
 *  constants read in between, the call runs its parallel loops in the opposite order of that
 *  one (Instruction.parallel_descending: each thread walks its own iterations last to first,
 *  vm/thread_pool.h), alternating. A 2-layer LSTM of 256 units on a Zen 4 (1 MB of L2): 0.95x
 *  the time on one thread. Any order of a parallel loop is a valid order, so the choice cannot
 *  change results.
 */
#ifndef MLC_CODEGEN_PARALLEL_ORDER_H_
#define MLC_CODEGEN_PARALLEL_ORDER_H_

#include <cstdint>

#include "vm/executable.pb.h"

namespace mlc {
namespace codegen {

/*! \brief Sets parallel_descending on `fn`'s kernel calls as described above; `cache_bytes` is
 *  one core's L2. Functions with branches are left ascending (their order is not the program's). */
void OrderParallelLoops(const proto::Executable& exe, int64_t cache_bytes, proto::VMFunction* fn);

}  // namespace codegen
}  // namespace mlc

#endif  // MLC_CODEGEN_PARALLEL_ORDER_H_
