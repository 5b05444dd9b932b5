/*! \file manipulate.cc
 *  \brief Layout operators: reshape, permute_dims, strided_slice.
 */
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "support/tensor_data.h"
#include "ir/ops/op_util.h"

namespace mlc {
namespace relax {
namespace {

absl::StatusOr<StructInfo> InferPermuteDims(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  int ndim = (*x)->ndim;
  auto it = call.attrs.find("axes");
  bool has_axes = it != call.attrs.end() && !it->second.is_none();
  if (ndim < 0) return TensorSInfoUnknownShape((*x)->dtype, has_axes ? static_cast<int>(it->second.get<std::vector<int64_t>>().size()) : -1);
  std::vector<int64_t> axes;
  if (has_axes) {
    if (!it->second.is<std::vector<int64_t>>()) return absl::InvalidArgumentError("axes must be a list of ints");
    axes = it->second.get<std::vector<int64_t>>();
    if (static_cast<int>(axes.size()) != ndim) {
      return absl::InvalidArgumentError(absl::StrCat("axes has ", axes.size(), " entries for a tensor of rank ", ndim));
    }
    std::vector<bool> seen(ndim, false);
    for (int64_t& a : axes) {
      if (a < 0) a += ndim;
      if (a < 0 || a >= ndim || seen[a]) {
        return absl::InvalidArgumentError(absl::StrCat("axes is not a permutation of 0..", ndim - 1));
      }
      seen[a] = true;
    }
  } else {
    for (int i = ndim - 1; i >= 0; --i) axes.push_back(i);
  }
  if (!(*x)->shape) return TensorSInfoUnknownShape((*x)->dtype, ndim);
  std::vector<int64_t> shape;
  for (int64_t a : axes) shape.push_back((*(*x)->shape)[a]);
  return TensorSInfo(shape, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferReshape(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  auto it = call.attrs.find("shape");
  if (it == call.attrs.end() || !it->second.is<std::vector<int64_t>>()) {
    return absl::InvalidArgumentError("attribute shape (int[]) is required");
  }
  std::vector<int64_t> shape = it->second.get<std::vector<int64_t>>();
  if (!(*x)->shape) return TensorSInfo(shape, (*x)->dtype);
  int64_t total = NumElements(*(*x)->shape), known = 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) return absl::InvalidArgumentError("at most one dimension may be -1");
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("invalid dimension ", shape[i]));
    } else {
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", ShapeToString(*(*x)->shape), " to ", ShapeToString(shape)));
    }
    shape[infer] = total / known;
  }
  if (NumElements(shape) != total) {
    return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", ShapeToString(*(*x)->shape), " (", total,
                                                   " elements) to ", ShapeToString(shape)));
  }
  return TensorSInfo(shape, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferStridedSlice(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if (!(*x)->shape) return absl::InvalidArgumentError("strided_slice needs a static input shape");
  std::vector<int64_t> shape = *(*x)->shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> axes = GetIntsAttr(call.attrs, "axes"), begin = GetIntsAttr(call.attrs, "begin"),
                       end = GetIntsAttr(call.attrs, "end"), strides = GetIntsAttr(call.attrs, "strides");
  if (begin.size() != axes.size() || end.size() != axes.size() || (!strides.empty() && strides.size() != axes.size())) {
    return absl::InvalidArgumentError("axes, begin, end (and strides) must have the same length");
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t d = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (d < 0 || d >= rank) return absl::InvalidArgumentError(absl::StrCat("axis ", axes[k], " out of range for rank ", rank));
    int64_t s = strides.empty() ? 1 : strides[k], dim = shape[d];
    if (s == 0) return absl::InvalidArgumentError("stride 0");
    shape[d] = ClampSlice(dim, begin[k], end[k], s).extent;
  }
  return TensorSInfo(shape, (*x)->dtype);
}

}  // namespace

void RegisterManipulationOps(OpRegistry& registry) {
  {
    OpInfo& op = registry.Register("strided_slice");
    op.num_inputs = 1;
    op.arg_names = {"x"};
    op.attrs = {{"axes", "int[]", "the sliced axes"},
                {"begin", "int[]", "first index per axis (negative: from the end)"},
                {"end", "int[]", "end index per axis, exclusive (clamped)"},
                {"strides", "int[]", "step per axis (default 1)"}};
    op.description = "x[begin:end:stride] along axes";
    op.infer = InferStridedSlice;
    op.pattern = OpPattern::kInjective;
  }
  {
    OpInfo& op = registry.Register("reshape");
    op.num_inputs = 1;
    op.arg_names = {"x"};
    op.attrs = {{"shape", "int[]", "the new shape; one dimension may be -1 (inferred)"}};
    op.description = "row-major reshape";
    op.infer = InferReshape;
    op.pattern = OpPattern::kInjective;
  }
  OpInfo& op = registry.Register("permute_dims");
  op.num_inputs = 1;
  op.arg_names = {"x"};
  op.attrs = {{"axes", "int[]", "the permutation; None reverses the dimensions"}};
  op.description = "transpose";
  op.infer = InferPermuteDims;
  op.pattern = OpPattern::kInjective;
}

}  // namespace relax
}  // namespace mlc
