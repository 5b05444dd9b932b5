/*! \file weight_quantized_matmul_avx512.cc
 *  \brief mlc.wq.matmul's tiles for AVX-512 VNNI (this file alone is built with -mavx512f
 *         -mavx512bw -mavx512vnni; called only where the CPU has them). A panel of 16 columns is
 *         one vector; vpdpbusd multiplies the unsigned weight codes by the signed activation codes.
 */
// GCC 12 warns that its own AVX-512 headers read an uninitialized vector (a known false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "vm/library/wq_matmul_tile.h"

namespace mlc {
namespace vm {
namespace {

struct Avx512Vnni {
  using VI = __m512i;
  using VF = __m512;
  static constexpr int kLanes = 16, kPerPanel = 1, kDot8Removes = 0;
  static VF ZeroF() { return _mm512_setzero_ps(); }
  static VI ZeroI() { return _mm512_setzero_si512(); }
  static VF LoadHalves(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static VI LoadI(const uint8_t* p) { return _mm512_loadu_si512(p); }
  static VF SplatF(float v) { return _mm512_set1_ps(v); }
  static VI SplatI(int32_t v) { return _mm512_set1_epi32(v); }
  /*! \brief 4 activation codes in every lane. */
  static VI Splat4(const int8_t* x) {
    int32_t four;
    __builtin_memcpy(&four, x, 4);
    return _mm512_set1_epi32(four);
  }
  static VI Dot8(VI sum, VI w, VI a) { return _mm512_dpbusd_epi32(sum, w, a); }
  static VI Dot4(VI sum, VI w, VI a) { return _mm512_dpbusd_epi32(sum, w, a); }
  static void Nibbles(const uint8_t* p, VI* lo, VI* hi) {
    const VI raw = _mm512_loadu_si512(p), mask = _mm512_set1_epi8(0x0F);
    *lo = _mm512_and_si512(raw, mask);
    *hi = _mm512_and_si512(_mm512_srli_epi16(raw, 4), mask);
  }
  static VI Sub(VI a, VI b) { return _mm512_sub_epi32(a, b); }
  static VF ToFloat(VI a) { return _mm512_cvtepi32_ps(a); }
  static VF Mul(VF a, VF b) { return _mm512_mul_ps(a, b); }
  static VF Fma(VF a, VF b, VF c) { return _mm512_fmadd_ps(a, b, c); }
  static void Store(float* p, VF v, int count) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>(count >= 16 ? 0xFFFF : (1u << count) - 1), v);
  }
};

}  // namespace

void WqQuantizeActivationsAvx512(const float* x, int64_t k, int8_t* q, float* d, int32_t* sums) {
  const __m512 sign = _mm512_set1_ps(-0.0f), half = _mm512_set1_ps(0.5f);
  for (int64_t b = 0; b < k / 32; ++b) {
    const __m512 lo = _mm512_loadu_ps(x + 32 * b), hi = _mm512_loadu_ps(x + 32 * b + 16);
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(lo), _mm512_abs_ps(hi)));
    const float scale = amax / 127.0f, inv = scale != 0.0f ? 1.0f / scale : 0.0f;
    const __m512 vinv = _mm512_set1_ps(inv);
    __m512i sum = _mm512_setzero_si512();
    for (int h = 0; h < 2; ++h) {
      const __m512 y = _mm512_mul_ps(h == 0 ? lo : hi, vinv);
      // y + copysign(0.5, y), truncated (AVX-512F has no float and/or: through the integer ones).
      const __m512 away = _mm512_castsi512_ps(_mm512_or_si512(
          _mm512_castps_si512(half), _mm512_and_si512(_mm512_castps_si512(sign), _mm512_castps_si512(y))));
      const __m512i c = _mm512_cvttps_epi32(_mm512_add_ps(y, away));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 32 * b + 16 * h), _mm512_cvtepi32_epi8(c));
      sum = _mm512_add_epi32(sum, c);
    }
    d[b] = scale;
    sums[b] = _mm512_reduce_add_epi32(sum);
  }
}

void WqTasksAvx512(const WqProblem& s, int64_t begin, int64_t end) {
  WqRunTasks<Avx512Vnni, kWqAvx512Rows, kWqAvx512Panels>(s, begin, end);
}

}  // namespace vm
}  // namespace mlc
