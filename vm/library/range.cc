/*! \file range.cc
 *  \brief ONNX Range over values known only when the program runs (a window's length given as
 *         an input): a result whose length the values decide, so the function allocates it.
 *
 *    mlc.range(start, limit, delta: one value each, of one dtype) -> [max(ceil((limit - start) / delta), 0)]
 *
 *  Element i is start + i * delta, computed in the dtype's arithmetic (double for floats).
 */
#include <cmath>
#include <vector>

#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

// The most elements a range may have: 2^31, far above any window or position table.
constexpr int64_t kMaxRangeElements = int64_t{1} << 31;

absl::StatusOr<std::vector<NDArray>> Range(absl::Span<const NDArray> inputs) {
  constexpr const char* kName = "mlc.range";
  if (inputs.size() != 3) return absl::InvalidArgumentError(absl::StrCat(kName, " takes start, limit and delta"));
  const DLDataType dtype = inputs[0].dtype();
  for (const NDArray& a : inputs) {
    if (a.dtype().code != dtype.code || a.dtype().bits != dtype.bits || CountOf(a.shape()) != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(kName, ": start, limit and delta must be one value each, of one dtype"));
    }
  }
  absl::StatusOr<NDArray> out;
  absl::Status s = DispatchByDtype(dtype, kName, [&](auto zero) -> absl::Status {
    using T = decltype(zero);
    const T start = *static_cast<const T*>(inputs[0].data()), limit = *static_cast<const T*>(inputs[1].data()),
            delta = *static_cast<const T*>(inputs[2].data());
    if (delta == T{}) return absl::InvalidArgumentError(absl::StrCat(kName, ": delta is 0"));
    const double count =
        std::ceil((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta));
    if (!(count <= static_cast<double>(kMaxRangeElements))) {
      return absl::InvalidArgumentError(
          absl::StrCat(kName, ": ", count, " elements are more than ", kMaxRangeElements));
    }
    const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
    out = NDArray::Allocate({n}, dtype);
    if (!out.ok()) return out.status();
    T* o = static_cast<T*>(out->data());
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(start + static_cast<T>(i) * delta);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return std::vector<NDArray>{*std::move(out)};
}

MLC_REGISTER_ALLOCATING_RUNTIME_FUNC("mlc.range", Range);

}  // namespace
}  // namespace vm
}  // namespace mlc
