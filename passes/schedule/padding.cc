/*! \file padding.cc
 *  \brief decompose_padding: a padding block split into the fill of its border and the
 *         computation of its interior.
 *
 *    out[v] = Select(lo <= v < lo + n, f(v), c)      for v in [0, N)
 *  ->
 *    out[v] = c           for v in each border slab ([0, lo) or [lo + n, N) along one axis)
 *    out[u + lo] = f(u + lo)                         for u in [0, n)
 *
 *  The interior block reads its producer at the producer's own indices, so it is an
 *  elementwise epilogue of that producer and goes under the producer's tiles (a convolution
 *  writing its result with a zero border for the next layer to read in place); the border is
 *  a few thin loops. TVM's decompose_padding does the same for the same reason.
 */
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {
namespace {

/*! \brief The conjuncts of `cond` (a and b and ...). */
void Conjuncts(const PrimExpr& cond, std::vector<PrimExpr>* out) {
  if (const auto* a = cond.as<AndNode>()) {
    Conjuncts(a->a, out);
    Conjuncts(a->b, out);
    return;
  }
  out->push_back(cond);
}

/*! \brief The interval [begin, end) of each iteration variable that the condition keeps, or
 *  nullopt when some conjunct is not `v + c >= / < / <= / > e` for one variable and constants. */
std::optional<std::vector<std::pair<int64_t, int64_t>>> Intervals(const PrimExpr& cond,
                                                                  const std::vector<IterVar>& iters) {
  std::vector<std::pair<int64_t, int64_t>> range;
  for (const IterVar& iv : iters) range.push_back({0, *AsConstInt(iv.dom.extent)});
  std::vector<PrimExpr> parts;
  Conjuncts(cond, &parts);
  Analyzer analyzer;
  for (const PrimExpr& p : parts) {
    const auto* cmp = p.as<BinaryNode>();
    if (cmp == nullptr || !IsComparison(p->kind())) return std::nullopt;
    bool matched = false;
    for (size_t k = 0; k < iters.size() && !matched; ++k) {
      if (!UsesVar(p, iters[k].var)) continue;
      // cmp->a - cmp->b = v + d
      const PrimExpr rest = analyzer.Simplify(cmp->a - cmp->b - iters[k].var);
      const int64_t* d = AsConstInt(rest);
      if (d == nullptr) return std::nullopt;
      auto& [begin, end] = range[k];
      switch (p->kind()) {
        case NodeKind::kGE: begin = std::max(begin, -*d); break;
        case NodeKind::kGT: begin = std::max(begin, -*d + 1); break;
        case NodeKind::kLT: end = std::min(end, -*d); break;
        case NodeKind::kLE: end = std::min(end, -*d + 1); break;
        default: return std::nullopt;
      }
      matched = true;
    }
    if (!matched) return std::nullopt;
  }
  return range;
}

/*! \brief A block storing `value` into `buffer` over a box: per axis, iteration variable k runs
 *  over [0, extent[k]) and indexes offset[k] + k; `make_value` builds the value from the
 *  buffer's indices. */
Stmt BoxBlock(const std::string& name, const Buffer& buffer, const std::vector<IterVar>& like,
              const std::vector<int64_t>& offset, const std::vector<int64_t>& extent,
              const std::function<PrimExpr(const std::vector<PrimExpr>&)>& make_value) {
  std::vector<Var> loops;
  std::vector<PrimExpr> extents, values, index;
  std::vector<IterVar> iters;
  for (size_t k = 0; k < like.size(); ++k) {
    DataType t = like[k].var->dtype;
    Var loop = MakeVar(absl::StrCat("ax", k), t);
    Var v = MakeVar(like[k].var->name, t);
    loops.push_back(loop);
    extents.push_back(IntImm(t, extent[k]));
    iters.push_back(IterVar{v, Range{IntImm(t, 0), IntImm(t, extent[k])}, IterKind::kSpatial});
    values.push_back(loop);
    index.push_back(offset[k] == 0 ? PrimExpr(v) : v + IntImm(t, offset[k]));
  }
  Stmt body = Store(buffer, index, make_value(index));
  return MakeLoopNest(loops, extents, MakeBlockRealize(name, iters, values, body));
}

}  // namespace

absl::Status Schedule::DecomposePadding(const BlockRV& block_rv) {
  const char* kPrim = "decompose_padding";
  absl::StatusOr<BlockRef> b = Resolve(block_rv, kPrim);
  if (!b.ok()) return b.status();
  const BlockNode* block = b->block;
  const std::string what = absl::StrCat("block ", block->name);
  const auto* store = block->body.as<BufferStoreNode>();
  const auto* select = store ? store->value.as<SelectNode>() : nullptr;
  if (!IsSpatialBlock(block) || select == nullptr ||
      (select->false_value.as<FloatImmNode>() == nullptr && select->false_value.as<IntImmNode>() == nullptr)) {
    return ErrorAt(kPrim, what, "it is not out[v] = Select(condition, value, constant)");
  }
  // out[v0, v1, ...] over constant domains from 0, in its own loop nest at the top of its scope.
  if (store->indices.size() != block->iter_vars.size())
    return ErrorAt(kPrim, what, "it does not store at its iteration variables");
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    const int64_t* lo = AsConstInt(iv.dom.min);
    if (!store->indices[k].same_as(iv.var) || lo == nullptr || *lo != 0 || AsConstInt(iv.dom.extent) == nullptr) {
      return ErrorAt(kPrim, what, "it does not store at its iteration variables over constant domains");
    }
  }
  const BlockRealizeNode* scope = ScopeOf(b->path);
  const auto* seq = scope->block->body.as<SeqStmtNode>();
  const Stmt* top = nullptr;
  for (const Stmt& s : b->path) {
    if (seq ? std::any_of(seq->seq.begin(), seq->seq.end(), [&](const Stmt& t) { return t.same_as(s); })
            : s.same_as(scope->block->body)) {
      top = &s;
    }
  }
  std::vector<const ForNode*> nest;
  for (const Stmt* s = top; s != nullptr && s->as<ForNode>() != nullptr; s = &s->as<ForNode>()->body)
    nest.push_back(s->as<ForNode>());
  if (top == nullptr || nest.size() != block->iter_vars.size() || !nest.back()->body.same_as(Stmt(b->realize))) {
    return ErrorAt(
        kPrim, what,
        "it is not alone in a loop nest of its own at the top of its scope (decompose it before scheduling)");
  }
  std::optional<std::vector<std::pair<int64_t, int64_t>>> keep = Intervals(select->condition, block->iter_vars);
  if (!keep) return ErrorAt(kPrim, what, "its condition is not a box of its iteration variables");
  std::vector<int64_t> full, begin, size;
  for (size_t k = 0; k < keep->size(); ++k) {
    full.push_back(*AsConstInt(block->iter_vars[k].dom.extent));
    begin.push_back((*keep)[k].first);
    size.push_back((*keep)[k].second - (*keep)[k].first);
    if (size.back() <= 0) return ErrorAt(kPrim, what, "its interior is empty");
  }
  const Buffer& out = store->buffer;
  const PrimExpr fill = select->false_value;
  std::vector<Stmt> parts;
  // The border: per padded axis, the slab before the interior and the one after it.
  for (size_t k = 0; k < full.size(); ++k) {
    for (auto [from, width] :
         {std::make_pair(int64_t{0}, begin[k]), std::make_pair(begin[k] + size[k], full[k] - begin[k] - size[k])}) {
      if (width <= 0) continue;
      std::vector<int64_t> offset(full.size(), 0), extent = full;
      offset[k] = from;
      extent[k] = width;
      std::string name = UniqueBlockName(b->prim->body, absl::StrCat(block->name, "_border", parts.size()));
      parts.push_back(
          BoxBlock(name, out, block->iter_vars, offset, extent, [&](const std::vector<PrimExpr>&) { return fill; }));
    }
  }
  // The interior: the value with v = u + begin, its clamps simplified away by the loop ranges.
  parts.push_back(SimplifyWithLoopRanges(
      BoxBlock(block->name, out, block->iter_vars, begin, size, [&](const std::vector<PrimExpr>& index) {
        std::vector<std::pair<Var, PrimExpr>> bind;
        for (size_t k = 0; k < index.size(); ++k) bind.push_back({block->iter_vars[k].var, index[k]});
        return Substitute(select->true_value, bind);
      })));
  SetBody(b->func, ReplaceNode(b->prim->body, top->get(), MakeSeq(parts)));
  Record(kPrim, {TraceValue::Block(block_rv)});
  return absl::OkStatus();
}

}  // namespace tir
}  // namespace mlc
