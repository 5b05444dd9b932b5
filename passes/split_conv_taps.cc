/*! \file split_conv_taps.cc
 *  \brief split-conv-taps: a convolution whose window reads padding at most of its
 *         multiply-adds becomes one 1x1 convolution per tap, each over the outputs where that
 *         tap reads inside the map, the partial results padded to the output and summed.
 *
 *    y = conv2d(x, W, padding=12, dilation=12)          (3x3 window on a 14x14 map)
 *      -> y = pad(conv2d(x[12:14, 12:14], W[:, :, 0:1, 0:1]), 0 before, 12 after)   tap (0, 0)
 *           + pad(conv2d(x[12:14, 0:14], W[:, :, 0:1, 1:2]), ...)                  tap (0, 1)
 *           + ... + conv2d(x, W[:, :, 1:2, 1:2])                                   the centre
 *
 *  prune-conv-taps drops the taps that read padding at every output; this pass is for the ones
 *  that read the map at a few outputs only. DeepLabV3's ASPP branch of dilation 12 on a 14x14
 *  map (a 224 input at output stride 16) does 82% of its multiply-adds on padding; as one
 *  convolution it was 73% of the model's time on a Zen 3 (75 ms at 13% of the FMA peak: a
 *  960-channel, 38x38 padded copy of its input streamed for every group of output channels).
 *  Applied when more than a third of the (output, tap) pairs read padding, a fact of the shapes
 *  alone: an ordinary 3x3 window with padding 1 on a 14x14 map reads padding at 14% of them, on
 *  a 4x4 map at 31%. (At more than half, DeepLabV3-ResNet50's dilation-12 branch on a 28x28 map,
 *  49% padding, stayed whole: 76 ms at 82% of the peak on a Zen 4; split, 40 ms.)
 *
 *  Constant float32 weights in the default layouts, one group; run after prune-conv-taps and
 *  before alter-op-layout (which then blocks each 1x1 convolution as any other).
 */
#include <algorithm>
#include <vector>

#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "passes/constant_conv.h"
#include "passes/pass.h"
#include "passes/pattern.h"
#include "support/checked_math.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief The outputs [begin, end) along one axis at which tap k reads inside the map, and the
 *  first input position it reads there. */
struct TapRange {
  int64_t begin = 0, end = 0, first_input = 0;
  int64_t size() const { return end - begin; }
};

TapRange LiveRange(int64_t k, int64_t size, int64_t stride, int64_t dilation, int64_t pad_before, int64_t outputs) {
  // o * stride + k * dilation - pad_before in [0, size)
  const int64_t offset = k * dilation - pad_before;
  TapRange r;
  r.begin = std::max<int64_t>(0, DivRoundUp(-offset, stride));
  r.end = std::min<int64_t>(outputs, DivRoundDown(size - 1 - offset, stride) + 1);
  if (r.end < r.begin) r.end = r.begin;
  r.first_input = r.begin * stride + offset;
  return r;
}

class SplitConvTapsPass : public FunctionPass {
 public:
  std::string name() const override { return "split-conv-taps"; }
  std::string description() const override {
    return "A conv2d (constant float32 weights, default layouts, one group) whose window reads padding at more than "
           "a "
           "third of its (output, tap) pairs becomes one 1x1 convolution per tap over the outputs where the tap reads "
           "the "
           "map, "
           "padded to the output and summed (a dilated convolution on a small map).";
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
          if (!c || c->attrs.groups != 1) return matched;
          const relax::Conv2DAttrs* attrs = &c->attrs;
          const std::vector<int64_t>& xs = c->data_shape;
          const std::vector<int64_t>& ws = c->weight->shape();
          if (ws[2] == 1 && ws[3] == 1) return matched;
          std::vector<TapRange> ranges[2];
          const int64_t* outputs = c->outputs;
          int64_t live[2] = {0, 0};
          for (int d = 0; d < 2; ++d) {
            if (outputs[d] < 1) return matched;
            for (int64_t k = 0; k < ws[2 + d]; ++k) {
              ranges[d].push_back(
                  LiveRange(k, xs[2 + d], attrs->strides[d], attrs->dilation[d], attrs->padding[d], outputs[d]));
              live[d] += ranges[d].back().size();
            }
          }
          // Pairs that read the map against all pairs: more than a third read padding, or leave it.
          if (3 * live[0] * live[1] > 2 * ws[2] * ws[3] * outputs[0] * outputs[1]) return matched;
          relax::Conv2DAttrs pointwise = *attrs;
          pointwise.strides = {1, 1};
          pointwise.padding = {0, 0, 0, 0};
          pointwise.dilation = {1, 1};
          const float* src = c->weight->data_as<float>();
          std::vector<relax::Expr> parts;  // each tap's result, placed in the output
          for (int64_t kh = 0; kh < ws[2]; ++kh) {
            for (int64_t kw = 0; kw < ws[3]; ++kw) {
              const TapRange &rh = ranges[0][kh], &rw = ranges[1][kw];
              if (rh.size() == 0 || rw.size() == 0) continue;
              // The inputs the tap reads at those outputs: every stride-th row and column.
              relax::StridedSliceAttrs slice;
              slice.axes = {2, 3};
              slice.begin = {rh.first_input, rw.first_input};
              slice.end = {rh.first_input + (rh.size() - 1) * attrs->strides[0] + 1,
                           rw.first_input + (rw.size() - 1) * attrs->strides[1] + 1};
              slice.strides = {attrs->strides[0], attrs->strides[1]};
              TensorData tap(DataType::Float32(), {ws[0], ws[1], 1, 1});
              float* dst = static_cast<float*>(tap.mutable_data());
              for (int64_t oi = 0; oi < ws[0] * ws[1]; ++oi) dst[oi] = src[(oi * ws[2] + kh) * ws[3] + kw];
              // Nested calls: the mutator binds each (ExprMutator::Flatten), in this order.
              const bool whole = slice.begin == std::vector<int64_t>{0, 0} &&
                                 slice.end == std::vector<int64_t>{xs[2], xs[3]} &&
                                 slice.strides == std::vector<int64_t>{1, 1};
              relax::Expr window =
                  whole ? m[x] : relax::MakeCall(relax::GetOpOrDie("strided_slice"), {m[x]}, relax::ToAttrs(slice));
              relax::Expr placed =
                  relax::MakeCall(call->op, {window, relax::MakeConstant(tap)}, relax::ToAttrs(pointwise));
              if (rh.size() != outputs[0] || rw.size() != outputs[1]) {
                placed = MakeConstantPad(
                    placed, {0, 0, 0, 0, rh.begin, outputs[0] - rh.end, rw.begin, outputs[1] - rw.end}, 0.0);
              }
              parts.push_back(placed);
            }
          }
          // One live tap is prune-conv-taps' case (a 1x1 convolution with padding): left alone.
          if (parts.size() < 2) return matched;
          relax::Expr sum = parts[0];
          for (size_t i = 1; i < parts.size(); ++i) sum = relax::MakeCall(relax::GetOpOrDie("add"), {sum, parts[i]});
          return sum;  // the last addition is the matched binding's new value
        },
        builder);
  }
};

MLC_REGISTER_PASS(SplitConvTapsPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
