#include "vm/library/silu.h"

#include <cmath>
#include <cstring>

#include "support/sigmoid_approximation.h"

namespace mlc {
namespace vm {
namespace {

struct ScalarOps {
  static float Splat(float v) { return v; }
  static float Fma(float a, float b, float c) { return std::fma(a, b, c); }
  static float Add(float a, float b) { return a + b; }
  static float Sub(float a, float b) { return a - b; }
  static float Mul(float a, float b) { return a * b; }
  static float Div(float a, float b) { return a / b; }
  static float NegativeAbs(float a) { return -std::fabs(a); }
  static float ClampBelow(float x, float lo) { return x < lo ? lo : x; }
  static float ScaleByPowerOfTwo(float e_r, float /*n*/, float shifted) {
    uint32_t bits;
    std::memcpy(&bits, &shifted, 4);
    bits = (bits << 23) + sigmoid_approximation::kOneBits;
    float scale;
    std::memcpy(&scale, &bits, 4);
    return e_r * scale;
  }
  static float SelectNegative(float x, float a, float b) { return std::signbit(x) ? a : b; }
};

}  // namespace

float Silu(float x) { return x * sigmoid_approximation::Sigmoid<ScalarOps>(x); }

}  // namespace vm
}  // namespace mlc
