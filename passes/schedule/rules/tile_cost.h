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

/*! \brief Cycles per row (per unit of one row's multiply-adds) of `rows` rows tiled `mr` at a
 *  time, the guarded last tile run as tiles of the powers of two in its height (codegen's
 *  EmitRowTiles and T.gemm_tile_partial), where `cycles_per_fma(h)` is the cost of a tile h
 *  rows high. */
double GuardedRowCost(int64_t rows, int64_t mr, const std::function<double(int64_t)>& cycles_per_fma);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_PASSES_SCHEDULE_RULES_TILE_COST_H_
