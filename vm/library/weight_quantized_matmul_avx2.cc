/*! \file weight_quantized_matmul_avx2.cc
 *  \brief mlc.wq.matmul's tiles for AVX2 (this file alone is built with -mavx2 -mfma -mf16c; called
 *         only where the CPU has them). A panel of 16 columns is two vectors. vpmaddubsw
 *         multiplies unsigned by signed bytes into saturating 16-bit pairs: 8-bit weight codes
 *         are made signed and take the activation codes' signs, so both factors stay within
 *         127 and the pairs cannot saturate (as llama.cpp does); 4-bit codes (0..15) go as they are.
 */
#include <immintrin.h>

#include "vm/library/wq_matmul_tile.h"

namespace mlc {
namespace vm {
namespace {

struct Avx2 {
  using VI = __m256i;
  using VF = __m256;
  static constexpr int kLanes = 8, kPerPanel = 2, kDot8Removes = 128;
  static VF ZeroF() { return _mm256_setzero_ps(); }
  static VI ZeroI() { return _mm256_setzero_si256(); }
  static VF LoadHalves(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static VI LoadI(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static VF SplatF(float v) { return _mm256_set1_ps(v); }
  static VI SplatI(int32_t v) { return _mm256_set1_epi32(v); }
  static VI Splat4(const int8_t* x) {
    int32_t four;
    __builtin_memcpy(&four, x, 4);
    return _mm256_set1_epi32(four);
  }
  /*! \brief sum + (w - 128) . a per lane: the signed codes with a's signs times |a|. */
  static VI Dot8(VI sum, VI w, VI a) {
    const VI signed_w = _mm256_xor_si256(w, _mm256_set1_epi8(static_cast<char>(0x80)));
    const VI pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(a), _mm256_sign_epi8(signed_w, a));
    return _mm256_add_epi32(sum, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
  }
  static VI Dot4(VI sum, VI w, VI a) {
    return _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_maddubs_epi16(w, a), _mm256_set1_epi16(1)));
  }
  static void Nibbles(const uint8_t* p, VI* lo, VI* hi) {
    const VI raw = LoadI(p), mask = _mm256_set1_epi8(0x0F);
    *lo = _mm256_and_si256(raw, mask);
    *hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), mask);
  }
  static VI Sub(VI a, VI b) { return _mm256_sub_epi32(a, b); }
  static VF ToFloat(VI a) { return _mm256_cvtepi32_ps(a); }
  static VF Mul(VF a, VF b) { return _mm256_mul_ps(a, b); }
  static VF Fma(VF a, VF b, VF c) { return _mm256_fmadd_ps(a, b, c); }
  static void Store(float* p, VF v, int count) {
    if (count >= 8) return _mm256_storeu_ps(p, v);
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, v);
    for (int i = 0; i < count; ++i) p[i] = lanes[i];
  }
};

}  // namespace

void WqQuantizeActivationsAvx2(const float* x, int64_t k, int8_t* q, float* d, int32_t* sums) {
  const __m256 sign = _mm256_set1_ps(-0.0f), half = _mm256_set1_ps(0.5f);
  for (int64_t b = 0; b < k / 32; ++b) {
    __m256 v[4], m = _mm256_setzero_ps();
    for (int i = 0; i < 4; ++i) {
      v[i] = _mm256_loadu_ps(x + 32 * b + 8 * i);
      m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v[i]));
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, m);
    float amax = lanes[0];
    for (int i = 1; i < 8; ++i) amax = lanes[i] > amax ? lanes[i] : amax;
    const float scale = amax / 127.0f, inv = scale != 0.0f ? 1.0f / scale : 0.0f;
    const __m256 vinv = _mm256_set1_ps(inv);
    __m256i sum = _mm256_setzero_si256();
    alignas(32) int32_t codes[32];
    for (int i = 0; i < 4; ++i) {
      const __m256 y = _mm256_mul_ps(v[i], vinv);
      const __m256i c = _mm256_cvttps_epi32(_mm256_add_ps(y, _mm256_or_ps(half, _mm256_and_ps(sign, y))));
      _mm256_store_si256(reinterpret_cast<__m256i*>(codes + 8 * i), c);
      sum = _mm256_add_epi32(sum, c);
    }
    for (int i = 0; i < 32; ++i) q[32 * b + i] = static_cast<int8_t>(codes[i]);
    alignas(32) int32_t partial[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(partial), sum);
    int32_t total = 0;
    for (int i = 0; i < 8; ++i) total += partial[i];
    d[b] = scale;
    sums[b] = total;
  }
}

void WqTasksAvx2(const WqProblem& s, int64_t begin, int64_t end) {
  WqRunTasks<Avx2, kWqAvx2Rows, kWqAvx2Panels>(s, begin, end);
}

}  // namespace vm
}  // namespace mlc
