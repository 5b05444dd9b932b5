/*! \file quantize_weights.cc
 *  \brief quantize-weights{bits=8|4, group=32}: weight-only quantization of the constant
 *         matrices that matmul and nn.dense multiply by.
 *
 *    matmul(x, W)                  W a float32 constant [K, N]
 *    matmul(x, permute_dims(W))    W [N, K] (a linear layer exported as x @ W.T)
 *    nn.dense(x, W)                W [N, K]
 *      -> R.call_dps_packed("mlc.wq.matmul", (x, codes, scales))
 *
 *  The weight becomes int8 (or int4, two codes a byte) codes with one float scale per group of
 *  `group` consecutive k per output column (llama.cpp's Q8_0 / Q4_0 formats), laid out as the
 *  kernel reads them (support/weight_quantization.h). The kernel (vm/library/
 *  weight_quantized_matmul.cc) turns codes into floats in registers: there is no float copy of
 *  the weight at run time, and a decode step reads 1/4 (q8) or ~1/6 (q4) of the float bytes.
 *  x keeps its float32 values (no activation quantization). A matrix whose K is not a multiple
 *  of the group is left in float32. Run first, before fold-constant and the layout passes
 *  would pack the weight for the float kernels (`pipeline --quantize=q8` does).
 */
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "passes/pass.h"
#include "passes/pattern.h"
#include "support/weight_quantization.h"

namespace mlc {
namespace passes {
namespace {

class QuantizeWeightsPass : public FunctionPass {
 public:
  std::string name() const override { return "quantize-weights"; }
  std::string description() const override {
    return "Weight-only quantization: matmul and nn.dense by a float32 constant matrix become one R.call_dps_packed of "
           "mlc.wq.matmul on int8 (bits=8) or int4 (bits=4) codes with a float scale per group of k per output column "
           "(llama.cpp's Q8_0 / Q4_0), dequantized in registers by the kernel; activations stay float32. Matrices whose K "
           "is not a multiple of the group stay float. Run before fold-constant.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& f, relax::BlockBuilder* bb) override {
    if (*bits_ != 8 && *bits_ != 4) {
      return absl::InvalidArgumentError(absl::StrCat("quantize-weights: bits=", *bits_, " (8 or 4 are supported)"));
    }
    if (*group_ <= 0 || *group_ % kWqBlock != 0) {
      return absl::InvalidArgumentError(absl::StrCat("quantize-weights: group=", *group_, " (a positive multiple of ", kWqBlock, ")"));
    }
    Pattern x = Wildcard(), w = IsConst(), wt = IsConst();
    Pattern transposed = IsOp("permute_dims")({wt});
    Pattern matmul = IsOp("matmul")({x, w}), matmul_t = IsOp("matmul")({x, transposed}), dense = IsOp("nn.dense")({x, wt});
    return Rewrite(
        matmul | matmul_t | dense, f,
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
          std::pair<relax::Expr, relax::Expr>& q = quantized_[{c, is_transposed}];
          if (!q.first.defined()) {
            absl::StatusOr<QuantizedWeights> qw =
                QuantizeWeights(c->data.data_as<float>(), k, n, is_transposed, static_cast<int>(*bits_), *group_);
            if (!qw.ok()) return matched;
            q = {relax::MakeConstant(std::move(qw->codes)), relax::MakeConstant(std::move(qw->scales))};
          }
          return CallDpsPacked("mlc.wq.matmul", {m[x], q.first, q.second}, matched);
        },
        bb);
  }

 private:
  Option<int64_t> bits_{this, "bits", 8, "bits per weight: 8 (int8 codes) or 4 (int4 codes, two a byte)"};
  Option<int64_t> group_{this, "group", 32, "consecutive k sharing one scale per output column (a multiple of 32)"};
  /*! \brief One quantized copy per constant (a tied weight used twice). */
  std::map<std::pair<const relax::ConstantNode*, bool>, std::pair<relax::Expr, relax::Expr>> quantized_;
};

MLC_REGISTER_PASS(QuantizeWeightsPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
