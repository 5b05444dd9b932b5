/*! \file fx_nn_converters.cc
 *  \brief FX converters of convolutional-network modules: Conv2d/3d, ConvTranspose2d/3d,
 *         BatchNorm2d/3d (eval, folded), MaxPool2d/3d, AvgPool2d/3d, AdaptiveAvgPool2d, F.pad and the padding modules.
 */
#include <cmath>

#include "absl/strings/str_cat.h"
#include "frontend/common/conv_transpose.h"
#include "frontend/common/resample.h"
#include "frontend/torch/fx_converter_util.h"
#include "ir/ops/op_attrs.h"

namespace mlc {
namespace fx {
namespace {

/*! \brief torch's symmetric per-axis `padding` as the operator library's starts, then ends. */
std::vector<int64_t> SymmetricPadding(const std::vector<int64_t>& pad) {
  std::vector<int64_t> padding = pad;
  padding.insert(padding.end(), pad.begin(), pad.end());
  return padding;
}

/*! \brief nn.Conv2d and nn.Conv3d: Attrs (Conv2DAttrs, Conv3DAttrs) says how many spatial axes. */
template <typename Attrs>
absl::StatusOr<relax::Expr> ConvertConv(FxContext& ctx, const proto::FxNode& node) {
  const size_t n = std::string(Attrs::kSpatialAxes).size();
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> w = ctx.Param(node.target() + ".weight");
  if (!w.ok()) return w.status();
  auto pad_attr = node.module_attrs().find("padding");
  if (pad_attr != node.module_attrs().end() && pad_attr->second.value_case() == proto::FxArg::kS) {
    return absl::UnimplementedError("string padding ('same'/'valid') is not supported");
  }
  const std::vector<int64_t> ones(n, 1), zeros(n, 0);
  Attrs attrs;
  attrs.strides = IntsOf(node, "stride", n, ones);
  attrs.padding = SymmetricPadding(IntsOf(node, "padding", n, zeros));
  attrs.dilation = IntsOf(node, "dilation", n, ones);
  attrs.groups = IntsOf(node, "groups", 1, {1})[0];
  absl::StatusOr<relax::Expr> y = ctx.EmitOp(absl::StrCat("nn.conv", n, "d"), {*x, *w}, relax::ToAttrs(attrs));
  if (!y.ok() || !ctx.HasParam(node.target() + ".bias")) return y;
  absl::StatusOr<relax::Expr> b = ctx.Param(node.target() + ".bias");
  if (!b.ok()) return b.status();
  return ctx.EmitOp("add", {*y, PerChannel(b->as<relax::ConstantNode>()->data, static_cast<int>(n))});
}

/*! \brief nn.ConvTranspose2d and nn.ConvTranspose3d (frontend/common/conv_transpose.h); the
 *  output size comes from output_padding (a size passed to forward is not recorded). */
template <int kSpatial>
absl::StatusOr<relax::Expr> ConvertConvTranspose(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> w = ctx.Param(node.target() + ".weight");
  if (!w.ok()) return w.status();
  if (node.args_size() > 1 || node.kwargs().count("output_size")) {
    return absl::UnimplementedError("ConvTranspose with output_size passed to forward (give output_padding instead)");
  }
  const std::vector<int64_t> ones(kSpatial, 1), zeros(kSpatial, 0);
  frontend::ConvTransposeParams p;
  p.strides = IntsOf(node, "stride", kSpatial, ones);
  p.padding = SymmetricPadding(IntsOf(node, "padding", kSpatial, zeros));
  p.output_padding = IntsOf(node, "output_padding", kSpatial, zeros);
  p.dilation = IntsOf(node, "dilation", kSpatial, ones);
  p.groups = IntsOf(node, "groups", 1, {1})[0];
  absl::StatusOr<relax::Expr> y = frontend::ConvTranspose(frontend::EmitterOf(ctx), *x, *w, p);
  if (!y.ok() || !ctx.HasParam(node.target() + ".bias")) return y;
  absl::StatusOr<relax::Expr> b = ctx.Param(node.target() + ".bias");
  if (!b.ok()) return b.status();
  return ctx.EmitOp("add", {*y, PerChannel(b->as<relax::ConstantNode>()->data, kSpatial)});
}

}  // namespace

absl::StatusOr<relax::Expr> FoldedBatchNorm(FxContext& ctx, const relax::Expr& x, const TensorData* weight,
                                            const TensorData* bias, const TensorData& mean, const TensorData& var,
                                            double eps, int spatial_dims) {
  const int64_t c = mean.NumElements();
  for (const TensorData* t : {weight, bias, &mean, &var}) {
    if (t != nullptr && (t->dtype() != DataType::Float32() || t->NumElements() != c)) {
      return absl::InvalidArgumentError(
          absl::StrCat("batch norm: weight, bias, running_mean and running_var must be ", c, " float32 values each"));
    }
  }
  std::vector<int64_t> per_channel(1 + spatial_dims, 1);
  per_channel[0] = c;
  TensorData scale(DataType::Float32(), per_channel), shift(DataType::Float32(), per_channel);
  for (int64_t i = 0; i < c; ++i) {
    const double w = weight != nullptr ? weight->data_as<float>()[i] : 1.0,
                 b = bias != nullptr ? bias->data_as<float>()[i] : 0.0;
    const double s = w / std::sqrt(static_cast<double>(var.data_as<float>()[i]) + eps);
    static_cast<float*>(scale.mutable_data())[i] = static_cast<float>(s);
    static_cast<float*>(shift.mutable_data())[i] = static_cast<float>(b - mean.data_as<float>()[i] * s);
  }
  absl::StatusOr<relax::Expr> y = ctx.EmitOp("multiply", {x, relax::MakeConstant(scale)});
  if (!y.ok()) return y;
  return ctx.EmitOp("add", {*y, relax::MakeConstant(shift)});
}

/*! \brief aten.upsample_{nearest,bilinear,bicubic}2d.vec(x, output_size, [align_corners,]
 *  scale_factors) and F.interpolate(x, size, scale_factor, mode, align_corners): resized to the
 *  recorded output shape, with PyTorch's coordinates (ONNX's pytorch_half_pixel, or
 *  align_corners; nearest rounds down from asymmetric coordinates, as torch's "nearest"). */
FxConverter Interpolate(const std::string& fixed_mode) {
  return [fixed_mode](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
    if (!x.ok()) return x.status();
    if (node.outputs_size() != 1) return absl::InvalidArgumentError("the result shape was not recorded");
    std::string mode = fixed_mode;
    bool align_corners = false;
    if (mode.empty()) {  // F.interpolate
      auto it = node.kwargs().find("mode");
      mode = it != node.kwargs().end() ? it->second.s() : node.args_size() > 3 ? node.args(3).s() : "nearest";
      align_corners = BoolArg(node, 4, "align_corners", false);
    } else if (mode != "nearest") {
      align_corners = BoolArg(node, 2, "align_corners", false);
    }
    frontend::ResizeParams p;
    if (mode == "nearest") {
      p.mode = "nearest";
      p.coordinate_mode = "asymmetric";
      p.nearest_mode = "floor";
    } else if (mode == "bilinear" || mode == "linear" || mode == "bicubic") {
      p.mode = mode == "bicubic" ? "cubic" : "linear";
      p.coordinate_mode = align_corners ? "align_corners" : "pytorch_half_pixel";
    } else {
      return absl::UnimplementedError(
          absl::StrCat("interpolation mode '", mode, "' (nearest, linear, bilinear, bicubic are supported)"));
    }
    std::vector<double> sizes(node.outputs(0).shape().begin(), node.outputs(0).shape().end());
    return frontend::Resample(frontend::EmitterOf(ctx), *x, p, {}, {}, sizes);
  };
}

namespace {

/*! \brief nn.BatchNorm2d/3d in eval mode over `spatial_dims` axes after the channels, folded. */
absl::StatusOr<relax::Expr> ConvertBatchNorm(FxContext& ctx, const proto::FxNode& node, int spatial_dims) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  std::vector<const TensorData*> p;
  for (const char* name : {".weight", ".bias", ".running_mean", ".running_var"}) {
    absl::StatusOr<relax::Expr> c = ctx.Param(node.target() + name);
    if (!c.ok()) return c.status();
    p.push_back(&c->as<relax::ConstantNode>()->data);
  }
  absl::StatusOr<relax::Expr> y =
      FoldedBatchNorm(ctx, *x, p[0], p[1], *p[2], *p[3], FloatOf(node, "eps", 1e-5), spatial_dims);
  if (!y.ok()) return absl::Status(y.status().code(), absl::StrCat(node.target(), ": ", y.status().message()));
  return y;
}

/*! \brief nn.MaxPool2d/3d and nn.AvgPool2d/3d: Attrs (Pool2DAttrs, Pool3DAttrs) says how many spatial axes. */
template <typename Attrs>
absl::StatusOr<relax::Expr> ConvertPool(FxContext& ctx, const proto::FxNode& node, bool is_max) {
  const size_t n = std::string(Attrs::kSpatialAxes).size();
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const std::vector<int64_t> ones(n, 1), zeros(n, 0);
  Attrs attrs;
  attrs.pool_size = IntsOf(node, "kernel_size", n, ones);
  attrs.strides = IntsOf(node, "stride", n, attrs.pool_size);
  attrs.padding = SymmetricPadding(IntsOf(node, "padding", n, zeros));
  attrs.dilation = IntsOf(node, "dilation", n, ones);
  attrs.ceil_mode = BoolOf(node, "ceil_mode", false);
  attrs.count_include_pad = BoolOf(node, "count_include_pad", true);
  return ctx.EmitOp(absl::StrCat(is_max ? "nn.max_pool" : "nn.avg_pool", n, "d"), {*x}, relax::ToAttrs(attrs));
}

/*! \brief F.max_pool2d / F.avg_pool2d (input, kernel_size, stride, padding, ...): the module's
 *  converter over the call's arguments, read as the module's attributes of the same names. */
FxConverter PoolFunction(bool is_max) {
  return [is_max](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    static const std::vector<std::string> kMax = {"kernel_size", "stride",    "padding",
                                                  "dilation",    "ceil_mode", "return_indices"};
    static const std::vector<std::string> kAvg = {"kernel_size",       "stride",          "padding", "ceil_mode",
                                                  "count_include_pad", "divisor_override"};
    const std::vector<std::string>& names = is_max ? kMax : kAvg;
    if (node.args_size() < 1) return absl::InvalidArgumentError("missing the input");
    proto::FxNode as_module = node;
    as_module.clear_args();
    *as_module.add_args() = node.args(0);
    for (int i = 1; i < node.args_size(); ++i) {
      if (static_cast<size_t>(i - 1) >= names.size()) return absl::InvalidArgumentError("too many arguments");
      (*as_module.mutable_module_attrs())[names[i - 1]] = node.args(i);
    }
    for (const auto& [name, value] : node.kwargs()) (*as_module.mutable_module_attrs())[name] = value;
    const auto& attrs = as_module.module_attrs();
    if (attrs.count("return_indices") && attrs.at("return_indices").b())
      return absl::UnimplementedError("return_indices=True is not supported");
    if (attrs.count("divisor_override") && attrs.at("divisor_override").value_case() != proto::FxArg::kNone) {
      return absl::UnimplementedError("divisor_override is not supported");
    }
    if (!attrs.count("kernel_size")) return absl::InvalidArgumentError("missing kernel_size");
    return ConvertPool<relax::Pool2DAttrs>(ctx, as_module, is_max);
  };
}

/*! \brief Adaptive average pooling to the recorded output size: the global mean for (1, 1), the
 *  input itself for its own size, windows of in / out for an output size that divides the
 *  input's (AlexNet's and VGG's (7, 7) head); other sizes (uneven windows) are not supported. */
absl::StatusOr<relax::Expr> ConvertGlobalPool(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  if (node.outputs_size() != 1 || node.outputs(0).shape_size() != 4)
    return absl::InvalidArgumentError("the result shape was not recorded");
  const int64_t oh = node.outputs(0).shape(2), ow = node.outputs(0).shape(3);
  if (oh == 1 && ow == 1) return ctx.EmitOp("nn.adaptive_avg_pool2d", {*x});
  const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->shape || t->shape->size() != 4)
    return absl::UnimplementedError("adaptive pooling to a size other than (1, 1) needs a static input");
  const int64_t ih = (*t->shape)[2], iw = (*t->shape)[3];
  if (ih == oh && iw == ow) return *x;
  if (oh <= 0 || ow <= 0 || ih % oh != 0 || iw % ow != 0) {
    return absl::UnimplementedError(absl::StrCat("adaptive pooling from ", ih, " x ", iw, " to ", oh, " x ", ow,
                                                 " (uneven windows) is not supported"));
  }
  relax::Pool2DAttrs attrs;
  attrs.pool_size = {ih / oh, iw / ow};
  attrs.strides = attrs.pool_size;
  attrs.padding = {0, 0, 0, 0};
  attrs.dilation = {1, 1};
  attrs.ceil_mode = false;
  attrs.count_include_pad = true;
  return ctx.EmitOp("nn.avg_pool2d", {*x}, relax::ToAttrs(attrs));
}

/*! \brief torch's padding of x: `pad` lists (before, after) pairs from the last dimension; mode
 *  constant (with `value`), reflect, or replicate (nn.pad's "edge"). */
absl::StatusOr<relax::Expr> EmitTorchPad(FxContext& ctx, const relax::Expr& x, const std::vector<int64_t>& pad,
                                         const std::string& mode, double value) {
  if (mode != "constant" && mode != "reflect" && mode != "replicate") {
    return absl::UnimplementedError(absl::StrCat("mode '", mode, "' is not supported (constant, reflect, replicate)"));
  }
  const auto* t = x->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || t->ndim < 0) return absl::InvalidArgumentError("pad needs an input of known rank");
  size_t rank = static_cast<size_t>(t->ndim);
  if (pad.size() % 2 != 0 || pad.size() > 2 * rank) {
    return absl::InvalidArgumentError(absl::StrCat("pad has ", pad.size(), " values for a rank-", rank, " input"));
  }
  std::vector<int64_t> width(2 * rank, 0);
  for (size_t i = 0; i + 1 < pad.size(); i += 2) {
    width[2 * (rank - 1 - i / 2)] = pad[i];
    width[2 * (rank - 1 - i / 2) + 1] = pad[i + 1];
  }
  return ctx.EmitOp("nn.pad", {x},
                    {{"pad_width", width}, {"pad_value", value}, {"pad_mode", mode == "replicate" ? "edge" : mode}});
}

/*! \brief F.pad(x, pad, mode="constant", value=0). */
absl::StatusOr<relax::Expr> ConvertPad(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const proto::FxArg* pad = node.args_size() > 1 ? &node.args(1) : nullptr;
  if (pad == nullptr && node.kwargs().count("pad")) pad = &node.kwargs().at("pad");
  if (pad == nullptr || pad->value_case() != proto::FxArg::kList)
    return absl::InvalidArgumentError("pad needs a list of ints");
  const proto::FxArg* mode = node.args_size() > 2 ? &node.args(2) : nullptr;
  if (mode == nullptr && node.kwargs().count("mode")) mode = &node.kwargs().at("mode");
  std::vector<int64_t> widths;
  for (const proto::FxArg& item : pad->list().items()) widths.push_back(item.i());
  return EmitTorchPad(ctx, *x, widths,
                      mode != nullptr && mode->value_case() == proto::FxArg::kS ? mode->s() : "constant",
                      NumberArg(node, 3, "value", 0.0));
}

/*! \brief nn.ReflectionPad2d, nn.ReplicationPad2d, nn.ZeroPad2d, nn.ConstantPad2d: `padding` is
 *  (left, right, top, bottom). */
FxConverter PadModule(const char* mode) {
  return [mode](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
    if (!x.ok()) return x.status();
    double value = 0;
    auto v = node.module_attrs().find("value");
    if (v != node.module_attrs().end() && v->second.value_case() == proto::FxArg::kF) value = v->second.f();
    return EmitTorchPad(ctx, *x, IntsOf(node, "padding", 4, {0, 0, 0, 0}), mode, value);
  };
}

}  // namespace

void RegisterNNFxConverters(FxConverterRegistry& r) {
  using K = FxConverterRegistry;
  r.Register(K::kModule, "Conv2d", ConvertConv<relax::Conv2DAttrs>);
  r.Register(K::kModule, "Conv3d", ConvertConv<relax::Conv3DAttrs>);
  r.Register(K::kModule, "ConvTranspose2d", ConvertConvTranspose<2>);
  r.Register(K::kModule, "ConvTranspose3d", ConvertConvTranspose<3>);
  r.Register(K::kModule, "BatchNorm2d", [](FxContext& c, const proto::FxNode& n) { return ConvertBatchNorm(c, n, 2); });
  r.Register(K::kModule, "BatchNorm3d", [](FxContext& c, const proto::FxNode& n) { return ConvertBatchNorm(c, n, 3); });
  r.Register(K::kModule, "MaxPool2d",
             [](FxContext& c, const proto::FxNode& n) { return ConvertPool<relax::Pool2DAttrs>(c, n, true); });
  r.Register(K::kModule, "AvgPool2d",
             [](FxContext& c, const proto::FxNode& n) { return ConvertPool<relax::Pool2DAttrs>(c, n, false); });
  r.Register(K::kModule, "MaxPool3d",
             [](FxContext& c, const proto::FxNode& n) { return ConvertPool<relax::Pool3DAttrs>(c, n, true); });
  r.Register(K::kModule, "AvgPool3d",
             [](FxContext& c, const proto::FxNode& n) { return ConvertPool<relax::Pool3DAttrs>(c, n, false); });
  r.Register(K::kFunction, "torch.nn.functional.max_pool2d", PoolFunction(/*is_max=*/true));
  r.Register(K::kFunction, "torch.max_pool2d", PoolFunction(/*is_max=*/true));
  r.Register(K::kFunction, "torch.nn.functional.avg_pool2d", PoolFunction(/*is_max=*/false));
  r.Register(K::kFunction, "torch.avg_pool2d", PoolFunction(/*is_max=*/false));
  r.Register(K::kModule, "AdaptiveAvgPool2d", ConvertGlobalPool);
  r.Register(K::kFunction, "torch.nn.functional.adaptive_avg_pool2d", ConvertGlobalPool);
  r.Register(K::kFunction, "torch.nn.functional.pad", ConvertPad);
  r.Register(K::kFunction, "torch.nn.functional.interpolate", Interpolate(""));
  r.Register(K::kModule, "ReflectionPad2d", PadModule("reflect"));
  r.Register(K::kModule, "ReplicationPad2d", PadModule("replicate"));
  r.Register(K::kModule, "ZeroPad2d", PadModule("constant"));
  r.Register(K::kModule, "ConstantPad2d", PadModule("constant"));
}

}  // namespace fx
}  // namespace mlc
