/*! \file weight_quantized_matmul.cc
 *  \brief mlc.wq.matmul: a matmul by a weight-only quantized matrix (int8 or int4 codes with
 *         per-group float scales), the quantize-weights pass's target.
 *
 *    mlc.wq.matmul(x[..., K] float32, codes, scales float32 [P, K / group, 16], out[..., N] float32)
 *
 *  codes are int8 [P, K, 16] (8 bits) or uint8 [P, K / 2, 16] (4 bits, two codes a byte), in
 *  support/weight_quantization.h's layout; P = ceil(N / 16). The codes are turned into floats
 *  in registers as they are loaded (never a float copy of the weight), so a batch-1 step reads
 *  a quarter (8 bits) or about a sixth (4 bits, with the scales) of a float32 weight's bytes.
 *  Tiles (wq_matmul_tile.h) are compiled for AVX-512, AVX2 + FMA and portable C++; the best one
 *  the CPU runs is taken (MLC_WQ_PATH=avx2|portable asks for a lower one, for tests).
 */
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "support/cpu_features.h"
#include "vm/library/dltensor_view.h"
#include "vm/library/wq_matmul_tile.h"
#include "vm/runtime_registry.h"
#include "vm/thread_pool.h"

namespace mlc {
namespace vm {
namespace {

/*! \brief The tile's operations on single floats: a panel is 16 "vectors" of one lane. */
struct Portable {
  using V = float;
  static constexpr int kLanes = 1, kPerPanel = 16;
  static V Zero() { return 0.0f; }
  static V Load(const float* p) { return *p; }
  static V Splat(float v) { return v; }
  static V Add(V a, V b) { return a + b; }
  static V Mul(V a, V b) { return a * b; }
  static V Fma(V a, V b, V c) { return a * b + c; }
  static V Codes8(const uint8_t* row, int v) { return static_cast<float>(static_cast<int8_t>(row[v])); }
  static void Codes4(const uint8_t* row, int v, V* lo, V* hi) {
    *lo = static_cast<float>((row[v] & 0xF) - 8);
    *hi = static_cast<float>((row[v] >> 4) - 8);
  }
  static void Store(float* p, V v, int) { *p = v; }
};

enum class WqPath { kAvx512, kAvx2, kPortable };

WqPath ChooseWqPath() {
  static const bool has_avx512 = HostHasCpuFeature("avx512f") && HostHasCpuFeature("avx512bw");
  static const bool has_avx2 = HostHasCpuFeature("avx2") && HostHasCpuFeature("fma");
  const char* asked = std::getenv("MLC_WQ_PATH");
  const std::string want = asked != nullptr ? asked : "";
  if (want == "portable") return WqPath::kPortable;
  if (want == "avx2") return has_avx2 ? WqPath::kAvx2 : WqPath::kPortable;
  return has_avx512 ? WqPath::kAvx512 : has_avx2 ? WqPath::kAvx2 : WqPath::kPortable;
}

absl::Status Matmul(absl::Span<DLTensor* const> args) {
  constexpr const char* kName = "mlc.wq.matmul";
  if (args.size() != 4) return absl::InvalidArgumentError(absl::StrCat(kName, " takes 4 tensors, got ", args.size()));
  for (DLTensor* t : args) {
    if (t->strides != nullptr) return absl::InvalidArgumentError(absl::StrCat(kName, ": tensors must be contiguous"));
  }
  const DLTensor *x = args[0], *codes = args[1], *scales = args[2];
  DLTensor* out = args[3];
  auto is = [](const DLTensor* t, uint8_t code, uint8_t bits) { return t->dtype.code == code && t->dtype.bits == bits && t->dtype.lanes == 1; };
  if (!is(x, kDLFloat, 32) || x->ndim < 1 || !is(out, kDLFloat, 32) || out->ndim != x->ndim || !is(scales, kDLFloat, 32) ||
      scales->ndim != 3 || scales->shape[2] != 16 || codes->ndim != 3 || codes->shape[2] != 16 ||
      !(is(codes, kDLInt, 8) || is(codes, kDLUInt, 8))) {
    return absl::InvalidArgumentError(absl::StrCat(kName, " expects float32 x[..., K], int8 codes [P, K, 16] or uint8 codes [P, K/2, 16], "
                                                   "float32 scales [P, K/group, 16] and float32 out[..., N] of x's rank"));
  }
  WqProblem s;
  s.bits = is(codes, kDLInt, 8) ? 8 : 4;
  s.k = x->shape[x->ndim - 1];
  s.n = out->shape[out->ndim - 1];
  s.m = 1;
  for (int d = 0; d + 1 < x->ndim; ++d) {
    if (x->shape[d] != out->shape[d]) return absl::InvalidArgumentError(absl::StrCat(kName, ": x and out differ in dimension ", d));
    s.m *= x->shape[d];
  }
  s.panels = codes->shape[0];
  const int64_t code_rows = s.bits == 8 ? s.k : s.k / 2;
  if (s.panels != (s.n + 15) / 16 || codes->shape[1] != code_rows || scales->shape[0] != s.panels || scales->shape[1] <= 0 ||
      s.k % scales->shape[1] != 0 || (s.k / scales->shape[1]) % 32 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": ", s.bits, "-bit codes of ", codes->shape[0], " panels x ", codes->shape[1],
                                                   " rows and scales of ", scales->shape[0], " x ", scales->shape[1],
                                                   " groups do not fit K = ", s.k, ", N = ", s.n));
  }
  s.group = s.k / scales->shape[1];
  s.x = reinterpret_cast<const float*>(DataOf(x));
  s.codes = reinterpret_cast<const uint8_t*>(DataOf(codes));
  s.scales = reinterpret_cast<const float*>(DataOf(scales));
  s.out = reinterpret_cast<float*>(DataOf(out));
  if (s.m == 0 || s.n == 0) return absl::OkStatus();
  const WqPath path = ChooseWqPath();
  const int rows = path == WqPath::kAvx512 ? kWqAvx512Rows : path == WqPath::kAvx2 ? kWqAvx2Rows : kWqPortableRows;
  const int panels = path == WqPath::kAvx512 ? kWqAvx512Panels : path == WqPath::kAvx2 ? kWqAvx2Panels : kWqPortablePanels;
  const int64_t tasks = (s.m + rows - 1) / rows * ((s.panels + panels - 1) / panels);
  ParallelFor(tasks, [&](int64_t begin, int64_t end) {
    switch (path) {
      case WqPath::kAvx512:
        return WqTasksAvx512(s, begin, end);
      case WqPath::kAvx2:
        return WqTasksAvx2(s, begin, end);
      case WqPath::kPortable:
        return WqRunTasks<Portable, kWqPortableRows, kWqPortablePanels>(s, begin, end);
    }
  });
  return absl::OkStatus();
}

}  // namespace

MLC_REGISTER_RUNTIME_FUNC("mlc.wq.matmul", Matmul);

}  // namespace vm
}  // namespace mlc
