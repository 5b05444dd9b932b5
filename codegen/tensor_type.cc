/*! \file tensor_type.cc
 *  \brief Shapes and symbolic dimensions into the executable's types.
 */
#include "codegen/tensor_type.h"

#include "absl/strings/str_cat.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/shape_expr.h"

namespace mlc {
namespace codegen {

ShapeVarTable::ShapeVarTable(const std::vector<tir::Var>& vars) : vars_(vars) {}

int ShapeVarTable::IndexOf(const tir::TirVarNode* var) const {
  for (size_t i = 0; i < vars_.size(); ++i) {
    if (vars_[i].get() == var) return static_cast<int>(i);
  }
  return -1;
}

absl::Status DimToProto(const tir::PrimExpr& dim, const ShapeVarTable& vars, proto::DimExpr* out) {
  if (const int64_t* v = tir::AsConstInt(dim)) {
    out->set_value(*v);
    return absl::OkStatus();
  }
  switch (dim->kind()) {
    case NodeKind::kTirVar: {
      int index = vars.IndexOf(dim.as<tir::TirVarNode>());
      if (index < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("shape variable ", dim.as<tir::TirVarNode>()->name, " is not bound by the parameters"));
      }
      out->set_var(index);
      return absl::OkStatus();
    }
    case NodeKind::kCast: return DimToProto(dim.as<tir::CastNode>()->value, vars, out);
    case NodeKind::kAdd:
    case NodeKind::kSub:
    case NodeKind::kMul:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod:
    case NodeKind::kMin:
    case NodeKind::kMax: {
      const auto* b = static_cast<const tir::BinaryNode*>(dim.get());
      proto::DimBinary* p = out->mutable_binary();
      switch (dim->kind()) {
        case NodeKind::kAdd: p->set_op(proto::DimBinary::ADD); break;
        case NodeKind::kSub: p->set_op(proto::DimBinary::SUB); break;
        case NodeKind::kMul: p->set_op(proto::DimBinary::MUL); break;
        case NodeKind::kFloorDiv: p->set_op(proto::DimBinary::FLOOR_DIV); break;
        case NodeKind::kFloorMod: p->set_op(proto::DimBinary::FLOOR_MOD); break;
        case NodeKind::kMin: p->set_op(proto::DimBinary::MIN); break;
        default: p->set_op(proto::DimBinary::MAX); break;
      }
      if (absl::Status s = DimToProto(b->a, vars, p->mutable_a()); !s.ok()) return s;
      return DimToProto(b->b, vars, p->mutable_b());
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", tir::ShapeExprToString(dim), " is not a shape expression"));
  }
}

absl::Status SetTensorShape(const std::vector<tir::PrimExpr>& dims, const ShapeVarTable& vars, proto::TensorType* out) {
  out->set_ndim(static_cast<int>(dims.size()));
  out->set_has_shape(true);
  bool is_static = true;
  for (const tir::PrimExpr& d : dims) is_static = is_static && tir::AsConstInt(d) != nullptr;
  for (const tir::PrimExpr& d : dims) {
    if (is_static) {
      out->add_shape(*tir::AsConstInt(d));
    } else if (absl::Status s = DimToProto(d, vars, out->add_symbolic_dims()); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace codegen
}  // namespace mlc
