/*! \file op_util.cc
 *  \brief Helpers shared by the struct-info rules, and the core registration entry point.
 */
#include "ir/ops/op_util.h"

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

int64_t WindowExtent(int64_t in, int64_t pad_before, int64_t pad_after, int64_t kernel, int64_t dilation, int64_t stride,
                     bool ceil_mode) {
  int64_t span = in + pad_before + pad_after - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_before) --out;
  return out;
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ", "), shape.size() == 1 ? ",)" : ")");
}

absl::StatusOr<const TensorStructInfoNode*> TensorArg(const CallNode& call, int index) {
  const OpNode* op = call.op.as<OpNode>();
  std::string arg_name = absl::StrCat("argument ", index);
  if (op != nullptr && index < static_cast<int>(op->info().arg_names.size())) {
    arg_name = absl::StrCat("argument ", index, " (", op->info().arg_names[index], ")");
  }
  if (index >= static_cast<int>(call.args.size())) {
    return absl::InvalidArgumentError(absl::StrCat(arg_name, " is missing"));
  }
  const auto* t = call.args[index]->struct_info().as<TensorStructInfoNode>();
  if (t == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(arg_name, " must be a tensor, got ",
                                                   StructInfoToString(call.args[index]->struct_info())));
  }
  return t;
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

void RegisterCoreOps(OpRegistry& registry) {
  RegisterElementwiseOps(registry);
  RegisterLinearAlgebraOps(registry);
  RegisterManipulationOps(registry);
  RegisterBuiltinOps(registry);
  RegisterNNOps(registry);
  RegisterReductionOps(registry);
  RegisterTransformOps(registry);
}

}  // namespace relax
}  // namespace mlc
