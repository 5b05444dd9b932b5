/*! \file int8_activation.h
 *  \brief The activations the int8 convolution kernel applies to its float result, by the code
 *         its geometry operand carries: what qdq-to-integer writes (passes/) and what
 *         mlc.int8.conv2d reads (vm/library/int8_conv2d.cc).
 */
#ifndef MLC_SUPPORT_INT8_ACTIVATION_H_
#define MLC_SUPPORT_INT8_ACTIVATION_H_

#include <cstdint>
#include <optional>

namespace mlc {

enum class Int8Activation : int64_t { kNone = 0, kRelu = 1, kSilu = 2, kHardSwish = 3 };

/*! \brief HardSwish's hardsigmoid, min(max(y * kHardSwishSlope + kHardSwishOffset, 0), 1):
 *  PyTorch's and ONNX HardSwish's constants; qdq-to-integer fuses only these. */
inline constexpr float kHardSwishSlope = static_cast<float>(1.0 / 6.0);
inline constexpr float kHardSwishOffset = 0.5f;

/*! \brief The activation of `code`, or nullopt for a code the kernels do not know. */
inline std::optional<Int8Activation> Int8ActivationOf(int64_t code) {
  if (code < 0 || code > static_cast<int64_t>(Int8Activation::kHardSwish)) return std::nullopt;
  return static_cast<Int8Activation>(code);
}

}  // namespace mlc

#endif  // MLC_SUPPORT_INT8_ACTIVATION_H_
