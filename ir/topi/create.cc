/*! \file create.cc
 *  \brief Tensors made from their shape: arange, the triangles (triu, tril) and dim_value. Their
 *         sizes may be symbolic (a causal mask over `seq` x `seq`, the positions 0..seq-1).
 */
#include "absl/strings/str_cat.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/topi/index_util.h"
#include "ir/topi/topi.h"

namespace mlc {
namespace topi {

absl::StatusOr<Tensor> Arange(const tir::PrimExpr& count, double start, double step, DataType dtype) {
  if (!dtype.is_int() && !dtype.is_float())
    return absl::InvalidArgumentError(absl::StrCat("arange: dtype ", dtype.ToString(), " is not numeric"));
  if (step == 0) return absl::InvalidArgumentError("arange: step must not be 0");
  return te::Compute(
      {count},
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        // start + i * step in the result's dtype (integers stay exact).
        tir::PrimExpr index = tir::Cast(dtype, i[0]);
        return tir::operator+(tir::Const(dtype, start), tir::operator*(index, tir::Const(dtype, step)));
      },
      "T_arange");
}

absl::StatusOr<Tensor> DimValue(const Tensor& x, int64_t axis) {
  const int64_t rank = static_cast<int64_t>(x.shape().size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    return absl::InvalidArgumentError(absl::StrCat("dim_value: axis out of range for rank ", rank));
  const tir::PrimExpr extent = x.shape()[axis];
  return te::Compute(
      {}, [&](const std::vector<tir::Var>&) -> te::ComputeValue { return tir::Cast(DataType::Int64(), extent); },
      "T_dim_value");
}

absl::StatusOr<Tensor> Triangle(const Tensor& x, int64_t k, bool upper) {
  const std::vector<tir::PrimExpr>& shape = x.shape();
  if (shape.size() < 2)
    return absl::InvalidArgumentError(absl::StrCat(upper ? "triu" : "tril", ": needs rank >= 2, got ", shape.size()));
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx(i.begin(), i.end());
        // Element (r, c) of the last two dimensions is kept when c - r >= k (upper) or <= k.
        tir::PrimExpr diagonal = tir::operator-(tir::PrimExpr(i[i.size() - 1]), tir::PrimExpr(i[i.size() - 2]));
        tir::PrimExpr keep = upper ? tir::operator>=(diagonal, k) : tir::operator<=(diagonal, k);
        return tir::Select(keep, x(idx), tir::Const(x.dtype(), 0));
      },
      upper ? "T_triu" : "T_tril");
}

}  // namespace topi
}  // namespace mlc
