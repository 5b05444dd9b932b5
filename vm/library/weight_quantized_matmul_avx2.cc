/*! \file weight_quantized_matmul_avx2.cc
 *  \brief mlc.wq.matmul's tiles for AVX2 + FMA (this file alone is built with -mavx2 -mfma;
 *         called only where the CPU has them). A panel of 16 columns is two vectors.
 */
#include <immintrin.h>

#include "vm/library/wq_matmul_tile.h"

namespace mlc {
namespace vm {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr int kLanes = 8, kPerPanel = 2;
  static V Zero() { return _mm256_setzero_ps(); }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static V Splat(float v) { return _mm256_set1_ps(v); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  /*! \brief Columns 8 v .. 8 v + 7 of a panel's row of codes. */
  static V Codes8(const uint8_t* row, int v) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + 8 * v))));
  }
  static void Codes4(const uint8_t* row, int v, V* lo, V* hi) {
    const __m128i raw = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + 8 * v));
    const __m128i nibble = _mm_set1_epi8(0x0F), eight = _mm_set1_epi8(8);
    *lo = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_sub_epi8(_mm_and_si128(raw, nibble), eight)));
    *hi = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(raw, 4), nibble), eight)));
  }
  static void Store(float* p, V v, int count) {
    if (count >= 8) return _mm256_storeu_ps(p, v);
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, v);
    for (int i = 0; i < count; ++i) p[i] = lanes[i];
  }
};

}  // namespace

void WqTasksAvx2(const WqProblem& s, int64_t begin, int64_t end) { WqRunTasks<Avx2, kWqAvx2Rows, kWqAvx2Panels>(s, begin, end); }

}  // namespace vm
}  // namespace mlc
