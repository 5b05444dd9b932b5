/*! \file int8_weight_panels.h
 *  \brief The int8 weight layout of the kernels that broadcast activations against vectors of
 *         16 output channels (mlc.int8.dense, mlc.int8.conv2d_nchwc): panels of 16 channels,
 *         [Fp/16][Kp/4][16][4], so one 64-byte load gives 16 channels' next 4 taps.
 */
#ifndef MLC_PASSES_INT8_WEIGHT_PANELS_H_
#define MLC_PASSES_INT8_WEIGHT_PANELS_H_

#include <cstdint>

#include "support/tensor_data.h"

namespace mlc {
namespace passes {

/*! \brief rows[o * row_stride + i] (o < f output channels, i < k taps) in panels of 16
 *  channels, the taps padded to `kp` (a multiple of 4, at least k): zero past f and past k. */
inline TensorData Int8WeightPanels(const int8_t* rows, int64_t f, int64_t k, int64_t row_stride, int64_t kp) {
  constexpr int64_t kLanes = 16;
  const int64_t panels = (f + kLanes - 1) / kLanes;
  TensorData out(DataType::Int(8), {panels, kp / 4, kLanes, 4});
  auto* dst = static_cast<int8_t*>(out.mutable_data());
  for (int64_t o = 0; o < f; ++o) {
    for (int64_t i = 0; i < k; ++i)
      dst[((o / kLanes * (kp / 4) + i / 4) * kLanes + o % kLanes) * 4 + i % 4] = rows[o * row_stride + i];
  }
  return out;
}

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_INT8_WEIGHT_PANELS_H_
