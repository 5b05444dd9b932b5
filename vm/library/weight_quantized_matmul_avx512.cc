/*! \file weight_quantized_matmul_avx512.cc
 *  \brief mlc.wq.matmul's tiles for AVX-512 (this file alone is built with -mavx512f -mavx512bw
 *         -mfma; called only where the CPU has them). A panel of 16 columns is one vector.
 */
// GCC 12 warns that its own AVX-512 headers read an uninitialized vector (a known false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "vm/library/wq_matmul_tile.h"

namespace mlc {
namespace vm {
namespace {

struct Avx512 {
  using V = __m512;
  static constexpr int kLanes = 16, kPerPanel = 1;
  static V Zero() { return _mm512_setzero_ps(); }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static V Splat(float v) { return _mm512_set1_ps(v); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Codes8(const uint8_t* row, int) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row))));
  }
  static void Codes4(const uint8_t* row, int, V* lo, V* hi) {
    const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row));
    const __m128i nibble = _mm_set1_epi8(0x0F), eight = _mm_set1_epi8(8);
    *lo = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_sub_epi8(_mm_and_si128(raw, nibble), eight)));
    *hi = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(raw, 4), nibble), eight)));
  }
  static void Store(float* p, V v, int count) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>(count >= 16 ? 0xFFFF : (1u << count) - 1), v);
  }
};

}  // namespace

void WqTasksAvx512(const WqProblem& s, int64_t begin, int64_t end) {
  WqRunTasks<Avx512, kWqAvx512Rows, kWqAvx512Panels>(s, begin, end);
}

}  // namespace vm
}  // namespace mlc
