/*! \file conv_transpose.h
 *  \brief Transposed convolution (ONNX ConvTranspose, torch's ConvTranspose2d/3d and ATen's
 *         convolution with transposed=True) as the convolution it is the gradient of; shared by
 *         both importers.
 *
 *  The input is dilated by the strides (zeros between elements), padded by
 *  (k - 1) * dilation - pads on each side (cropped where that is negative) plus output_padding
 *  at the end, and convolved at stride 1 by the kernel flipped with its channel axes swapped per
 *  group (done at import for a constant weight). It costs prod(strides) times the multiply-adds
 *  of a direct kernel.
 */
#ifndef MLC_FRONTEND_COMMON_CONV_TRANSPOSE_H_
#define MLC_FRONTEND_COMMON_CONV_TRANSPOSE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/common/composer.h"

namespace mlc {
namespace frontend {

/*! \brief One value per spatial axis (2 or 3 of them); `padding` the starts, then the ends. */
struct ConvTransposeParams {
  std::vector<int64_t> strides, dilation, padding, output_padding;
  int64_t groups = 1;
};

/*! \brief x (N, C_in, spatial...) with static channels and spatial sizes (N may be symbolic)
 *  transposed-convolved by w (C_in, C_out / groups, kernel...), static; no bias. */
absl::StatusOr<relax::Expr> ConvTranspose(const EmitFn& emit, const relax::Expr& x, const relax::Expr& w,
                                          const ConvTransposeParams& p);

}  // namespace frontend
}  // namespace mlc

#endif  // MLC_FRONTEND_COMMON_CONV_TRANSPOSE_H_
