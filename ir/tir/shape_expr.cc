/*! \file shape_expr.cc
 *  \brief Variables, checks and text of symbolic shape expressions.
 */
#include "ir/tir/shape_expr.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace tir {
namespace {

class VarCollector : public StmtExprVisitor {
 public:
  explicit VarCollector(std::vector<Var>* out) : out_(out) {}
  void VisitExpr_(const TirVarNode* op) override {
    for (const Var& v : *out_) {
      if (v.get() == op) return;
    }
    out_->push_back(Var(const_cast<TirVarNode*>(op)));
  }

 private:
  std::vector<Var>* out_;
};

int Precedence(const PrimExpr& e) {
  switch (e->kind()) {
    case NodeKind::kAdd:
    case NodeKind::kSub: return 1;
    case NodeKind::kMul:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: return 2;
    default: return 3;
  }
}

}  // namespace

void CollectVars(const PrimExpr& e, std::vector<Var>* out) { VarCollector(out).VisitExpr(e); }

bool IsShapeExpr(const PrimExpr& e) {
  if (!e.defined() || !e->dtype.is_int()) return false;
  switch (e->kind()) {
    case NodeKind::kIntImm:
    case NodeKind::kTirVar: return true;
    case NodeKind::kCast: return IsShapeExpr(e.as<CastNode>()->value);
    case NodeKind::kAdd:
    case NodeKind::kSub:
    case NodeKind::kMul:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod:
    case NodeKind::kMin:
    case NodeKind::kMax: {
      const auto* b = static_cast<const BinaryNode*>(e.get());
      return IsShapeExpr(b->a) && IsShapeExpr(b->b);
    }
    default: return false;
  }
}

std::string ShapeExprToString(const PrimExpr& e) {
  switch (e->kind()) {
    case NodeKind::kIntImm: return absl::StrCat(e.as<IntImmNode>()->value);
    case NodeKind::kTirVar: return e.as<TirVarNode>()->name;
    case NodeKind::kCast: return ShapeExprToString(e.as<CastNode>()->value);
    case NodeKind::kMin:
    case NodeKind::kMax: {
      const auto* b = static_cast<const BinaryNode*>(e.get());
      return absl::StrCat(e->kind() == NodeKind::kMin ? "T.min(" : "T.max(", ShapeExprToString(b->a), ", ",
                          ShapeExprToString(b->b), ")");
    }
    case NodeKind::kAdd:
    case NodeKind::kSub:
    case NodeKind::kMul:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod: {
      const auto* b = static_cast<const BinaryNode*>(e.get());
      const char* op = e->kind() == NodeKind::kAdd        ? " + "
                       : e->kind() == NodeKind::kSub      ? " - "
                       : e->kind() == NodeKind::kMul      ? " * "
                       : e->kind() == NodeKind::kFloorDiv ? " // "
                                                          : " % ";
      int p = Precedence(e);
      // Left-associative: the right operand needs parentheses at equal precedence too.
      std::string a = ShapeExprToString(b->a), c = ShapeExprToString(b->b);
      if (Precedence(b->a) < p) a = absl::StrCat("(", a, ")");
      if (Precedence(b->b) <= p && Precedence(b->b) < 3) c = absl::StrCat("(", c, ")");
      return absl::StrCat(a, op, c);
    }
    default: return "<not a shape expression>";
  }
}

std::vector<Var> ShapeVarsOf(const PrimFuncNode* func) {
  std::vector<Var> vars;
  for (const Buffer& b : func->params) {
    for (const PrimExpr& d : b->shape) CollectVars(d, &vars);
  }
  return vars;
}

Var BindingVarOf(const PrimExpr& dim) {
  PrimExpr d = dim;
  while (d->kind() == NodeKind::kCast) d = d.as<CastNode>()->value;
  if (d->kind() == NodeKind::kTirVar) return Var(const_cast<TirVarNode*>(d.as<TirVarNode>()));
  if (d->kind() != NodeKind::kMul && d->kind() != NodeKind::kAdd && d->kind() != NodeKind::kSub) return Var();
  const auto* b = static_cast<const BinaryNode*>(d.get());
  PrimExpr v = b->a, c = b->b;
  if (d->kind() == NodeKind::kMul && AsConstInt(v) != nullptr) std::swap(v, c);
  while (v->kind() == NodeKind::kCast) v = v.as<CastNode>()->value;
  const int64_t* k = AsConstInt(c);
  if (v->kind() != NodeKind::kTirVar || k == nullptr || (d->kind() == NodeKind::kMul && *k <= 0)) return Var();
  return Var(const_cast<TirVarNode*>(v.as<TirVarNode>()));
}

Var UnbindableShapeVar(const std::vector<std::vector<PrimExpr>>& shapes) {
  std::vector<Var> all, bare;
  for (const std::vector<PrimExpr>& shape : shapes) {
    for (const PrimExpr& d : shape) {
      CollectVars(d, &all);
      if (Var v = BindingVarOf(d); v.defined()) CollectVars(v, &bare);
    }
  }
  for (const Var& v : all) {
    if (std::find_if(bare.begin(), bare.end(), [&](const Var& b) { return b.get() == v.get(); }) == bare.end())
      return v;
  }
  return Var();
}

PrimExpr DimGeneralizer::Generalize(const PrimExpr& dim) {
  if (AsConstInt(dim) != nullptr || BindingVarOf(dim).defined()) return dim;
  for (const auto& [expr, var] : fresh_) {
    if (ExprDeepEqual(expr, dim)) return var;
  }
  Var v = MakeVar(absl::StrCat(prefix_, fresh_.size()), DataType::Int64());
  fresh_.emplace_back(dim, v);
  return v;
}

std::vector<PrimExpr> DimGeneralizer::Generalize(const std::vector<PrimExpr>& dims) {
  std::vector<PrimExpr> out;
  for (const PrimExpr& d : dims) out.push_back(Generalize(d));
  return out;
}

std::vector<PrimExpr> DimGeneralizer::GeneralizeSeen(const std::vector<PrimExpr>& dims) const {
  std::vector<PrimExpr> out;
  for (const PrimExpr& d : dims) {
    PrimExpr g = d;
    for (const auto& [expr, var] : fresh_) {
      if (ExprDeepEqual(expr, d)) g = var;
    }
    out.push_back(g);
  }
  return out;
}

PrimExpr DimGeneralizer::Restore(const PrimExpr& e) const {
  std::vector<std::pair<Var, PrimExpr>> map;
  for (const auto& [expr, var] : fresh_) map.emplace_back(var, expr);
  return map.empty() ? e : Substitute(e, map);
}

}  // namespace tir
}  // namespace mlc
