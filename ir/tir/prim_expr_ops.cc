/*! \file prim_expr_ops.cc
 *  \brief Operator overloads for loop-level expressions.
 */
#include "ir/tir/prim_expr_ops.h"

#include <cmath>
#include <limits>

#include "ir/tir/intrinsics.h"

namespace mlc {
namespace tir {

PrimExpr Const(DataType dtype, double value) {
  if (dtype.is_float()) return FloatImm(dtype, value);
  return IntImm(dtype, static_cast<int64_t>(value));
}

void MatchTypes(PrimExpr* a, PrimExpr* b) {
  if ((*a)->dtype == (*b)->dtype) return;
  // A literal adapts to the other side.
  if (const auto* imm = b->as<IntImmNode>()) {
    *b = Const((*a)->dtype, static_cast<double>(imm->value));
    return;
  }
  if (const auto* imm = a->as<IntImmNode>()) {
    *a = Const((*b)->dtype, static_cast<double>(imm->value));
    return;
  }
  if ((*a)->dtype.is_integer() && (*b)->dtype.is_integer()) {
    if ((*a)->dtype.bits() < (*b)->dtype.bits()) {
      *a = Cast((*b)->dtype, *a);
    } else {
      *b = Cast((*a)->dtype, *b);
    }
  }
}

namespace {
PrimExpr Bin(NodeKind kind, PrimExpr a, PrimExpr b) {
  MatchTypes(&a, &b);
  return MakeBinary(kind, std::move(a), std::move(b));
}
}  // namespace

PrimExpr operator+(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kAdd, a, b); }
PrimExpr operator-(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kSub, a, b); }
PrimExpr operator*(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kMul, a, b); }
PrimExpr operator/(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kDiv, a, b); }
PrimExpr operator<(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kLT, a, b); }
PrimExpr operator<=(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kLE, a, b); }
PrimExpr operator>(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kGT, a, b); }
PrimExpr operator>=(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kGE, a, b); }
PrimExpr operator&&(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kAnd, a, b); }
PrimExpr operator||(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kOr, a, b); }
PrimExpr operator!(PrimExpr a) { return PrimExpr(new NotNode(std::move(a))); }
PrimExpr operator-(PrimExpr a) {
  if (const auto* imm = a.as<IntImmNode>()) return IntImm(imm->dtype, -imm->value);
  if (const auto* imm = a.as<FloatImmNode>()) return FloatImm(imm->dtype, -imm->value);
  return Bin(NodeKind::kSub, Const(a->dtype, 0), a);
}
PrimExpr operator+(PrimExpr a, int64_t b) { return a + Const(a->dtype, static_cast<double>(b)); }
PrimExpr operator-(PrimExpr a, int64_t b) { return a - Const(a->dtype, static_cast<double>(b)); }
PrimExpr operator*(PrimExpr a, int64_t b) { return a * Const(a->dtype, static_cast<double>(b)); }
PrimExpr operator<(PrimExpr a, int64_t b) { return a < Const(a->dtype, static_cast<double>(b)); }
PrimExpr operator<=(PrimExpr a, int64_t b) { return a <= Const(a->dtype, static_cast<double>(b)); }
PrimExpr operator>(PrimExpr a, int64_t b) { return a > Const(a->dtype, static_cast<double>(b)); }
PrimExpr operator>=(PrimExpr a, int64_t b) { return a >= Const(a->dtype, static_cast<double>(b)); }
PrimExpr FloorDiv(PrimExpr a, int64_t b) { return FloorDiv(a, Const(a->dtype, static_cast<double>(b))); }
PrimExpr FloorMod(PrimExpr a, int64_t b) { return FloorMod(a, Const(a->dtype, static_cast<double>(b))); }
PrimExpr Eq(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kEQ, a, b); }
PrimExpr Ne(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kNE, a, b); }
PrimExpr FloorDiv(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kFloorDiv, a, b); }
PrimExpr FloorMod(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kFloorMod, a, b); }
PrimExpr Max(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kMax, a, b); }
PrimExpr Min(PrimExpr a, PrimExpr b) { return Bin(NodeKind::kMin, a, b); }

PrimExpr Select(PrimExpr cond, PrimExpr t, PrimExpr f) {
  MatchTypes(&t, &f);
  return PrimExpr(new SelectNode(std::move(cond), std::move(t), std::move(f)));
}

PrimExpr Cast(DataType dtype, PrimExpr value) {
  if (value->dtype == dtype) return value;
  return PrimExpr(new CastNode(dtype, std::move(value)));
}

PrimExpr Intrinsic(const std::string& name, std::vector<PrimExpr> args) {
  DataType dtype = args.empty() ? DataType::Float32() : args[0]->dtype;
  const IntrinsicInfo* info = LookupIntrinsic(name);
  if (info != nullptr && info->result == IntrinsicInfo::Result::kSecondArgType && args.size() > 1)
    dtype = args[1]->dtype;
  if (info != nullptr && info->result == IntrinsicInfo::Result::kBool) dtype = DataType::Bool();
  if (info != nullptr && info->result == IntrinsicInfo::Result::kHandle) dtype = DataType::Handle();
  if (info != nullptr && info->result == IntrinsicInfo::Result::kInt32) dtype = DataType::Int32();
  return PrimExpr(new TirCallNode(dtype, name, std::move(args)));
}

PrimExpr IfThenElse(PrimExpr cond, PrimExpr a, PrimExpr b) {
  MatchTypes(&a, &b);
  return Intrinsic("if_then_else", {std::move(cond), std::move(a), std::move(b)});
}

PrimExpr Load(const Buffer& buffer, std::vector<PrimExpr> indices) {
  return PrimExpr(new BufferLoadNode(buffer, std::move(indices)));
}

Stmt Store(const Buffer& buffer, std::vector<PrimExpr> indices, PrimExpr value) {
  if (value->dtype != buffer->dtype) {
    if (const auto* imm = value.as<IntImmNode>()) value = Const(buffer->dtype, static_cast<double>(imm->value));
  }
  return Stmt(new BufferStoreNode(buffer, std::move(value), std::move(indices)));
}

PrimExpr MinValue(DataType dtype) {
  if (dtype.is_float()) return FloatImm(dtype, -std::numeric_limits<double>::infinity());
  if (dtype.is_uint() || dtype.is_bool()) return IntImm(dtype, 0);
  return IntImm(dtype, dtype.bits() >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (dtype.bits() - 1)));
}

PrimExpr MaxValue(DataType dtype) {
  if (dtype.is_float()) return FloatImm(dtype, std::numeric_limits<double>::infinity());
  if (dtype.is_bool()) return IntImm(dtype, 1);
  if (dtype.bits() >= 64) return IntImm(dtype, std::numeric_limits<int64_t>::max());
  return IntImm(dtype, dtype.is_uint() ? (int64_t{1} << dtype.bits()) - 1 : (int64_t{1} << (dtype.bits() - 1)) - 1);
}

}  // namespace tir
}  // namespace mlc
