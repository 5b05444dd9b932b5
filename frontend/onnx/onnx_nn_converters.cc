/*! \file onnx_nn_converters.cc
 *  \brief Converters of ONNX's convolutional-network operators: Conv, BatchNormalization
 *         (inference), MaxPool, AveragePool and ConvTranspose (1-D, 2-D and 3-D) and Pad.
 *
 *  Batch normalization is emitted as its arithmetic on the statistics; with constant
 *  statistics fold-constant reduces it to one per-channel multiply and add.
 */
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "frontend/common/conv_transpose.h"
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief Window geometry shared by Conv, ConvTranspose and the pools, with auto_pad resolved to
 *  explicit pads. A 1-D window (NCW) is read as a 2-D one over a unit height (`one_d`); 2-D and
 *  3-D windows map to the operator library's nn.*2d and nn.*3d. */
struct Window {
  std::vector<int64_t> kernel, strides, padding, dilation;  // padding: the starts, then the ends
  bool one_d = false;
  /*! \brief The spatial axes of the operator the window maps to (2 or 3). */
  size_t dims() const { return kernel.size(); }
  /*! \brief The operator library's name for `base` over this window ("nn.conv" -> "nn.conv3d"). */
  std::string Op(const std::string& base) const { return absl::StrCat(base, dims(), "d"); }
};

/*! \brief The window of `node` over an input of `x_shape`. `kernel` is the weight's when the node
 *  has no kernel_shape. SAME padding makes the output ceil(input / stride), the odd unit at the
 *  end for SAME_UPPER; `transposed` (ConvTranspose) leaves auto_pad to the caller. */
absl::StatusOr<Window> ReadWindow(const OnnxContext& ctx, const onnx::NodeProto& node,
                                  const std::vector<int64_t>& x_shape, std::vector<int64_t> kernel,
                                  bool transposed = false) {
  if (x_shape.size() < 3 || x_shape.size() > 5) {
    return absl::UnimplementedError(absl::StrCat(
        "only 1-D (NCW), 2-D (NCHW) and 3-D (NCDHW) windows are supported, input has rank ", x_shape.size()));
  }
  const size_t n = x_shape.size() - 2;
  if (ctx.HasAttr(node, "kernel_shape")) kernel = ctx.IntsAttr(node, "kernel_shape");
  if (kernel.size() != n) return absl::InvalidArgumentError(absl::StrCat("kernel_shape needs ", n, " values"));
  Window w;
  w.kernel = kernel;
  w.strides = ctx.HasAttr(node, "strides") ? ctx.IntsAttr(node, "strides") : std::vector<int64_t>(n, 1);
  w.dilation = ctx.HasAttr(node, "dilations") ? ctx.IntsAttr(node, "dilations") : std::vector<int64_t>(n, 1);
  w.padding = ctx.HasAttr(node, "pads") ? ctx.IntsAttr(node, "pads") : std::vector<int64_t>(2 * n, 0);
  if (w.strides.size() != n || w.dilation.size() != n || w.padding.size() != 2 * n) {
    return absl::InvalidArgumentError(absl::StrCat("strides and dilations need ", n, " values, pads ", 2 * n));
  }
  std::string auto_pad = ctx.StringAttr(node, "auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    w.padding.assign(2 * n, 0);
  } else if ((auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") && !transposed) {
    for (size_t d = 0; d < n; ++d) {
      int64_t in = x_shape[2 + d];
      if (in < 0) return absl::UnimplementedError("auto_pad SAME needs a static image size");
      int64_t extent = (w.kernel[d] - 1) * w.dilation[d] + 1;
      int64_t total = std::max<int64_t>(0, (((in + w.strides[d] - 1) / w.strides[d]) - 1) * w.strides[d] + extent - in);
      int64_t small = total / 2, large = total - small;
      w.padding[d] = auto_pad == "SAME_UPPER" ? small : large;
      w.padding[d + n] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return absl::InvalidArgumentError(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
  }
  if (n == 1) {
    w = Window{{1, w.kernel[0]}, {1, w.strides[0]}, {0, w.padding[0], 0, w.padding[1]}, {1, w.dilation[0]}, true};
  }
  return w;
}

/*! \brief x with a unit dimension inserted at `axis` (a 1-D window's height), or removed. */
absl::StatusOr<relax::Expr> WithUnitAxis(OnnxContext& ctx, const relax::Expr& x, size_t axis, bool insert) {
  std::vector<tir::PrimExpr> dims = TensorOf(x)->Dims();
  if (insert) {
    dims.insert(dims.begin() + static_cast<int64_t>(axis), tir::I64(1));
  } else {
    dims.erase(dims.begin() + static_cast<int64_t>(axis));
  }
  return Reshaped(ctx, x, dims);
}

/*! \brief Emits a window operator on x, lifting a 1-D (NCW) x to NCHW and back. */
template <typename Emit>
absl::StatusOr<relax::Expr> OnWindow(OnnxContext& ctx, const Window& win, const relax::Expr& x, Emit emit) {
  if (!win.one_d) return emit(x);
  absl::StatusOr<relax::Expr> x2 = WithUnitAxis(ctx, x, 2, /*insert=*/true);
  if (!x2.ok()) return x2.status();
  absl::StatusOr<relax::Expr> y = emit(*x2);
  if (!y.ok()) return y.status();
  return WithUnitAxis(ctx, *y, 2, /*insert=*/false);
}

}  // namespace

absl::StatusOr<relax::Expr> EmitConv(OnnxContext& ctx, const onnx::NodeProto& node, const relax::Expr& x,
                                     const relax::Expr& w) {
  absl::StatusOr<std::vector<int64_t>> xs = KnownShape(x, "the convolution's input"),
                                       ws = StaticShape(w, "the convolution's weight");
  if (!xs.ok()) return xs.status();
  if (!ws.ok()) return ws.status();
  if (ws->size() != xs->size()) {
    return absl::InvalidArgumentError(absl::StrCat("the weight has rank ", ws->size(), ", the input ", xs->size()));
  }
  absl::StatusOr<Window> win = ReadWindow(ctx, node, *xs, std::vector<int64_t>(ws->begin() + 2, ws->end()));
  if (!win.ok()) return win.status();
  if (!std::equal(ws->begin() + 2, ws->end(), win->kernel.end() - static_cast<int64_t>(ws->size() - 2))) {
    return absl::InvalidArgumentError("kernel_shape disagrees with the weight's shape");
  }
  absl::StatusOr<relax::Expr> w2 = win->one_d ? WithUnitAxis(ctx, w, 2, /*insert=*/true) : w;
  if (!w2.ok()) return w2.status();
  return OnWindow(ctx, *win, x, [&](const relax::Expr& x2) {
    return ctx.EmitOp(win->Op("nn.conv"), {x2, *w2},
                      {{"strides", win->strides},
                       {"padding", win->padding},
                       {"dilation", win->dilation},
                       {"groups", ctx.IntAttr(node, "group", 1)}});
  });
}

absl::StatusOr<relax::Expr> PerChannel(OnnxContext& ctx, const relax::Expr& v, int spatial_dims) {
  absl::StatusOr<std::vector<int64_t>> shape = StaticShape(v, "a per-channel vector");
  if (!shape.ok()) return shape.status();
  if (shape->size() != 1)
    return absl::InvalidArgumentError(absl::StrCat("expected a vector, got rank ", shape->size()));
  std::vector<int64_t> target(1 + spatial_dims, 1);
  target[0] = (*shape)[0];
  return ctx.EmitOp("reshape", {v}, {{"shape", target}});
}

namespace {

Outputs Conv(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> w = ctx.Input(node, 1);
  if (!w.ok()) return w.status();
  absl::StatusOr<relax::Expr> y = EmitConv(ctx, node, *x, *w);
  if (!y.ok() || !ctx.HasInput(node, 2)) return One(y);
  absl::StatusOr<relax::Expr> b = ctx.Input(node, 2);
  if (!b.ok()) return b.status();
  absl::StatusOr<relax::Expr> bias = PerChannel(ctx, *b, TensorOf(*y)->ndim - 2);
  if (!bias.ok()) return bias.status();
  return One(ctx.EmitOp("add", {*y, *bias}));
}

/*! \brief ConvTranspose (frontend/common/conv_transpose.h), after auto_pad and output_shape
 *  are resolved to pads; 1-D is lifted to 2-D as for Conv. */
Outputs ConvTranspose(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> w = ctx.Input(node, 1);
  if (!w.ok()) return w.status();
  absl::StatusOr<std::vector<int64_t>> xs = KnownShape(*x, "ConvTranspose's input");
  if (!xs.ok()) return xs.status();
  absl::StatusOr<std::vector<int64_t>> ws = StaticShape(*w, "ConvTranspose's weight");
  if (!ws.ok()) return ws.status();
  if (ws->size() != xs->size())
    return absl::InvalidArgumentError(absl::StrCat("the weight has rank ", ws->size(), ", the input ", xs->size()));
  absl::StatusOr<Window> win =
      ReadWindow(ctx, node, *xs, std::vector<int64_t>(ws->begin() + 2, ws->end()), /*transposed=*/true);
  if (!win.ok()) return win.status();
  const size_t n = xs->size() - 2;  // ONNX's spatial axes; win->dims() after lifting 1-D
  const size_t dims = win->dims();
  // A per-axis attribute, with `unit` for the unit height of a 1-D window.
  auto lifted = [&](const char* name, int64_t unit) -> absl::StatusOr<std::vector<int64_t>> {
    std::vector<int64_t> v = ctx.HasAttr(node, name) ? ctx.IntsAttr(node, name) : std::vector<int64_t>(n, 0);
    if (v.size() != n) return absl::InvalidArgumentError(absl::StrCat(name, " needs ", n, " values"));
    if (n == 1) v.insert(v.begin(), unit);
    return v;
  };
  absl::StatusOr<std::vector<int64_t>> output_padding = lifted("output_padding", 0),
                                       output_shape = lifted("output_shape", 1);
  if (!output_padding.ok()) return output_padding.status();
  if (!output_shape.ok()) return output_shape.status();
  std::vector<int64_t> in(xs->begin() + 2, xs->end());
  if (n == 1) in.insert(in.begin(), 1);
  if (std::any_of(in.begin(), in.end(), [](int64_t e) { return e < 0; })) {
    return absl::UnimplementedError("ConvTranspose needs a static image size");
  }
  frontend::ConvTransposeParams p{win->strides, win->dilation, win->padding, *output_padding,
                                  ctx.IntAttr(node, "group", 1)};
  const std::string auto_pad = ctx.StringAttr(node, "auto_pad", "NOTSET");
  if (ctx.HasAttr(node, "output_shape") || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // The pads that give the requested output: halves rounded down (a larger output_shape than
    // the natural one adds at the end).
    for (size_t d = 0; d < dims; ++d) {
      const int64_t s = win->strides[d], span = (win->kernel[d] - 1) * win->dilation[d];
      const int64_t target = ctx.HasAttr(node, "output_shape") ? (*output_shape)[d] : in[d] * s;
      const int64_t total = s * (in[d] - 1) + (*output_padding)[d] + span + 1 - target;
      const int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      p.padding[d] = auto_pad == "SAME_UPPER" ? half : total - half;
      p.padding[d + dims] = total - p.padding[d];
    }
  }
  Composer c(ctx, *x);
  relax::Expr kernel = *w, y = *x;
  if (win->one_d) {
    kernel = c.Take(WithUnitAxis(ctx, kernel, 2, /*insert=*/true), kernel);
    y = c.Take(WithUnitAxis(ctx, y, 2, /*insert=*/true), y);
  }
  if (!c.status().ok()) return c.status();
  y = c.Take(frontend::ConvTranspose(frontend::EmitterOf(ctx), y, kernel, p), y);
  if (win->one_d) y = c.Take(WithUnitAxis(ctx, y, 2, /*insert=*/false), y);
  if (ctx.HasInput(node, 2)) {
    relax::Expr b = c.Take(ctx.Input(node, 2), y);
    if (c.status().ok()) y = c.Add(y, c.Take(PerChannel(ctx, b, static_cast<int>(n)), y));
  }
  return c.Result(y);
}

/*! \brief y = (x - mean) * scale / sqrt(var + eps) + bias, as scale' = scale / sqrt(var + eps) and
 *  shift' = bias - mean * scale', each a (C, 1, 1) vector. With training_mode=1, mean and var are
 *  the batch's (population variance), and the running statistics updated with momentum are the
 *  second and third outputs. */
Outputs BatchNormalization(OnnxContext& ctx, const onnx::NodeProto& node) {
  const bool training = ctx.IntAttr(node, "training_mode", 0) != 0;
  if (node.output_size() > 1 && !training) return absl::UnimplementedError("outputs beyond Y need training_mode=1");
  std::vector<relax::Expr> in;
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<relax::Expr> v = ctx.Input(node, i);
    if (!v.ok()) return v.status();
    in.push_back(*v);
  }
  const auto* t = TensorOf(in[0]);
  if (t == nullptr || t->ndim < 2)
    return absl::InvalidArgumentError("batch normalization needs an input of known rank, at least 2 (N, C, ...)");
  const int spatial = static_cast<int>(t->ndim) - 2;
  DataType dtype = t->dtype;
  std::vector<relax::Expr> running;  // training: the updated running mean and variance
  if (training) {
    // The batch's statistics over every axis but the channels normalize; the running ones
    // move toward them by 1 - momentum.
    Composer c(ctx, in[0]);
    std::vector<int64_t> axes = {0};
    for (int d = 0; d < spatial; ++d) axes.push_back(2 + d);
    auto mean = [&](relax::Expr v) { return c.Op("mean", {v}, {{"axis", axes}, {"keepdims", false}}); };
    relax::Expr batch_mean = mean(in[0]);
    relax::Expr centered = c.Sub(in[0], c.Take(PerChannel(ctx, batch_mean, spatial), batch_mean));
    relax::Expr batch_var = mean(c.Mul(centered, centered));
    const double momentum = ctx.FloatAttr(node, "momentum", 0.9f);
    running = {c.Add(c.Mul(in[3], c.K(momentum)), c.Mul(batch_mean, c.K(1 - momentum))),
               c.Add(c.Mul(in[4], c.K(momentum)), c.Mul(batch_var, c.K(1 - momentum)))};
    in[3] = batch_mean;
    in[4] = batch_var;
    if (!c.status().ok()) return c.status();
  }
  auto emit = [&](const std::string& op, std::vector<relax::Expr> args) { return ctx.EmitOp(op, std::move(args)); };
  absl::StatusOr<relax::Expr> denom = emit("add", {in[4], Scalar(ctx.FloatAttr(node, "epsilon", 1e-5f), dtype)});
  if (denom.ok()) denom = emit("sqrt", {*denom});
  absl::StatusOr<relax::Expr> scale = denom.ok() ? emit("divide", {in[1], *denom}) : denom;
  absl::StatusOr<relax::Expr> shift = scale.ok() ? emit("multiply", {in[3], *scale}) : scale;
  if (shift.ok()) shift = emit("subtract", {in[2], *shift});
  if (shift.ok()) scale = PerChannel(ctx, *scale, spatial);
  if (scale.ok()) shift = PerChannel(ctx, *shift, spatial);
  if (!shift.ok()) return shift.status();
  absl::StatusOr<relax::Expr> y = emit("multiply", {in[0], *scale});
  if (y.ok()) y = emit("add", {*y, *shift});
  if (!y.ok()) return y.status();
  std::vector<relax::Expr> outs = {*y};
  outs.insert(outs.end(), running.begin(), running.end());
  return outs;
}

/*! \brief MaxPool's Indices output over NCHW x (static) for the pooled result's (OH, OW): per
 *  window the flattened index into x ((n * C + c) * H * W + h * W + w, or w * H + h with
 *  storage_order 1) of its first largest element. Each tap of the window is a strided slice of x
 *  padded with -inf, compared in order; the indices are constants per tap plus per-(n, c) bases. */
absl::StatusOr<relax::Expr> MaxPoolIndices(OnnxContext& ctx, const onnx::NodeProto& node, const relax::Expr& x,
                                           const std::vector<int64_t>& xs, const Window& win,
                                           const std::vector<int64_t>& ys) {
  if (win.dims() != 2 || xs.size() != 4 || ys.size() != 4)
    return absl::UnimplementedError("the Indices output of a 1-D or 3-D MaxPool is not supported");
  const int64_t n = xs[0], channels = xs[1], h = xs[2], w = xs[3], oh = ys[2], ow = ys[3];
  const bool column_major = ctx.IntAttr(node, "storage_order", 0) != 0;
  // Pad so that every tap's slice lies inside: the far side may need more than the padding
  // (ceil_mode's last windows).
  std::vector<int64_t> pads(8, 0);
  for (int d = 0; d < 2; ++d) {
    const int64_t in = d == 0 ? h : w, out = d == 0 ? oh : ow;
    pads[4 + 2 * d] = win.padding[d];
    pads[5 + 2 * d] = relax::TrailingPaddingFor(out, in, win.padding[d], win.padding[2 + d], win.kernel[d],
                                                win.dilation[d], win.strides[d]);
  }
  Composer c(ctx, x);
  relax::Expr padded =
      c.Op("nn.pad", {x}, {{"pad_width", pads}, {"pad_value", -std::numeric_limits<double>::infinity()}});
  std::vector<double> base(n * channels);
  for (int64_t i = 0; i < n * channels; ++i) base[i] = static_cast<double>(i * h * w);
  const relax::Expr bases = relax::MakeConstant(TensorFromDoubles(DataType::Int64(), {n, channels, 1, 1}, base));
  relax::Expr best, best_index;
  for (int64_t i = 0; i < win.kernel[0]; ++i) {
    for (int64_t j = 0; j < win.kernel[1]; ++j) {
      const int64_t top = i * win.dilation[0], left = j * win.dilation[1];
      relax::Expr v = c.Op(
          "strided_slice", {padded},
          {{"axes", std::vector<int64_t>{2, 3}},
           {"begin", std::vector<int64_t>{top, left}},
           {"end", std::vector<int64_t>{top + (oh - 1) * win.strides[0] + 1, left + (ow - 1) * win.strides[1] + 1}},
           {"strides", std::vector<int64_t>{win.strides[0], win.strides[1]}}});
      std::vector<double> at(oh * ow);
      for (int64_t r = 0; r < oh; ++r) {
        for (int64_t q = 0; q < ow; ++q) {
          const int64_t row = r * win.strides[0] - win.padding[0] + top,
                        col = q * win.strides[1] - win.padding[1] + left;
          at[r * ow + q] = static_cast<double>(column_major ? col * h + row : row * w + col);
        }
      }
      relax::Expr index = c.Add(bases, relax::MakeConstant(TensorFromDoubles(DataType::Int64(), {1, 1, oh, ow}, at)));
      if (!best.defined()) {
        best = v;
        best_index = c.Op("broadcast_to", {index}, {{"shape", std::vector<int64_t>{n, channels, oh, ow}}});
        continue;
      }
      relax::Expr larger = c.Op("greater", {v, best});  // strictly: the first largest stays
      best = c.Op("where", {larger, v, best});
      best_index = c.Op("where", {larger, index, best_index});
    }
  }
  if (!c.status().ok()) return c.status();
  return best_index;
}

OnnxConverter Pool(bool is_max) {
  return [is_max](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    const bool indices = is_max && node.output_size() > 1 && !node.output(1).empty();
    absl::StatusOr<std::vector<int64_t>> xs = KnownShape(*x, "the pooled input");
    if (!xs.ok()) return xs.status();
    if (!ctx.HasAttr(node, "kernel_shape")) return absl::InvalidArgumentError("kernel_shape is required");
    absl::StatusOr<Window> win = ReadWindow(ctx, node, *xs, {});
    if (!win.ok()) return win.status();
    if (is_max && !indices && ctx.IntAttr(node, "storage_order", 0) != 0)
      return absl::UnimplementedError("storage_order=1 without Indices is not supported");
    Attrs attrs = {{"pool_size", win->kernel},
                   {"strides", win->strides},
                   {"padding", win->padding},
                   {"dilation", win->dilation},
                   {"ceil_mode", ctx.IntAttr(node, "ceil_mode", 0) != 0}};
    if (!is_max) attrs["count_include_pad"] = ctx.IntAttr(node, "count_include_pad", 0) != 0;
    absl::StatusOr<relax::Expr> y = OnWindow(ctx, *win, *x, [&](const relax::Expr& x2) {
      return ctx.EmitOp(win->Op(is_max ? "nn.max_pool" : "nn.avg_pool"), {x2}, attrs);
    });
    if (!y.ok() || !indices) return One(y);
    absl::StatusOr<std::vector<int64_t>> ys = StaticShape(*y, "MaxPool's result (for its Indices)");
    if (!ys.ok()) return ys.status();
    absl::StatusOr<std::vector<int64_t>> static_x = StaticShape(*x, "MaxPool's input (for its Indices)");
    if (!static_x.ok()) return static_x.status();
    absl::StatusOr<relax::Expr> where = MaxPoolIndices(ctx, node, *x, *static_x, *win, *ys);
    if (!where.ok()) return where.status();
    return std::vector<relax::Expr>{*y, *where};
  };
}

/*! \brief Pad in constant, edge or reflect mode; pads (input 1, or the attribute before opset 11) must be constant. */
Outputs Pad(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> xs = KnownShape(*x, "Pad's input");
  if (!xs.ok()) return xs.status();
  std::string mode = ctx.StringAttr(node, "mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", mode, "' (constant, edge or reflect)"));
  }
  std::vector<int64_t> pads = ctx.IntsAttr(node, "pads");
  if (ctx.HasInput(node, 1)) {
    absl::StatusOr<std::vector<int64_t>> from_input = ctx.ConstantInts(node, 1, "pads");
    if (!from_input.ok()) return from_input.status();
    pads = *from_input;
  }
  if (ctx.HasInput(node, 3)) return absl::UnimplementedError("the axes input is not supported");
  size_t rank = xs->size();
  if (pads.size() != 2 * rank)
    return absl::InvalidArgumentError(absl::StrCat("pads needs ", 2 * rank, " values, got ", pads.size()));
  double value = ctx.FloatAttr(node, "value", 0.0f);
  if (ctx.HasInput(node, 2)) {
    const TensorData* t = ctx.ConstantInput(node, 2);
    if (t == nullptr || t->NumElements() != 1)
      return absl::UnimplementedError("constant_value must be a constant scalar");
    if (t->dtype() == DataType::Float32())
      value = t->data_as<float>()[0];
    else if (t->dtype() == DataType::Float(64))
      value = t->data_as<double>()[0];
    else if (t->dtype() == DataType::Int64())
      value = static_cast<double>(t->data_as<int64_t>()[0]);
    else
      return absl::UnimplementedError("constant_value must be float32, float64 or int64");
  }
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) return std::vector<relax::Expr>{*x};
  // ONNX lists all the begins then all the ends; pad_width interleaves them per dimension.
  std::vector<int64_t> width;
  for (size_t d = 0; d < rank; ++d) {
    width.push_back(pads[d]);
    width.push_back(pads[d + rank]);
  }
  return One(ctx.EmitOp("nn.pad", {*x}, {{"pad_width", width}, {"pad_value", value}, {"pad_mode", mode}}));
}

/*! \brief Softmax along `axis` (opset 13 semantics; before 13 only the last axis, where both agree). */
/*! \brief x - max(x) = s, then exp(s) / sum(exp(s)) or (`log`) s - log(sum(exp(s))), over `axes`. */
absl::StatusOr<relax::Expr> NormalizedExp(OnnxContext& ctx, const relax::Expr& x, const std::vector<int64_t>& axes,
                                          bool log) {
  Attrs reduce = {{"axis", axes}, {"keepdims", true}};
  absl::StatusOr<relax::Expr> m = ctx.EmitOp("max", {x}, reduce);
  if (!m.ok()) return m.status();
  absl::StatusOr<relax::Expr> s = ctx.EmitOp("subtract", {x, *m});
  if (!s.ok()) return s.status();
  absl::StatusOr<relax::Expr> e = ctx.EmitOp("exp", {*s});
  if (!e.ok()) return e.status();
  absl::StatusOr<relax::Expr> total = ctx.EmitOp("sum", {*e}, reduce);
  if (!total.ok()) return total.status();
  if (!log) return ctx.EmitOp("divide", {*e, *total});
  absl::StatusOr<relax::Expr> l = ctx.EmitOp("log", {*total});
  if (!l.ok()) return l.status();
  return ctx.EmitOp("subtract", {*s, *l});
}

/*! \brief Softmax and LogSoftmax. From opset 13 they normalize along `axis`; before, over every
 *  dimension from `axis` on (the input seen as 2-D), which reductions over those axes compute:
 *  s = x - max(x), then s - log(sum(exp(s))) or exp(s) / sum(exp(s)). */
OnnxConverter Softmax(bool log) {
  return [log](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    const relax::TensorStructInfoNode* t = TensorOf(*x);
    if (t == nullptr || t->ndim < 0) return absl::InvalidArgumentError("the input needs a known rank");
    int64_t rank = t->ndim;
    int64_t axis = ctx.IntAttr(node, "axis", ctx.opset() >= 13 ? -1 : 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("axis out of range for rank ", rank));
    if (!log && (ctx.opset() >= 13 || axis == rank - 1)) return One(ctx.EmitOp("nn.softmax", {*x}, {{"axis", axis}}));
    std::vector<int64_t> axes;
    const int64_t end = ctx.opset() >= 13 ? axis + 1 : rank;
    for (int64_t d = axis; d < end; ++d) axes.push_back(d);
    return One(NormalizedExp(ctx, *x, axes, log));
  };
}

/*! \brief The negative log-likelihood of `log_prob` (N, C, d...) at `target` (N, d...), weighted
 *  by weight[target] (input `weight_input`, optional), 0 where target == ignore_index, reduced as
 *  `reduction` says (none, sum, or mean: the sum over the weights' sum). Composed from
 *  take_along_axis, take, where and reductions. */
absl::StatusOr<relax::Expr> NegativeLogLikelihood(OnnxContext& ctx, const onnx::NodeProto& node,
                                                  const relax::Expr& log_prob, int weight_input) {
  absl::StatusOr<relax::Expr> target = ctx.Input(node, 1);
  if (!target.ok()) return target.status();
  absl::StatusOr<std::vector<int64_t>> ps = StaticShape(log_prob, "the scores");
  if (!ps.ok()) return ps.status();
  absl::StatusOr<std::vector<int64_t>> ts = StaticShape(*target, "the target");
  if (!ts.ok()) return ts.status();
  if (ps->size() < 2 || ts->size() + 1 != ps->size())
    return absl::InvalidArgumentError("the target must be the scores' shape without C");
  const DataType dtype = TensorOf(log_prob)->dtype, tdtype = TensorOf(*target)->dtype;
  const std::string reduction = ctx.StringAttr(node, "reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    return absl::InvalidArgumentError(absl::StrCat("reduction '", reduction, "' (expected none, sum or mean)"));
  }
  const bool ignoring = ctx.HasAttr(node, "ignore_index");
  relax::Expr t = *target, valid;
  if (ignoring) {
    absl::StatusOr<relax::Expr> keep =
        ctx.EmitOp("not_equal", {t, Scalar(static_cast<double>(ctx.IntAttr(node, "ignore_index", 0)), tdtype)});
    if (!keep.ok()) return keep.status();
    valid = *keep;
    absl::StatusOr<relax::Expr> safe = ctx.EmitOp("where", {valid, t, Scalar(0, tdtype)});
    if (!safe.ok()) return safe.status();
    t = *safe;
  }
  // log_prob[n, t[n, d...], d...]: the target with C's axis as 1, gathered along it.
  std::vector<int64_t> with_c = *ts;
  with_c.insert(with_c.begin() + 1, 1);
  absl::StatusOr<relax::Expr> t1 = ctx.EmitOp("reshape", {t}, {{"shape", with_c}});
  if (!t1.ok()) return t1.status();
  absl::StatusOr<relax::Expr> picked = ctx.EmitOp("take_along_axis", {log_prob, *t1}, {{"axis", int64_t{1}}});
  if (!picked.ok()) return picked.status();
  absl::StatusOr<relax::Expr> p = ctx.EmitOp("reshape", {*picked}, {{"shape", *ts}});
  if (!p.ok()) return p.status();
  // The weight of each element: weight[t], 0 where ignored; none at all without either.
  std::optional<relax::Expr> w;
  if (ctx.HasInput(node, weight_input)) {
    absl::StatusOr<relax::Expr> weight = ctx.Input(node, weight_input);
    if (!weight.ok()) return weight.status();
    absl::StatusOr<relax::Expr> wt = ctx.EmitOp("take", {*weight, t}, {{"axis", int64_t{0}}});
    if (!wt.ok()) return wt.status();
    w = *wt;
  }
  if (ignoring) {
    absl::StatusOr<relax::Expr> wv = ctx.EmitOp("where", {valid, w ? *w : Scalar(1, dtype), Scalar(0, dtype)});
    if (!wv.ok()) return wv.status();
    w = *wv;
  }
  absl::StatusOr<relax::Expr> loss = ctx.EmitOp("negative", {*p});
  if (!loss.ok()) return loss.status();
  if (w) {
    loss = ctx.EmitOp("multiply", {*loss, *w});
    if (!loss.ok()) return loss.status();
  }
  if (reduction == "none") return loss;
  if (reduction == "sum") return ctx.EmitOp("sum", {*loss});
  if (!w) return ctx.EmitOp("mean", {*loss});
  absl::StatusOr<relax::Expr> total = ctx.EmitOp("sum", {*loss});
  if (!total.ok()) return total.status();
  absl::StatusOr<relax::Expr> weights = ctx.EmitOp("sum", {*w});
  if (!weights.ok()) return weights.status();
  return ctx.EmitOp("divide", {*total, *weights});
}

Outputs NegativeLogLikelihoodLoss(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  return One(NegativeLogLikelihood(ctx, node, *x, 2));
}

/*! \brief SoftmaxCrossEntropyLoss: the NLL of log_softmax over C (axis 1); the second output,
 *  when asked for, is that log_softmax. */
Outputs SoftmaxCrossEntropyLoss(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> log_prob = NormalizedExp(ctx, *x, {1}, /*log=*/true);
  if (!log_prob.ok()) return log_prob.status();
  absl::StatusOr<relax::Expr> loss = NegativeLogLikelihood(ctx, node, *log_prob, 2);
  if (!loss.ok()) return loss.status();
  std::vector<relax::Expr> outs = {*loss};
  if (node.output_size() > 1 && !node.output(1).empty()) outs.push_back(*log_prob);
  return outs;
}

/*! \brief LayerNormalization (opset 17) over the dimensions from `axis` on. Y is one
 *  nn.layer_norm; the optional Mean and InvStdDev outputs (shape: x's with the normalized
 *  dimensions as 1) are computed with reductions when asked for. */
Outputs LayerNormalization(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> scale = ctx.Input(node, 1);
  if (!scale.ok()) return scale.status();
  absl::StatusOr<std::vector<int64_t>> xs = KnownShape(*x, "LayerNormalization's input");
  if (!xs.ok()) return xs.status();
  int64_t rank = static_cast<int64_t>(xs->size()), axis = ctx.IntAttr(node, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError("axis out of range");
  std::vector<int64_t> normalized(xs->begin() + axis, xs->end());
  float epsilon = ctx.FloatAttr(node, "epsilon", 1e-5f);
  DataType dtype = TensorOf(*x)->dtype;
  // Scale and B broadcast to the normalized dimensions.
  auto to_normalized = [&](relax::Expr v) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<std::vector<int64_t>> vs = StaticShape(v, "Scale and B");
    if (!vs.ok()) return vs.status();
    if (*vs == normalized) return v;
    return ctx.EmitOp("broadcast_to", {v}, {{"shape", normalized}});
  };
  absl::StatusOr<relax::Expr> gamma = to_normalized(*scale);
  if (!gamma.ok()) return gamma.status();
  absl::StatusOr<relax::Expr> beta;
  if (ctx.HasInput(node, 2)) {
    beta = ctx.Input(node, 2);
    if (beta.ok()) beta = to_normalized(*beta);
  } else {
    beta = relax::MakeConstant(TensorData(dtype, normalized));  // zero-filled
  }
  if (!beta.ok()) return beta.status();
  absl::StatusOr<relax::Expr> y = ctx.EmitOp("nn.layer_norm", {*x, *gamma, *beta}, {{"epsilon", double(epsilon)}});
  if (!y.ok()) return y.status();
  std::vector<relax::Expr> outs = {*y};
  bool stats =
      (node.output_size() > 1 && !node.output(1).empty()) || (node.output_size() > 2 && !node.output(2).empty());
  if (stats) {
    std::vector<int64_t> axes;
    for (int64_t d = axis; d < rank; ++d) axes.push_back(d);
    Attrs reduce = {{"axis", axes}, {"keepdims", true}};
    absl::StatusOr<relax::Expr> mean = ctx.EmitOp("mean", {*x}, reduce);
    absl::StatusOr<relax::Expr> dev = mean.ok() ? ctx.EmitOp("subtract", {*x, *mean}) : mean;
    absl::StatusOr<relax::Expr> var = dev.ok() ? ctx.EmitOp("multiply", {*dev, *dev}) : dev;
    if (var.ok()) var = ctx.EmitOp("mean", {*var}, reduce);
    if (var.ok()) var = ctx.EmitOp("add", {*var, Scalar(epsilon, dtype)});
    if (var.ok()) var = ctx.EmitOp("sqrt", {*var});
    absl::StatusOr<relax::Expr> inv = var.ok() ? ctx.EmitOp("divide", {Scalar(1.0, dtype), *var}) : var;
    if (!inv.ok()) return inv.status();
    outs.push_back(*mean);
    outs.push_back(*inv);
  }
  return outs;
}

}  // namespace

void RegisterNNOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("Conv", Conv);
  r.Register("ConvTranspose", ConvTranspose);
  r.Register("BatchNormalization", BatchNormalization);
  r.Register("MaxPool", Pool(/*is_max=*/true));
  r.Register("AveragePool", Pool(/*is_max=*/false));
  r.Register("Pad", Pad);
  r.Register("Softmax", Softmax(/*log=*/false));
  r.Register("LogSoftmax", Softmax(/*log=*/true));
  r.Register("NegativeLogLikelihoodLoss", NegativeLogLikelihoodLoss);
  r.Register("SoftmaxCrossEntropyLoss", SoftmaxCrossEntropyLoss);
  r.Register("LayerNormalization", LayerNormalization);
}

}  // namespace onnx_import
}  // namespace mlc
