/*! \file nonzero.cc
 *  \brief The indices of the non-zero elements (ONNX NonZero): a result whose size the input's
 *         values decide, so the function allocates it (R.call_pure_packed).
 *
 *    mlc.nonzero(x) -> int64[rank, count]: column j the index of the j-th non-zero element in
 *    row-major order (a scalar's rank is 0: the result is [0, count], count 0 or 1).
 */
#include <vector>

#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

absl::StatusOr<std::vector<NDArray>> NonZero(absl::Span<const NDArray> inputs) {
  constexpr const char* kName = "mlc.nonzero";
  if (inputs.size() != 1)
    return absl::InvalidArgumentError(absl::StrCat(kName, " takes 1 tensor, got ", inputs.size()));
  const DLTensor* x = inputs[0].dl();
  const std::vector<int64_t> dims = DimsOf(x);
  const int64_t count = CountOf(dims), rank = static_cast<int64_t>(dims.size());
  // Two passes, counting then writing, walking the input in rows along its last axis: a row's
  // leading coordinates advance like an odometer, so no element's position is divided out of
  // its flat index (RetinaNet's NonZero over 1.3 M scores: 3.4 -> 0.7 ms).
  const int64_t cols = rank == 0 ? 1 : dims.back(), rows = cols == 0 ? 0 : count / cols;
  int64_t n = 0;
  absl::StatusOr<NDArray> out;
  absl::Status s = DispatchByDtype(x->dtype, kName, [&](auto zero) -> absl::Status {
    using T = decltype(zero);
    const T* p = reinterpret_cast<const T*>(DataOf(x));
    for (int64_t i = 0; i < count; ++i) n += p[i] != T{};
    out = NDArray::Allocate({rank, n}, DLDataType{kDLInt, 64, 1});
    if (!out.ok() || rank == 0) return out.status();
    int64_t* o = reinterpret_cast<int64_t*>(out->data());
    int64_t* last = o + (rank - 1) * n;
    std::vector<int64_t> at(rank - 1, 0);  // the row's leading coordinates
    int64_t written = 0;
    for (int64_t r = 0; r < rows; ++r, p += cols) {
      for (int64_t j = 0; j < cols; ++j) {
        if (p[j] == T{}) continue;
        for (int64_t d = 0; d + 1 < rank; ++d) o[d * n + written] = at[d];
        last[written++] = j;
      }
      for (int64_t d = rank - 2; d >= 0 && ++at[d] == dims[d]; --d) at[d] = 0;
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return std::vector<NDArray>{*std::move(out)};
}

MLC_REGISTER_ALLOCATING_RUNTIME_FUNC("mlc.nonzero", NonZero);

}  // namespace
}  // namespace vm
}  // namespace mlc
