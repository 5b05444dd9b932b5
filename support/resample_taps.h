/*! \file resample_taps.h
 *  \brief Where each output position of a resized axis reads and with what weights, as ONNX's
 *         Resize defines it (nearest, linear, cubic; every coordinate transformation mode). The
 *         importers compute taps at import when the sizes are constants
 *         (frontend/common/resample.h); the runtime function mlc.resize computes them when
 *         the sizes are known only then (a detector's masks pasted at each box's size).
 */
#ifndef MLC_SUPPORT_RESAMPLE_TAPS_H_
#define MLC_SUPPORT_RESAMPLE_TAPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace mlc {

/*! \brief ONNX Resize's attributes: mode nearest / linear / cubic; coordinate_mode half_pixel,
 *  pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn, tf_crop_and_resize;
 *  nearest_mode round_prefer_floor / round_prefer_ceil / floor / ceil. */
struct ResizeParams {
  std::string mode, coordinate_mode, nearest_mode;
  double cubic_a = -0.75, extrapolation = 0;
  bool exclude_outside = false;
};

/*! \brief Unknown modes named. */
absl::Status CheckResizeParams(const ResizeParams& p);

/*! \brief The parameters as numbers (mlc.resize's params tensor) and back. */
std::vector<double> EncodeResizeParams(const ResizeParams& p);
absl::StatusOr<ResizeParams> DecodeResizeParams(absl::Span<const double> code);

/*! \brief One axis resampled: taps[t][i] and weights[t][i] for output position i; outside[i] for
 *  tf_crop_and_resize coordinates past the input. */
struct AxisTaps {
  std::vector<std::vector<int64_t>> taps;
  std::vector<std::vector<double>> weights;
  std::vector<bool> outside;
};

/*! \brief The taps of an axis of `in` positions resized to `out` at `scale` (the region
 *  [roi_start, roi_end] of the input for tf_crop_and_resize). */
AxisTaps ComputeTaps(const ResizeParams& p, int64_t in, int64_t out, double scale, double roi_start, double roi_end);

/*! \brief Whether an axis resized to its own size at scale 1 is left as it is (every mode but the
 *  two TensorFlow ones moves no coordinate then). */
inline bool KeepsUnscaledAxes(const ResizeParams& p) {
  return p.coordinate_mode != "tf_half_pixel_for_nn" && p.coordinate_mode != "tf_crop_and_resize";
}

}  // namespace mlc

#endif  // MLC_SUPPORT_RESAMPLE_TAPS_H_
