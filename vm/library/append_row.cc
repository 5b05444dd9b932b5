/*! \file append_row.cc
 *  \brief One more row at the end of a stack of rows (an ONNX Loop's scan output, one row per
 *         iteration) when the rows' shape is known only when the program runs; the function
 *         allocates the grown stack.
 *
 *    mlc.append_row(rows: [count, d...], row: [d...]) -> [count + 1, d...]
 *
 *  An empty stack (count 0) takes the first row's shape, whatever its own trailing dimensions.
 */
#include <algorithm>
#include <cstring>
#include <vector>

#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

absl::StatusOr<std::vector<NDArray>> AppendRow(absl::Span<const NDArray> inputs) {
  constexpr const char* kName = "mlc.append_row";
  if (inputs.size() != 2) return absl::InvalidArgumentError(absl::StrCat(kName, " takes the rows so far and one row"));
  const NDArray &rows = inputs[0], &row = inputs[1];
  const DLDataType a = rows.dtype(), b = row.dtype();
  if (a.code != b.code || a.bits != b.bits || a.lanes != b.lanes || rows.shape().size() != row.shape().size() + 1) {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": a row of rank ", row.shape().size(),
                                                   " does not stack onto rows of rank ", rows.shape().size(),
                                                   " (or the element types differ)"));
  }
  const int64_t count = rows.shape()[0];
  if (count > 0 && !std::equal(row.shape().begin(), row.shape().end(), rows.shape().begin() + 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": row ", count, " has another shape than the rows before it"));
  }
  std::vector<int64_t> dims = {count + 1};
  dims.insert(dims.end(), row.shape().begin(), row.shape().end());
  absl::StatusOr<NDArray> out = NDArray::Allocate(dims, a);
  if (!out.ok()) return out.status();
  const size_t before = count > 0 ? rows.NumBytes() : 0;
  if (before > 0) std::memcpy(out->data(), rows.data(), before);
  if (row.NumBytes() > 0) std::memcpy(static_cast<char*>(out->data()) + before, row.data(), row.NumBytes());
  return std::vector<NDArray>{*std::move(out)};
}

MLC_REGISTER_ALLOCATING_RUNTIME_FUNC("mlc.append_row", AppendRow);

}  // namespace
}  // namespace vm
}  // namespace mlc
