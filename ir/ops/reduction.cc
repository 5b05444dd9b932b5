/*! \file reduction.cc
 *  \brief Reductions over axes: sum, mean, max, min, prod; argmax and argmin; cumsum.
 */
#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"
#include "ir/topi/topi.h"

namespace mlc {
namespace relax {
namespace {

absl::StatusOr<StructInfo> InferReduce(const CallNode& call, const ReduceAttrs& attrs) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if (!(*x)->HasKnownShape()) return absl::InvalidArgumentError("reductions need a known input shape");
  const std::vector<tir::PrimExpr> dims = (*x)->Dims();
  int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<bool> mask(rank, true);
  if (!attrs.axis.empty()) {
    mask.assign(rank, false);
    for (int64_t a : attrs.axis) {
      if (a < 0) a += rank;
      if (a < 0 || a >= rank || mask[a]) {
        return absl::InvalidArgumentError(
            absl::StrCat("axis ", a, " is out of range or repeated for ", DimsToString(dims)));
      }
      mask[a] = true;
    }
  }
  bool keepdims = attrs.keepdims;
  std::vector<tir::PrimExpr> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!mask[d])
      out.push_back(dims[d]);
    else if (keepdims)
      out.push_back(tir::I64(1));
  }
  return TensorSInfoOfDims(out, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferCumsum(const CallNode& call, const CumsumAttrs& attrs) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if ((*x)->ndim >= 0 && (attrs.axis < -(*x)->ndim || attrs.axis >= (*x)->ndim)) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", attrs.axis, " out of range for rank ", (*x)->ndim));
  }
  return call.args[0]->struct_info();
}

absl::StatusOr<StructInfo> InferArgReduce(const CallNode& call, const ArgReduceAttrs& attrs) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if (!(*x)->HasKnownShape()) return absl::InvalidArgumentError("needs a known input shape");
  std::vector<tir::PrimExpr> dims = (*x)->Dims();
  int64_t rank = static_cast<int64_t>(dims.size()), axis = attrs.axis;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    return absl::InvalidArgumentError(absl::StrCat("axis ", attrs.axis, " out of range for ", DimsToString(dims)));
  std::vector<tir::PrimExpr> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis)
      out.push_back(dims[d]);
    else if (attrs.keepdims)
      out.push_back(tir::I64(1));
  }
  return TensorSInfoOfDims(out, DataType::Int64());
}

bool RegisterReductionOps() {
  OpRegistry::Global()
      .Register("cumsum")
      .set_inputs({"x"})
      .set_attrs_type<CumsumAttrs>()
      .set_description("running sums along an axis")
      .set_infer<CumsumAttrs>(InferCumsum)
      .set_pattern(OpPattern::kOpaque)
      .set_legalize(LegalizeTE<CumsumAttrs>("cumsum", [](const std::vector<te::Tensor>& t, const CumsumAttrs& a) {
        return topi::Cumsum(t[0], a.axis, a.exclusive, a.reverse);
      }));
  for (bool largest : {true, false}) {
    const char* name = largest ? "argmax" : "argmin";
    OpRegistry::Global()
        .Register(name)
        .set_inputs({"x"})
        .set_attrs_type<ArgReduceAttrs>()
        .set_description(
            absl::StrCat("index (int64) of the ", largest ? "largest" : "smallest", " element along an axis"))
        .set_infer<ArgReduceAttrs>(InferArgReduce)
        .set_pattern(OpPattern::kCommReduce)
        .set_legalize(
            LegalizeTE<ArgReduceAttrs>(name, [largest](const std::vector<te::Tensor>& t, const ArgReduceAttrs& a) {
              return topi::ArgReduce(t[0], a.axis, a.keepdims, a.select_last_index, largest);
            }));
  }
  const std::pair<const char*, topi::ReduceOp> kReductions[] = {{"sum", topi::ReduceOp::kSum},
                                                                {"mean", topi::ReduceOp::kMean},
                                                                {"max", topi::ReduceOp::kMax},
                                                                {"min", topi::ReduceOp::kMin},
                                                                {"prod", topi::ReduceOp::kProd}};
  for (const auto& [name, kind] : kReductions) {
    topi::ReduceOp op = kind;
    OpRegistry::Global()
        .Register(name)
        .set_inputs({"x"})
        .set_attrs_type<ReduceAttrs>()
        .set_description(absl::StrCat(name, " over axes"))
        .set_infer<ReduceAttrs>(InferReduce)
        .set_pattern(OpPattern::kCommReduce)
        .set_legalize(LegalizeTE<ReduceAttrs>(name, [op](const std::vector<te::Tensor>& t, const ReduceAttrs& a) {
          return topi::Reduce(t[0], op, a.axis, a.keepdims);
        }));
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterReductionOps();

}  // namespace
}  // namespace relax
}  // namespace mlc
