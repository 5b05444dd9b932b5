/*! \file tir_functor.cc
 *  \brief Loop-level visitor and mutator.
 */
#include "ir/tir/tir_functor.h"

namespace mlc {
namespace tir {

// ---------------------------------------------------------------------------------------------
// Visitor.

void StmtExprVisitor::VisitExpr(const PrimExpr& e) {
  if (!e.defined()) return;
  switch (e->kind()) {
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
    case NodeKind::kStringImm: return;
    case NodeKind::kTirVar: return VisitExpr_(e.as<TirVarNode>());
    case NodeKind::kBufferLoad: return VisitExpr_(e.as<BufferLoadNode>());
    case NodeKind::kNot: return VisitExpr_(e.as<NotNode>());
    case NodeKind::kSelect: return VisitExpr_(e.as<SelectNode>());
    case NodeKind::kCast: return VisitExpr_(e.as<CastNode>());
    case NodeKind::kTirCall:
      return VisitExpr_(e.as<TirCallNode>());
      MLC_BINARY_CASES
      return VisitExpr_(static_cast<const BinaryNode*>(e.get()));
      MLC_CASES_NOT_PRIM_EXPR
      return;
  }
}

void StmtExprVisitor::VisitExpr_(const BufferLoadNode* op) {
  for (const PrimExpr& i : op->indices) VisitExpr(i);
}
void StmtExprVisitor::VisitExpr_(const BinaryNode* op) {
  VisitExpr(op->a);
  VisitExpr(op->b);
}
void StmtExprVisitor::VisitExpr_(const NotNode* op) { VisitExpr(op->a); }
void StmtExprVisitor::VisitExpr_(const SelectNode* op) {
  VisitExpr(op->condition);
  VisitExpr(op->true_value);
  VisitExpr(op->false_value);
}
void StmtExprVisitor::VisitExpr_(const CastNode* op) { VisitExpr(op->value); }
void StmtExprVisitor::VisitExpr_(const TirCallNode* op) {
  for (const PrimExpr& a : op->args) VisitExpr(a);
}

void StmtExprVisitor::VisitStmt(const Stmt& s) {
  if (!s.defined()) return;
  switch (s->kind()) {
    case NodeKind::kBufferStore: return VisitStmt_(s.as<BufferStoreNode>());
    case NodeKind::kFor: return VisitStmt_(s.as<ForNode>());
    case NodeKind::kSeqStmt: return VisitStmt_(s.as<SeqStmtNode>());
    case NodeKind::kIfThenElse: return VisitStmt_(s.as<IfThenElseNode>());
    case NodeKind::kEvaluate: return VisitStmt_(s.as<EvaluateNode>());
    case NodeKind::kBlock: return VisitStmt_(s.as<BlockNode>());
    case NodeKind::kBlockRealize: return VisitStmt_(s.as<BlockRealizeNode>());
    case NodeKind::kAllocate:
      return VisitStmt_(s.as<AllocateNode>());
      MLC_CASES_NOT_STMT
      return;
  }
}

void StmtExprVisitor::VisitStmt_(const BufferStoreNode* op) {
  for (const PrimExpr& i : op->indices) VisitExpr(i);
  VisitExpr(op->value);
}
void StmtExprVisitor::VisitStmt_(const ForNode* op) {
  VisitExpr(op->min);
  VisitExpr(op->extent);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const SeqStmtNode* op) {
  for (const Stmt& s : op->seq) VisitStmt(s);
}
void StmtExprVisitor::VisitStmt_(const IfThenElseNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->then_case);
  VisitStmt(op->else_case);
}
void StmtExprVisitor::VisitStmt_(const EvaluateNode* op) { VisitExpr(op->value); }
void StmtExprVisitor::VisitStmt_(const BlockNode* op) {
  for (const IterVar& iv : op->iter_vars) {
    VisitExpr(iv.dom.min);
    VisitExpr(iv.dom.extent);
  }
  VisitStmt(op->init);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const BlockRealizeNode* op) {
  for (const PrimExpr& v : op->iter_values) VisitExpr(v);
  VisitExpr(op->predicate);
  VisitStmt(op->block);
}
void StmtExprVisitor::VisitStmt_(const AllocateNode* op) { VisitStmt(op->body); }

// ---------------------------------------------------------------------------------------------
// Mutator.

PrimExpr StmtExprMutator::VisitExpr(const PrimExpr& e) {
  if (!e.defined()) return e;
  switch (e->kind()) {
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
    case NodeKind::kStringImm: return e;
    case NodeKind::kTirVar: return VisitExpr_(e.as<TirVarNode>(), e);
    case NodeKind::kBufferLoad: return VisitExpr_(e.as<BufferLoadNode>(), e);
    case NodeKind::kNot: return VisitExpr_(e.as<NotNode>(), e);
    case NodeKind::kSelect: return VisitExpr_(e.as<SelectNode>(), e);
    case NodeKind::kCast: return VisitExpr_(e.as<CastNode>(), e);
    case NodeKind::kTirCall:
      return VisitExpr_(e.as<TirCallNode>(), e);
      MLC_BINARY_CASES
      return VisitExpr_(static_cast<const BinaryNode*>(e.get()), e);
      MLC_CASES_NOT_PRIM_EXPR
      return e;
  }
}

std::vector<PrimExpr> StmtExprMutator::VisitExprs(const std::vector<PrimExpr>& exprs, bool* changed) {
  std::vector<PrimExpr> out;
  out.reserve(exprs.size());
  for (const PrimExpr& e : exprs) {
    out.push_back(VisitExpr(e));
    if (!out.back().same_as(e)) *changed = true;
  }
  return out;
}

std::vector<BufferRegion> StmtExprMutator::VisitRegions(const std::vector<BufferRegion>& regions, bool* changed) {
  std::vector<BufferRegion> out;
  for (const BufferRegion& r : regions) {
    BufferRegion nr{VisitBuffer(r.buffer), {}};
    if (!nr.buffer.same_as(r.buffer)) *changed = true;
    for (const Range& range : r.region) {
      Range n{VisitExpr(range.min), VisitExpr(range.extent)};
      if (!n.min.same_as(range.min) || !n.extent.same_as(range.extent)) *changed = true;
      nr.region.push_back(n);
    }
    out.push_back(std::move(nr));
  }
  return out;
}

PrimExpr StmtExprMutator::VisitExpr_(const BufferLoadNode* op, const PrimExpr& self) {
  bool changed = false;
  Buffer buffer = VisitBuffer(op->buffer);
  std::vector<PrimExpr> indices = VisitExprs(op->indices, &changed);
  if (!changed && buffer.same_as(op->buffer)) return self;
  return PrimExpr(new BufferLoadNode(buffer, std::move(indices)));
}

PrimExpr StmtExprMutator::VisitExpr_(const BinaryNode* op, const PrimExpr& self) {
  PrimExpr a = VisitExpr(op->a);
  PrimExpr b = VisitExpr(op->b);
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return MakeBinary(op->kind(), std::move(a), std::move(b));
}

PrimExpr StmtExprMutator::VisitExpr_(const NotNode* op, const PrimExpr& self) {
  PrimExpr a = VisitExpr(op->a);
  if (a.same_as(op->a)) return self;
  return PrimExpr(new NotNode(std::move(a)));
}

PrimExpr StmtExprMutator::VisitExpr_(const SelectNode* op, const PrimExpr& self) {
  PrimExpr c = VisitExpr(op->condition), t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) return self;
  return PrimExpr(new SelectNode(std::move(c), std::move(t), std::move(f)));
}

PrimExpr StmtExprMutator::VisitExpr_(const CastNode* op, const PrimExpr& self) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return self;
  return PrimExpr(new CastNode(op->dtype, std::move(v)));
}

PrimExpr StmtExprMutator::VisitExpr_(const TirCallNode* op, const PrimExpr& self) {
  bool changed = false;
  std::vector<PrimExpr> args = VisitExprs(op->args, &changed);
  if (!changed) return self;
  return PrimExpr(new TirCallNode(op->dtype, op->name, std::move(args)));
}

Stmt StmtExprMutator::VisitStmt(const Stmt& s) {
  if (!s.defined()) return s;
  switch (s->kind()) {
    case NodeKind::kBufferStore: return VisitStmt_(s.as<BufferStoreNode>(), s);
    case NodeKind::kFor: return VisitStmt_(s.as<ForNode>(), s);
    case NodeKind::kSeqStmt: return VisitStmt_(s.as<SeqStmtNode>(), s);
    case NodeKind::kIfThenElse: return VisitStmt_(s.as<IfThenElseNode>(), s);
    case NodeKind::kEvaluate: return VisitStmt_(s.as<EvaluateNode>(), s);
    case NodeKind::kBlock: return VisitStmt_(s.as<BlockNode>(), s);
    case NodeKind::kBlockRealize: return VisitStmt_(s.as<BlockRealizeNode>(), s);
    case NodeKind::kAllocate:
      return VisitStmt_(s.as<AllocateNode>(), s);
      MLC_CASES_NOT_STMT
      return s;
  }
}

Stmt StmtExprMutator::VisitStmt_(const BufferStoreNode* op, const Stmt& self) {
  bool changed = false;
  Buffer buffer = VisitBuffer(op->buffer);
  std::vector<PrimExpr> indices = VisitExprs(op->indices, &changed);
  PrimExpr value = VisitExpr(op->value);
  if (!changed && buffer.same_as(op->buffer) && value.same_as(op->value)) return self;
  return Stmt(new BufferStoreNode(buffer, std::move(value), std::move(indices)));
}

Stmt StmtExprMutator::VisitStmt_(const ForNode* op, const Stmt& self) {
  PrimExpr min = VisitExpr(op->min), extent = VisitExpr(op->extent);
  Stmt body = VisitStmt(op->body);
  if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return self;
  return Stmt(
      new ForNode(op->loop_var, std::move(min), std::move(extent), op->for_kind, std::move(body), op->annotations));
}

Stmt StmtExprMutator::VisitStmt_(const SeqStmtNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> seq;
  for (const Stmt& s : op->seq) {
    seq.push_back(VisitStmt(s));
    if (!seq.back().same_as(s)) changed = true;
  }
  if (!changed) return self;
  return MakeSeq(std::move(seq));
}

Stmt StmtExprMutator::VisitStmt_(const IfThenElseNode* op, const Stmt& self) {
  PrimExpr c = VisitExpr(op->condition);
  Stmt t = VisitStmt(op->then_case), e = VisitStmt(op->else_case);
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
  return Stmt(new IfThenElseNode(std::move(c), std::move(t), std::move(e)));
}

Stmt StmtExprMutator::VisitStmt_(const EvaluateNode* op, const Stmt& self) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return self;
  return Stmt(new EvaluateNode(std::move(v)));
}

Stmt StmtExprMutator::VisitStmt_(const BlockNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<IterVar> iter_vars;
  for (const IterVar& iv : op->iter_vars) {
    Range dom{VisitExpr(iv.dom.min), VisitExpr(iv.dom.extent)};
    if (!dom.min.same_as(iv.dom.min) || !dom.extent.same_as(iv.dom.extent)) changed = true;
    iter_vars.push_back({iv.var, dom, iv.kind});
  }
  std::vector<Buffer> allocs;
  for (const Buffer& b : op->alloc_buffers) {
    allocs.push_back(VisitBuffer(b));
    if (!allocs.back().same_as(b)) changed = true;
  }
  std::vector<BufferRegion> reads = VisitRegions(op->reads, &changed);
  std::vector<BufferRegion> writes = VisitRegions(op->writes, &changed);
  Stmt init = VisitStmt(op->init);
  Stmt body = VisitStmt(op->body);
  if (!changed && init.same_as(op->init) && body.same_as(op->body)) return self;
  return Stmt(new BlockNode(op->name, std::move(iter_vars), std::move(reads), std::move(writes), std::move(allocs),
                            std::move(init), std::move(body), op->annotations));
}

Stmt StmtExprMutator::VisitStmt_(const BlockRealizeNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<PrimExpr> values = VisitExprs(op->iter_values, &changed);
  PrimExpr pred = VisitExpr(op->predicate);
  Stmt block = VisitStmt(op->block);
  if (!changed && pred.same_as(op->predicate) && block.same_as(op->block)) return self;
  return Stmt(new BlockRealizeNode(std::move(values), std::move(pred), block.as_ref<Block>()));
}

Stmt StmtExprMutator::VisitStmt_(const AllocateNode* op, const Stmt& self) {
  Buffer buffer = VisitBuffer(op->buffer);
  Stmt body = VisitStmt(op->body);
  if (buffer.same_as(op->buffer) && body.same_as(op->body)) return self;
  return Stmt(new AllocateNode(std::move(buffer), std::move(body)));
}

PrimFunc MutatePrimFunc(const PrimFunc& func, StmtExprMutator* mutator) {
  bool changed = false;
  std::vector<Buffer> params;
  for (const Buffer& b : func->params) {
    params.push_back(mutator->VisitBuffer(b));
    if (!params.back().same_as(b)) changed = true;
  }
  Stmt body = mutator->VisitStmt(func->body);
  if (!changed && body.same_as(func->body)) return func;
  return PrimFunc(new PrimFuncNode(std::move(params), std::move(body), func->attrs));
}

}  // namespace tir
}  // namespace mlc
