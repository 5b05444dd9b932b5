/*! \file transposed_nest.h
 *  \brief A loop nest whose vectorized loop stores contiguously but reads across its lanes,
 *         and the plan that computes it the other way round and transposes in registers.
 *
 *      for i in range(A):                        # serial or unrolled
 *          for j in T.vectorized(B):
 *              D[f(i, j)] = value(i, j)          # f steps 1 with j; some load of value does not
 *
 *  A layout transform back to NCHW and the epilogue of a convolution writing NCHW are this nest:
 *  the output is contiguous over pixels (j) while the sums are contiguous over channels (i).
 *  Vectorized over j, each strided load becomes a gather. When every load of value is
 *  contiguous (or invariant) over a block of K consecutive i, the nest is computed as a [B][K]
 *  tile, one vector of K per j, transposed in registers and stored as K vectors of B.
 */
#ifndef MLC_CODEGEN_LLVM_TRANSPOSED_NEST_H_
#define MLC_CODEGEN_LLVM_TRANSPOSED_NEST_H_

#include <cstdint>
#include <optional>

#include "ir/tir/stmt.h"

namespace mlc {
namespace codegen {

struct TransposedNest {
  int64_t rows = 0;    // B: the vectorized loop's extent, one row of the tile per j
  int64_t block = 0;   // K: consecutive i computed as one vector (a power of two)
  int64_t blocks = 0;  // A / K
  tir::Var block_var;  // in [0, blocks)
  tir::Var lane_var;   // in [0, block): i = i_min + block_var * K + lane_var
  tir::Var row_var;    // the original j, in [row_min, row_min + rows)
  int64_t row_min = 0;
  tir::Buffer out;
  /*! \brief The stored value with i replaced, simplified so that its loads are linear in lane_var. */
  tir::PrimExpr value;
  /*! \brief Where column `column_var` (i = i_min + block_var * K + column_var) starts: f at j = row_min. */
  tir::Var column_var;
  tir::PrimExpr column_start;
};

/*! \brief The plan for `loop` when it is such a nest and its loads allow it, for vectors of
 *  `vector_bits`; nullopt otherwise (the nest is then emitted as it is). */
std::optional<TransposedNest> PlanTransposedNest(const tir::ForNode* loop, int vector_bits);

}  // namespace codegen
}  // namespace mlc

#endif  // MLC_CODEGEN_LLVM_TRANSPOSED_NEST_H_
