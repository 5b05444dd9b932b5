/*! \file quantize_weights.cc
 *  \brief quantize-weights{bits=8|4, group=32}: the constant matrices that matmul and nn.dense
 *         multiply by, and constant embedding tables, as int8 / int4 codes.
 *
 *    matmul(x, W)                  W a float32 constant [K, N]
 *    matmul(x, permute_dims(W))    W [N, K] (a linear layer exported as x @ W.T)
 *    nn.dense(x, W)                W [N, K]
 *      -> R.call_dps_packed("mlc.wq.matmul", (x, codes, scales))
 *    take(E, ids, axis=0)          E a float32 constant [V, D] (an embedding table)
 *      -> R.call_dps_packed("mlc.wq.take", (ids, codes, scales, [V]))
 *
 *  The weight becomes int8 (or int4, two codes a byte) codes with one fp16 scale per group of
 *  `group` consecutive k per output column (llama.cpp's Q8_0 / Q4_0 formats), laid out as the
 *  kernel reads them (support/weight_quantization.h). The kernel (vm/library/
 *  weight_quantized_matmul.cc) quantizes x per block of 32 when it runs, as llama.cpp does, and
 *  multiplies in integers: there is no float copy of the weight, and a decode step reads about
 *  1/4 (q8) or 1/7 (q4) of the float bytes. A matrix whose K is not a multiple
 *  of the group is left in float32. An embedding table is quantized as the matrix E^T [D, V],
 *  the head's layout: when the head is tied to it (matmul by E^T, or by a constant equal to
 *  E^T, as exporters fold the transpose) both share one quantized copy. Run first, before
 *  fold-constant and the layout passes would pack the weight for the float kernels
 *  (`pipeline --quantize=q8` does).
 */
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "passes/pass.h"
#include "passes/pattern.h"
#include "support/weight_quantization.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief The float32 constants [rows, cols] that matmuls of `func` multiply by (their second operand). */
class MatmulWeights : public relax::ExprVisitor {
 public:
  std::vector<const relax::ConstantNode*> found;

 protected:
  void VisitExpr_(const relax::CallNode* op) override {
    const auto* callee = op->op.as<relax::OpNode>();
    if (callee != nullptr && callee->name() == "matmul" && op->args.size() == 2) {
      const auto* c = op->args[1].as<relax::ConstantNode>();
      if (c != nullptr && c->data.dtype() == DataType::Float32() && c->data.shape().size() == 2) found.push_back(c);
    }
    relax::ExprVisitor::VisitExpr_(op);
  }
};

/*! \brief Whether w [D, V] holds e [V, D] transposed. */
bool IsTransposeOf(const TensorData& w, const TensorData& e) {
  const std::vector<int64_t>& ws = w.shape();
  const std::vector<int64_t>& es = e.shape();
  if (ws.size() != 2 || es.size() != 2 || ws[0] != es[1] || ws[1] != es[0]) return false;
  const float* a = w.data_as<float>();
  const float* b = e.data_as<float>();
  for (int64_t k = 0; k < ws[0]; ++k) {
    for (int64_t v = 0; v < ws[1]; ++v) {
      if (a[k * ws[1] + v] != b[v * ws[0] + k]) return false;
    }
  }
  return true;
}

class QuantizeWeightsPass : public FunctionPass {
 public:
  std::string name() const override { return "quantize-weights"; }
  std::string description() const override {
    return "Quantized weights: matmul and nn.dense by a float32 constant matrix become one R.call_dps_packed of "
           "mlc.wq.matmul on int8 (bits=8) or int4 (bits=4) codes with an fp16 scale per group of k per output column "
           "(llama.cpp's Q8_0 / Q4_0; the kernel quantizes the activations per block of 32 and multiplies in "
           "integers), and "
           "take of a constant embedding table one of mlc.wq.take, sharing the quantized copy of a head tied to it. "
           "Matrices whose K is not a multiple of the group stay float. Run before fold-constant.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& f, relax::BlockBuilder* bb) override {
    if (absl::Status s = CheckWeightFormat(static_cast<int>(*bits_), *group_); !s.ok())
      return s;  // the framework names the pass
    // Embedding tables first, while the head's matmul can still be found (its quantized copy is
    // then the one the table shares).
    absl::StatusOr<relax::Function> with_tables = QuantizeTables(f, bb);
    if (!with_tables.ok()) return with_tables.status();
    Pattern x = Wildcard(), w = IsConst(), wt = IsConst();
    Pattern transposed = IsOp("permute_dims")({wt});
    Pattern matmul = IsOp("matmul")({x, w}), matmul_t = IsOp("matmul")({x, transposed}),
            dense = IsOp("nn.dense")({x, wt});
    return Rewrite(
        matmul | matmul_t | dense, *with_tables,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const bool is_transposed = !m[matmul].defined();
          if (m[transposed].defined()) {
            auto attrs = relax::ParseAttrs<relax::PermuteDimsAttrs>(m[transposed].as<relax::CallNode>()->attrs);
            if (!attrs.ok() || (!attrs->axes.empty() && attrs->axes != std::vector<int64_t>{1, 0})) return matched;
          }
          const auto* c = (is_transposed ? m[wt] : m[w]).as<relax::ConstantNode>();
          const auto* xt = m[x]->struct_info().as<relax::TensorStructInfoNode>();
          const auto* out = matched->struct_info().as<relax::TensorStructInfoNode>();
          if (c == nullptr || c->data.dtype() != DataType::Float32() || c->data.shape().size() != 2 || xt == nullptr ||
              xt->dtype != DataType::Float32() || xt->ndim < 1 || out == nullptr || out->ndim != xt->ndim) {
            return matched;
          }
          const std::vector<int64_t>& ws = c->data.shape();
          const int64_t k = is_transposed ? ws[1] : ws[0], n = is_transposed ? ws[0] : ws[1];
          std::vector<tir::PrimExpr> x_dims = xt->Dims();
          const int64_t* x_k = x_dims.empty() ? nullptr : tir::AsConstInt(x_dims.back());
          if (x_k == nullptr || *x_k != k || !CheckWeightQuantization(k, n, *bits_, *group_).ok()) return matched;
          std::optional<std::pair<relax::Expr, relax::Expr>> q = Quantized(c, is_transposed);
          if (!q) return matched;
          return CallDpsPacked("mlc.wq.matmul", {m[x], q->first, q->second}, matched);
        },
        bb);
  }

 private:
  /*! \brief The quantized copy of a constant matrix (transposed: stored as [N, K]), made once. */
  std::optional<std::pair<relax::Expr, relax::Expr>> Quantized(const relax::ConstantNode* c, bool transposed) {
    std::pair<relax::Expr, relax::Expr>& q = quantized_[{c, transposed}];
    if (!q.first.defined()) {
      const std::vector<int64_t>& ws = c->data.shape();
      const int64_t k = transposed ? ws[1] : ws[0], n = transposed ? ws[0] : ws[1];
      absl::StatusOr<QuantizedWeights> qw =
          QuantizeWeights(c->data.data_as<float>(), k, n, transposed, static_cast<int>(*bits_), *group_);
      if (!qw.ok()) return std::nullopt;
      q = {relax::MakeConstant(std::move(qw->codes)), relax::MakeConstant(std::move(qw->scales))};
    }
    return q;
  }

  /*! \brief take(E, ids, axis=0) of a float32 table E [V, D] -> mlc.wq.take on E^T's quantized copy. */
  absl::StatusOr<relax::Function> QuantizeTables(const relax::Function& f, relax::BlockBuilder* bb) {
    MatmulWeights weights;
    weights.VisitFunction(f.get());
    Pattern table = IsConst(), ids = Wildcard();
    return Rewrite(
        IsOp("take")({table, ids}), f,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          auto attrs = relax::ParseAttrs<relax::AxisAttrs>(matched.as<relax::CallNode>()->attrs);
          const auto* e = m[table].as<relax::ConstantNode>();
          const auto* it = m[ids]->struct_info().as<relax::TensorStructInfoNode>();
          if (!attrs.ok() || attrs->axis != 0 || e->data.dtype() != DataType::Float32() ||
              e->data.shape().size() != 2 || it == nullptr ||
              (it->dtype != DataType::Int64() && it->dtype != DataType::Int32())) {
            return matched;
          }
          const int64_t v = e->data.shape()[0], d = e->data.shape()[1];
          if (!CheckWeightQuantization(d, v, static_cast<int>(*bits_), *group_).ok()) return matched;
          // The head's constant when it is this table transposed (one copy for both), else E^T.
          std::optional<std::pair<relax::Expr, relax::Expr>> q;
          for (const relax::ConstantNode* w : weights.found) {
            if (IsTransposeOf(w->data, e->data)) {
              q = Quantized(w, /*transposed=*/false);
              break;
            }
          }
          if (!q) q = Quantized(e, /*transposed=*/true);
          if (!q) return matched;
          return CallDpsPacked("mlc.wq.take", {m[ids], q->first, q->second, relax::MakeConstant(Int64Tensor({v}))},
                               matched);
        },
        bb);
  }

  Option<int64_t> bits_{this, "bits", 8, "bits per weight: 8 (int8 codes) or 4 (int4 codes, two a byte)"};
  Option<int64_t> group_{this, "group", 32, "consecutive k sharing one scale per output column (a multiple of 32)"};
  /*! \brief One quantized copy per constant (a tied weight used twice). */
  std::map<std::pair<const relax::ConstantNode*, bool>, std::pair<relax::Expr, relax::Expr>> quantized_;
};

MLC_REGISTER_PASS(QuantizeWeightsPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
