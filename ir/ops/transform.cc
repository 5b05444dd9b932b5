/*! \file transform.cc
 *  \brief Data movement and selection: concat, take, broadcast_to, where, astype.
 */
#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"

namespace mlc {
namespace relax {
namespace {

absl::StatusOr<std::vector<int64_t>> StaticShapeArg(const CallNode& call, int i, const TensorStructInfoNode** t) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, i);
  if (!x.ok()) return x.status();
  if (!(*x)->shape) return absl::InvalidArgumentError(absl::StrCat("argument ", i, " needs a static shape"));
  if (t) *t = *x;
  return *(*x)->shape;
}

absl::StatusOr<StructInfo> InferConcat(const CallNode& call) {
  if (call.args.empty()) return absl::InvalidArgumentError("concat needs at least one tensor");
  const TensorStructInfoNode* first = nullptr;
  absl::StatusOr<std::vector<int64_t>> out = StaticShapeArg(call, 0, &first);
  if (!out.ok()) return out.status();
  int64_t rank = static_cast<int64_t>(out->size()), axis = GetIntAttr(call.attrs, "axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("axis out of range for rank ", rank));
  for (size_t i = 1; i < call.args.size(); ++i) {
    const TensorStructInfoNode* t = nullptr;
    absl::StatusOr<std::vector<int64_t>> s = StaticShapeArg(call, static_cast<int>(i), &t);
    if (!s.ok()) return s.status();
    bool agree = t->dtype == first->dtype && static_cast<int64_t>(s->size()) == rank;
    for (int64_t d = 0; agree && d < rank; ++d) agree = d == axis || (*s)[d] == (*out)[d];
    if (!agree) {
      return absl::InvalidArgumentError(absl::StrCat("cannot concatenate ", ShapeToString(*out), " and ", ShapeToString(*s),
                                                     " along axis ", axis));
    }
    (*out)[axis] += (*s)[axis];
  }
  return TensorSInfo(*out, first->dtype);
}

absl::StatusOr<StructInfo> InferTake(const CallNode& call) {
  const TensorStructInfoNode *x = nullptr, *idx = nullptr;
  absl::StatusOr<std::vector<int64_t>> xs = StaticShapeArg(call, 0, &x);
  if (!xs.ok()) return xs.status();
  absl::StatusOr<std::vector<int64_t>> is = StaticShapeArg(call, 1, &idx);
  if (!is.ok()) return is.status();
  if (!idx->dtype.is_int()) return absl::InvalidArgumentError("indices must be integers");
  int64_t rank = static_cast<int64_t>(xs->size()), axis = GetIntAttr(call.attrs, "axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("axis out of range for rank ", rank));
  std::vector<int64_t> out(xs->begin(), xs->begin() + axis);
  out.insert(out.end(), is->begin(), is->end());
  out.insert(out.end(), xs->begin() + axis + 1, xs->end());
  return TensorSInfo(out, x->dtype);
}

absl::StatusOr<StructInfo> InferBroadcastTo(const CallNode& call) {
  const TensorStructInfoNode* x = nullptr;
  absl::StatusOr<std::vector<int64_t>> xs = StaticShapeArg(call, 0, &x);
  if (!xs.ok()) return xs.status();
  auto it = call.attrs.find("shape");
  if (it == call.attrs.end() || !it->second.is<std::vector<int64_t>>()) return absl::InvalidArgumentError("shape is required");
  const std::vector<int64_t>& shape = it->second.get<std::vector<int64_t>>();
  absl::StatusOr<std::vector<int64_t>> b = BroadcastShapes(*xs, shape);
  if (!b.ok() || *b != shape) {
    return absl::InvalidArgumentError(absl::StrCat(ShapeToString(*xs), " cannot be broadcast to ", ShapeToString(shape)));
  }
  return TensorSInfo(shape, x->dtype);
}

absl::StatusOr<StructInfo> InferWhere(const CallNode& call) {
  const TensorStructInfoNode *c = nullptr, *a = nullptr, *b = nullptr;
  absl::StatusOr<std::vector<int64_t>> cs = StaticShapeArg(call, 0, &c);
  if (!cs.ok()) return cs.status();
  absl::StatusOr<std::vector<int64_t>> as = StaticShapeArg(call, 1, &a);
  if (!as.ok()) return as.status();
  absl::StatusOr<std::vector<int64_t>> bs = StaticShapeArg(call, 2, &b);
  if (!bs.ok()) return bs.status();
  if (a->dtype != b->dtype) {
    return absl::InvalidArgumentError(absl::StrCat("the branches differ in dtype: ", a->dtype.ToString(), " vs ", b->dtype.ToString()));
  }
  absl::StatusOr<std::vector<int64_t>> out = BroadcastShapes(*cs, *as);
  if (out.ok()) out = BroadcastShapes(*out, *bs);
  if (!out.ok()) return out.status();
  return TensorSInfo(*out, a->dtype);
}

absl::StatusOr<StructInfo> InferAstype(const CallNode& call) {
  const TensorStructInfoNode* x = nullptr;
  absl::StatusOr<std::vector<int64_t>> xs = StaticShapeArg(call, 0, &x);
  if (!xs.ok()) return xs.status();
  auto it = call.attrs.find("dtype");
  if (it == call.attrs.end() || !it->second.is<DataType>()) return absl::InvalidArgumentError("dtype is required");
  return TensorSInfo(*xs, it->second.get<DataType>());
}

}  // namespace

void RegisterTransformOps(OpRegistry& registry) {
  {
    OpInfo& op = registry.Register("concat");
    op.num_inputs = -1;
    op.arg_names = {"tensors..."};
    op.attrs = {{"axis", "int", "the joined axis", int64_t{0}}};
    op.description = "joins tensors along axis";
    op.infer = InferConcat;
    op.pattern = OpPattern::kInjective;
  }
  {
    OpInfo& op = registry.Register("take");
    op.num_inputs = 2;
    op.arg_names = {"x", "indices"};
    op.attrs = {{"axis", "int", "the indexed axis", int64_t{0}}};
    op.description = "slices of x at integer indices along axis (gather)";
    op.infer = InferTake;
    op.pattern = OpPattern::kInjective;
  }
  {
    OpInfo& op = registry.Register("broadcast_to");
    op.num_inputs = 1;
    op.arg_names = {"x"};
    op.attrs = {{"shape", "int[]", "the target shape"}};
    op.description = "NumPy broadcasting to a shape";
    op.infer = InferBroadcastTo;
    op.pattern = OpPattern::kBroadcast;
  }
  {
    OpInfo& op = registry.Register("where");
    op.num_inputs = 3;
    op.arg_names = {"condition", "x", "y"};
    op.description = "condition ? x : y elementwise, with broadcasting";
    op.infer = InferWhere;
    op.pattern = OpPattern::kBroadcast;
  }
  {
    OpInfo& op = registry.Register("astype");
    op.num_inputs = 1;
    op.arg_names = {"x"};
    op.attrs = {{"dtype", "dtype", "the result dtype"}};
    op.description = "elementwise dtype conversion";
    op.infer = InferAstype;
    op.pattern = OpPattern::kElemWise;
  }
}

}  // namespace relax
}  // namespace mlc
