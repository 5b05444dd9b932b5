/*! \file qdq_to_integer.cc
 *  \brief qdq-to-integer: a convolution of dequantized int8 operands (the QDQ format) becomes
 *         one int8 convolution accumulating in int32 (mlc.int8.conv2d, vm/library/int8_conv2d.cc),
 *         as TVM's FakeQuantizationToInteger does for Relay.
 *
 *    nn.conv2d(dequantize(xq, sx, zx), dequantize(wq, sw, 0)) [+ bias] [relu]
 *      -> mlc.int8.conv2d(xq, w, geometry, compensation, scale, bias)
 *
 *  with xq uint8 or int8 (scalar scale and zero point), wq an int8 constant (or quantize of
 *  constants) quantized symmetrically (zero points 0), per tensor or per output channel, groups 1. At compile time:
 *  w = wq flattened to [F, C*KH*KW] and padded to a multiple of 4 columns, scale[f] = sx * sw[f],
 *  compensation[f] = zx * sum_k wq[f, k] (zx in uint8, int8 activations being shifted by 128),
 *  so the kernel computes scale * (sum wq * xq - compensation) + bias exactly in int32 before
 *  the one conversion to float. Run it before fold-constant, which would fold the weights'
 *  dequantize into float weights; what it does not match is left to the float path.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "ir/op.h"
#include "ir/ops/op_attrs.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief The values of a constant, or nullopt. */
std::optional<std::vector<double>> ConstantValues(const relax::Expr& e) {
  const auto* c = e.as<relax::ConstantNode>();
  if (c == nullptr) return std::nullopt;
  return ValuesAsDouble(c->data);
}

/*! \brief The one value of a scalar (0-d or one-element) constant, or nullopt. */
std::optional<double> ScalarValue(const relax::Expr& e) {
  std::optional<std::vector<double>> v = ConstantValues(e);
  if (!v || v->size() != 1) return std::nullopt;
  return (*v)[0];
}

/*! \brief The operands of one int8 convolution, computed at compile time. */
struct IntegerConvOperands {
  TensorData weight, compensation, scale, bias;
  int64_t zero_point = 0;  // of the activations, in uint8
};

/*! \brief The int8 weight under a dequantize: a constant, or quantize of a float32 constant
 *  along axis 0 (weights exported as fake quantization; too big for the importer's folding
 *  budget), computed here as topi::Quantize defines it: saturate(round_half_even(w / s) + z). */
std::optional<TensorData> QuantizedWeight(const relax::Expr& e) {
  if (const auto* c = e.as<relax::ConstantNode>()) return c->data;
  const auto* call = e.as<relax::CallNode>();
  const auto* w = call ? call->args[0].as<relax::ConstantNode>() : nullptr;
  absl::StatusOr<relax::QuantizeAttrs> attrs = relax::ParseAttrs<relax::QuantizeAttrs>(call ? call->attrs : Attrs{});
  if (w == nullptr || !attrs.ok() || attrs->out_dtype != DataType::Int(8) || w->data.dtype() != DataType::Float32()) return std::nullopt;
  std::optional<std::vector<double>> scale = ConstantValues(call->args[1]), zero = ConstantValues(call->args[2]);
  const std::vector<int64_t>& shape = w->data.shape();
  if (!scale || !zero || shape.empty() || scale->size() != zero->size()) return std::nullopt;
  const int64_t channels = static_cast<int64_t>(scale->size());
  if (channels != 1 && (channels != shape[0] || (attrs->axis != 0 && attrs->axis != -static_cast<int64_t>(shape.size())))) {
    return std::nullopt;
  }
  TensorData out(DataType::Int(8), shape);
  const int64_t n = w->data.NumElements(), per_channel = n / shape[0];
  const float* src = w->data.data_as<float>();
  auto* dst = static_cast<int8_t*>(out.mutable_data());
  for (int64_t i = 0; i < n; ++i) {
    int64_t c = channels == 1 ? 0 : i / per_channel;
    float q = std::nearbyint(src[i] / static_cast<float>((*scale)[c])) + static_cast<float>((*zero)[c]);
    dst[i] = static_cast<int8_t>(std::min(127.0f, std::max(-128.0f, q)));
  }
  return out;
}

std::optional<IntegerConvOperands> MakeOperands(const relax::Expr& xq, const relax::Expr& w_int, const relax::CallNode& w_dq, const relax::Expr& sx,
                                                const relax::Expr& zx, const std::optional<TensorData>& bias) {
  const auto* xt = xq->struct_info().as<relax::TensorStructInfoNode>();
  if (xt == nullptr || !xt->shape || xt->shape->size() != 4) return std::nullopt;
  const bool x_signed = xt->dtype == DataType::Int(8);
  if (!x_signed && xt->dtype != DataType::UInt(8)) return std::nullopt;
  std::optional<TensorData> wc = QuantizedWeight(w_int);
  if (!wc || wc->dtype() != DataType::Int(8) || wc->shape().size() != 4) return std::nullopt;
  std::optional<double> x_scale = ScalarValue(sx), x_zero = ScalarValue(zx);
  std::optional<std::vector<double>> w_scale = ConstantValues(w_dq.args[1]), w_zero = ConstantValues(w_dq.args[2]);
  if (!x_scale || !x_zero || !w_scale || !w_zero) return std::nullopt;
  const std::vector<int64_t>& ws = wc->shape();
  const int64_t f = ws[0], k = ws[1] * ws[2] * ws[3], kp = (k + 3) / 4 * 4;
  if (ws[1] != (*xt->shape)[1] || (w_scale->size() != 1 && static_cast<int64_t>(w_scale->size()) != f)) return std::nullopt;
  if (w_scale->size() > 1) {  // per channel: along the weight's output channels
    absl::StatusOr<relax::DequantizeAttrs> attrs = relax::ParseAttrs<relax::DequantizeAttrs>(w_dq.attrs);
    if (!attrs.ok() || (attrs->axis != 0 && attrs->axis != -4)) return std::nullopt;
  }
  for (double z : *w_zero) {
    if (z != 0) return std::nullopt;  // asymmetric weights: not this kernel
  }
  IntegerConvOperands out;
  out.zero_point = static_cast<int64_t>(*x_zero) + (x_signed ? 128 : 0);
  out.weight = TensorData(DataType::Int(8), {f, kp});
  out.compensation = TensorData(DataType::Int(32), {f});
  out.scale = TensorData(DataType::Float32(), {f});
  out.bias = TensorData(DataType::Float32(), {f});
  const int8_t* wq = wc->data_as<int8_t>();
  auto* w = static_cast<int8_t*>(out.weight.mutable_data());
  auto* comp = static_cast<int32_t*>(out.compensation.mutable_data());
  auto* scale = static_cast<float*>(out.scale.mutable_data());
  auto* b = static_cast<float*>(out.bias.mutable_data());
  for (int64_t o = 0; o < f; ++o) {
    int64_t sum = 0;
    for (int64_t i = 0; i < k; ++i) sum += w[o * kp + i] = wq[o * k + i];
    comp[o] = static_cast<int32_t>(out.zero_point * sum);
    // The product in float32, as the float graph (dequantized operands) scales each term.
    scale[o] = static_cast<float>(*x_scale) * static_cast<float>((*w_scale)[w_scale->size() == 1 ? 0 : o]);
    b[o] = bias ? bias->data_as<float>()[o] : 0.0f;
  }
  return out;
}

class QdqToIntegerPass : public FunctionPass {
 public:
  std::string name() const override { return "qdq-to-integer"; }
  std::string description() const override {
    return "Rewrites nn.conv2d of dequantized uint8/int8 activations (scalar scale and zero point) and a dequantized int8 "
           "constant weight (symmetric, per tensor or per output channel, groups 1), with its constant per-channel bias "
           "add and ReLU, into one R.call_dps_packed of mlc.int8.conv2d: int8 products accumulated in int32 (AVX-512 "
           "VNNI where the CPU has it), scaled to float once. Run before fold-constant.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& f, relax::BlockBuilder* bb) override {
    // Longest first: relu(add(conv, bias)), add(conv, bias), conv (bindings are rewritten in
    // order, so a shorter pattern would take the convolution first).
    relax::Function current = f;
    for (int form = 0; form < 3; ++form) {
      absl::StatusOr<relax::Function> next = RewriteForm(current, /*with_bias=*/form < 2, /*with_relu=*/form == 0, bb);
      if (!next.ok()) return next.status();
      current = *next;
    }
    return current;
  }

 private:
  static absl::StatusOr<relax::Function> RewriteForm(const relax::Function& func, bool with_bias, bool with_relu,
                                                    relax::BlockBuilder* builder) {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    Pattern xq = Wildcard(), sx = IsConst(), zx = IsConst();
    Pattern w_quantize = IsOp("quantize")({IsConst(), IsConst(), IsConst()});
    Pattern w_int = IsConst() | w_quantize;
    Pattern w_dq = IsOp("dequantize")({w_int, IsConst(), IsConst()});
    Pattern conv = IsOp("nn.conv2d")({IsOp("dequantize")({xq, sx, zx}), w_dq});
    Pattern bias = IsConst();
    Pattern add = IsOp("add")({conv, bias});
    Pattern top = with_relu ? IsOp("nn.relu")({add}) : with_bias ? add : conv;
    auto single_use = [&](const relax::Expr& e) {
      const auto* v = e.as<relax::VarNode>();
      return v != nullptr && uses[v] == 1;
    };
    return Rewrite(
        top, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          // The absorbed intermediate results must have no other use.
          if (with_relu && !single_use(matched.as<relax::CallNode>()->args[0])) return matched;
          if (with_bias && !single_use(m[add].as<relax::CallNode>()->args[0])) return matched;
          const auto* conv_call = m[conv].as<relax::CallNode>();
          absl::StatusOr<relax::Conv2DAttrs> attrs = relax::ParseAttrs<relax::Conv2DAttrs>(conv_call->attrs);
          if (!attrs.ok() || attrs->groups != 1 || !attrs->IsDefaultLayout() || !StaticFloat32(matched, 4)) return matched;
          const auto* wt = m[w_dq]->struct_info().as<relax::TensorStructInfoNode>();
          if (wt == nullptr || !wt->shape) return matched;
          std::optional<TensorData> b;
          if (with_bias) {
            b = PerChannelValues(m[bias], (*wt->shape)[0]);
            if (!b) return matched;
          }
          std::optional<IntegerConvOperands> ops = MakeOperands(m[xq], m[w_quantize].defined() ? m[w_quantize] : m[w_int],
                                                            *m[w_dq].as<relax::CallNode>(), m[sx], m[zx], b);
          if (!ops) return matched;
          const std::vector<int64_t>& ws = *wt->shape;
          std::vector<int64_t> geometry = attrs->strides;
          geometry.insert(geometry.end(), attrs->padding.begin(), attrs->padding.end());
          geometry.insert(geometry.end(), attrs->dilation.begin(), attrs->dilation.end());
          geometry.insert(geometry.end(), {ws[2], ws[3], ops->zero_point, with_relu ? 1 : 0});
          return CallDpsPacked("mlc.int8.conv2d",
                               {m[xq], relax::MakeConstant(ops->weight), relax::MakeConstant(Int64Tensor(geometry)),
                                relax::MakeConstant(ops->compensation), relax::MakeConstant(ops->scale),
                                relax::MakeConstant(ops->bias)},
                               matched);
        },
        builder);
  }
};

MLC_REGISTER_PASS(QdqToIntegerPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
