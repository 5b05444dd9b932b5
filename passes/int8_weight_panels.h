/*! \file int8_weight_panels.h
 *  \brief The weight layout of the int8 kernels that broadcast activations against vectors of
 *         output channels (mlc.int8.dense, mlc.int8.conv2d_nchwc): panels of `lanes` channels
 *         whose `taps` consecutive taps sit together, [Fp/lanes][Kp/taps][lanes][taps], so one
 *         vector load gives `lanes` channels' next `taps` taps. int8 for VNNI (16 channels x 4
 *         taps, what vpdpbusd sums per int32 lane: 64 bytes); int16 for AVX2 without VNNI (8
 *         channels x 2 taps, what vpmaddwd sums: 32 bytes).
 */
#ifndef MLC_PASSES_INT8_WEIGHT_PANELS_H_
#define MLC_PASSES_INT8_WEIGHT_PANELS_H_

#include <cstdint>

#include "support/tensor_data.h"

namespace mlc {
namespace passes {

/*! \brief rows[o * row_stride + i] (o < f output channels, i < k taps) in panels of `lanes`
 *  channels, `taps` taps together, the taps padded to `kp` (a multiple of `taps`, at least k):
 *  zero past f and past k. */
template <typename T>
TensorData WeightPanels(const T* rows, int64_t f, int64_t k, int64_t row_stride, int64_t kp, int64_t lanes,
                        int64_t taps) {
  const int64_t panels = (f + lanes - 1) / lanes;
  TensorData out(DataType::Int(8 * sizeof(T)), {panels, kp / taps, lanes, taps});
  auto* dst = static_cast<T*>(out.mutable_data());
  for (int64_t o = 0; o < f; ++o) {
    for (int64_t i = 0; i < k; ++i)
      dst[((o / lanes * (kp / taps) + i / taps) * lanes + o % lanes) * taps + i % taps] = rows[o * row_stride + i];
  }
  return out;
}

/*! \brief The VNNI kernels' panels: int8, 16 channels x 4 taps. */
inline TensorData Int8WeightPanels(const int8_t* rows, int64_t f, int64_t k, int64_t row_stride, int64_t kp) {
  return WeightPanels(rows, f, k, row_stride, kp, /*lanes=*/16, /*taps=*/4);
}

/*! \brief The AVX2 kernels' panels: int16 (the weights widened at compile time), 8 channels x
 *  2 taps. */
inline TensorData Int16WeightPanels(const int16_t* rows, int64_t f, int64_t k, int64_t row_stride, int64_t kp) {
  return WeightPanels(rows, f, k, row_stride, kp, /*lanes=*/8, /*taps=*/2);
}

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_INT8_WEIGHT_PANELS_H_
