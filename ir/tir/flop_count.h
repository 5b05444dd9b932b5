/*! \file flop_count.h
 *  \brief How many floating-point operations one call of a PrimFunc performs.
 *
 *  Counted per block from its declared iteration domain, which scheduling does not change
 *  (split, reorder, tiling, compute_at and blockize rebind a block's variables but keep their
 *  domains), so the count is the same before and after a schedule and predicates of inexact
 *  splits are accounted for. Each float add, subtract, multiply, divide, min, max and math
 *  intrinsic is one operation: `C[i, j] = C[i, j] + A[i, k] * B[k, j]` is two per iteration,
 *  so a matrix product counts 2·M·N·K; a tensor intrinsic counts what its table row says
 *  (`T.gemm_tile` over K x MR x NR: 2·K·MR·NR), so tensorized kernels count the same. Index arithmetic and data
 * movement count nothing. It is the work the kernel performs, not the model's: a convolution computed as a GEMM over
 *  the padded row pitch counts the columns it computes and drops. Stores outside any block (hand-written loop programs)
 * are scaled by their loops' constant extents.
 */
#ifndef MLC_IR_TIR_FLOP_COUNT_H_
#define MLC_IR_TIR_FLOP_COUNT_H_

#include <cstdint>

#include "ir/tir/prim_func.h"

namespace mlc {
namespace tir {

/*! \brief Float operations of one call; 0 for pure data movement; -1 when operations run
 *         under a symbolic extent (the count depends on the call's sizes: the profiler then
 *         shows no rate rather than a wrong one). */
int64_t CountFlops(const PrimFunc& func);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_FLOP_COUNT_H_
