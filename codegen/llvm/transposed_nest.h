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
 *
 *  K is the widest power of two up to a vector's lanes that divides A; where each row's value
 *  has an operation of long latency (a division, a transcendental function), a vector's lanes
 *  and then halves for what is left (56 pixels: three blocks of 16 and one of 8). A must be a
 *  multiple of 4. A tile beyond kMaxTileBytes is made in chunks of rows (112 rows x 16 floats:
 *  7 chunks of 16).
 */
#ifndef MLC_CODEGEN_LLVM_TRANSPOSED_NEST_H_
#define MLC_CODEGEN_LLVM_TRANSPOSED_NEST_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/tir/stmt.h"

namespace mlc {
namespace codegen {

struct TransposedNest {
  /*! \brief Blocks of one width K along i. */
  struct Segment {
    int64_t block = 0;   // K: consecutive i computed as one vector (a power of two)
    int64_t blocks = 0;  // how many
    int64_t chunk = 0;   // rows per tile: B, or a divisor of B whose tile fits in kMaxTileBytes
    /*! \brief The stored value at i = first + block_var * K + lane_var (first: where the segment
     *  starts), simplified so that its loads are linear in lane_var. */
    tir::PrimExpr value;
    /*! \brief Where column `column_var` (i = first + block_var * K + column_var) starts: f at
     *  j = row_min. */
    tir::PrimExpr column_start;
  };
  int64_t rows = 0;  // B: the vectorized loop's extent, one row of the tile per j
  int64_t row_min = 0;
  tir::Var block_var;   // in [0, blocks)
  tir::Var lane_var;    // in [0, block)
  tir::Var column_var;  // in [0, block)
  tir::Var chunk_var;   // in [0, rows / chunk)
  tir::Var row_var;     // the original j
  tir::Buffer out;
  std::vector<Segment> segments;  // covering all of i
};

/*! \brief The plan for `loop` when it is such a nest and its loads allow it, for vectors of
 *  `vector_bits`; nullopt otherwise (the nest is then emitted as it is). */
std::optional<TransposedNest> PlanTransposedNest(const tir::ForNode* loop, int vector_bits);

}  // namespace codegen
}  // namespace mlc

#endif  // MLC_CODEGEN_LLVM_TRANSPOSED_NEST_H_
