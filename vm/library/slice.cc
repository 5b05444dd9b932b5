/*! \file slice.cc
 *  \brief ONNX Slice with bounds known only when the program runs (a loop's iteration number, a
 *         length read from data): a result whose size the values decide, so the function
 *         allocates it.
 *
 *    mlc.slice(x, starts, ends, axes, steps) -> x[starts:ends:steps] along axes
 *
 *  starts, ends and steps hold one int32 or int64 value per entry of axes (int64). Bounds follow
 *  ONNX: negative ones count from the end, then clamp to the axis ([0, dim] for a positive
 *  step, [-1, dim - 1] for a negative one); a step of 0 is an error.
 */
#include <algorithm>
#include <cstring>
#include <vector>

#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

constexpr const char* kName = "mlc.slice";

absl::StatusOr<std::vector<int64_t>> IntValues(const NDArray& a, const char* what) {
  const DLDataType t = a.dtype();
  const int64_t n = CountOf(a.shape());
  std::vector<int64_t> v(n);
  if (t.code == kDLInt && t.bits == 64 && t.lanes == 1) {
    std::memcpy(v.data(), a.data(), n * sizeof(int64_t));
  } else if (t.code == kDLInt && t.bits == 32 && t.lanes == 1) {
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<const int32_t*>(a.data())[i];
  } else {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": ", what, " must be int32 or int64"));
  }
  return v;
}

absl::StatusOr<std::vector<NDArray>> Slice(absl::Span<const NDArray> inputs) {
  if (inputs.size() != 5)
    return absl::InvalidArgumentError(absl::StrCat(kName, " takes x, starts, ends, axes and steps"));
  const NDArray& x = inputs[0];
  std::vector<std::vector<int64_t>> v;
  const char* names[] = {"starts", "ends", "axes", "steps"};
  for (int i = 1; i < 5; ++i) {
    absl::StatusOr<std::vector<int64_t>> values = IntValues(inputs[i], names[i - 1]);
    if (!values.ok()) return values.status();
    v.push_back(*std::move(values));
  }
  const std::vector<int64_t>& dims = x.shape();
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (v[1].size() != v[0].size() || v[2].size() != v[0].size() || v[3].size() != v[0].size()) {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": starts, ends, axes and steps differ in length"));
  }
  std::vector<int64_t> begin(rank, 0), step(rank, 1), out_dims = dims;
  for (size_t i = 0; i < v[0].size(); ++i) {
    int64_t axis = v[2][i] < 0 ? v[2][i] + rank : v[2][i];
    if (axis < 0 || axis >= rank)
      return absl::InvalidArgumentError(absl::StrCat(kName, ": axis ", v[2][i], " out of range for rank ", rank));
    const int64_t dim = dims[axis], s = v[3][i];
    if (s == 0) return absl::InvalidArgumentError(absl::StrCat(kName, ": step 0 on axis ", axis));
    int64_t b = v[0][i] < 0 ? v[0][i] + dim : v[0][i], e = v[1][i] < 0 ? v[1][i] + dim : v[1][i];
    if (s > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      b = std::clamp<int64_t>(b, -1, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    const int64_t length = s > 0 ? (e - b + s - 1) / s : (b - e - s - 1) / -s;
    begin[axis] = b;
    step[axis] = s;
    out_dims[axis] = std::max<int64_t>(length, 0);
  }
  absl::StatusOr<NDArray> out = NDArray::Allocate(out_dims, x.dtype());
  if (!out.ok()) return out.status();
  const int64_t count = CountOf(out_dims);
  if (count == 0) return std::vector<NDArray>{*std::move(out)};
  const size_t bytes = DLDataTypeBytes(x.dtype());
  const std::vector<int64_t> strides = StridesOf(dims);
  const char* in = static_cast<const char*>(x.data());
  char* o = static_cast<char*>(out->data());
  std::vector<int64_t> at(rank, 0);  // the output element's index
  for (int64_t n = 0; n < count; ++n) {
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d) source += (begin[d] + at[d] * step[d]) * strides[d];
    std::memcpy(o + n * bytes, in + source * bytes, bytes);
    for (int64_t d = rank - 1; d >= 0 && ++at[d] == out_dims[d]; --d) at[d] = 0;
  }
  return std::vector<NDArray>{*std::move(out)};
}

MLC_REGISTER_ALLOCATING_RUNTIME_FUNC("mlc.slice", Slice);

}  // namespace
}  // namespace vm
}  // namespace mlc
