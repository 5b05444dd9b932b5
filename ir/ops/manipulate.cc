/*! \file manipulate.cc
 *  \brief Layout operators: permute_dims.
 */
#include "absl/strings/str_cat.h"
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

}  // namespace

void RegisterManipulationOps(OpRegistry& registry) {
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
