/*! \file transform.cc
 *  \brief Data movement and selection: concat, take, broadcast_to, where, astype.
 */
#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"
#include "support/status_macros.h"
#include "ir/topi/topi.h"

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

absl::StatusOr<StructInfo> InferConcat(const CallNode& call, const AxisAttrs& attrs) {
  if (call.args.empty()) return absl::InvalidArgumentError("concat needs at least one tensor");
  // The concatenated axis must be static in every input; the others (a batch) may be symbolic
  // and must agree.
  std::vector<const TensorStructInfoNode*> ts;
  for (size_t i = 0; i < call.args.size(); ++i) {
    MLC_ASSIGN_OR_RETURN(t, TensorArg(call, static_cast<int>(i)));
    if (!t->HasKnownShape()) return absl::InvalidArgumentError(absl::StrCat("argument ", i, " needs a known shape"));
    ts.push_back(t);
  }
  const TensorStructInfoNode* first = ts[0];
  int64_t rank = first->ndim, axis = attrs.axis;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("axis out of range for rank ", rank));
  std::vector<tir::PrimExpr> out = first->Dims();
  int64_t total = 0;
  for (const TensorStructInfoNode* t : ts) {
    MLC_ASSIGN_OR_RETURN(known, KnownDims(t, {static_cast<int>(axis)}, "concat's input"));
    std::vector<tir::PrimExpr> dims = t->Dims();
    bool agree = t->dtype == first->dtype && t->ndim == rank;
    for (int64_t d = 0; agree && d < rank; ++d) {
      if (d == axis) continue;
      std::optional<tir::PrimExpr> common = UnifyDims(out[d], dims[d]);
      agree = common.has_value();
      if (agree) out[d] = *common;
    }
    if (!agree) {
      return absl::InvalidArgumentError(absl::StrCat("cannot concatenate ", DimsToString(first->Dims()), " and ", DimsToString(dims),
                                                     " along axis ", axis));
    }
    total += known[axis];
  }
  out[axis] = tir::I64(total);
  return TensorSInfoOfDims(out, first->dtype);
}

absl::StatusOr<StructInfo> InferTake(const CallNode& call, const AxisAttrs& attrs) {
  const TensorStructInfoNode *x = nullptr, *idx = nullptr;
  absl::StatusOr<std::vector<int64_t>> xs = StaticShapeArg(call, 0, &x);
  if (!xs.ok()) return xs.status();
  absl::StatusOr<std::vector<int64_t>> is = StaticShapeArg(call, 1, &idx);
  if (!is.ok()) return is.status();
  if (!idx->dtype.is_int()) return absl::InvalidArgumentError("indices must be integers");
  int64_t rank = static_cast<int64_t>(xs->size()), axis = attrs.axis;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("axis out of range for rank ", rank));
  std::vector<int64_t> out(xs->begin(), xs->begin() + axis);
  out.insert(out.end(), is->begin(), is->end());
  out.insert(out.end(), xs->begin() + axis + 1, xs->end());
  return TensorSInfo(out, x->dtype);
}

absl::StatusOr<StructInfo> InferBroadcastTo(const CallNode& call, const BroadcastToAttrs& attrs) {
  const TensorStructInfoNode* x = nullptr;
  absl::StatusOr<std::vector<int64_t>> xs = StaticShapeArg(call, 0, &x);
  if (!xs.ok()) return xs.status();
  const std::vector<int64_t>& shape = attrs.shape;
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

absl::StatusOr<StructInfo> InferAstype(const CallNode& call, const AstypeAttrs& attrs) {
  const TensorStructInfoNode* x = nullptr;
  absl::StatusOr<std::vector<int64_t>> xs = StaticShapeArg(call, 0, &x);
  if (!xs.ok()) return xs.status();
  return TensorSInfo(*xs, attrs.dtype);
}

MLC_REGISTER_OP("concat")
    .set_variadic("tensors...")
    .set_attrs_type<AxisAttrs>()
    .set_description("joins tensors along axis")
    .set_infer<AxisAttrs>(InferConcat)
    .set_pattern(OpPattern::kInjective)
    .set_legalize(LegalizeTE<AxisAttrs>("concatenate", [](const std::vector<te::Tensor>& t, const AxisAttrs& a) {
      return topi::Concatenate(t, a.axis);
    }));

MLC_REGISTER_OP("take")
    .set_inputs({"x", "indices"})
    .set_attrs_type<AxisAttrs>()
    .set_description("slices of x at integer indices along axis (gather)")
    .set_infer<AxisAttrs>(InferTake)
    .set_pattern(OpPattern::kInjective)
    .set_legalize(LegalizeTE<AxisAttrs>("take", [](const std::vector<te::Tensor>& t, const AxisAttrs& a) {
      return topi::Take(t[0], t[1], a.axis);
    }));

MLC_REGISTER_OP("broadcast_to")
    .set_inputs({"x"})
    .set_attrs_type<BroadcastToAttrs>()
    .set_description("NumPy broadcasting to a shape")
    .set_infer<BroadcastToAttrs>(InferBroadcastTo)
    .set_pattern(OpPattern::kBroadcast)
    .set_legalize(LegalizeTE<BroadcastToAttrs>("broadcast_to", [](const std::vector<te::Tensor>& t, const BroadcastToAttrs& a) {
      return topi::BroadcastTo(t[0], a.shape);
    }));

MLC_REGISTER_OP("where")
    .set_inputs({"condition", "x", "y"})
    .set_description("condition ? x : y elementwise, with broadcasting")
    .set_infer(InferWhere)
    .set_pattern(OpPattern::kBroadcast)
    .set_legalize(LegalizeTE("where", [](const std::vector<te::Tensor>& t) { return topi::Where(t[0], t[1], t[2]); }));

MLC_REGISTER_OP("astype")
    .set_inputs({"x"})
    .set_attrs_type<AstypeAttrs>()
    .set_description("elementwise dtype conversion")
    .set_infer<AstypeAttrs>(InferAstype)
    .set_pattern(OpPattern::kElemWise)
    .set_legalize(LegalizeTE<AstypeAttrs>("cast", [](const std::vector<te::Tensor>& t, const AstypeAttrs& a) -> absl::StatusOr<te::Tensor> {
      return topi::Cast(t[0], a.dtype);
    }));

}  // namespace
}  // namespace relax
}  // namespace mlc
