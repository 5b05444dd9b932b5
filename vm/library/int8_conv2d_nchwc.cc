/*! \file int8_conv2d_nchwc.cc
 *  \brief The int8 pointwise (1 x 1) convolution over channel-blocked images, alter-op-layout's
 *         target for an mlc.int8.conv2d whose input is blocked already.
 *
 *    mlc.int8.conv2d_nchwc(x[N, C/b, H, W, b] uint8 or int8, w[Fp/16, C/4, 16, 4] int8,
 *                          geometry[12] int64, compensation[F] int32, scale[F] float32,
 *                          bias[F] float32, [requantize[2 or 4] float32,]
 *                          out[N, F/bo, H, W, bo])
 *
 *  is mlc.int8.conv2d's arithmetic (int8_conv2d.cc: the same geometry, compensation, scale, bias
 *  and requantize) for a 1 x 1 window at stride 1 without padding, reading and writing the
 *  layouts the float convolutions around it use (NCHW16c, NCHW8c, ...: b and bo multiples of
 *  4 that divide 16), so a MobileNet's int8 projections and expansions meet its float depthwise
 *  convolutions without a layout transform or a packing of columns. The weight comes packed at
 *  compile time as mlc.int8.dense's: per group of 4 input channels, the 4 taps of 16 output
 *  channels in one 64-byte vector (zero past F). F is the stored output channel count (a
 *  multiple of bo). out is uint8/int8 with requantize, float32 without it.
 *
 *  The register tile is 8 pixels x 32 output channels with AVX-512 VNNI: per group of 4 input
 *  channels, two weight vectors and, per pixel, a broadcast of its 4 bytes (in place: a
 *  pixel's channels of one block are contiguous) and two vpdpbusd. Other CPUs take a portable
 *  loop (the pass emits this call only for targets with AVX-512 VNNI).
 */
// GCC 12 warns that its own AVX-512 headers read an uninitialized vector (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "vm/library/dltensor_view.h"
#include "vm/library/int8_common.h"
#include "vm/runtime_registry.h"
#include "vm/thread_pool.h"

namespace mlc {
namespace vm {
namespace {

constexpr int64_t kLanes = 16;      // output channels per weight vector (int32 lanes)
constexpr int64_t kPixelTile = 8;   // pixels per register tile
constexpr int64_t kChunkTiles = 4;  // pixel tiles per task: 32 pixels' channels stay in L1

struct Problem {
  const uint8_t* x;  // one image, [C/b][HW][b]
  const int8_t* w;   // [Fp/16][C/4][16][4]
  const int32_t* comp;
  const float *scale, *bias;
  char* out;  // one image, [F/bo][HW][bo]
  int64_t c, b, f, bo, pixels;
  uint32_t flip;  // 0x80808080 for int8 x: made uint8 as it is read
  Int8Activation activation;
  Requantize requantize;
  int64_t groups() const { return c / 4; }
};

/*! \brief The input's 4 channels [4q, 4q + 4) at pixel p, as one 32-bit word. */
inline int32_t FourChannels(const Problem& s, int64_t p, int64_t q) {
  const int64_t c = 4 * q;
  int32_t four;
  std::memcpy(&four, s.x + (c / s.b * s.pixels + p) * s.b + c % s.b, 4);
  return static_cast<int32_t>(static_cast<uint32_t>(four) ^ s.flip);
}

/*! \brief The result of output channel f at pixel p from its int32 sum: written as the
 *  portable path does, one element. */
void FinishOne(const Problem& s, int32_t acc, int64_t f, int64_t p) {
  const float v = FinishInt8(acc, s.comp[f], s.scale[f], s.bias[f], s.activation);
  const int64_t at = (f / s.bo * s.pixels + p) * s.bo + f % s.bo;
  if (!s.requantize.on) {
    reinterpret_cast<float*>(s.out)[at] = v;
    return;
  }
  reinterpret_cast<uint8_t*>(s.out)[at] = RequantizeOne(v, s.requantize);
}

/*! \brief Channels [f0, f0 + 16) at pixel p, finished, in the output's blocks of bo: each
 *  block's lanes moved to the front and stored under a mask. */
__attribute__((target("avx512f,avx512bw"), always_inline)) inline void StoreVector(const Problem& s, __m512 v,
                                                                                   int64_t f0, int64_t p) {
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __mmask16 block_mask = static_cast<__mmask16>((1u << s.bo) - 1);
  for (int64_t first = 0; first < kLanes && f0 + first < s.f; first += s.bo) {
    const int64_t f = f0 + first, at = (f / s.bo * s.pixels + p) * s.bo;
    const __m512i from = _mm512_add_epi32(iota, _mm512_set1_epi32(static_cast<int32_t>(first)));
    if (s.requantize.on) {
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
  for (int j = 0; j < J; ++j) {
    const int64_t f = f0 + j * kLanes;
    if (s.bo != kLanes || f + kLanes > s.f) {
      for (int r = 0; r < P; ++r) StoreVector(s, MLC_INT8_NCHWC_RESULT(j, r), f, p0 + r);
      continue;
    }
    // A whole block of 16 channels: the tile's pixels are contiguous in it.
    const int64_t at = (f / kLanes * s.pixels + p0) * kLanes;
    if (!s.requantize.on) {
      for (int r = 0; r < P; ++r)
        _mm512_storeu_ps(reinterpret_cast<float*>(s.out) + at + r * kLanes, MLC_INT8_NCHWC_RESULT(j, r));
      continue;
    }
    uint8_t* dst = reinterpret_cast<uint8_t*>(s.out) + at;
    int r = 0;
    for (; r + 4 <= P; r += 4) {
      __m512i q[4];
      for (int i = 0; i < 4; ++i) q[i] = RequantizedLanes(MLC_INT8_NCHWC_RESULT(j, r + i), s.requantize);
      _mm512_storeu_si512(dst + r * kLanes, PackRequantized(q[0], q[1], q[2], q[3], s.requantize.lo < 0));
    }
    for (; r < P; ++r) StoreRequantized(dst + r * kLanes, 0xFFFF, MLC_INT8_NCHWC_RESULT(j, r), s.requantize);
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

/*! \brief The same tile, one multiply-add per product. */
void TilePortable(const Problem& s, int64_t f0, int64_t vectors, int64_t p0, int64_t pixels) {
  const int64_t groups = s.groups();
  for (int64_t p = p0; p < p0 + pixels; ++p) {
    for (int64_t f = f0; f < std::min(s.f, f0 + vectors * kLanes); ++f) {
      const int8_t* w = s.w + (f / kLanes * groups * kLanes + f % kLanes) * 4;
      int32_t acc = 0;
      for (int64_t q = 0; q < groups; ++q) {
        const uint32_t four = static_cast<uint32_t>(FourChannels(s, p, q));
        for (int t = 0; t < 4; ++t)
          acc += static_cast<int32_t>(w[q * kLanes * 4 + t]) * static_cast<int32_t>((four >> (8 * t)) & 0xFF);
      }
      FinishOne(s, acc, f, p);
    }
  }
}

/*! \brief A block of channels (b or bo) the layouts allow: a multiple of 4 that divides 16. */
bool IsChannelBlock(int64_t b) { return b == 4 || b == 8 || b == 16; }

absl::Status Conv2dNchwc(absl::Span<DLTensor* const> args) {
  constexpr const char* kName = "mlc.int8.conv2d_nchwc";
  const bool requantized = args.size() == 8;
  if (absl::Status st = CheckTensorArgs(args, requantized ? 8 : 7, kName); !st.ok()) return st;
  DLTensor *x = args[0], *w = args[1], *geometry = args[2], *comp = args[3], *scale = args[4], *bias = args[5],
           *out = args.back();
  const bool x_ok = (HasDtype(x, kDLUInt, 8) || HasDtype(x, kDLInt, 8)) && x->ndim == 5;
  const bool out_int = HasDtype(out, kDLUInt, 8) || HasDtype(out, kDLInt, 8);
  const bool out_ok = out->ndim == 5 && (requantized ? out_int : HasDtype(out, kDLFloat, 32));
  if (!x_ok || !out_ok || !HasDtype(w, kDLInt, 8) || w->ndim != 4 || w->shape[2] != kLanes || w->shape[3] != 4 ||
      !HasDtype(geometry, kDLInt, 64) || geometry->ndim != 1 || geometry->shape[0] != 12) {
    return absl::InvalidArgumentError(absl::StrCat(
        kName,
        " expects uint8/int8 x[N, C/b, H, W, b], int8 w[Fp/16, C/4, 16, 4], int64 geometry[12] and out[N, F/bo, H, W, "
        "bo] float32 (uint8/int8 after requantize[2 or 4])"));
  }
  const int64_t b = x->shape[4], bo = out->shape[4], c = x->shape[1] * b, f = out->shape[1] * bo;
  if (!IsChannelBlock(b) || !IsChannelBlock(bo)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": channel blocks of ", b, " (x) and ", bo, " (out); 4, 8 or 16 were expected"));
  }
  if (out->shape[0] != x->shape[0] || out->shape[2] != x->shape[2] || out->shape[3] != x->shape[3]) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": out must have x's batch and pixels (a 1 x 1 window at stride 1)"));
  }
  if (w->shape[0] != (f + kLanes - 1) / kLanes || w->shape[1] * 4 != c) {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": w holds ", w->shape[0], " panels of ", w->shape[1] * 4,
                                                   " channels; ", (f + kLanes - 1) / kLanes, " panels of C = ", c,
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
    absl::StatusOr<Requantize> r = ParseRequantize(args[6], HasDtype(out, kDLInt, 8), kName);
    if (!r.ok()) return r.status();
    requantize = *r;
  }
  Problem s{nullptr,
            reinterpret_cast<const int8_t*>(DataOf(w)),
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
            requantize};
  const Int8Path path = ChooseInt8Path();  // AMX has no tile here: its CPUs take the VNNI one
  const bool vnni = path == Int8Path::kVnni || path == Int8Path::kAmx;
  const int64_t out_bytes = requantized ? 1 : 4;
  const int64_t pixel_tiles = (s.pixels + kPixelTile - 1) / kPixelTile;
  const int64_t chunks = (pixel_tiles + kChunkTiles - 1) / kChunkTiles;
  // Channel tiles of 32 (the last of 16 where F leaves one vector); a task is a chunk of 32
  // pixels and a range of channel tiles, split only where the chunks alone are too few to
  // balance the threads (a 7 x 7 image has two).
  const int64_t vectors = (f + kLanes - 1) / kLanes, channel_tiles = (vectors + 1) / 2;
  const int64_t threads = ThreadPool::Global().num_threads();
  const int64_t splits = std::min(channel_tiles, std::max<int64_t>(1, (4 * threads + chunks - 1) / chunks));
  const int64_t split_tiles = (channel_tiles + splits - 1) / splits;
  for (int64_t n = 0; n < x->shape[0]; ++n) {
    s.x = reinterpret_cast<const uint8_t*>(DataOf(x)) + n * c * s.pixels;
    s.out = DataOf(out) + n * f * s.pixels * out_bytes;
    ParallelFor(chunks * splits, [&](int64_t begin, int64_t end) {
      for (int64_t task = begin; task < end; ++task) {
        const int64_t chunk = task / splits, first_tile = task % splits * split_tiles;
        const int64_t last_tile = std::min(channel_tiles, first_tile + split_tiles);
        for (int64_t t = first_tile; t < last_tile; ++t) {
          const int64_t f0 = 2 * t * kLanes, tile_vectors = std::min<int64_t>(2, vectors - 2 * t);
          for (int64_t pt = chunk * kChunkTiles; pt < std::min(pixel_tiles, (chunk + 1) * kChunkTiles); ++pt) {
            const int64_t p0 = pt * kPixelTile, pixels = std::min(kPixelTile, s.pixels - p0);
            if (vnni)
              TileVnniAny(s, f0, tile_vectors, p0, pixels);
            else
              TilePortable(s, f0, tile_vectors, p0, pixels);
          }
        }
      }
    });
  }
  return absl::OkStatus();
}

MLC_REGISTER_RUNTIME_FUNC("mlc.int8.conv2d_nchwc", Conv2dNchwc);

}  // namespace
}  // namespace vm
}  // namespace mlc
