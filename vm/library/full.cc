/*! \file full.cc
 *  \brief ONNX ConstantOfShape of a shape known only when the program runs (Mask R-CNN's padding
 *         around each pasted mask, sized by its box): the values decide the result's shape, so
 *         the function allocates it.
 *
 *    mlc.full(value: one element, shape: int64[rank]) -> [shape...] filled with value
 */
#include <cstring>
#include <vector>

#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

// The most elements a filled tensor may have: 2^31, far above any padding or mask.
constexpr int64_t kMaxFilledElements = int64_t{1} << 31;

absl::StatusOr<std::vector<NDArray>> Full(absl::Span<const NDArray> inputs) {
  constexpr const char* kName = "mlc.full";
  if (inputs.size() != 2) return absl::InvalidArgumentError(absl::StrCat(kName, " takes a value and a shape"));
  const NDArray &value = inputs[0], &shape_values = inputs[1];
  const DLDataType st = shape_values.dtype();
  if (CountOf(value.shape()) != 1)
    return absl::InvalidArgumentError(absl::StrCat(kName, ": the value must be one element"));
  if (st.code != kDLInt || st.bits != 64 || shape_values.shape().size() != 1)
    return absl::InvalidArgumentError(absl::StrCat(kName, ": the shape must be int64[rank]"));
  const int64_t* dims = static_cast<const int64_t*>(shape_values.data());
  std::vector<int64_t> shape(dims, dims + shape_values.shape()[0]);
  int64_t count = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      return absl::InvalidArgumentError(absl::StrCat(kName, ": dimension ", d, " is negative (", shape[d], ")"));
    if (shape[d] > 0 && count > kMaxFilledElements / shape[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat(kName, ": the result would have more than ", kMaxFilledElements, " elements"));
    }
    count *= shape[d];
  }
  absl::StatusOr<NDArray> out = NDArray::Allocate(shape, value.dtype());
  if (!out.ok()) return out.status();
  const size_t bytes = (value.dtype().bits * value.dtype().lanes + 7) / 8;
  char* o = static_cast<char*>(out->data());
  for (int64_t i = 0; i < count; ++i) std::memcpy(o + i * bytes, value.data(), bytes);
  return std::vector<NDArray>{*std::move(out)};
}

MLC_REGISTER_ALLOCATING_RUNTIME_FUNC("mlc.full", Full);

}  // namespace
}  // namespace vm
}  // namespace mlc
