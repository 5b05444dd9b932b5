/*! \file pad_gemm_columns.cc
 *  \brief pad-gemm-columns: a float32 matmul or dense by a constant weight whose output columns
 *         are not a whole number of the target's vectors computes them padded to one, with zero
 *         weight columns added at compile time, and takes the real ones with a strided_slice.
 *
 *  The GEMM rule's register tiles are whole vectors of columns (passes/schedule/rules/gemm.cc);
 *  a product with no tile that divides its columns fell back to plain vectorized loops.
 *  MLP-Mixer's token-mixing projection back to its 196 patches (512 x 196 x 256 on AVX-512's
 *  16 lanes) ran at 19% of the peak that way, and at 71% padded to 208 columns. The slice is
 *  an injective consumer, so it fuses into the product's epilogue: no extra pass over memory.
 *  Only where the padding adds at most a quarter of the work (a 10-column classifier head on
 *  16 lanes stays as it is), and not for the few-row products whose tile of half vectors
 *  already divides the columns.
 *
 *  A matmul by an activation (attention's scores against keys, [.., 32, 49] in a Swin window)
 *  pads that operand with zero columns instead (an nn.pad, which fuses into the kernel that
 *  makes the operand: the transpose of the keys), up to half again the work: Swin-T's shifted
 *  windows' 49 x 49 x 32 scores ran as plain loops at 8-9% of the peak.
 */
#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "ir/target/target.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

class PadGemmColumnsPass : public FunctionPass {
 public:
  std::string name() const override { return "pad-gemm-columns"; }
  std::string description() const override {
    return "Pads the output columns of a float32 matmul or dense by a constant 2-D weight to whole vectors of the "
           "target (zero weight columns added at compile time) and slices the real ones out, so the GEMM rule's "
           "register tiles apply; only where that adds at most a quarter of the work. A matmul by an activation pads "
           "that operand with an nn.pad (which fuses into its producer), up to half again the work.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    absl::StatusOr<Target> target = TargetFromAttrs(builder->module().attrs());
    if (!target.ok()) return target.status();
    const int64_t lanes = target->float_lanes();
    Pattern x = Wildcard(), w = Wildcard();
    auto slice_columns = [](const relax::Expr& product, int64_t ndim, int64_t n) {
      return relax::MakeCall(relax::GetOpOrDie("strided_slice"), {product},
                             relax::ToAttrs(relax::StridedSliceAttrs{{ndim - 1}, {0}, {n}, {}}));
    };
    return Rewrite(
        IsOp("matmul")({x, w}) | IsOp("nn.dense")({x, w}), func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* call = matched.as<relax::CallNode>();
          const auto* xt = m[x]->struct_info().as<relax::TensorStructInfoNode>();
          const auto* yt = matched->struct_info().as<relax::TensorStructInfoNode>();
          if (xt == nullptr || yt == nullptr || !yt->shape || xt->ndim < 2 || xt->dtype != DataType::Float32()) {
            return matched;
          }
          int64_t rows = 1;
          for (size_t d = 0; d + 1 < yt->shape->size(); ++d) rows *= (*yt->shape)[d];
          const bool dense = call->op.as<relax::OpNode>()->name() == "nn.dense";
          const int64_t ndim = static_cast<int64_t>(yt->shape->size());
          if (const auto* constant = m[w].as<relax::ConstantNode>()) {
            const TensorData& wd = constant->data;
            if (wd.dtype() != DataType::Float32() || wd.shape().size() != 2) return matched;
            const int64_t n = dense ? wd.shape()[0] : wd.shape()[1];
            const int64_t padded = (n + lanes - 1) / lanes * lanes;
            if (n % lanes == 0 || (padded - n) * 4 > n) return matched;
            if (rows < 4 && n % (lanes / 2) == 0) return matched;  // the few-row tile of half vectors divides
            relax::Expr weight = relax::MakeConstant(PadAxis(wd, dense ? 0 : 1, padded, 0.0f));
            return slice_columns(relax::MakeCall(call->op, {m[x], weight}, call->attrs), ndim, n);
          }
          // An activation: matmul only (a dense's operand is transposed), with the product's
          // rows for a register tile of several (the few-row products take half vectors).
          const auto* wt = m[w]->struct_info().as<relax::TensorStructInfoNode>();
          if (dense || wt == nullptr || !wt->shape || !xt->shape || wt->ndim < 2 || wt->dtype != DataType::Float32() ||
              (*xt->shape)[xt->ndim - 2] < 4) {
            return matched;
          }
          const int64_t n = (*wt->shape)[wt->ndim - 1];
          const int64_t padded = (n + lanes - 1) / lanes * lanes;
          if (n <= 0 || n % lanes == 0 || (padded - n) * 2 > n) return matched;
          std::vector<int64_t> pad_width(2 * wt->ndim, 0);
          pad_width.back() = padded - n;
          relax::Expr operand = MakeConstantPad(m[w], std::move(pad_width), 0.0);
          return slice_columns(relax::MakeCall(call->op, {m[x], operand}, call->attrs), ndim, n);
        },
        builder);
  }
};

MLC_REGISTER_PASS(PadGemmColumnsPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
