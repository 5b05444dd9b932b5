/*! \file size_value.cc
 *  \brief Sizes as values (size_value.h).
 */
#include "frontend/common/size_value.h"

#include "absl/strings/str_cat.h"
#include "ir/tir/shape_expr.h"

namespace mlc {
namespace frontend {

absl::StatusOr<relax::Expr> SizeAsTensor(const EmitFn& emit, const std::map<std::string, relax::Expr>& values,
                                         const tir::PrimExpr& size) {
  if (const int64_t* v = tir::AsConstInt(size)) return Scalar(static_cast<double>(*v), DataType::Int64());
  if (const auto* var = size.as<tir::TirVarNode>()) {
    for (const auto& [name, value] : values) {
      const auto* t = value->struct_info().as<relax::TensorStructInfoNode>();
      if (t == nullptr || !t->HasKnownShape()) continue;
      const std::vector<tir::PrimExpr> dims = t->Dims();
      for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d].get() == var) return emit("dim_value", {value}, {{"axis", static_cast<int64_t>(d)}});
      }
    }
    return absl::UnimplementedError(absl::StrCat("no tensor has the size ", var->name,
                                                 " as a dimension, so its value is unknown when the function runs"));
  }
  // Sizes are not negative: floor division is the integer division `divide` does.
  static const std::map<NodeKind, const char*> kOps = {
      {NodeKind::kAdd, "add"},         {NodeKind::kSub, "subtract"},       {NodeKind::kMul, "multiply"},
      {NodeKind::kFloorDiv, "divide"}, {NodeKind::kFloorMod, "floor_mod"}, {NodeKind::kMin, "minimum"},
      {NodeKind::kMax, "maximum"}};
  const auto* binary = size.as<tir::BinaryNode>();
  auto op = kOps.find(size->kind());
  if (binary == nullptr || op == kOps.end())
    return absl::UnimplementedError(absl::StrCat("the size ", tir::ShapeExprToString(size), " as a value"));
  absl::StatusOr<relax::Expr> a = SizeAsTensor(emit, values, binary->a);
  if (!a.ok()) return a.status();
  absl::StatusOr<relax::Expr> b = SizeAsTensor(emit, values, binary->b);
  if (!b.ok()) return b.status();
  return emit(op->second, {*a, *b}, {});
}

}  // namespace frontend
}  // namespace mlc
