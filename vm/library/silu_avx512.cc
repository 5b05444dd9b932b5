// Compiled with -mavx512f -mfma (vm/BUILD): see silu.h.
// GCC 12 warns that its own AVX-512 headers read an uninitialized vector (a known false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "support/sigmoid_approximation.h"
#include "vm/library/silu.h"

namespace mlc {
namespace vm {
namespace {

struct Avx512Ops {
  static __m512 Splat(float v) { return _mm512_set1_ps(v); }
  static __m512 Fma(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
  static __m512 Add(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
  static __m512 Sub(__m512 a, __m512 b) { return _mm512_sub_ps(a, b); }
  static __m512 Mul(__m512 a, __m512 b) { return _mm512_mul_ps(a, b); }
  static __m512 Div(__m512 a, __m512 b) { return _mm512_div_ps(a, b); }
  static __m512 NegativeAbs(__m512 a) {
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_set1_epi32(INT32_MIN)));
  }
  // maxps returns its second operand unless the first is greater: x where x is NaN.
  static __m512 ClampBelow(__m512 x, __m512 lo) { return _mm512_max_ps(lo, x); }
  // scalef multiplies by 2^floor(n): n is integral here, so the product and its rounding are
  // the multiply's by the float 2^n.
  static __m512 ScaleByPowerOfTwo(__m512 e_r, __m512 n, __m512 /*shifted*/) { return _mm512_scalef_ps(e_r, n); }
  static __m512 SelectNegative(__m512 x, __m512 a, __m512 b) {
    return _mm512_mask_blend_ps(_mm512_cmplt_epi32_mask(_mm512_castps_si512(x), _mm512_setzero_si512()), b, a);
  }
};

}  // namespace

void SiluInPlaceAvx512(float* values, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __m512 x = _mm512_loadu_ps(values + i);
    _mm512_storeu_ps(values + i, _mm512_mul_ps(x, sigmoid_approximation::Sigmoid<Avx512Ops>(x)));
  }
}

}  // namespace vm
}  // namespace mlc
