/*! \file onnx_quantize_converters.cc
 *  \brief Converters of ONNX's quantization operators. QuantizeLinear and DequantizeLinear (the
 *         QDQ format) become the operator library's quantize / dequantize; the operator format
 *         (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv) becomes an int32 matmul or
 *         convolution of the zero-point-shifted operands, and for the QLinear ones a
 *         requantization: quantize(float(acc) * (a_scale * b_scale / y_scale), 1, y_zero_point).
 *         DynamicQuantizeLinear computes its scale and zero point from the input's range;
 *         ONNX Runtime's contrib QLinearAdd and QLinearMul run dequantized and requantize.
 */
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

const DataType kI32 = DataType::Int(32);
const DataType kF32 = DataType::Float32();

/*! \brief Input i, or (omitted, as an optional zero point may be) `fallback`. */
relax::Expr InputOr(OnnxContext& ctx, Composer& c, const onnx::NodeProto& node, int i, relax::Expr fallback) {
  if (!ctx.HasInput(node, i)) return fallback;
  return c.Take(ctx.Input(node, i), fallback);
}

/*! \brief The number of elements of a scalar or vector parameter (1 for a scalar); -1 when it is
 *  not one. */
int64_t ParamLength(const relax::Expr& p) {
  const auto* t = TensorOf(p);
  if (t == nullptr || !t->shape) return -1;
  if (t->shape->empty()) return 1;
  return t->shape->size() == 1 ? (*t->shape)[0] : -1;
}

/*! \brief A per-row parameter (a vector of one value per row of a matrix operand) shaped (M, 1)
 *  so that it broadcasts along the rows; scalars are left as they are. */
relax::Expr AlongRows(Composer& c, const relax::Expr& p) {
  int64_t n = ParamLength(p);
  if (n <= 1) return p;
  return c.Op("reshape", {p}, {{"shape", std::vector<int64_t>{n, 1}}});
}

/*! \brief A per-output-channel parameter shaped to broadcast over an NCHW result (O, 1, 1) or
 *  an OIHW weight (O, 1, 1, 1); scalars are left as they are. */
relax::Expr AlongChannels(Composer& c, const relax::Expr& p, int rank) {
  int64_t n = ParamLength(p);
  if (n <= 1) return p;
  std::vector<int64_t> shape(rank, 1);
  shape[0] = n;
  return c.Op("reshape", {p}, {{"shape", shape}});
}

/*! \brief int32(q) - int32(zero_point): the operand of an integer matmul or convolution. */
relax::Expr Shifted(Composer& c, const relax::Expr& q, const relax::Expr& zero_point) {
  return c.Sub(c.Cast(q, kI32), c.Cast(zero_point, kI32));
}

/*! \brief The zero point of input i (omitted: 0 of the quantized operand's dtype). */
relax::Expr ZeroPoint(OnnxContext& ctx, Composer& c, const onnx::NodeProto& node, int i, const relax::Expr& q) {
  const auto* t = TensorOf(q);
  return InputOr(ctx, c, node, i, Scalar(0, t != nullptr ? t->dtype : DataType::UInt(8)));
}

/*! \brief quantize(acc * multiplier, 1, zero_point): the int32 accumulator rescaled to the output's
 *  quantization, as the QLinear operators define it. */
relax::Expr Requantize(Composer& c, const relax::Expr& acc, const relax::Expr& multiplier,
                       const relax::Expr& zero_point) {
  const auto* zp = TensorOf(zero_point);
  DataType out = zp != nullptr ? zp->dtype : DataType::UInt(8);
  relax::Expr real = c.Mul(c.Cast(acc, kF32), multiplier);
  return c.Op("quantize", {real, Scalar(1, kF32), zero_point}, {{"axis", int64_t{-1}}, {"out_dtype", out}});
}

Outputs QuantizeLinear(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  Composer c(ctx, *x);
  relax::Expr scale = c.Take(ctx.Input(node, 1), *x);
  // Without a zero point the result is uint8 (the operator's default type).
  relax::Expr zp = InputOr(ctx, c, node, 2, Scalar(0, DataType::UInt(8)));
  if (!c.status().ok()) return c.status();
  DataType out = TensorOf(zp)->dtype;
  return c.Result(c.Op("quantize", {*x, scale, zp}, {{"axis", ctx.IntAttr(node, "axis", 1)}, {"out_dtype", out}}));
}

Outputs DequantizeLinear(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  Composer c(ctx, *x);
  relax::Expr scale = c.Take(ctx.Input(node, 1), *x);
  relax::Expr zp = ZeroPoint(ctx, c, node, 2, *x);
  return c.Result(c.Op("dequantize", {*x, scale, zp}, {{"axis", ctx.IntAttr(node, "axis", 1)}}));
}

/*! \brief uint8 quantization over the input's range extended to include 0:
 *  scale = (max(x, 0) - min(x, 0)) / 255, zero point = saturate(round(-min / scale)). */
Outputs DynamicQuantizeLinear(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  Composer c(ctx, *x);
  relax::Expr hi = c.Max(c.Op("max", {*x}), c.K(0));
  relax::Expr lo = c.Min(c.Op("min", {*x}), c.K(0));
  relax::Expr scale = c.Div(c.Sub(hi, lo), c.K(255));
  relax::Expr zp = c.Op("round", {c.Div(c.Neg(lo), scale)});
  zp = c.Cast(c.Min(c.Max(zp, c.K(0)), c.K(255)), DataType::UInt(8));
  relax::Expr y = c.Op("quantize", {*x, scale, zp}, {{"axis", int64_t{-1}}, {"out_dtype", DataType::UInt(8)}});
  return c.Result(std::vector<relax::Expr>{y, scale, zp});
}

/*! \brief (a - a_zero_point) @ (b - b_zero_point) in int32; a's zero point may be per row, b's per
 *  column. Inputs: a, a_zero_point, b, b_zero_point at the given positions. */
relax::Expr IntegerMatmul(OnnxContext& ctx, Composer& c, const onnx::NodeProto& node, int a_at, int a_zp_at, int b_at,
                          int b_zp_at) {
  relax::Expr a = c.Take(ctx.Input(node, a_at), Scalar(0, kI32));
  relax::Expr b = c.Take(ctx.Input(node, b_at), Scalar(0, kI32));
  relax::Expr a_zp = AlongRows(c, ZeroPoint(ctx, c, node, a_zp_at, a));
  relax::Expr b_zp = ZeroPoint(ctx, c, node, b_zp_at, b);
  return c.Op("matmul", {Shifted(c, a, a_zp), Shifted(c, b, b_zp)});
}

/*! \brief conv2d(x - x_zero_point, w - w_zero_point) in int32, w's zero point per output channel
 *  or one. Padding adds zeros to the shifted input: x_zero_point in the quantized one, as ONNX
 *  pads. */
relax::Expr IntegerConv(OnnxContext& ctx, Composer& c, const onnx::NodeProto& node, int x_at, int x_zp_at, int w_at,
                        int w_zp_at) {
  relax::Expr x = c.Take(ctx.Input(node, x_at), Scalar(0, kI32));
  relax::Expr w = c.Take(ctx.Input(node, w_at), Scalar(0, kI32));
  relax::Expr x_zp = ZeroPoint(ctx, c, node, x_zp_at, x);
  relax::Expr w_zp = AlongChannels(c, ZeroPoint(ctx, c, node, w_zp_at, w), 4);
  relax::Expr xs = Shifted(c, x, x_zp), ws = Shifted(c, w, w_zp);
  if (!c.status().ok()) return xs;
  return c.Take(EmitConv(ctx, node, xs, ws), xs);
}

Outputs MatMulInteger(OnnxContext& ctx, const onnx::NodeProto& node) {
  Composer c(ctx, Scalar(0, kI32));
  relax::Expr y = IntegerMatmul(ctx, c, node, 0, 2, 1, 3);
  return c.Result(y);
}

Outputs ConvInteger(OnnxContext& ctx, const onnx::NodeProto& node) {
  Composer c(ctx, Scalar(0, kI32));
  relax::Expr y = IntegerConv(ctx, c, node, 0, 2, 1, 3);
  return c.Result(y);
}

/*! \brief Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point. */
Outputs QLinearMatMul(OnnxContext& ctx, const onnx::NodeProto& node) {
  Composer c(ctx, Scalar(0, kF32));
  relax::Expr acc = IntegerMatmul(ctx, c, node, 0, 2, 3, 5);
  relax::Expr a_scale = AlongRows(c, c.Take(ctx.Input(node, 1), acc));
  relax::Expr multiplier = c.Div(c.Mul(a_scale, c.Take(ctx.Input(node, 4), acc)), c.Take(ctx.Input(node, 6), acc));
  relax::Expr y = Requantize(c, acc, multiplier, c.Take(ctx.Input(node, 7), acc));
  return c.Result(y);
}

/*! \brief Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, and
 *  an optional int32 bias (O,) added to the accumulator. */
Outputs QLinearConv(OnnxContext& ctx, const onnx::NodeProto& node) {
  Composer c(ctx, Scalar(0, kF32));
  relax::Expr acc = IntegerConv(ctx, c, node, 0, 2, 3, 5);
  if (ctx.HasInput(node, 8)) acc = c.Add(acc, AlongChannels(c, c.Take(ctx.Input(node, 8), acc), 3));
  relax::Expr w_scale = AlongChannels(c, c.Take(ctx.Input(node, 4), acc), 3);
  relax::Expr multiplier = c.Div(c.Mul(c.Take(ctx.Input(node, 1), acc), w_scale), c.Take(ctx.Input(node, 6), acc));
  relax::Expr y = Requantize(c, acc, multiplier, c.Take(ctx.Input(node, 7), acc));
  return c.Result(y);
}

/*! \brief ONNX Runtime's contrib QLinearAdd / QLinearMul (domain com.microsoft):
 *  quantize(dequantize(a) op dequantize(b), c_scale, c_zero_point), with broadcasting. Inputs: a,
 *  a_scale, a_zero_point, b, b_scale, b_zero_point, c_scale, c_zero_point (zero points
 *  optional: 0 of a's type, which is also the result's). */
OnnxConverter QLinearBinary(const char* op) {
  return [op](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> a = ctx.Input(node, 0);
    if (!a.ok()) return a.status();
    const auto* at = TensorOf(*a);
    if (at == nullptr || (at->dtype != DataType::UInt(8) && at->dtype != DataType::Int(8))) {
      return absl::InvalidArgumentError("A must be a uint8 or int8 tensor");
    }
    Composer c(ctx, *a);
    relax::Expr b = c.Take(ctx.Input(node, 3), *a);
    const Attrs per_tensor = {{"axis", int64_t{-1}}};
    relax::Expr af =
        c.Op("dequantize", {*a, c.Take(ctx.Input(node, 1), *a), ZeroPoint(ctx, c, node, 2, *a)}, per_tensor);
    relax::Expr bf = c.Op("dequantize", {b, c.Take(ctx.Input(node, 4), *a), ZeroPoint(ctx, c, node, 5, b)}, per_tensor);
    relax::Expr y = c.Op(op, {af, bf});
    return c.Result(c.Op("quantize", {y, c.Take(ctx.Input(node, 6), *a), ZeroPoint(ctx, c, node, 7, *a)},
                         {{"axis", int64_t{-1}}, {"out_dtype", at->dtype}}));
  };
}

}  // namespace

void RegisterQuantizeOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("QuantizeLinear", QuantizeLinear);
  r.Register("DequantizeLinear", DequantizeLinear);
  r.Register("DynamicQuantizeLinear", DynamicQuantizeLinear);
  r.Register("MatMulInteger", MatMulInteger);
  r.Register("ConvInteger", ConvInteger);
  r.Register("QLinearMatMul", QLinearMatMul);
  r.Register("QLinearConv", QLinearConv);
  r.Register("com.microsoft.QLinearAdd", QLinearBinary("add"));
  r.Register("com.microsoft.QLinearMul", QLinearBinary("multiply"));
}

}  // namespace onnx_import
}  // namespace mlc
