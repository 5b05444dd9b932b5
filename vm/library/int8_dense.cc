/*! \file int8_dense.cc
 *  \brief The int8 linear-layer micro-kernel, the qdq-to-integer pass's target for nn.dense and
 *         matmul by a constant matrix.
 *
 *    mlc.int8.dense(x[..., K] uint8 or int8, w[Fp/16, Kp/4, 16, 4] int8, params[2] int64,
 *                   compensation[F] int32, scale[F] float32, bias[F] float32, out[..., F] float32)
 *
 *  out[m, f] = act(scale[f] * (sum_k w[f, k] * x[m, k] - compensation[f]) + bias[f]) over the
 *  M rows of x (its leading dimensions flattened), x taken as uint8 (int8 x has 128 added, so
 *  every product is unsigned x signed, what AVX-512 VNNI's vpdpbusd multiplies). The weight
 *  comes packed at compile time in panels of 16 output channels: for each group of 4
 *  consecutive k, the 16 channels' 4 taps (64 bytes, one vector), zero past F and past K (Kp
 *  is K rounded up to 4). params = (x_zero_point in the uint8 domain, relu); the pass folds
 *  the zero point into compensation[f] = zero_point * sum_k w[f, k].
 *
 *  The tile is 8 rows x 2 panels (32 channels): per group of 4 k, two weight loads and, per
 *  row, a broadcast of its 4 activations and two vpdpbusd into 16 accumulators. With one row
 *  (batch 1) the kernel streams the weight once, a quarter of the bytes of a float32 weight.
 *  CPUs with AVX-VNNI but not AVX-512 run vpdpbusd on ymm (6 rows x one panel, 12
 *  accumulators). AVX2 CPUs without VNNI widen to int16 and use vpmaddwd (exact; 2 rows x 16
 *  channels); others take a portable loop over the same layout.
 */
// GCC 12 warns that its own AVX-512 headers read an uninitialized vector (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "vm/library/dltensor_view.h"
#include "vm/library/int8_common.h"
#include "vm/runtime_registry.h"
#include "vm/thread_pool.h"

namespace mlc {
namespace vm {
namespace {

constexpr int64_t kLanes = 16;     // output channels per panel (int32 lanes of a vector)
constexpr int64_t kRowTile = 8;    // rows of x per register tile
constexpr int64_t kPanelTile = 2;  // panels per register tile

struct DenseShape {
  int64_t m, k, kp, f, panels;
  Int8Activation activation;  // none or ReLU
  int64_t groups() const { return kp / 4; }
};

/*! \brief Operands of one tile: rows [m0, m0 + R) of the packed x, panels [p0, p0 + NB). */
struct DenseOperands {
  const uint8_t* x;  // [M, Kp], uint8 domain, padded with the zero point
  const int8_t* w;   // [panels][Kp/4][16][4]
  const int32_t* comp;
  const float *scale, *bias;
  float* out;  // [M, F]
};

/*! \brief A tile of R rows x NB panels with VNNI, into named accumulators (DotAccumulate). */
template <int R, int NB>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void TileVnni(const DenseOperands& o, const DenseShape& s,
                                                                     int64_t m0, int64_t p0) {
  static_assert(R >= 1 && R <= 8 && NB >= 1 && NB <= 2, "at most 8 rows x 2 panels");
  __m512i a0 = _mm512_setzero_si512(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0, a4 = a0, b4 = a0,
          a5 = a0, b5 = a0, a6 = a0, b6 = a0, a7 = a0, b7 = a0;
  const int64_t groups = s.groups();
  const int8_t* w = o.w + p0 * groups * kLanes * 4;
  const uint8_t* x = o.x + m0 * s.kp;
  for (int64_t q = 0; q < groups; ++q) {
    const __m512i w0 = _mm512_loadu_si512(w + q * kLanes * 4);
    const __m512i w1 = NB > 1 ? _mm512_loadu_si512(w + (groups + q) * kLanes * 4) : w0;
#define MLC_INT8_VNNI_ROW(r, lo, hi)                \
  {                                                 \
    int32_t four;                                   \
    std::memcpy(&four, x + (r)*s.kp + 4 * q, 4);    \
    const __m512i c = _mm512_set1_epi32(four);      \
    DotAccumulate(lo, c, w0);                       \
    if constexpr (NB > 1) DotAccumulate(hi, c, w1); \
  }
    MLC_INT8_VNNI_ROW(0, a0, b0)
    if constexpr (R > 1) MLC_INT8_VNNI_ROW(1, a1, b1)
    if constexpr (R > 2) MLC_INT8_VNNI_ROW(2, a2, b2)
    if constexpr (R > 3) MLC_INT8_VNNI_ROW(3, a3, b3)
    if constexpr (R > 4) MLC_INT8_VNNI_ROW(4, a4, b4)
    if constexpr (R > 5) MLC_INT8_VNNI_ROW(5, a5, b5)
    if constexpr (R > 6) MLC_INT8_VNNI_ROW(6, a6, b6)
    if constexpr (R > 7) MLC_INT8_VNNI_ROW(7, a7, b7)
#undef MLC_INT8_VNNI_ROW
  }
  const __m512i sums[8][2] = {{a0, b0}, {a1, b1}, {a2, b2}, {a3, b3}, {a4, b4}, {a5, b5}, {a6, b6}, {a7, b7}};
  for (int j = 0; j < NB; ++j) {
    const int64_t f = (p0 + j) * kLanes;
    const __mmask16 mask = s.f - f >= kLanes ? 0xFFFF : static_cast<__mmask16>((1u << (s.f - f)) - 1);
    const __m512i c = _mm512_maskz_loadu_epi32(mask, o.comp + f);
    const __m512 scale = _mm512_maskz_loadu_ps(mask, o.scale + f), bias = _mm512_maskz_loadu_ps(mask, o.bias + f);
    for (int r = 0; r < R; ++r) {
      __m512 v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sums[r][j], c)), scale, bias);
      v = Activate(v, s.activation);
      _mm512_mask_storeu_ps(o.out + (m0 + r) * s.f + f, mask, v);
    }
  }
}

/*! \brief TileVnni for `rows` <= kRowTile rows and `panels` <= kPanelTile panels. */
void TileVnniAny(const DenseOperands& o, const DenseShape& s, int64_t m0, int64_t rows, int64_t p0, int64_t panels) {
  if (rows == kRowTile && panels == 2) return TileVnni<kRowTile, 2>(o, s, m0, p0);
  for (int64_t r = 0; r < rows; ++r) {
    if (panels == 2)
      TileVnni<1, 2>(o, s, m0 + r, p0);
    else
      TileVnni<1, 1>(o, s, m0 + r, p0);
  }
}

/*! \brief A tile of R rows x one panel (16 channels) with AVX2, exact: per group of 4 k, the
 *  panel's 64 weight bytes widened to int16 (four vectors of 4 channels x 4 k), and per row a
 *  broadcast of its 4 activations (int16, widened once per call in `x16`) and four vpmaddwd.
 *  Lane pairs hold one channel's two partial sums, added at the end. */
template <int R>
__attribute__((target("avx2,fma"))) void TileAvx2(const DenseOperands& o, const int16_t* x16, const DenseShape& s,
                                                  int64_t m0, int64_t p0) {
  __m256i acc[R][4];
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < 4; ++j) acc[r][j] = _mm256_setzero_si256();
  }
  const int64_t groups = s.groups();
  const int8_t* w = o.w + p0 * groups * kLanes * 4;
  for (int64_t q = 0; q < groups; ++q, w += kLanes * 4) {
    __m256i b[4];
    for (int j = 0; j < 4; ++j)
      b[j] = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 16 * j)));
    for (int r = 0; r < R; ++r) {
      int64_t four;
      std::memcpy(&four, x16 + (m0 + r) * s.kp + 4 * q, 8);
      const __m256i a = _mm256_set1_epi64x(four);
      for (int j = 0; j < 4; ++j) acc[r][j] = _mm256_add_epi32(acc[r][j], _mm256_madd_epi16(b[j], a));
    }
  }
  const int64_t f0 = p0 * kLanes, n = std::min(kLanes, s.f - f0);
  for (int r = 0; r < R; ++r) {
    alignas(32) int32_t sums[kLanes];
    for (int h = 0; h < 2; ++h) {
      const __m256i sum = AddLanePairs(acc[r][2 * h], acc[r][2 * h + 1]);
      _mm256_store_si256(reinterpret_cast<__m256i*>(sums + 8 * h), sum);
    }
    float* out = o.out + (m0 + r) * s.f + f0;
    for (int64_t c = 0; c < n; ++c)
      out[c] = FinishInt8(sums[c], o.comp[f0 + c], o.scale[f0 + c], o.bias[f0 + c], s.activation);
  }
}

/*! \brief A tile of R rows x one panel (16 channels) with AVX-VNNI: per group of 4 k, the
 *  panel's 64 weight bytes as two vectors of 8 channels and, per row, a broadcast of its 4
 *  activations and two vpdpbusd on ymm. 2R accumulators, two weights and a broadcast within the
 *  16 registers. */
template <int R>
__attribute__((target("avx2,fma,avxvnni"))) void TileAvxVnni(const DenseOperands& o, const DenseShape& s, int64_t m0,
                                                             int64_t p0) {
  static_assert(R >= 1 && R <= 6, "six rows at most");
  __m256i a0 = _mm256_setzero_si256(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0, a4 = a0, b4 = a0,
          a5 = a0, b5 = a0;
  const int64_t groups = s.groups();
  const int8_t* w = o.w + p0 * groups * kLanes * 4;
  const uint8_t* x = o.x + m0 * s.kp;
  for (int64_t q = 0; q < groups; ++q, w += kLanes * 4) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
#define MLC_INT8_AVXVNNI_ROW(r, lo, hi)          \
  {                                              \
    int32_t four;                                \
    std::memcpy(&four, x + (r)*s.kp + 4 * q, 4); \
    const __m256i c = _mm256_set1_epi32(four);   \
    DotAccumulate(lo, c, w0);                    \
    DotAccumulate(hi, c, w1);                    \
  }
    MLC_INT8_AVXVNNI_ROW(0, a0, b0)
    if constexpr (R > 1) MLC_INT8_AVXVNNI_ROW(1, a1, b1)
    if constexpr (R > 2) MLC_INT8_AVXVNNI_ROW(2, a2, b2)
    if constexpr (R > 3) MLC_INT8_AVXVNNI_ROW(3, a3, b3)
    if constexpr (R > 4) MLC_INT8_AVXVNNI_ROW(4, a4, b4)
    if constexpr (R > 5) MLC_INT8_AVXVNNI_ROW(5, a5, b5)
#undef MLC_INT8_AVXVNNI_ROW
  }
  const __m256i sums[6][2] = {{a0, b0}, {a1, b1}, {a2, b2}, {a3, b3}, {a4, b4}, {a5, b5}};
  for (int h = 0; h < 2; ++h) {
    const int64_t f = p0 * kLanes + 8 * h, n = std::min<int64_t>(8, s.f - f);
    if (n <= 0) break;
    if (n == 8) {
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(o.comp + f));
      const __m256 scale = _mm256_loadu_ps(o.scale + f), bias = _mm256_loadu_ps(o.bias + f);
      for (int r = 0; r < R; ++r) {
        __m256 v = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(sums[r][h], c)), scale, bias);
        v = Activate(v, s.activation);
        _mm256_storeu_ps(o.out + (m0 + r) * s.f + f, v);
      }
      continue;
    }
    for (int r = 0; r < R; ++r) {
      alignas(32) int32_t lanes[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sums[r][h]);
      float* out = o.out + (m0 + r) * s.f + f;
      for (int64_t c = 0; c < n; ++c)
        out[c] = FinishInt8(lanes[c], o.comp[f + c], o.scale[f + c], o.bias[f + c], s.activation);
    }
  }
}

/*! \brief The AVX-VNNI path over all tiles: (panel, 6 rows), panel-major. */
void DenseAvxVnni(const DenseOperands& o, const DenseShape& s) {
  constexpr int64_t kRows = 6;
  const int64_t row_tiles = (s.m + kRows - 1) / kRows;
  ParallelFor(s.panels * row_tiles, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t p0 = t / row_tiles, m0 = t % row_tiles * kRows;
      switch (std::min(kRows, s.m - m0)) {
        case 6: TileAvxVnni<6>(o, s, m0, p0); break;
        case 5: TileAvxVnni<5>(o, s, m0, p0); break;
        case 4: TileAvxVnni<4>(o, s, m0, p0); break;
        case 3: TileAvxVnni<3>(o, s, m0, p0); break;
        case 2: TileAvxVnni<2>(o, s, m0, p0); break;
        default: TileAvxVnni<1>(o, s, m0, p0); break;
      }
    }
  });
}

/*! \brief The same tile without VNNI or AVX2: one multiply-add per product. */
void TilePortable(const DenseOperands& o, const DenseShape& s, int64_t m0, int64_t rows, int64_t p0, int64_t panels) {
  const int64_t groups = s.groups();
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* x = o.x + (m0 + r) * s.kp;
    for (int64_t f = p0 * kLanes; f < std::min(s.f, (p0 + panels) * kLanes); ++f) {
      const int8_t* w = o.w + (f / kLanes * groups * kLanes + f % kLanes) * 4;
      int32_t acc = 0;
      for (int64_t q = 0; q < groups; ++q) {
        for (int t = 0; t < 4; ++t)
          acc += static_cast<int32_t>(w[q * kLanes * 4 + t]) * static_cast<int32_t>(x[4 * q + t]);
      }
      o.out[(m0 + r) * s.f + f] = FinishInt8(acc, o.comp[f], o.scale[f], o.bias[f], s.activation);
    }
  }
}

/*! \brief The AVX2 path over all tiles: (panel, pair of rows), panel-major. */
void DenseAvx2(const DenseOperands& o, const int16_t* x16, const DenseShape& s) {
  constexpr int64_t kAvx2Rows = 2;  // 8 accumulators, 4 weight vectors, 1 broadcast
  const int64_t row_tiles = (s.m + kAvx2Rows - 1) / kAvx2Rows;
  ParallelFor(s.panels * row_tiles, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t p0 = t / row_tiles, m0 = t % row_tiles * kAvx2Rows;
      if (s.m - m0 >= 2)
        TileAvx2<2>(o, x16, s, m0, p0);
      else
        TileAvx2<1>(o, x16, s, m0, p0);
    }
  });
}

absl::Status Dense(absl::Span<DLTensor* const> args) {
  constexpr const char* kName = "mlc.int8.dense";
  if (absl::Status s = CheckTensorArgs(args, 7, kName); !s.ok()) return s;
  DLTensor *x = args[0], *w = args[1], *params = args[2], *comp = args[3], *scale = args[4], *bias = args[5],
           *out = args[6];
  const bool x_ok = (HasDtype(x, kDLUInt, 8) || HasDtype(x, kDLInt, 8)) && x->ndim >= 2;
  if (!x_ok || !HasDtype(w, kDLInt, 8) || w->ndim != 4 || w->shape[2] != kLanes || w->shape[3] != 4 ||
      !HasDtype(out, kDLFloat, 32) || out->ndim != x->ndim || !HasDtype(params, kDLInt, 64) || params->ndim != 1 ||
      params->shape[0] != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName,
                     " expects uint8/int8 x[..., K], int8 w[Fp/16, Kp/4, 16, 4], int64 params[2] "
                     "and float32 out[..., F] of x's rank"));
  }
  DenseShape s;
  s.k = x->shape[x->ndim - 1];
  s.f = out->shape[out->ndim - 1];
  s.m = 1;
  for (int d = 0; d + 1 < x->ndim; ++d) {
    if (x->shape[d] != out->shape[d])
      return absl::InvalidArgumentError(absl::StrCat(kName, ": x and out differ in dimension ", d));
    s.m *= x->shape[d];
  }
  s.panels = w->shape[0];
  s.kp = w->shape[1] * 4;
  if (s.kp < s.k || s.kp >= s.k + 4 || s.panels != (s.f + kLanes - 1) / kLanes) {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": w holds ", s.panels, " panels of ", s.kp,
                                                   " taps; K = ", s.k, " rounded up to 4 taps and F = ", s.f,
                                                   " in panels of 16 were expected"));
  }
  if (!HasDtype(comp, kDLInt, 32) || !HasDtype(scale, kDLFloat, 32) || !HasDtype(bias, kDLFloat, 32) ||
      comp->ndim != 1 || scale->ndim != 1 || bias->ndim != 1 || comp->shape[0] != s.f || scale->shape[0] != s.f ||
      bias->shape[0] != s.f) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": compensation (int32), scale and bias (float32) need one value per output channel"));
  }
  const int64_t* p = reinterpret_cast<const int64_t*>(DataOf(params));
  if (p[0] < 0 || p[0] > 255)
    return absl::InvalidArgumentError(absl::StrCat(kName, ": zero point ", p[0], " is not in 0..255"));
  if (p[1] != 0 && p[1] != 1)
    return absl::InvalidArgumentError(absl::StrCat(kName, ": relu flag ", p[1], " (params[1]) is not 0 or 1"));
  s.activation = p[1] != 0 ? Int8Activation::kRelu : Int8Activation::kNone;
  // x in the uint8 domain with rows padded to Kp taps (the padding meets zero weights).
  const uint8_t zero_point = static_cast<uint8_t>(p[0]), flip = x->dtype.code == kDLInt ? 0x80 : 0;
  thread_local std::vector<uint8_t> rows;
  rows.resize(s.m * s.kp);
  const uint8_t* xd = reinterpret_cast<const uint8_t*>(DataOf(x));
  for (int64_t r = 0; r < s.m; ++r) {
    uint8_t* dst = rows.data() + r * s.kp;
    for (int64_t i = 0; i < s.k; ++i) dst[i] = xd[r * s.k + i] ^ flip;
    std::memset(dst + s.k, zero_point, s.kp - s.k);
  }
  const DenseOperands o{rows.data(),
                        reinterpret_cast<const int8_t*>(DataOf(w)),
                        reinterpret_cast<const int32_t*>(DataOf(comp)),
                        reinterpret_cast<const float*>(DataOf(scale)),
                        reinterpret_cast<const float*>(DataOf(bias)),
                        reinterpret_cast<float*>(DataOf(out))};
  ThreadPool::SerialLaunches small(RunsSerially(s.m * s.f * s.k));
  const Int8Path path = ChooseInt8Path();
  thread_local std::vector<int16_t> x16;  // the AVX2 path's activations, widened once
  if (path == Int8Path::kAvx2) {
    x16.assign(rows.begin(), rows.end());
    DenseAvx2(o, x16.data(), s);
    return absl::OkStatus();
  }
  if (path == Int8Path::kAvxVnni) {
    DenseAvxVnni(o, s);
    return absl::OkStatus();
  }
  const bool vnni = path == Int8Path::kVnni;
  const int64_t row_tiles = (s.m + kRowTile - 1) / kRowTile, panel_tiles = (s.panels + kPanelTile - 1) / kPanelTile;
  // Tasks are (panel tile, row tile), panel-major: a thread's consecutive tasks reuse the weight
  // panels from cache while x's rows stream.
  ParallelFor(panel_tiles * row_tiles, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t p0 = t / row_tiles * kPanelTile, m0 = t % row_tiles * kRowTile;
      const int64_t panels = std::min(kPanelTile, s.panels - p0), rows_here = std::min(kRowTile, s.m - m0);
      if (vnni)
        TileVnniAny(o, s, m0, rows_here, p0, panels);
      else
        TilePortable(o, s, m0, rows_here, p0, panels);
    }
  });
  return absl::OkStatus();
}

MLC_REGISTER_RUNTIME_FUNC("mlc.int8.dense", Dense);
// Two operations per multiply-add: every output by the K of its row.
MLC_REGISTER_RUNTIME_FUNC_OPERATIONS("mlc.int8.dense", [](absl::Span<DLTensor* const> args) -> int64_t {
  if (args.size() < 7 || args[0]->ndim < 1) return 0;
  return 2 * CountOf(DimsOf(args.back())) * args[0]->shape[args[0]->ndim - 1];
});

}  // namespace
}  // namespace vm
}  // namespace mlc
