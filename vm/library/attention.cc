/*! \file attention.cc
 *  \brief mlc.attention: scaled dot-product attention in one call, the fuse-attention pass's
 *         target for matmul(softmax(mask(scale(matmul(q, k^T)))), v).
 *
 *    mlc.attention(q [..., H, T, D], k [..., KV, S, D], v [..., KV, S, E],
 *                  params float32 [5] (support/attention_params.h), [mask], out [..., H, T, E])
 *
 *  With params' keys (values) sequence-major flag set, k (v) is [..., S, KV, D] instead: the layout of a
 *  key/value cache that grows in place (kv-cache-append), read without a transposed copy.
 *
 *  score(t, j) = q[t] . k[j] divided by `factor` (divide = 1) or times it (divide = 0); a bool
 *  mask sets the score to `fill` where it is true, a float32 mask is added to it; the mask
 *  broadcasts to [..., H, T, S] (numpy rules, aligned on the right). Then out[t] = softmax_j(score)
 *  . v, per head. Grouped-query attention needs no copies: query head h reads key/value head
 *  h / (H / KV).
 *
 *  Exported attention is a chain of about ten operators whose intermediates are [H, T, S]: at a
 *  decode step (T = 1) each is a few microseconds of work behind a kernel launch, and the keys
 *  are transposed (copied) every step. Here the G query heads of one key/value head are one
 *  block of G*T rows: keys are packed two vectors (32 or 16 keys) at a time as k^T (the rows' scores are then
 * vector-wide multiply-adds, no horizontal sums), values are read row by row into E-wide accumulators.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "support/attention_params.h"
#include "support/cpu_features.h"
#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"
#include "vm/thread_pool.h"

namespace mlc {
namespace vm {
namespace {

constexpr int64_t kPackRows =
    8;  // from this many rows per key/value head on, keys are packed (the packing is shared by the rows)

/*! \brief e^x for x <= 0 (softmax after the row maximum is subtracted), in plain arithmetic so
 *  that loops over it vectorize: 2^(x log2 e) as 2^n times a degree-6 polynomial of the
 *  fraction (relative error ~2e-7); below -87.3 it is 0, as float32's exp underflows. */
constexpr float kExpFloor = -87.3f;             // below: float32's exp underflows to 0
constexpr float kLog2E = 1.44269504088896341f;  // log2(e)
// 2^f on [0, 1), highest power first (Horner).
constexpr float kExp2Poly[] = {1.535336188319500e-4f,
                               1.339887440266574e-3f,
                               9.618437357674640e-3f,
                               5.550332471162809e-2f,
                               2.402264791363012e-1f,
                               6.931472028550421e-1f,
                               1.0f};

inline float ExpNonPositive(float x) {
  x = std::max(x, kExpFloor);
  const float t = x * kLog2E;
  const float n = std::floor(t);
  const float f = t - n;  // [0, 1)
  float p = 0;
  for (float c : kExp2Poly) p = p * f + c;
  int32_t bits;
  std::memcpy(&bits, &p, sizeof(bits));
  bits += static_cast<int32_t>(n) * (1 << 23);  // n < 0: a shift of a negative value is undefined
  float r;
  std::memcpy(&r, &bits, sizeof(r));
  return r;
}

/*! \brief Where a mask element of output row (lead, h, t) and key j is: base + j * j_stride. */
struct MaskView {
  enum Kind { kNone, kBool, kAdditive } kind = kNone;
  const char* data = nullptr;
  std::vector<int64_t> strides;  // per output dimension [..., H, T, S], 0 where broadcast
};

struct Problem {
  int64_t lead = 1, heads = 0, kv_heads = 0, rows = 0, keys = 0, depth = 0, value_depth = 0;
  std::vector<int64_t> lead_dims;
  float factor = 1, fill = 0;
  bool divide = false, k_seq_major = false, v_seq_major = false;
  /*! \brief What the scores are multiplied by: factor, or 1 / factor (divide). A division by
   *  sqrt(depth) is exact either way where depth is a power of 4; elsewhere the two round
   *  differently in the last bit, as ONNX Runtime's fused attention does. */
  float Scale() const { return divide ? 1.0f / factor : factor; }
  MaskView mask;
};

// The kernels are written once over vectors of L floats (GCC/Clang vector extensions) and
// compiled once per instruction set with L its register width: 16 lanes for AVX-512, 8 for
// AVX2, 4 for the x86-64 baseline (SSE). A width wider than the registers (16 lanes on AVX2:
// two ymm per value) made the compiler spill every tile to the stack, and the encoder's
// attention ran 10x below the FMA peak on a Zen 3. They are written over vectors rather than
// left to the auto-vectorizer, which vectorized the score loop over the wrong axis (with
// shuffles). Every helper is inlined into its instruction set's entry point (KernelsFor), so no
// vector crosses a call.
#pragma GCC diagnostic ignored "-Wpsabi"
#define MLC_INLINE inline __attribute__((always_inline))

template <int L>
struct Lanes {
  typedef float V __attribute__((vector_size(4 * L)));
  typedef int32_t I __attribute__((vector_size(4 * L)));
  // The same in memory at any float alignment, for loads and stores through a cast pointer.
  typedef float Unaligned __attribute__((vector_size(4 * L), aligned(4), may_alias));
  static MLC_INLINE V Load(const float* p) { return *reinterpret_cast<const Unaligned*>(p); }
  static MLC_INLINE void Store(float* p, V v) { *reinterpret_cast<Unaligned*>(p) = v; }
  /*! \brief The sum of the lanes as a tree of halves (a loop over the lanes would add them one
   *  after the other: float addition is not reassociated). */
  static MLC_INLINE float Sum(V v) {
    float t[L];
    std::memcpy(t, &v, sizeof(t));
    for (int w = L / 2; w >= 1; w /= 2) {
      for (int i = 0; i < w; ++i) t[i] += t[i + w];
    }
    return t[0];
  }
};

/*! \brief ExpNonPositive lane by lane: the same steps in vector arithmetic (a cast between
 *  vectors of the same size reinterprets the bits). floor(t) is the truncation, less one where
 *  that rounded up. */
template <int L>
MLC_INLINE typename Lanes<L>::V ExpLanes(typename Lanes<L>::V x) {
  using V = typename Lanes<L>::V;
  using I = typename Lanes<L>::I;
  x = x > kExpFloor ? x : V{} + kExpFloor;
  const V t = x * kLog2E;
  I n = __builtin_convertvector(t, I);
  V nf = __builtin_convertvector(n, V);
  n = nf > t ? n - 1 : n;
  nf = __builtin_convertvector(n, V);
  const V f = t - nf;
  V p = {};
  for (float c : kExp2Poly) p = p * f + c;
  return (V)((I)p + n * (1 << 23));
}

/*! \brief Keys per packed block: two vectors, so that each query value loaded serves two
 *  multiply-adds (see ScoreRows). */
constexpr int kKeyVectors = 2;

/*! \brief The kernels of one instruction set; `lanes` floats per vector, kKeyVectors * lanes
 *  keys per packed block (kt [depth][kKeyVectors * lanes]). */
struct Kernels {
  int64_t lanes;
  /*! \brief Query rows per task: a few register tiles (kTileRows), so that the task's scores stay in L1-L2. */
  int64_t task_rows;
  /*! \brief Scores of `r` query rows against keys [j0, j0 + block) packed as kt [depth][block]. */
  void (*score_block)(const float* const* q, int64_t r, const float* kt, int64_t depth, float* const* scores,
                      int64_t j0);
  /*! \brief Scores of `r` query rows against every key, one key at a time (depth a multiple of
   *  the lanes): for a few rows (a decode step) packing the keys would cost more than the
   *  horizontal sums. */
  void (*score_direct)(const float* const* q, int64_t r, const float* k, int64_t k_stride, int64_t keys, int64_t depth,
                       float* const* scores);
  /*! \brief The row's scores times `scale`, then exp(row - max(row)) in place; returns 1 / the sum. */
  float (*softmax)(float* row, int64_t keys, float scale);
  /*! \brief out[r] = (p[r] . v) * inv[r] for `n` rows of weights p; value_depth a multiple of the lanes. */
  void (*values)(int64_t n, const float* const* p, const float* inv, int64_t keys, const float* v, int64_t v_stride,
                 int64_t value_depth, float* const* out);
};

/*! \brief The register tile of scores: R query rows x W vectors of keys, R * W independent
 *  accumulator chains (12 hide the FMA latency on two ports). Per depth step, W loads of the
 *  packed keys and R broadcasts of the queries feed R * W multiply-adds: with one vector of
 *  keys (W = 1) the broadcasts and their address updates left the FMA units idle half the time. */
template <int L, int R, int W>
MLC_INLINE void ScoreRows(const float* const* q, const float* kt, int64_t depth, float* const* scores, int64_t j0) {
  using V = typename Lanes<L>::V;
  V a[R][W] = {};
  for (int64_t d = 0; d < depth; ++d) {
    V k[W];
    for (int w = 0; w < W; ++w) k[w] = Lanes<L>::Load(kt + (d * W + w) * L);
    for (int l = 0; l < R; ++l) {
      const float x = q[l][d];
      for (int w = 0; w < W; ++w) a[l][w] += x * k[w];
    }
  }
  for (int l = 0; l < R; ++l) {
    for (int w = 0; w < W; ++w) Lanes<L>::Store(scores[l] + j0 + w * L, a[l][w]);
  }
}

/*! \brief Rows of the score tile per instruction set: R * W accumulators, W key vectors and a
 *  broadcast within the vector registers (16 on AVX2 and SSE, 32 on AVX-512). */
template <int L>
constexpr int kTileRows = L == 16 ? 12 : 6;
template <int L>
constexpr int kTaskRows = (L == 16 ? 4 : 6) * kTileRows<L>;  // 36 or 48

template <int L>
MLC_INLINE void ScoreBlock(const float* const* q, int64_t r, const float* kt, int64_t depth, float* const* scores,
                           int64_t j0) {
  constexpr int R = kTileRows<L>;
  int64_t i = 0;
  for (; i + R <= r; i += R) ScoreRows<L, R, kKeyVectors>(q + i, kt, depth, scores + i, j0);
  for (; i + 4 <= r; i += 4) ScoreRows<L, 4, kKeyVectors>(q + i, kt, depth, scores + i, j0);
  for (; i < r; ++i) ScoreRows<L, 1, kKeyVectors>(q + i, kt, depth, scores + i, j0);
}

template <int L>
MLC_INLINE void ScoreDirect(const float* const* q, int64_t r, const float* k, int64_t k_stride, int64_t keys,
                            int64_t depth, float* const* scores) {
  using V = typename Lanes<L>::V;
  for (int64_t j = 0; j < keys; ++j) {
    const float* kj = k + j * k_stride;
    for (int64_t i = 0; i < r; ++i) {
      V acc = {};
      for (int64_t d = 0; d < depth; d += L) acc += Lanes<L>::Load(q[i] + d) * Lanes<L>::Load(kj + d);
      scores[i][j] = Lanes<L>::Sum(acc);
    }
  }
}

template <int L>
MLC_INLINE float Softmax(float* row, int64_t keys, float scale) {
  using V = typename Lanes<L>::V;
  const int64_t whole = keys / L * L;
  float top = row[0] * scale;
  if (whole > 0) {
    V m = Lanes<L>::Load(row) * scale;
    for (int64_t j = 0; j < whole; j += L) {
      const V x = Lanes<L>::Load(row + j) * scale;
      Lanes<L>::Store(row + j, x);
      m = m > x ? m : x;
    }
    for (int l = 0; l < L; ++l) top = std::max(top, m[l]);
  }
  for (int64_t j = whole; j < keys; ++j) {
    row[j] *= scale;
    top = std::max(top, row[j]);
  }
  for (int64_t j = 0; j < whole; j += L) Lanes<L>::Store(row + j, ExpLanes<L>(Lanes<L>::Load(row + j) - top));
  for (int64_t j = whole; j < keys; ++j) row[j] = ExpNonPositive(row[j] - top);
  V partial = {};
  for (int64_t j = 0; j < whole; j += L) partial += Lanes<L>::Load(row + j);
  float sum = Lanes<L>::Sum(partial);
  for (int64_t j = whole; j < keys; ++j) sum += row[j];
  return 1.0f / sum;
}

/*! \brief Rows [i, i + R) of Values over value columns [e, e + W * L): R * W accumulators,
 *  each load of v serving R multiply-adds and each weight broadcast W (the register tile of a
 *  GEMM). */
template <int L, int R, int W>
MLC_INLINE void ValueTile(int64_t i, int64_t e, const float* const* p, const float* inv, int64_t keys, const float* v,
                          int64_t v_stride, float* const* out) {
  using V = typename Lanes<L>::V;
  V acc[R][W] = {};
  for (int64_t j = 0; j < keys; ++j) {
    V x[W];
    for (int w = 0; w < W; ++w) x[w] = Lanes<L>::Load(v + j * v_stride + e + w * L);
    for (int l = 0; l < R; ++l) {
      const float weight = p[i + l][j];
      for (int w = 0; w < W; ++w) acc[l][w] += weight * x[w];
    }
  }
  for (int l = 0; l < R; ++l) {
    for (int w = 0; w < W; ++w) Lanes<L>::Store(out[i + l] + e + w * L, acc[l][w] * inv[i + l]);
  }
}

template <int L, int R>
MLC_INLINE void ValueRows(int64_t i, const float* const* p, const float* inv, int64_t keys, const float* v,
                          int64_t v_stride, int64_t value_depth, float* const* out) {
  int64_t e = 0;
  for (; e + 2 * L <= value_depth; e += 2 * L) ValueTile<L, R, 2>(i, e, p, inv, keys, v, v_stride, out);
  for (; e < value_depth; e += L) ValueTile<L, R, 1>(i, e, p, inv, keys, v, v_stride, out);
}

template <int L>
MLC_INLINE void Values(int64_t n, const float* const* p, const float* inv, int64_t keys, const float* v,
                       int64_t v_stride, int64_t value_depth, float* const* out) {
  constexpr int R = kTileRows<L>;
  int64_t i = 0;
  for (; i + R <= n; i += R) ValueRows<L, R>(i, p, inv, keys, v, v_stride, value_depth, out);
  for (; i + 4 <= n; i += 4) ValueRows<L, 4>(i, p, inv, keys, v, v_stride, value_depth, out);
  for (; i < n; ++i) ValueRows<L, 1>(i, p, inv, keys, v, v_stride, value_depth, out);
}

// One entry point per kernel and instruction set, compiled for that set with the helpers above
// inlined into it. (The x86-64-vN levels are feature sets; a CPU name such as skylake-avx512
// would match that model only.)
#define MLC_ATTENTION_KERNELS(NAME, TARGET, L)                                                                         \
  TARGET void ScoreBlock##NAME(const float* const* q, int64_t r, const float* kt, int64_t depth, float* const* scores, \
                               int64_t j0) {                                                                           \
    ScoreBlock<L>(q, r, kt, depth, scores, j0);                                                                        \
  }                                                                                                                    \
  TARGET void ScoreDirect##NAME(const float* const* q, int64_t r, const float* k, int64_t k_stride, int64_t keys,      \
                                int64_t depth, float* const* scores) {                                                 \
    ScoreDirect<L>(q, r, k, k_stride, keys, depth, scores);                                                            \
  }                                                                                                                    \
  TARGET float Softmax##NAME(float* row, int64_t keys, float scale) { return Softmax<L>(row, keys, scale); }           \
  TARGET void Values##NAME(int64_t n, const float* const* p, const float* inv, int64_t keys, const float* v,           \
                           int64_t v_stride, int64_t value_depth, float* const* out) {                                 \
    Values<L>(n, p, inv, keys, v, v_stride, value_depth, out);                                                         \
  }                                                                                                                    \
  constexpr Kernels k##NAME##Kernels = {L,           kTaskRows<L>, ScoreBlock##NAME, ScoreDirect##NAME, Softmax##NAME, \
                                        Values##NAME};

MLC_ATTENTION_KERNELS(Avx512, __attribute__((target("arch=x86-64-v4"))), 16)
MLC_ATTENTION_KERNELS(Avx2, __attribute__((target("arch=x86-64-v3"))), 8)
MLC_ATTENTION_KERNELS(Baseline, , 4)

/*! \brief The widest kernels this CPU runs (MLC_MAX_ISA caps the detection). */
const Kernels& KernelsForHost() {
  static const Kernels& chosen = HostHasCpuFeature("avx512f") && HostHasCpuFeature("avx512bw") &&
                                         HostHasCpuFeature("avx512dq") && HostHasCpuFeature("avx512vl")
                                     ? kAvx512Kernels
                                 : HostHasCpuFeature("avx2") && HostHasCpuFeature("fma") ? kAvx2Kernels
                                                                                         : kBaselineKernels;
  return chosen;
}

/*! \brief The same for any value_depth, one value at a time (a head size that is not a multiple of 16). */
void ValuesScalar(int64_t n, const float* const* p, const float* inv, int64_t keys, const float* v, int64_t v_stride,
                  int64_t value_depth, float* const* out) {
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t f = 0; f < value_depth; ++f) {
      float acc = 0;
      for (int64_t j = 0; j < keys; ++j) acc += p[r][j] * v[j * v_stride + f];
      out[r][f] = acc * inv[r];
    }
  }
}

/*! \brief Scales and masks row (lead, h, t) of scores in place (without a mask the softmax
 *  kernel scales them). */
void MaskScores(const Problem& p, int64_t lead, int64_t h, int64_t t, float* row) {
  const float scale = p.Scale();
  for (int64_t j = 0; j < p.keys; ++j) row[j] *= scale;
  // Offset of the mask's row: the leading index unravelled over the leading dimensions.
  const size_t n = p.mask.strides.size();
  int64_t offset = h * p.mask.strides[n - 3] + t * p.mask.strides[n - 2];
  for (int64_t i = static_cast<int64_t>(p.lead_dims.size()) - 1, rest = lead; i >= 0; --i) {
    offset += (rest % p.lead_dims[i]) * p.mask.strides[i];
    rest /= p.lead_dims[i];
  }
  const int64_t js = p.mask.strides[n - 1];
  if (p.mask.kind == MaskView::kBool) {
    const uint8_t* m = reinterpret_cast<const uint8_t*>(p.mask.data) + offset;
    for (int64_t j = 0; j < p.keys; ++j) {
      if (m[j * js] != 0) row[j] = p.fill;
    }
  } else {
    const float* m = reinterpret_cast<const float*>(p.mask.data) + offset;
    for (int64_t j = 0; j < p.keys; ++j) row[j] += m[j * js];
  }
}

/*! \brief Row j (of `width` floats) of key/value head `kvh` in batch `lead` of k or v is at the
 *  result + j * HeadStride (head-major: [KV, S, width]; sequence-major: [S, KV, width]). */
const float* HeadStart(const Problem& p, const float* x, int64_t width, bool seq_major, int64_t lead, int64_t kvh) {
  return x + lead * p.kv_heads * p.keys * width + kvh * (seq_major ? width : p.keys * width);
}
int64_t HeadStride(const Problem& p, int64_t width, bool seq_major) { return seq_major ? p.kv_heads * width : width; }
int64_t KeyStride(const Problem& p) { return HeadStride(p, p.depth, p.k_seq_major); }

/*! \brief Keys per packed block of these kernels, and the keys padded to whole blocks (a
 *  packed head's length, and a row of scores). */
int64_t KeyBlock(const Kernels& kernels) { return kKeyVectors * kernels.lanes; }
int64_t PaddedKeys(const Problem& p, const Kernels& kernels) {
  const int64_t block = KeyBlock(kernels);
  return (p.keys + block - 1) / block * block;
}

/*! \brief The keys of one key/value head as k^T in blocks of `block` keys: kt [S / block][depth][block]
 *  (a partial last block repeats its last key). */
void PackKeys(const Problem& p, const float* kb, int64_t block, float* kt) {
  const int64_t k_stride = KeyStride(p);
  for (int64_t j0 = 0; j0 < p.keys; j0 += block, kt += p.depth * block) {
    const int64_t width = std::min(block, p.keys - j0);
    for (int64_t l = 0; l < block; ++l) {
      const float* kj = kb + (j0 + std::min(l, width - 1)) * k_stride;
      for (int64_t d = 0; d < p.depth; ++d) kt[d * block + l] = kj[d];
    }
  }
}

/*! \brief Rows [r0, r1) of key/value head `kvh` in batch `lead`; a row is (g, t), query head
 *  kvh * G + g. `kt`: the head's keys packed (PackKeys), or null. */
void RunTask(const Problem& p, const float* q, const float* k, const float* kt, const float* v, float* out,
             int64_t lead, int64_t kvh, int64_t r0, int64_t r1) {
  const int64_t groups = p.heads / p.kv_heads, n = r1 - r0;
  const float* kb = HeadStart(p, k, p.depth, p.k_seq_major, lead, kvh);
  const float* vb = HeadStart(p, v, p.value_depth, p.v_seq_major, lead, kvh);
  const int64_t v_stride = HeadStride(p, p.value_depth, p.v_seq_major);
  const Kernels& kernels = KernelsForHost();
  const int64_t block = KeyBlock(kernels);
  // Rows of scores padded to whole key blocks, so that a block's scores never spill into the next row.
  const int64_t stride = PaddedKeys(p, kernels);
  std::vector<const float*> qrows(n);
  std::vector<float> scores(n * stride);
  std::vector<float*> srows(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t g = (r0 + i) / p.rows, t = (r0 + i) % p.rows;
    qrows[i] = q + ((lead * p.heads + kvh * groups + g) * p.rows + t) * p.depth;
    srows[i] = scores.data() + i * stride;
  }
  std::vector<float> own;  // keys packed here where no task shares them
  if (kt == nullptr && (n >= kPackRows || p.depth % kernels.lanes != 0)) {
    own.resize(stride * p.depth);
    PackKeys(p, kb, block, own.data());
    kt = own.data();
  }
  if (kt == nullptr) {
    kernels.score_direct(qrows.data(), n, kb, KeyStride(p), p.keys, p.depth, srows.data());
  } else {
    for (int64_t j0 = 0; j0 < p.keys; j0 += block)
      kernels.score_block(qrows.data(), n, kt + j0 * p.depth, p.depth, srows.data(), j0);
  }
  std::vector<float> inv(n);
  std::vector<float*> orows(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t g = (r0 + i) / p.rows, t = (r0 + i) % p.rows, h = kvh * groups + g;
    if (p.mask.kind != MaskView::kNone) MaskScores(p, lead, h, t, srows[i]);
    inv[i] = kernels.softmax(srows[i], p.keys, p.mask.kind != MaskView::kNone ? 1.0f : p.Scale());
    orows[i] = out + ((lead * p.heads + h) * p.rows + t) * p.value_depth;
  }
  (p.value_depth % kernels.lanes == 0 ? kernels.values : ValuesScalar)(n, srows.data(), inv.data(), p.keys, vb,
                                                                       v_stride, p.value_depth, orows.data());
}

absl::Status Attention(absl::Span<DLTensor* const> args) {
  constexpr const char* kName = "mlc.attention";
  if (args.size() != 5 && args.size() != 6) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, " takes q, k, v, params, [mask,] out; got ", args.size(), " tensors"));
  }
  if (absl::Status s = CheckContiguous(args, kName); !s.ok()) return s;
  const DLTensor *q = args[0], *k = args[1], *v = args[2], *params = args[3];
  const DLTensor* mask = args.size() == 6 ? args[4] : nullptr;
  DLTensor* out = args.back();
  const int n = q->ndim;
  bool ok = n >= 3 && k->ndim == n && v->ndim == n && out->ndim == n && HasDtype(q, kDLFloat, 32) &&
            HasDtype(k, kDLFloat, 32) && HasDtype(v, kDLFloat, 32) && HasDtype(out, kDLFloat, 32) &&
            HasDtype(params, kDLFloat, 32) && params->ndim == 1 && params->shape[0] == kAttentionParamCount;
  Problem p;
  if (ok) {
    const float* pv = reinterpret_cast<const float*>(DataOf(params));
    p.factor = pv[kAttentionFactor];
    p.fill = pv[kAttentionFill];
    p.divide = pv[kAttentionDivide] != 0;
    p.k_seq_major = pv[kAttentionKeysSequenceMajor] != 0;
    p.v_seq_major = pv[kAttentionValuesSequenceMajor] != 0;
    p.heads = q->shape[n - 3];
    p.rows = q->shape[n - 2];
    p.depth = q->shape[n - 1];
    p.kv_heads = k->shape[p.k_seq_major ? n - 2 : n - 3];
    p.keys = k->shape[p.k_seq_major ? n - 3 : n - 2];
    p.value_depth = v->shape[n - 1];
    const int64_t v_heads = v->shape[p.v_seq_major ? n - 2 : n - 3], v_keys = v->shape[p.v_seq_major ? n - 3 : n - 2];
    ok = p.kv_heads > 0 && p.heads % p.kv_heads == 0 && k->shape[n - 1] == p.depth && v_heads == p.kv_heads &&
         v_keys == p.keys && out->shape[n - 3] == p.heads && out->shape[n - 2] == p.rows &&
         out->shape[n - 1] == p.value_depth;
    for (int i = 0; ok && i < n - 3; ++i) {
      ok = k->shape[i] == q->shape[i] && v->shape[i] == q->shape[i] && out->shape[i] == q->shape[i];
      p.lead *= q->shape[i];
      p.lead_dims.push_back(q->shape[i]);
    }
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, " expects float32 q [..., H, T, D], k [..., KV, S, D], v [..., KV, S, E] with ",
                     "KV dividing H (or k, v [..., S, KV, D/E] as params say), float32 params [", kAttentionParamCount,
                     "] and out [..., H, T, E]"));
  }
  if (mask != nullptr) {
    // Broadcast strides over the scores' dimensions [..., H, T, S], aligned on the right.
    const std::vector<int64_t> md = DimsOf(mask), ms = StridesOf(md);
    const std::vector<int64_t> sd = [&] {
      std::vector<int64_t> d(q->shape, q->shape + n);
      d[n - 1] = p.keys;
      return d;
    }();
    if (static_cast<int>(md.size()) > n)
      return absl::InvalidArgumentError(absl::StrCat(kName, ": the mask has more dimensions than the scores"));
    p.mask.strides.assign(n, 0);
    for (int i = 0; i < static_cast<int>(md.size()); ++i) {
      const int o = n - static_cast<int>(md.size()) + i;
      if (md[i] != 1 && md[i] != sd[o]) {
        return absl::InvalidArgumentError(
            absl::StrCat(kName, ": mask dimension ", i, " (", md[i], ") does not broadcast to ", sd[o]));
      }
      p.mask.strides[o] = md[i] == 1 ? 0 : ms[i];
    }
    p.mask.data = DataOf(mask);
    if (HasDtype(mask, kDLBoolCode, 8) || HasDtype(mask, kDLUInt, 8)) {
      p.mask.kind = MaskView::kBool;
    } else if (HasDtype(mask, kDLFloat, 32)) {
      p.mask.kind = MaskView::kAdditive;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(kName, ": the mask must be bool or float32"));
    }
  }
  if (p.keys == 0) {  // no key: the product with an empty softmax row is 0, as the unfused operators give
    std::fill(reinterpret_cast<float*>(DataOf(out)), reinterpret_cast<float*>(DataOf(out)) + CountOf(DimsOf(out)),
              0.0f);
    return absl::OkStatus();
  }
  const Kernels& kernels = KernelsForHost();
  const int64_t rows_per_head = (p.heads / p.kv_heads) * p.rows, heads = p.lead * p.kv_heads;
  const int64_t blocks = (rows_per_head + kernels.task_rows - 1) / kernels.task_rows;
  const float *qd = reinterpret_cast<const float*>(DataOf(q)), *kd = reinterpret_cast<const float*>(DataOf(k)),
              *vd = reinterpret_cast<const float*>(DataOf(v));
  float* od = reinterpret_cast<float*>(DataOf(out));
  // Where a head's rows are split over several tasks, its keys are packed once for all of them.
  std::vector<float> packed;
  const int64_t head_keys = PaddedKeys(p, kernels) * p.depth;
  if (blocks > 1) {
    packed.resize(heads * head_keys);
    ParallelFor(heads, [&](int64_t begin, int64_t end) {
      for (int64_t head = begin; head < end; ++head) {
        PackKeys(p, HeadStart(p, kd, p.depth, p.k_seq_major, head / p.kv_heads, head % p.kv_heads), KeyBlock(kernels),
                 packed.data() + head * head_keys);
      }
    });
  }
  ParallelFor(heads * blocks, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task % blocks, head = task / blocks;
      const int64_t r0 = b * kernels.task_rows, r1 = std::min(rows_per_head, r0 + kernels.task_rows);
      const float* kt = packed.empty() ? nullptr : packed.data() + head * head_keys;
      RunTask(p, qd, kd, kt, vd, od, head / p.kv_heads, head % p.kv_heads, r0, r1);
    }
  });
  return absl::OkStatus();
}

}  // namespace

MLC_REGISTER_RUNTIME_FUNC("mlc.attention", Attention);

}  // namespace vm
}  // namespace mlc
