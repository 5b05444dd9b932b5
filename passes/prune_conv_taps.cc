/*! \file prune_conv_taps.cc
 *  \brief prune-conv-taps: drops the taps of a convolution's window that read only padding.
 *
 *  A dilated convolution on a small map reads zeros at most taps: DeepLabV3's ASPP branches
 *  (3x3, dilation 12, 24, 36) on a 14x14 feature map (a 224 input at output stride 16) reach
 *  past the map at every tap but the centre for dilations 24 and 36, so those branches are 1x1
 *  convolutions that compute and read 9x what they need, through a padded copy of the input
 *  that is mostly zeros. For each spatial axis a tap k is live when some output position o
 *  reads an input row inside the map: 0 <= o * stride + k * dilation - pad_before < size. The
 *  leading and trailing dead taps go (the weight is sliced at compile time), the padding
 *  shrinks by what they covered and the result keeps its shape: the same sums, since the
 *  dropped taps only ever added zeros.
 *
 *  Constant float32 weights in the default layouts (before alter-op-layout), any groups.
 */
#include <algorithm>
#include <vector>

#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "passes/constant_conv.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief The live taps [first, last] of one spatial axis, or nullopt when none is dead. */
std::optional<std::pair<int64_t, int64_t>> LiveTaps(int64_t size, int64_t kernel, int64_t stride, int64_t dilation,
                                                    int64_t pad_before, int64_t outputs) {
  auto live = [&](int64_t k) {
    for (int64_t o = 0; o < outputs; ++o) {
      int64_t at = o * stride + k * dilation - pad_before;
      if (at >= 0 && at < size) return true;
    }
    return false;
  };
  int64_t first = 0, last = kernel - 1;
  while (first <= last && !live(first)) ++first;
  while (last >= first && !live(last)) --last;
  if (first > last || (first == 0 && last == kernel - 1)) return std::nullopt;  // all dead (a zero result): left alone
  return std::make_pair(first, last);
}

class PruneConvTapsPass : public FunctionPass {
 public:
  std::string name() const override { return "prune-conv-taps"; }
  std::string description() const override {
    return "Drops the taps of a conv2d window (constant float32 weights, default layouts) that read only padding at "
           "every "
           "output position (a dilated convolution on a map smaller than its reach), slicing the weight and the "
           "padding.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    Pattern x = Wildcard(), w = IsConst();
    Pattern conv = IsOp("nn.conv2d")({x, w});
    return Rewrite(
        conv, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* call = matched.as<relax::CallNode>();
          std::optional<ConstantConv> c = MatchConstantConv(*call, m[w]);
          if (!c) return matched;
          const relax::Conv2DAttrs* attrs = &c->attrs;
          const std::vector<int64_t>& xs = c->data_shape;
          const TensorData& wd = *c->weight;
          const std::vector<int64_t>& ws = wd.shape();
          std::pair<int64_t, int64_t> taps[2];
          const int64_t* outputs = c->outputs;
          bool pruned = false;
          for (int d = 0; d < 2; ++d) {
            const int64_t before = attrs->padding[d];
            std::optional<std::pair<int64_t, int64_t>> live =
                LiveTaps(xs[2 + d], ws[2 + d], attrs->strides[d], attrs->dilation[d], before, outputs[d]);
            taps[d] = live ? *live : std::make_pair(int64_t{0}, ws[2 + d] - 1);
            pruned |= live.has_value();
          }
          if (!pruned) return matched;
          relax::Conv2DAttrs out = *attrs;
          for (int d = 0; d < 2; ++d) {
            int64_t kept = taps[d].second - taps[d].first + 1;
            int64_t before = attrs->padding[d] - taps[d].first * attrs->dilation[d];
            // The padding after keeps the output size: (outputs - 1) * stride + reach = before + size + after,
            // where the stride's rounding leaves room (a negative need is none).
            int64_t after = std::max<int64_t>(
                0, (outputs[d] - 1) * attrs->strides[d] + attrs->dilation[d] * (kept - 1) + 1 - xs[2 + d] - before);
            int64_t kept_outputs =
                (xs[2 + d] + before + after - attrs->dilation[d] * (kept - 1) - 1) / attrs->strides[d] + 1;
            if (before < 0 || kept_outputs != outputs[d]) return matched;  // the live taps would need a crop
            out.padding[d] = before;
            out.padding[d + 2] = after;
          }
          const int64_t kh = taps[0].second - taps[0].first + 1, kw = taps[1].second - taps[1].first + 1;
          TensorData sliced(DataType::Float32(), {ws[0], ws[1], kh, kw});
          const float* src = wd.data_as<float>();
          float* dst = static_cast<float*>(sliced.mutable_data());
          for (int64_t oi = 0; oi < ws[0] * ws[1]; ++oi) {
            for (int64_t h = 0; h < kh; ++h) {
              for (int64_t v = 0; v < kw; ++v) {
                dst[(oi * kh + h) * kw + v] = src[(oi * ws[2] + taps[0].first + h) * ws[3] + taps[1].first + v];
              }
            }
          }
          if (kh == 1 && kw == 1) out.dilation = {1, 1};  // one tap: no spacing left to keep
          return relax::MakeCall(call->op, {m[x], relax::MakeConstant(sliced)}, relax::ToAttrs(out));
        },
        builder);
  }
};

MLC_REGISTER_PASS(PruneConvTapsPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
