/*! \file wq_matmul_tile.h
 *  \brief The register tile of mlc.wq.matmul (weight-only quantized matmul), written once over an
 *         instruction-set trait and compiled once per instruction set: in
 *         weight_quantized_matmul_avx512.cc and _avx2.cc (each built with that set's -m flags)
 *         and, with a scalar trait, in weight_quantized_matmul.cc (the portable path).
 *
 *  Everything templated lives in an anonymous namespace on purpose: each translation unit must
 *  get its own copies, compiled for its own instruction set. A shared (COMDAT) instantiation
 *  compiled with AVX-512 could otherwise be the one the linker keeps for the portable path.
 *  For the same reason this header includes no standard library header.
 *
 *  The weight layout is support/weight_quantization.h's: panels of 16 output columns, k-major;
 *  8-bit codes one byte per (k, column), 4-bit codes in blocks of 32 k whose row t holds k = t
 *  and k = 16 + t; one float scale per (group of k, column).
 */
#ifndef MLC_VM_LIBRARY_WQ_MATMUL_TILE_H_
#define MLC_VM_LIBRARY_WQ_MATMUL_TILE_H_

#include <cstdint>

namespace mlc {
namespace vm {

/*! \brief One call of mlc.wq.matmul: out[m, n] = sum_k x[m, k] * w[k, n] over M rows. */
struct WqProblem {
  const float* x;         // [M, K]
  const uint8_t* codes;   // [P, K, 16] int8 or [P, K / 2, 16] packed nibbles
  const float* scales;    // [P, K / group, 16]
  float* out;             // [M, N]
  int64_t m, k, n, panels, group;
  int bits;
  int64_t groups() const { return k / group; }
  int64_t panel_bytes() const { return bits == 8 ? k * 16 : k / 2 * 16; }
};

/*! \brief Tiles per instruction set: rows of x and panels of 16 columns per task. */
constexpr int kWqAvx512Rows = 8, kWqAvx512Panels = 2;
constexpr int kWqAvx2Rows = 4, kWqAvx2Panels = 1;
constexpr int kWqPortableRows = 4, kWqPortablePanels = 1;

/*! \brief Tasks [begin, end) of the problem: task t is row tile t % row_tiles of panel tile
 *  t / row_tiles (panel-major, so a thread's consecutive tasks reuse a panel from cache). */
void WqTasksAvx512(const WqProblem& s, int64_t begin, int64_t end);
void WqTasksAvx2(const WqProblem& s, int64_t begin, int64_t end);

namespace {  // NOLINT(build/namespaces): per-instruction-set copies, see the file comment

/*! \brief R rows x NB panels. Per k, each panel's codes become Isa::kPerPanel vectors of floats;
 *  per row, x[r, k] is broadcast and multiplied in. With few accumulators (R x vectors <= 4) the
 *  products of a group are summed unscaled, in two chains (the block's low and high 16 k) to
 *  hide the FMA latency, and scaled once per group; otherwise the codes are scaled as they are
 *  loaded (one multiply per vector, shared by the R rows). */
template <class Isa, int R, int NB, int BITS>
inline void WqTile(const WqProblem& s, int64_t m0, int64_t p0) {
  using V = typename Isa::V;
  constexpr int kP = Isa::kPerPanel, kV = NB * kP;
  constexpr bool kGroupSums = R * kV <= 4;
  const int64_t groups = s.groups(), panel_bytes = s.panel_bytes(), blocks_per_group = s.group / 32;
  const uint8_t* codes = s.codes + p0 * panel_bytes;
  const float* x = s.x + m0 * s.k;
  V acc[R][kV];
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < kV; ++i) acc[r][i] = Isa::Zero();
  for (int64_t g = 0; g < groups; ++g) {
    V sc[kV];
    for (int j = 0; j < NB; ++j)
      for (int v = 0; v < kP; ++v) sc[j * kP + v] = Isa::Load(s.scales + ((p0 + j) * groups + g) * 16 + v * Isa::kLanes);
    V part[2][R][kV];
    if (kGroupSums) {
      for (int h = 0; h < 2; ++h)
        for (int r = 0; r < R; ++r)
          for (int i = 0; i < kV; ++i) part[h][r][i] = Isa::Zero();
    }
    for (int64_t b = g * blocks_per_group; b < (g + 1) * blocks_per_group; ++b) {
      for (int t = 0; t < 16; ++t) {
        const int64_t klo = b * 32 + t, khi = klo + 16;
        V lo[kV], hi[kV];
        for (int j = 0; j < NB; ++j) {
          const uint8_t* panel = codes + j * panel_bytes;
          for (int v = 0; v < kP; ++v) {
            if (BITS == 8) {
              lo[j * kP + v] = Isa::Codes8(panel + klo * 16, v);
              hi[j * kP + v] = Isa::Codes8(panel + khi * 16, v);
            } else {
              Isa::Codes4(panel + (b * 16 + t) * 16, v, &lo[j * kP + v], &hi[j * kP + v]);
            }
          }
        }
        if (!kGroupSums) {
          for (int i = 0; i < kV; ++i) {
            lo[i] = Isa::Mul(lo[i], sc[i]);
            hi[i] = Isa::Mul(hi[i], sc[i]);
          }
        }
        for (int r = 0; r < R; ++r) {
          const V a = Isa::Splat(x[r * s.k + klo]), c = Isa::Splat(x[r * s.k + khi]);
          for (int i = 0; i < kV; ++i) {
            if (kGroupSums) {
              part[0][r][i] = Isa::Fma(a, lo[i], part[0][r][i]);
              part[1][r][i] = Isa::Fma(c, hi[i], part[1][r][i]);
            } else {
              acc[r][i] = Isa::Fma(a, lo[i], acc[r][i]);
              acc[r][i] = Isa::Fma(c, hi[i], acc[r][i]);
            }
          }
        }
      }
    }
    if (kGroupSums) {
      for (int r = 0; r < R; ++r)
        for (int i = 0; i < kV; ++i) acc[r][i] = Isa::Fma(Isa::Add(part[0][r][i], part[1][r][i]), sc[i], acc[r][i]);
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
    if (s.bits == 8) WqTileAny<Isa, R, NB, 8>(s, rows, panels, m0, p0);
    else WqTileAny<Isa, R, NB, 4>(s, rows, panels, m0, p0);
  }
}

}  // namespace
}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_LIBRARY_WQ_MATMUL_TILE_H_
