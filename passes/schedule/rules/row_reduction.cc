/*! \file row_reduction.cc
 *  \brief The row-reduction rule: a max or min along the innermost, contiguous axis (softmax's
 *         row maximum), or a sum along a row that is not whole vectors, reduced a vector of
 *         lanes at a time.
 *
 *    for r (parallel):                                  for r (parallel):
 *      for k in 128:  m[r] = max(m[r], x[r, k])   =>      for k0 in 8, k1 in 16 (vectorized):
 *                                                           m_rf[r, k1] = max(m_rf[r, k1], x[r, k0 * 16 + k1])
 *                                                         for k1 in 16:  m[r] = max(m[r], m_rf[r, k1])
 *
 *  LLVM vectorizes a sum along a row itself (the code is compiled with reassociation), but not
 *  a max or min: their NaN rules keep each step waiting on the one before, about six cycles per
 *  element (softmax's row maximum took 100 of its 119 us in the encoder). rfactor over a
 *  vector's worth of the row makes the lanes independent; the 16 partial results are reduced
 *  in the same parallel iteration. A row of symbolic length (attention's scores over past + seq)
 *  is split the same way, its last vector guarded.
 */
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/rules/block_view.h"
#include "passes/schedule/rules/rules.h"

namespace mlc {
namespace tir {

absl::Status ScheduleRowReduction(Schedule* sch, const BlockRV& block, const Target& target) {
  auto refuse = [](const char* why) { return absl::FailedPreconditionError(why); };
  std::optional<BlockView> v = View(*sch, block);
  if (!v || v->loops.empty()) return refuse("no loops");
  const BlockNode* b = v->realize->block.get();
  const auto* store = b->body.as<BufferStoreNode>();
  if (!IsReductionBlock(b) || store == nullptr || store->indices.empty())
    return refuse("not a reduction into a buffer");
  // The innermost loop runs over one reduction variable that is the last index of the reduced
  // input, so a vector of lanes is one contiguous load.
  const ForNode* inner = v->loops.back();
  const int64_t* extent = AsConstInt(inner->extent);
  const int64_t lanes = target.float_lanes();
  const NodeKind combiner = store->value->kind();
  const bool max_or_min = combiner == NodeKind::kMax || combiner == NodeKind::kMin;
  if (!max_or_min && combiner != NodeKind::kAdd) return refuse("not a max, min or sum");
  if (extent != nullptr && *extent < 2 * lanes) return refuse("the row is shorter than two vectors");
  // A row that is not whole vectors ends in a guarded vector, which AVX-512 runs with a lane mask;
  // without mask registers LLVM runs it element by element, branching (a softmax over 91
  // classes, x86-64-v3: 0.68 ms as LLVM vectorized it, 1.2 ms rfactored and guarded).
  if (extent != nullptr && *extent % lanes != 0 && !target.has("avx512f"))
    return refuse("the row is not whole vectors and the target has no mask registers");
  // A sum LLVM vectorizes by itself, in unrolled vectors of its own choosing (32 floats an
  // iteration here) with the rest of the row one element at a time: fine for rows of whole
  // vectors and for long ones, not for short rows with a remainder (a detector's softmax over 91
  // classes summed 64 exponentials in vectors and 27 one by one: 1.71 ms for 3234 rows, 0.48
  // rfactored; a classifier's 1000, 8 left over, ran 1.7 us as LLVM did it, 2.0 rfactored).
  constexpr int64_t kShortRow = 256;
  if (!max_or_min && (extent == nullptr || *extent % lanes == 0 || *extent >= kShortRow))
    return refuse("a sum over whole vectors or a long row (LLVM vectorizes it)");
  const IterVar* reduced = nullptr;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    if (!UsesVar(v->realize->iter_values[i], inner->loop_var)) continue;
    if (b->iter_vars[i].kind != IterKind::kReduce || !v->realize->iter_values[i].same_as(inner->loop_var)) {
      return refuse("the innermost loop is not exactly a reduction variable");
    }
    reduced = &b->iter_vars[i];
  }
  if (reduced == nullptr) return refuse("the innermost loop reduces nothing");
  bool contiguous = false;
  for (const BufferLoadNode* load : LoadsIn(store->value)) {
    if (load->buffer.same_as(store->buffer) || load->indices.empty()) continue;
    bool inner_only = load->indices.back().same_as(reduced->var);
    for (size_t d = 0; d + 1 < load->indices.size(); ++d) inner_only &= !UsesVar(load->indices[d], reduced->var);
    contiguous |= inner_only;
  }
  if (!contiguous) return refuse("the reduced input is not read along its last axis");

  absl::StatusOr<std::vector<LoopRV>> loops = sch->GetLoops(block);
  if (!loops.ok()) return loops.status();
  absl::StatusOr<std::vector<LoopRV>> split = sch->Split(loops->back(), {std::nullopt, lanes});
  if (!split.ok()) return split.status();
  absl::StatusOr<BlockRV> rf = sch->RFactor((*split)[1], static_cast<int>(store->indices.size()));
  if (!rf.ok()) return rf.status();
  if (absl::Status s = ScheduleLoopNest(sch, *rf, target, kMinParallelIterations); !s.ok()) return s;
  // The partial results of a row are reduced in the iteration that made them.
  absl::StatusOr<std::vector<LoopRV>> rf_loops = sch->GetLoops(*rf);
  if (!rf_loops.ok()) return rf_loops.status();
  return sch->ReverseComputeAt(block, rf_loops->front());
}

}  // namespace tir
}  // namespace mlc
