/*! \file create.cc
 *  \brief Operators that make a tensor from a shape: arange (its length given as sinfo_args, so
 *         it may be a shape variable: the positions 0..seq-1 of a decoder), triu / tril (a
 *         causal mask over seq x seq) and dim_value (a symbolic size as a value: ONNX's Shape at
 *         run time). TVM's relax.op.arange / triu / tril.
 */
#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"
#include "ir/topi/topi.h"
#include "support/status_macros.h"

namespace mlc {
namespace relax {
namespace {

/*! \brief arange's length: sinfo_args[0] is a 1-D tensor of the result's dtype. */
absl::StatusOr<StructInfo> InferArange(const CallNode& call, const ArangeAttrs& attrs) {
  if (!call.args.empty()) return absl::InvalidArgumentError("arange takes no tensor arguments");
  if (attrs.step == 0) return absl::InvalidArgumentError("arange: step must not be 0");
  const auto* t = call.sinfo_args.empty() ? nullptr : call.sinfo_args[0].as<TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape() || t->ndim != 1 || t->dtype != attrs.dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("arange needs sinfo_args=R.Tensor((n,), \"", attrs.dtype.ToString(), "\") giving its length",
                     call.sinfo_args.empty() ? "" : absl::StrCat(", got ", StructInfoToString(call.sinfo_args[0]))));
  }
  return call.sinfo_args[0];
}

absl::StatusOr<StructInfo> InferTriangle(const CallNode& call, const TriangleAttrs&) {
  MLC_ASSIGN_OR_RETURN(x, TensorArg(call, 0));
  if (x->ndim >= 0 && x->ndim < 2) return absl::InvalidArgumentError(absl::StrCat("needs rank >= 2, got ", x->ndim));
  return call.args[0]->struct_info();
}

FLegalize LegalizeTriangle(bool upper) {
  return LegalizeTE<TriangleAttrs>(
      upper ? "triu" : "tril",
      [upper](const std::vector<te::Tensor>& t, const TriangleAttrs& a) { return topi::Triangle(t[0], a.k, upper); });
}

MLC_REGISTER_OP("arange")
    .set_inputs({})
    .set_attrs_type<ArangeAttrs>()
    .set_description("start + i * step for i in [0, n), n from sinfo_args=R.Tensor((n,), dtype) (may be symbolic)")
    .set_infer<ArangeAttrs>(InferArange)
    .set_pattern(OpPattern::kInjective)
    .set_legalize([](BlockBuilder* bb, const CallNode& call) -> absl::StatusOr<Expr> {
      const auto* out = call.struct_info().as<TensorStructInfoNode>();
      if (out == nullptr || !out->HasKnownShape())
        return absl::InvalidArgumentError("arange needs a known result shape");
      MLC_ASSIGN_OR_RETURN(attrs, ParseAttrs<ArangeAttrs>(call.attrs));
      return te::CallTEWithDims(
          bb, "arange",
          [attrs](const std::vector<te::Tensor>&, const std::vector<tir::PrimExpr>& count) {
            return topi::Arange(count[0], attrs.start, attrs.step, attrs.dtype);
          },
          {}, out->Dims());
    });

MLC_REGISTER_OP("dim_value")
    .set_inputs({"x"})
    .set_attrs_type<AxisAttrs>()
    .set_description(
        "the extent of x's axis as a 0-d int64 tensor: a size known only when the function runs (a "
        "decoder's past length) as a value; x's elements are not read")
    .set_infer<AxisAttrs>([](const CallNode& call, const AxisAttrs& attrs) -> absl::StatusOr<StructInfo> {
      MLC_ASSIGN_OR_RETURN(x, TensorArg(call, 0));
      if (x->ndim < 0) return absl::InvalidArgumentError("dim_value needs an input of known rank");
      if (attrs.axis < -x->ndim || attrs.axis >= x->ndim) {
        return absl::InvalidArgumentError(
            absl::StrCat("dim_value: axis ", attrs.axis, " out of range for rank ", x->ndim));
      }
      return TensorSInfo({}, DataType::Int64());
    })
    .set_pattern(OpPattern::kOpaque)
    .set_legalize(LegalizeTE<AxisAttrs>("dim_value", [](const std::vector<te::Tensor>& t, const AxisAttrs& a) {
      return topi::DimValue(t[0], a.axis);
    }));

MLC_REGISTER_OP("triu")
    .set_inputs({"x"})
    .set_attrs_type<TriangleAttrs>()
    .set_description("x on and above diagonal k of its last two dimensions, 0 below (numpy.triu)")
    .set_infer<TriangleAttrs>(InferTriangle)
    .set_pattern(OpPattern::kInjective)
    .set_legalize(LegalizeTriangle(true));

MLC_REGISTER_OP("tril")
    .set_inputs({"x"})
    .set_attrs_type<TriangleAttrs>()
    .set_description("x on and below diagonal k of its last two dimensions, 0 above (numpy.tril)")
    .set_infer<TriangleAttrs>(InferTriangle)
    .set_pattern(OpPattern::kInjective)
    .set_legalize(LegalizeTriangle(false));

}  // namespace
}  // namespace relax
}  // namespace mlc
