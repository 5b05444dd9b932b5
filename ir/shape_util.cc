/*! \file shape_util.cc */
#include "ir/shape_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mlc {
namespace relax {

SliceRange ClampSlice(int64_t dim, int64_t begin, int64_t end, int64_t step) {
  auto clamp = [dim](int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v < 0 ? v + dim : v, lo), hi); };
  int64_t b = step > 0 ? clamp(begin, 0, dim) : clamp(begin, -1, dim - 1);
  int64_t e = step > 0 ? clamp(end, 0, dim) : clamp(end, -1, dim - 1);
  int64_t extent = step > 0 ? (e - b + step - 1) / step : (b - e - step - 1) / (-step);
  return {b, std::max<int64_t>(0, extent)};
}

absl::Status CheckWindowAttrs(const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding) {
  auto check = [](const std::vector<int64_t>& v, const char* name, int64_t least) -> absl::Status {
    for (int64_t x : v) {
      if (x < least) {
        return absl::InvalidArgumentError(absl::StrCat(name, " ", ShapeToString(v), " must be ", least > 0 ? "positive" : "non-negative"));
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check(kernel, "kernel size", 1); !s.ok()) return s;
  if (absl::Status s = check(strides, "strides", 1); !s.ok()) return s;
  if (absl::Status s = check(dilation, "dilation", 1); !s.ok()) return s;
  return check(padding, "padding", 0);
}

int64_t WindowExtent(int64_t in, int64_t pad_before, int64_t pad_after, int64_t kernel, int64_t dilation, int64_t stride,
                     bool ceil_mode) {
  if (kernel < 1 || dilation < 1 || stride < 1) return 0;  // CheckWindowAttrs says which
  int64_t span = in + pad_before + pad_after - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_before) --out;
  return out;
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ", "), shape.size() == 1 ? ",)" : ")");
}

absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shapes ", ShapeToString(a), " and ", ShapeToString(b), " cannot be broadcast together"));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace relax
}  // namespace mlc
