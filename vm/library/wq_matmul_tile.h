/*! \file wq_matmul_tile.h
 *  \brief The register tile of mlc.wq.matmul (a matmul by quantized weights), written once over
 *         an instruction-set trait and compiled once per instruction set: in
 *         weight_quantized_matmul_avx512.cc (VNNI) and _avx2.cc (each built with that set's -m
 *         flags) and, with a scalar trait, in weight_quantized_matmul.cc (the portable path).
 *
 *  Everything templated lives in an anonymous namespace on purpose: each translation unit must
 *  get its own copies, compiled for its own instruction set. A shared (COMDAT) instantiation
 *  compiled with AVX-512 could otherwise be the one the linker keeps for the portable path.
 *  For the same reason this header includes no standard library header.
 *
 *  The products are integer, as llama.cpp computes Q8_0 / Q4_0 dot products: the activations
 *  come quantized per block of 32 k (int8 codes, a float scale and the codes' sum per block;
 *  support/weight_quantization.h QuantizeActivations), the weights as offset unsigned codes in
 *  support/weight_quantization.h's layout (rows of 64 bytes: 16 columns x 4 consecutive k).
 *  Per block: the integer sums of code x code in 32-bit lanes, the weight codes' offset removed
 *  with the activation codes' sum, then one conversion to float and a multiply-add with both
 *  scales.
 */
#ifndef MLC_VM_LIBRARY_WQ_MATMUL_TILE_H_
#define MLC_VM_LIBRARY_WQ_MATMUL_TILE_H_

#include <cstdint>

namespace mlc {
namespace vm {

/*! \brief One call of mlc.wq.matmul: out[m, n] = sum_k x[m, k] * w[k, n] over M rows, with x
 *  given as its per-block quantization. */
struct WqProblem {
  const int8_t* xq;        // [M, K] activation codes
  const float* xd;         // [M, K / 32] their scales
  const int32_t* xsum;     // [M, K / 32] their sums per block
  const uint8_t* codes;    // the weight codes
  const uint16_t* scales;  // [P, K / group, 16] fp16
  float* out;              // [M, N]
  int64_t m, k, n, panels, group;
  int bits;
  int64_t blocks() const { return k / 32; }
  int64_t groups() const { return k / group; }
  int64_t panel_bytes() const { return bits == 8 ? k * 16 : k * 8; }
};

/*! \brief Tiles per instruction set: rows of x and panels of 16 columns per task. */
constexpr int kWqAvx512Rows = 4, kWqAvx512Panels = 2;
constexpr int kWqAvx2Rows = 2, kWqAvx2Panels = 1;
constexpr int kWqPortableRows = 1, kWqPortablePanels = 1;

/*! \brief Tasks [begin, end) of the problem: task t is row tile t % row_tiles of panel tile
 *  t / row_tiles (panel-major, so a thread's consecutive tasks reuse a panel from cache). */
void WqTasksAvx512(const WqProblem& s, int64_t begin, int64_t end);
void WqTasksAvx2(const WqProblem& s, int64_t begin, int64_t end);

/*! \brief support/weight_quantization.h QuantizeActivations over one row, vectorized, with the
 *  same operations in the same order (so the same codes, scales and sums, bit for bit). */
void WqQuantizeActivationsAvx512(const float* x, int64_t k, int8_t* q, float* d, int32_t* sums);
void WqQuantizeActivationsAvx2(const float* x, int64_t k, int8_t* q, float* d, int32_t* sums);

namespace {  // NOLINT(build/namespaces): per-instruction-set copies, see the file comment

/*! \brief R rows x NB panels. Isa provides integer vectors VI of 32-bit lanes (a panel is
 *  kPerPanel of them), float vectors VF of as many lanes (LoadHalves: from fp16), and Dot8 / Dot4: the lanes' sums over
 *  4 k of weight code x activation code for a row of 8-bit codes, or for the low and high
 *  nibbles of a row of 4-bit codes. Dot8 may return the sums with some of the codes' offset
 *  already taken out (kDot8Removes). */
template <class Isa, int R, int NB, int BITS>
inline void WqTile(const WqProblem& s, int64_t m0, int64_t p0) {
  using VI = typename Isa::VI;
  using VF = typename Isa::VF;
  constexpr int kP = Isa::kPerPanel, kV = NB * kP;
  constexpr int kLaneBytes = 64 / kP;  // bytes of a 64-byte row in one vector
  // What the sums still hold of the codes' offset, per unit of the activation codes' sum.
  constexpr int kOffset = BITS == 8 ? 128 - Isa::kDot8Removes : 8;
  const int64_t blocks = s.blocks(), groups = s.groups(), panel_bytes = s.panel_bytes(),
                blocks_per_group = s.group / 32;
  VF acc[R][kV];
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < kV; ++i) acc[r][i] = Isa::ZeroF();
  VF sc[kV];
  for (int64_t b = 0; b < blocks; ++b) {
    if (b % blocks_per_group == 0) {
      const int64_t g = b / blocks_per_group;
      for (int j = 0; j < NB; ++j)
        for (int v = 0; v < kP; ++v)
          sc[j * kP + v] = Isa::LoadHalves(s.scales + ((p0 + j) * groups + g) * 16 + v * Isa::kLanes);
    }
    VI sum[R][kV];
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < kV; ++i) sum[r][i] = Isa::ZeroI();
    if (BITS == 8) {
      for (int q = 0; q < 8; ++q) {  // the block's 8 groups of 4 k
        VI w[kV];
        for (int j = 0; j < NB; ++j)
          for (int v = 0; v < kP; ++v)
            w[j * kP + v] = Isa::LoadI(s.codes + (p0 + j) * panel_bytes + (b * 8 + q) * 64 + v * kLaneBytes);
        for (int r = 0; r < R; ++r) {
          const VI a = Isa::Splat4(s.xq + (m0 + r) * s.k + b * 32 + 4 * q);
          for (int i = 0; i < kV; ++i) sum[r][i] = Isa::Dot8(sum[r][i], w[i], a);
        }
      }
    } else {
      for (int q = 0; q < 4; ++q) {  // row q: k = 4q.. in the low nibbles, 16 + 4q.. in the high
        VI lo[kV], hi[kV];
        for (int j = 0; j < NB; ++j)
          for (int v = 0; v < kP; ++v)
            Isa::Nibbles(s.codes + (p0 + j) * panel_bytes + (b * 4 + q) * 64 + v * kLaneBytes, &lo[j * kP + v],
                         &hi[j * kP + v]);
        for (int r = 0; r < R; ++r) {
          const int8_t* x = s.xq + (m0 + r) * s.k + b * 32 + 4 * q;
          const VI a = Isa::Splat4(x), c = Isa::Splat4(x + 16);
          for (int i = 0; i < kV; ++i) sum[r][i] = Isa::Dot4(Isa::Dot4(sum[r][i], lo[i], a), hi[i], c);
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      const int64_t at = (m0 + r) * blocks + b;
      const VF xd = Isa::SplatF(s.xd[at]);
      const VI offset = Isa::SplatI(kOffset * s.xsum[at]);
      for (int i = 0; i < kV; ++i)
        acc[r][i] = Isa::Fma(Isa::ToFloat(Isa::Sub(sum[r][i], offset)), Isa::Mul(sc[i], xd), acc[r][i]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int i = 0; i < kV; ++i) {
      const int64_t col = p0 * 16 + i * Isa::kLanes, left = s.n - col;
      if (left <= 0) continue;
      Isa::Store(s.out + (m0 + r) * s.n + col, acc[r][i], left < Isa::kLanes ? static_cast<int>(left) : Isa::kLanes);
    }
  }
}

/*! \brief WqTile for `rows` (1..R) rows and `panels` (1..NB) panels. */
template <class Isa, int R, int NB, int BITS>
inline void WqTileAny(const WqProblem& s, int64_t rows, int64_t panels, int64_t m0, int64_t p0) {
  if constexpr (NB > 1) {
    if (panels < NB) return WqTileAny<Isa, R, NB - 1, BITS>(s, rows, panels, m0, p0);
  }
  if constexpr (R > 1) {
    if (rows < R) return WqTileAny<Isa, R - 1, NB, BITS>(s, rows, panels, m0, p0);
  }
  WqTile<Isa, R, NB, BITS>(s, m0, p0);
}

/*! \brief Tasks [begin, end) with tiles of R rows x NB panels (see WqTasksAvx512). */
template <class Isa, int R, int NB>
inline void WqRunTasks(const WqProblem& s, int64_t begin, int64_t end) {
  const int64_t row_tiles = (s.m + R - 1) / R;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t p0 = t / row_tiles * NB, m0 = t % row_tiles * R;
    const int64_t rows = s.m - m0 < R ? s.m - m0 : R, panels = s.panels - p0 < NB ? s.panels - p0 : NB;
    if (s.bits == 8)
      WqTileAny<Isa, R, NB, 8>(s, rows, panels, m0, p0);
    else
      WqTileAny<Isa, R, NB, 4>(s, rows, panels, m0, p0);
  }
}

}  // namespace
}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_LIBRARY_WQ_MATMUL_TILE_H_
