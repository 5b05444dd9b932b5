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
  std::vector<int64_t> found;  // flat positions of the non-zero elements
  absl::Status s = DispatchByDtype(x->dtype, kName, [&](auto zero) -> absl::Status {
    using T = decltype(zero);
    const T* p = reinterpret_cast<const T*>(DataOf(x));
    for (int64_t i = 0; i < count; ++i) {
      if (p[i] != T{}) found.push_back(i);
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  const int64_t n = static_cast<int64_t>(found.size());
  absl::StatusOr<NDArray> out = NDArray::Allocate({rank, n}, DLDataType{kDLInt, 64, 1});
  if (!out.ok()) return out.status();
  int64_t* o = reinterpret_cast<int64_t*>(out->data());
  const std::vector<int64_t> strides = StridesOf(dims);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t d = 0; d < rank; ++d) o[d * n + j] = found[j] / strides[d] % dims[d];
  }
  return std::vector<NDArray>{*std::move(out)};
}

MLC_REGISTER_ALLOCATING_RUNTIME_FUNC("mlc.nonzero", NonZero);

}  // namespace
}  // namespace vm
}  // namespace mlc
