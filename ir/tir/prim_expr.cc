/*! \file prim_expr.cc
 *  \brief Constructors of loop-level expressions and the intrinsic table.
 */
#include "ir/tir/prim_expr.h"

#include "ir/tir/buffer.h"

namespace mlc {
namespace tir {

PrimExpr IntImm(DataType dtype, int64_t value) { return PrimExpr(new IntImmNode(dtype, value)); }
PrimExpr FloatImm(DataType dtype, double value) { return PrimExpr(new FloatImmNode(dtype, value)); }
Var MakeVar(std::string name, DataType dtype) { return Var(new TirVarNode(std::move(name), dtype)); }

bool BinaryNode::IsInstance(const Object* obj) {
  switch (obj->kind()) {
    case NodeKind::kAdd:
    case NodeKind::kSub:
    case NodeKind::kMul:
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod:
    case NodeKind::kMin:
    case NodeKind::kMax:
    case NodeKind::kEQ:
    case NodeKind::kNE:
    case NodeKind::kLT:
    case NodeKind::kLE:
    case NodeKind::kGT:
    case NodeKind::kGE:
    case NodeKind::kAnd:
    case NodeKind::kOr:
      return true;
    default:
      return false;
  }
}

bool IsComparison(NodeKind kind) {
  switch (kind) {
    case NodeKind::kEQ:
    case NodeKind::kNE:
    case NodeKind::kLT:
    case NodeKind::kLE:
    case NodeKind::kGT:
    case NodeKind::kGE:
    case NodeKind::kAnd:
    case NodeKind::kOr:
      return true;
    default:
      return false;
  }
}

PrimExpr MakeBinary(NodeKind kind, PrimExpr a, PrimExpr b) {
  DataType dtype = IsComparison(kind) ? DataType::Bool() : a->dtype;
  switch (kind) {
#define MLC_CASE(Name)     \
  case NodeKind::k##Name:  \
    return PrimExpr(new Name##Node(dtype, std::move(a), std::move(b)));
    MLC_CASE(Add)
    MLC_CASE(Sub)
    MLC_CASE(Mul)
    MLC_CASE(Div)
    MLC_CASE(Mod)
    MLC_CASE(FloorDiv)
    MLC_CASE(FloorMod)
    MLC_CASE(Min)
    MLC_CASE(Max)
    MLC_CASE(EQ)
    MLC_CASE(NE)
    MLC_CASE(LT)
    MLC_CASE(LE)
    MLC_CASE(GT)
    MLC_CASE(GE)
    MLC_CASE(And)
    MLC_CASE(Or)
#undef MLC_CASE
    default:
      return PrimExpr();
  }
}

BufferLoadNode::BufferLoadNode(Buffer buffer, std::vector<PrimExpr> indices)
    : PrimExprNode(kKind, buffer->dtype), buffer(std::move(buffer)), indices(std::move(indices)) {}

}  // namespace tir
}  // namespace mlc
