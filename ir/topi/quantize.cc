/*! \file quantize.cc
 *  \brief Affine quantization: real = (q - zero_point) * scale, per tensor or per channel.
 */
#include "absl/strings/str_cat.h"
#include "ir/topi/index_util.h"
#include "ir/topi/topi.h"

namespace mlc {
namespace topi {
namespace {

/*! \brief The element of a scale or zero point (0-d, 1-element or one per channel along
 *  `axis`) that applies at output index `i`. */
tir::PrimExpr ParamAt(const Tensor& p, const std::vector<tir::Var>& i, int64_t axis) {
  if (p.shape().empty()) return p({});
  const int64_t* n = tir::AsConstInt(p.shape()[0]);
  if (n != nullptr && *n == 1) return p({tir::Const(p.shape()[0]->dtype, 0)});
  return p({i[axis]});
}

/*! \brief Checks that `p` (named `what`) is a scalar or a vector as long as x's `axis`, and
 *  returns the axis normalized (non-negative). */
absl::StatusOr<int64_t> CheckParam(const Tensor& x, const Tensor& p, int64_t axis, const char* op, const char* what) {
  int64_t rank = static_cast<int64_t>(x.shape().size());
  if (axis < 0) axis += rank;
  if (p.shape().empty()) return axis;
  const int64_t* n = p.shape().size() == 1 ? tir::AsConstInt(p.shape()[0]) : nullptr;
  if (n != nullptr && *n == 1) return axis;
  const int64_t* c = axis >= 0 && axis < rank ? tir::AsConstInt(x.shape()[axis]) : nullptr;
  if (n == nullptr || c == nullptr || *n != *c) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": the ", what, " must be a scalar or have one element per entry of axis ", axis, " of the input"));
  }
  return axis;
}

}  // namespace

absl::StatusOr<Tensor> Quantize(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t axis,
                                DataType out_dtype) {
  if (!x.dtype().is_float() || !scale.dtype().is_float()) {
    return absl::InvalidArgumentError("quantize: the input and the scale must be floating point");
  }
  if (!out_dtype.is_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat("quantize: out_dtype must be an integer type, got ", out_dtype.ToString()));
  }
  absl::StatusOr<int64_t> a = CheckParam(x, scale, axis, "quantize", "scale");
  if (a.ok()) a = CheckParam(x, zero_point, axis, "quantize", "zero point");
  if (!a.ok()) return a.status();
  DataType f = x.dtype();
  return te::Compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx(i.begin(), i.end());
        // Round half to even, add the zero point, saturate: in float, so nothing wraps.
        tir::PrimExpr s = tir::Cast(f, ParamAt(scale, i, *a));
        tir::PrimExpr q = tir::Intrinsic("round", {tir::operator/(x(idx), s)});
        q = tir::operator+(q, tir::Cast(f, ParamAt(zero_point, i, *a)));
        q = tir::Min(tir::Max(q, tir::Cast(f, tir::MinValue(out_dtype))), tir::Cast(f, tir::MaxValue(out_dtype)));
        return tir::Cast(out_dtype, q);
      },
      "T_quantize");
}

absl::StatusOr<Tensor> Dequantize(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t axis) {
  if (!x.dtype().is_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat("dequantize: the input must be integers, got ", x.dtype().ToString()));
  }
  if (!scale.dtype().is_float()) return absl::InvalidArgumentError("dequantize: the scale must be floating point");
  absl::StatusOr<int64_t> a = CheckParam(x, scale, axis, "dequantize", "scale");
  if (a.ok()) a = CheckParam(x, zero_point, axis, "dequantize", "zero point");
  if (!a.ok()) return a.status();
  DataType f = scale.dtype();
  return te::Compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx(i.begin(), i.end());
        // The difference in int32 is exact for 8-bit values; int32 inputs subtract in float.
        DataType wide = x.dtype().bits() < 32 ? DataType::Int(32) : f;
        tir::PrimExpr d = tir::operator-(tir::Cast(wide, x(idx)), tir::Cast(wide, ParamAt(zero_point, i, *a)));
        return tir::operator*(tir::Cast(f, d), ParamAt(scale, i, *a));
      },
      "T_dequantize");
}

}  // namespace topi
}  // namespace mlc
