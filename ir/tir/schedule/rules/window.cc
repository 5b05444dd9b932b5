/*! \file window.cc
 *  \brief The window rule: reductions over a small window of a spatial neighbourhood
 *         (depthwise convolution, pooling) vectorized along the output row.
 *
 *    for c, oh (fused, parallel), ow (vectorized), ry (unrolled), rx (unrolled):  out[c, oh, ow] op= x[...]
 *
 *  The window loops are fully unrolled under the vectorized output-row loop, so LLVM keeps one
 *  vector of accumulators in a register per row segment and loads the input rows as vectors
 *  (strided ones for strided windows); the outer spatial loops are fused and parallel, and an
 *  elementwise epilogue runs row by row inside them.
 */
#include <map>

#include "absl/strings/str_cat.h"
#include "ir/tir/schedule/rules/block_view.h"
#include "ir/tir/schedule/rules/rules.h"
#include "ir/tir/schedule/state.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace tir {
namespace {

// Windows with more taps than this keep their loops (unrolling them would bloat the code).
constexpr int64_t kMaxUnrolledTaps = 64;

absl::Status Refuse(const std::string& why) { return absl::FailedPreconditionError(why); }

}  // namespace

absl::Status ScheduleWindowReduction(Schedule* sch, const BlockRV& block, const Target& target) {
  std::optional<BlockView> view = View(*sch, block);
  if (!view) return Refuse("unknown block");
  const BlockRealizeNode* realize = view->realize;
  const BlockNode* b = realize->block.get();
  if (!IsReductionBlock(b)) return Refuse("not a reduction");
  const auto* store = b->body.as<BufferStoreNode>();
  if (store == nullptr || store->indices.empty()) return Refuse("no store");
  const std::vector<const ForNode*>& fors = view->loops;
  if (fors.size() != b->iter_vars.size()) return Refuse("not one loop per iteration variable");
  // Each iteration variable bound to its own loop; spatial loops outside, window loops inside.
  std::vector<IterKind> loop_kind(fors.size());
  std::map<const Object*, size_t> loop_of_var;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const auto* v = realize->iter_values[i].as<TirVarNode>();
    size_t l = fors.size();
    for (size_t f = 0; f < fors.size(); ++f) {
      if (v != nullptr && fors[f]->loop_var.get() == v) l = f;
    }
    if (l == fors.size()) return Refuse("a binding is not a plain loop variable");
    loop_kind[l] = b->iter_vars[i].kind;
    loop_of_var[b->iter_vars[i].var.get()] = l;
  }
  size_t spatial = 0;
  while (spatial < fors.size() && loop_kind[spatial] == IterKind::kSpatial) ++spatial;
  if (spatial == 0 || spatial == fors.size()) return Refuse("no spatial or no window loops");
  int64_t taps = 1;
  for (size_t l = spatial; l < fors.size(); ++l) {
    const int64_t* e = AsConstInt(fors[l]->extent);
    if (loop_kind[l] != IterKind::kReduce || e == nullptr) return Refuse("window loops must be innermost, of constant extent");
    taps *= *e;
  }
  // The innermost spatial loop must run along the store's last index (a contiguous row).
  auto last = loop_of_var.find(store->indices.back().get());
  if (last == loop_of_var.end() || last->second != spatial - 1) return Refuse("the innermost spatial loop is not along the output row");
  const int64_t* row = AsConstInt(fors[spatial - 1]->extent);
  if (row == nullptr || *row < 4) return Refuse("output rows too short to vectorize");
  // A window: some load index slides with both the output column and a window variable
  // (x[..., ow * s + rx * d]); a dot product (x[i, k] * w[j, k]) is no window.
  std::optional<Var> column_var;
  std::vector<Var> window_vars;
  for (const IterVar& iv : b->iter_vars) {
    if (iv.kind == IterKind::kReduce) window_vars.push_back(iv.var);
    if (iv.var.get() == store->indices.back().get()) column_var = iv.var;
  }
  if (!column_var) return Refuse("the store's last index is no iteration variable");
  struct SlideFinder : StmtExprVisitor {
    Var column;
    std::vector<Var> window;
    bool found = false;
    void VisitExpr_(const BufferLoadNode* op) override {
      for (const PrimExpr& index : op->indices) {
        bool uses_column = UsesVar(index, column), uses_window = false;
        for (const Var& w : window) uses_window |= UsesVar(index, w);
        found |= uses_column && uses_window;
      }
      StmtExprVisitor::VisitExpr_(op);
    }
  } slide;
  slide.column = *column_var;
  slide.window = window_vars;
  slide.VisitExpr(store->value);
  if (!slide.found) return Refuse("no load slides a window along the output row");

  absl::StatusOr<std::vector<LoopRV>> loops = sch->GetLoops(block);
  if (!loops.ok()) return loops.status();
  // The whole row is the vectorized loop: LLVM steps it by the target's vector width with a
  // remainder after it (a split by the width with a predicate would mask every load instead).
  LoopRV vec = (*loops)[spatial - 1];
  // The elementwise epilogue (bias, activation) row by row under the last outer loop, while
  // the row is in L1, instead of another pass over the output; kept only when it lands as one
  // row per iteration (a region the analysis cannot narrow would repeat the whole epilogue).
  absl::StatusOr<std::vector<BlockRV>> consumers = sch->GetConsumers(block);
  if (spatial >= 2 && consumers.ok() && consumers->size() == 1) {
    Schedule trial = *sch;
    if (trial.ReverseComputeAt(consumers->front(), (*loops)[spatial - 2]).ok()) {
      std::optional<BlockView> e = View(trial, consumers->front());
      // Epilogue iterations per iteration of the loop it moved under.
      std::optional<int64_t> under = e ? LoopVolume(e->loops, spatial - 1) : std::nullopt;
      auto e_loops = trial.GetLoops(consumers->front());
      if (under == *row && e_loops.ok() && trial.Vectorize(e_loops->back()).ok()) *sch = trial;
    }
  }
  if (absl::StatusOr<BlockRV> init = sch->DecomposeReduction(block, (*loops)[spatial]); !init.ok()) return init.status();
  if (taps <= kMaxUnrolledTaps) {
    for (size_t l = spatial; l < fors.size(); ++l) {
      if (absl::Status s = sch->Unroll((*loops)[l]); !s.ok()) return s;
    }
  }
  if (absl::Status s = sch->Vectorize(vec); !s.ok()) return s;
  // Parallel over the outer spatial loops (fused), when there is enough work.
  int64_t work = taps;
  for (size_t l = 0; l < spatial; ++l) {
    const int64_t* e = AsConstInt(fors[l]->extent);
    work *= e != nullptr ? *e : 1;
  }
  std::vector<LoopRV> outer((*loops).begin(), (*loops).begin() + (spatial - 1));
  if (work >= kMinParallelIterations && !outer.empty()) {
    LoopRV par = outer.front();
    if (outer.size() > 1) {
      absl::StatusOr<LoopRV> fused = sch->Fuse(outer);
      if (!fused.ok()) return fused.status();
      par = *fused;
    }
    if (absl::Status s = sch->Parallel(par); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace tir
}  // namespace mlc
