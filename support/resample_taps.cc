/*! \file resample_taps.cc
 *  \brief Resize taps and weights (resample_taps.h).
 */
#include "support/resample_taps.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace mlc {
namespace {

constexpr const char* kModes[] = {"nearest", "linear", "cubic"};
constexpr const char* kCoordinateModes[] = {"half_pixel", "pytorch_half_pixel",   "align_corners",
                                            "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
constexpr const char* kNearestModes[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

template <size_t N>
int IndexOf(const char* const (&names)[N], const std::string& name) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<int>(i);
  }
  return -1;
}

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

}  // namespace

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

absl::Status CheckResizeParams(const ResizeParams& p) {
  if (IndexOf(kModes, p.mode) < 0) return absl::InvalidArgumentError(absl::StrCat("unknown mode '", p.mode, "'"));
  if (IndexOf(kCoordinateModes, p.coordinate_mode) < 0) {
    return absl::InvalidArgumentError(absl::StrCat("unknown coordinate_transformation_mode '", p.coordinate_mode, "'"));
  }
  if (p.mode == "nearest" && IndexOf(kNearestModes, p.nearest_mode) < 0)
    return absl::InvalidArgumentError(absl::StrCat("unknown nearest_mode '", p.nearest_mode, "'"));
  return absl::OkStatus();
}

std::vector<double> EncodeResizeParams(const ResizeParams& p) {
  return {static_cast<double>(IndexOf(kModes, p.mode)),
          static_cast<double>(IndexOf(kCoordinateModes, p.coordinate_mode)),
          static_cast<double>(std::max(IndexOf(kNearestModes, p.nearest_mode), 0)),
          p.cubic_a,
          p.extrapolation,
          p.exclude_outside ? 1.0 : 0.0};
}

absl::StatusOr<ResizeParams> DecodeResizeParams(absl::Span<const double> code) {
  auto pick = [](const auto& names, double v) -> const char* {
    const int i = static_cast<int>(v);
    return v == i && i >= 0 && i < static_cast<int>(std::size(names)) ? names[i] : nullptr;
  };
  if (code.size() != 6) return absl::InvalidArgumentError("resize parameters are 6 numbers");
  const char* mode = pick(kModes, code[0]);
  const char* coordinates = pick(kCoordinateModes, code[1]);
  const char* nearest = pick(kNearestModes, code[2]);
  if (mode == nullptr || coordinates == nullptr || nearest == nullptr)
    return absl::InvalidArgumentError("resize parameters name no mode");
  ResizeParams p;
  p.mode = mode;
  p.coordinate_mode = coordinates;
  p.nearest_mode = nearest;
  p.cubic_a = code[3];
  p.extrapolation = code[4];
  p.exclude_outside = code[5] != 0;
  return p;
}

}  // namespace mlc
