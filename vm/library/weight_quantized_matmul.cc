/*! \file weight_quantized_matmul.cc
 *  \brief mlc.wq.matmul: a matmul by quantized weights (int8 or int4 codes with per-group float
 *         scales), the quantize-weights pass's target.
 *
 *    mlc.wq.matmul(x[..., K] float32, codes uint8, scales fp16 bits uint16 [P, K / group, 16], out[..., N] float32)
 *
 *  codes are [P, K / 4, 16, 4] (8 bits) or [P, K / 8, 16, 4] (4 bits, two codes a byte), in
 *  support/weight_quantization.h's layout; P = ceil(N / 16). As llama.cpp's Q8_0 / Q4_0 matmuls
 *  do, x is quantized per block of 32 (int8 codes and a scale, once per call), the products are
 *  integer dot products of 4 k at a time (AVX-512 VNNI's vpdpbusd, AVX2's vpmaddubsw) summed in
 *  32-bit lanes per block, and each block's sum becomes float once, times both scales: a weight
 *  is never expanded to float, so a batch-1 step reads a quarter (8 bits) or about a sixth
 *  (4 bits, with the scales) of a float32 weight's bytes. Tiles (wq_matmul_tile.h) are compiled
 *  for AVX-512 VNNI, AVX2 and portable C++; the best one the CPU runs is taken
 *  (MLC_WQ_PATH=avx2|portable asks for a lower one, for tests). All paths compute the same
 *  integer sums, so they differ only in float rounding.
 */
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "support/cpu_features.h"
#include "support/weight_quantization.h"
#include "vm/library/dltensor_view.h"
#include "vm/library/wq_matmul_tile.h"
#include "vm/runtime_registry.h"
#include "vm/thread_pool.h"

namespace mlc {
namespace vm {
namespace {

/*! \brief The tile's operations one 32-bit lane at a time: a panel is 16 "vectors" of one lane,
 *  and an integer vector holds the lane's 4 code bytes (loaded) or its sum. */
struct Portable {
  using VI = int32_t;
  using VF = float;
  static constexpr int kLanes = 1, kPerPanel = 16, kDot8Removes = 0;
  static VF ZeroF() { return 0.0f; }
  static VI ZeroI() { return 0; }
  static VF LoadHalves(const uint16_t* p) { return HalfToFloat(*p); }
  static VI LoadI(const uint8_t* p) {
    VI v;
    std::memcpy(&v, p, 4);
    return v;
  }
  static VF SplatF(float v) { return v; }
  static VI SplatI(int32_t v) { return v; }
  static VI Splat4(const int8_t* x) {
    VI v;
    std::memcpy(&v, x, 4);
    return v;
  }
  /*! \brief sum + the 4 unsigned bytes of w times the 4 signed bytes of a. */
  static VI Dot8(VI sum, VI w, VI a) {
    uint8_t wb[4];
    int8_t ab[4];
    std::memcpy(wb, &w, 4);
    std::memcpy(ab, &a, 4);
    for (int j = 0; j < 4; ++j) sum += static_cast<int32_t>(wb[j]) * ab[j];
    return sum;
  }
  static VI Dot4(VI sum, VI w, VI a) { return Dot8(sum, w, a); }
  static void Nibbles(const uint8_t* p, VI* lo, VI* hi) {
    uint8_t b[4], l[4], h[4];
    std::memcpy(b, p, 4);
    for (int j = 0; j < 4; ++j) {
      l[j] = b[j] & 0xF;
      h[j] = b[j] >> 4;
    }
    std::memcpy(lo, l, 4);
    std::memcpy(hi, h, 4);
  }
  static VI Sub(VI a, VI b) { return a - b; }
  static VF ToFloat(VI a) { return static_cast<float>(a); }
  static VF Mul(VF a, VF b) { return a * b; }
  static VF Fma(VF a, VF b, VF c) { return a * b + c; }
  static void Store(float* p, VF v, int) { *p = v; }
};

enum class WqPath { kAvx512, kAvx2, kPortable };

WqPath ChooseWqPath() {
  static const bool has_avx512 =
      HostHasCpuFeature("avx512f") && HostHasCpuFeature("avx512bw") && HostHasCpuFeature("avx512vnni");
  static const bool has_avx2 = HostHasCpuFeature("avx2") && HostHasCpuFeature("fma") && HostHasCpuFeature("f16c");
  const char* asked = std::getenv("MLC_WQ_PATH");
  const std::string want = asked != nullptr ? asked : "";
  if (want == "portable") return WqPath::kPortable;
  if (want == "avx2") return has_avx2 ? WqPath::kAvx2 : WqPath::kPortable;
  return has_avx512 ? WqPath::kAvx512 : has_avx2 ? WqPath::kAvx2 : WqPath::kPortable;
}

absl::Status Matmul(absl::Span<DLTensor* const> args) {
  constexpr const char* kName = "mlc.wq.matmul";
  if (absl::Status s = CheckTensorArgs(args, 4, kName); !s.ok()) return s;
  const DLTensor *x = args[0], *codes = args[1], *scales = args[2];
  DLTensor* out = args[3];
  if (!HasDtype(x, kDLFloat, 32) || x->ndim < 1 || !HasDtype(out, kDLFloat, 32) || out->ndim != x->ndim ||
      !HasDtype(scales, kDLUInt, 16) || !HasDtype(codes, kDLUInt, 8)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName,
                     " expects float32 x[..., K], uint8 codes [P, K/4 or K/8, 16, 4], "
                     "fp16 scales as uint16 [P, K/group, 16] and float32 out[..., N] of x's rank"));
  }
  WqProblem s;
  s.k = x->shape[x->ndim - 1];
  s.n = out->shape[out->ndim - 1];
  s.m = 1;
  for (int d = 0; d + 1 < x->ndim; ++d) {
    if (x->shape[d] != out->shape[d])
      return absl::InvalidArgumentError(absl::StrCat(kName, ": x and out differ in dimension ", d));
    s.m *= x->shape[d];
  }
  absl::StatusOr<WqLayout> layout = WqLayoutOf(DimsOf(codes), DimsOf(scales), s.k);
  if (!layout.ok()) return absl::InvalidArgumentError(absl::StrCat(kName, ": ", layout.status().message()));
  if (layout->panels != (s.n + kWqPanel - 1) / kWqPanel) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": ", layout->panels, " panels of 16 columns do not hold N = ", s.n));
  }
  s.bits = layout->bits;
  s.panels = layout->panels;
  s.group = layout->group;
  if (s.m == 0 || s.n == 0) return absl::OkStatus();
  // The activations' codes, once per call for all tasks.
  thread_local std::vector<int8_t> xq;
  thread_local std::vector<float> xd;
  thread_local std::vector<int32_t> xsum;
  xq.resize(s.m * s.k);
  xd.resize(s.m * s.blocks());
  xsum.resize(s.m * s.blocks());
  const float* xf = reinterpret_cast<const float*>(DataOf(x));
  const WqPath path = ChooseWqPath();
  auto quantize = path == WqPath::kAvx512 ? WqQuantizeActivationsAvx512
                  : path == WqPath::kAvx2 ? WqQuantizeActivationsAvx2
                                          : QuantizeActivations;
  int8_t* q = xq.data();
  float* d = xd.data();
  int32_t* sums = xsum.data();
  ParallelFor(s.m, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      quantize(xf + r * s.k, s.k, q + r * s.k, d + r * s.blocks(), sums + r * s.blocks());
  });
  s.xq = q;
  s.xd = d;
  s.xsum = sums;
  s.codes = reinterpret_cast<const uint8_t*>(DataOf(codes));
  s.scales = reinterpret_cast<const uint16_t*>(DataOf(scales));
  s.out = reinterpret_cast<float*>(DataOf(out));
  const int rows = path == WqPath::kAvx512 ? kWqAvx512Rows : path == WqPath::kAvx2 ? kWqAvx2Rows : kWqPortableRows;
  const int panels = path == WqPath::kAvx512 ? kWqAvx512Panels
                     : path == WqPath::kAvx2 ? kWqAvx2Panels
                                             : kWqPortablePanels;
  const int64_t tasks = (s.m + rows - 1) / rows * ((s.panels + panels - 1) / panels);
  ParallelFor(tasks, [&](int64_t begin, int64_t end) {
    switch (path) {
      case WqPath::kAvx512: return WqTasksAvx512(s, begin, end);
      case WqPath::kAvx2: return WqTasksAvx2(s, begin, end);
      case WqPath::kPortable: return WqRunTasks<Portable, kWqPortableRows, kWqPortablePanels>(s, begin, end);
    }
  });
  return absl::OkStatus();
}

}  // namespace

MLC_REGISTER_RUNTIME_FUNC("mlc.wq.matmul", Matmul);

}  // namespace vm
}  // namespace mlc
