/*! \file manipulate.cc
 *  \brief Layout operators: reshape, permute_dims, strided_slice, layout_transform.
 */
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/graph/layout.h"
#include "ir/ops/op_util.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/topi/topi.h"
#include "support/checked_math.h"
#include "support/status_macros.h"
#include "support/tensor_data.h"

namespace mlc {
namespace relax {
namespace {

absl::StatusOr<StructInfo> InferPermuteDims(const CallNode& call, const PermuteDimsAttrs& attrs) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  int ndim = (*x)->ndim;
  bool has_axes = !attrs.axes.empty();
  if (ndim < 0) return TensorSInfoUnknownShape((*x)->dtype, has_axes ? static_cast<int>(attrs.axes.size()) : -1);
  std::vector<int64_t> axes;
  if (has_axes) {
    axes = attrs.axes;
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
  if (!(*x)->HasKnownShape()) return TensorSInfoUnknownShape((*x)->dtype, ndim);
  std::vector<tir::PrimExpr> dims = (*x)->Dims(), shape;
  for (int64_t a : axes) shape.push_back(dims[a]);
  return TensorSInfoOfDims(shape, (*x)->dtype);
}

/*! \brief A reshape target: at most one -1 (its index in `infer`), the other dimensions
 *         non-negative (their product, saturating, in `known`). */
absl::Status ReadTargetShape(const std::vector<int64_t>& shape, int* infer, int64_t* known) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (*infer >= 0) return absl::InvalidArgumentError("at most one dimension may be -1");
      *infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("invalid dimension ", shape[i]));
    } else {
      *known = SaturatingMul(*known, shape[i]);
    }
  }
  return absl::OkStatus();
}

/*! \brief A reshape of symbolic data: the -1 dimension is the element count over the others
 *         (`(n, 512, 1, 1)` to `(-1, 512)` gives `(n, 512)`), and the sizes must be provably
 *         equal. */
absl::StatusOr<StructInfo> InferSymbolicReshape(const TensorStructInfoNode* x, const std::vector<int64_t>& shape) {
  tir::PrimExpr total = tir::I64(1);
  for (const tir::PrimExpr& d : x->Dims()) total = tir::operator*(total, d);
  int64_t known = 1;
  int infer = -1;
  MLC_RETURN_IF_ERROR(ReadTargetShape(shape, &infer, &known));
  std::vector<tir::PrimExpr> dims;
  for (int64_t d : shape) dims.push_back(tir::I64(d));
  tir::Analyzer analyzer;
  if (infer >= 0) {
    if (known == 0)
      return absl::InvalidArgumentError(
          absl::StrCat("cannot reshape ", DimsToString(x->Dims()), " to ", ShapeToString(shape)));
    dims[infer] = analyzer.Simplify(tir::FloorDiv(total, tir::I64(known)));
  }
  tir::PrimExpr out_total = tir::I64(1);
  for (const tir::PrimExpr& d : dims) out_total = tir::operator*(out_total, d);
  if (!DimsEqual(total, out_total)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", DimsToString(x->Dims()), " to ",
                                                   ShapeToString(shape), ": the sizes are not provably equal"));
  }
  return TensorSInfoOfDims(dims, x->dtype);
}

/*! \brief reshape(x, sinfo_args=[R.Tensor(dims)]): to dims that may be symbolic (an importer's
 *         `(seq, batch * 4, 64)`), which a list of integers cannot say. The element counts must
 *         be provably equal. */
absl::StatusOr<StructInfo> InferReshapeToStructInfo(const TensorStructInfoNode* x, const StructInfo& target) {
  const auto* t = target.as<TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sinfo_args must be a tensor of known shape, got ", StructInfoToString(target)));
  }
  if (!x->HasKnownShape()) return TensorSInfoOfDims(t->Dims(), x->dtype);
  tir::PrimExpr in = tir::I64(1), out = tir::I64(1);
  for (const tir::PrimExpr& d : x->Dims()) in = tir::operator*(in, d);
  for (const tir::PrimExpr& d : t->Dims()) out = tir::operator*(out, d);
  if (!DimsEqual(in, out)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", DimsToString(x->Dims()), " to ",
                                                   DimsToString(t->Dims()), ": the sizes are not provably equal"));
  }
  return TensorSInfoOfDims(t->Dims(), x->dtype);
}

absl::StatusOr<StructInfo> InferReshape(const CallNode& call, const ReshapeAttrs& attrs) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  std::vector<int64_t> shape = attrs.shape;
  if (!call.sinfo_args.empty()) {
    if (!attrs.shape.empty())
      return absl::InvalidArgumentError("give the new shape as the shape attribute or as sinfo_args, not both");
    return InferReshapeToStructInfo(*x, call.sinfo_args[0]);
  }
  if ((*x)->IsSymbolic()) return InferSymbolicReshape(*x, shape);
  if (!(*x)->shape) return TensorSInfo(shape, (*x)->dtype);
  int64_t total = NumElements(*(*x)->shape), known = 1;
  int infer = -1;
  MLC_RETURN_IF_ERROR(ReadTargetShape(shape, &infer, &known));
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot reshape ", ShapeToString(*(*x)->shape), " to ", ShapeToString(shape)));
    }
    shape[infer] = total / known;
  }
  if (NumElements(shape) != total) {
    return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", ShapeToString(*(*x)->shape), " (", total,
                                                   " elements) to ", ShapeToString(shape)));
  }
  return TensorSInfo(shape, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferStridedSlice(const CallNode& call, const StridedSliceAttrs& attrs) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if (!(*x)->HasKnownShape()) return absl::InvalidArgumentError("strided_slice needs a known input shape");
  std::vector<tir::PrimExpr> dims = (*x)->Dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  const std::vector<int64_t>&axes = attrs.axes, &begin = attrs.begin, &end = attrs.end, &strides = attrs.strides;
  if (begin.size() != axes.size() || end.size() != axes.size() || (!strides.empty() && strides.size() != axes.size())) {
    return absl::InvalidArgumentError("axes, begin, end (and strides) must have the same length");
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t d = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (d < 0 || d >= rank)
      return absl::InvalidArgumentError(absl::StrCat("axis ", axes[k], " out of range for rank ", rank));
    int64_t s = strides.empty() ? 1 : strides[k];
    if (s == 0) return absl::InvalidArgumentError("stride 0");
    dims[d] = ClampSlice(dims[d], begin[k], end[k], s).extent;  // symbolic where the axis is
  }
  return TensorSInfoOfDims(dims, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferLayoutTransform(const CallNode& call, const LayoutTransformAttrs& a) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  MLC_ASSIGN_OR_RETURN(src, Layout::Parse(a.src_layout));
  MLC_ASSIGN_OR_RETURN(dst, Layout::Parse(a.dst_layout));
  if (src.Primal() != dst.Primal()) {
    return absl::InvalidArgumentError(
        absl::StrCat("src_layout ", src.name(), " and dst_layout ", dst.name(), " have different axes"));
  }
  if (!(*x)->HasKnownShape()) return TensorSInfoUnknownShape((*x)->dtype, static_cast<int>(dst.ndim()));
  if ((*x)->ndim != static_cast<int64_t>(src.ndim())) {
    return absl::InvalidArgumentError(
        absl::StrCat("a tensor ", DimsToString((*x)->Dims()), " is not in layout ", src.name()));
  }
  MLC_ASSIGN_OR_RETURN(dims, dst.ShapeFromPrimal(src.ShapeToPrimal((*x)->Dims())));
  return TensorSInfoOfDims(dims, (*x)->dtype);
}

MLC_REGISTER_OP("layout_transform")
    .set_inputs({"x"})
    .set_attrs_type<LayoutTransformAttrs>()
    .set_description(
        "the same tensor in another layout of its axes (NCHW <-> NCHW16c, OIHW -> OIHW16i64o; ir/graph/layout.h)")
    .set_infer<LayoutTransformAttrs>(InferLayoutTransform)
    .set_pattern(OpPattern::kInjective)
    .set_legalize(LegalizeTE<LayoutTransformAttrs>("layout_transform",
                                                   [](const std::vector<te::Tensor>& t, const LayoutTransformAttrs& a) {
                                                     return topi::LayoutTransform(t[0], a.src_layout, a.dst_layout);
                                                   }));

MLC_REGISTER_OP("strided_slice")
    .set_inputs({"x"})
    .set_attrs_type<StridedSliceAttrs>()
    .set_description("x[begin:end:stride] along axes")
    .set_infer<StridedSliceAttrs>(InferStridedSlice)
    .set_pattern(OpPattern::kInjective)
    .set_legalize(LegalizeTE<StridedSliceAttrs>("strided_slice",
                                                [](const std::vector<te::Tensor>& t, const StridedSliceAttrs& a) {
                                                  return topi::StridedSlice(t[0], a.axes, a.begin, a.end, a.strides);
                                                }));

MLC_REGISTER_OP("reshape")
    .set_inputs({"x"})
    .set_attrs_type<ReshapeAttrs>()
    .set_description("row-major reshape")
    .set_infer<ReshapeAttrs>(InferReshape)
    .set_pattern(OpPattern::kInjective)
    .set_legalize([](BlockBuilder* bb, const CallNode& call) -> absl::StatusOr<Expr> {
      // The inferred result has the -1 dimension resolved.
      const auto* out = call.struct_info().as<TensorStructInfoNode>();
      if (out == nullptr || !out->HasKnownShape())
        return absl::InvalidArgumentError("reshape needs a known result shape");
      return te::CallTEWithDims(
          bb, "reshape",
          [](const std::vector<te::Tensor>& t, const std::vector<tir::PrimExpr>& shape) {
            return topi::Reshape(t[0], shape);
          },
          call.args, out->Dims());
    });

MLC_REGISTER_OP("permute_dims")
    .set_inputs({"x"})
    .set_attrs_type<PermuteDimsAttrs>()
    .set_description("transpose")
    .set_infer<PermuteDimsAttrs>(InferPermuteDims)
    .set_pattern(OpPattern::kInjective)
    .set_legalize(LegalizeTE<PermuteDimsAttrs>("transpose",
                                               [](const std::vector<te::Tensor>& t, const PermuteDimsAttrs& a) {
                                                 return topi::Transpose(t[0], a.axes);
                                               }));

}  // namespace
}  // namespace relax
}  // namespace mlc
