/*! \file stmt_tree.cc
 *  \brief Paths, rewriting with removal, scopes and regions for the schedule primitives.
 */
#include "ir/tir/stmt_tree.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace tir {
namespace {

bool FindPath(const Stmt& s, const std::function<bool(const Stmt&)>& match, StmtPath* path) {
  if (!s.defined()) return false;
  path->push_back(s);
  if (match(s)) return true;
  switch (s->kind()) {
    case NodeKind::kFor:
      if (FindPath(s.as<ForNode>()->body, match, path)) return true;
      break;
    case NodeKind::kSeqStmt:
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) {
        if (FindPath(c, match, path)) return true;
      }
      break;
    case NodeKind::kBlockRealize: {
      const BlockNode* b = s.as<BlockRealizeNode>()->block.get();
      if (FindPath(b->body, match, path)) return true;
      break;
    }
    case NodeKind::kBlock:
      if (FindPath(s.as<BlockNode>()->body, match, path)) return true;
      break;
    case NodeKind::kIfThenElse: {
      const auto* i = s.as<IfThenElseNode>();
      if (FindPath(i->then_case, match, path) || FindPath(i->else_case, match, path)) return true;
      break;
    }
    case NodeKind::kAllocate:
      if (FindPath(s.as<AllocateNode>()->body, match, path)) return true;
      break;
    case NodeKind::kBufferStore:
    case NodeKind::kEvaluate: MLC_CASES_NOT_STMT break;
  }
  path->pop_back();
  return false;
}

void CollectBlocks(const Stmt& s, bool nested, std::vector<const BlockRealizeNode*>* out) {
  if (!s.defined()) return;
  switch (s->kind()) {
    case NodeKind::kFor: return CollectBlocks(s.as<ForNode>()->body, nested, out);
    case NodeKind::kSeqStmt:
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) CollectBlocks(c, nested, out);
      return;
    case NodeKind::kBlockRealize: {
      const auto* r = s.as<BlockRealizeNode>();
      out->push_back(r);
      if (nested) CollectBlocks(r->block->body, nested, out);
      return;
    }
    case NodeKind::kIfThenElse:
      CollectBlocks(s.as<IfThenElseNode>()->then_case, nested, out);
      CollectBlocks(s.as<IfThenElseNode>()->else_case, nested, out);
      return;
    case NodeKind::kAllocate: return CollectBlocks(s.as<AllocateNode>()->body, nested, out);
    case NodeKind::kBlock: return CollectBlocks(s.as<BlockNode>()->body, nested, out);
    case NodeKind::kBufferStore:
    case NodeKind::kEvaluate: MLC_CASES_NOT_STMT return;
  }
}

}  // namespace

std::optional<StmtPath> FindBlock(const Stmt& body, const std::string& name) {
  StmtPath path;
  if (FindPath(
          body,
          [&](const Stmt& s) {
            const auto* r = s.as<BlockRealizeNode>();
            return r != nullptr && r->block->name == name;
          },
          &path)) {
    return path;
  }
  return std::nullopt;
}

std::optional<StmtPath> FindLoop(const Stmt& body, const Var& var) {
  StmtPath path;
  if (FindPath(
          body,
          [&](const Stmt& s) {
            const auto* f = s.as<ForNode>();
            return f != nullptr && f->loop_var.same_as(var);
          },
          &path)) {
    return path;
  }
  return std::nullopt;
}

std::vector<const ForNode*> LoopsAbove(const StmtPath& path) {
  std::vector<const ForNode*> loops;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (path[i]->kind() == NodeKind::kBlockRealize) loops.clear();
    if (const auto* f = path[i].as<ForNode>()) loops.push_back(f);
  }
  return loops;
}

const BlockRealizeNode* ScopeOf(const StmtPath& path) {
  for (size_t i = path.size() - 1; i-- > 0;) {
    if (const auto* r = path[i].as<BlockRealizeNode>()) return r;
  }
  return nullptr;
}

Stmt RewriteStmt(const Stmt& s, const std::function<std::optional<Stmt>(const Stmt&)>& f) {
  if (!s.defined()) return s;
  if (std::optional<Stmt> r = f(s)) return *r;
  switch (s->kind()) {
    case NodeKind::kFor: {
      const auto* loop = s.as<ForNode>();
      Stmt body = RewriteStmt(loop->body, f);
      if (!body.defined()) return Stmt();
      if (body.same_as(loop->body)) return s;
      return Stmt(new ForNode(loop->loop_var, loop->min, loop->extent, loop->for_kind, body, loop->annotations));
    }
    case NodeKind::kSeqStmt: {
      const auto* seq = s.as<SeqStmtNode>();
      std::vector<Stmt> out;
      bool changed = false;
      for (const Stmt& c : seq->seq) {
        Stmt n = RewriteStmt(c, f);
        changed |= !n.same_as(c);
        if (n.defined()) out.push_back(n);
      }
      if (!changed) return s;
      if (out.empty()) return Stmt();
      return MakeSeq(out);
    }
    case NodeKind::kBlockRealize: {
      const auto* r = s.as<BlockRealizeNode>();
      Stmt block = RewriteStmt(r->block, f);
      if (!block.defined()) return Stmt();
      if (block.same_as(r->block)) return s;
      return Stmt(new BlockRealizeNode(r->iter_values, r->predicate, block.as_ref<Block>()));
    }
    case NodeKind::kBlock: {
      const auto* b = s.as<BlockNode>();
      Stmt body = RewriteStmt(b->body, f);
      Stmt init = RewriteStmt(b->init, f);
      if (body.same_as(b->body) && init.same_as(b->init)) return s;
      if (!body.defined()) {
        if (b->iter_vars.empty() && b->name == "root")
          body = Stmt(new EvaluateNode(I32(0)));
        else
          return Stmt();
      }
      return Stmt(
          new BlockNode(b->name, b->iter_vars, b->reads, b->writes, b->alloc_buffers, init, body, b->annotations));
    }
    case NodeKind::kIfThenElse: {
      const auto* i = s.as<IfThenElseNode>();
      Stmt t = RewriteStmt(i->then_case, f);
      Stmt e = RewriteStmt(i->else_case, f);
      if (t.same_as(i->then_case) && e.same_as(i->else_case)) return s;
      if (!t.defined()) {
        if (!e.defined()) return Stmt();
        return Stmt(new IfThenElseNode(!i->condition, e, Stmt()));
      }
      return Stmt(new IfThenElseNode(i->condition, t, e));
    }
    case NodeKind::kAllocate: {
      const auto* a = s.as<AllocateNode>();
      Stmt body = RewriteStmt(a->body, f);
      if (!body.defined()) return Stmt();
      if (body.same_as(a->body)) return s;
      return Stmt(new AllocateNode(a->buffer, body));
    }
    case NodeKind::kBufferStore:
    case NodeKind::kEvaluate: MLC_CASES_NOT_STMT return s;
  }
  return s;
}

Stmt ReplaceNode(const Stmt& root, const Object* target, const Stmt& replacement) {
  return RewriteStmt(root, [&](const Stmt& s) -> std::optional<Stmt> {
    if (s.get() == target) return replacement;
    return std::nullopt;
  });
}

std::vector<const BlockRealizeNode*> ChildBlocks(const Stmt& s) {
  std::vector<const BlockRealizeNode*> out;
  if (const auto* r = s.as<BlockRealizeNode>()) {
    CollectBlocks(r->block->body, false, &out);
  } else {
    CollectBlocks(s, false, &out);
  }
  return out;
}

std::vector<const BlockRealizeNode*> AllBlocks(const Stmt& s) {
  std::vector<const BlockRealizeNode*> out;
  CollectBlocks(s, true, &out);
  return out;
}

bool UsesAnyVar(const PrimExpr& e, const std::set<const Object*>& vars) {
  class Finder : public StmtExprVisitor {
   public:
    explicit Finder(const std::set<const Object*>& v) : vars(v) {}
    const std::set<const Object*>& vars;
    bool found = false;

   protected:
    void VisitExpr_(const TirVarNode* op) override { found |= vars.count(op) > 0; }
  };
  if (!e.defined()) return false;
  Finder f(vars);
  f.VisitExpr(e);
  return f.found;
}

bool UsesVar(const PrimExpr& e, const Var& var) { return UsesAnyVar(e, {var.get()}); }

Analyzer AnalyzerFor(const std::vector<const ForNode*>& loops) {
  Analyzer a;
  for (const ForNode* f : loops) a.Bind(f->loop_var, Range{f->min, f->extent});
  return a;
}

std::string UniqueBlockName(const Stmt& body, const std::string& base) {
  if (!FindBlock(body, base)) return base;
  for (int i = 1;; ++i) {
    std::string name = absl::StrCat(base, "_", i);
    if (!FindBlock(body, name)) return name;
  }
}

/*! \brief Removes `buffer` from the alloc_buffers of whichever block allocates it. */
Stmt DropAllocation(const Stmt& body, const Buffer& buffer) {
  return RewriteStmt(body, [&](const Stmt& s) -> std::optional<Stmt> {
    const auto* r = s.as<BlockRealizeNode>();
    if (r == nullptr) return std::nullopt;
    const BlockNode* b = r->block.get();
    if (std::none_of(b->alloc_buffers.begin(), b->alloc_buffers.end(),
                     [&](const Buffer& x) { return x.same_as(buffer); })) {
      return std::nullopt;
    }
    std::vector<Buffer> allocs;
    for (const Buffer& x : b->alloc_buffers) {
      if (!x.same_as(buffer)) allocs.push_back(x);
    }
    Block nb(new BlockNode(b->name, b->iter_vars, b->reads, b->writes, allocs, b->init, b->body, b->annotations));
    return Stmt(new BlockRealizeNode(r->iter_values, r->predicate, nb));
  });
}

std::vector<const BufferLoadNode*> LoadsIn(const PrimExpr& e) {
  struct Collector : StmtExprVisitor {
    std::vector<const BufferLoadNode*> found;
    void VisitExpr_(const BufferLoadNode* op) override {
      found.push_back(op);
      StmtExprVisitor::VisitExpr_(op);
    }
  } collector;
  collector.VisitExpr(e);
  return collector.found;
}

bool IsParam(const PrimFunc& func, const Buffer& buffer) {
  return std::any_of(func->params.begin(), func->params.end(), [&](const Buffer& p) { return p.same_as(buffer); });
}

bool SameShape(const Buffer& a, const Buffer& b) {
  if (a->dtype != b->dtype || a->shape.size() != b->shape.size()) return false;
  for (size_t d = 0; d < a->shape.size(); ++d) {
    if (!ExprDeepEqual(a->shape[d], b->shape[d])) return false;
  }
  return true;
}

bool IsSpatialBlock(const BlockNode* block) {
  if (block->init.defined()) return false;
  for (const IterVar& iv : block->iter_vars) {
    if (iv.kind != IterKind::kSpatial) return false;
  }
  return true;
}

bool IsReductionBlock(const BlockNode* block) {
  if (!block->init.defined()) return false;
  for (const IterVar& iv : block->iter_vars) {
    if (iv.kind == IterKind::kReduce) return true;
  }
  return false;
}

PrimExpr BufferAccessRewriter::VisitExpr_(const BufferLoadNode* op, const PrimExpr& self) {
  bool changed = false;
  std::vector<PrimExpr> idx = VisitExprs(op->indices, &changed);
  if (op->buffer.same_as(from_)) return Load(to_, Indices(idx));
  return changed ? Load(op->buffer, idx) : self;
}

Stmt BufferAccessRewriter::VisitStmt_(const BufferStoreNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<PrimExpr> idx = VisitExprs(op->indices, &changed);
  PrimExpr v = VisitExpr(op->value);
  if (op->buffer.same_as(from_)) return Stmt(new BufferStoreNode(to_, v, Indices(idx)));
  if (!changed && v.same_as(op->value)) return self;
  return Stmt(new BufferStoreNode(op->buffer, v, idx));
}

Block WithBodyRewritten(const BlockNode* block, StmtExprMutator* mutator) {
  return WithInferredRegions(Block(new BlockNode(block->name, block->iter_vars, {}, {}, block->alloc_buffers,
                                                 block->init.defined() ? mutator->VisitStmt(block->init) : block->init,
                                                 mutator->VisitStmt(block->body), block->annotations)));
}

Block WithInferredRegions(const Block& b) {
  auto [reads, writes] = InferAccessRegions(b->body, b->init, b->alloc_buffers);
  return Block(new BlockNode(b->name, b->iter_vars, reads, writes, b->alloc_buffers, b->init, b->body, b->annotations));
}

Stmt ReinferRegions(const Stmt& s) {
  return RewriteStmt(s, [](const Stmt& st) -> std::optional<Stmt> {
    const auto* r = st.as<BlockRealizeNode>();
    if (r == nullptr) return std::nullopt;
    Stmt inner = ReinferRegions(r->block->body);
    Stmt init = r->block->init.defined() ? ReinferRegions(r->block->init) : Stmt();
    const BlockNode* b = r->block.get();
    Block nb(new BlockNode(b->name, b->iter_vars, b->reads, b->writes, b->alloc_buffers, init, inner, b->annotations));
    if (!(b->iter_vars.empty() && b->name == "root")) nb = WithInferredRegions(nb);
    return Stmt(new BlockRealizeNode(r->iter_values, r->predicate, nb));
  });
}

std::vector<IntRange> AccessRange(const BlockRealizeNode* realize, const Buffer& buffer, bool write,
                                  const std::unordered_map<const Object*, Range>& relaxed, const Analyzer& analyzer) {
  const BlockNode* b = realize->block.get();
  std::vector<std::pair<Var, PrimExpr>> bind;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) bind.push_back({b->iter_vars[i].var, realize->iter_values[i]});
  std::vector<IntRange> out;
  bool found = false;
  for (const BufferRegion& r : write ? b->writes : b->reads) {
    if (!r.buffer.same_as(buffer)) continue;
    std::vector<IntRange> dims;
    for (const Range& range : r.region) {
      PrimExpr lo = Substitute(range.min, bind);
      PrimExpr hi = Substitute(range.min + range.extent - 1, bind);
      IntRange a = analyzer.EvalRange(lo, relaxed), c = analyzer.EvalRange(hi, relaxed);
      if (!a.min.defined() || !c.min.defined()) return {IntRange{}};
      dims.push_back({a.min, c.max});
    }
    if (!found) {
      out = dims;
      found = true;
    } else {
      for (size_t d = 0; d < dims.size(); ++d) {
        out[d] = {analyzer.Simplify(Min(out[d].min, dims[d].min)), analyzer.Simplify(Max(out[d].max, dims[d].max))};
      }
    }
  }
  return out;
}

std::unordered_map<const Object*, Range> LoopRanges(const std::vector<const ForNode*>& loops) {
  std::unordered_map<const Object*, Range> out;
  for (const ForNode* f : loops) out[f->loop_var.get()] = Range{f->min, f->extent};
  return out;
}

std::vector<const ForNode*> LoopsInside(const Stmt& s) {
  std::vector<const ForNode*> out;
  class Collector : public StmtExprVisitor {
   public:
    std::vector<const ForNode*>* out;

   protected:
    void VisitStmt_(const ForNode* op) override {
      out->push_back(op);
      StmtExprVisitor::VisitStmt_(op);
    }
  };
  Collector c;
  c.out = &out;
  c.VisitStmt(s);
  return out;
}

}  // namespace tir
}  // namespace mlc
