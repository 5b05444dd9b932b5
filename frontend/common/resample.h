/*! \file resample.h
 *  \brief Resizing by interpolation (ONNX Resize and Upsample, torch's interpolate / ATen's
 *         upsample_*): nearest, linear and cubic, every ONNX coordinate transformation mode, as
 *         separable per-axis steps; shared by both importers.
 *
 *  The output shape is static, so each resized axis's source coordinates are known at import:
 *  per output position, the taps (input indices, clamped to the edge as ONNX pads) and their
 *  weights are computed in double precision, exactly as ONNX's reference defines them, and
 *  become constants. The axis is then resampled with `take` of each tap's indices times its
 *  weights, summed (a nearest axis is one `take`); axes go from the last to the first, as the
 *  reference recursion interpolates. tf_crop_and_resize's extrapolation is a `where` over the
 *  coordinates that fall outside the input.
 */
#ifndef MLC_FRONTEND_COMMON_RESAMPLE_H_
#define MLC_FRONTEND_COMMON_RESAMPLE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/common/composer.h"
#include "support/resample_taps.h"

namespace mlc {
namespace frontend {

using ::mlc::ResizeParams;

/*! \brief x (static shape) resized to `sizes` (one per axis), or by `scales` (one per axis: the
 *  output is floor(in * scale)); `roi` for tf_crop_and_resize (starts, then ends). */
absl::StatusOr<relax::Expr> Resample(const EmitFn& emit, const relax::Expr& x, const ResizeParams& p,
                                     const std::vector<double>& roi, const std::vector<double>& scales,
                                     const std::vector<double>& sizes);

}  // namespace frontend
}  // namespace mlc

#endif  // MLC_FRONTEND_COMMON_RESAMPLE_H_
