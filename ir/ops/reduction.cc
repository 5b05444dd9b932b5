/*! \file reduction.cc
 *  \brief Reductions over axes: sum, mean, max, min.
 */
#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"

namespace mlc {
namespace relax {
namespace {

absl::StatusOr<StructInfo> InferReduce(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if (!(*x)->shape) return absl::InvalidArgumentError("reductions need a static input shape");
  const std::vector<int64_t>& shape = *(*x)->shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<bool> mask(rank, true);
  auto it = call.attrs.find("axis");
  if (it != call.attrs.end() && !it->second.is_none()) {
    if (!it->second.is<std::vector<int64_t>>()) return absl::InvalidArgumentError("axis must be a list of ints or None");
    mask.assign(rank, false);
    for (int64_t a : it->second.get<std::vector<int64_t>>()) {
      if (a < 0) a += rank;
      if (a < 0 || a >= rank || mask[a]) {
        return absl::InvalidArgumentError(absl::StrCat("axis ", a, " is out of range or repeated for ", ShapeToString(shape)));
      }
      mask[a] = true;
    }
  }
  bool keepdims = GetIntAttr(call.attrs, "keepdims", 0) != 0;
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!mask[d]) out.push_back(shape[d]);
    else if (keepdims) out.push_back(1);
  }
  return TensorSInfo(out, (*x)->dtype);
}

}  // namespace

void RegisterReductionOps(OpRegistry& registry) {
  for (const char* name : {"sum", "mean", "max", "min"}) {
    OpInfo& op = registry.Register(name);
    op.num_inputs = 1;
    op.arg_names = {"x"};
    op.attrs = {{"axis", "int[]", "the reduced axes; None reduces all"},
                {"keepdims", "bool", "keep reduced axes as size 1", false}};
    op.description = absl::StrCat(name, " over axes");
    op.infer = InferReduce;
    op.pattern = OpPattern::kCommReduce;
  }
}

}  // namespace relax
}  // namespace mlc
