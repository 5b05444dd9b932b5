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

// Categories from the kind lists of ir/core/node_kinds.h; no `default:`, so a new kind must be
// placed (-Werror=switch).
bool BinaryNode::IsInstance(const Object* obj) {
  switch (obj->kind()) {
    MLC_BINARY_CASES
    return true;
    MLC_CASES_NOT_BINARY
    return false;
  }
  return false;
}

bool IsComparison(NodeKind kind) {
  switch (kind) {
    MLC_CASES_OF(MLC_COMPARISON_KINDS)
    return true;
    MLC_CASES_OF(MLC_ARITHMETIC_BINARY_KINDS)
    MLC_CASES_NOT_BINARY
    return false;
  }
  return false;
}

PrimExpr MakeBinary(NodeKind kind, PrimExpr a, PrimExpr b) {
  DataType dtype = IsComparison(kind) ? DataType::Bool() : a->dtype;
  switch (kind) {
#define MLC_MAKE_BINARY(Name) \
  case NodeKind::k##Name: return PrimExpr(new Name##Node(dtype, std::move(a), std::move(b)));
    MLC_BINARY_KINDS(MLC_MAKE_BINARY)
#undef MLC_MAKE_BINARY
    MLC_CASES_NOT_BINARY
    return PrimExpr();
  }
  return PrimExpr();
}

BufferLoadNode::BufferLoadNode(Buffer buffer, std::vector<PrimExpr> indices)
    : PrimExprNode(kKind, buffer->dtype), buffer(std::move(buffer)), indices(std::move(indices)) {}

}  // namespace tir
}  // namespace mlc
