/*! \file loop_nest.cc
 *  \brief Inlining of elementwise blocks, the paddings' decompositions, and the rule for the loop
 *         nests that remain: vectorize the innermost contiguous loop, parallelize the outer ones.
 */
#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/shape_expr.h"
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/rules/block_view.h"
#include "passes/schedule/rules/rules.h"

namespace mlc {
namespace tir {
namespace {

constexpr int64_t kAssumedSymbolicExtent = 32;

/*! \brief A loop's extent, every shape variable in it counted as kAssumedSymbolicExtent
 *  (`batch * 4` as 128): sizes are unknown, and a nest over one is usually served at sizes
 *  where threads pay (attention's softmax over 16 heads x seq x seq had to count as 2^14 to
 *  share out; a launch over a few rows costs microseconds when it does not pay). */
int64_t EstimatedExtent(const PrimExpr& extent) {
  if (const int64_t* e = AsConstInt(extent)) return *e;
  std::vector<Var> vars;
  CollectVars(extent, &vars);
  std::vector<std::pair<Var, PrimExpr>> assumed;
  for (const Var& v : vars) assumed.push_back({v, I64(kAssumedSymbolicExtent)});
  PrimExpr estimate = Analyzer().Simplify(Substitute(extent, assumed));
  const int64_t* e = AsConstInt(estimate);
  return e != nullptr && *e > 0 ? *e : kAssumedSymbolicExtent;
}

/*! \brief Iterations of the loops above a block, a symbolic extent (a batch both the block
 *  and its consumers loop over) counted once: what InliningRecomputes compares is a ratio. */
std::optional<int64_t> IterationVolume(const Schedule& sch, const BlockRV& rv) {
  std::optional<BlockView> v = View(sch, rv);
  if (!v) return std::nullopt;
  int64_t volume = 1;
  for (const ForNode* loop : v->loops) {
    if (const int64_t* e = AsConstInt(loop->extent)) volume *= *e;
  }
  return volume;
}

/*! \brief Whether inlining the block would compute each of its values more than twice: its
 *  consumers read it through windows (padding before im2col or a convolution) or reduce over
 *  it. Such a block is kept, so the consumer's loads stay plain and cheap. */
bool InliningRecomputes(Schedule* sch, const BlockRV& rv) {
  std::optional<int64_t> own = IterationVolume(*sch, rv);
  absl::StatusOr<std::vector<BlockRV>> consumers = sch->GetConsumers(rv);
  if (!own || !consumers.ok()) return false;
  int64_t reads = 0;
  for (const BlockRV& c : *consumers) {
    std::optional<int64_t> v = IterationVolume(*sch, c);
    if (!v) return false;
    reads += *v;
  }
  return reads > 2 * *own;
}

/*! \brief A constant c such that the block's body divides (or takes the remainder of) the
 *  iteration variable bound to `loop` by c, with 4 <= c < the loop's extent: an index
 *  [p // c, p % c] flattened by an earlier reshape or by im2col. */
std::optional<int64_t> DivisorOfLoopIndex(const BlockRealizeNode* realize, const ForNode* loop) {
  const BlockNode* block = realize->block.get();
  const Object* var = nullptr;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (realize->iter_values[i].same_as(loop->loop_var)) var = block->iter_vars[i].var.get();
  }
  const int64_t* extent = AsConstInt(loop->extent);
  if (var == nullptr || extent == nullptr) return std::nullopt;
  struct Finder : StmtExprVisitor {
    const Object* var;
    int64_t extent;
    std::optional<int64_t> divisor;
    void VisitExpr_(const BinaryNode* op) override {
      if ((op->kind() == NodeKind::kFloorDiv || op->kind() == NodeKind::kFloorMod) && op->a.get() == var) {
        const int64_t* c = AsConstInt(op->b);
        if (c != nullptr && *c >= 4 && *c < extent && !divisor) divisor = *c;  // narrower: not worth a vector
      }
      StmtExprVisitor::VisitExpr_(op);
    }
  } finder;
  finder.var = var;
  finder.extent = *extent;
  finder.VisitStmt(block->body);
  return finder.divisor;
}

/*! \brief For a reduction block whose innermost loops are reduction loops and whose last
 *  spatial loop runs along the store's last index and every load's (with at least 4
 *  iterations): that loop moved innermost. Returns whether it moved. */
bool MoveContiguousLoopInside(Schedule* sch, const BlockRV& block, const BlockView& v) {
  const BlockNode* b = v.realize->block.get();
  const auto* store = b->body.as<BufferStoreNode>();
  if (store == nullptr || store->indices.empty()) return false;
  auto kind_of = [&](const ForNode* f) -> std::optional<IterKind> {
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (v.realize->iter_values[i].same_as(f->loop_var)) return b->iter_vars[i].kind;
    }
    return std::nullopt;
  };
  if (kind_of(v.loops.back()) != IterKind::kReduce) return false;
  int last_spatial = -1;
  for (size_t l = 0; l < v.loops.size(); ++l) {
    if (kind_of(v.loops[l]) == IterKind::kSpatial) last_spatial = static_cast<int>(l);
  }
  if (last_spatial < 0) return false;
  const ForNode* lanes = v.loops[last_spatial];
  const int64_t* extent = AsConstInt(lanes->extent);
  bool contiguous = false;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    contiguous |=
        v.realize->iter_values[i].same_as(lanes->loop_var) && store->indices.back().same_as(b->iter_vars[i].var);
  }
  if (!contiguous || extent == nullptr || *extent < 4) return false;
  // Every load the loop moves must be contiguous along it too (a dense layer's w[j, k] is not:
  // its dot products along k stay innermost).
  const Object* lane_var = nullptr;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    if (v.realize->iter_values[i].same_as(lanes->loop_var)) lane_var = b->iter_vars[i].var.get();
  }
  struct LoadCheck : StmtExprVisitor {
    const Object* var = nullptr;
    bool ok = true;
    void VisitExpr_(const BufferLoadNode* op) override {
      for (size_t d = 0; d < op->indices.size(); ++d) {
        bool uses = UsesVar(op->indices[d], Var(static_cast<const TirVarNode*>(var)));
        if (uses && (d + 1 != op->indices.size() || op->indices[d].get() != var)) ok = false;
      }
      StmtExprVisitor::VisitExpr_(op);
    }
  } check;
  check.var = lane_var;
  check.VisitStmt(b->body);
  if (!check.ok) return false;
  absl::StatusOr<std::vector<LoopRV>> loops = sch->GetLoops(block);
  if (!loops.ok()) return false;
  std::vector<LoopRV> order((*loops).begin() + last_spatial + 1, (*loops).end());
  order.push_back((*loops)[last_spatial]);
  Schedule trial = *sch;
  if (!trial.Reorder(order).ok()) return false;
  *sch = trial;
  return true;
}

/*! \brief The store's index that runs contiguously in memory: the last one whose dimension is
 *  not 1 (a mean's [n, c, 1, 1] result is contiguous along c). */
const PrimExpr* ContiguousStoreIndex(const BufferStoreNode* store) {
  const std::vector<PrimExpr>& shape = store->buffer->shape;
  for (size_t d = store->indices.size(); d-- > 0;) {
    const int64_t* e = d < shape.size() ? AsConstInt(shape[d]) : nullptr;
    if (e == nullptr || *e != 1) return &store->indices[d];
  }
  return store->indices.empty() ? nullptr : &store->indices.back();
}

/*! \brief Whether dimension `d` of `buffer` is its contiguous one: every dimension after it has
 *  extent 1. */
bool IsContiguousDimension(const Buffer& buffer, size_t d) {
  for (size_t after = d + 1; after < buffer->shape.size(); ++after) {
    const int64_t* e = AsConstInt(buffer->shape[after]);
    if (e == nullptr || *e != 1) return false;
  }
  return true;
}

/*! \brief Whether every load in `value` that uses iteration variable `var` reads it as var %
 *  lanes in its last index and var // lanes in the others (channel-blocked data: x[n, c // 16,
 *  h, w, c % 16]), or as itself where the buffer is contiguous along it (a scale s[n, c, 1, 1]),
 *  and at least one reads blocked data; loads of `skip` (an accumulator) aside. */
bool ReadsAsBlockedLanes(const PrimExpr& value, const Object* var, int64_t lanes, const Object* skip) {
  struct LoadCheck : StmtExprVisitor {
    const Object* var = nullptr;
    const Object* skip = nullptr;
    int64_t lanes = 0;
    bool ok = true, any = false;
    void VisitExpr_(const BufferLoadNode* op) override {
      if (op->buffer.get() == skip) return;
      const Var v(static_cast<const TirVarNode*>(var));
      for (size_t d = 0; d < op->indices.size(); ++d) {
        if (!UsesVar(op->indices[d], v)) continue;
        if (op->indices[d].get() == var && IsContiguousDimension(op->buffer, d)) continue;
        const auto* bin = op->indices[d].as<BinaryNode>();
        const int64_t* c = bin != nullptr ? AsConstInt(bin->b) : nullptr;
        const bool split = bin != nullptr && bin->a.get() == var && c != nullptr && *c == lanes;
        const bool last = d + 1 == op->indices.size();
        if (!split || bin->kind() != (last ? NodeKind::kFloorMod : NodeKind::kFloorDiv)) ok = false;
        any |= last;
      }
      StmtExprVisitor::VisitExpr_(op);
    }
  } check;
  check.var = var;
  check.skip = skip;
  check.lanes = lanes;
  check.VisitExpr(value);
  return check.ok && check.any;
}

/*! \brief For a reduction over outer axes that reads channel-blocked data into a plain result
 *  (an instance norm's mean over H and W: sum[n, c] of x[n, c // 16, h, w, c % 16], its layout
 *  transform fused in): the output loop the loads take apart by their last dimension is split
 *  by it, and its inner part moved inside the reduction loops, so each load is a contiguous
 *  vector and the accumulators whole vectors. (Left as it was, each channel read every 16th
 *  float: 2 ms per 256 x 256 x 32 mean, 16 times its data.) Returns whether it moved. */
bool SplitBlockedLanesInside(Schedule* sch, const BlockRV& block, const BlockView& v) {
  const BlockNode* b = v.realize->block.get();
  const auto* store = b->body.as<BufferStoreNode>();
  if (store == nullptr || store->indices.empty()) return false;
  // The loop of the result's contiguous index, with reduction loops inside it.
  const PrimExpr* out = ContiguousStoreIndex(store);
  const Object* var = out != nullptr ? out->get() : nullptr;
  int channel_loop = -1;
  bool reduce_inside = false;
  for (size_t l = 0; l < v.loops.size(); ++l) {
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (!v.realize->iter_values[i].same_as(v.loops[l]->loop_var)) continue;
      if (b->iter_vars[i].var.get() == var && b->iter_vars[i].kind == IterKind::kSpatial)
        channel_loop = static_cast<int>(l);
      reduce_inside |= channel_loop >= 0 && b->iter_vars[i].kind == IterKind::kReduce;
    }
  }
  if (channel_loop < 0 || !reduce_inside) return false;
  const ForNode* loop = v.loops[channel_loop];
  std::optional<int64_t> lanes = DivisorOfLoopIndex(v.realize, loop);
  const int64_t* extent = AsConstInt(loop->extent);
  if (!lanes || extent == nullptr || *extent % *lanes != 0) return false;
  if (!ReadsAsBlockedLanes(store->value, var, *lanes, store->buffer.get())) return false;
  Schedule trial = *sch;
  absl::StatusOr<std::vector<LoopRV>> loops = trial.GetLoops(block);
  if (!loops.ok()) return false;
  absl::StatusOr<std::vector<LoopRV>> split = trial.Split((*loops)[channel_loop], {std::nullopt, *lanes});
  if (!split.ok()) return false;
  std::vector<LoopRV> order((*loops).begin() + channel_loop + 1, (*loops).end());
  order.push_back((*split)[1]);
  if (!trial.Reorder(order).ok()) return false;
  *sch = trial;
  return true;
}

/*! \brief For an elementwise nest that stores along its innermost loop and reads channel-blocked
 *  data (a layout transform back to NCHW fused in: y[n, c, h, w] of x[n, c // 16, h, w, c % 16]):
 *  the channel loop split by the lanes and the lanes moved just above the innermost loop. Codegen
 *  then computes each tile of lanes x pixels as vectors along the lanes and transposes them in
 *  registers (codegen/llvm/transposed_nest.h), where the nest as written gathers every 16th
 *  float (EfficientNet-B0 int8's squeeze-excitation products, quantized back to NCHW for the
 *  next int8 convolution: 10 GB/s). Returns the lanes loop's position. */
std::optional<size_t> SplitBlockedLanesAboveInnermost(Schedule* sch, const BlockRV& block, const BlockView& v) {
  const BlockNode* b = v.realize->block.get();
  const auto* store = b->body.as<BufferStoreNode>();
  if (store == nullptr || store->indices.empty() || v.loops.size() < 2) return std::nullopt;
  const PrimExpr* out = ContiguousStoreIndex(store);
  auto var_of = [&](const ForNode* loop) -> const Object* {
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (v.realize->iter_values[i].same_as(loop->loop_var)) return b->iter_vars[i].var.get();
    }
    return nullptr;
  };
  const Object* inner = var_of(v.loops.back());
  if (out == nullptr || inner == nullptr || out->get() != inner) return std::nullopt;
  for (size_t l = 0; l + 1 < v.loops.size(); ++l) {
    std::optional<int64_t> lanes = DivisorOfLoopIndex(v.realize, v.loops[l]);
    const int64_t* extent = AsConstInt(v.loops[l]->extent);
    const Object* var = var_of(v.loops[l]);
    if (!lanes || extent == nullptr || *extent % *lanes != 0 || var == nullptr ||
        !ReadsAsBlockedLanes(store->value, var, *lanes, nullptr)) {
      continue;
    }
    Schedule trial = *sch;
    absl::StatusOr<std::vector<LoopRV>> loops = trial.GetLoops(block);
    if (!loops.ok()) return std::nullopt;
    absl::StatusOr<std::vector<LoopRV>> split = trial.Split((*loops)[l], {std::nullopt, *lanes});
    if (!split.ok()) return std::nullopt;
    // ..., lanes' outer part, the loops that were inside it, the lanes, the innermost loop.
    std::vector<LoopRV> order(loops->begin() + l + 1, loops->end() - 1);
    order.insert(order.end(), {(*split)[1], loops->back()});
    if (!trial.Reorder(order).ok()) return std::nullopt;
    *sch = trial;
    return v.loops.size() - 1;
  }
  return std::nullopt;
}

std::set<std::string> BlockNames(const Schedule& sch, const std::string& func) {
  std::set<std::string> names;
  for (const BlockRealizeNode* r : AllBlocks(sch.mod().LookupPrimFunc(func)->body)) names.insert(r->block->name);
  return names;
}

/*! \brief decompose_padding on each of the blocks named, where it applies. */
DecomposedPaddings DecomposeEach(Schedule* sch, const std::string& func, const std::vector<std::string>& pads) {
  DecomposedPaddings made;
  for (const std::string& name : pads) {
    absl::StatusOr<BlockRV> rv = sch->GetBlock(name, func);
    if (!rv.ok()) continue;
    Schedule trial = *sch;
    if (!trial.DecomposePadding(*rv).ok()) continue;
    const std::set<std::string> before = BlockNames(*sch, func);
    *sch = trial;
    made.interiors.push_back(name);
    for (const std::string& after : BlockNames(*sch, func)) {
      if (!before.count(after)) made.borders.push_back(after);
    }
  }
  return made;
}

}  // namespace

bool IsUnplacedRootNest(const BlockView& v) {
  if (v.loops.empty()) return false;
  for (const ForNode* f : v.loops) {
    if (f->for_kind != ForKind::kSerial) return false;
  }
  const BlockRealizeNode* scope = ScopeOf(v.path);
  return scope != nullptr && scope->iter_values.empty();
}

DecomposedPaddings DecomposeEpiloguePadding(Schedule* sch, const std::string& func) {
  PrimFunc prim = sch->mod().LookupPrimFunc(func);
  if (!prim.defined()) return {};
  std::vector<std::string> pads;
  for (const BlockRealizeNode* r : AllBlocks(prim->body)) {
    const BlockNode* block = r->block.get();
    const auto* store = block->body.as<BufferStoreNode>();
    if (r->iter_values.empty() || store == nullptr || store->value.as<SelectNode>() == nullptr ||
        !IsParam(prim, store->buffer))
      continue;
    // It reads what another block of the function computes.
    bool reads_intermediate = false;
    for (const BlockRealizeNode* other : AllBlocks(prim->body)) {
      for (const BufferRegion& w : other->block->writes) {
        for (const BufferRegion& rd : block->reads)
          reads_intermediate |= other != r && w.buffer.same_as(rd.buffer) && !IsParam(prim, w.buffer);
      }
    }
    if (reads_intermediate) pads.push_back(block->name);
  }
  return DecomposeEach(sch, func, pads);
}

DecomposedPaddings DecomposeRootPaddings(Schedule* sch, const std::string& func, const std::set<std::string>& skip) {
  PrimFunc prim = sch->mod().LookupPrimFunc(func);
  if (!prim.defined()) return {};
  std::vector<std::string> pads;
  for (const BlockRealizeNode* r : AllBlocks(prim->body)) {
    const auto* store = r->block->body.as<BufferStoreNode>();
    if (r->iter_values.empty() || store == nullptr || store->value.as<SelectNode>() == nullptr ||
        skip.count(r->block->name))
      continue;
    absl::StatusOr<BlockRV> rv = sch->GetBlock(r->block->name, func);
    std::optional<BlockView> v = rv.ok() ? View(*sch, *rv) : std::nullopt;
    if (v && IsUnplacedRootNest(*v)) pads.push_back(r->block->name);
  }
  return DecomposeEach(sch, func, pads);
}

void InlineElementwise(Schedule* sch, const std::string& func) {
  // Repeat until nothing more inlines: inlining one block can make its producer inlinable.
  for (bool changed = true; changed;) {
    changed = false;
    PrimFunc prim = sch->mod().LookupPrimFunc(func);
    if (!prim.defined()) return;
    for (const BlockRealizeNode* r : AllBlocks(prim->body)) {
      const BlockNode* block = r->block.get();
      if (r->iter_values.empty() || !IsSpatialBlock(block) || block->writes.size() != 1 ||
          IsParam(prim, block->writes[0].buffer)) {
        continue;
      }
      absl::StatusOr<BlockRV> rv = sch->GetBlock(block->name, func);
      if (rv.ok() && !InliningRecomputes(sch, *rv) && sch->ComputeInline(*rv).ok()) {
        changed = true;
        break;  // the function changed: look at it again
      }
    }
  }
}

absl::Status ScheduleLoopNest(Schedule* sch, const BlockRV& block, const Target& target, int64_t min_parallel_work) {
  std::optional<BlockView> v = View(*sch, block);
  if (!v || v->loops.empty()) return absl::FailedPreconditionError("no loops");
  absl::StatusOr<std::vector<LoopRV>> loops = sch->GetLoops(block);
  if (!loops.ok()) return loops.status();
  // An innermost index taken apart by // and % (the pixels of im2col's columns, a reshape's
  // flattened dimensions) is split by the divisor first, so the loads along the new inner
  // loop are affine, and vectorize, rather than gathers.
  if (std::optional<int64_t> c = DivisorOfLoopIndex(v->realize, v->loops.back())) {
    if (sch->Split(loops->back(), {std::nullopt, *c}).ok())
      return ScheduleLoopNest(sch, block, target, min_parallel_work);
  }
  // Loops from here in stay serial: the lanes of a blocked read moved above the innermost loop.
  size_t serial_from = v->loops.size();
  if (!IsReductionBlock(v->realize->block.get())) {
    if (std::optional<size_t> lanes = SplitBlockedLanesAboveInnermost(sch, block, *v)) {
      serial_from = *lanes;
      v = View(*sch, block);
      loops = sch->GetLoops(block);
      if (!v || !loops.ok()) return absl::InternalError("the block's loops went missing after splitting its lanes");
    }
  }
  const BlockNode* b = v->realize->block.get();
  // A reduction over outer axes (global pooling of channel-blocked data: sum over H and W of
  // x[n, c, h, w, lanes]): the contiguous output loop moves inside the reduction loops, so
  // the accumulators are whole vectors.
  if (IsReductionBlock(b) && (MoveContiguousLoopInside(sch, block, *v) || SplitBlockedLanesInside(sch, block, *v)))
    return ScheduleLoopNest(sch, block, target, min_parallel_work);
  // Vectorize the innermost loop when it runs along the last index of the store (contiguous).
  const ForNode* inner = v->loops.back();
  const auto* store = b->body.as<BufferStoreNode>();
  // A symbolic extent is vectorized as it is: LLVM adds the remainder loop.
  const int64_t* inner_extent = AsConstInt(inner->extent);
  bool contiguous = false;
  if (store != nullptr && !store->indices.empty() && (inner_extent == nullptr || *inner_extent >= 4)) {
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      // The last index is the variable, or the variable at an offset (a padding's interior).
      const bool along = VarAtConstantOffset(*ContiguousStoreIndex(store)) == b->iter_vars[i].var.get();
      if (UsesVar(v->realize->iter_values[i], inner->loop_var) && along) {
        contiguous = b->iter_vars[i].kind == IterKind::kSpatial;
      }
    }
  }
  bool applied = contiguous && sch->Vectorize(loops->back()).ok();
  // Parallelize the outermost loop when the nest has enough work (the primitive refuses a
  // reduction loop or one whose iterations would race).
  int64_t work = 1;
  for (const ForNode* f : v->loops) work *= EstimatedExtent(f->extent);
  // The outer loops fuse into the parallel loop until it has enough iterations to share (a
  // batch of 1 leaves the outermost loop with nothing to share); the loops inside stay loops,
  // so their indices step instead of being divided out of the fused index every iteration.
  if (work >= min_parallel_work && loops->size() >= 2) {
    std::vector<LoopRV> outer;
    int64_t fused = 1;
    for (size_t l = 0; l + 1 < loops->size() && l < serial_from && fused < kParallelGrain; ++l) {
      outer.push_back((*loops)[l]);
      fused *= EstimatedExtent(v->loops[l]->extent);
    }
    // Fewer loops when the fusion is refused (a symbolic extent among them): the heads of
    // attention's softmax, 16 of them, still share out over the threads.
    for (; !outer.empty(); outer.pop_back()) {
      Schedule trial = *sch;
      if (FuseParallel(&trial, outer).ok()) {
        *sch = trial;
        applied = true;
        break;
      }
    }
  }
  // A reduction along the innermost loops (a dot product per output) gets its init out of
  // them, so the accumulator lives in a register and LLVM vectorizes the reduction.
  if (IsReductionBlock(b)) {
    size_t first_reduce = v->loops.size();
    for (size_t l = 0; l < v->loops.size() && first_reduce == v->loops.size(); ++l) {
      for (size_t i = 0; i < b->iter_vars.size(); ++i) {
        if (b->iter_vars[i].kind == IterKind::kReduce && UsesVar(v->realize->iter_values[i], v->loops[l]->loop_var))
          first_reduce = l;
      }
    }
    if (first_reduce > 0 && first_reduce < v->loops.size() &&
        sch->DecomposeReduction(block, (*loops)[first_reduce]).ok()) {
      applied = true;
    }
  }
  return applied ? absl::OkStatus() : absl::FailedPreconditionError("nothing to vectorize or parallelize");
}

bool IsScheduled(const PrimFunc& func) {
  bool found = false;
  RewriteStmt(func->body, [&](const Stmt& st) -> std::optional<Stmt> {
    if (const auto* f = st.as<ForNode>(); f && f->for_kind != ForKind::kSerial) found = true;
    return std::nullopt;
  });
  return found;
}

PrimFunc SimplifiedForRules(const PrimFunc& func) {
  return PrimFunc(new PrimFuncNode(func->params, SimplifyWithLoopRanges(func->body), func->attrs));
}

}  // namespace tir
}  // namespace mlc
