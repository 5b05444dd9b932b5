/*! \file triangle.cc
 *  \brief triu / tril with a run-time diagonal (triangle.h).
 */
#include "frontend/common/triangle.h"

#include <vector>

#include "ir/graph/struct_info.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace frontend {

absl::StatusOr<relax::Expr> TriangleWithRuntimeDiagonal(const EmitFn& emit, const relax::Expr& x, const relax::Expr& k,
                                                        bool upper) {
  const auto* t = x->struct_info().as<relax::TensorStructInfoNode>();
  const auto* kt = k->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape() || t->ndim < 2)
    return absl::InvalidArgumentError("the input of triu / tril needs a known shape of rank 2 or more");
  if (kt == nullptr || !kt->dtype.is_int() || !kt->HasKnownShape() || kt->ndim > 1)
    return absl::InvalidArgumentError("the diagonal of triu / tril must be an integer scalar");
  const std::vector<tir::PrimExpr> dims = t->Dims();
  const tir::PrimExpr rows = dims[dims.size() - 2], cols = dims[dims.size() - 1];
  const DataType i64 = DataType::Int64();
  Composer c(emit, k);
  auto positions = [&](const tir::PrimExpr& n) {
    return c.Take(
        emit("arange", {}, {{"start", 0.0}, {"step", 1.0}, {"dtype", i64}}, {relax::TensorSInfoOfDims({n}, i64)}), k);
  };
  relax::Expr row =
      c.Take(emit("reshape", {positions(rows)}, {}, {relax::TensorSInfoOfDims({rows, tir::I64(1)}, i64)}), k);
  relax::Expr offset = c.Op("subtract", {positions(cols), row});  // column - row, (rows, cols)
  relax::Expr diagonal = kt->ndim == 0 ? k : c.Reshape(k, {});
  if (kt->dtype != i64) diagonal = c.Cast(diagonal, i64);
  relax::Expr keep = c.Op(upper ? "greater_equal" : "less_equal", {offset, diagonal});
  relax::Expr zero = Scalar(0, t->dtype);
  relax::Expr y = c.Op("where", {keep, x, zero});
  if (!c.status().ok()) return c.status();
  return y;
}

}  // namespace frontend
}  // namespace mlc
