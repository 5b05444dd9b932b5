/*! \file resize.cc
 *  \brief ONNX Resize to sizes known only when the program runs (a detector's masks and keypoint
 *         heatmaps resized to each box's size inside a loop): the result's shape is the values',
 *         so the function allocates it. Constant sizes are resized at compile time instead
 *         (frontend/common/resample.h); both read their taps from support/resample_taps.h.
 *
 *    mlc.resize(x: float32, target: int64 sizes or float32 scales, one per axis,
 *               params: float64[6], EncodeResizeParams) -> x resized
 *
 *  Axes go from the last to the first, each a weighted sum of its taps, as the compile-time
 *  resampling does; tf_crop_and_resize (which needs an roi) is not taken here.
 */
#include <cmath>
#include <cstring>
#include <vector>

#include "support/resample_taps.h"
#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

// The most elements a resized tensor may have: 2^31 floats (8 GB), far above any image or mask.
constexpr int64_t kMaxResizedElements = int64_t{1} << 31;

absl::StatusOr<std::vector<NDArray>> Resize(absl::Span<const NDArray> inputs) {
  constexpr const char* kName = "mlc.resize";
  if (inputs.size() != 3) return absl::InvalidArgumentError(absl::StrCat(kName, " takes x, sizes or scales, params"));
  const NDArray &x = inputs[0], &target = inputs[1], &params = inputs[2];
  const DLDataType xt = x.dtype(), tt = target.dtype(), pt = params.dtype();
  if (xt.code != kDLFloat || xt.bits != 32)
    return absl::InvalidArgumentError(absl::StrCat(kName, ": x must be float32"));
  if (pt.code != kDLFloat || pt.bits != 64 || CountOf(params.shape()) != 6)
    return absl::InvalidArgumentError(absl::StrCat(kName, ": params must be float64[6]"));
  absl::StatusOr<ResizeParams> p =
      DecodeResizeParams(absl::MakeConstSpan(static_cast<const double*>(params.data()), 6));
  if (!p.ok()) return absl::InvalidArgumentError(absl::StrCat(kName, ": ", p.status().message()));
  if (p->coordinate_mode == "tf_crop_and_resize")
    return absl::UnimplementedError(absl::StrCat(kName, ": tf_crop_and_resize needs an roi"));
  const bool sizes = tt.code == kDLInt && tt.bits == 64;
  if (!sizes && !(tt.code == kDLFloat && tt.bits == 32))
    return absl::InvalidArgumentError(absl::StrCat(kName, ": the target must be int64 sizes or float32 scales"));
  std::vector<int64_t> shape = x.shape();
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (CountOf(target.shape()) != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": ", CountOf(target.shape()), " sizes or scales for ", rank, " axes"));
  }
  std::vector<float> y(static_cast<const float*>(x.data()), static_cast<const float*>(x.data()) + CountOf(shape));
  for (int64_t axis = rank - 1; axis >= 0; --axis) {
    const int64_t in = shape[axis];
    double scale;
    int64_t out;
    if (sizes) {
      out = static_cast<const int64_t*>(target.data())[axis];
      scale = in > 0 ? static_cast<double>(out) / static_cast<double>(in) : 1;
    } else {
      scale = static_cast<const float*>(target.data())[axis];
      out = static_cast<int64_t>(std::floor(static_cast<double>(in) * scale));
    }
    if (out < 0 || !(scale > 0) || (in == 0 && out > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(kName, ": axis ", axis, " of ", in, " cannot be resized to ", out, " (scale ", scale, ")"));
    }
    if (out == in && scale == 1 && KeepsUnscaledAxes(*p)) continue;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
    if (outer * out > kMaxResizedElements / std::max<int64_t>(inner, 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat(kName, ": the result would have more than ", kMaxResizedElements, " elements"));
    }
    const AxisTaps taps = ComputeTaps(*p, in, out, scale, 0, 1);
    std::vector<float> resized(static_cast<size_t>(outer * out * inner), 0.0f);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < out; ++i) {
        float* dst = &resized[(o * out + i) * inner];
        for (size_t t = 0; t < taps.taps.size(); ++t) {
          const float w = static_cast<float>(taps.weights[t][i]);
          if (w == 0) continue;
          const float* src = &y[(o * in + taps.taps[t][i]) * inner];
          for (int64_t k = 0; k < inner; ++k) dst[k] += w * src[k];
        }
      }
    }
    y.swap(resized);
    shape[axis] = out;
  }
  absl::StatusOr<NDArray> result = NDArray::Allocate(shape, xt);
  if (!result.ok()) return result.status();
  if (!y.empty()) std::memcpy(result->data(), y.data(), y.size() * sizeof(float));
  return std::vector<NDArray>{*std::move(result)};
}

MLC_REGISTER_ALLOCATING_RUNTIME_FUNC("mlc.resize", Resize);

}  // namespace
}  // namespace vm
}  // namespace mlc
