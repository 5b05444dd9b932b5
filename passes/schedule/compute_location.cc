/*! \file compute_location.cc
 *  \brief compute_at and reverse_compute_at: moving a block under a loop of its consumers or
 *         producers, iterating only the region they need or make there.
 */
#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {
namespace {

bool OnPath(const StmtPath& path, const Object* node) {
  return std::any_of(path.begin(), path.end(), [&](const Stmt& s) { return s.get() == node; });
}

/*! \brief Loops on `path` strictly below `loop`. */
std::vector<const ForNode*> LoopsBelow(const StmtPath& path, const ForNode* loop) {
  std::vector<const ForNode*> out;
  bool below = false;
  for (const Stmt& s : path) {
    if (s.get() == loop) {
      below = true;
      continue;
    }
    if (below) {
      if (const auto* f = s.as<ForNode>()) out.push_back(f);
    }
  }
  return out;
}

/*! \brief Whether, at the statements' lowest common ancestor (a sequence), the subtree of `a`
 *  comes before the subtree of `b`. */
bool ComesBefore(const StmtPath& a, const StmtPath& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i].same_as(b[i])) ++i;
  if (i == 0 || i >= a.size() || i >= b.size()) return false;
  const auto* seq = a[i - 1].as<SeqStmtNode>();
  if (seq == nullptr) return false;
  int ia = -1, ib = -1;
  for (size_t k = 0; k < seq->seq.size(); ++k) {
    if (seq->seq[k].same_as(a[i])) ia = static_cast<int>(k);
    if (seq->seq[k].same_as(b[i])) ib = static_cast<int>(k);
  }
  return ia >= 0 && ib >= 0 && ia < ib;
}

/*! \brief Whether the region of `buffer` that `writer` writes over all its iterations may
 *  overlap the region `reader` reads over all of its own (false only when some dimension's
 *  ranges are provably apart). */
bool MayOverlap(const BlockRealizeNode* writer, const StmtPath& writer_path, const BlockRealizeNode* reader,
                const StmtPath& reader_path, const Buffer& buffer) {
  std::vector<const ForNode*> wl = LoopsAbove(writer_path), rl = LoopsAbove(reader_path);
  std::vector<IntRange> w = AccessRange(writer, buffer, /*write=*/true, LoopRanges(wl), AnalyzerFor(wl));
  std::vector<IntRange> r = AccessRange(reader, buffer, /*write=*/false, LoopRanges(rl), AnalyzerFor(rl));
  if (w.empty() || r.empty() || w.size() != r.size()) return true;
  Analyzer a;
  for (size_t d = 0; d < w.size(); ++d) {
    if (!w[d].min.defined() || !r[d].min.defined()) return true;
    if (a.CanProve(w[d].max < r[d].min) || a.CanProve(r[d].max < w[d].min)) return false;
  }
  return true;
}

struct IterRange {
  PrimExpr min;
  PrimExpr extent;
  bool exact = true;  // false: an over-approximation guarded by a predicate
  PrimExpr max;       // inclusive, when not exact
};

/*! \brief The values of `var` for which `index` lies in [lo, hi], as an interval, when `index`
 *  is `var`, `var + c`, `var - c` or `var // c` (c > 0) of it; nullopt for other forms. The
 *  interval is exact for these forms. */
std::optional<IntRange> SolveIndex(const PrimExpr& index, const Object* var, const PrimExpr& lo, const PrimExpr& hi) {
  if (index.get() == var) return IntRange{lo, hi};
  if (const auto* c = index.as<CastNode>()) return SolveIndex(c->value, var, lo, hi);
  const auto* b = index.as<BinaryNode>();
  if (b == nullptr) return std::nullopt;
  const int64_t* k = AsConstInt(b->b);
  if (k == nullptr) return std::nullopt;
  PrimExpr kk = b->b;
  switch (index->kind()) {
    case NodeKind::kAdd: return SolveIndex(b->a, var, lo - kk, hi - kk);
    case NodeKind::kSub: return SolveIndex(b->a, var, lo + kk, hi + kk);
    case NodeKind::kFloorDiv:
      // v // c in [lo, hi]  <=>  v in [lo * c, hi * c + c - 1]
      if (*k <= 0) return std::nullopt;
      return SolveIndex(b->a, var, lo * kk, hi * kk + (kk - 1));
    default: return std::nullopt;
  }
}

/*! \brief The range of each block iteration variable for which the block writes only inside
 *  the `needed` regions (nullopt: unconstrained, the full domain). Each written index of the
 *  form SolveIndex reads constrains its variable; several constraints intersect. Indices of
 *  other forms (v % c, sums of variables) constrain nothing: the block then computes a
 *  superset of what is needed, which is still correct. */
absl::Status IterRangesFromRegion(const BlockNode* block, const std::vector<BufferRegion>& accesses,
                                  const std::vector<std::pair<Buffer, std::vector<IntRange>>>& needed,
                                  const Analyzer& analyzer, std::vector<std::optional<IterRange>>* out) {
  out->assign(block->iter_vars.size(), std::nullopt);
  std::vector<std::optional<IntRange>> solved(block->iter_vars.size());
  for (const auto& [buffer, region] : needed) {
    for (const BufferRegion& acc : accesses) {
      if (!acc.buffer.same_as(buffer)) continue;
      for (size_t d = 0; d < acc.region.size() && d < region.size(); ++d) {
        const int64_t* ext = AsConstInt(acc.region[d].extent);
        if (ext == nullptr || *ext != 1) continue;
        // Simplified first: fusion leaves reshapes' forms such as 0 * 64 + v, which would
        // otherwise go unsolved and leave the block its whole domain.
        const PrimExpr index = analyzer.Simplify(acc.region[d].min);
        for (size_t i = 0; i < block->iter_vars.size(); ++i) {
          std::optional<IntRange> r = SolveIndex(index, block->iter_vars[i].var.get(), region[d].min, region[d].max);
          if (!r) continue;
          if (!solved[i]) {
            solved[i] = r;
            continue;
          }
          // Intersect, where the analyzer can tell which bound is tighter.
          if (analyzer.CanProve(r->min >= solved[i]->min)) solved[i]->min = r->min;
          if (analyzer.CanProve(r->max <= solved[i]->max)) solved[i]->max = r->max;
        }
      }
    }
  }
  for (size_t i = 0; i < solved.size(); ++i) {
    if (!solved[i]) continue;
    PrimExpr lo = analyzer.Simplify(solved[i]->min), hi = analyzer.Simplify(solved[i]->max);
    // Within the block's own domain where both are constants (the interior of a padding, asked
    // for the rows of a window that reach into the border): no iterations guarded away.
    const IterVar& iv = block->iter_vars[i];
    const int64_t *dom_min = AsConstInt(iv.dom.min), *dom_extent = AsConstInt(iv.dom.extent);
    const int64_t *lo_c = AsConstInt(lo), *hi_c = AsConstInt(hi);
    if (dom_min && dom_extent && lo_c && hi_c && *lo_c <= *dom_min + *dom_extent - 1 && *hi_c >= *dom_min) {
      if (*lo_c < *dom_min) lo = IntImm(lo->dtype, *dom_min);
      if (*hi_c > *dom_min + *dom_extent - 1) hi = IntImm(hi->dtype, *dom_min + *dom_extent - 1);
    }
    PrimExpr extent = analyzer.Simplify(hi - lo + 1);
    IterRange r{lo, extent, true, hi};
    if (AsConstInt(extent) == nullptr) {
      ConstIntBound bound = analyzer.Bound(extent);
      if (!bound.bounded()) {
        return absl::FailedPreconditionError(absl::StrCat("the range of ", block->iter_vars[i].var->name,
                                                          " that the needed region asks for has no constant bound"));
      }
      r.extent = IntImm(extent->dtype, bound.max);
      r.exact = false;
    }
    (*out)[i] = r;
  }
  return absl::OkStatus();
}

/*! \brief The block realized over the given ranges (full domain where unset) under new loops
 *  ax0, ax1, ... (none for single iterations). */
Stmt RealizeOverRanges(const BlockRealizeNode* realize, const std::vector<std::optional<IterRange>>& ranges,
                       const Analyzer& outer) {
  const BlockNode* block = realize->block.get();
  std::vector<Var> loop_vars;
  std::vector<PrimExpr> extents, values;
  PrimExpr predicate;
  Analyzer a = outer;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    IterRange r = ranges[i] ? *ranges[i] : IterRange{iv.dom.min, iv.dom.extent, true, PrimExpr()};
    auto guard = [&](const PrimExpr& g) { predicate = predicate.defined() ? (predicate && g) : g; };
    const int64_t* ext = AsConstInt(r.extent);
    PrimExpr value;
    if (ext != nullptr && *ext == 1) {
      value = Cast(iv.var->dtype, r.min);
    } else {
      Var ax = MakeVar(absl::StrCat("ax", loop_vars.size()), iv.var->dtype);
      loop_vars.push_back(ax);
      extents.push_back(Cast(iv.var->dtype, r.extent));
      if (ext != nullptr) a.Bind(ax, 0, *ext);
      value = Cast(iv.var->dtype, r.min) + ax;
      if (!r.exact) guard(value <= Cast(iv.var->dtype, r.max));
    }
    values.push_back(value);
    // A region taken from other blocks' loops may reach past this block's domain (a producer
    // split with a predicate covers j0 * 32 + [0, 32) even where that exceeds 129): the
    // iterations outside it are not this block's and must not run.
    if (ranges[i]) {
      PrimExpr lo = Cast(iv.var->dtype, iv.dom.min), hi = Cast(iv.var->dtype, iv.dom.min + iv.dom.extent);
      if (!a.CanProve(value >= lo)) guard(value >= lo);
      if (!a.CanProve(value < hi)) guard(value < hi);
    }
  }
  for (PrimExpr& v : values) v = a.Simplify(v);
  if (predicate.defined()) predicate = a.Simplify(predicate);
  Stmt body(
      new BlockRealizeNode(values, predicate.defined() ? predicate : IntImm(DataType::Bool(), 1), realize->block));
  for (size_t i = loop_vars.size(); i-- > 0;) {
    body = Stmt(new ForNode(loop_vars[i], IntImm(loop_vars[i]->dtype, 0), extents[i], ForKind::kSerial, body));
  }
  return body;
}

}  // namespace

absl::Status Schedule::ComputeAt(const BlockRV& block_rv, const LoopRV& loop_rv) {
  return MoveUnderLoop(block_rv, loop_rv, /*reverse=*/false);
}

absl::Status Schedule::ReverseComputeAt(const BlockRV& block_rv, const LoopRV& loop_rv) {
  return MoveUnderLoop(block_rv, loop_rv, /*reverse=*/true);
}

/*! compute_at moves a producer before the loop's body, computing the region its consumers under
 *  the loop read (every consumer must be there); reverse_compute_at moves a consumer after it,
 *  over the region its producers under the loop write. */
absl::Status Schedule::MoveUnderLoop(const BlockRV& block_rv, const LoopRV& loop_rv, bool reverse) {
  const char* kPrim = reverse ? "reverse_compute_at" : "compute_at";
  absl::StatusOr<BlockRef> b = Resolve(block_rv, kPrim);
  if (!b.ok()) return b.status();
  if (IsRootLocation(loop_rv)) {
    Record(kPrim, {TraceValue::Block(block_rv), TraceValue::Loop(loop_rv)});
    return absl::OkStatus();
  }
  absl::StatusOr<LoopRef> l = Resolve(loop_rv, kPrim);
  if (!l.ok()) return l.status();
  std::string what = absl::StrCat("block ", b->block->name);
  if (b->func != l->func) return ErrorAt(kPrim, what, absl::StrCat(Name(*l), " is in another function"));
  if (OnPath(b->path, l->loop)) return ErrorAt(kPrim, what, absl::StrCat("it is already under ", Name(*l)));
  if (ScopeOf(b->path) != ScopeOf(l->path))
    return ErrorAt(kPrim, what, absl::StrCat(Name(*l), " is in another block scope"));
  if (!reverse && !ComesBefore(b->path, l->path)) {
    return ErrorAt(kPrim, what,
                   absl::StrCat("it does not come before ", Name(*l), " (compute_at moves a producer; use ",
                                "reverse_compute_at for a consumer)"));
  }
  if (reverse && !ComesBefore(l->path, b->path)) {
    return ErrorAt(kPrim, what,
                   absl::StrCat("it does not come after ", Name(*l), " (reverse_compute_at moves a consumer; use ",
                                "compute_at for a producer)"));
  }
  // The buffers the block writes (compute_at) or reads (reverse), and the union of the regions
  // of them the other blocks under the loop read (or write) there.
  const std::vector<BufferRegion>& own = reverse ? b->block->reads : b->block->writes;
  const BlockRealizeNode* scope = ScopeOf(b->path);
  std::vector<std::pair<Buffer, std::vector<IntRange>>> needed;
  int partners = 0;
  for (const BufferRegion& mine : own) {
    std::vector<IntRange> region;
    for (const BlockRealizeNode* r : ChildBlocks(Stmt(scope->block))) {
      if (r == b->realize) continue;
      const std::vector<BufferRegion>& theirs = reverse ? r->block->writes : r->block->reads;
      bool touches = std::any_of(theirs.begin(), theirs.end(),
                                 [&](const BufferRegion& t) { return t.buffer.same_as(mine.buffer); });
      if (!touches) continue;
      std::optional<StmtPath> path = FindBlock(l->prim->body, r->block->name);
      if (!path || !OnPath(*path, l->loop)) {
        if (reverse) {
          // A producer elsewhere has written its part when the consumer runs under the loop,
          // unless it runs between the loop and the consumer and writes what the consumer reads.
          if (path && ComesBefore(l->path, *path) && MayOverlap(r, *path, b->realize, b->path, mine.buffer)) {
            return ErrorAt(kPrim, what,
                           absl::StrCat("its producer block ", r->block->name, " (writing ", mine.buffer->name,
                                        ") runs after ", Name(*l)));
          }
          continue;
        }
        return ErrorAt(kPrim, what,
                       absl::StrCat("its consumer block ", r->block->name, " (reading ", mine.buffer->name,
                                    ") is not under ", Name(*l)));
      }
      ++partners;
      Analyzer a = AnalyzerFor(LoopsAbove(*path));
      std::vector<IntRange> acc =
          AccessRange(r, mine.buffer, /*write=*/reverse, LoopRanges(LoopsBelow(*path, l->loop)), a);
      if (acc.empty() || !acc[0].min.defined()) {
        return ErrorAt(kPrim, what,
                       absl::StrCat("cannot bound the region of ", mine.buffer->name, " that block ", r->block->name,
                                    reverse ? " writes under " : " reads under ", Name(*l)));
      }
      if (region.empty()) {
        region = acc;
      } else {
        for (size_t d = 0; d < region.size(); ++d) {
          region[d] = {a.Simplify(Min(region[d].min, acc[d].min)), a.Simplify(Max(region[d].max, acc[d].max))};
        }
      }
    }
    if (!region.empty()) needed.push_back({mine.buffer, region});
  }
  if (partners == 0) {
    return ErrorAt(
        kPrim, what,
        absl::StrCat("nothing under ", Name(*l), reverse ? " writes what it reads" : " reads what it writes"));
  }
  Analyzer outer = AnalyzerFor(LoopsAbove(l->path));
  outer.Bind(l->loop->loop_var, Range{l->loop->min, l->loop->extent});
  std::vector<std::optional<IterRange>> ranges;
  if (absl::Status s = IterRangesFromRegion(b->block, own, needed, outer, &ranges); !s.ok()) {
    return ErrorAt(kPrim, what, std::string(s.message()));
  }
  Stmt moved = RealizeOverRanges(b->realize, ranges, outer);
  const ForNode* loop = l->loop;
  Stmt new_body = reverse ? MakeSeq({loop->body, moved}) : MakeSeq({moved, loop->body});
  Stmt new_loop(new ForNode(loop->loop_var, loop->min, loop->extent, loop->for_kind, new_body, loop->annotations));
  const Object* old = b->realize;
  Stmt body = RewriteStmt(l->prim->body, [&](const Stmt& s) -> std::optional<Stmt> {
    if (s.get() == old) return Stmt();
    if (s.get() == loop) return new_loop;
    return std::nullopt;
  });
  SetBody(b->func, body);
  Record(kPrim, {TraceValue::Block(block_rv), TraceValue::Loop(loop_rv)});
  return absl::OkStatus();
}

}  // namespace tir
}  // namespace mlc
