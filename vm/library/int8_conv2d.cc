/*! \file int8_conv2d.cc
 *  \brief The int8 convolution micro-kernel, the target of the qdq-to-integer pass.
 *
 *    mlc.int8.conv2d(x[N,C,H,W] uint8 or int8, w[F,Kp] int8 or int16, geometry[12] int64,
 *                    compensation[F] int32, scale[F] float32, bias[F] float32, out[N,F,OH,OW] float32)
 *
 *  out[n, f, p] = act(scale[f] * (sum_k w[f, k] * col[k, p] - compensation[f]) + bias[f]) where
 *  col is the im2col matrix of x taken as uint8 (int8 x has 128 added, so every product is
 *  unsigned x signed, what AVX-512 VNNI's vpdpbusd multiplies), rows k = (c, ky, kx), padded
 *  with the zero point; w is the weight flattened to K = C*KH*KW columns and padded with zeros
 *  to Kp, a multiple of 4. geometry = (stride_h, stride_w, pad_top, pad_left, pad_bottom,
 *  pad_right, dilation_h, dilation_w, kernel_h, kernel_w, x_zero_point (uint8 domain), act), act
 *  the Int8Activation code (0 none, 1 ReLU, 2 SiLU, 3 HardSwish: int8_common.h).
 *  The pass folds the zero point into compensation[f] = zero_point * sum_k w[f, k].
 *
 *    mlc.int8.conv2d(x, w, geometry, compensation, scale, bias, requantize[2] float32,
 *                    out[N,F,OH,OW] uint8 or int8)
 *
 *  is the same convolution with the quantize of its result fused (the next layer's input:
 *  requantize = (scale, zero point), or (scale, zero point, lo, hi) with the float result
 *  clipped to [lo, hi] first: ReLU6; Requantize in int8_common.h): the float result is never
 *  written, a fourth of the bytes are, and no separate kernel reads them back.
 *
 *  Like IREE's CPU micro-kernels, this one is written by hand: the loop programs' tensorize path
 *  has a float32 register tile only. The columns are packed in panels of 32 pixels with
 *  groups of 4 consecutive k interleaved ([panel][k/4][32][4]), so a panel is one contiguous
 *  stream and each k-group of 32 pixels is two 64-byte vectors; the tile is 8 output channels
 *  x 32 pixels, 16 accumulators. CPUs with AVX-VNNI but not AVX-512 run the same tile at half the
 *  width (6 channels x 16 pixels). AVX2 CPUs without VNNI widen to int16 (the weights at compile
 *  time, for targets without VNNI) and use vpmaddwd (exact; 6 channels x 8 pixels); others take
 *  a portable loop over the same layout.
 */
// GCC 12 warns that its own AVX-512 headers read an uninitialized vector (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "vm/library/dltensor_view.h"
#include "vm/library/int8_common.h"
#include "vm/runtime_registry.h"
#include "vm/thread_pool.h"

namespace mlc {
namespace vm {
namespace {

constexpr int64_t kPanel = 32;          // pixels per panel: two vectors of 16 int32 lanes
constexpr int64_t kRows = 8;            // output channels per register tile (VNNI)
constexpr int64_t kAvx2Rows = 6;        // ... (AVX2: 12 of the 16 ymm registers accumulate)
constexpr int64_t kAvx2Pixels = 8;      // pixels per AVX2 tile
constexpr int64_t kAvxVnniRows = 6;     // AVX-VNNI: 12 of the 16 ymm registers accumulate
constexpr int64_t kAvxVnniPixels = 16;  // ... over half a panel
constexpr int64_t kAmxTileRows = 16;    // output channels per AMX tile (its 16 rows)

/*! \brief The bytes of columns a cache block holds: half of this core's L2 (512 KB where the OS
 *  does not say). */
int64_t CacheBlockBytes() {
  static const int64_t l2 = HostCaches().l2_bytes;
  return (l2 > 0 ? l2 : int64_t{1} << 20) / 2;
}

struct Geometry {
  int64_t c, h, w, f, kh, kw, oh, ow, k, kp;
  int64_t stride[2], pad[4], dilation[2];
  uint8_t zero_point;
  Int8Activation activation;
  bool x_signed;
  Requantize requantize;  // on: out is uint8/int8, the result quantized
  int64_t pixels() const { return oh * ow; }
  int64_t padded_h() const { return h + pad[0] + pad[2]; }
  int64_t padded_w() const { return w + pad[1] + pad[3]; }
  int64_t panels() const { return (pixels() + kPanel - 1) / kPanel; }
};

/*! \brief Bytes past the padded image that the tap copies may read (CopyTaps reads up to 32
 *  past the last tap it needs). */
constexpr int64_t kPaddedSlack = 64;

/*! \brief dst[i] = src[i] ^ flip for i < n: 16 bytes at a time, the last 16 overlapping, or two
 *  overlapping words below 16 (rows of 7 and 14 pixels). */
void CopyFlipped(const uint8_t* __restrict src, int64_t n, uint8_t flip, uint8_t* __restrict dst) {
  if (n >= 16) {
    const __m128i f = _mm_set1_epi8(static_cast<char>(flip));
    auto copy16 = [&](int64_t i) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_xor_si128(v, f));
    };
    for (int64_t i = 0; i + 16 <= n; i += 16) copy16(i);
    copy16(n - 16);
  } else if (n >= 8) {
    const uint64_t f8 = 0x0101010101010101ull * flip;
    uint64_t a, b;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + n - 8, 8);
    a ^= f8, b ^= f8;
    std::memcpy(dst, &a, 8);
    std::memcpy(dst + n - 8, &b, 8);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i] ^ flip;
  }
}

/*! \brief One image with its padding written out as the zero point and int8 made uint8 (128
 *  added): [C][Hp][Wp] and kPaddedSlack bytes. Every window tap of every output pixel is then an
 *  in-bounds read, and the packing copies runs of taps without clipping them. */
void PadImage(const uint8_t* x, const Geometry& g, std::vector<uint8_t>* padded) {
  const int64_t hp = g.padded_h(), wp = g.padded_w();
  padded->resize(g.c * hp * wp + kPaddedSlack);
  uint8_t* base = padded->data();
  const uint8_t flip = g.x_signed ? 0x80 : 0;
  ParallelFor(g.c, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      uint8_t* plane = base + c * hp * wp;
      std::memset(plane, g.zero_point, g.pad[0] * wp);
      for (int64_t y = 0; y < g.h; ++y) {
        uint8_t* row = plane + (g.pad[0] + y) * wp;
        const uint8_t* src = x + (c * g.h + y) * g.w;
        // The side padding is a few bytes: stores, not calls of memset.
        for (int64_t i = 0; i < g.pad[1]; ++i) row[i] = g.zero_point;
        for (int64_t i = g.pad[1] + g.w; i < wp; ++i) row[i] = g.zero_point;
        CopyFlipped(src, g.w, flip, row + g.pad[1]);
      }
      std::memset(plane + (g.pad[0] + g.h) * wp, g.zero_point, g.pad[2] * wp);
    }
  });
  std::memset(base + g.c * hp * wp, g.zero_point, kPaddedSlack);
}

/*! \brief dst[i] = src[i * s] for i < n, 16 taps at a time for s = 1 and 2 (even bytes packed):
 *  writes up to 15 bytes past dst[n - 1] and reads up to 32 past the last tap. Runs of up to 32
 *  are unrolled and longer ones of s = 1 are memcpy: left as a loop, GCC made every run a call
 *  of memmove, a tenth of the int8 convolutions' time for runs of 7 to 32 bytes. */
void CopyTaps(const uint8_t* __restrict src, int64_t s, int64_t n, uint8_t* __restrict dst,
              const uint8_t* readable_end) {
  // Near the end of what may be read (an image read in place, not a padded copy), one by one.
  if (src + n * s + 32 > readable_end) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i * s];
    return;
  }
  if (s == 1 && n > 32) {
    std::memcpy(dst, src, (n + 15) / 16 * 16);
    return;
  }
  auto copy16 = [&](int64_t i) {
    if (s == 1) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    } else {
      const __m128i low_bytes = _mm_set1_epi16(0x00FF);
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i + 16));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                       _mm_packus_epi16(_mm_and_si128(a, low_bytes), _mm_and_si128(b, low_bytes)));
    }
  };
  if (s == 1 || s == 2) {
    copy16(0);
    if (n > 16) copy16(16);
    for (int64_t i = 32; i < n; i += 16) copy16(i);
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i * s];
}

/*! \brief Pixels [dst, dst + len) of a block of panels that lie in one output row: they read, per
 *  window tap, `len` taps from `offset` past the tap's offset in the padded image. */
struct RowRun {
  int64_t dst, len, offset;
};

/*! \brief The columns of one image in panels: [panel][k/4][32 pixels][4], in blocks of up to 8
 *  panels (a task: a block and a range of groups). Per group of 4 rows of k, the block's taps are
 *  copied from the padded image (a few rows of it, in order) and interleaved into each panel, so
 *  a thread writes 8 streams, each in order. Group by group over all panels, the packing stored
 *  64 bytes a panel apart at each step (5 GB/s, a fifth of the int8 convolutions' time); panel
 *  by panel it read a few bytes from every channel plane at each step. Rows past K (up to Kp)
 *  read any bytes: their weights are zero. */
void PackColumns(const uint8_t* padded, const uint8_t* readable_end, const Geometry& g, uint8_t* packed) {
  constexpr int64_t kBlockPanels = 8;
  const int64_t groups = g.kp / 4, wp = g.padded_w(), window = g.kh * g.kw, panels = g.panels();
  // Where row k of the im2col matrix starts in the padded image.
  std::vector<int64_t> tap_offset(g.kp, 0);
  for (int64_t k = 0; k < g.k; ++k) {
    const int64_t c = k / window, ky = k % window / g.kw, kx = k % g.kw;
    tap_offset[k] = (c * g.padded_h() + ky * g.dilation[0]) * wp + kx * g.dilation[1];
  }
  // Tasks are (block, range of groups): at least four per thread, so that they balance.
  const int64_t threads = ThreadPool::Global().num_threads();
  const int64_t block = std::max<int64_t>(1, std::min(kBlockPanels, panels / (4 * threads)));
  const int64_t blocks = (panels + block - 1) / block, block_pixels = block * kPanel;
  const int64_t group_ranges = std::min(groups, (4 * threads + blocks - 1) / blocks);
  const int64_t range_groups = (groups + group_ranges - 1) / group_ranges;
  // Each block's runs of pixels within one output row.
  std::vector<RowRun> runs;
  std::vector<int64_t> first_run;
  for (int64_t p = 0; p < g.pixels();) {
    if (p % block_pixels == 0) first_run.push_back(runs.size());
    const int64_t oy = p / g.ow, ox = p % g.ow, len = std::min(g.ow - ox, block_pixels - p % block_pixels);
    runs.push_back({p % block_pixels, len, oy * g.stride[0] * wp + ox * g.stride[1]});
    p += len;
  }
  first_run.push_back(runs.size());
  ParallelFor(blocks * group_ranges, [&](int64_t begin, int64_t end) {
    // The 4 rows of one group over one block, and the 15 bytes CopyTaps may write past them.
    std::vector<uint8_t> storage(4 * (block_pixels + 16));
    uint8_t* rows[4];
    for (int t = 0; t < 4; ++t) rows[t] = storage.data() + t * (block_pixels + 16);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / group_ranges, first_group = task % group_ranges * range_groups;
      const int64_t first_panel = b * block, last_panel = std::min(panels, first_panel + block);
      for (int64_t q = first_group; q < std::min(groups, first_group + range_groups); ++q) {
        for (int t = 0; t < 4; ++t) {
          const uint8_t* tap = padded + tap_offset[4 * q + t];
          // In order: a run's over-written bytes are the next run's to write.
          for (int64_t r = first_run[b]; r < first_run[b + 1]; ++r)
            CopyTaps(tap + runs[r].offset, g.stride[1], runs[r].len, rows[t] + runs[r].dst, readable_end);
        }
        // 16 pixels of the 4 rows at a time: interleave bytes (r0 r1), (r2 r3), then 16-bit
        // pairs, giving each pixel's 4 bytes in k order.
        for (int64_t panel = first_panel; panel < last_panel; ++panel) {
          uint8_t* out = packed + (panel * groups + q) * kPanel * 4;
          for (int64_t p = 0; p < kPanel; p += 16) {
            const int64_t at = (panel - first_panel) * kPanel + p;
            const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[0] + at));
            const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[1] + at));
            const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[2] + at));
            const __m128i r3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[3] + at));
            const __m128i lo01 = _mm_unpacklo_epi8(r0, r1), hi01 = _mm_unpackhi_epi8(r0, r1);
            const __m128i lo23 = _mm_unpacklo_epi8(r2, r3), hi23 = _mm_unpackhi_epi8(r2, r3);
            auto* dst = reinterpret_cast<__m128i*>(out + p * 4);
            _mm_storeu_si128(dst, _mm_unpacklo_epi16(lo01, lo23));
            _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(lo01, lo23));
            _mm_storeu_si128(dst + 2, _mm_unpacklo_epi16(hi01, hi23));
            _mm_storeu_si128(dst + 3, _mm_unpackhi_epi16(hi01, hi23));
          }
        }
      }
    }
  });
}

/*! \brief The 512-bit paths' float result of channel f's sums (FinishInt8's arithmetic up to
 *  the activation, vectorized). */
__attribute__((target("avx512f,avx512bw"))) inline __m512 Dequantized(__m512i sums, int64_t f, const int32_t* comp,
                                                                      const float* scale, const float* bias) {
  return _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sums, _mm512_set1_epi32(comp[f]))),
                         _mm512_set1_ps(scale[f]), _mm512_set1_ps(bias[f]));
}

/*! \brief Stores channel f's results at pixels [p, p + 16), those below the image's pixel count
 *  (requantized where the kernel's result is). */
__attribute__((target("avx512f,avx512bw"))) inline void StoreFinished(__m512 v, const Geometry& g, int64_t f, int64_t p,
                                                                      void* out) {
  const int64_t pixels = g.pixels();
  if (p >= pixels) return;
  const __mmask16 mask = pixels - p >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << (pixels - p)) - 1);
  if (g.requantize.on)
    StoreRequantized(static_cast<uint8_t*>(out) + f * pixels + p, mask, v, g.requantize);
  else
    _mm512_mask_storeu_ps(static_cast<float*>(out) + f * pixels + p, mask, v);
}

/*! \brief The 512-bit paths' epilogue for a tile's sums: sums[i] are channel f0 + i / per_channel's
 *  at pixels from p0 + 16 * (i % per_channel), finished and stored. SiLU runs over the whole
 *  tile in one call, whose vectors are independent: called per vector, each sigmoid's chain of
 *  latency waited on the last (EfficientNet-B0 int8's convolutions 2.1 -> 3.8 ms). */
template <size_t N>
__attribute__((target("avx512f,avx512bw"))) inline void FinishVectors(const __m512i (&sums)[N], int count,
                                                                      int per_channel, const Geometry& g, int64_t f0,
                                                                      int64_t p0, const int32_t* comp,
                                                                      const float* scale, const float* bias,
                                                                      void* out) {
  if (g.activation != Int8Activation::kSilu) {
    for (int i = 0; i < count; ++i) {
      const int64_t f = f0 + i / per_channel;
      StoreFinished(Activate(Dequantized(sums[i], f, comp, scale, bias), g.activation), g, f,
                    p0 + 16 * (i % per_channel), out);
    }
    return;
  }
  alignas(64) float values[N][16];
  for (int i = 0; i < count; ++i)
    _mm512_store_ps(values[i], Dequantized(sums[i], f0 + i / per_channel, comp, scale, bias));
  SiluInPlaceAvx512(values[0], count * 16);
  for (int i = 0; i < count; ++i)
    StoreFinished(_mm512_load_ps(values[i]), g, f0 + i / per_channel, p0 + 16 * (i % per_channel), out);
}

/*! \brief A tile of R output channels (from f0) x one panel, with VNNI: per group of 4 k, two
 *  64-byte loads of the panel and, per channel, a broadcast of its 4 weights and two vpdpbusd
 *  into named accumulators (DotAccumulate). */
template <int R>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void TileVnni(const int8_t* w, const uint8_t* panel,
                                                                     const Geometry& g, int64_t f0, int64_t p0,
                                                                     const int32_t* comp, const float* scale,
                                                                     const float* bias, void* out) {
  static_assert(R >= 1 && R <= 8, "eight channels at most");
  __m512i a0 = _mm512_setzero_si512(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0, a4 = a0, b4 = a0,
          a5 = a0, b5 = a0, a6 = a0, b6 = a0, a7 = a0, b7 = a0;
  const int64_t groups = g.kp / 4;
  // Each channel's row of weights, advanced 4 k per step.
  const int8_t *w0 = w + f0 * g.kp, *w1 = w0 + g.kp, *w2 = w1 + g.kp, *w3 = w2 + g.kp, *w4 = w3 + g.kp, *w5 = w4 + g.kp,
               *w6 = w5 + g.kp, *w7 = w6 + g.kp;
  const uint8_t* b = panel;
  for (int64_t q = 0; q < groups; ++q, b += kPanel * 4) {
    const __m512i x0 = _mm512_loadu_si512(b), x1 = _mm512_loadu_si512(b + 64);
#define MLC_INT8_VNNI_STEP(w, lo, hi)          \
  {                                            \
    int32_t four;                              \
    std::memcpy(&four, w + 4 * q, 4);          \
    const __m512i c = _mm512_set1_epi32(four); \
    DotAccumulate(lo, x0, c);                  \
    DotAccumulate(hi, x1, c);                  \
  }
    MLC_INT8_VNNI_STEP(w0, a0, b0)
    if constexpr (R > 1) MLC_INT8_VNNI_STEP(w1, a1, b1)
    if constexpr (R > 2) MLC_INT8_VNNI_STEP(w2, a2, b2)
    if constexpr (R > 3) MLC_INT8_VNNI_STEP(w3, a3, b3)
    if constexpr (R > 4) MLC_INT8_VNNI_STEP(w4, a4, b4)
    if constexpr (R > 5) MLC_INT8_VNNI_STEP(w5, a5, b5)
    if constexpr (R > 6) MLC_INT8_VNNI_STEP(w6, a6, b6)
    if constexpr (R > 7) MLC_INT8_VNNI_STEP(w7, a7, b7)
#undef MLC_INT8_VNNI_STEP
  }
  const __m512i sums[16] = {a0, b0, a1, b1, a2, b2, a3, b3, a4, b4, a5, b5, a6, b6, a7, b7};
  FinishVectors(sums, 2 * R, 2, g, f0, p0, comp, scale, bias, out);
}

/*! \brief AMX's tile configuration (palette 1): the eight tiles all 16 rows x 64 bytes. */
struct alignas(64) AmxConfig {
  uint8_t palette = 1, start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};

/*! \brief The tile configuration loaded in this thread for its scope (a pool thread's range of
 *  tasks), and the tile state released after it, so the kernel leaves none for the OS to save
 *  at context switches. */
class AmxScope {
 public:
  __attribute__((target("amx-tile"))) AmxScope() {
    static const AmxConfig config;
    _tile_loadconfig(&config);
  }
  __attribute__((target("amx-tile"))) ~AmxScope() { _tile_release(); }
  AmxScope(const AmxScope&) = delete;
  AmxScope& operator=(const AmxScope&) = delete;
};

/*! \brief A block of 16 RT output channels (from f0) x one panel (32 pixels) with AMX: per 64 k,
 *  RT tiles of weights (16 channels x 64 k; row stride Kp), two of the panel (16 k/4 groups x
 *  16 pixels x 4 k; row stride 128 bytes, the panel's [k/4][32][4] as it is) and 2 RT tdpbsud
 *  (signed weights x unsigned pixels) into tiles of 16 channels x 16 pixels. Needs Kp a
 *  multiple of 64 (a tile row's bytes); tiles 0-3 sum, 4-5 hold weights, 6-7 pixels. */
template <int RT>
__attribute__((target("amx-tile,amx-int8,avx512f,avx512bw"))) void TileAmx(const int8_t* w, const uint8_t* panel,
                                                                           const Geometry& g, int64_t f0, int64_t p0,
                                                                           const int32_t* comp, const float* scale,
                                                                           const float* bias, void* out) {
  static_assert(RT == 1 || RT == 2, "one or two tiles of 16 channels");
  _tile_zero(0);
  _tile_zero(1);
  if constexpr (RT > 1) {
    _tile_zero(2);
    _tile_zero(3);
  }
  const int8_t* a = w + f0 * g.kp;
  const uint8_t* b = panel;
  for (int64_t k = 0; k < g.kp; k += 64, a += 64, b += 16 * kPanel * 4) {
    _tile_loadd(4, a, g.kp);
    if constexpr (RT > 1) _tile_loadd(5, a + 16 * g.kp, g.kp);
    _tile_loadd(6, b, kPanel * 4);
    _tile_loadd(7, b + 64, kPanel * 4);
    _tile_dpbsud(0, 4, 6);
    _tile_dpbsud(1, 4, 7);
    if constexpr (RT > 1) {
      _tile_dpbsud(2, 5, 6);
      _tile_dpbsud(3, 5, 7);
    }
  }
  alignas(64) int32_t sums[RT][2][16][16];  // [channel tile][pixel half][channel][pixel]
  _tile_stored(0, sums[0][0], 64);
  _tile_stored(1, sums[0][1], 64);
  if constexpr (RT > 1) {
    _tile_stored(2, sums[1][0], 64);
    _tile_stored(3, sums[1][1], 64);
  }
  // The intrinsics' assembly declares no memory effects: the stores must land before the reads.
  __asm__ volatile("" ::: "memory");
  __m512i vectors[32 * RT];
  for (int r = 0; r < 16 * RT; ++r) {
    for (int h = 0; h < 2; ++h) vectors[2 * r + h] = _mm512_load_si512(sums[r / 16][h][r % 16]);
  }
  FinishVectors(vectors, 32 * RT, 2, g, f0, p0, comp, scale, bias, out);
}

/*! \brief The 256-bit paths' float result of channel f's sums. */
__attribute__((target("avx2,fma"))) inline __m256 Dequantized(__m256i sums, int64_t f, const int32_t* comp,
                                                              const float* scale, const float* bias) {
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(sums, _mm256_set1_epi32(comp[f]))),
                         _mm256_set1_ps(scale[f]), _mm256_set1_ps(bias[f]));
}

/*! \brief Stores channel f's results at pixels [p, p + 8), those below the image's pixel count. */
__attribute__((target("avx2,fma"))) inline void StoreFinished(__m256 v, const Geometry& g, int64_t f, int64_t p,
                                                              void* out) {
  const int64_t pixels = g.pixels(), left = pixels - p;
  if (left <= 0) return;
  if (g.requantize.on) {
    StoreRequantized(static_cast<uint8_t*>(out) + f * pixels + p, std::min<int64_t>(left, 8), v, g.requantize);
  } else if (left >= 8) {
    _mm256_storeu_ps(static_cast<float*>(out) + f * pixels + p, v);
  } else {
    alignas(32) float tail[8];
    _mm256_store_ps(tail, v);
    std::memcpy(static_cast<float*>(out) + f * pixels + p, tail, left * sizeof(float));
  }
}

/*! \brief The 256-bit paths' epilogue for a tile's sums, as the 512-bit one's (8 pixels a vector). */
template <size_t N>
__attribute__((target("avx2,fma"))) inline void FinishVectors(const __m256i (&sums)[N], int count, int per_channel,
                                                              const Geometry& g, int64_t f0, int64_t p0,
                                                              const int32_t* comp, const float* scale,
                                                              const float* bias, void* out) {
  if (g.activation != Int8Activation::kSilu) {
    for (int i = 0; i < count; ++i) {
      const int64_t f = f0 + i / per_channel;
      StoreFinished(Activate(Dequantized(sums[i], f, comp, scale, bias), g.activation), g, f,
                    p0 + 8 * (i % per_channel), out);
    }
    return;
  }
  alignas(32) float values[N][8];
  for (int i = 0; i < count; ++i)
    _mm256_store_ps(values[i], Dequantized(sums[i], f0 + i / per_channel, comp, scale, bias));
  SiluInPlaceAvx2(values[0], count * 8);
  for (int i = 0; i < count; ++i)
    StoreFinished(_mm256_load_ps(values[i]), g, f0 + i / per_channel, p0 + 8 * (i % per_channel), out);
}

/*! \brief Weights widened to int16 once per call, for the AVX2 tile: [F][Kp]. */
void WidenWeights(const int8_t* w, int64_t count, int16_t* w16) {
  for (int64_t i = 0; i < count; ++i) w16[i] = w[i];
}

/*! \brief A tile of R output channels (from f0) x 4X pixels (from p0, within one panel) with
 *  AVX2, exact: per group of 4 k, the pixels' bytes widened to int16 (two loads of 4 pixels x
 *  4 k), and per channel a broadcast of its 4 int16 weights and two vpmaddwd (each two products
 *  per int32 lane, which cannot overflow, unlike vpmaddubsw's int16 sums). Lane pairs hold one
 *  pixel's two partial sums, added at the end. 2R accumulators, two inputs, a weight and a
 *  product within the 16 registers (R = 3 x 16 pixels needed 18, and GCC kept 9 of its 12
 *  accumulators on the stack, the convolutions at about 11 multiply-adds per cycle). */
template <int R, int X>
__attribute__((target("avx2,fma"))) void TileAvx2(const int16_t* w16, const uint8_t* panel, const Geometry& g,
                                                  int64_t f0, int64_t p0, const int32_t* comp, const float* scale,
                                                  const float* bias, void* out) {
  static_assert(R >= 1 && R <= 6, "six channels at most");
  static_assert(X == 1 || X == 2, "one or two vectors of 4 pixels");
  // Named accumulators, not an array: GCC kept an array's elements on the stack, or copied them
  // between registers at every step.
  __m256i a0 = _mm256_setzero_si256(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0, a4 = a0, b4 = a0,
          a5 = a0, b5 = a0;
  const int64_t groups = g.kp / 4;
  const uint8_t* b = panel + p0 % kPanel * 4;
  // Each channel's row of weights, advanced 4 k per step.
  const int16_t *w0 = w16 + f0 * g.kp, *w1 = w0 + g.kp, *w2 = w1 + g.kp, *w3 = w2 + g.kp, *w4 = w3 + g.kp,
                *w5 = w4 + g.kp;
  for (int64_t q = 0; q < groups; ++q, b += kPanel * 4) {
    const __m256i x0 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
    const __m256i x1 = X > 1 ? _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16))) : x0;
    // A channel's 4 weights as one 64-bit broadcast. (A macro: a lambda would not inherit the
    // function's target.) The sums are added in place: left to itself GCC wrote each new sum to
    // another register and moved it back, 8 extra instructions in a loop of 35.
#define MLC_ACCUMULATE(acc, product) __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(product))
#define MLC_INT8_AVX2_STEP(w, lo, hi)                                  \
  {                                                                    \
    int64_t four;                                                      \
    std::memcpy(&four, w + 4 * q, 8);                                  \
    const __m256i c = _mm256_set1_epi64x(four);                        \
    MLC_ACCUMULATE(lo, _mm256_madd_epi16(x0, c));                      \
    if constexpr (X > 1) MLC_ACCUMULATE(hi, _mm256_madd_epi16(x1, c)); \
  }
    MLC_INT8_AVX2_STEP(w0, a0, b0)
    if constexpr (R > 1) MLC_INT8_AVX2_STEP(w1, a1, b1)
    if constexpr (R > 2) MLC_INT8_AVX2_STEP(w2, a2, b2)
    if constexpr (R > 3) MLC_INT8_AVX2_STEP(w3, a3, b3)
    if constexpr (R > 4) MLC_INT8_AVX2_STEP(w4, a4, b4)
    if constexpr (R > 5) MLC_INT8_AVX2_STEP(w5, a5, b5)
#undef MLC_INT8_AVX2_STEP
#undef MLC_ACCUMULATE
  }
  const __m256i sums[6] = {AddLanePairs(a0, b0), AddLanePairs(a1, b1), AddLanePairs(a2, b2),
                           AddLanePairs(a3, b3), AddLanePairs(a4, b4), AddLanePairs(a5, b5)};
  FinishVectors(sums, R, 1, g, f0, p0, comp, scale, bias, out);
}

/*! \brief A tile of R output channels (from f0) x 8X pixels (from p0, within one panel) with
 *  AVX-VNNI: per group of 4 k, X 32-byte loads of the panel (8 pixels x 4 k each) and, per
 *  channel, a broadcast of its 4 weights and X vpdpbusd on ymm. 2R accumulators, two inputs and
 *  a broadcast within the 16 registers: the AVX-512 VNNI tile at half the width, its 8 x 32
 *  pixels needing 16 accumulators and 4 inputs. */
template <int R, int X>
__attribute__((target("avx2,fma,avxvnni"))) void TileAvxVnni(const int8_t* w, const uint8_t* panel, const Geometry& g,
                                                             int64_t f0, int64_t p0, const int32_t* comp,
                                                             const float* scale, const float* bias, void* out) {
  static_assert(R >= 1 && R <= 6, "six channels at most");
  static_assert(X == 1 || X == 2, "one or two vectors of 8 pixels");
  __m256i a0 = _mm256_setzero_si256(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0, a4 = a0, b4 = a0,
          a5 = a0, b5 = a0;
  const int64_t groups = g.kp / 4;
  const uint8_t* b = panel + p0 % kPanel * 4;
  const int8_t *w0 = w + f0 * g.kp, *w1 = w0 + g.kp, *w2 = w1 + g.kp, *w3 = w2 + g.kp, *w4 = w3 + g.kp, *w5 = w4 + g.kp;
  for (int64_t q = 0; q < groups; ++q, b += kPanel * 4) {
    const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i x1 = X > 1 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32)) : x0;
#define MLC_INT8_AVXVNNI_STEP(w, lo, hi)           \
  {                                                \
    int32_t four;                                  \
    std::memcpy(&four, w + 4 * q, 4);              \
    const __m256i c = _mm256_set1_epi32(four);     \
    DotAccumulate(lo, x0, c);                      \
    if constexpr (X > 1) DotAccumulate(hi, x1, c); \
  }
    MLC_INT8_AVXVNNI_STEP(w0, a0, b0)
    if constexpr (R > 1) MLC_INT8_AVXVNNI_STEP(w1, a1, b1)
    if constexpr (R > 2) MLC_INT8_AVXVNNI_STEP(w2, a2, b2)
    if constexpr (R > 3) MLC_INT8_AVXVNNI_STEP(w3, a3, b3)
    if constexpr (R > 4) MLC_INT8_AVXVNNI_STEP(w4, a4, b4)
    if constexpr (R > 5) MLC_INT8_AVXVNNI_STEP(w5, a5, b5)
#undef MLC_INT8_AVXVNNI_STEP
  }
  // Each channel's X vectors in order (the second of each pair unused where X is 1).
  const __m256i pairs[12] = {a0, b0, a1, b1, a2, b2, a3, b3, a4, b4, a5, b5};
  __m256i sums[12];
  for (int r = 0; r < R; ++r) {
    for (int h = 0; h < X; ++h) sums[X * r + h] = pairs[2 * r + h];
  }
  FinishVectors(sums, X * R, X, g, f0, p0, comp, scale, bias, out);
}

/*! \brief Calls tile(R', X) with R' = `rows` (1..R) as a compile-time channel count and X = 1
 *  (one vector of pixels, where at most half a tile's are left: a 7 x 7 image's last AVX2 tile
 *  has one pixel, and two vectors wasted a seventh of the work) or 2, both as
 *  std::integral_constant: the 256-bit tiles' dispatch. */
template <int R, typename Tile>
void ForRowsAndVectors(int64_t rows, bool one_vector, const Tile& tile) {
  if constexpr (R > 1) {
    if (rows < R) return ForRowsAndVectors<R - 1>(rows, one_vector, tile);
  }
  if (one_vector)
    tile(std::integral_constant<int, R>(), std::integral_constant<int, 1>());
  else
    tile(std::integral_constant<int, R>(), std::integral_constant<int, 2>());
}

/*! \brief The same tile without VNNI or AVX2: one multiply-add per product (int8 or int16 weights). */
template <typename W>
void TilePortable(const W* w, const uint8_t* panel, const Geometry& g, int64_t f0, int64_t rows, int64_t p0,
                  const int32_t* comp, const float* scale, const float* bias, void* out) {
  const int64_t groups = g.kp / 4, pixels = g.pixels();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t f = f0 + r;
    int32_t acc[kPanel] = {};
    for (int64_t q = 0; q < groups; ++q) {
      const W* a = w + f * g.kp + 4 * q;
      const uint8_t* b = panel + q * kPanel * 4;
      for (int64_t j = 0; j < kPanel; ++j) {
        for (int t = 0; t < 4; ++t) acc[j] += static_cast<int32_t>(a[t]) * static_cast<int32_t>(b[j * 4 + t]);
      }
    }
    for (int64_t j = 0; j < kPanel && p0 + j < pixels; ++j) {
      const float v = FinishInt8(acc[j], comp[f], scale[f], bias[f], g.activation);
      if (g.requantize.on)
        static_cast<uint8_t*>(out)[f * pixels + p0 + j] = RequantizeOne(v, g.requantize);
      else
        static_cast<float*>(out)[f * pixels + p0 + j] = v;
    }
  }
}

absl::Status Conv2d(absl::Span<DLTensor* const> args) {
  constexpr const char* kName = "mlc.int8.conv2d";
  // Seven arguments, or eight with the result requantized (requantize[2] before out).
  const bool requantized = args.size() == 8;
  if (absl::Status s = CheckTensorArgs(args, requantized ? 8 : 7, kName); !s.ok()) return s;
  DLTensor *x = args[0], *w = args[1], *geometry = args[2], *comp = args[3], *scale = args[4], *bias = args[5],
           *out = args.back();
  auto is = [](const DLTensor* t, uint8_t code, uint8_t bits, int ndim) {
    return t->dtype.code == code && t->dtype.bits == bits && t->dtype.lanes == 1 && t->ndim == ndim;
  };
  bool x_ok = (is(x, kDLUInt, 8, 4) || is(x, kDLInt, 8, 4));
  const bool w16_given = is(w, kDLInt, 16, 2);
  const bool out_ok = requantized ? is(out, kDLUInt, 8, 4) || is(out, kDLInt, 8, 4) : is(out, kDLFloat, 32, 4);
  if (!x_ok || !(is(w, kDLInt, 8, 2) || w16_given) || !out_ok || !is(geometry, kDLInt, 64, 1) ||
      geometry->shape[0] != 12) {
    return absl::InvalidArgumentError(absl::StrCat(
        kName,
        " expects uint8/int8 NCHW x, int8 or int16 w[F, Kp], int64 geometry[12] and float32 out (uint8/int8 out "
        "after requantize[2 or 4])"));
  }
  Requantize requantize;
  if (requantized) {
    absl::StatusOr<Requantize> r = ParseRequantize(args[6], out->dtype.code == kDLInt, kName);
    if (!r.ok()) return r.status();
    requantize = *r;
  }
  const int64_t f = w->shape[0];
  if (!is(comp, kDLInt, 32, 1) || !is(scale, kDLFloat, 32, 1) || !is(bias, kDLFloat, 32, 1) || comp->shape[0] != f ||
      scale->shape[0] != f || bias->shape[0] != f || out->shape[0] != x->shape[0] || out->shape[1] != f) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": compensation (int32), scale and bias (float32) need one value per output channel"));
  }
  const int64_t* p = reinterpret_cast<const int64_t*>(DataOf(geometry));
  const std::optional<Int8Activation> activation = Int8ActivationOf(p[11]);
  if (!activation) {
    return absl::InvalidArgumentError(absl::StrCat(
        kName, ": activation code ", p[11], " (geometry[11]) is not 0 (none), 1 (ReLU), 2 (SiLU) or 3 (HardSwish)"));
  }
  Geometry g{x->shape[1],
             x->shape[2],
             x->shape[3],
             f,
             p[8],
             p[9],
             out->shape[2],
             out->shape[3],
             0,
             w->shape[1],
             {p[0], p[1]},
             {p[2], p[3], p[4], p[5]},
             {p[6], p[7]},
             static_cast<uint8_t>(p[10]),
             *activation,
             x->dtype.code == kDLInt,
             requantize};
  g.k = g.c * g.kh * g.kw;
  if (g.kp % 4 != 0 || g.kp < g.k || g.kp >= g.k + 4 || p[10] < 0 || p[10] > 255) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": w has ", g.kp, " columns; C*KH*KW = ", g.k,
                     " rounded up to a multiple of 4 was expected (and a zero point in 0..255)"));
  }
  // The packing reads every window tap from the padded image without clipping: the output must
  // be what the geometry makes of the input.
  const bool positive = g.stride[0] > 0 && g.stride[1] > 0 && g.dilation[0] > 0 && g.dilation[1] > 0 && g.kh > 0 &&
                        g.kw > 0 && g.pad[0] >= 0 && g.pad[1] >= 0 && g.pad[2] >= 0 && g.pad[3] >= 0;
  if (!positive || g.oh < 1 || g.ow < 1 || (g.oh - 1) * g.stride[0] + (g.kh - 1) * g.dilation[0] >= g.padded_h() ||
      (g.ow - 1) * g.stride[1] + (g.kw - 1) * g.dilation[1] >= g.padded_w()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": a ", g.oh, " x ", g.ow, " output does not fit a ", g.h, " x ", g.w,
                     " input with kernel ", g.kh, " x ", g.kw, ", strides ", g.stride[0], ", ", g.stride[1],
                     ", dilation ", g.dilation[0], ", ", g.dilation[1], " and padding ", g.pad[0], ", ", g.pad[1], ", ",
                     g.pad[2], ", ", g.pad[3], " (strides, dilation and kernel must be positive)"));
  }
  const int64_t panels = g.panels(), image_in = g.c * g.h * g.w, image_out = f * g.pixels();
  ThreadPool::SerialLaunches small(RunsSerially(x->shape[0] * image_out * g.k));
  const int64_t out_bytes = requantized ? 1 : 4;
  // Reused across calls: fresh ones page-fault each time.
  thread_local std::vector<uint8_t> packed, padded;
  packed.resize(panels * g.kp * kPanel);
  const int32_t* cd = reinterpret_cast<const int32_t*>(DataOf(comp));
  const float *sd = reinterpret_cast<const float*>(DataOf(scale)), *bd = reinterpret_cast<const float*>(DataOf(bias));
  // int16 weights (qdq-to-integer's choice for a target without VNNI) go to the AVX2 tile as
  // they are; int8 ones to VNNI, or widened once per call for AVX2.
  const Int8Path path =
      ChooseInt8Path(/*int8_weights=*/!w16_given, /*has_amx_path=*/g.kp % 64 == 0 && f >= kAmxTileRows);
  const int8_t* wd = w16_given ? nullptr : reinterpret_cast<const int8_t*>(DataOf(w));
  thread_local std::vector<int16_t> w16;
  if (path == Int8Path::kAvx2 && !w16_given) {
    w16.resize(f * g.kp);
    WidenWeights(wd, f * g.kp, w16.data());
  }
  // By pointer: in the pool's threads `w16` is their own.
  const int16_t* wide = w16_given ? reinterpret_cast<const int16_t*>(DataOf(w)) : w16.data();
  // Register tiles: the AVX2 one is a quarter of a panel wide, the AVX-VNNI one half; AMX's
  // blocks are two tiles of channels by a panel.
  const int64_t tile_rows = path == Int8Path::kAvx2      ? kAvx2Rows
                            : path == Int8Path::kAvxVnni ? kAvxVnniRows
                            : path == Int8Path::kAmx     ? 2 * kAmxTileRows
                                                         : kRows;
  const int64_t tile_pixels = path == Int8Path::kAvx2      ? kAvx2Pixels
                              : path == Int8Path::kAvxVnni ? kAvxVnniPixels
                                                           : kPanel;
  const int64_t row_tiles = (f + tile_rows - 1) / tile_rows, pixel_tiles = (g.pixels() + tile_pixels - 1) / tile_pixels;
  // Pixel tiles in blocks whose columns fill at most half of L2. A task is (block, tile of
  // channels) and runs the block's pixel tiles: its channels' weights stay in L1-L2 across the
  // block, and the block's columns in L2 across the channel tiles. Panel-major tasks (one pixel
  // tile, every channel tile) streamed all the weights (up to 4.7 MB of int16) from L3 once per
  // pixel tile. The blocks are of equal size, so that the tasks balance across threads.
  const int64_t most_tiles = std::max<int64_t>(1, CacheBlockBytes() / (tile_pixels * g.kp));
  const int64_t blocks = (pixel_tiles + most_tiles - 1) / most_tiles;
  const int64_t block_tiles = (pixel_tiles + blocks - 1) / blocks;
  const bool in_place = !g.x_signed && g.pad[0] == 0 && g.pad[1] == 0 && g.pad[2] == 0 && g.pad[3] == 0;
  for (int64_t n = 0; n < x->shape[0]; ++n) {
    // Unpadded uint8 images (pointwise convolutions) are read in place: the padded copy would be
    // the same bytes.
    const uint8_t* image = reinterpret_cast<const uint8_t*>(DataOf(x)) + n * image_in;
    if (in_place) {
      PackColumns(image, image + image_in, g, packed.data());
    } else {
      PadImage(image, g, &padded);
      PackColumns(padded.data(), padded.data() + padded.size(), g, packed.data());
    }
    void* o = DataOf(out) + n * image_out * out_bytes;
    const uint8_t* cols = packed.data();
    ParallelFor(blocks * row_tiles, [&](int64_t begin, int64_t end) {
      std::optional<AmxScope> amx;
      if (path == Int8Path::kAmx) amx.emplace();
      for (int64_t t = begin; t < end; ++t) {
        const int64_t f0 = t % row_tiles * tile_rows, rows = std::min(tile_rows, f - f0);
        const int64_t first = t / row_tiles * block_tiles, last = std::min(pixel_tiles, first + block_tiles);
        for (int64_t pt = first; pt < last; ++pt) {
          const int64_t p0 = pt * tile_pixels;
          const uint8_t* pp = cols + p0 / kPanel * g.kp * kPanel;
          switch (path) {
            case Int8Path::kPortable:
              if (w16_given)
                TilePortable(wide, pp, g, f0, rows, p0, cd, sd, bd, o);
              else
                TilePortable(wd, pp, g, f0, rows, p0, cd, sd, bd, o);
              break;
            case Int8Path::kAvx2:
              ForRowsAndVectors<kAvx2Rows>(rows, g.pixels() - p0 <= kAvx2Pixels / 2, [&](auto r, auto x) {
                TileAvx2<decltype(r)::value, decltype(x)::value>(wide, pp, g, f0, p0, cd, sd, bd, o);
              });
              break;
            case Int8Path::kAvxVnni:
              ForRowsAndVectors<kAvxVnniRows>(rows, g.pixels() - p0 <= kAvxVnniPixels / 2, [&](auto r, auto x) {
                TileAvxVnni<decltype(r)::value, decltype(x)::value>(wd, pp, g, f0, p0, cd, sd, bd, o);
              });
              break;
            case Int8Path::kAmx: {
              int64_t r = 0;
              if (rows == 2 * kAmxTileRows) {
                TileAmx<2>(wd, pp, g, f0, p0, cd, sd, bd, o);
                r = rows;
              } else if (rows >= kAmxTileRows) {
                TileAmx<1>(wd, pp, g, f0, p0, cd, sd, bd, o);
                r = kAmxTileRows;
              }
              for (; r < rows; ++r) TileVnni<1>(wd, pp, g, f0 + r, p0, cd, sd, bd, o);
              break;
            }
            case Int8Path::kVnni:
              if (rows == kRows) {
                TileVnni<kRows>(wd, pp, g, f0, p0, cd, sd, bd, o);
              } else {
                for (int64_t r = 0; r < rows; ++r) TileVnni<1>(wd, pp, g, f0 + r, p0, cd, sd, bd, o);
              }
              break;
          }
        }
      }
    });
  }
  return absl::OkStatus();
}

MLC_REGISTER_RUNTIME_FUNC("mlc.int8.conv2d", Conv2d);
// Two operations per multiply-add of the convolution: every output by its C * KH * KW taps.
MLC_REGISTER_RUNTIME_FUNC_OPERATIONS("mlc.int8.conv2d", [](absl::Span<DLTensor* const> args) -> int64_t {
  if (args.size() < 7 || args[0]->ndim != 4 || args.back()->ndim != 4 || !IsInt64Vector(args[2], 12)) return 0;
  const int64_t* g = reinterpret_cast<const int64_t*>(DataOf(args[2]));
  return 2 * CountOf(DimsOf(args.back())) * args[0]->shape[1] * g[8] * g[9];
});

}  // namespace
}  // namespace vm
}  // namespace mlc
