/*! \file onnx_sampling_converters.cc
 *  \brief Operators that read an image at computed points, composed of elementwise operators
 *         on the points' coordinates and one take_along_axis per tap of the image flattened to
 *         (N, C, H * W): GridSample (opset 16; torch.nn.functional.grid_sample: every mode,
 *         padding mode and align_corners). RoiAlign, whose points are few per output and
 *         shared by every channel, is a library function (onnx_library_converters.cc).
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

}  // namespace

void RegisterSamplingOnnxConverters(OnnxConverterRegistry& r) { r.Register("GridSample", GridSample); }

}  // namespace onnx_import
}  // namespace mlc
