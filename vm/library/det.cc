/*! \file det.cc
 *  \brief The determinant of square matrices (ONNX Det), by LU decomposition with partial
 *         pivoting in double precision; a sequential elimination, which no loop program of one
 *         output element per iteration expresses.
 *
 *    mlc.det(x[..., m, m] float32 or float64, out[...] of x's dtype)
 */
#include <cmath>
#include <utility>
#include <vector>

#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

// The determinant of the m x m matrix `a` (row-major), which it overwrites.
double Determinant(std::vector<double>& a, int64_t m) {
  double det = 1;
  for (int64_t k = 0; k < m; ++k) {
    int64_t pivot = k;
    for (int64_t i = k + 1; i < m; ++i) {
      if (std::fabs(a[i * m + k]) > std::fabs(a[pivot * m + k])) pivot = i;
    }
    if (a[pivot * m + k] == 0) return 0;
    if (pivot != k) {
      for (int64_t j = 0; j < m; ++j) std::swap(a[k * m + j], a[pivot * m + j]);
      det = -det;
    }
    det *= a[k * m + k];
    for (int64_t i = k + 1; i < m; ++i) {
      const double f = a[i * m + k] / a[k * m + k];
      for (int64_t j = k + 1; j < m; ++j) a[i * m + j] -= f * a[k * m + j];
    }
  }
  return det;
}

absl::Status Det(absl::Span<DLTensor* const> args) {
  constexpr const char* kName = "mlc.det";
  if (args.size() != 2) return absl::InvalidArgumentError(absl::StrCat(kName, " takes 2 tensors, got ", args.size()));
  const DLTensor* x = args[0];
  DLTensor* out = args[1];
  const std::vector<int64_t> dims = DimsOf(x);
  if (dims.size() < 2 || dims[dims.size() - 1] != dims[dims.size() - 2] ||
      DimsOf(out) != std::vector<int64_t>(dims.begin(), dims.end() - 2) || out->dtype.code != x->dtype.code ||
      out->dtype.bits != x->dtype.bits) {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": x must be [..., m, m] and out [...] of x's dtype"));
  }
  const int64_t m = dims.back(), count = CountOf(DimsOf(out));
  std::vector<double> a(static_cast<size_t>(m * m));
  auto run = [&](auto zero) -> absl::Status {
    using T = decltype(zero);
    const T* in = reinterpret_cast<const T*>(DataOf(x));
    T* o = reinterpret_cast<T*>(DataOf(out));
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t i = 0; i < m * m; ++i) a[i] = static_cast<double>(in[b * m * m + i]);
      o[b] = static_cast<T>(Determinant(a, m));
    }
    return absl::OkStatus();
  };
  if (HasDtype(x, kDLFloat, 32)) return run(float{});
  if (HasDtype(x, kDLFloat, 64)) return run(double{});
  return absl::InvalidArgumentError(absl::StrCat(kName, ": x must be float32 or float64"));
}

MLC_REGISTER_RUNTIME_FUNC("mlc.det", Det);

}  // namespace
}  // namespace vm
}  // namespace mlc
