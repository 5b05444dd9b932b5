/*! \file resample.cc
 *  \brief Resizing by interpolation as per-axis gathers and weighted sums (resample.h).
 */
#include "frontend/common/resample.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace mlc {
namespace frontend {
namespace {

/*! \brief One axis resampled: taps[t][i] and weights[t][i] for output position i; outside[i] for
 *  tf_crop_and_resize coordinates past the input. */
struct AxisTaps {
  std::vector<std::vector<int64_t>> taps;
  std::vector<std::vector<double>> weights;
  std::vector<bool> outside;
};

/*! \brief The source coordinate of output position x (the operator's coordinate_transformation_mode). */
double SourceCoordinate(const ResizeParams& p, double x, int64_t in, int64_t out, double scale, double roi_start,
                        double roi_end, bool* outside) {
  const std::string& m = p.coordinate_mode;
  *outside = false;
  if (m == "asymmetric") return x / scale;
  if (m == "align_corners") return out == 1 ? 0 : x * (in - 1) / (out - 1.0);
  if (m == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0;
  if (m == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (m == "tf_crop_and_resize") {
    double c = out == 1 ? (roi_end - roi_start) * (in - 1) / 2.0 : x * (roi_end - roi_start) * (in - 1) / (out - 1.0);
    c += roi_start * (in - 1);
    *outside = c < 0 || c > in - 1;
    return c;
  }
  return (x + 0.5) / scale - 0.5;  // half_pixel
}

/*! \brief The cubic convolution weights of the 4 taps around a point at `r` past the second. */
std::vector<double> CubicWeights(double r, double a) {
  auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 <= d < 2
  auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };       // 0 <= d < 1
  return {far(r + 1), near(r), near(1 - r), far(2 - r)};
}

AxisTaps ComputeTaps(const ResizeParams& p, int64_t in, int64_t out, double scale, double roi_start, double roi_end) {
  const int n = p.mode == "nearest" ? 1 : p.mode == "linear" ? 2 : 4;
  AxisTaps a;
  a.taps.assign(n, std::vector<int64_t>(out));
  a.weights.assign(n, std::vector<double>(out));
  a.outside.assign(out, false);
  auto clamp = [in](int64_t i) { return std::min<int64_t>(std::max<int64_t>(i, 0), in - 1); };
  for (int64_t i = 0; i < out; ++i) {
    bool outside = false;
    double x = SourceCoordinate(p, static_cast<double>(i), in, out, scale, roi_start, roi_end, &outside);
    a.outside[i] = outside;
    const int64_t x0 = static_cast<int64_t>(std::floor(x));
    const double r = x - std::floor(x);
    if (n == 1) {
      const std::string& m = p.nearest_mode;
      bool up = m == "ceil" ? r > 0 : m == "floor" ? false : m == "round_prefer_ceil" ? r >= 0.5 : r > 0.5;
      a.taps[0][i] = clamp(up ? x0 + 1 : x0);
      a.weights[0][i] = 1;
      continue;
    }
    std::vector<double> w = n == 2 ? std::vector<double>{1 - r, r} : CubicWeights(r, p.cubic_a);
    const int64_t first = n == 2 ? x0 : x0 - 1;
    double sum = 0;
    for (int t = 0; t < n; ++t) {
      int64_t idx = first + t;
      if (p.exclude_outside && (idx < 0 || idx >= in)) w[t] = 0;
      sum += w[t];
    }
    for (int t = 0; t < n; ++t) {
      a.taps[t][i] = clamp(first + t);
      a.weights[t][i] = p.exclude_outside && sum != 0 ? w[t] / sum : w[t];
    }
  }
  return a;
}

/*! \brief A vector as a constant shaped (n, 1, ..., 1) that broadcasts along `axis` of a rank-`rank` tensor. */
relax::Expr AlongAxis(const TensorData& v, int64_t axis, int64_t rank) {
  std::vector<int64_t> shape(rank - axis, 1);
  shape[0] = v.NumElements();
  return relax::MakeConstant(TensorData(v.dtype(), shape, v.bytes()));
}

}  // namespace

absl::StatusOr<relax::Expr> Resample(const EmitFn& emit, const relax::Expr& x, const ResizeParams& p,
                                     const std::vector<double>& roi, const std::vector<double>& scales,
                                     const std::vector<double>& sizes) {
  const auto* xt = x->struct_info().as<relax::TensorStructInfoNode>();
  if (xt == nullptr || !xt->shape) return absl::InvalidArgumentError("the resized input needs a static shape");
  const std::vector<int64_t>* xs = &*xt->shape;
  const int64_t rank = static_cast<int64_t>(xs->size());
  if (p.mode != "nearest" && p.mode != "linear" && p.mode != "cubic") {
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", p.mode, "'"));
  }
  for (const char* m : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                        "tf_crop_and_resize"}) {
    if (p.coordinate_mode == m) break;
    if (std::string(m) == "tf_crop_and_resize") {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown coordinate_transformation_mode '", p.coordinate_mode, "'"));
    }
  }
  DataType dtype = xt->dtype;
  if (p.mode != "nearest" && !dtype.is_float())
    return absl::UnimplementedError("linear and cubic resizing need a floating-point input");
  if (!sizes.empty() && !scales.empty()) return absl::InvalidArgumentError("give scales or sizes, not both");
  if (sizes.empty() && static_cast<int64_t>(scales.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat("scales needs ", rank, " values (or give sizes)"));
  }
  if (!sizes.empty() && static_cast<int64_t>(sizes.size()) != rank)
    return absl::InvalidArgumentError(absl::StrCat("sizes needs ", rank, " values"));
  if (p.coordinate_mode == "tf_crop_and_resize" && static_cast<int64_t>(roi.size()) != 2 * rank) {
    return absl::InvalidArgumentError(absl::StrCat("tf_crop_and_resize needs an roi of ", 2 * rank, " values"));
  }
  relax::Expr y = x;
  Composer c(emit, x);
  for (int64_t axis = rank - 1; axis >= 0; --axis) {
    const int64_t in = (*xs)[axis];
    const double scale = sizes.empty() ? scales[axis] : sizes[axis] / static_cast<double>(in);
    const int64_t out =
        sizes.empty() ? static_cast<int64_t>(std::floor(in * scale)) : static_cast<int64_t>(sizes[axis]);
    if (scale <= 0 || out <= 0)
      return absl::InvalidArgumentError(absl::StrCat("axis ", axis, ": the scale must be positive"));
    bool identity_coordinates =
        p.coordinate_mode != "tf_half_pixel_for_nn" && p.coordinate_mode != "tf_crop_and_resize";
    if (out == in && scale == 1 && identity_coordinates) continue;
    double roi_start = roi.empty() ? 0 : roi[axis], roi_end = roi.empty() ? 1 : roi[rank + axis];
    AxisTaps a = ComputeTaps(p, in, out, scale, roi_start, roi_end);
    relax::Expr sum;
    for (size_t t = 0; t < a.taps.size(); ++t) {
      bool all_zero = true;
      for (double w : a.weights[t]) all_zero &= w == 0;
      if (all_zero) continue;
      TensorData idx(DataType::Int64(), {out});
      std::copy(a.taps[t].begin(), a.taps[t].end(), static_cast<int64_t*>(idx.mutable_data()));
      relax::Expr g = c.Op("take", {y, relax::MakeConstant(idx)}, {{"axis", axis}});
      if (p.mode != "nearest") {
        TensorData w(DataType::Float32(), {out});
        for (int64_t i = 0; i < out; ++i)
          static_cast<float*>(w.mutable_data())[i] = static_cast<float>(a.weights[t][i]);
        relax::Expr weight = AlongAxis(w, axis, rank);
        if (dtype != DataType::Float32()) weight = c.Cast(weight, dtype);
        g = c.Mul(g, weight);
      }
      sum = sum.defined() ? c.Add(sum, g) : g;
    }
    if (!sum.defined())
      sum = c.Mul(c.Op("take", {y, relax::MakeConstant(Int64Tensor(std::vector<int64_t>(out, 0)))}, {{"axis", axis}}),
                  c.K(0));
    if (p.coordinate_mode == "tf_crop_and_resize") {
      TensorData mask(DataType::Bool(), {out});
      for (int64_t i = 0; i < out; ++i) static_cast<uint8_t*>(mask.mutable_data())[i] = a.outside[i];
      sum = c.Op("where", {AlongAxis(mask, axis, rank), c.K(p.extrapolation), sum});
    }
    y = sum;
  }
  if (!c.status().ok()) return c.status();
  return y;
}

}  // namespace frontend
}  // namespace mlc
