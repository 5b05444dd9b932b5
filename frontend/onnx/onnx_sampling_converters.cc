/*! \file onnx_sampling_converters.cc
 *  \brief Operators that read an image at computed points, composed of elementwise operators
 *         on the points' coordinates and one take_along_axis per tap of the image flattened to
 *         (N, C, H * W): GridSample (opset 16; torch.nn.functional.grid_sample: every mode,
 *         padding mode and align_corners) and RoiAlign (opsets 10 and 16).
 */
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief Coordinates along one axis of `size` pixels, as grid_sample computes them. */
class AxisSampler {
 public:
  AxisSampler(Composer& c, int64_t size, bool align_corners, const std::string& padding)
      : c_(c), size_(size), align_corners_(align_corners), padding_(padding) {}

  /*! \brief The grid's normalized coordinate g in [-1, 1] as a pixel coordinate. */
  relax::Expr Unnormalize(const relax::Expr& g) {
    const double n = static_cast<double>(size_);
    if (align_corners_) return c_.Mul(c_.Add(g, c_.K(1)), c_.K((n - 1) / 2));
    return c_.Div(c_.Sub(c_.Mul(c_.Add(g, c_.K(1)), c_.K(n)), c_.K(1)), c_.K(2));
  }

  /*! \brief The padding mode applied to a coordinate: border clamps it into the image,
   *  reflection mirrors it at the edges (at the outer pixel edges without align_corners) and
   *  then clamps; zeros leaves it (its taps outside read 0). */
  relax::Expr Pad(relax::Expr x) {
    if (padding_ == "zeros") return x;
    if (padding_ == "reflection") {
      const double low = align_corners_ ? 0 : -0.5,
                   span = align_corners_ ? static_cast<double>(size_ - 1) : static_cast<double>(size_);
      if (span <= 0) return c_.Mul(x, c_.K(0));
      // |x - low| folded into [0, 2 span): below span as it is, above mirrored.
      relax::Expr d = c_.Abs(c_.Sub(x, c_.K(low)));
      relax::Expr flips = c_.Op("floor", {c_.Div(d, c_.K(span))});
      relax::Expr extra = c_.Sub(d, c_.Mul(flips, c_.K(span)));
      relax::Expr odd = c_.Op("equal", {c_.Op("floor_mod", {flips, c_.K(2)}), c_.K(1)});
      x = c_.Op("where", {odd, c_.Add(c_.Sub(c_.K(span), extra), c_.K(low)), c_.Add(extra, c_.K(low))});
    }
    return c_.Min(c_.Max(x, c_.K(0)), c_.K(static_cast<double>(size_ - 1)));
  }

  /*! \brief Whether integer-valued coordinate `i` (float) lies inside the image. */
  relax::Expr Inside(const relax::Expr& i) {
    return c_.Op("logical_and", {c_.Op("greater_equal", {i, c_.K(0)}),
                                 c_.Op("less_equal", {i, c_.K(static_cast<double>(size_ - 1))})});
  }

  /*! \brief `i` clamped into the image. */
  relax::Expr Clamp(const relax::Expr& i) { return c_.Min(c_.Max(i, c_.K(0)), c_.K(static_cast<double>(size_ - 1))); }

  const std::string& padding() const { return padding_; }

 private:
  Composer& c_;
  int64_t size_;
  bool align_corners_;
  std::string padding_;
};

/*! \brief The cubic convolution weights of the taps at t - 1, t, t + 1, t + 2 (t in [0, 1)), A = -0.75. */
std::vector<relax::Expr> CubicWeights(Composer& c, const relax::Expr& t) {
  const double a = -0.75;
  // |d| <= 1: (A + 2)|d|^3 - (A + 3)|d|^2 + 1; 1 < |d| < 2: A|d|^3 - 5A|d|^2 + 8A|d| - 4A.
  auto near = [&](relax::Expr d) { return c.Add(c.Mul(c.Mul(d, d), c.Sub(c.Mul(c.K(a + 2), d), c.K(a + 3))), c.K(1)); };
  auto far = [&](relax::Expr d) {
    return c.Sub(c.Mul(d, c.Add(c.Mul(d, c.Sub(c.Mul(c.K(a), d), c.K(5 * a))), c.K(8 * a))), c.K(4 * a));
  };
  return {far(c.Add(t, c.K(1))), near(t), near(c.Sub(c.K(1), t)), far(c.Sub(c.K(2), t))};
}

Outputs GridSample(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> grid = ctx.Input(node, 1);
  if (!grid.ok()) return grid.status();
  absl::StatusOr<std::vector<int64_t>> xs = StaticShape(*x, "GridSample's input");
  if (!xs.ok()) return xs.status();
  absl::StatusOr<std::vector<int64_t>> gs = StaticShape(*grid, "GridSample's grid");
  if (!gs.ok()) return gs.status();
  if (xs->size() != 4 || gs->size() != 4 || (*gs)[3] != 2 || (*gs)[0] != (*xs)[0]) {
    return absl::InvalidArgumentError("GridSample takes an (N, C, H, W) input and an (N, H_out, W_out, 2) grid");
  }
  const std::string mode = ctx.StringAttr(node, "mode", "bilinear"),
                    padding = ctx.StringAttr(node, "padding_mode", "zeros");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", mode, "'"));
  if (padding != "zeros" && padding != "border" && padding != "reflection") {
    return absl::InvalidArgumentError(absl::StrCat("unknown padding_mode '", padding, "'"));
  }
  const bool align_corners = ctx.IntAttr(node, "align_corners", 0) != 0;
  const int64_t n = (*xs)[0], channels = (*xs)[1], h = (*xs)[2], w = (*xs)[3], ho = (*gs)[1], wo = (*gs)[2];
  Composer c(ctx, *grid);
  auto component = [&](int64_t k) { return c.Reshape(c.Slice(*grid, 3, k, k + 1), {n, 1, ho * wo}); };
  AxisSampler sx(c, w, align_corners, padding), sy(c, h, align_corners, padding);
  relax::Expr fx = sx.Unnormalize(component(0)), fy = sy.Unnormalize(component(1));
  // Bicubic pads each tap; the others pad the coordinate.
  if (mode != "bicubic") {
    fx = sx.Pad(fx);
    fy = sy.Pad(fy);
  }
  const relax::Expr flat = c.Reshape(*x, {n, channels, h * w});
  relax::Expr sum;
  // One tap: the input at integer-valued (ix, iy) times `weight`, 0 outside under zeros padding.
  auto tap = [&](relax::Expr ix, relax::Expr iy, relax::Expr weight) {
    if (mode == "bicubic" && padding != "zeros") {
      ix = sx.Pad(ix);
      iy = sy.Pad(iy);
    }
    if (padding == "zeros")
      weight = c.Mul(weight, c.Cast(c.Op("logical_and", {sx.Inside(ix), sy.Inside(iy)}), c.dtype()));
    relax::Expr index =
        c.Cast(c.Add(c.Mul(sy.Clamp(iy), c.K(static_cast<double>(w))), sx.Clamp(ix)), DataType::Int64());
    index = c.Op("broadcast_to", {index}, {{"shape", std::vector<int64_t>{n, channels, ho * wo}}});
    relax::Expr v = c.Mul(c.Op("take_along_axis", {flat, index}, {{"axis", int64_t{2}}}), weight);
    sum = sum.defined() ? c.Add(sum, v) : v;
  };
  if (mode == "nearest") {
    tap(c.Op("round", {fx}), c.Op("round", {fy}), c.K(1));
  } else if (mode == "bilinear") {
    relax::Expr x0 = c.Op("floor", {fx}), y0 = c.Op("floor", {fy});
    relax::Expr tx = c.Sub(fx, x0), ty = c.Sub(fy, y0);
    relax::Expr x1 = c.Add(x0, c.K(1)), y1 = c.Add(y0, c.K(1));
    relax::Expr ux = c.Sub(c.K(1), tx), uy = c.Sub(c.K(1), ty);
    tap(x0, y0, c.Mul(ux, uy));
    tap(x1, y0, c.Mul(tx, uy));
    tap(x0, y1, c.Mul(ux, ty));
    tap(x1, y1, c.Mul(tx, ty));
  } else {
    relax::Expr x0 = c.Op("floor", {fx}), y0 = c.Op("floor", {fy});
    std::vector<relax::Expr> wx = CubicWeights(c, c.Sub(fx, x0)), wy = CubicWeights(c, c.Sub(fy, y0));
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 4; ++i) tap(c.Add(x0, c.K(i - 1)), c.Add(y0, c.K(j - 1)), c.Mul(wx[i], wy[j]));
    }
  }
  return c.Result(c.Reshape(sum, {n, channels, ho, wo}));
}

/*! \brief RoiAlign (opset 10 and 16) as ONNX Runtime computes it: per RoI and output bin, a grid
 *  of sampling_ratio x sampling_ratio points, each bilinear from the four pixels around it
 *  (points more than a pixel outside read 0, points just outside clamp to the edge); avg: the
 *  mean over the grid; max: the largest weighted corner of any point. Coordinates are shifted by
 *  half a pixel in half_pixel mode (opset 16's default); output_half_pixel (opset 10's
 *  behaviour) makes every RoI at least one pixel. The points' coordinates are computed from the
 *  RoIs when the kernel runs; their number must be known when it compiles, so the adaptive grid
 *  (sampling_ratio 0: ceil(RoI size / output size) points, a size of the RoI values) is refused. */
Outputs RoiAlign(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> rois = ctx.Input(node, 1);
  if (!rois.ok()) return rois.status();
  absl::StatusOr<relax::Expr> batch_indices = ctx.Input(node, 2);
  if (!batch_indices.ok()) return batch_indices.status();
  absl::StatusOr<std::vector<int64_t>> xs = StaticShape(*x, "RoiAlign's input");
  if (!xs.ok()) return xs.status();
  // The number of RoIs may be symbolic (a detector's proposals after NMS: the data decide it).
  const relax::TensorStructInfoNode* rt = TensorOf(*rois);
  if (xs->size() != 4 || rt == nullptr || !rt->HasKnownShape() || rt->ndim != 2 || !IsConstInt(rt->Dims()[1], 4))
    return absl::InvalidArgumentError("RoiAlign takes an (N, C, H, W) input and (R, 4) rois");
  const tir::PrimExpr r = rt->Dims()[0];
  const std::string mode = ctx.StringAttr(node, "mode", "avg");
  if (mode != "avg" && mode != "max")
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", mode, "' (avg or max)"));
  const std::string transform =
      ctx.StringAttr(node, "coordinate_transformation_mode", ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return absl::InvalidArgumentError(absl::StrCat("unknown coordinate_transformation_mode '", transform, "'"));
  }
  const int64_t grid = ctx.IntAttr(node, "sampling_ratio", 0);
  if (grid <= 0) {
    return absl::UnimplementedError(
        "sampling_ratio 0 (a grid sized by each RoI's extent, known only at run time) is not supported; "
        "export with a positive sampling_ratio (torchvision's detectors use 2)");
  }
  const int64_t ph = ctx.IntAttr(node, "output_height", 1), pw = ctx.IntAttr(node, "output_width", 1);
  const double scale = ctx.FloatAttr(node, "spatial_scale", 1.0f), offset = transform == "half_pixel" ? 0.5 : 0.0;
  const int64_t channels = (*xs)[1], h = (*xs)[2], w = (*xs)[3];
  const int64_t samples = ph * pw * grid * grid;
  Composer c(ctx, *rois);
  // v as (R, dims...) or broadcast to it: reshapes and broadcasts whose first dimension is R.
  auto per_roi = [&](const char* op, const relax::Expr& v, const std::vector<int64_t>& dims) {
    std::vector<tir::PrimExpr> shape = {r};
    for (int64_t d : dims) shape.push_back(tir::I64(d));
    const relax::TensorStructInfoNode* t = TensorOf(v);
    return c.Take(ctx.EmitOp(op, {v}, {}, {relax::TensorSInfoOfDims(shape, t != nullptr ? t->dtype : c.dtype())}), v);
  };
  auto column = [&](int64_t k) {
    return per_roi("reshape", c.Sub(c.Mul(c.Slice(*rois, 1, k, k + 1), c.K(scale)), c.K(offset)), {1, 1, 1, 1});
  };
  // Per axis: the start and the bin size of each RoI, and the points' offsets within the RoI in
  // bins (bin + (i + 0.5) / grid), laid out so y varies along (PH, GH) and x along (PW, GW).
  auto axis = [&](int64_t begin_col, int64_t bins, std::vector<int64_t> steps_shape) {
    relax::Expr start = column(begin_col), extent = c.Sub(column(begin_col + 2), start);
    if (transform == "output_half_pixel") extent = c.Max(extent, c.K(1));
    std::vector<double> steps;
    for (int64_t b = 0; b < bins; ++b) {
      for (int64_t i = 0; i < grid; ++i)
        steps.push_back(static_cast<double>(b) + (static_cast<double>(i) + 0.5) / static_cast<double>(grid));
    }
    relax::Expr at = c.Reshape(relax::MakeConstant(TensorFromDoubles(c.dtype(), {bins * grid}, steps)), steps_shape);
    return c.Add(start, c.Mul(c.Div(extent, c.K(static_cast<double>(bins))), at));
  };
  // (R, PH, GH, PW, GW): y along axes 1-2, x along 3-4.
  relax::Expr y = axis(1, ph, {1, ph, grid, 1, 1});
  relax::Expr xq = axis(0, pw, {1, 1, 1, pw, grid});
  y = per_roi("broadcast_to", y, {ph, grid, pw, grid});
  xq = per_roi("broadcast_to", xq, {ph, grid, pw, grid});
  auto outside = [&](const relax::Expr& v, int64_t size) {
    return c.Op("logical_or", {c.Op("less", {v, c.K(-1)}), c.Op("greater", {v, c.K(static_cast<double>(size))})});
  };
  relax::Expr inside = c.Cast(c.Op("logical_not", {c.Op("logical_or", {outside(y, h), outside(xq, w)})}), c.dtype());
  // The low and high pixel of each point along one axis and its fraction past the low one.
  auto corners = [&](relax::Expr v, int64_t size) {
    v = c.Max(v, c.K(0));
    relax::Expr low = c.Op("floor", {v});
    relax::Expr at_edge = c.Op("greater_equal", {low, c.K(static_cast<double>(size - 1))});
    low = c.Op("where", {at_edge, c.K(static_cast<double>(size - 1)), low});
    relax::Expr high = c.Op("where", {at_edge, low, c.Add(low, c.K(1))});
    relax::Expr frac = c.Op("where", {at_edge, c.K(0), c.Sub(v, low)});
    return std::vector<relax::Expr>{low, high, frac};
  };
  std::vector<relax::Expr> cy = corners(y, h), cx = corners(xq, w);
  // Each RoI's image, flattened: (R, C, H * W).
  relax::Expr images =
      c.Op("take", {c.Reshape(*x, {(*xs)[0], channels, h * w}), c.Cast(*batch_indices, DataType::Int64())},
           {{"axis", int64_t{0}}});
  relax::Expr result;
  for (int corner = 0; corner < 4; ++corner) {
    const relax::Expr& iy = corner < 2 ? cy[0] : cy[1];
    const relax::Expr& ix = corner % 2 == 0 ? cx[0] : cx[1];
    relax::Expr wy = corner < 2 ? c.Sub(c.K(1), cy[2]) : cy[2];
    relax::Expr wx = corner % 2 == 0 ? c.Sub(c.K(1), cx[2]) : cx[2];
    relax::Expr weight = per_roi("reshape", c.Mul(c.Mul(wy, wx), inside), {1, samples});
    relax::Expr index = c.Cast(c.Add(c.Mul(iy, c.K(static_cast<double>(w))), ix), DataType::Int64());
    index = per_roi("broadcast_to", per_roi("reshape", index, {1, samples}), {channels, samples});
    relax::Expr v = c.Mul(c.Op("take_along_axis", {images, index}, {{"axis", int64_t{2}}}), weight);
    result = !result.defined() ? v : mode == "avg" ? c.Add(result, v) : c.Max(result, v);
  }
  // (R, C, PH, GH, PW, GW) -> the bins' points last, then reduced.
  result = per_roi("reshape", result, {channels, ph, grid, pw, grid});
  result = c.Permute(result, {0, 1, 2, 4, 3, 5});
  result = c.Op(mode == "avg" ? "mean" : "max", {result}, {{"axis", std::vector<int64_t>{4, 5}}, {"keepdims", false}});
  return c.Result(result);
}

}  // namespace

void RegisterSamplingOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("GridSample", GridSample);
  r.Register("RoiAlign", RoiAlign);
}

}  // namespace onnx_import
}  // namespace mlc
