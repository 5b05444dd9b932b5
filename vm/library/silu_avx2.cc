// Compiled with -mavx2 -mfma (vm/BUILD): see silu.h.
#include <immintrin.h>

#include "support/sigmoid_approximation.h"
#include "vm/library/silu.h"

namespace mlc {
namespace vm {
namespace {

struct Avx2Ops {
  static __m256 Splat(float v) { return _mm256_set1_ps(v); }
  static __m256 Fma(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
  static __m256 Add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
  static __m256 Sub(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
  static __m256 Mul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
  static __m256 Div(__m256 a, __m256 b) { return _mm256_div_ps(a, b); }
  static __m256 NegativeAbs(__m256 a) { return _mm256_or_ps(a, _mm256_set1_ps(-0.0f)); }
  // maxps returns its second operand unless the first is greater: x where x is NaN.
  static __m256 ClampBelow(__m256 x, __m256 lo) { return _mm256_max_ps(lo, x); }
  static __m256 ScaleByPowerOfTwo(__m256 e_r, __m256 /*n*/, __m256 shifted) {
    const __m256i bits = _mm256_slli_epi32(_mm256_castps_si256(shifted), 23);
    return _mm256_mul_ps(
        e_r, _mm256_castsi256_ps(_mm256_add_epi32(bits, _mm256_set1_epi32(sigmoid_approximation::kOneBits))));
  }
  // blendv takes each lane's sign bit: x itself is the mask.
  static __m256 SelectNegative(__m256 x, __m256 a, __m256 b) { return _mm256_blendv_ps(b, a, x); }
};

}  // namespace

void SiluInPlaceAvx2(float* values, int64_t n) {
  for (int64_t i = 0; i < n; i += 8) {
    const __m256 x = _mm256_loadu_ps(values + i);
    _mm256_storeu_ps(values + i, _mm256_mul_ps(x, sigmoid_approximation::Sigmoid<Avx2Ops>(x)));
  }
}

}  // namespace vm
}  // namespace mlc
