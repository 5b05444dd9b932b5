/*! \file loop_transformation.cc
 *  \brief split, fuse, reorder, parallel, vectorize, unroll, annotate.
 */
#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {
namespace {

/*! \brief Simplifies block bindings and predicates below `s`, knowing the ranges of the loops
 *  around and inside. */
Stmt SimplifyBindings(const Stmt& s, const Analyzer& outer) {
  return RewriteStmt(s, [&](const Stmt& st) -> std::optional<Stmt> {
    if (const auto* f = st.as<ForNode>()) {
      Analyzer inner = outer;
      inner.Bind(f->loop_var, Range{f->min, f->extent});
      Stmt body = SimplifyBindings(f->body, inner);
      if (body.same_as(f->body)) return st;
      return Stmt(new ForNode(f->loop_var, f->min, f->extent, f->for_kind, body, f->annotations));
    }
    if (const auto* r = st.as<BlockRealizeNode>()) {
      std::vector<PrimExpr> values;
      for (const PrimExpr& v : r->iter_values) values.push_back(outer.Simplify(v));
      return Stmt(new BlockRealizeNode(values, outer.Simplify(r->predicate), r->block));
    }
    return std::nullopt;
  });
}

/*! \brief Adds `cond` to the predicate of every block realize below `s` (not nested ones). */
Stmt AddPredicate(const Stmt& s, const PrimExpr& cond) {
  return RewriteStmt(s, [&](const Stmt& st) -> std::optional<Stmt> {
    const auto* r = st.as<BlockRealizeNode>();
    if (r == nullptr) return std::nullopt;
    const int64_t* p = AsConstInt(r->predicate);
    PrimExpr pred = (p != nullptr && *p != 0) ? cond : (r->predicate && cond);
    return Stmt(new BlockRealizeNode(r->iter_values, pred, r->block));
  });
}

}  // namespace

absl::StatusOr<std::vector<LoopRV>> Schedule::Split(const LoopRV& loop_rv, const std::vector<Factor>& factors) {
  absl::StatusOr<LoopRef> l = Resolve(loop_rv, "split");
  if (!l.ok()) return l.status();
  const ForNode* loop = l->loop;
  if (factors.size() < 2) return ErrorAt("split", Name(*l), "needs at least two factors");
  const int64_t* extent = AsConstInt(loop->extent);
  if (extent == nullptr) return SplitSymbolic(loop_rv, *l, factors);
  std::vector<int64_t> f(factors.size(), -1);
  int none_index = -1;
  int64_t known = 1;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!factors[i]) {
      if (none_index >= 0) return ErrorAt("split", Name(*l), "at most one factor may be None");
      none_index = static_cast<int>(i);
      continue;
    }
    absl::StatusOr<int64_t> v = ResolveInt(*factors[i], "split");
    if (!v.ok()) return v.status();
    if (*v < 1) return ErrorAt("split", Name(*l), absl::StrCat("factor ", *v, " is not positive"));
    f[i] = *v;
    known *= *v;
  }
  if (none_index >= 0) {
    f[none_index] = (*extent + known - 1) / known;
    known *= f[none_index];
  }
  if (known < *extent) {
    return ErrorAt(
        "split", Name(*l),
        absl::StrCat("factors [", absl::StrJoin(f, ", "), "] multiply to ", known, ", less than the extent ", *extent));
  }
  // New loops name_0, name_1, ...: old = min + sum(v_i * stride_i).
  DataType t = loop->loop_var->dtype;
  std::vector<Var> vars;
  PrimExpr replacement;
  int64_t stride = known;
  for (size_t i = 0; i < f.size(); ++i) {
    vars.push_back(MakeVar(absl::StrCat(loop->loop_var->name, "_", i), t));
    stride /= f[i];
    PrimExpr term = stride == 1 ? PrimExpr(vars.back()) : vars.back() * stride;
    replacement = replacement.defined() ? replacement + term : term;
  }
  const int64_t* min = AsConstInt(loop->min);
  if (min == nullptr || *min != 0) replacement = loop->min + replacement;
  Stmt body = Substitute(loop->body, {{loop->loop_var, replacement}});
  if (known > *extent) body = AddPredicate(body, replacement < (loop->min + loop->extent));
  Analyzer a = AnalyzerFor(LoopsAbove(l->path));
  for (size_t i = 0; i < vars.size(); ++i) a.Bind(vars[i], 0, f[i]);
  body = SimplifyBindings(body, a);
  for (size_t i = vars.size(); i-- > 0;) {
    body = Stmt(new ForNode(vars[i], IntImm(t, 0), IntImm(t, f[i]), ForKind::kSerial, body));
  }
  SetBody(l->func, ReplaceNode(l->prim->body, loop, body));
  return RecordSplit(loop_rv, l->func, factors, vars);
}

std::vector<LoopRV> Schedule::RecordSplit(const LoopRV& loop_rv, const std::string& func,
                                          const std::vector<Factor>& factors, const std::vector<Var>& vars) {
  std::vector<LoopRV> out;
  std::vector<TraceValue> fs, outs;
  for (const Factor& fac : factors) {
    if (!fac)
      fs.push_back(TraceValue::None());
    else if (const int64_t* i = std::get_if<int64_t>(&*fac))
      fs.push_back(TraceValue::Int(*i));
    else
      fs.push_back(TraceValue::Expr(std::get<ExprRV>(*fac)));
  }
  for (const Var& v : vars) {
    out.push_back(NewLoopRV(func, v));
    outs.push_back(TraceValue::Loop(out.back()));
  }
  Record("split", {TraceValue::Loop(loop_rv), TraceValue::List(fs)}, outs);
  return out;
}

absl::StatusOr<std::vector<LoopRV>> Schedule::SplitSymbolic(const LoopRV& loop_rv, const LoopRef& l,
                                                            const std::vector<Factor>& factors) {
  // A symbolic extent n (a batch): the factors but the outermost are constants, the outermost
  // None, ceil(n / inner) iterations, and a predicate guards the tail unless the inner factors
  // are all 1.
  const ForNode* loop = l.loop;
  if (factors.empty() || factors[0])
    return ErrorAt("split", Name(l), "a symbolic extent splits with None as the outermost factor");
  std::vector<int64_t> f(factors.size(), 1);
  int64_t known = 1;
  for (size_t i = 1; i < factors.size(); ++i) {
    if (!factors[i]) return ErrorAt("split", Name(l), "at most one factor may be None");
    absl::StatusOr<int64_t> v = ResolveInt(*factors[i], "split");
    if (!v.ok()) return v.status();
    if (*v < 1) return ErrorAt("split", Name(l), absl::StrCat("factor ", *v, " is not positive"));
    f[i] = *v;
    known *= *v;
  }
  DataType t = loop->loop_var->dtype;
  PrimExpr n = Cast(t, loop->extent);
  PrimExpr outer = known == 1 ? n : FloorDiv(n + IntImm(t, known - 1), IntImm(t, known));
  std::vector<Var> vars;
  PrimExpr replacement;
  for (size_t i = 0; i < f.size(); ++i) {
    vars.push_back(MakeVar(absl::StrCat(loop->loop_var->name, "_", i), t));
    int64_t stride = 1;  // the product of the inner factors
    for (size_t j = i + 1; j < f.size(); ++j) stride *= f[j];
    PrimExpr term = stride == 1 ? PrimExpr(vars.back()) : vars.back() * stride;
    replacement = replacement.defined() ? replacement + term : term;
  }
  const int64_t* min = AsConstInt(loop->min);
  if (min == nullptr || *min != 0) replacement = loop->min + replacement;
  Stmt body = Substitute(loop->body, {{loop->loop_var, replacement}});
  if (known > 1) body = AddPredicate(body, replacement < (loop->min + loop->extent));
  Analyzer a = AnalyzerFor(LoopsAbove(l.path));
  for (size_t i = 1; i < vars.size(); ++i) a.Bind(vars[i], 0, f[i]);
  body = SimplifyBindings(body, a);
  for (size_t i = vars.size(); i-- > 0;) {
    body = Stmt(new ForNode(vars[i], IntImm(t, 0), i == 0 ? outer : IntImm(t, f[i]), ForKind::kSerial, body));
  }
  SetBody(l.func, ReplaceNode(l.prim->body, loop, body));
  return RecordSplit(loop_rv, l.func, factors, vars);
}

absl::StatusOr<LoopRV> Schedule::Fuse(const std::vector<LoopRV>& loop_rvs) {
  if (loop_rvs.size() < 2) return absl::InvalidArgumentError("fuse: needs at least two loops");
  std::vector<LoopRef> loops;
  for (const LoopRV& rv : loop_rvs) {
    absl::StatusOr<LoopRef> l = Resolve(rv, "fuse");
    if (!l.ok()) return l.status();
    loops.push_back(*l);
  }
  std::vector<std::string> names;
  int64_t total = 1;
  for (size_t i = 0; i < loops.size(); ++i) {
    const ForNode* f = loops[i].loop;
    names.push_back(f->loop_var->name);
    if (i + 1 < loops.size() && loops[i].func != loops[i + 1].func)
      return ErrorAt("fuse", Name(loops[i]), "loops of different functions");
    if (i + 1 < loops.size() && f->body.get() != loops[i + 1].loop) {
      return ErrorAt("fuse", Name(loops[i]),
                     absl::StrCat("loop ", loops[i + 1].loop->loop_var->name,
                                  " is not its only child (fuse takes perfectly nested loops, outermost first)"));
    }
    const int64_t* e = AsConstInt(f->extent);
    const int64_t* m = AsConstInt(f->min);
    if (m == nullptr || *m != 0) return ErrorAt("fuse", Name(loops[i]), "the loop does not start at 0");
    if (e != nullptr) total *= *e;
  }
  DataType t = loops[0].loop->loop_var->dtype;
  bool symbolic = false;  // some extent is a shape expression: strides are expressions too
  for (const LoopRef& l : loops) {
    if (l.loop->loop_var->dtype.bits() > t.bits()) t = l.loop->loop_var->dtype;
    symbolic = symbolic || AsConstInt(l.loop->extent) == nullptr;
  }
  Var fused = MakeVar(absl::StrCat(absl::StrJoin(names, "_"), "_fused"), t);
  std::vector<std::pair<Var, PrimExpr>> bind;
  Analyzer a = AnalyzerFor(LoopsAbove(loops[0].path));
  PrimExpr stride = IntImm(t, 1);  // the product of the inner extents, innermost first
  std::vector<PrimExpr> values(loops.size());
  for (size_t i = loops.size(); i-- > 0;) {
    PrimExpr e = a.Simplify(Cast(t, loops[i].loop->extent));
    const int64_t* s = AsConstInt(stride);
    PrimExpr v = (s != nullptr && *s == 1) ? PrimExpr(fused) : FloorDiv(fused, stride);
    if (i > 0) v = FloorMod(v, e);
    values[i] = Cast(loops[i].loop->loop_var->dtype, v);
    stride = a.Simplify(stride * e);
  }
  for (size_t i = 0; i < loops.size(); ++i) bind.push_back({loops[i].loop->loop_var, values[i]});
  Stmt body = Substitute(loops.back().loop->body, bind);
  if (!symbolic) a.Bind(fused, 0, total);
  body = SimplifyBindings(body, a);
  PrimExpr extent = symbolic ? stride : IntImm(t, total);
  body = Stmt(new ForNode(fused, IntImm(t, 0), extent, ForKind::kSerial, body));
  SetBody(loops[0].func, ReplaceNode(loops[0].prim->body, loops[0].loop, body));
  LoopRV out = NewLoopRV(loops[0].func, fused);
  std::vector<TraceValue> ins;
  for (const LoopRV& rv : loop_rvs) ins.push_back(TraceValue::Loop(rv));
  Record("fuse", {TraceValue::List(ins)}, {TraceValue::Loop(out)});
  return out;
}

absl::Status Schedule::Reorder(const std::vector<LoopRV>& loop_rvs) {
  if (loop_rvs.empty()) return absl::OkStatus();
  std::vector<LoopRef> loops;
  for (const LoopRV& rv : loop_rvs) {
    absl::StatusOr<LoopRef> l = Resolve(rv, "reorder");
    if (!l.ok()) return l.status();
    loops.push_back(*l);
  }
  // The deepest loop's path holds all the others.
  size_t deepest = 0;
  for (size_t i = 1; i < loops.size(); ++i) {
    if (loops[i].path.size() > loops[deepest].path.size()) deepest = i;
  }
  const StmtPath& path = loops[deepest].path;
  std::set<const Object*> given;
  for (const LoopRef& l : loops) {
    if (!given.insert(l.loop).second) return ErrorAt("reorder", Name(l), "given twice");
    if (std::find_if(path.begin(), path.end(), [&](const Stmt& s) { return s.get() == l.loop; }) == path.end()) {
      return ErrorAt("reorder", Name(l),
                     absl::StrCat("not in the same loop nest as loop ", loops[deepest].loop->loop_var->name));
    }
  }
  // The chain from the outermost given loop down to the deepest.
  size_t top = path.size();
  for (size_t i = 0; i < path.size(); ++i) {
    if (given.count(path[i].get())) {
      top = i;
      break;
    }
  }
  std::vector<const ForNode*> chain;
  for (size_t i = top; i < path.size(); ++i) {
    const auto* f = path[i].as<ForNode>();
    if (f == nullptr) {
      return ErrorAt(
          "reorder", Name(loops[deepest]),
          absl::StrCat("a ", NodeKindName(path[i]->kind()), " stands between the loops; they must be one nest"));
    }
    chain.push_back(f);
    if (i + 1 < path.size() && f->body.get() != path[i + 1].get()) {
      return ErrorAt("reorder", absl::StrCat("loop ", f->loop_var->name),
                     "has other statements beside the next loop; reorder needs a perfect nest");
    }
  }
  std::set<const Object*> chain_vars;
  for (const ForNode* f : chain) chain_vars.insert(f->loop_var.get());
  for (const ForNode* f : chain) {
    if (UsesAnyVar(f->min, chain_vars) || UsesAnyVar(f->extent, chain_vars)) {
      return ErrorAt("reorder", absl::StrCat("loop ", f->loop_var->name),
                     "its bounds depend on another loop of the nest");
    }
  }
  // Positions of the given loops take them in the given order.
  std::vector<const ForNode*> order = chain;
  size_t next = 0;
  for (size_t i = 0; i < chain.size(); ++i) {
    if (given.count(chain[i])) order[i] = loops[next++].loop;
  }
  Stmt body = chain.back()->body;
  for (size_t i = order.size(); i-- > 0;) {
    const ForNode* f = order[i];
    body = Stmt(new ForNode(f->loop_var, f->min, f->extent, f->for_kind, body, f->annotations));
  }
  SetBody(loops[0].func, ReplaceNode(loops[0].prim->body, chain.front(), body));
  std::vector<TraceValue> ins;
  for (const LoopRV& rv : loop_rvs) ins.push_back(TraceValue::Loop(rv));
  Record("reorder", {TraceValue::List(ins)});
  return absl::OkStatus();
}

absl::Status Schedule::SetLoopKind(const LoopRV& loop_rv, ForKind kind, const char* primitive) {
  absl::StatusOr<LoopRef> l = Resolve(loop_rv, primitive);
  if (!l.ok()) return l.status();
  const ForNode* loop = l->loop;
  if (kind == ForKind::kParallel || kind == ForKind::kVectorized) {
    // Buffers allocated inside the loop are private to an iteration.
    std::set<const Object*> local;
    for (const BlockRealizeNode* r : AllBlocks(loop->body)) {
      for (const Buffer& b : r->block->alloc_buffers) local.insert(b.get());
    }
    for (const BlockRealizeNode* r : AllBlocks(loop->body)) {
      const BlockNode* b = r->block.get();
      bool indexed = false;
      for (size_t i = 0; i < b->iter_vars.size(); ++i) {
        if (!UsesVar(r->iter_values[i], loop->loop_var)) continue;
        if (b->iter_vars[i].kind == IterKind::kReduce) {
          return ErrorAt(
              primitive, Name(*l),
              absl::StrCat("it is bound to the reduction variable ", b->iter_vars[i].var->name, " of block ", b->name,
                           "; a reduction loop cannot be ", kind == ForKind::kParallel ? "parallelized" : "vectorized",
                           " (rfactor it first)"));
        }
        indexed = true;
      }
      bool writes_shared = false;
      for (const BufferRegion& w : b->writes) writes_shared |= local.count(w.buffer.get()) == 0;
      if (!indexed && writes_shared && r->iter_values.size() > 0) {
        return ErrorAt(primitive, Name(*l),
                       absl::StrCat("block ", b->name, " writes the same elements in every iteration (no ",
                                    "iteration variable of it uses the loop); the iterations would race"));
      }
    }
  }
  Stmt replacement(new ForNode(loop->loop_var, loop->min, loop->extent, kind, loop->body, loop->annotations));
  SetBody(l->func, ReplaceNode(l->prim->body, loop, replacement));
  Record(primitive, {TraceValue::Loop(loop_rv)});
  return absl::OkStatus();
}

absl::Status Schedule::Parallel(const LoopRV& loop) { return SetLoopKind(loop, ForKind::kParallel, "parallel"); }
absl::Status Schedule::Vectorize(const LoopRV& loop) { return SetLoopKind(loop, ForKind::kVectorized, "vectorize"); }
absl::Status Schedule::Unroll(const LoopRV& loop) { return SetLoopKind(loop, ForKind::kUnrolled, "unroll"); }

namespace {
TraceValue AttrToTrace(const AttrValue& v) {
  if (v.is<int64_t>()) return TraceValue::Int(v.get<int64_t>());
  if (v.is<bool>()) return TraceValue::Bool(v.get<bool>());
  if (v.is<double>()) return TraceValue::Float(v.get<double>());
  if (v.is<std::string>()) return TraceValue::Str(v.get<std::string>());
  return TraceValue::None();
}
}  // namespace

absl::Status Schedule::Annotate(const LoopRV& loop_rv, const std::string& key, const AttrValue& value) {
  absl::StatusOr<LoopRef> l = Resolve(loop_rv, "annotate");
  if (!l.ok()) return l.status();
  Attrs annotations = l->loop->annotations;
  annotations[key] = value;
  const ForNode* f = l->loop;
  SetBody(l->func, ReplaceNode(l->prim->body, f,
                               Stmt(new ForNode(f->loop_var, f->min, f->extent, f->for_kind, f->body, annotations))));
  Record("annotate", {TraceValue::Loop(loop_rv), TraceValue::Str(key), AttrToTrace(value)});
  return absl::OkStatus();
}

absl::Status Schedule::Annotate(const BlockRV& block_rv, const std::string& key, const AttrValue& value) {
  absl::StatusOr<BlockRef> b = Resolve(block_rv, "annotate");
  if (!b.ok()) return b.status();
  Attrs annotations = b->block->annotations;
  annotations[key] = value;
  const BlockNode* o = b->block;
  Block nb(new BlockNode(o->name, o->iter_vars, o->reads, o->writes, o->alloc_buffers, o->init, o->body, annotations));
  SetBody(b->func, ReplaceNode(b->prim->body, o, nb));
  Record("annotate", {TraceValue::Block(block_rv), TraceValue::Str(key), AttrToTrace(value)});
  return absl::OkStatus();
}

}  // namespace tir
}  // namespace mlc
