/*! \file qdq_to_integer.cc
 *  \brief qdq-to-integer: a convolution or a linear layer of dequantized int8 operands (the QDQ
 *         format) becomes one int8 kernel accumulating in int32 (mlc.int8.conv2d,
 *         vm/library/int8_conv2d.cc; mlc.int8.dense, vm/library/int8_dense.cc), as TVM's
 *         FakeQuantizationToInteger does for Relay.
 *
 *    nn.conv2d(dequantize(xq, sx, zx), dequantize(wq, sw, 0)) [+ bias] [relu]
 *      -> mlc.int8.conv2d(xq, w, geometry, compensation, scale, bias)
 *    nn.dense(dequantize(xq, sx, zx), dequantize(wq, sw, 0)) [+ bias] [relu]     (wq [F, K])
 *    matmul(dequantize(xq, sx, zx), permute_dims(dequantize(wq, sw, 0))) ...     (wq [F, K])
 *    matmul(dequantize(xq, sx, zx), dequantize(wq, sw, 0)) ...                   (wq [K, F])
 *      -> mlc.int8.dense(xq, w, params, compensation, scale, bias)
 *
 *  with xq uint8 or int8 (scalar scale and zero point), wq an int8 constant (or quantize of
 *  constants) quantized symmetrically (zero points 0), per tensor or per output channel; conv
 *  groups 1. At compile time the weight is laid out as the kernel reads it (conv: [F, Kp] rows,
 *  K = C*KH*KW padded to Kp, a multiple of 4, int8 for targets with VNNI (AVX-512 or AVX) and int16 for
 *  the others; dense: panels of 16 channels, [Fp/16][Kp/4][16][4]),
 *  scale[f] = sx * sw[f] and compensation[f] = zx * sum_k wq[f, k] (zx in uint8, int8
 *  activations being shifted by 128), so the kernels compute
 *  scale * (sum wq * xq - compensation) + bias exactly in int32 before the one conversion to
 *  float. Run it before fold-constant, which would fold the weights' dequantize into float
 *  weights; what it does not match is left to the float path.
 *
 *  Then a convolution whose only use is a quantize (scalar scale and zero point: the next
 *  layer's input) takes it in (requantize fused):
 *
 *    quantize(mlc.int8.conv2d(...), s, z)  ->  mlc.int8.conv2d(..., requantize=(s, z)) -> uint8/int8
 *    quantize(clip(mlc.int8.conv2d(...), a, b), s, z)  ->  ..., requantize=(s, z, a, b)   (ReLU6)
 *
 *  so the float result is neither written nor read back by a quantize kernel. Before that, a
 *  convolution's SiLU goes into it (activation code 2, computed in the compiled kernels' steps):
 *
 *    multiply(y, sigmoid(y)), y = mlc.int8.conv2d(...)  ->  mlc.int8.conv2d(...) with SiLU
 *    multiply(y, minimum(maximum(add(multiply(y, 1/6), 1/2), 0), 1))  ->  ... with HardSwish
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "ir/target/target.h"
#include "passes/int8_weight_panels.h"
#include "passes/pass.h"
#include "passes/pattern.h"
#include "support/int8_activation.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief The one value of a scalar (0-d or one-element) constant, or nullopt. */
std::optional<double> ScalarValue(const relax::Expr& e) {
  std::optional<std::vector<double>> v = ConstantValues(e);
  if (!v || v->size() != 1) return std::nullopt;
  return (*v)[0];
}

/*! \brief `axis` counted from the front of a rank-`rank` tensor. */
int64_t NormalizedAxis(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

/*! \brief The int8 weight under a dequantize: a constant, or quantize of a float32 constant
 *  per tensor or along `channel_axis` (weights exported as fake quantization; too big for the
 *  importer's folding budget), computed here as topi::Quantize defines it:
 *  saturate(round_half_even(w / s) + z). */
std::optional<TensorData> QuantizedWeight(const relax::Expr& e, int64_t channel_axis) {
  if (const auto* c = e.as<relax::ConstantNode>()) return c->data;
  const auto* call = e.as<relax::CallNode>();
  const auto* w = call ? call->args[0].as<relax::ConstantNode>() : nullptr;
  absl::StatusOr<relax::QuantizeAttrs> attrs = relax::ParseAttrs<relax::QuantizeAttrs>(call ? call->attrs : Attrs{});
  if (w == nullptr || !attrs.ok() || attrs->out_dtype != DataType::Int(8) || w->data.dtype() != DataType::Float32())
    return std::nullopt;
  std::optional<std::vector<double>> scale = ConstantValues(call->args[1]), zero = ConstantValues(call->args[2]);
  const std::vector<int64_t>& shape = w->data.shape();
  if (!scale || !zero || static_cast<int64_t>(shape.size()) <= channel_axis || scale->size() != zero->size())
    return std::nullopt;
  const int64_t channels = static_cast<int64_t>(scale->size());
  if (channels != 1 && (channels != shape[channel_axis] || NormalizedAxis(attrs->axis, shape.size()) != channel_axis)) {
    return std::nullopt;
  }
  int64_t inner = 1;  // elements per step along the channel axis
  for (size_t d = channel_axis + 1; d < shape.size(); ++d) inner *= shape[d];
  TensorData out(DataType::Int(8), shape);
  const int64_t n = w->data.NumElements();
  const float* src = w->data.data_as<float>();
  auto* dst = static_cast<int8_t*>(out.mutable_data());
  for (int64_t i = 0; i < n; ++i) {
    int64_t c = channels == 1 ? 0 : i / inner % channels;
    float q = std::nearbyint(src[i] / static_cast<float>((*scale)[c])) + static_cast<float>((*zero)[c]);
    dst[i] = static_cast<int8_t>(std::min(127.0f, std::max(-128.0f, q)));
  }
  return out;
}

/*! \brief A symmetric int8 weight as F rows of K taps (row f: what output channel f sums) with
 *  one dequantization scale per row. */
struct WeightRows {
  int64_t f = 0, k = 0;
  std::vector<int8_t> taps;  // [F, K]
  std::vector<float> scale;  // [F]
};

/*! \brief The weight dequantized by `w_dq` (of w_int) as rows. Its output channels lie along
 *  `channel_axis`: 0 (conv [F, C, KH, KW], dense [F, K]) or 1 (a matmul's [K, F]); per-channel
 *  scales must lie along it and every zero point must be 0. */
std::optional<WeightRows> MakeWeightRows(const relax::Expr& w_int, const relax::CallNode& w_dq, int64_t channel_axis) {
  std::optional<TensorData> wc = QuantizedWeight(w_int, channel_axis);
  if (!wc || wc->dtype() != DataType::Int(8) || static_cast<int64_t>(wc->shape().size()) <= channel_axis)
    return std::nullopt;
  if (channel_axis == 1 && wc->shape().size() != 2) return std::nullopt;
  std::optional<std::vector<double>> w_scale = ConstantValues(w_dq.args[1]), w_zero = ConstantValues(w_dq.args[2]);
  if (!w_scale || !w_zero) return std::nullopt;
  for (double z : *w_zero) {
    if (z != 0) return std::nullopt;  // asymmetric weights: not these kernels
  }
  const std::vector<int64_t>& ws = wc->shape();
  WeightRows rows;
  rows.f = ws[channel_axis];
  rows.k = wc->NumElements() / rows.f;
  if (w_scale->size() != 1) {
    absl::StatusOr<relax::DequantizeAttrs> attrs = relax::ParseAttrs<relax::DequantizeAttrs>(w_dq.attrs);
    if (static_cast<int64_t>(w_scale->size()) != rows.f || !attrs.ok() ||
        NormalizedAxis(attrs->axis, ws.size()) != channel_axis) {
      return std::nullopt;
    }
  }
  const int8_t* src = wc->data_as<int8_t>();
  rows.taps.resize(rows.f * rows.k);
  for (int64_t o = 0; o < rows.f; ++o) {
    for (int64_t i = 0; i < rows.k; ++i)
      rows.taps[o * rows.k + i] = channel_axis == 0 ? src[o * rows.k + i] : src[i * rows.f + o];
    rows.scale.push_back(static_cast<float>((*w_scale)[w_scale->size() == 1 ? 0 : o]));
  }
  return rows;
}

/*! \brief The per-channel operands both kernels take, computed at compile time. */
struct IntegerOperands {
  TensorData compensation, scale, bias;
  int64_t zero_point = 0;  // of the activations, in uint8
};

/*! \brief compensation, scale and bias for activations xq (uint8 or int8, scalar scale sx and
 *  zero point zx) and weight rows w; nullopt when xq or the quantization parameters are not
 *  what the kernels take. */
std::optional<IntegerOperands> MakeOperands(const relax::Expr& xq, const relax::Expr& sx, const relax::Expr& zx,
                                            const WeightRows& w, const std::optional<TensorData>& bias) {
  const auto* xt = xq->struct_info().as<relax::TensorStructInfoNode>();
  if (xt == nullptr || !xt->shape) return std::nullopt;
  const bool x_signed = xt->dtype == DataType::Int(8);
  if (!x_signed && xt->dtype != DataType::UInt(8)) return std::nullopt;
  std::optional<double> x_scale = ScalarValue(sx), x_zero = ScalarValue(zx);
  if (!x_scale || !x_zero) return std::nullopt;
  IntegerOperands out;
  out.zero_point = static_cast<int64_t>(*x_zero) + (x_signed ? 128 : 0);
  out.compensation = TensorData(DataType::Int(32), {w.f});
  out.scale = TensorData(DataType::Float32(), {w.f});
  out.bias = TensorData(DataType::Float32(), {w.f});
  auto* comp = static_cast<int32_t*>(out.compensation.mutable_data());
  auto* scale = static_cast<float*>(out.scale.mutable_data());
  auto* b = static_cast<float*>(out.bias.mutable_data());
  for (int64_t o = 0; o < w.f; ++o) {
    int64_t sum = 0;
    for (int64_t i = 0; i < w.k; ++i) sum += w.taps[o * w.k + i];
    comp[o] = static_cast<int32_t>(out.zero_point * sum);
    // The product in float32, as the float graph (dequantized operands) scales each term.
    scale[o] = static_cast<float>(*x_scale) * w.scale[o];
    b[o] = bias ? bias->data_as<float>()[o] : 0.0f;
  }
  return out;
}

/*! \brief K rounded up to the kernels' groups of 4 taps (one 32-bit lane of vpdpbusd). */
int64_t PaddedTaps(int64_t k) { return (k + 3) / 4 * 4; }

/*! \brief mlc.int8.conv2d's weight: [F, Kp], rows padded with zeros; int8, or int16 for
 *  targets without VNNI, whose kernel multiplies int16 pairs (vpmaddwd) and would otherwise
 *  widen every weight at every call (15% of ResNet-18's int8 convolutions on a Zen 3). */
template <typename T>
TensorData ConvWeightAs(const WeightRows& w, DataType dtype) {
  const int64_t kp = PaddedTaps(w.k);
  TensorData out(dtype, {w.f, kp});
  auto* dst = static_cast<T*>(out.mutable_data());
  for (int64_t o = 0; o < w.f; ++o) std::copy_n(w.taps.data() + o * w.k, w.k, dst + o * kp);
  return out;
}

TensorData ConvWeight(const WeightRows& w, bool int16) {
  return int16 ? ConvWeightAs<int16_t>(w, DataType::Int(16)) : ConvWeightAs<int8_t>(w, DataType::Int(8));
}

/*! \brief mlc.int8.dense's weight: panels of 16 channels (int8_weight_panels.h). */
TensorData DenseWeight(const WeightRows& w) { return Int8WeightPanels(w.taps.data(), w.f, w.k, w.k, PaddedTaps(w.k)); }

/*! \brief The values of a float32 constant holding one value per channel of a linear layer's
 *  result (shaped (F,), (1, F), (1, 1, F), ...: broadcast along the last axis), as (F,). */
std::optional<TensorData> LastAxisValues(const relax::Expr& e, int64_t channels) {
  const auto* c = e.as<relax::ConstantNode>();
  if (c == nullptr || c->data.dtype() != DataType::Float32() || c->data.NumElements() != channels) return std::nullopt;
  const std::vector<int64_t>& s = c->data.shape();
  if (s.empty() || s.back() != channels) return std::nullopt;
  return TensorData(DataType::Float32(), {channels}, c->data.bytes());
}

/*! \brief The patterns of one QDQ layer: `product` of dequantized activations and a dequantized
 *  int8 weight, [+ bias] [ReLU]. */
struct QdqPatterns {
  Pattern xq = Wildcard(), sx = IsConst(), zx = IsConst();
  Pattern x_dq = IsOp("dequantize")({xq, sx, zx});
  Pattern w_quantize = IsOp("quantize")({IsConst(), IsConst(), IsConst()});
  Pattern w_int = IsConst() | w_quantize;
  Pattern w_dq = IsOp("dequantize")({w_int, IsConst(), IsConst()});
  Pattern w_transposed = IsOp("permute_dims")({w_dq});
  Pattern conv = IsOp("nn.conv2d")({x_dq, w_dq});
  Pattern dense = IsOp("nn.dense")({x_dq, w_dq}) | IsOp("matmul")({x_dq, w_transposed});
  Pattern matmul = IsOp("matmul")({x_dq, w_dq});
  Pattern product = conv | dense | matmul;
  Pattern bias = IsConst();
  Pattern add_right = IsOp("add")({product, bias}), add_left = IsOp("add")({bias, product});
  Pattern add = add_right | add_left;  // an Or records the variable it met, its alternatives the call

  /*! \brief The int8 weight the match dequantizes: a constant, or quantize of one. */
  relax::Expr WeightInt(const Match& m) const { return m[w_quantize].defined() ? m[w_quantize] : m[w_int]; }
};

class QdqToIntegerPass : public FunctionPass {
 public:
  std::string name() const override { return "qdq-to-integer"; }
  std::string description() const override {
    return "Rewrites nn.conv2d (groups 1), nn.dense and matmul (by a constant matrix) of dequantized uint8/int8 "
           "activations (scalar scale and zero point) and a dequantized int8 constant weight (symmetric, per tensor or "
           "per "
           "output channel), with its constant per-channel bias add and ReLU, into one R.call_dps_packed of "
           "mlc.int8.conv2d or mlc.int8.dense: int8 products accumulated in int32 (VNNI, AVX-512 or AVX, where the CPU "
           "has it), "
           "scaled to float once. For a target without VNNI the convolution's weight is stored as int16, the form its "
           "AVX2 kernel multiplies (vpmaddwd). A convolution used only by a quantize with a scalar scale and zero "
           "point "
           "takes it in (requantize fused: the kernel returns the uint8/int8 tensor), and before that a SiLU of its "
           "result (multiply(y, sigmoid(y))) or a HardSwish goes into its epilogue. Run before fold-constant.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& f, relax::BlockBuilder* bb) override {
    // Longest first: relu(add(product, bias)), add(product, bias), product (bindings are
    // rewritten in order, so a shorter pattern would take the product first).
    absl::StatusOr<Target> target = TargetFromAttrs(bb->module().attrs());
    if (!target.ok()) return target.status();
    const bool int16_conv_weights = !target->has_int8_dot_product();
    relax::Function current = f;
    for (int form = 0; form < 3; ++form) {
      absl::StatusOr<relax::Function> next =
          RewriteForm(current, /*with_bias=*/form < 2, /*with_relu=*/form == 0, int16_conv_weights, bb);
      if (!next.ok()) return next.status();
      current = *next;
    }
    absl::StatusOr<relax::Function> activated = FuseSilu(current, bb);
    if (activated.ok()) activated = FuseHardSwish(*activated, bb);
    if (!activated.ok()) return activated.status();
    return FuseRequantize(*activated, bb);
  }

 private:
  static absl::StatusOr<relax::Function> RewriteForm(const relax::Function& func, bool with_bias, bool with_relu,
                                                     bool int16_conv_weights, relax::BlockBuilder* builder) {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    const QdqPatterns p;
    Pattern top = with_relu ? IsOp("nn.relu")({p.add}) : with_bias ? p.add : p.product;
    auto single_use = [&](const relax::Expr& e) {
      const auto* v = e.as<relax::VarNode>();
      return v != nullptr && uses[v] == 1;
    };
    return Rewrite(
        top, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          // The absorbed intermediate results must have no other use.
          if (with_relu && !single_use(matched.as<relax::CallNode>()->args[0])) return matched;
          if (with_bias) {
            const bool bias_first = m[p.add_left].defined();
            const auto* add_call = (bias_first ? m[p.add_left] : m[p.add_right]).as<relax::CallNode>();
            if (!single_use(add_call->args[bias_first ? 1 : 0])) return matched;
          }
          std::optional<relax::Expr> rewritten =
              m[p.conv].defined() ? RewriteConv(matched, m, p, with_bias, with_relu, int16_conv_weights)
                                  : RewriteLinear(matched, m, p, with_bias, with_relu);
          return rewritten ? *rewritten : matched;
        },
        builder);
  }

  /*! \brief The operands of `call` when it is an mlc.int8.conv2d with a float result (its six
   *  operands: no requantize yet), else nullptr. */
  static const relax::TupleNode* FloatInt8ConvOperands(const relax::Expr& call_expr) {
    const relax::TupleNode* operands = PackedCallOperands(call_expr, "mlc.int8.conv2d");
    return operands != nullptr && operands->fields.size() == 6 ? operands : nullptr;
  }

  /*! \brief The convolution of `operands` with `activation` in its geometry, where it has none
   *  yet (else `matched` as it is). */
  static relax::Expr WithActivation(const relax::TupleNode* operands, Int8Activation activation,
                                    const relax::Expr& matched) {
    const auto* geometry = operands->fields[2].as<relax::ConstantNode>();
    if (geometry == nullptr || geometry->data.dtype() != DataType::Int(64) || geometry->data.NumElements() != 12)
      return matched;
    std::vector<int64_t> codes(geometry->data.data_as<int64_t>(), geometry->data.data_as<int64_t>() + 12);
    if (codes[11] != static_cast<int64_t>(Int8Activation::kNone)) return matched;  // a ReLU already
    codes[11] = static_cast<int64_t>(activation);
    std::vector<relax::Expr> args = operands->fields;
    args[2] = relax::MakeConstant(Int64Tensor(codes));
    return CallDpsPacked("mlc.int8.conv2d", std::move(args), matched);
  }

  /*! \brief HardSwish of a convolution's float result as the importers write it,
   *  multiply(y, minimum(maximum(add(multiply(y, 1/6), 1/2), 0), 1)), y and each link read only
   *  there: the convolution with activation code 3 (MobileNetV3's int8 layers). Other constants
   *  (a HardSigmoid of another slope) stay as they are. */
  static absl::StatusOr<relax::Function> FuseHardSwish(const relax::Function& func, relax::BlockBuilder* builder) {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    Pattern conv = IsOp("call_dps_packed"), gated = IsOp("call_dps_packed");
    Pattern slope = IsConst(), offset = IsConst(), lo = IsConst(), hi = IsConst();
    Pattern scaled = IsOp("multiply")({gated, slope});
    Pattern shifted = IsOp("add")({scaled, offset});
    Pattern floor = IsOp("maximum")({shifted, lo});
    Pattern gate = IsOp("minimum")({floor, hi});
    Pattern top = IsOp("multiply")({conv, gate}) | IsOp("multiply")({gate, conv});
    return Rewrite(
        top, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          if (!m[conv].same_as(m[gated])) return matched;
          auto is = [&](const Pattern& p, float want) {
            std::optional<double> v = ScalarValue(m[p]);
            return v && static_cast<float>(*v) == want;
          };
          if (!is(slope, kHardSwishSlope) || !is(offset, kHardSwishOffset) || !is(lo, 0.0f) || !is(hi, 1.0f))
            return matched;
          // y read by the two multiplies only; each link of the gate by the next only.
          const auto* multiply = matched.as<relax::CallNode>();
          const relax::Expr& y = m[scaled].as<relax::CallNode>()->args[0];
          const auto* y_var = y.as<relax::VarNode>();
          if (y_var == nullptr || uses[y_var] != 2 || !(multiply->args[0].same_as(y) || multiply->args[1].same_as(y)))
            return matched;
          const std::vector<relax::Expr> links = {multiply->args[0].same_as(y) ? multiply->args[1] : multiply->args[0],
                                                  m[gate].as<relax::CallNode>()->args[0],
                                                  m[floor].as<relax::CallNode>()->args[0],
                                                  m[shifted].as<relax::CallNode>()->args[0]};
          for (const relax::Expr& link : links) {
            const auto* var = link.as<relax::VarNode>();
            if (var == nullptr || uses[var] != 1) return matched;
          }
          const relax::TupleNode* operands = FloatInt8ConvOperands(m[conv]);
          if (operands == nullptr) return matched;
          return WithActivation(operands, Int8Activation::kHardSwish, matched);
        },
        builder);
  }

  /*! \brief SiLU of a convolution's float result, multiply(y, sigmoid(y)) in either order (how
   *  PyTorch's SiLU exports), y read only there and the convolution without an activation: the
   *  convolution with activation kSilu (geometry[11]), which computes SiLU in its epilogue in
   *  the compiled kernels' steps (vm/library/silu.h), so the result is the same. A quantize
   *  after it then fuses as well (EfficientNet's and YOLO's int8 layers: the float result
   *  never leaves the kernel). */
  static absl::StatusOr<relax::Function> FuseSilu(const relax::Function& func, relax::BlockBuilder* builder) {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    Pattern conv = IsOp("call_dps_packed"), gated = IsOp("call_dps_packed");
    Pattern sigmoid = IsOp("sigmoid")({gated});
    Pattern top = IsOp("multiply")({conv, sigmoid}) | IsOp("multiply")({sigmoid, conv});
    return Rewrite(
        top, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* multiply = matched.as<relax::CallNode>();
          const auto* sigmoid_call = m[sigmoid].as<relax::CallNode>();
          // One convolution, its result read by the sigmoid and the multiply only, the
          // sigmoid's by the multiply only.
          if (!m[conv].same_as(m[gated])) return matched;
          const relax::Expr& y = sigmoid_call->args[0];
          const auto* y_var = y.as<relax::VarNode>();
          const relax::Expr& other = multiply->args[0].same_as(y) ? multiply->args[1] : multiply->args[0];
          const auto* gate_var = other.as<relax::VarNode>();
          if (y_var == nullptr || gate_var == nullptr || uses[y_var] != 2 || uses[gate_var] != 1 ||
              !(multiply->args[0].same_as(y) || multiply->args[1].same_as(y))) {
            return matched;
          }
          const relax::TupleNode* operands = FloatInt8ConvOperands(m[conv]);
          if (operands == nullptr) return matched;
          return WithActivation(operands, Int8Activation::kSilu, matched);
        },
        builder);
  }

  /*! \brief quantize(mlc.int8.conv2d(...), s, z) with a scalar s and z, the convolution used only
   *  there: the convolution with requantize = (s, z) and the quantize's uint8/int8 result. A clip
   *  by scalar constants between them (ReLU6: minimum(maximum(y, 0), 6), either bound alone too)
   *  goes in as well, requantize = (s, z, lo, hi): the kernel clips the float result before it
   *  quantizes, so the uint8 is the same. */
  static absl::StatusOr<relax::Function> FuseRequantize(const relax::Function& func, relax::BlockBuilder* builder) {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    Pattern conv = IsOp("call_dps_packed"), scale = IsConst(), zero = IsConst(), lo = IsConst(), hi = IsConst();
    Pattern floor = IsOp("maximum")({conv, lo});
    Pattern ceiling = IsOp("minimum")({floor | conv, hi});
    Pattern top = IsOp("quantize")({ceiling | floor | conv, scale, zero});
    return Rewrite(
        top, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* quantize = matched.as<relax::CallNode>();
          // Each link from the convolution to the quantize is read there only.
          std::vector<relax::Expr> links = {quantize->args[0]};
          if (m[ceiling].defined()) links.push_back(m[ceiling].as<relax::CallNode>()->args[0]);
          if (m[floor].defined()) links.push_back(m[floor].as<relax::CallNode>()->args[0]);
          for (const relax::Expr& link : links) {
            const auto* var = link.as<relax::VarNode>();
            if (var == nullptr || uses[var] != 1) return matched;
          }
          const relax::TupleNode* operands = FloatInt8ConvOperands(m[conv]);
          if (operands == nullptr) return matched;
          absl::StatusOr<relax::QuantizeAttrs> attrs = relax::ParseAttrs<relax::QuantizeAttrs>(quantize->attrs);
          std::optional<double> s = ScalarValue(m[scale]), z = ScalarValue(m[zero]);
          if (!attrs.ok() || (attrs->out_dtype != DataType::UInt(8) && attrs->out_dtype != DataType::Int(8)) || !s ||
              !z || !(*s > 0) || !std::isfinite(*s)) {
            return matched;
          }
          std::vector<double> requantize = {*s, *z};
          if (m[floor].defined() || m[ceiling].defined()) {
            std::optional<double> a = m[floor].defined() ? ScalarValue(m[lo]) : -HUGE_VAL;
            std::optional<double> b = m[ceiling].defined() ? ScalarValue(m[hi]) : HUGE_VAL;
            if (!a || !b || !(*a <= *b)) return matched;
            requantize.insert(requantize.end(), {*a, *b});
          }
          std::vector<relax::Expr> args = operands->fields;
          const int64_t n = static_cast<int64_t>(requantize.size());
          args.push_back(relax::MakeConstant(TensorFromDoubles(DataType::Float32(), {n}, requantize)));
          return CallDpsPacked("mlc.int8.conv2d", std::move(args), matched);
        },
        builder);
  }

  /*! \brief The match as one mlc.int8.conv2d, or nullopt when the kernel does not take it. */
  static std::optional<relax::Expr> RewriteConv(const relax::Expr& matched, const Match& m, const QdqPatterns& p,
                                                bool with_bias, bool with_relu, bool int16_weight) {
    absl::StatusOr<relax::Conv2DAttrs> attrs =
        relax::ParseAttrs<relax::Conv2DAttrs>(m[p.conv].as<relax::CallNode>()->attrs);
    if (!attrs.ok() || attrs->groups != 1 || !attrs->IsDefaultLayout() || !StaticFloat32(matched, 4))
      return std::nullopt;
    const relax::CallNode& w_dq = *m[p.w_dq].as<relax::CallNode>();
    const auto* xt = m[p.xq]->struct_info().as<relax::TensorStructInfoNode>();
    std::optional<WeightRows> w = MakeWeightRows(p.WeightInt(m), w_dq, /*channel_axis=*/0);
    const auto* wt = w_dq.struct_info().as<relax::TensorStructInfoNode>();
    if (!w || xt == nullptr || !xt->shape || xt->shape->size() != 4 || wt == nullptr || !wt->shape ||
        wt->shape->size() != 4 || (*wt->shape)[1] != (*xt->shape)[1]) {
      return std::nullopt;
    }
    std::optional<TensorData> b;
    if (with_bias && !(b = PerChannelValues(m[p.bias], w->f))) return std::nullopt;
    std::optional<IntegerOperands> ops = MakeOperands(m[p.xq], m[p.sx], m[p.zx], *w, b);
    if (!ops) return std::nullopt;
    const std::vector<int64_t>& ws = *wt->shape;
    std::vector<int64_t> geometry = attrs->strides;
    geometry.insert(geometry.end(), attrs->padding.begin(), attrs->padding.end());
    geometry.insert(geometry.end(), attrs->dilation.begin(), attrs->dilation.end());
    geometry.insert(geometry.end(), {ws[2], ws[3], ops->zero_point, with_relu ? 1 : 0});
    return CallDpsPacked(
        "mlc.int8.conv2d",
        {m[p.xq], relax::MakeConstant(ConvWeight(*w, int16_weight)), relax::MakeConstant(Int64Tensor(geometry)),
         relax::MakeConstant(ops->compensation), relax::MakeConstant(ops->scale), relax::MakeConstant(ops->bias)},
        matched);
  }

  /*! \brief The match (nn.dense or matmul by a constant matrix) as one mlc.int8.dense, or nullopt
   *  when the kernel does not take it. */
  static std::optional<relax::Expr> RewriteLinear(const relax::Expr& matched, const Match& m, const QdqPatterns& p,
                                                  bool with_bias, bool with_relu) {
    const relax::CallNode& w_dq = *m[p.w_dq].as<relax::CallNode>();
    // The weight's output channels lie along axis 0, or along axis 1 of a matmul's [K, F].
    const int64_t channel_axis = m[p.matmul].defined() ? 1 : 0;
    if (m[p.w_transposed].defined()) {
      absl::StatusOr<relax::PermuteDimsAttrs> t =
          relax::ParseAttrs<relax::PermuteDimsAttrs>(m[p.w_transposed].as<relax::CallNode>()->attrs);
      if (!t.ok() || (!t->axes.empty() && t->axes != std::vector<int64_t>{1, 0})) return std::nullopt;
    }
    const auto* wt = w_dq.struct_info().as<relax::TensorStructInfoNode>();
    if (wt == nullptr || wt->ndim != 2) return std::nullopt;
    std::optional<WeightRows> w = MakeWeightRows(p.WeightInt(m), w_dq, channel_axis);
    const auto* xt = m[p.xq]->struct_info().as<relax::TensorStructInfoNode>();
    if (!w || xt == nullptr || !xt->shape || xt->shape->size() < 2 || xt->shape->back() != w->k) return std::nullopt;
    if (!StaticFloat32(matched, xt->shape->size())) return std::nullopt;
    std::optional<TensorData> b;
    if (with_bias && !(b = LastAxisValues(m[p.bias], w->f))) return std::nullopt;
    std::optional<IntegerOperands> ops = MakeOperands(m[p.xq], m[p.sx], m[p.zx], *w, b);
    if (!ops) return std::nullopt;
    return CallDpsPacked(
        "mlc.int8.dense",
        {m[p.xq], relax::MakeConstant(DenseWeight(*w)),
         relax::MakeConstant(Int64Tensor({ops->zero_point, with_relu ? 1 : 0})), relax::MakeConstant(ops->compensation),
         relax::MakeConstant(ops->scale), relax::MakeConstant(ops->bias)},
        matched);
  }
};

MLC_REGISTER_PASS(QdqToIntegerPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
