/*! \file size_value.cc
 *  \brief Sizes as values (size_value.h).
 */
#include "frontend/common/size_value.h"

#include "absl/strings/str_cat.h"
#include "ir/graph/struct_info.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
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
        if (dims[d].get() == var) return emit("dim_value", {value}, {{"axis", static_cast<int64_t>(d)}}, {});
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
  return emit(op->second, {*a, *b}, {}, {});
}

absl::StatusOr<relax::Expr> SizeRange(const EmitFn& emit, const std::map<std::string, relax::Expr>& values,
                                      const tir::PrimExpr& start, const tir::PrimExpr& limit, const tir::PrimExpr& step,
                                      DataType dtype) {
  using tir::I64;
  auto as_i64 = [](const tir::PrimExpr& e) { return tir::Cast(DataType::Int64(), e); };
  const int64_t* const_start = tir::AsConstInt(start);
  const int64_t* const_step = tir::AsConstInt(step);
  if (const_step != nullptr && *const_step == 0) return absl::InvalidArgumentError("the step of a range must not be 0");
  // ceil(span / step) as a floor division of a positive step; the span is clamped at 0 where
  // non-negative sizes could make it negative (arange(4, t)), not where they cannot (past..past + t).
  const bool ascending = const_step == nullptr || *const_step > 0;
  tir::PrimExpr span = ascending ? as_i64(limit) - as_i64(start) : as_i64(start) - as_i64(limit);
  tir::PrimExpr stride = const_step == nullptr ? as_i64(step) : I64(ascending ? *const_step : -*const_step);
  tir::Analyzer sizes;
  std::vector<tir::Var> vars;
  tir::CollectVars(span, &vars);
  for (const tir::Var& v : vars) sizes.Bind(v, 0, tir::ConstIntBound::kPosInf);
  span = sizes.Simplify(span);
  if (!sizes.CanProve(span >= I64(0))) span = sizes.Simplify(tir::Max(I64(0), span));
  tir::PrimExpr count = sizes.Simplify(tir::FloorDiv(span + stride - I64(1), stride));
  if (const int64_t* n = tir::AsConstInt(count); n != nullptr && *n > (int64_t{1} << 31)) {
    return absl::InvalidArgumentError(absl::StrCat("a range of ", *n, " elements"));
  }

  // A float range of integer sizes is computed in int64 and converted.
  const bool direct = const_start != nullptr && const_step != nullptr;
  const DataType compute = direct || dtype.is_int() ? dtype : DataType::Int64();
  absl::StatusOr<relax::Expr> range = emit("arange", {},
                                           {{"start", direct ? static_cast<double>(*const_start) : 0.0},
                                            {"step", const_step != nullptr ? static_cast<double>(*const_step) : 1.0},
                                            {"dtype", compute}},
                                           {relax::TensorSInfoOfDims({count}, compute)});
  if (!range.ok() || direct) return range;
  auto size_value = [&](const tir::PrimExpr& size) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<relax::Expr> v = SizeAsTensor(emit, values, size);
    if (v.ok() && compute != DataType::Int64()) v = emit("astype", {*v}, {{"dtype", compute}}, {});
    return v;
  };
  if (const_step == nullptr) {
    absl::StatusOr<relax::Expr> stride = size_value(step);
    if (!stride.ok()) return stride.status();
    range = emit("multiply", {*range, *stride}, {}, {});
    if (!range.ok()) return range;
  }
  if (const_start == nullptr || *const_start != 0) {
    absl::StatusOr<relax::Expr> origin = size_value(start);
    if (!origin.ok()) return origin.status();
    range = emit("add", {*range, *origin}, {}, {});
  }
  if (range.ok() && compute != dtype) range = emit("astype", {*range}, {{"dtype", dtype}}, {});
  return range;
}

}  // namespace frontend
}  // namespace mlc
