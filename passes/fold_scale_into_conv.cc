/*! \file fold_scale_into_conv.cc
 *  \brief fold-scale-into-conv: multiply(conv2d(x, W), s) with constant W and a constant
 *         per-channel s becomes conv2d(x, W * s), the weights scaled at compile time.
 *
 *  What an eval-mode batch norm leaves after a convolution is exactly such a scale and a
 *  shift; folding the scale leaves conv2d + add(shift), which dispatch-blas runs as one call
 *  with a bias epilogue. Only when the convolution's result has no other use; the unscaled
 *  convolution is left for remove-unused.
 */
#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

class FoldScaleIntoConvPass : public FunctionPass {
 public:
  std::string name() const override { return "fold-scale-into-conv"; }
  std::string description() const override {
    return "Folds a constant per-channel multiply after a conv2d with constant float32 weights into the weights "
           "(batch norm's scale), when the convolution has no other use.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    Pattern x = Wildcard(), w = IsConst(), scale = IsConst();
    Pattern conv = IsOp("nn.conv2d")({x, w});
    return Rewrite(
        IsOp("multiply")({conv, scale}), func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* var = matched.as<relax::CallNode>()->args[0].as<relax::VarNode>();
          if (var == nullptr || uses[var] != 1) return matched;
          absl::StatusOr<relax::Conv2DAttrs> attrs =
              relax::ParseAttrs<relax::Conv2DAttrs>(m[conv].as<relax::CallNode>()->attrs);
          if (!attrs.ok() || !attrs->IsDefaultLayout()) return matched;
          const TensorData& wd = m[w].as<relax::ConstantNode>()->data;
          if (wd.dtype() != DataType::Float32() || wd.shape().size() != 4) return matched;
          int64_t channels = wd.shape()[0];
          std::optional<TensorData> sd = PerChannelValues(m[scale], channels);
          if (!sd) return matched;
          TensorData scaled(DataType::Float32(), wd.shape());
          int64_t per_filter = wd.NumElements() / channels;
          for (int64_t f = 0; f < channels; ++f) {
            for (int64_t i = 0; i < per_filter; ++i) {
              static_cast<float*>(scaled.mutable_data())[f * per_filter + i] =
                  wd.data_as<float>()[f * per_filter + i] * sd->data_as<float>()[f];
            }
          }
          const auto* conv_call = m[conv].as<relax::CallNode>();
          return relax::MakeCall(conv_call->op, {m[x], relax::MakeConstant(scaled)}, conv_call->attrs);
        },
        builder);
  }
};

MLC_REGISTER_PASS(FoldScaleIntoConvPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
