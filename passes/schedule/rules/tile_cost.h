/*! \file tile_cost.h
 *  \brief The cost model the register-tile rules (GEMM, direct convolution) choose tiles by: the
 *         cycles per multiply-add of a tile's innermost step on the x86 cores this runs on, and
 *         of a loop of rows tiled with a guarded remainder.
 */
#ifndef MLC_PASSES_SCHEDULE_RULES_TILE_COST_H_
#define MLC_PASSES_SCHEDULE_RULES_TILE_COST_H_

#include <cstdint>
#include <functional>

#include "ir/target/target.h"

namespace mlc {
namespace tir {

/*! \brief Cycles per multiply-add of a register tile's innermost step of `fmas` vector FMAs and
 *  `loads` vector loads or broadcasts: FMAs on two pipes, loads on two ports, about four
 *  instructions issued per cycle (with two of loop overhead), and no step shorter than the FMA
 *  latency plus a cycle, which each accumulator waits out (target.fma_chains() = latency x
 *  pipes; the cycle of slack: AVX2 convolution tiles of exactly eight chains, 4 x 2, ran at
 *  60-64% of the peak, and 6 x 2 or 3 x 4 with a guarded tail ran ResNet-18's 56-, 28- and
 *  14-wide layers 5-10% faster). */
double TileCyclesPerFma(int64_t fmas, int64_t loads, const Target& target);

/*! \brief TileCyclesPerFma for a tile that codegen emits with copies of its accumulators taken
 *  in turn over its reduction loop when it holds fewer than target.fma_chains() (EmitRegisterTile:
 *  a GEMM tile, whose reduction is one loop): as many copies as the chains need, within the
 *  registers left beside `beside` (B's vectors and A's broadcasts), each step's cost spread over
 *  the copies' multiply-adds. The guarded last row of a GEMM tile then runs near the full tile's
 *  rate: ConvNeXt's 7 x 7-token stage on AVX2 took 7 x 8 tiles (7 chains, a broadcast per FMA)
 *  at 56-59% of the peak, where 6 x 16 with a one-row tail fits. */
double TileCyclesPerFmaWithCopies(int64_t fmas, int64_t loads, int64_t beside, const Target& target);

/*! \brief Cycles per row (per unit of one row's multiply-adds) of `rows` rows tiled `mr` at a
 *  time, the guarded last tile run as tiles of the powers of two in its height (codegen's
 *  EmitRowTiles and T.gemm_tile_partial), where `cycles_per_fma(h)` is the cost of a tile h
 *  rows high. */
double GuardedRowCost(int64_t rows, int64_t mr, const std::function<double(int64_t)>& cycles_per_fma);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_PASSES_SCHEDULE_RULES_TILE_COST_H_
