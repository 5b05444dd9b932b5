/*! \file int8_conv2d_nchwc.cc
 *  \brief The int8 pointwise (1 x 1) convolution over channel-blocked images, alter-op-layout's
 *         target for an mlc.int8.conv2d whose input is blocked already.
 *
 *    mlc.int8.conv2d_nchwc(x[N, C/b, H, W, b] uint8 or int8, w (panels, below),
 *                          geometry[12] int64, compensation[F] int32, scale[F] float32,
 *                          bias[F] float32, [requantize[2 or 4] float32,] [store[5] int64,]
 *                          out[N, F/bo, H + top + bottom, W + left + right, bo])
 *
 *  is mlc.int8.conv2d's arithmetic (int8_conv2d.cc: the same geometry, compensation, scale, bias
 *  and requantize) for a 1 x 1 window at stride 1 without padding, reading and writing the
 *  layouts the float convolutions around it use (NCHW16c, NCHW8c, ...: b and bo multiples of
 *  4 that divide 16), so a MobileNet's int8 projections and expansions meet its float depthwise
 *  convolutions without a layout transform or a packing of columns. The weight comes packed at
 *  compile time (passes/int8_weight_panels.h), in one of two forms:
 *    int8 w[Fp/16, C/4, 16, 4]: per group of 4 input channels, the 4 taps of 16 output channels
 *      in one 64-byte vector, for AVX-512 VNNI and AVX-VNNI;
 *    int16 w[Fp/8, C/2, 8, 2]: per pair of input channels, the 2 taps of 8 output channels in
 *      one 32-byte vector, for AVX2 without VNNI (qdq-to-integer's int16 weights);
 *  zero past F. F is the stored output channel count (a multiple of bo). out is uint8/int8 with
 *  requantize, float32 without it.
 *
 *  store = (top, left, bottom, right, dequantized) says where and how the result is stored, for
 *  the float convolution that reads it next (fold-int8-dequantize folds `pad(dequantize(...))`
 *  in): at an offset (top, left) in a larger image whose border is zero (0.0f, or the zero
 *  point's byte), and with dequantized 1 (uint8) or 2 (int8) and a float32 out, the requantized
 *  values dequantized again, round(clamp(v / s)) * s: the floats `dequantize(quantize(v, s, z),
 *  s, z)` gives, bit for bit, without the bytes being written and read back by a kernel of
 *  their own.
 *
 *  Register tiles, output channels in the vector lanes:
 *    AVX-512 VNNI, 8 pixels x 32 channels: per group of 4 input channels, two weight vectors
 *      and, per pixel, a broadcast of its 4 bytes (in place: a pixel's channels of one block are
 *      contiguous) and two vpdpbusd.
 *    AVX2, 6 pixels x 16 channels (12 of the 16 ymm registers accumulate): the chunk of pixels
 *      a task covers is first widened to int16 (once for all its channel tiles); then per pair
 *      of input channels, two weight vectors and, per pixel, a broadcast of its two int16 values
 *      and two vpmaddwd (two products per int32 lane: exact, where vpmaddubsw's int16 sums
 *      could saturate).
 *    AVX-VNNI (Intel's cores without AVX-512), 6 pixels x 16 channels from the int8 panels: the
 *      AVX-512 VNNI tile at half the width, the AVX2 tile's epilogue.
 *  Other CPUs, or a weight form the CPU has no tile for, take a portable loop.
 */
// GCC 12 warns that its own AVX-512 headers read an uninitialized vector (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "vm/library/dltensor_view.h"
#include "vm/library/int8_common.h"
#include "vm/runtime_registry.h"
#include "vm/thread_pool.h"

namespace mlc {
namespace vm {
namespace {

constexpr int64_t kLanes = 16;      // output channels per int8 weight vector (int32 lanes of a zmm)
constexpr int64_t kPixelTile = 8;   // pixels per register tile
constexpr int64_t kChunkTiles = 4;  // pixel tiles per task: 32 pixels' channels stay in L1
constexpr int64_t kAvx2Lanes = 8;   // output channels per int16 weight vector (int32 lanes of a ymm)
constexpr int64_t kAvx2Pixels = 6;  // pixels per AVX2 register tile

struct Problem {
  const uint8_t* x;    // one image, [C/b][HW][b]
  const int8_t* w;     // int8 panels [Fp/16][C/4][16][4], or null
  const int16_t* w16;  // int16 panels [Fp/8][C/2][8][2], or null
  const int32_t* comp;
  const float *scale, *bias;
  char* out;  // one image, [F/bo][out_pixels][bo]
  int64_t c, b, f, bo, pixels;
  uint32_t flip;  // 0x80808080 for int8 x: made uint8 as it is read
  Int8Activation activation;
  Requantize requantize;
  // The output image: `width` pixels a row inside an image of out_width, at (top, left), with
  // out_pixels in all; the same as the input's without a store operand.
  int64_t width = 0, out_width = 0, top = 0, left = 0, out_pixels = 0;
  bool dequantize = false;  // requantized values stored as the floats they stand for
  int64_t groups() const { return c / 4; }
  bool bordered() const { return out_pixels != pixels; }
};

/*! \brief Where input pixel p lands in the output image. */
inline int64_t OutPixel(const Problem& s, int64_t p) {
  if (!s.bordered()) return p;
  const int64_t row = p / s.width;
  return (row + s.top) * s.out_width + (p - row * s.width) + s.left;
}

/*! \brief OutPixel of pixels p0, p0 + 1, ... (P of them) into `at`: one division for the tile. */
template <int P>
inline void OutPixels(const Problem& s, int64_t p0, int64_t (&at)[P]) {
  if (!s.bordered()) {
    for (int r = 0; r < P; ++r) at[r] = p0 + r;
    return;
  }
  int64_t row = p0 / s.width, col = p0 - row * s.width;
  for (int r = 0; r < P; ++r) {
    at[r] = (row + s.top) * s.out_width + col + s.left;
    if (++col == s.width) col = 0, ++row;
  }
}

/*! \brief A weight form's panels: output channels per panel, input channels per group. */
struct PanelShape {
  int64_t lanes, taps;
};
constexpr PanelShape PanelShapeOf(bool int16_weights) {
  return int16_weights ? PanelShape{kAvx2Lanes, 2} : PanelShape{kLanes, 4};
}

/*! \brief The input's channel c at pixel p, as uint8. */
inline int32_t InputByte(const Problem& s, int64_t p, int64_t c) {
  return (s.x[(c / s.b * s.pixels + p) * s.b + c % s.b] ^ s.flip) & 0xFF;
}

/*! \brief The result of output channel f at pixel p from its int32 sum: written as the
 *  portable path does, one element. */
void FinishOne(const Problem& s, int32_t acc, int64_t f, int64_t p) {
  const float v = FinishInt8(acc, s.comp[f], s.scale[f], s.bias[f], s.activation);
  const int64_t at = (f / s.bo * s.out_pixels + OutPixel(s, p)) * s.bo + f % s.bo;
  if (!s.requantize.on || s.dequantize) {
    reinterpret_cast<float*>(s.out)[at] = s.dequantize ? DequantizeOne(v, s.requantize) : v;
    return;
  }
  reinterpret_cast<uint8_t*>(s.out)[at] = RequantizeOne(v, s.requantize);
}

/*! \brief Channels [f0, f0 + 16) at output pixel p, finished, in the output's blocks of bo:
 *  each block's lanes moved to the front and stored under a mask. */
__attribute__((target("avx512f,avx512bw"), always_inline)) inline void StoreVector(const Problem& s, __m512 v,
                                                                                   int64_t f0, int64_t p) {
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __mmask16 block_mask = static_cast<__mmask16>((1u << s.bo) - 1);
  for (int64_t first = 0; first < kLanes && f0 + first < s.f; first += s.bo) {
    const int64_t f = f0 + first, at = (f / s.bo * s.out_pixels + p) * s.bo;
    const __m512i from = _mm512_add_epi32(iota, _mm512_set1_epi32(static_cast<int32_t>(first)));
    if (s.dequantize) {
      _mm512_mask_storeu_ps(reinterpret_cast<float*>(s.out) + at, block_mask,
                            DequantizedLanes(_mm512_permutexvar_ps(from, v), s.requantize));
    } else if (s.requantize.on) {
      StoreRequantized(reinterpret_cast<uint8_t*>(s.out) + at, block_mask, _mm512_permutexvar_ps(from, v),
                       s.requantize);
    } else {
      _mm512_mask_storeu_ps(reinterpret_cast<float*>(s.out) + at, block_mask, _mm512_permutexvar_ps(from, v));
    }
  }
}

/*! \brief A tile of P pixels (from p0) x J vectors of 16 output channels (from f0) with VNNI,
 *  into named accumulators (DotAccumulate), then finished: SiLU over the whole tile in one call
 *  (int8_conv2d.cc's reason). */
template <int P, int J, bool kSigned>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void TileVnni(const Problem& s, int64_t f0, int64_t p0) {
  static_assert(P >= 1 && P <= 8 && J >= 1 && J <= 2, "at most 8 pixels x 32 channels");
  __m512i a0 = _mm512_setzero_si512(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0, a4 = a0, b4 = a0,
          a5 = a0, b5 = a0, a6 = a0, b6 = a0, a7 = a0, b7 = a0;
  const int64_t groups = s.groups(), per_block = s.b / 4;
  const int8_t* w = s.w + f0 / kLanes * groups * kLanes * 4;
  const __m512i flip = _mm512_set1_epi32(static_cast<int32_t>(s.flip));
  for (int64_t block = 0; block < s.c / s.b; ++block) {
    const uint8_t* x = s.x + (block * s.pixels + p0) * s.b;
    for (int64_t i = 0; i < per_block; ++i, x += 4) {
      const int64_t q = block * per_block + i;
      const __m512i w0 = _mm512_loadu_si512(w + q * kLanes * 4);
      const __m512i w1 = J > 1 ? _mm512_loadu_si512(w + (groups + q) * kLanes * 4) : w0;
#define MLC_INT8_NCHWC_PIXEL(r, lo, hi)                   \
  {                                                       \
    int32_t four;                                         \
    std::memcpy(&four, x + (r)*s.b, 4);                   \
    __m512i c = _mm512_set1_epi32(four);                  \
    if constexpr (kSigned) c = _mm512_xor_si512(c, flip); \
    DotAccumulate(lo, c, w0);                             \
    if constexpr (J > 1) DotAccumulate(hi, c, w1);        \
  }
      MLC_INT8_NCHWC_PIXEL(0, a0, b0)
      if constexpr (P > 1) MLC_INT8_NCHWC_PIXEL(1, a1, b1)
      if constexpr (P > 2) MLC_INT8_NCHWC_PIXEL(2, a2, b2)
      if constexpr (P > 3) MLC_INT8_NCHWC_PIXEL(3, a3, b3)
      if constexpr (P > 4) MLC_INT8_NCHWC_PIXEL(4, a4, b4)
      if constexpr (P > 5) MLC_INT8_NCHWC_PIXEL(5, a5, b5)
      if constexpr (P > 6) MLC_INT8_NCHWC_PIXEL(6, a6, b6)
      if constexpr (P > 7) MLC_INT8_NCHWC_PIXEL(7, a7, b7)
#undef MLC_INT8_NCHWC_PIXEL
    }
  }
  const __m512i sums[8][2] = {{a0, b0}, {a1, b1}, {a2, b2}, {a3, b3}, {a4, b4}, {a5, b5}, {a6, b6}, {a7, b7}};
  // SiLU runs over the whole tile in one call (int8_conv2d.cc's reason), through `values`; the
  // other activations vector by vector as the results are stored, in registers.
  const bool silu = s.activation == Int8Activation::kSilu;
  alignas(64) float values[J][P][kLanes];
  __m512i comp[J];
  __m512 scale[J], bias[J];
  for (int j = 0; j < J; ++j) {
    const int64_t f = f0 + j * kLanes;
    const __mmask16 mask = s.f - f >= kLanes ? 0xFFFF : static_cast<__mmask16>((1u << (s.f - f)) - 1);
    comp[j] = _mm512_maskz_loadu_epi32(mask, s.comp + f);
    scale[j] = _mm512_maskz_loadu_ps(mask, s.scale + f);
    bias[j] = _mm512_maskz_loadu_ps(mask, s.bias + f);
  }
  // The float result of pixel r's channel vector j. (A macro: a lambda would not take this
  // function's target.)
#define MLC_INT8_NCHWC_RESULT(j, r)                                                                               \
  (silu ? _mm512_load_ps(values[j][r])                                                                            \
        : Activate(_mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sums[r][j], comp[j])), scale[j], bias[j]), \
                   s.activation))
  if (silu) {
    for (int j = 0; j < J; ++j) {
      for (int r = 0; r < P; ++r) {
        _mm512_store_ps(values[j][r],
                        _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sums[r][j], comp[j])), scale[j], bias[j]));
      }
    }
    SiluInPlaceAvx512(values[0][0], J * P * kLanes);
  }
  int64_t pixel_at[P];
  OutPixels(s, p0, pixel_at);
  for (int j = 0; j < J; ++j) {
    const int64_t f = f0 + j * kLanes;
    if (s.bo != kLanes || f + kLanes > s.f) {
      for (int r = 0; r < P; ++r) StoreVector(s, MLC_INT8_NCHWC_RESULT(j, r), f, pixel_at[r]);
      continue;
    }
    // A whole block of 16 channels.
    const int64_t block_at = f / kLanes * s.out_pixels * kLanes;
    if (!s.requantize.on || s.dequantize) {
      float* dst = reinterpret_cast<float*>(s.out) + block_at;
      for (int r = 0; r < P; ++r) {
        const __m512 v = MLC_INT8_NCHWC_RESULT(j, r);
        _mm512_storeu_ps(dst + pixel_at[r] * kLanes, s.dequantize ? DequantizedLanes(v, s.requantize) : v);
      }
      continue;
    }
    uint8_t* dst = reinterpret_cast<uint8_t*>(s.out) + block_at;
    int r = 0;
    // Four pixels in one 64-byte store where they are contiguous (not across a bordered row).
    for (; r + 4 <= P && pixel_at[r + 3] == pixel_at[r] + 3; r += 4) {
      __m512i q[4];
      for (int i = 0; i < 4; ++i) q[i] = RequantizedLanes(MLC_INT8_NCHWC_RESULT(j, r + i), s.requantize);
      _mm512_storeu_si512(dst + pixel_at[r] * kLanes, PackRequantized(q[0], q[1], q[2], q[3], s.requantize.lo < 0));
    }
    for (; r < P; ++r) StoreRequantized(dst + pixel_at[r] * kLanes, 0xFFFF, MLC_INT8_NCHWC_RESULT(j, r), s.requantize);
  }
#undef MLC_INT8_NCHWC_RESULT
}

/*! \brief TileVnni for `pixels` <= 8 pixels and `vectors` <= 2 vectors of channels. */
template <int P = kPixelTile>
void TileVnniAny(const Problem& s, int64_t f0, int64_t vectors, int64_t p0, int64_t pixels) {
  if constexpr (P > 1) {
    if (pixels < P) return TileVnniAny<P - 1>(s, f0, vectors, p0, pixels);
  }
  // uint8 input is broadcast from memory as it is; int8 has 128 added (an xor) first.
  if (vectors == 2)
    s.flip != 0 ? TileVnni<P, 2, true>(s, f0, p0) : TileVnni<P, 2, false>(s, f0, p0);
  else
    s.flip != 0 ? TileVnni<P, 1, true>(s, f0, p0) : TileVnni<P, 1, false>(s, f0, p0);
}

/*! \brief Output channels [f0, f0 + channels) x pixels [p0, p0 + pixels), one multiply-add per
 *  product, from either weight form. */
template <typename T>
void TilePortable(const Problem& s, const T* w, int64_t f0, int64_t channels, int64_t p0, int64_t pixels) {
  const auto [lanes, taps] = PanelShapeOf(s.w16 != nullptr);
  const int64_t groups = s.c / taps;
  for (int64_t p = p0; p < p0 + pixels; ++p) {
    for (int64_t f = f0; f < std::min(s.f, f0 + channels); ++f) {
      const T* row = w + (f / lanes * groups * lanes + f % lanes) * taps;
      int32_t acc = 0;
      for (int64_t c = 0; c < s.c; ++c)
        acc += static_cast<int32_t>(row[c / taps * lanes * taps + c % taps]) * InputByte(s, p, c);
      FinishOne(s, acc, f, p);
    }
  }
}

/*! \brief Pixels [p0, p0 + count) of every channel block as int16, made uint8 first:
 *  widened[(block * count + r) * b + i] is channel block * b + i at pixel p0 + r. A block's
 *  pixels are one contiguous run of bytes. */
__attribute__((target("avx2"))) void WidenPixels(const Problem& s, int64_t p0, int64_t count, int16_t* widened) {
  const uint8_t flip = static_cast<uint8_t>(s.flip);
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
  const int64_t run = count * s.b;
  for (int64_t block = 0; block < s.c / s.b; ++block) {
    const uint8_t* src = s.x + (block * s.pixels + p0) * s.b;
    int16_t* dst = widened + block * run;
    int64_t i = 0;
    for (; i + 16 <= run; i += 16) {
      const __m128i bytes = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)), flips);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_cvtepu8_epi16(bytes));
    }
    for (; i < run; ++i) dst[i] = static_cast<int16_t>(src[i] ^ flip);
  }
}

/*! \brief Up to 8 int32 or float values from `p` (`count` of them, zero past), as a vector. */
__attribute__((target("avx2"), always_inline)) inline __m256i LoadLanes(const void* p, int64_t count) {
  if (count >= 8) return _mm256_loadu_si256(static_cast<const __m256i*>(p));
  const __m256i mask =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(count)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  return _mm256_maskload_epi32(static_cast<const int*>(p), mask);
}

/*! \brief Where the AVX2 tile stores a vector of 8 output channels: one run of 8 lanes where
 *  the output's blocks (bo) are 8 or 16, two runs of 4 where they are 4 (F, a multiple of bo,
 *  ends on a run), each advancing bo elements per pixel. Computed once per vector of channels,
 *  not per pixel: the divisions by bo are most of a store's cost. */
struct LaneRuns {
  int64_t at[2];  // element offsets of the runs at output pixel 0 (at[1] < 0: none)
  int64_t run;    // lanes per run
};

inline LaneRuns LaneRunsOf(const Problem& s, int64_t f) {
  auto at = [&](int64_t g) { return g / s.bo * s.out_pixels * s.bo + g % s.bo; };
  const int64_t run = std::min<int64_t>(s.bo, kAvx2Lanes);
  return {{at(f), run < kAvx2Lanes && f + run < s.f ? at(f + run) : -1}, run};
}

/*! \brief Stores `v` (8 channels' results at a pixel `offset` elements into each run) to its
 *  runs in `out`: requantized bytes with `rq` on, floats otherwise (dequantized again with
 *  `dequantize`). */
__attribute__((target("avx2,fma"), always_inline)) inline void StoreLanes(char* out, const LaneRuns& runs,
                                                                          int64_t offset, __m256 v,
                                                                          const Requantize& rq, bool dequantize) {
  if (dequantize) v = DequantizedLanes(v, rq);
  for (int i = 0; i < 2 && runs.at[i] >= 0; ++i) {
    const __m256 lanes = i == 0 ? v : _mm256_permute2f128_ps(v, v, 1);  // the upper 4 lanes first
    const int64_t at = runs.at[i] + offset;
    if (rq.on && !dequantize)
      StoreRequantized(reinterpret_cast<uint8_t*>(out) + at, runs.run, lanes, rq);
    else if (runs.run == kAvx2Lanes)
      _mm256_storeu_ps(reinterpret_cast<float*>(out) + at, lanes);
    else
      _mm_storeu_ps(reinterpret_cast<float*>(out) + at, _mm256_castps256_ps128(lanes));
  }
}

/*! \brief The 256-bit tiles' epilogue: the int32 sums of P pixels (from p0) x J vectors of 8
 *  output channels (from f0), finished and stored. */
template <int P, int J>
__attribute__((target("avx2,fma"), always_inline)) inline void FinishTile256(const Problem& s,
                                                                             const __m256i (&sums)[6][2], int64_t f0,
                                                                             int64_t p0) {
  __m256i comp[J];
  __m256 scale[J], bias[J];
  for (int j = 0; j < J; ++j) {
    const int64_t f = f0 + j * kAvx2Lanes, left = s.f - f;
    comp[j] = LoadLanes(s.comp + f, left);
    scale[j] = _mm256_castsi256_ps(LoadLanes(s.scale + f, left));
    bias[j] = _mm256_castsi256_ps(LoadLanes(s.bias + f, left));
  }
  // Locals: the stores (through char) could alias `s`, whose fields would be read again after each.
  const Requantize rq = s.requantize;
  const bool dequantize = s.dequantize;
  const Int8Activation activation = s.activation;
  char* const out = s.out;
  LaneRuns runs[J];
  for (int j = 0; j < J; ++j) runs[j] = LaneRunsOf(s, f0 + j * kAvx2Lanes);
  int64_t offset[P];  // each pixel's first element in a run
  OutPixels(s, p0, offset);
  for (int r = 0; r < P; ++r) offset[r] *= s.bo;
  alignas(32) float values[J][P][kAvx2Lanes];
  for (int j = 0; j < J; ++j) {
    for (int r = 0; r < P; ++r) {
      const __m256 v = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(sums[r][j], comp[j])), scale[j], bias[j]);
      if (activation == Int8Activation::kSilu)
        _mm256_store_ps(values[j][r], v);
      else
        StoreLanes(out, runs[j], offset[r], Activate(v, activation), rq, dequantize);
    }
  }
  if (activation != Int8Activation::kSilu) return;
  // SiLU over the whole tile in one call (int8_conv2d.cc's reason).
  SiluInPlaceAvx2(values[0][0], J * P * kAvx2Lanes);
  for (int j = 0; j < J; ++j) {
    for (int r = 0; r < P; ++r) StoreLanes(out, runs[j], offset[r], _mm256_load_ps(values[j][r]), rq, dequantize);
  }
}

/*! \brief A tile of P pixels (chunk positions from r0, image pixels from p0) x J vectors of 8
 *  output channels (from f0) with AVX2, from the chunk's widened pixels (`count` of them),
 *  then finished. */
template <int P, int J>
__attribute__((target("avx2,fma"))) void TileAvx2(const Problem& s, const int16_t* widened, int64_t count, int64_t r0,
                                                  int64_t f0, int64_t p0) {
  static_assert(P >= 1 && P <= 6 && J >= 1 && J <= 2, "at most 6 pixels x 16 channels");
  // Named accumulators, not an array: int8_conv2d.cc's reason.
  __m256i a0 = _mm256_setzero_si256(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0, a4 = a0, b4 = a0,
          a5 = a0, b5 = a0;
  const int64_t pairs = s.c / 2, b = s.b;
  const int16_t* w = s.w16 + f0 / kAvx2Lanes * pairs * 2 * kAvx2Lanes;
  for (int64_t block = 0; block < s.c / b; ++block) {
    const int16_t* x = widened + (block * count + r0) * b;
    for (int64_t i = 0; i < b; i += 2, x += 2, w += 2 * kAvx2Lanes) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
      const __m256i w1 = J > 1 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + pairs * 2 * kAvx2Lanes)) : w0;
      // A pixel's two int16 values broadcast from memory; the sums added in place (int8_conv2d.cc's
      // reason). Macros: a lambda would not inherit the function's target.
#define MLC_ACCUMULATE(acc, product) __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(product))
#define MLC_INT8_NCHWC_AVX2_PIXEL(r, lo, hi)                           \
  {                                                                    \
    int32_t pair;                                                      \
    std::memcpy(&pair, x + (r)*b, 4);                                  \
    const __m256i c = _mm256_set1_epi32(pair);                         \
    MLC_ACCUMULATE(lo, _mm256_madd_epi16(c, w0));                      \
    if constexpr (J > 1) MLC_ACCUMULATE(hi, _mm256_madd_epi16(c, w1)); \
  }
      MLC_INT8_NCHWC_AVX2_PIXEL(0, a0, b0)
      if constexpr (P > 1) MLC_INT8_NCHWC_AVX2_PIXEL(1, a1, b1)
      if constexpr (P > 2) MLC_INT8_NCHWC_AVX2_PIXEL(2, a2, b2)
      if constexpr (P > 3) MLC_INT8_NCHWC_AVX2_PIXEL(3, a3, b3)
      if constexpr (P > 4) MLC_INT8_NCHWC_AVX2_PIXEL(4, a4, b4)
      if constexpr (P > 5) MLC_INT8_NCHWC_AVX2_PIXEL(5, a5, b5)
#undef MLC_INT8_NCHWC_AVX2_PIXEL
#undef MLC_ACCUMULATE
    }
  }
  const __m256i sums[6][2] = {{a0, b0}, {a1, b1}, {a2, b2}, {a3, b3}, {a4, b4}, {a5, b5}};
  FinishTile256<P, J>(s, sums, f0, p0);
}

/*! \brief TileAvx2 for `pixels` <= 6 pixels and `vectors` <= 2 vectors of channels. */
template <int P = kAvx2Pixels>
void TileAvx2Any(const Problem& s, const int16_t* widened, int64_t count, int64_t r0, int64_t f0, int64_t vectors,
                 int64_t p0, int64_t pixels) {
  if constexpr (P > 1) {
    if (pixels < P) return TileAvx2Any<P - 1>(s, widened, count, r0, f0, vectors, p0, pixels);
  }
  if (vectors == 2)
    TileAvx2<P, 2>(s, widened, count, r0, f0, p0);
  else
    TileAvx2<P, 1>(s, widened, count, r0, f0, p0);
}

/*! \brief A tile of P pixels (from p0) x J vectors of 8 output channels (from f0, a panel's
 *  first) with AVX-VNNI (vpdpbusd on ymm: Intel's cores without AVX-512): per group of 4 input
 *  channels, the panel's two halves and, per pixel, a broadcast of its 4 bytes from the image
 *  and two vpdpbusd; 12 accumulators. The AVX-512 VNNI tile at half the width. */
template <int P, int J, bool kSigned>
__attribute__((target("avx2,fma,avxvnni"))) void TileAvxVnni(const Problem& s, int64_t f0, int64_t p0) {
  static_assert(P >= 1 && P <= 6 && J >= 1 && J <= 2, "at most 6 pixels x 16 channels");
  __m256i a0 = _mm256_setzero_si256(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0, a4 = a0, b4 = a0,
          a5 = a0, b5 = a0;
  const int64_t b = s.b;
  const int8_t* w = s.w + f0 / kLanes * s.groups() * kLanes * 4;
  const __m256i flip = _mm256_set1_epi32(static_cast<int32_t>(s.flip));
  for (int64_t block = 0; block < s.c / b; ++block) {
    const uint8_t* x = s.x + (block * s.pixels + p0) * b;
    for (int64_t i = 0; i < b; i += 4, x += 4, w += kLanes * 4) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
      const __m256i w1 = J > 1 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32)) : w0;
#define MLC_INT8_NCHWC_AVXVNNI_PIXEL(r, lo, hi)           \
  {                                                       \
    int32_t four;                                         \
    std::memcpy(&four, x + (r)*b, 4);                     \
    __m256i c = _mm256_set1_epi32(four);                  \
    if constexpr (kSigned) c = _mm256_xor_si256(c, flip); \
    DotAccumulate(lo, c, w0);                             \
    if constexpr (J > 1) DotAccumulate(hi, c, w1);        \
  }
      MLC_INT8_NCHWC_AVXVNNI_PIXEL(0, a0, b0)
      if constexpr (P > 1) MLC_INT8_NCHWC_AVXVNNI_PIXEL(1, a1, b1)
      if constexpr (P > 2) MLC_INT8_NCHWC_AVXVNNI_PIXEL(2, a2, b2)
      if constexpr (P > 3) MLC_INT8_NCHWC_AVXVNNI_PIXEL(3, a3, b3)
      if constexpr (P > 4) MLC_INT8_NCHWC_AVXVNNI_PIXEL(4, a4, b4)
      if constexpr (P > 5) MLC_INT8_NCHWC_AVXVNNI_PIXEL(5, a5, b5)
#undef MLC_INT8_NCHWC_AVXVNNI_PIXEL
    }
  }
  const __m256i sums[6][2] = {{a0, b0}, {a1, b1}, {a2, b2}, {a3, b3}, {a4, b4}, {a5, b5}};
  FinishTile256<P, J>(s, sums, f0, p0);
}

/*! \brief TileAvxVnni for `pixels` <= 6 pixels and the channels [f0, f0 + 16) of one panel,
 *  those below F. */
template <int P = kAvx2Pixels>
void TileAvxVnniAny(const Problem& s, int64_t f0, int64_t p0, int64_t pixels) {
  if constexpr (P > 1) {
    if (pixels < P) return TileAvxVnniAny<P - 1>(s, f0, p0, pixels);
  }
  const bool two = s.f - f0 > kAvx2Lanes;
  if (s.flip != 0)
    two ? TileAvxVnni<P, 2, true>(s, f0, p0) : TileAvxVnni<P, 1, true>(s, f0, p0);
  else
    two ? TileAvxVnni<P, 2, false>(s, f0, p0) : TileAvxVnni<P, 1, false>(s, f0, p0);
}

/*! \brief The border of one output image around the pixels the tiles store: zeros, or the
 *  zero point's byte (what a pad of the bytes by it would hold). Rows above and below whole,
 *  then the columns at each interior row's ends. */
void FillBorder(const Problem& s, int64_t bytes) {
  const int64_t height = s.pixels / s.width, out_height = s.out_pixels / s.out_width;
  const int64_t right = s.out_width - s.width - s.left, bottom = out_height - height - s.top;
  const uint8_t zero = bytes == 1 ? static_cast<uint8_t>(static_cast<int32_t>(s.requantize.zero)) : 0;
  const int64_t row = s.out_width * s.bo * bytes;  // one output row of a channel block
  // On the calling thread: a few percent of the image, less than waking the pool costs.
  for (int64_t block = 0; block < s.f / s.bo; ++block) {
    char* image = s.out + block * s.out_pixels * s.bo * bytes;
    std::memset(image, zero, s.top * row);
    std::memset(image + (s.top + height) * row, zero, bottom * row);
    for (int64_t y = s.top; y < s.top + height; ++y) {
      std::memset(image + y * row, zero, s.left * s.bo * bytes);
      std::memset(image + y * row + (s.left + s.width) * s.bo * bytes, zero, right * s.bo * bytes);
    }
  }
}

/*! \brief A block of channels (b or bo) the layouts allow: a multiple of 4 that divides 16. */
bool IsChannelBlock(int64_t b) { return b == 4 || b == 8 || b == 16; }

absl::Status Conv2dNchwc(absl::Span<DLTensor* const> args) {
  constexpr const char* kName = "mlc.int8.conv2d_nchwc";
  // The optional operands after bias: requantize (float32), then store (int64).
  if (args.size() < 7 || args.size() > 9)
    return absl::InvalidArgumentError(absl::StrCat(kName, " takes 7 to 9 tensors; got ", args.size()));
  if (absl::Status st = CheckTensorArgs(args, args.size(), kName); !st.ok()) return st;
  const DLTensor* requantize_arg = args.size() > 7 && HasDtype(args[6], kDLFloat, 32) ? args[6] : nullptr;
  const DLTensor* store =
      args.size() > 7 && HasDtype(args[args.size() - 2], kDLInt, 64) ? args[args.size() - 2] : nullptr;
  if (args.size() - 7 != (requantize_arg != nullptr) + (store != nullptr) ||
      (store != nullptr && (store->ndim != 1 || store->shape[0] != 5))) {
    return absl::InvalidArgumentError(absl::StrCat(
        kName, ": after bias come an optional float32 requantize[2 or 4] and an optional int64 store[5], then out"));
  }
  const bool requantized = requantize_arg != nullptr;
  // store: (top, left, bottom, right, dequantized: 0, or 1 / 2 for uint8 / int8 values as float).
  int64_t border[4] = {0, 0, 0, 0}, dequantized = 0;
  if (store != nullptr) {
    const int64_t* st = reinterpret_cast<const int64_t*>(DataOf(store));
    std::copy_n(st, 4, border);
    dequantized = st[4];
    if (std::any_of(border, border + 4, [](int64_t e) { return e < 0; }) || dequantized < 0 || dequantized > 2 ||
        (dequantized != 0 && !requantized)) {
      return absl::InvalidArgumentError(
          absl::StrCat(kName, ": store (", st[0], ", ", st[1], ", ", st[2], ", ", st[3], ", ", st[4],
                       ") needs borders >= 0 and dequantized 0, or 1 (uint8) / 2 (int8) with requantize"));
    }
  }
  DLTensor *x = args[0], *w = args[1], *geometry = args[2], *comp = args[3], *scale = args[4], *bias = args[5],
           *out = args.back();
  const bool x_ok = (HasDtype(x, kDLUInt, 8) || HasDtype(x, kDLInt, 8)) && x->ndim == 5;
  const bool out_int = HasDtype(out, kDLUInt, 8) || HasDtype(out, kDLInt, 8);
  const bool out_ok = out->ndim == 5 && (requantized && dequantized == 0 ? out_int : HasDtype(out, kDLFloat, 32));
  // The weight's form: int8 panels of 16 channels x 4 taps, or int16 ones of 8 x 2.
  const bool w16 = HasDtype(w, kDLInt, 16);
  // Not a structured binding: the lambda below captures `lanes` (clang 14 refuses one).
  const PanelShape panel = PanelShapeOf(w16);
  const int64_t lanes = panel.lanes, taps = panel.taps;
  const bool w_ok = (w16 || HasDtype(w, kDLInt, 8)) && w->ndim == 4 && w->shape[2] == lanes && w->shape[3] == taps;
  if (!x_ok || !out_ok || !w_ok || !HasDtype(geometry, kDLInt, 64) || geometry->ndim != 1 || geometry->shape[0] != 12) {
    return absl::InvalidArgumentError(absl::StrCat(
        kName,
        " expects uint8/int8 x[N, C/b, H, W, b], w as int8[Fp/16, C/4, 16, 4] or int16[Fp/8, C/2, 8, 2], int64 "
        "geometry[12] and out[N, F/bo, H, W, bo] float32 (uint8/int8 after requantize[2 or 4], unless store "
        "dequantizes)"));
  }
  const int64_t b = x->shape[4], bo = out->shape[4], c = x->shape[1] * b, f = out->shape[1] * bo;
  if (!IsChannelBlock(b) || !IsChannelBlock(bo)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": channel blocks of ", b, " (x) and ", bo, " (out); 4, 8 or 16 were expected"));
  }
  if (out->shape[0] != x->shape[0] || out->shape[2] != x->shape[2] + border[0] + border[2] ||
      out->shape[3] != x->shape[3] + border[1] + border[3]) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": out must have x's batch and pixels (a 1 x 1 window at stride 1), with store's border"));
  }
  if (w->shape[0] != (f + lanes - 1) / lanes || w->shape[1] * taps != c) {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": w holds ", w->shape[0], " panels of ", w->shape[1] * taps,
                                                   " channels; ", (f + lanes - 1) / lanes, " panels of C = ", c,
                                                   " were expected"));
  }
  if (!HasDtype(comp, kDLInt, 32) || !HasDtype(scale, kDLFloat, 32) || !HasDtype(bias, kDLFloat, 32) ||
      comp->ndim != 1 || scale->ndim != 1 || bias->ndim != 1 || comp->shape[0] != f || scale->shape[0] != f ||
      bias->shape[0] != f) {
    return absl::InvalidArgumentError(absl::StrCat(
        kName, ": compensation (int32), scale and bias (float32) need one value per stored output channel (", f, ")"));
  }
  const int64_t* g = reinterpret_cast<const int64_t*>(DataOf(geometry));
  // (stride_h, stride_w, pad_top, pad_left, pad_bottom, pad_right, dilation_h, dilation_w,
  //  kernel_h, kernel_w, zero_point, activation): a 1 x 1 window at stride 1 without padding.
  if (g[0] != 1 || g[1] != 1 || g[2] != 0 || g[3] != 0 || g[4] != 0 || g[5] != 0 || g[8] != 1 || g[9] != 1) {
    return absl::InvalidArgumentError(absl::StrCat(kName,
                                                   ": geometry must be a 1 x 1 window at stride 1 without "
                                                   "padding (kernel ",
                                                   g[8], " x ", g[9], ", strides ", g[0], ", ", g[1], ")"));
  }
  const std::optional<Int8Activation> activation = Int8ActivationOf(g[11]);
  if (!activation) {
    return absl::InvalidArgumentError(absl::StrCat(
        kName, ": activation code ", g[11], " (geometry[11]) is not 0 (none), 1 (ReLU), 2 (SiLU) or 3 (HardSwish)"));
  }
  Requantize requantize;
  if (requantized) {
    const bool out_signed = dequantized != 0 ? dequantized == 2 : HasDtype(out, kDLInt, 8);
    absl::StatusOr<Requantize> r = ParseRequantize(requantize_arg, out_signed, kName);
    if (!r.ok()) return r.status();
    requantize = *r;
  }
  Problem s{nullptr,
            w16 ? nullptr : reinterpret_cast<const int8_t*>(DataOf(w)),
            w16 ? reinterpret_cast<const int16_t*>(DataOf(w)) : nullptr,
            reinterpret_cast<const int32_t*>(DataOf(comp)),
            reinterpret_cast<const float*>(DataOf(scale)),
            reinterpret_cast<const float*>(DataOf(bias)),
            nullptr,
            c,
            b,
            f,
            bo,
            x->shape[2] * x->shape[3],
            HasDtype(x, kDLInt, 8) ? 0x80808080u : 0u,
            *activation,
            requantize,
            x->shape[3],
            out->shape[3],
            border[0],
            border[1],
            out->shape[2] * out->shape[3],
            dequantized != 0};
  // AMX has no tile here: its CPUs take the VNNI one. int16 weights never take a VNNI path.
  const Int8Path path = ChooseInt8Path(/*int8_weights=*/!w16);
  const bool vnni = path == Int8Path::kVnni || path == Int8Path::kAmx, avx2 = w16 && path == Int8Path::kAvx2;
  const bool avxvnni = !w16 && path == Int8Path::kAvxVnni;
  const int64_t out_bytes = HasDtype(out, kDLFloat, 32) ? 4 : 1;
  // Register tiles of two weight vectors of channels by tile_pixels; a task is a chunk of at
  // most kChunkTiles pixel tiles (32 pixels with AVX-512 VNNI, 24 with the 256-bit tiles: their
  // channels stay in L1) and a range of channel tiles, split only where the chunks alone are
  // too few to balance the threads (a 7 x 7 image has two). The tiles are dealt out evenly
  // over the chunks, and the channel tiles over the splits: a 7 x 7 image in chunks of 32 and
  // 17 pixels kept one thread waiting a third of the call (int8 MobileNetV3's last layers).
  const int64_t tile_pixels = avx2 || avxvnni ? kAvx2Pixels : kPixelTile;
  const int64_t pixel_tiles = (s.pixels + tile_pixels - 1) / tile_pixels;
  const int64_t chunks = (pixel_tiles + kChunkTiles - 1) / kChunkTiles;
  // Chunk `chunk`'s first pixel and pixel count.
  auto chunk_pixels = [&](int64_t chunk) -> std::pair<int64_t, int64_t> {
    const int64_t first = chunk * pixel_tiles / chunks * tile_pixels;
    const int64_t last = std::min(s.pixels, (chunk + 1) * pixel_tiles / chunks * tile_pixels);
    return {first, last - first};
  };
  const int64_t vectors = (f + lanes - 1) / lanes, channel_tiles = (vectors + 1) / 2;
  const bool serial = RunsSerially(x->shape[0] * f * s.pixels * c);
  ThreadPool::SerialLaunches small(serial);
  const int64_t threads = serial ? 1 : ThreadPool::Global().num_threads();
  // Dequantized floats go to a float convolution that shares its threads out by channel
  // blocks: each thread then makes one range of channels at every pixel, the floats it reads
  // next (chunk-major, each core's blocks came from both cores, four bytes an element: int8
  // MobileNetV2 7% slower on two threads of a Zen 5 than with its `dequantize, pad` kernels).
  const bool by_channels = s.dequantize && threads > 1 && vectors >= threads;
  const int64_t splits =
      by_channels ? threads : std::min(channel_tiles, std::max<int64_t>(1, (4 * threads + chunks - 1) / chunks));
  // Split `split`'s vectors of channels: an even share of whole tiles, or (by_channels) of
  // vectors.
  auto split_vectors = [&](int64_t split) -> std::pair<int64_t, int64_t> {
    if (by_channels) return {split * vectors / splits, (split + 1) * vectors / splits};
    return {std::min(vectors, 2 * (split * channel_tiles / splits)),
            std::min(vectors, 2 * ((split + 1) * channel_tiles / splits))};
  };
  for (int64_t n = 0; n < x->shape[0]; ++n) {
    s.x = reinterpret_cast<const uint8_t*>(DataOf(x)) + n * c * s.pixels;
    s.out = DataOf(out) + n * f * s.out_pixels * out_bytes;
    if (s.bordered()) FillBorder(s, out_bytes);
    ParallelFor(chunks * splits, [&](int64_t begin, int64_t end) {
      // The AVX2 tile's int16 pixels, this thread's own (reused: fresh ones page-fault each time).
      thread_local std::vector<int16_t> widened;
      for (int64_t task = begin; task < end; ++task) {
        const int64_t chunk = by_channels ? task % chunks : task / splits;
        const auto [first_vector, last_vector] = split_vectors(by_channels ? task / chunks : task % splits);
        const auto [chunk_p0, count] = chunk_pixels(chunk);
        if (first_vector >= last_vector) continue;
        if (avx2) {
          widened.resize(c * count);
          WidenPixels(s, chunk_p0, count, widened.data());
        }
        for (int64_t v = first_vector; v < last_vector; v += 2) {
          const int64_t f0 = v * lanes, tile_vectors = std::min<int64_t>(2, last_vector - v);
          for (int64_t r0 = 0; r0 < count; r0 += tile_pixels) {
            const int64_t p0 = chunk_p0 + r0, pixels = std::min(tile_pixels, count - r0);
            if (avx2)
              TileAvx2Any(s, widened.data(), count, r0, f0, tile_vectors, p0, pixels);
            else if (vnni)
              TileVnniAny(s, f0, tile_vectors, p0, pixels);
            else if (avxvnni)
              for (int64_t panel = 0; panel < tile_vectors; ++panel) TileAvxVnniAny(s, f0 + panel * kLanes, p0, pixels);
            else if (w16)
              TilePortable(s, s.w16, f0, tile_vectors * lanes, p0, pixels);
            else
              TilePortable(s, s.w, f0, tile_vectors * lanes, p0, pixels);
          }
        }
      }
    });
  }
  return absl::OkStatus();
}

MLC_REGISTER_RUNTIME_FUNC("mlc.int8.conv2d_nchwc", Conv2dNchwc);
// Two operations per multiply-add: every stored output channel at every pixel by the C input
// channels.
MLC_REGISTER_RUNTIME_FUNC_OPERATIONS("mlc.int8.conv2d_nchwc", [](absl::Span<DLTensor* const> args) -> int64_t {
  if (args.size() < 7 || args[0]->ndim != 5 || args.back()->ndim != 5) return 0;
  // out may hold a border: x's pixels count.
  const int64_t pixels = args[0]->shape[0] * args[0]->shape[2] * args[0]->shape[3];
  return 2 * pixels * args.back()->shape[1] * args.back()->shape[4] * args[0]->shape[1] * args[0]->shape[4];
});

}  // namespace
}  // namespace vm
}  // namespace mlc
