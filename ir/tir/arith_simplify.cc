/*! \file arith_simplify.cc
 *  \brief Bottom-up rewriting simplifier.
 */
#include "ir/tir/arith_simplify.h"

#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_functor.h"

namespace mlc {
namespace tir {
namespace {

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

class Simplifier : public StmtExprMutator {
 protected:
  PrimExpr VisitExpr_(const BinaryNode* op, const PrimExpr& self) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op, self);
    const auto* bin = e.as<BinaryNode>();
    if (bin == nullptr) return e;
    const int64_t* ca = AsConstInt(bin->a);
    const int64_t* cb = AsConstInt(bin->b);
    DataType t = bin->a->dtype;
    bool is_int = t.is_integer();
    NodeKind k = e->kind();
    if (ca && cb && is_int) {
      int64_t a = *ca, b = *cb;
      switch (k) {
        case NodeKind::kAdd: return IntImm(t, a + b);
        case NodeKind::kSub: return IntImm(t, a - b);
        case NodeKind::kMul: return IntImm(t, a * b);
        case NodeKind::kFloorDiv: if (b != 0) return IntImm(t, FloorDivInt(a, b)); break;
        case NodeKind::kFloorMod: if (b != 0) return IntImm(t, a - FloorDivInt(a, b) * b); break;
        case NodeKind::kDiv: if (b != 0) return IntImm(t, a / b); break;
        case NodeKind::kMod: if (b != 0) return IntImm(t, a % b); break;
        case NodeKind::kMin: return IntImm(t, std::min(a, b));
        case NodeKind::kMax: return IntImm(t, std::max(a, b));
        case NodeKind::kEQ: return IntImm(DataType::Bool(), a == b);
        case NodeKind::kNE: return IntImm(DataType::Bool(), a != b);
        case NodeKind::kLT: return IntImm(DataType::Bool(), a < b);
        case NodeKind::kLE: return IntImm(DataType::Bool(), a <= b);
        case NodeKind::kGT: return IntImm(DataType::Bool(), a > b);
        case NodeKind::kGE: return IntImm(DataType::Bool(), a >= b);
        default: break;
      }
    }
    if (bin->a->dtype.is_bool() && (k == NodeKind::kAnd || k == NodeKind::kOr)) {
      if (ca) return k == NodeKind::kAnd ? (*ca ? bin->b : bin->a) : (*ca ? bin->a : bin->b);
      if (cb) return k == NodeKind::kAnd ? (*cb ? bin->a : bin->b) : (*cb ? bin->b : bin->a);
    }
    if (!is_int) return e;
    switch (k) {
      case NodeKind::kAdd:
        if (ca && *ca == 0) return bin->b;
        if (cb && *cb == 0) return bin->a;
        // (x + c1) + c2 -> x + (c1 + c2)
        if (cb) {
          if (const auto* inner = bin->a.as<AddNode>()) {
            if (const int64_t* c1 = AsConstInt(inner->b)) return inner->a + IntImm(t, *c1 + *cb);
          }
        }
        break;
      case NodeKind::kSub:
        if (cb && *cb == 0) return bin->a;
        if (bin->a.same_as(bin->b)) return IntImm(t, 0);
        break;
      case NodeKind::kMul:
        if ((ca && *ca == 0) || (cb && *cb == 0)) return IntImm(t, 0);
        if (ca && *ca == 1) return bin->b;
        if (cb && *cb == 1) return bin->a;
        break;
      case NodeKind::kFloorDiv:
      case NodeKind::kDiv:
        if (cb && *cb == 1) return bin->a;
        break;
      case NodeKind::kFloorMod:
      case NodeKind::kMod:
        if (cb && *cb == 1) return IntImm(t, 0);
        break;
      default:
        break;
    }
    return e;
  }

  PrimExpr VisitExpr_(const CastNode* op, const PrimExpr& self) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op, self);
    const auto* c = e.as<CastNode>();
    if (c == nullptr) return e;
    if (c->value->dtype == c->dtype) return c->value;
    if (const int64_t* v = AsConstInt(c->value)) {
      if (c->dtype.is_integer()) return IntImm(c->dtype, *v);
      if (c->dtype.is_float()) return FloatImm(c->dtype, static_cast<double>(*v));
    }
    return e;
  }

  PrimExpr VisitExpr_(const NotNode* op, const PrimExpr& self) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op, self);
    const auto* n = e.as<NotNode>();
    if (n != nullptr) {
      if (const int64_t* v = AsConstInt(n->a)) return IntImm(DataType::Bool(), !*v);
    }
    return e;
  }

  PrimExpr VisitExpr_(const SelectNode* op, const PrimExpr& self) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op, self);
    const auto* s = e.as<SelectNode>();
    if (s != nullptr) {
      if (const int64_t* v = AsConstInt(s->condition)) return *v ? s->true_value : s->false_value;
    }
    return e;
  }

  Stmt VisitStmt_(const IfThenElseNode* op, const Stmt& self) override {
    Stmt s = StmtExprMutator::VisitStmt_(op, self);
    const auto* ite = s.as<IfThenElseNode>();
    if (ite != nullptr) {
      if (const int64_t* v = AsConstInt(ite->condition)) {
        if (*v) return ite->then_case;
        return ite->else_case.defined() ? ite->else_case : Stmt(new EvaluateNode(I32(0)));
      }
    }
    return s;
  }
};

}  // namespace

PrimExpr Simplify(const PrimExpr& expr) { return Simplifier().VisitExpr(expr); }
Stmt Simplify(const Stmt& stmt) { return Simplifier().VisitStmt(stmt); }

}  // namespace tir
}  // namespace mlc
