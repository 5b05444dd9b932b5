/*! \file linear_algebra.cc
 *  \brief matmul (NumPy semantics), nn.dense (x @ w.T), linear (x @ w.T + b), ewise_fma.
 */
#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"
#include "ir/tir/shape_expr.h"
#include "ir/topi/topi.h"

namespace mlc {
namespace relax {
namespace {

absl::Status CheckSameDtype(const TensorStructInfoNode* a, const TensorStructInfoNode* b) {
  if (!a->dtype.is_void() && !b->dtype.is_void() && a->dtype != b->dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("dtype mismatch: ", a->dtype.ToString(), " vs ", b->dtype.ToString()));
  }
  return absl::OkStatus();
}

using tir::PrimExpr;

/*! \brief NumPy matmul: 1-D operands are promoted and the added dim removed; batch dims broadcast. */
absl::StatusOr<std::vector<PrimExpr>> MatmulShape(std::vector<PrimExpr> a, std::vector<PrimExpr> b) {
  if (a.empty() || b.empty()) return absl::InvalidArgumentError("matmul operands must have at least one dimension");
  bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  std::vector<PrimExpr> a_orig = a, b_orig = b;
  if (a_vec) a.insert(a.begin(), tir::I64(1));
  if (b_vec) b.push_back(tir::I64(1));
  PrimExpr k_a = a.back(), k_b = b[b.size() - 2];
  if (!UnifyDims(k_a, k_b)) {
    return absl::InvalidArgumentError(absl::StrCat("reduction dimensions differ: ", DimsToString(a_orig), " @ ",
                                                   DimsToString(b_orig), " (", tir::ShapeExprToString(k_a), " vs ",
                                                   tir::ShapeExprToString(k_b), ")"));
  }
  std::vector<PrimExpr> batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
  absl::StatusOr<std::vector<PrimExpr>> batch = BroadcastDims(batch_a, batch_b);
  if (!batch.ok()) return batch.status();
  std::vector<PrimExpr> out = *batch;
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  return out;
}

absl::StatusOr<StructInfo> InferMatmul(const CallNode& call, const MatmulAttrs& attrs) {
  absl::StatusOr<const TensorStructInfoNode*> a = TensorArg(call, 0);
  if (!a.ok()) return a.status();
  absl::StatusOr<const TensorStructInfoNode*> b = TensorArg(call, 1);
  if (!b.ok()) return b.status();
  if (absl::Status s = CheckSameDtype(*a, *b); !s.ok()) return s;
  DataType dtype = (*a)->dtype;
  if (!attrs.out_dtype.is_void()) dtype = attrs.out_dtype;
  if (!(*a)->HasKnownShape() || !(*b)->HasKnownShape()) return TensorSInfoUnknownShape(dtype, -1);
  absl::StatusOr<std::vector<PrimExpr>> shape = MatmulShape((*a)->Dims(), (*b)->Dims());
  if (!shape.ok()) return shape.status();
  return TensorSInfoOfDims(*shape, dtype);
}

/*! \brief x: (..., k), w: (n, k) -> (..., n). */
absl::StatusOr<std::vector<PrimExpr>> DenseShape(const std::vector<PrimExpr>& x, const std::vector<PrimExpr>& w) {
  if (x.empty() || w.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expects data of rank >= 1 and a 2-D weight, got ", DimsToString(x), " and ", DimsToString(w)));
  }
  if (!UnifyDims(x.back(), w[1])) {
    return absl::InvalidArgumentError(absl::StrCat(
        "data ", DimsToString(x), " and weight ", DimsToString(w), " disagree on the reduction dimension (",
        tir::ShapeExprToString(x.back()), " vs ", tir::ShapeExprToString(w[1]), ")"));
  }
  std::vector<PrimExpr> out(x.begin(), x.end() - 1);
  out.push_back(w[0]);
  return out;
}

absl::StatusOr<StructInfo> InferDense(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<const TensorStructInfoNode*> w = TensorArg(call, 1);
  if (!w.ok()) return w.status();
  if (absl::Status s = CheckSameDtype(*x, *w); !s.ok()) return s;
  if (!(*x)->HasKnownShape() || !(*w)->HasKnownShape()) return TensorSInfoUnknownShape((*x)->dtype, (*x)->ndim);
  absl::StatusOr<std::vector<PrimExpr>> shape = DenseShape((*x)->Dims(), (*w)->Dims());
  if (!shape.ok()) return shape.status();
  return TensorSInfoOfDims(*shape, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferLinear(const CallNode& call) {
  absl::StatusOr<StructInfo> dense = InferDense(call);
  if (!dense.ok() || call.args.size() < 3) return dense;
  absl::StatusOr<const TensorStructInfoNode*> b = TensorArg(call, 2);
  if (!b.ok()) return b.status();
  const auto* y = dense->as<TensorStructInfoNode>();
  if (absl::Status s = CheckSameDtype(y, *b); !s.ok()) return s;
  if (!y->HasKnownShape() || !(*b)->HasKnownShape()) return dense;
  absl::StatusOr<std::vector<PrimExpr>> shape = BroadcastDims(y->Dims(), (*b)->Dims());
  if (!shape.ok()) return shape.status();
  bool same = shape->size() == static_cast<size_t>(y->ndim);
  for (size_t i = 0; same && i < shape->size(); ++i) same = DimsEqual((*shape)[i], y->Dims()[i]);
  if (!same) {
    return absl::InvalidArgumentError(
        absl::StrCat("bias ", DimsToString((*b)->Dims()), " would change the output shape ", DimsToString(y->Dims())));
  }
  return dense;
}

absl::StatusOr<StructInfo> InferEwiseFma(const CallNode& call) {
  const TensorStructInfoNode* first = nullptr;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<const TensorStructInfoNode*> t = TensorArg(call, i);
    if (!t.ok()) return t.status();
    if (first == nullptr) {
      first = *t;
      continue;
    }
    if (absl::Status s = CheckSameDtype(first, *t); !s.ok()) return s;
    if (first->shape && (*t)->shape && *first->shape != *(*t)->shape) {
      return absl::InvalidArgumentError(absl::StrCat("operands must have the same shape, got ",
                                                     ShapeToString(*first->shape), " and ", ShapeToString(*(*t)->shape),
                                                     " (argument ", i, ")"));
    }
  }
  return call.args[0]->struct_info();
}

MLC_REGISTER_OP("matmul")
    .set_inputs({"x1", "x2"})
    .set_attrs_type<MatmulAttrs>()
    .set_description("NumPy matmul: batched, with broadcasting of batch dimensions")
    .set_infer<MatmulAttrs>(InferMatmul)
    .set_pattern(OpPattern::kOutEWiseFusable)
    .set_legalize(LegalizeTE("matmul", [](const std::vector<te::Tensor>& t) { return topi::Matmul(t[0], t[1]); }));

MLC_REGISTER_OP("nn.dense")
    .set_inputs({"data", "weight"})
    .set_description("data @ weight.T, weight of shape (units, in_features)")
    .set_infer(InferDense)
    .set_pattern(OpPattern::kOutEWiseFusable)
    .set_legalize(LegalizeTE("dense", [](const std::vector<te::Tensor>& t) { return topi::Dense(t[0], t[1]); }));

MLC_REGISTER_OP("linear")
    .set_inputs({"data", "weight", "bias"})
    .set_description("data @ weight.T + bias (torch.nn.Linear)")
    .set_infer(InferLinear)
    .set_pattern(OpPattern::kOutEWiseFusable)
    .set_legalize(LegalizeTE("linear", [](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> {
      absl::StatusOr<te::Tensor> y = topi::Dense(t[0], t[1]);
      if (!y.ok()) return y;
      return topi::Add(*y, t[2]);
    }));

MLC_REGISTER_OP("ewise_fma")
    .set_inputs({"x1", "x2", "x3"})
    .set_description("x1 * x2 + x3, all of one shape")
    .set_infer(InferEwiseFma)
    .set_pattern(OpPattern::kElemWise)
    .set_legalize(LegalizeTE("ewise_fma",
                             [](const std::vector<te::Tensor>& t) { return topi::EwiseFma(t[0], t[1], t[2]); }));

}  // namespace
}  // namespace relax
}  // namespace mlc
