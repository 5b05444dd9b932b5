/*! \file block_view.h
 *  \brief What the rules look at of a block (internal to the rules): its function, its path,
 *         its realize and the loops above it; and the constants the rules share.
 */
#ifndef MLC_PASSES_SCHEDULE_RULES_BLOCK_VIEW_H_
#define MLC_PASSES_SCHEDULE_RULES_BLOCK_VIEW_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/tir/stmt_tree.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {

// Work below this many iterations is not worth a parallel launch (a few microseconds).
inline constexpr int64_t kMinParallelIterations = 1 << 14;
// The same for the border fill of a padded result: its vectors lie a row apart (one cache line
// each, written back to memory), so an iteration costs far more than in a contiguous nest.
inline constexpr int64_t kMinParallelBorderIterations = 1 << 11;
// Iterations of a parallel loop enough to share among the threads evenly; outer loops fuse
// into it until it has this many.
inline constexpr int64_t kParallelGrain = 64;

struct BlockView {
  PrimFunc prim;
  StmtPath path;
  const BlockRealizeNode* realize;
  std::vector<const ForNode*> loops;
};

/*! \brief The block as the schedule has it now, or nullopt for a stale handle. */
std::optional<BlockView> View(const Schedule& sch, const BlockRV& rv);

/*! \brief Iterations of loops[from..]: the product of their extents, nullopt where one is not
 *  constant. */
std::optional<int64_t> LoopVolume(const std::vector<const ForNode*>& loops, size_t from = 0);

/*! \brief The variable of an index that is a variable or a variable plus a constant (a store
 *  into the interior of a padded buffer), else nullptr. */
const TirVarNode* VarAtConstantOffset(const PrimExpr& index);

/*! \brief The loops fused (when more than one) into one parallel loop, which it returns. */
absl::StatusOr<LoopRV> FuseParallel(Schedule* sch, const std::vector<LoopRV>& loops);

/*! \brief The block's single consumer (an elementwise epilogue) moved under `loop`, its innermost
 *  loop vectorized, while the producer's result is in cache; kept only when it lands as
 *  `iterations` iterations per iteration of `loop` (the loops from `depth` on), i.e. it narrows
 *  to what the producer made there, not the whole epilogue repeated. `unrolled`: its loops
 *  above the vectorized one are unrolled too, so that code generation sees each vector the
 *  producer's register tile stored and keeps it in its register through the epilogue (LLVM
 *  forwards the tile's stores to the epilogue's loads and drops them). Returns whether it moved. */
bool PlaceEpilogueUnder(Schedule* sch, const BlockRV& block, const LoopRV& loop, size_t depth, int64_t iterations,
                        bool unrolled = false);

/*! \brief A nest at the root of its function that nothing has placed yet: serial loops only
 *  (not a padded window copied inside a convolution's tile, nor an already scheduled nest). */
bool IsUnplacedRootNest(const BlockView& v);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_PASSES_SCHEDULE_RULES_BLOCK_VIEW_H_
