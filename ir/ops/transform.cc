/*! \file transform.cc
 *  \brief Data movement and selection: concat, take, take_along_axis, broadcast_to, where, astype.
 */
#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/topi/topi.h"
#include "support/status_macros.h"

namespace mlc {
namespace relax {
namespace {

/*! \brief Argument i's dimensions (static or symbolic); an error when its shape is unknown. */
absl::StatusOr<std::vector<tir::PrimExpr>> DimsArg(const CallNode& call, int i, const TensorStructInfoNode** t) {
  MLC_ASSIGN_OR_RETURN(x, TensorArg(call, i));
  if (!x->HasKnownShape()) return absl::InvalidArgumentError(absl::StrCat("argument ", i, " needs a known shape"));
  if (t) *t = x;
  return x->Dims();
}

absl::StatusOr<StructInfo> InferConcat(const CallNode& call, const AxisAttrs& attrs) {
  if (call.args.empty()) return absl::InvalidArgumentError("concat needs at least one tensor");
  // Any dimension may be symbolic: the concatenated one adds up (a cache of `past` entries and
  // `seq` new ones makes `past + seq`), the others must agree.
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
  tir::PrimExpr total = tir::I64(0);
  tir::Analyzer analyzer;
  for (const TensorStructInfoNode* t : ts) {
    std::vector<tir::PrimExpr> dims = t->Dims();
    bool agree = t->dtype == first->dtype && t->ndim == rank;
    for (int64_t d = 0; agree && d < rank; ++d) {
      if (d == axis) continue;
      std::optional<tir::PrimExpr> common = UnifyDims(out[d], dims[d]);
      agree = common.has_value();
      if (agree) out[d] = *common;
    }
    if (!agree) {
      return absl::InvalidArgumentError(absl::StrCat("cannot concatenate ", DimsToString(first->Dims()), " and ",
                                                     DimsToString(dims), " along axis ", axis));
    }
    total = analyzer.Simplify(tir::operator+(total, tir::Cast(DataType::Int64(), dims[axis])));
  }
  out[axis] = total;
  return TensorSInfoOfDims(out, first->dtype);
}

absl::StatusOr<StructInfo> InferTakeAlongAxis(const CallNode& call, const AxisAttrs& attrs) {
  const TensorStructInfoNode *x = nullptr, *idx = nullptr;
  MLC_ASSIGN_OR_RETURN(xs, DimsArg(call, 0, &x));
  MLC_ASSIGN_OR_RETURN(is, DimsArg(call, 1, &idx));
  if (!idx->dtype.is_int()) return absl::InvalidArgumentError("indices must be integers");
  if (is.size() != xs.size())
    return absl::InvalidArgumentError(
        absl::StrCat("indices ", DimsToString(is), " must have the rank of ", DimsToString(xs)));
  int64_t rank = static_cast<int64_t>(xs.size()), axis = attrs.axis;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("axis out of range for rank ", rank));
  return TensorSInfoOfDims(is, x->dtype);
}

absl::StatusOr<StructInfo> InferTake(const CallNode& call, const AxisAttrs& attrs) {
  const TensorStructInfoNode *x = nullptr, *idx = nullptr;
  MLC_ASSIGN_OR_RETURN(xs, DimsArg(call, 0, &x));
  MLC_ASSIGN_OR_RETURN(is, DimsArg(call, 1, &idx));
  if (!idx->dtype.is_int()) return absl::InvalidArgumentError("indices must be integers");
  int64_t rank = static_cast<int64_t>(xs.size()), axis = attrs.axis;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("axis out of range for rank ", rank));
  std::vector<tir::PrimExpr> out(xs.begin(), xs.begin() + axis);
  out.insert(out.end(), is.begin(), is.end());
  out.insert(out.end(), xs.begin() + axis + 1, xs.end());
  return TensorSInfoOfDims(out, x->dtype);
}

/*! \brief The target of broadcast_to: the shape attribute, or (symbolic) sinfo_args[0]'s dims. */
absl::StatusOr<std::vector<tir::PrimExpr>> BroadcastTarget(const CallNode& call, const BroadcastToAttrs& attrs) {
  if (call.sinfo_args.empty()) {
    std::vector<tir::PrimExpr> dims;
    for (int64_t d : attrs.shape) dims.push_back(tir::I64(d));
    return dims;
  }
  if (!attrs.shape.empty())
    return absl::InvalidArgumentError("give the target shape as the shape attribute or as sinfo_args, not both");
  const auto* t = call.sinfo_args[0].as<TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sinfo_args must be a tensor of known shape, got ", StructInfoToString(call.sinfo_args[0])));
  }
  return t->Dims();
}

absl::StatusOr<StructInfo> InferBroadcastTo(const CallNode& call, const BroadcastToAttrs& attrs) {
  const TensorStructInfoNode* x = nullptr;
  MLC_ASSIGN_OR_RETURN(xs, DimsArg(call, 0, &x));
  MLC_ASSIGN_OR_RETURN(shape, BroadcastTarget(call, attrs));
  absl::StatusOr<std::vector<tir::PrimExpr>> b = BroadcastDims(xs, shape);
  bool same = b.ok() && b->size() == shape.size();
  for (size_t i = 0; same && i < shape.size(); ++i) same = DimsEqual((*b)[i], shape[i]);
  if (!same)
    return absl::InvalidArgumentError(absl::StrCat(DimsToString(xs), " cannot be broadcast to ", DimsToString(shape)));
  return TensorSInfoOfDims(shape, x->dtype);
}

absl::StatusOr<StructInfo> InferWhere(const CallNode& call) {
  const TensorStructInfoNode *c = nullptr, *a = nullptr, *b = nullptr;
  MLC_ASSIGN_OR_RETURN(cs, DimsArg(call, 0, &c));
  MLC_ASSIGN_OR_RETURN(as, DimsArg(call, 1, &a));
  MLC_ASSIGN_OR_RETURN(bs, DimsArg(call, 2, &b));
  if (a->dtype != b->dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("the branches differ in dtype: ", a->dtype.ToString(), " vs ", b->dtype.ToString()));
  }
  MLC_ASSIGN_OR_RETURN(ca, BroadcastDims(cs, as));
  MLC_ASSIGN_OR_RETURN(out, BroadcastDims(ca, bs));
  return TensorSInfoOfDims(out, a->dtype);
}

absl::StatusOr<StructInfo> InferAstype(const CallNode& call, const AstypeAttrs& attrs) {
  MLC_ASSIGN_OR_RETURN(x, TensorArg(call, 0));
  if (!x->HasKnownShape()) return TensorSInfoUnknownShape(attrs.dtype, x->ndim);
  return TensorSInfoOfDims(x->Dims(), attrs.dtype);
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

/*! \brief InferConcat, for a join whose inputs lie one after another in the result's bytes: every
 *  axis before `axis` is 1. */
absl::StatusOr<StructInfo> InferContiguousConcat(const CallNode& call, const AxisAttrs& attrs, const char* op) {
  MLC_ASSIGN_OR_RETURN(joined, InferConcat(call, attrs));
  const auto* t = joined.as<TensorStructInfoNode>();
  const int64_t axis = attrs.axis < 0 ? attrs.axis + t->ndim : attrs.axis;
  const std::vector<tir::PrimExpr> dims = t->Dims();
  for (int64_t d = 0; d < axis; ++d) {
    if (!tir::IsConstInt(dims[d], 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, " along axis ", axis, " needs the axes before it to be 1, got ", DimsToString(dims)));
    }
  }
  return joined;
}

// concat([cache, rows], axis) of a cache whose axes before `axis` are all 1, so that `rows` go
// right after the cache's bytes: the VM appends them in place when the cache's storage has room
// (vm/ndarray.h AppendRows), copying only `rows`. Made by the kv-cache-append pass; no kernel.
absl::StatusOr<StructInfo> InferCacheAppend(const CallNode& call, const AxisAttrs& attrs) {
  if (call.args.size() != 2) return absl::InvalidArgumentError("cache_append takes a cache and the rows to append");
  return InferContiguousConcat(call, attrs, "cache_append");
}

MLC_REGISTER_OP("cache_append")
    .set_inputs({"cache", "rows"})
    .set_attrs_type<AxisAttrs>()
    .set_description("concat([cache, rows], axis), appended in place by the VM where the cache's storage has room")
    .set_infer<AxisAttrs>(InferCacheAppend)
    .set_pattern(OpPattern::kOpaque)
    .set_builtin();

// concat(x1, ..., xn, axis) whose inputs lie one after another in the result's bytes (the axes
// before `axis` are 1): the memory plan places each input, computed in the same function, where
// its bytes go in the result, and the VM copies only an input found elsewhere. Made by the
// concat-in-place pass; no kernel.
MLC_REGISTER_OP("concat_in_place")
    .set_variadic("tensors...")
    .set_attrs_type<AxisAttrs>()
    .set_description(
        "concat along an axis after only unit axes; inputs the memory plan placed in the result are not copied")
    .set_infer<AxisAttrs>([](const CallNode& call, const AxisAttrs& attrs) {
      return InferContiguousConcat(call, attrs, "concat_in_place");
    })
    .set_pattern(OpPattern::kOpaque)
    .set_builtin();

MLC_REGISTER_OP("take")
    .set_inputs({"x", "indices"})
    .set_attrs_type<AxisAttrs>()
    .set_description("slices of x at integer indices along axis (gather)")
    .set_infer<AxisAttrs>(InferTake)
    .set_pattern(OpPattern::kInjective)
    .set_legalize(LegalizeTE<AxisAttrs>("take", [](const std::vector<te::Tensor>& t, const AxisAttrs& a) {
      return topi::Take(t[0], t[1], a.axis);
    }));

MLC_REGISTER_OP("take_along_axis")
    .set_inputs({"x", "indices"})
    .set_attrs_type<AxisAttrs>()
    .set_description("NumPy's take_along_axis (ONNX GatherElements): the result has the indices' shape")
    .set_infer<AxisAttrs>(InferTakeAlongAxis)
    .set_pattern(OpPattern::kInjective)
    .set_legalize(LegalizeTE<AxisAttrs>("take_along_axis", [](const std::vector<te::Tensor>& t, const AxisAttrs& a) {
      return topi::TakeAlongAxis(t[0], t[1], a.axis);
    }));

MLC_REGISTER_OP("broadcast_to")
    .set_inputs({"x"})
    .set_attrs_type<BroadcastToAttrs>()
    .set_description(
        "NumPy broadcasting to a shape: the shape attribute, or sinfo_args=R.Tensor((n, 4)) for symbolic dims")
    .set_infer<BroadcastToAttrs>(InferBroadcastTo)
    .set_pattern(OpPattern::kBroadcast)
    .set_legalize([](BlockBuilder* bb, const CallNode& call) -> absl::StatusOr<Expr> {
      // The inferred result holds the target, from the attribute or sinfo_args.
      const auto* out = call.struct_info().as<TensorStructInfoNode>();
      if (out == nullptr || !out->HasKnownShape())
        return absl::InvalidArgumentError("broadcast_to needs a known result shape");
      return te::CallTEWithDims(
          bb, "broadcast_to",
          [](const std::vector<te::Tensor>& t, const std::vector<tir::PrimExpr>& shape) {
            return topi::BroadcastTo(t[0], shape);
          },
          call.args, out->Dims());
    });

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
    .set_legalize(LegalizeTE<AstypeAttrs>("cast",
                                          [](const std::vector<te::Tensor>& t, const AstypeAttrs& a)
                                              -> absl::StatusOr<te::Tensor> { return topi::Cast(t[0], a.dtype); }));

}  // namespace
}  // namespace relax
}  // namespace mlc
