/*! \file split_conv_padding.cc
 *  \brief split-conv-padding: a depthwise convolution's zero padding as an nn.pad of its data,
 *         where a convolution (and its epilogue) computes that data.
 *
 *    y = clip(conv2d(x, W1) + b)             y = pad(clip(conv2d(x, W1) + b))   -- one kernel
 *    z = conv2d(y, W2, padding=1, groups=C)  z = conv2d(y, W2, padding=0, groups=C)
 *
 *  fuse-ops then fuses the pad into the producer's kernel, which writes its result with a zero
 *  border (the default schedule stores the epilogue at an offset and fills only the border),
 *  and the depthwise convolution reads its windows in place. Without it every tile of the
 *  depthwise convolution copies its padded window first: three input rows per output row,
 *  each element through a bounds check, which costs more than the convolution's own nine
 *  multiply-adds per element (MobileNetV2's depthwise layers ran at 10-30% of the FMA peak).
 *
 *  Only where the pad fuses: the data is the single-use result of a chain of elementwise
 *  operators ending at an out-elementwise-fusable one (a convolution, a dense), in the same
 *  dataflow block. Elsewhere a pad would be a kernel of its own, a whole extra pass over the
 *  data. Run after alter-op-layout and remove-unused (which drops the conversions back to NCHW
 *  that would otherwise count as uses) and before fuse-ops.
 */
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "ir/layout.h"
#include "ir/op.h"
#include "ir/ops/op_attrs.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

class SplitConvPaddingPass : public FunctionPass {
 public:
  std::string name() const override { return "split-conv-padding"; }
  std::string description() const override {
    return "Moves a depthwise convolution's zero padding into an nn.pad of its data when a convolution (with an "
           "elementwise epilogue) computes that data and nothing else reads it: fuse-ops fuses the pad into that "
           "producer, which writes its result with a zero border, and the depthwise convolution reads its windows in "
           "place instead of copying each padded window. Run after alter-op-layout and remove-unused, before fuse-ops.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    std::map<const relax::VarNode*, relax::Expr> bound;  // dataflow variable -> its value
    for (const relax::BindingBlock& block : func->body->blocks) {
      if (!block->is_dataflow) continue;
      for (const relax::VarBinding& b : block->bindings) bound[b->var.get()] = b->value;
    }
    // The data is computed by a fusable producer: single-use results of elementwise calls
    // back to an out-elementwise-fusable one.
    auto fusable_producer = [&](const relax::Expr& data) {
      relax::Expr e = data;
      for (int depth = 0; depth < 8; ++depth) {
        const auto* var = e.as<relax::VarNode>();
        auto it = var ? bound.find(var) : bound.end();
        if (it == bound.end() || uses[var] != 1) return false;
        const auto* call = it->second.as<relax::CallNode>();
        const auto* op = call ? call->op.as<relax::OpNode>() : nullptr;
        if (op == nullptr || call->args.empty()) return false;
        const relax::OpPattern kind = op->info().pattern;
        if (kind == relax::OpPattern::kOutEWiseFusable) return true;
        if (kind != relax::OpPattern::kElemWise && kind != relax::OpPattern::kBroadcast) return false;
        e = call->args[0];
      }
      return false;
    };
    Pattern data = Wildcard(), weight = Wildcard();
    return Rewrite(
        IsOp("nn.conv2d")({data, weight}), func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* conv = matched.as<relax::CallNode>();
          absl::StatusOr<relax::Conv2DAttrs> attrs = relax::ParseAttrs<relax::Conv2DAttrs>(conv->attrs);
          const auto* x = m[data]->struct_info().as<relax::TensorStructInfoNode>();
          if (!attrs.ok() || x == nullptr || x->ndim < 0 || attrs->groups <= 1) return matched;
          if (std::all_of(attrs->padding.begin(), attrs->padding.end(), [](int64_t p) { return p == 0; })) return matched;
          absl::StatusOr<Layout> layout = Layout::Parse(attrs->data_layout);
          if (!layout.ok() || static_cast<int>(layout->ndim()) != x->ndim) return matched;
          const int c = layout->PositionOf('C'), hi = layout->PositionOf('H'), wi = layout->PositionOf('W');
          if (c < 0 || hi < 0 || wi < 0 || !fusable_producer(m[data])) return matched;
          // Depthwise only: one filter per channel (the regular convolutions' tiles reuse each
          // copied window across all output channels, so the copy is cheap for them).
          const std::vector<tir::PrimExpr> dims = x->Dims();
          const int64_t* channels = tir::AsConstInt(dims[c]);
          const int64_t block = layout->Factor('C') > 0 ? layout->Factor('C') : 1;
          if (channels == nullptr || attrs->groups != *channels * block) return matched;
          relax::PadAttrs pad;
          pad.pad_width.assign(2 * x->ndim, 0);
          pad.pad_width[2 * hi] = attrs->padding[0];
          pad.pad_width[2 * hi + 1] = attrs->padding[2];
          pad.pad_width[2 * wi] = attrs->padding[1];
          pad.pad_width[2 * wi + 1] = attrs->padding[3];
          pad.pad_value = 0.0;
          pad.pad_mode = "constant";
          relax::Expr padded = relax::MakeCall(relax::GetOpOrDie("nn.pad"), {m[data]}, relax::ToAttrs(pad));
          relax::Conv2DAttrs unpadded = *attrs;
          unpadded.padding = {0, 0, 0, 0};
          return relax::MakeCall(conv->op, {padded, m[weight]}, relax::ToAttrs(unpadded));
        },
        builder);
  }
};

MLC_REGISTER_PASS(SplitConvPaddingPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
