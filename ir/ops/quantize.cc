/*! \file quantize.cc
 *  \brief quantize and dequantize: the affine int8/uint8 encoding real = (q - zero_point) * scale,
 *         per tensor (0-d scale) or per channel (a vector along `axis`), as ONNX's
 *         QuantizeLinear / DequantizeLinear and TVM Relax's R.quantize / R.dequantize.
 */
#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"
#include "ir/topi/topi.h"
#include "support/status_macros.h"

namespace mlc {
namespace relax {
namespace {

/*! \brief Checks the scale (a float) and zero point (an integer) of a call: each a scalar or
 *  one value per entry of the input's `axis`. */
absl::Status CheckQuantParams(const CallNode& call, int64_t attr_axis, const TensorStructInfoNode* x) {
  MLC_ASSIGN_OR_RETURN(scale, TensorArg(call, 1));
  MLC_ASSIGN_OR_RETURN(zp, TensorArg(call, 2));
  if (!scale->dtype.is_void() && !scale->dtype.is_float()) {
    return absl::InvalidArgumentError(absl::StrCat("the scale must be floating point, got ", scale->dtype.ToString()));
  }
  if (!zp->dtype.is_void() && !zp->dtype.is_integer()) {
    return absl::InvalidArgumentError(absl::StrCat("the zero point must be an integer, got ", zp->dtype.ToString()));
  }
  for (const TensorStructInfoNode* p : {scale, zp}) {
    if (p->ndim > 1)
      return absl::InvalidArgumentError(
          absl::StrCat("scale and zero point must be scalars or vectors, got rank ", p->ndim));
    if (p->ndim != 1 || !p->HasKnownShape() || !x->HasKnownShape()) continue;
    const std::vector<tir::PrimExpr> p_dims = p->Dims(), x_dims = x->Dims();  // AsConstInt points into them
    const int64_t* n = tir::AsConstInt(p_dims[0]);
    if (n != nullptr && *n == 1) continue;  // one value for the whole tensor
    int64_t axis = attr_axis < 0 ? attr_axis + x->ndim : attr_axis;
    if (axis < 0 || axis >= x->ndim) {
      return absl::InvalidArgumentError(absl::StrCat("axis ", attr_axis, " is out of range for rank ", x->ndim));
    }
    const int64_t* c = tir::AsConstInt(x_dims[axis]);
    if (n != nullptr && c != nullptr && *n != *c) {
      return absl::InvalidArgumentError(
          absl::StrCat("a per-channel parameter has ", *n, " values but axis ", axis, " has ", *c));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<StructInfo> InferQuantize(const CallNode& call, const QuantizeAttrs& attrs) {
  MLC_ASSIGN_OR_RETURN(x, TensorArg(call, 0));
  if (!x->dtype.is_void() && !x->dtype.is_float()) {
    return absl::InvalidArgumentError(absl::StrCat("quantize needs a floating-point input, got ", x->dtype.ToString()));
  }
  if (!attrs.out_dtype.is_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat("out_dtype must be an integer type, got ", attrs.out_dtype.ToString()));
  }
  if (absl::Status s = CheckQuantParams(call, attrs.axis, x); !s.ok()) return s;
  if (!x->HasKnownShape()) return TensorSInfoUnknownShape(attrs.out_dtype, x->ndim);
  return TensorSInfoOfDims(x->Dims(), attrs.out_dtype);
}

absl::StatusOr<StructInfo> InferDequantize(const CallNode& call, const DequantizeAttrs& attrs) {
  MLC_ASSIGN_OR_RETURN(x, TensorArg(call, 0));
  if (!x->dtype.is_void() && !x->dtype.is_integer()) {
    return absl::InvalidArgumentError(absl::StrCat("dequantize needs an integer input, got ", x->dtype.ToString()));
  }
  if (absl::Status s = CheckQuantParams(call, attrs.axis, x); !s.ok()) return s;
  MLC_ASSIGN_OR_RETURN(scale, TensorArg(call, 1));
  if (!x->HasKnownShape()) return TensorSInfoUnknownShape(scale->dtype, x->ndim);
  return TensorSInfoOfDims(x->Dims(), scale->dtype);
}

MLC_REGISTER_OP("quantize")
    .set_inputs({"x", "scale", "zero_point"})
    .set_attrs_type<QuantizeAttrs>()
    .set_description(
        "saturate(round_half_even(x / scale) + zero_point) as out_dtype; per channel along axis for vector parameters")
    .set_infer<QuantizeAttrs>(InferQuantize)
    .set_pattern(OpPattern::kBroadcast)
    .set_legalize(LegalizeTE<QuantizeAttrs>("quantize", [](const std::vector<te::Tensor>& t, const QuantizeAttrs& a) {
      return topi::Quantize(t[0], t[1], t[2], a.axis, a.out_dtype);
    }));

MLC_REGISTER_OP("dequantize")
    .set_inputs({"x", "scale", "zero_point"})
    .set_attrs_type<DequantizeAttrs>()
    .set_description("(x - zero_point) * scale in the scale's dtype; per channel along axis for vector parameters")
    .set_infer<DequantizeAttrs>(InferDequantize)
    .set_pattern(OpPattern::kBroadcast)
    .set_keep_on_import()
    .set_legalize(LegalizeTE<DequantizeAttrs>("dequantize",
                                              [](const std::vector<te::Tensor>& t, const DequantizeAttrs& a) {
                                                return topi::Dequantize(t[0], t[1], t[2], a.axis);
                                              }));

}  // namespace
}  // namespace relax
}  // namespace mlc
