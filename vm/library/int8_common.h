/*! \file int8_common.h
 *  \brief What the int8 kernels (mlc.int8.conv2d, mlc.int8.dense) share: the choice of the code
 *         path and the epilogue that turns an int32 sum into the float result (and, fused, into
 *         the next layer's quantized input).
 */
#ifndef MLC_VM_LIBRARY_INT8_COMMON_H_
#define MLC_VM_LIBRARY_INT8_COMMON_H_

#include <dlpack/dlpack.h>
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "support/cpu_features.h"
#include "support/int8_activation.h"
#include "vm/library/silu.h"

namespace mlc {
namespace vm {

/*! \brief The int8 kernels' code paths, best first: AMX (tdpbsud on 16 x 64-byte tiles, with
 *  AVX-512 VNNI beside it for what the tiles do not cover; convolutions only), AVX-512 VNNI
 *  (vpdpbusd on zmm), AVX-VNNI
 *  (the same instruction on ymm, VEX-encoded: Intel's cores without AVX-512 from Alder Lake and
 *  Sierra Forest on), AVX2 (int16 products through vpmaddwd), portable C++. */
enum class Int8Path { kAmx, kVnni, kAvxVnni, kAvx2, kPortable };

/*! \brief One path: the name MLC_INT8_PATH asks for it by, and whether this CPU has its
 *  instructions (as host detection reports it, so MLC_MAX_ISA caps it; AMX also needs Linux's
 *  permission, asked for only when a kernel chooses the path). */
struct Int8PathInfo {
  Int8Path path;
  const char* name;
  bool available;
  bool multiplies_int8;  // takes int8 weights (not qdq-to-integer's int16 ones)
};

/*! \brief Every path, best first: the one list the choice below and the tests walk. */
inline const std::array<Int8PathInfo, 5>& Int8Paths() {
  static const bool vnni = HostHasCpuFeature("avx512vnni") && HostHasCpuFeature("avx512bw");
  static const std::array<Int8PathInfo, 5> paths = {{
      {Int8Path::kAmx, "amx", vnni && HostHasAmxInt8(), true},
      {Int8Path::kVnni, "vnni", vnni, true},
      {Int8Path::kAvxVnni, "avxvnni", HostHasCpuFeature("avxvnni") && HostHasCpuFeature("avx2"), true},
      {Int8Path::kAvx2, "avx2", HostHasCpuFeature("avx2") && HostHasCpuFeature("fma"), false},
      {Int8Path::kPortable, "portable", true, false},
  }};
  return paths;
}

/*! \brief The best path this CPU runs. MLC_INT8_PATH=vnni|avxvnni|avx2|portable asks for a
 *  lower one (tests of every path the CPU has); a path the CPU lacks is never taken, nor one
 *  above the path asked for (a name not in the list asks for nothing). Weights given as int16
 *  (`int8_weights` false: qdq-to-integer's form for targets without VNNI) never take a VNNI
 *  path, which multiplies bytes. AMX only where the kernel has an AMX path for the call
 *  (`has_amx_path`); otherwise the next path down. */
inline Int8Path ChooseInt8Path(bool int8_weights = true, bool has_amx_path = false) {
  const char* asked = std::getenv("MLC_INT8_PATH");
  const std::string want = asked != nullptr ? asked : "";
  bool reached =
      std::none_of(Int8Paths().begin(), Int8Paths().end(), [&](const Int8PathInfo& p) { return want == p.name; });
  for (const Int8PathInfo& p : Int8Paths()) {
    reached = reached || want == p.name;
    if (!reached || !p.available || (p.multiplies_int8 && !int8_weights)) continue;
    // Linux is asked for the tile state only here, when a kernel is about to use it.
    if (p.path == Int8Path::kAmx && (!has_amx_path || !HostMayUseAmxInt8())) continue;
    return p.path;
  }
  return Int8Path::kPortable;
}

/*! \brief Whether a call of `multiply_adds` runs on the calling thread alone (under
 *  ThreadPool::SerialLaunches): below 2^18, a few microseconds on one core, waking another
 *  thread and waiting for it costs more than its share saves (int8 EfficientNet-B0's 32
 *  squeeze-excitation convolutions, one pixel each, took 634 us on two threads of a Zen 5
 *  against 521 on one). */
inline bool RunsSerially(int64_t multiply_adds) { return multiply_adds < (int64_t{1} << 18); }

/*! \brief The AVX2 paths' sums: their vpmaddwd accumulators `lo` and `hi` hold 4 outputs each as
 *  lane pairs (two partial sums per output); the 8 outputs, in order. */
__attribute__((target("avx2"))) inline __m256i AddLanePairs(__m256i lo, __m256i hi) {
  // hadd adds pairs within 128-bit halves: (lo0 lo1 hi0 hi1 | lo2 lo3 hi2 hi3); 0xD8 orders them.
  return _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo, hi), 0xD8);
}

/*! \brief acc += per int32 lane the sum of 4 products of `u8`'s unsigned bytes and `s8`'s signed
 *  bytes (AVX-512 VNNI's vpdpbusd), in place. Inline assembly rather than the intrinsic: with the
 *  intrinsic over an array of accumulators, GCC copied every accumulator to another register and
 *  back at each step and spilled some to the stack (the tiles at a fifth of the instruction's
 *  rate). Operands in AT&T order: the signed bytes first. */
__attribute__((target("avx512f,avx512vnni"), always_inline)) inline void DotAccumulate(__m512i& acc, __m512i u8,
                                                                                       __m512i s8) {
  __asm__("vpdpbusd %[s8], %[u8], %[acc]" : [acc] "+v"(acc) : [u8] "v"(u8), [s8] "v"(s8));
}

/*! \brief acc += per int32 lane the sum of 4 products of `u8`'s unsigned bytes and `s8`'s signed
 *  bytes (AVX-VNNI's VEX-encoded vpdpbusd on ymm), in place; inline assembly for the reason
 *  above. */
__attribute__((target("avx2,avxvnni"), always_inline)) inline void DotAccumulate(__m256i& acc, __m256i u8, __m256i s8) {
  __asm__("%{vex%} vpdpbusd %[s8], %[u8], %[acc]" : [acc] "+x"(acc) : [u8] "x"(u8), [s8] "x"(s8));
}

/*! \brief One output of the portable paths: act(scale * (acc - compensation) + bias), the
 *  multiply-add fused as the vector paths' is, so every path gives the same bits. */
inline float FinishInt8(int32_t acc, int32_t comp, float scale, float bias, Int8Activation act) {
  float v = std::fma(static_cast<float>(acc - comp), scale, bias);
  switch (act) {
    case Int8Activation::kRelu: return v < 0.0f ? 0.0f : v;
    case Int8Activation::kSilu: return Silu(v);
    case Int8Activation::kHardSwish: {
      // maxnum and minnum, as the compiled kernels' (a NaN gate takes the bound). The gate's
      // multiply-add fused, as in the vector paths (where GCC would fuse a multiply and an add
      // anyway), so every path gives the same bits.
      const float gate = std::fma(v, kHardSwishSlope, kHardSwishOffset), floor = gate > 0.0f ? gate : 0.0f;
      return v * (floor < 1.0f ? floor : 1.0f);
    }
    case Int8Activation::kNone: break;
  }
  return v;
}

/*! \brief `v` through the activation (AVX-512). */
__attribute__((target("avx512f"), always_inline)) inline __m512 Activate(__m512 v, Int8Activation act) {
  if (act == Int8Activation::kRelu) return _mm512_max_ps(v, _mm512_setzero_ps());
  if (act == Int8Activation::kHardSwish) {
    const __m512 gate = _mm512_fmadd_ps(v, _mm512_set1_ps(kHardSwishSlope), _mm512_set1_ps(kHardSwishOffset));
    return _mm512_mul_ps(v, _mm512_min_ps(_mm512_max_ps(gate, _mm512_setzero_ps()), _mm512_set1_ps(1.0f)));
  }
  if (act != Int8Activation::kSilu) return v;
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  SiluInPlaceAvx512(lanes, 16);
  return _mm512_load_ps(lanes);
}

/*! \brief `v` through the activation (AVX2). */
__attribute__((target("avx2,fma"), always_inline)) inline __m256 Activate(__m256 v, Int8Activation act) {
  if (act == Int8Activation::kRelu) return _mm256_max_ps(v, _mm256_setzero_ps());
  if (act == Int8Activation::kHardSwish) {
    const __m256 gate = _mm256_fmadd_ps(v, _mm256_set1_ps(kHardSwishSlope), _mm256_set1_ps(kHardSwishOffset));
    return _mm256_mul_ps(v, _mm256_min_ps(_mm256_max_ps(gate, _mm256_setzero_ps()), _mm256_set1_ps(1.0f)));
  }
  if (act != Int8Activation::kSilu) return v;
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, v);
  SiluInPlaceAvx2(lanes, 8);
  return _mm256_load_ps(lanes);
}

/*! \brief The quantize a kernel's result goes through when qdq-to-integer fused it (the next
 *  layer's input): q = clamp(round_half_even(v / scale) + zero, lo, hi), in float and in that
 *  order, as topi::Quantize computes it, so the fused result equals the unfused one exactly. */
struct Requantize {
  bool on = false;
  float scale = 1, zero = 0, lo = 0, hi = 255;  // [lo, hi]: the uint8 or int8 range
  // A clip of the float result before it is quantized (ReLU6's [0, 6]); none by default.
  float clip_lo = -std::numeric_limits<float>::infinity(), clip_hi = std::numeric_limits<float>::infinity();
  // The same bytes in fewer steps (the vector epilogues): q = round_half_even(clamp(v / scale,
  // quotient_lo, quotient_hi)) + zero. Clipping v and then dividing equals dividing and then
  // clamping to the divided bounds (a correctly rounded division is monotonic), and rounding
  // commutes with a clamp to integers, so both clamps become one, before the rounding.
  float quotient_lo = 0, quotient_hi = 255;

  /*! \brief Sets quotient_lo and quotient_hi from the other fields. */
  void PrepareQuotientBounds() {
    const float a = clip_lo / scale, b = clip_hi / scale, l = lo - zero, h = hi - zero;
    quotient_lo = std::max(a, l);
    quotient_hi = std::min(b, h);
    // A clip wholly outside the type's range: every value lands on one bound.
    if (quotient_lo > quotient_hi) quotient_lo = quotient_hi = b < l ? l : h;
  }
};

/*! \brief The requantize operand of a kernel whose result is uint8 (or int8: `out_signed`):
 *  float32 [2] (scale, zero point) or [4] (then a clip's bounds); an error naming `kernel` and
 *  what is wrong otherwise. */
inline absl::StatusOr<Requantize> ParseRequantize(const DLTensor* r, bool out_signed, const char* kernel) {
  if (r->dtype.code != kDLFloat || r->dtype.bits != 32 || r->dtype.lanes != 1 || r->ndim != 1 ||
      (r->shape[0] != 2 && r->shape[0] != 4)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kernel, ": requantize must be float32 [2] or [4] (the result's scale and zero point, then a clip's bounds)"));
  }
  const float* rq = reinterpret_cast<const float*>(static_cast<const char*>(r->data) + r->byte_offset);
  Requantize requantize{true, rq[0], rq[1], out_signed ? -128.0f : 0.0f, out_signed ? 127.0f : 255.0f};
  if (r->shape[0] == 4) {
    if (!(rq[2] <= rq[3]))
      return absl::InvalidArgumentError(
          absl::StrCat(kernel, ": requantize's clip [", rq[2], ", ", rq[3], "] is empty"));
    requantize.clip_lo = rq[2];
    requantize.clip_hi = rq[3];
  }
  requantize.PrepareQuotientBounds();
  if (!(rq[0] > 0) || !std::isfinite(rq[0]) || rq[1] < requantize.lo || rq[1] > requantize.hi) {
    return absl::InvalidArgumentError(absl::StrCat(kernel, ": requantize scale ", rq[0], " and zero point ", rq[1],
                                                   ": the scale must be positive, the zero point in the out type"));
  }
  return requantize;
}

/*! \brief One requantized output as a float: clamp(round_half_even(clip(v) / scale) + zero). */
inline float QuantizedValue(float v, const Requantize& r) {
  v = std::min(std::max(v, r.clip_lo), r.clip_hi);
  const float q = std::nearbyint(v / r.scale) + r.zero;  // the default rounding mode: half to even
  return std::min(std::max(q, r.lo), r.hi);
}

/*! \brief One requantized output, as the byte it is stored as (int8 in two's complement). */
inline uint8_t RequantizeOne(float v, const Requantize& r) {
  return static_cast<uint8_t>(static_cast<int32_t>(QuantizedValue(v, r)));
}

/*! \brief One output requantized and dequantized again, (q - zero) * scale: the float a
 *  dequantize of its byte gives (the zero point added and taken away: a zero is +0.0). */
inline float DequantizeOne(float v, const Requantize& r) { return (QuantizedValue(v, r) - r.zero) * r.scale; }

/*! \brief v / scale clamped to the quotient bounds (Requantize's one clamp), before rounding
 *  (AVX-512). max(NaN, lo) is lo, as the clip's max makes NaN -inf and the type's clamp lo. */
__attribute__((target("avx512f"), always_inline)) inline __m512 ClampedQuotient(__m512 v, const Requantize& r) {
  return _mm512_min_ps(_mm512_max_ps(_mm512_div_ps(v, _mm512_set1_ps(r.scale)), _mm512_set1_ps(r.quotient_lo)),
                       _mm512_set1_ps(r.quotient_hi));
}

/*! \brief ClampedQuotient on 8 lanes (AVX2). */
__attribute__((target("avx2"), always_inline)) inline __m256 ClampedQuotient(__m256 v, const Requantize& r) {
  return _mm256_min_ps(_mm256_max_ps(_mm256_div_ps(v, _mm256_set1_ps(r.scale)), _mm256_set1_ps(r.quotient_lo)),
                       _mm256_set1_ps(r.quotient_hi));
}

/*! \brief `v` requantized, as the int32 values of its bytes (AVX-512). */
__attribute__((target("avx512f"), always_inline)) inline __m512i RequantizedLanes(__m512 v, const Requantize& r) {
  const __m512 q = ClampedQuotient(v, r);
  return _mm512_add_epi32(_mm512_cvt_roundps_epi32(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                          _mm512_set1_epi32(static_cast<int32_t>(r.zero)));
}

/*! \brief `v` requantized and dequantized again, (q - zero) * scale, computed as
 *  round(clamp(v / scale)) * scale (the same clamp and rounding as RequantizedLanes, the zero
 *  point added and taken away again left out): the floats a dequantize of the bytes gives
 *  (AVX-512). */
__attribute__((target("avx512f"), always_inline)) inline __m512 DequantizedLanes(__m512 v, const Requantize& r) {
  const __m512 q = ClampedQuotient(v, r);
  // A multiply-add of +0 rather than a multiply: -0.0 (v / scale rounded up to zero) becomes
  // +0.0, as the integer q - zero would; every other product is the multiply's.
  return _mm512_fmadd_ps(_mm512_roundscale_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                         _mm512_set1_ps(r.scale), _mm512_setzero_ps());
}

/*! \brief DequantizedLanes on 8 lanes (AVX2). */
__attribute__((target("avx2,fma"), always_inline)) inline __m256 DequantizedLanes(__m256 v, const Requantize& r) {
  const __m256 q = ClampedQuotient(v, r);
  // +0 added as in the AVX-512 version.
  return _mm256_fmadd_ps(_mm256_round_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), _mm256_set1_ps(r.scale),
                         _mm256_setzero_ps());
}

/*! \brief Stores the lanes of `v` set in `mask`, requantized, at `dst` (AVX-512). */
__attribute__((target("avx512f"), always_inline)) inline void StoreRequantized(uint8_t* dst, __mmask16 mask, __m512 v,
                                                                               const Requantize& r) {
  _mm512_mask_cvtepi32_storeu_epi8(dst, mask, RequantizedLanes(v, r));
}

/*! \brief Four vectors of 16 requantized lanes (RequantizedLanes) as 64 bytes in order, q0's
 *  first: two saturating packs (exact: the values are in the byte type's range already) and
 *  one permute of the 4-byte groups the packs leave interleaved per 128-bit lane. One 64-byte
 *  store where four vpmovdb stores cost several times as much. */
__attribute__((target("avx512f,avx512bw"), always_inline)) inline __m512i PackRequantized(__m512i q0, __m512i q1,
                                                                                          __m512i q2, __m512i q3,
                                                                                          bool is_signed) {
  const __m512i low = _mm512_packs_epi32(q0, q1), high = _mm512_packs_epi32(q2, q3);
  const __m512i bytes = is_signed ? _mm512_packs_epi16(low, high) : _mm512_packus_epi16(low, high);
  // Lane L of `bytes` holds, as 4-byte groups, channels 4L..4L+3 of q0, q1, q2, q3.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_epi32(order, bytes);
}

/*! \brief Stores the first `count` (at most 8) lanes of `v`, requantized, at `dst` (AVX2):
 *  RequantizedLanes's arithmetic on 8 lanes (one clamp of v / scale to the quotient bounds,
 *  rounding half to even, the zero point added), the bytes packed from the int32 lanes. One
 *  element at a time it was most of MobileNetV2's int8 convolutions on AVX2: with 16 to 160
 *  input channels, a pixel's sums take fewer cycles than a scalar round and clamp. */
__attribute__((target("avx2,fma"), always_inline)) inline void StoreRequantized(uint8_t* dst, int64_t count, __m256 v,
                                                                                const Requantize& r) {
  const __m256 q = ClampedQuotient(v, r);
  const __m256i i32 =
      _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_round_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)),
                       _mm256_set1_epi32(static_cast<int32_t>(r.zero)));
  // The clamped values fit int16 and the byte type: pack int32 -> int16 -> bytes (signed packs
  // are exact here), then take each byte's low 8 bits (two's complement for int8).
  const __m128i i16 = _mm_packs_epi32(_mm256_castsi256_si128(i32), _mm256_extracti128_si256(i32, 1));
  const __m128i bytes = _mm_shuffle_epi8(i16, _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1));
  if (count >= 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), bytes);
  } else {
    alignas(16) uint8_t lanes[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), bytes);
    std::memcpy(dst, lanes, static_cast<size_t>(count));
  }
}

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_LIBRARY_INT8_COMMON_H_
