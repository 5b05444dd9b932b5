/*! \file unique.cc
 *  \brief The distinct elements, or slices along an axis, of a tensor (ONNX Unique): results
 *         whose size the input's values decide, so the function allocates them.
 *
 *    mlc.unique(x, params int64[3] = (has_axis, axis, sorted))
 *      -> (y, indices[m], inverse_indices[n], counts[m]) int64 but y
 *
 *  Without an axis x is flattened and its n elements compared; with one, its n slices along the
 *  axis, lexicographically in row-major order of the other dimensions (as NumPy's unique does).
 *  y holds the m distinct ones, sorted ascending (sorted=1) or in the order they first occur;
 *  indices the position of each one's first occurrence, inverse_indices each input position's
 *  place in y, counts how often each occurs.
 */
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

absl::StatusOr<std::vector<NDArray>> Unique(absl::Span<const NDArray> inputs) {
  constexpr const char* kName = "mlc.unique";
  if (inputs.size() != 2 || !IsInt64Vector(inputs[1].dl(), 3)) {
    return absl::InvalidArgumentError(absl::StrCat(kName, " takes x and params int64[3] (has_axis, axis, sorted)"));
  }
  const DLTensor* x = inputs[0].dl();
  const int64_t* p = reinterpret_cast<const int64_t*>(DataOf(inputs[1].dl()));
  const std::vector<int64_t> dims = DimsOf(x);
  const int64_t rank = static_cast<int64_t>(dims.size());
  const bool has_axis = p[0] != 0, sorted = p[2] != 0;
  const int64_t axis = has_axis ? (p[1] < 0 ? p[1] + rank : p[1]) : 0;
  if (has_axis && (axis < 0 || axis >= rank))
    return absl::InvalidArgumentError(absl::StrCat(kName, ": axis ", p[1], " is out of range"));
  // Slice i: elements (o, i, k) for o < outer, k < inner.
  const int64_t n = has_axis ? dims[axis] : CountOf(dims);
  const int64_t inner = has_axis ? StridesOf(dims)[axis] : 1;
  const int64_t outer = has_axis && n * inner > 0 ? CountOf(dims) / (n * inner) : 1;
  std::vector<int64_t> order(n), representative, group_of(n);
  std::vector<NDArray> results;
  absl::Status s = DispatchByDtype(x->dtype, kName, [&](auto zero) -> absl::Status {
    using T = decltype(zero);
    const T* v = reinterpret_cast<const T*>(DataOf(x));
    auto compare = [&](int64_t a, int64_t b) {  // -1, 0, 1: slice a against slice b
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t k = 0; k < inner; ++k) {
          const T ea = v[(o * n + a) * inner + k], eb = v[(o * n + b) * inner + k];
          if (ea < eb) return -1;
          if (eb < ea) return 1;
        }
      }
      return 0;
    };
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
    for (int64_t i = 0; i < n; ++i) {
      if (i == 0 || compare(order[i - 1], order[i]) != 0)
        representative.push_back(order[i]);  // stable: the first occurrence
      group_of[order[i]] = static_cast<int64_t>(representative.size()) - 1;
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  const int64_t m = static_cast<int64_t>(representative.size());
  // place[g]: where sorted group g goes in y.
  std::vector<int64_t> place(m);
  std::iota(place.begin(), place.end(), 0);
  if (!sorted) {
    std::vector<int64_t> by_first(m);
    std::iota(by_first.begin(), by_first.end(), 0);
    std::sort(by_first.begin(), by_first.end(),
              [&](int64_t a, int64_t b) { return representative[a] < representative[b]; });
    for (int64_t j = 0; j < m; ++j) place[by_first[j]] = j;
  }
  std::vector<int64_t> y_dims = has_axis ? dims : std::vector<int64_t>{m};
  if (has_axis) y_dims[axis] = m;
  const DLDataType i64{kDLInt, 64, 1};
  absl::StatusOr<NDArray> y = NDArray::Allocate(y_dims, x->dtype);
  absl::StatusOr<NDArray> indices = NDArray::Allocate({m}, i64), inverse = NDArray::Allocate({n}, i64),
                          counts = NDArray::Allocate({m}, i64);
  for (const absl::StatusOr<NDArray>* a : {&y, &indices, &inverse, &counts}) {
    if (!a->ok()) return a->status();
  }
  const size_t element = (x->dtype.bits + 7) / 8;
  const char* src = DataOf(x);
  char* dst = static_cast<char*>(y->data());
  int64_t* idx = static_cast<int64_t*>(indices->data());
  int64_t* inv = static_cast<int64_t*>(inverse->data());
  int64_t* cnt = static_cast<int64_t*>(counts->data());
  std::fill(cnt, cnt + m, 0);
  for (int64_t g = 0; g < m; ++g) {
    const int64_t j = place[g], i = representative[g];
    idx[j] = i;
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(dst + ((o * m + j) * inner) * element, src + ((o * n + i) * inner) * element, inner * element);
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    inv[i] = place[group_of[i]];
    ++cnt[inv[i]];
  }
  return std::vector<NDArray>{*std::move(y), *std::move(indices), *std::move(inverse), *std::move(counts)};
}

MLC_REGISTER_ALLOCATING_RUNTIME_FUNC("mlc.unique", Unique);

}  // namespace
}  // namespace vm
}  // namespace mlc
