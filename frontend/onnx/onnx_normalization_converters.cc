/*! \file onnx_normalization_converters.cc
 *  \brief ONNX normalizations composed of reductions and elementwise operators:
 *         InstanceNormalization, LRN, LpNormalization, MeanVarianceNormalization, and the global
 *         pools over every spatial axis (GlobalAveragePool beyond 2-D, GlobalMaxPool).
 *
 *  None has a kernel of its own: the reductions and the elementwise tail fuse like any other
 *  composition, and constant statistics (scale, bias) fold at import.
 */
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief The axes 2 .. rank-1 (the spatial axes of NC...), or an error when there are none. */
absl::StatusOr<std::vector<int64_t>> SpatialAxes(const relax::Expr& x, const char* op) {
  const auto* t = TensorOf(x);
  if (t == nullptr || t->ndim < 3)
    return absl::InvalidArgumentError(absl::StrCat(op, " needs an input of rank 3 or more (N, C, ...)"));
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < t->ndim; ++d) axes.push_back(d);
  return axes;
}

/*! \brief y = (x - mean) / sqrt(var + epsilon) * scale + B over each (n, c)'s spatial elements. */
Outputs InstanceNormalization(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> axes = SpatialAxes(*x, "InstanceNormalization");
  if (!axes.ok()) return axes.status();
  Composer c(ctx, *x);
  const int spatial = static_cast<int>(axes->size());
  relax::Expr scale = c.Take(PerChannel(ctx, c.Take(ctx.Input(node, 1), *x), spatial), *x);
  relax::Expr bias = c.Take(PerChannel(ctx, c.Take(ctx.Input(node, 2), *x), spatial), *x);
  Attrs reduce = {{"axis", *axes}, {"keepdims", true}};
  relax::Expr centered = c.Sub(*x, c.Op("mean", {*x}, reduce));
  relax::Expr var = c.Op("mean", {c.Mul(centered, centered)}, reduce);
  relax::Expr inv_std = c.Div(c.K(1), c.Op("sqrt", {c.Add(var, c.K(ctx.FloatAttr(node, "epsilon", 1e-5f)))}));
  return c.Result(c.Add(c.Mul(centered, c.Mul(inv_std, scale)), bias));
}

/*! \brief Local response normalization across channels: x / (bias + alpha / size * s)^beta, s the
 *  sum of squares over the `size` channels around each (floor((size-1)/2) before, the rest after),
 *  as shifted slices of the zero-padded squares. */
Outputs LRN(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> xs = KnownShape(*x, "LRN's input");
  if (!xs.ok()) return xs.status();
  const int64_t size = ctx.IntAttr(node, "size", 0);
  if (size <= 0) return absl::InvalidArgumentError("size (a positive odd channel count) is required");
  if (xs->size() < 3 || (*xs)[1] < 0) return absl::InvalidArgumentError("LRN needs (N, C, ...) with a static C");
  const int64_t channels = (*xs)[1], before = (size - 1) / 2, after = size - 1 - before;
  Composer c(ctx, *x);
  relax::Expr squares = c.Mul(*x, *x);
  std::vector<int64_t> width(2 * xs->size(), 0);
  width[2] = before;
  width[3] = after;
  relax::Expr padded = c.Op("nn.pad", {squares}, {{"pad_width", width}});
  relax::Expr sum;
  for (int64_t i = 0; i < size; ++i) {
    relax::Expr window = c.Op("strided_slice", {padded},
                              {{"axes", std::vector<int64_t>{1}},
                               {"begin", std::vector<int64_t>{i}},
                               {"end", std::vector<int64_t>{i + channels}}});
    sum = sum.defined() ? c.Add(sum, window) : window;
  }
  const double alpha = ctx.FloatAttr(node, "alpha", 1e-4f), beta = ctx.FloatAttr(node, "beta", 0.75f);
  relax::Expr base = c.Add(c.K(ctx.FloatAttr(node, "bias", 1.0f)), c.Mul(c.K(alpha / size), sum));
  return c.Result(c.Div(*x, c.Op("power", {base, c.K(beta)})));
}

/*! \brief x divided by its L1 or L2 norm along `axis`. */
Outputs LpNormalization(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  const int64_t p = ctx.IntAttr(node, "p", 2);
  if (p != 1 && p != 2) return absl::InvalidArgumentError(absl::StrCat("p is ", p, "; ONNX allows 1 or 2"));
  Composer c(ctx, *x);
  Attrs reduce = {{"axis", std::vector<int64_t>{ctx.IntAttr(node, "axis", -1)}}, {"keepdims", true}};
  relax::Expr norm = p == 1 ? c.Op("sum", {c.Abs(*x)}, reduce) : c.Op("sqrt", {c.Op("sum", {c.Mul(*x, *x)}, reduce)});
  return c.Result(c.Div(*x, norm));
}

/*! \brief (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes` (default N, H, W), as the
 *  operator's reference computes it. */
Outputs MeanVarianceNormalization(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  std::vector<int64_t> axes = ctx.HasAttr(node, "axes") ? ctx.IntsAttr(node, "axes") : std::vector<int64_t>{0, 2, 3};
  Composer c(ctx, *x);
  Attrs reduce = {{"axis", axes}, {"keepdims", true}};
  relax::Expr mean = c.Op("mean", {*x}, reduce);
  relax::Expr mean_of_squares = c.Op("mean", {c.Mul(*x, *x)}, reduce);
  relax::Expr std_dev = c.Op("sqrt", {c.Sub(mean_of_squares, c.Mul(mean, mean))});
  return c.Result(c.Div(c.Sub(*x, mean), c.Add(std_dev, c.K(1e-9))));
}

/*! \brief The mean or max over every spatial axis, kept as 1s (NCHW average pooling uses the
 *  operator library's adaptive pool, which the schedules know). */
OnnxConverter GlobalPool(bool is_max) {
  return [is_max](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    absl::StatusOr<std::vector<int64_t>> axes = SpatialAxes(*x, node.op_type().c_str());
    if (!axes.ok()) return axes.status();
    if (!is_max && axes->size() == 2) return One(ctx.EmitOp("nn.adaptive_avg_pool2d", {*x}));
    return One(ctx.EmitOp(is_max ? "max" : "mean", {*x}, {{"axis", *axes}, {"keepdims", true}}));
  };
}

}  // namespace

void RegisterNormalizationOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("InstanceNormalization", InstanceNormalization);
  r.Register("LRN", LRN);
  r.Register("LpNormalization", LpNormalization);
  r.Register("MeanVarianceNormalization", MeanVarianceNormalization);
  r.Register("GlobalAveragePool", GlobalPool(/*is_max=*/false));
  r.Register("GlobalMaxPool", GlobalPool(/*is_max=*/true));
}

}  // namespace onnx_import
}  // namespace mlc
