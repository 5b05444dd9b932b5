/*! \file split_padding.cc
 *  \brief split-padding: the padding of a convolution or a max pool as an nn.pad of its data,
 *         where a convolution (and its epilogue) computes that data.
 *
 *    y = clip(conv2d(x, W1) + b)             y = pad(clip(conv2d(x, W1) + b))   -- one kernel
 *    z = conv2d(y, W2, padding=1)            z = conv2d(y, W2, padding=0)
 *
 *  fuse-ops then fuses the pad into the producer's kernel, which writes its result with a
 *  constant border (the default schedule stores the epilogue at an offset and fills only the
 *  border), and the window operator reads its windows in place. Without it:
 *  - every tile of a depthwise convolution copies its padded window first, three input rows
 *    per output row, each element through a bounds check, which costs more than the
 *    convolution's own nine multiply-adds per element (MobileNetV2's depthwise layers ran at
 *    10-30% of the FMA peak);
 *  - a convolution copies its whole input into a padded buffer first: a pass of its own over
 *    the data in five parallel loops (the interior and four borders), which on two threads
 *    reads what the other core wrote. Split out (Zen 5, means of alternated rounds): DenseNet-121
 *    -4.0% on two threads and -3.4% on one, ResNet-18 -1.8% on two, U-Net -2.2% / -2.8%,
 *    Inception-v3 and ResNet-50 within noise;
 *  - a max pool writes a padded copy of its whole input before reading it (ResNet's stem pool
 *    spent 0.5 ms, 1.4% of the model, mostly on that copy).
 *  The border value is what leaves the operator's result unchanged: 0 for the convolution's
 *  multiply-adds, -inf for the max.
 *
 *  Only where the pad fuses: the data is the single-use result of a chain of elementwise operators
 *  ending at an out-elementwise-fusable one (a convolution, a dense), a value in the chain read
 *  again only by an activation's diamond that joins it (SiLU's y * sigmoid(y), GELU's
 *  y * (1 + erf(y / sqrt 2)) / 2, HardSwish: EfficientNet's and MaxViT's depthwise layers copied
 *  their padded input, float EfficientNet-B0 3-8% slower on one thread), or of a chain of at least one
 *  elementwise operator that is a kernel of its own (the dequantize between an int8 convolution's
 *  library call and a float depthwise convolution: int8 MobileNetV2's depthwise layers 1.5-2x the
 *  time of its float twin's before), in the same dataflow block. A layout_transform counts as
 *  elementwise (it moves each element once): the blocking of an int8 stem's NCHW result, or of a
 *  function's input. Elsewhere a pad would be a kernel of its own, a whole extra pass over the
 *  data; data read twice (a residual block's input, which the sum reads too) keeps its padding
 *  inside the convolution. Run after alter-op-layout and
 *  remove-unused (which drops the conversions back to NCHW that would otherwise count as uses) and
 *  before fuse-ops.
 */
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/graph/layout.h"
#include "ir/graph/op.h"
#include "ir/graph/shape_util.h"
#include "ir/ops/op_attrs.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief How a window operator's padding moves out: the layout its padding applies to, the
 *         (top, left, bottom, right) amounts, the border value, and the call without padding. */
struct SplitPlan {
  std::string layout;
  std::vector<int64_t> padding;
  double value = 0.0;
  Attrs unpadded;
};

bool HasPadding(const std::vector<int64_t>& padding) {
  return std::any_of(padding.begin(), padding.end(), [](int64_t p) { return p != 0; });
}

/*! \brief A convolution, any groups: zeros leave its multiply-adds unchanged. */
std::optional<SplitPlan> PlanConv2d(const relax::CallNode& call) {
  absl::StatusOr<relax::Conv2DAttrs> attrs = relax::ParseAttrs<relax::Conv2DAttrs>(call.attrs);
  if (!attrs.ok() || !HasPadding(attrs->padding)) return std::nullopt;
  relax::Conv2DAttrs unpadded = *attrs;
  unpadded.padding = {0, 0, 0, 0};
  return SplitPlan{attrs->data_layout, attrs->padding, 0.0, relax::ToAttrs(unpadded)};
}

/*! \brief A max pool. With ceil_mode, the rows and columns its last windows reach past the
 *  input (GoogLeNet's stem pools) are padding at the end too, so that the unpadded pool in floor
 *  mode has the same output: each window still holds an element of the data, and -inf leaves
 *  the max unchanged. */
std::optional<SplitPlan> PlanMaxPool2d(const relax::CallNode& call, const relax::TensorStructInfoNode& x) {
  absl::StatusOr<relax::Pool2DAttrs> attrs = relax::ParseAttrs<relax::Pool2DAttrs>(call.attrs);
  if (!attrs.ok()) return std::nullopt;
  std::vector<int64_t> padding = attrs->padding;  // top, left, bottom, right
  if (attrs->ceil_mode) {
    absl::StatusOr<Layout> layout = Layout::Parse(attrs->layout);
    const auto* y = call.struct_info().as<relax::TensorStructInfoNode>();
    if (!layout.ok() || y == nullptr || !y->shape || !x.shape || attrs->pool_size.size() != 2) return std::nullopt;
    for (int d = 0; d < 2; ++d) {
      const int axis = layout->PositionOf(d == 0 ? 'H' : 'W');
      if (axis < 0) return std::nullopt;
      padding[2 + d] = relax::TrailingPaddingFor((*y->shape)[axis], (*x.shape)[axis], padding[d], padding[2 + d],
                                                 attrs->pool_size[d], attrs->dilation[d], attrs->strides[d]);
    }
  }
  if (!HasPadding(padding)) return std::nullopt;
  relax::Pool2DAttrs unpadded = *attrs;
  unpadded.padding = {0, 0, 0, 0};
  unpadded.ceil_mode = false;
  return SplitPlan{attrs->layout, padding, -std::numeric_limits<double>::infinity(), relax::ToAttrs(unpadded)};
}

class SplitPaddingPass : public FunctionPass {
 public:
  std::string name() const override { return "split-padding"; }
  std::string description() const override {
    return "Moves the padding of a convolution (zeros) or a max pool (-inf) into an nn.pad of its data "
           "when a convolution (with an elementwise epilogue, activations that read a value twice included), or "
           "elementwise operators alone (layout_transform among them), compute that data and "
           "nothing else reads it: "
           "fuse-ops fuses the pad into that producer, which writes its result with the border, and the window "
           "operator reads its windows in place instead of copying them. Run after alter-op-layout and "
           "remove-unused, before fuse-ops.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    std::map<const relax::VarNode*, relax::Expr> bound;  // dataflow variable -> its value
    // The variables whose calls read each variable (as a direct argument).
    std::map<const relax::VarNode*, std::vector<const relax::VarNode*>> readers;
    for (const relax::BindingBlock& block : func->body->blocks) {
      if (!block->is_dataflow) continue;
      for (const relax::VarBinding& b : block->bindings) {
        bound[b->var.get()] = b->value;
        if (const auto* call = b->value.as<relax::CallNode>()) {
          for (const relax::Expr& arg : call->args) {
            if (const auto* v = arg.as<relax::VarNode>()) readers[v].push_back(b->var.get());
          }
        }
      }
    }
    auto elementwise_call = [&](const relax::VarNode* var) {
      auto it = bound.find(var);
      const auto* call = it != bound.end() ? it->second.as<relax::CallNode>() : nullptr;
      const auto* op = call ? call->op.as<relax::OpNode>() : nullptr;
      return op != nullptr &&
             (op->info().pattern == relax::OpPattern::kElemWise || op->info().pattern == relax::OpPattern::kBroadcast);
    };
    // Whether every reader of `var` is one of `chain` or a single-use elementwise call whose
    // result flows the same way into it: the inside of an activation's diamond (SiLU's
    // y * sigmoid(y), GELU's y * (1 + erf(y / sqrt 2)) / 2), which fuses with the chain.
    auto read_only_inside = [&](const relax::VarNode* var, const std::set<const relax::VarNode*>& chain) {
      // Every use a call's argument in a dataflow block (not a result of the function).
      if (static_cast<int>(readers[var].size()) != uses[var]) return false;
      for (const relax::VarNode* reader : readers[var]) {
        const relax::VarNode* r = reader;
        for (int depth = 0; depth < 8 && !chain.count(r); ++depth) {
          const std::vector<const relax::VarNode*>& next = readers[r];
          if (!elementwise_call(r) || uses[r] != 1 || next.size() != 1) return false;
          r = next[0];
        }
        if (!chain.count(r)) return false;
      }
      return true;
    };
    // The data is computed by a fusable producer: single-use results of elementwise calls
    // back to an out-elementwise-fusable one, or elementwise calls that are a kernel of their
    // own (their first operand a library call's result or the function's input, read only
    // there: the dequantize of an int8 convolution's bytes before a float depthwise one).
    auto fusable_producer = [&](const relax::Expr& data) {
      relax::Expr e = data;
      std::set<const relax::VarNode*> chain;  // the values passed on the way, data first
      for (int depth = 0; depth < 8; ++depth) {
        const auto* var = e.as<relax::VarNode>();
        auto it = var ? bound.find(var) : bound.end();
        // A value read elsewhere too ends the search (its kernel must keep the unpadded result),
        // unless only the diamond of an activation inside the chain reads it again.
        if (it != bound.end() && uses[var] != 1 && (depth == 0 || !read_only_inside(var, chain))) return false;
        if (var != nullptr) chain.insert(var);
        if (it == bound.end()) return depth > 0;
        const auto* call = it->second.as<relax::CallNode>();
        const auto* op = call ? call->op.as<relax::OpNode>() : nullptr;
        if (op == nullptr || call->args.empty()) return depth > 0;
        const relax::OpPattern kind = op->info().pattern;
        if (kind == relax::OpPattern::kOutEWiseFusable) return true;
        // A layout_transform moves each element once, like an elementwise operator: the
        // dequantize of an NCHW int8 stem's bytes into a float depthwise convolution's blocks.
        const bool moves_elements = op->name() == "layout_transform";
        if (kind != relax::OpPattern::kElemWise && kind != relax::OpPattern::kBroadcast && !moves_elements)
          return depth > 0;
        e = call->args[0];
      }
      return false;
    };
    Pattern data = Wildcard();
    Pattern window_op = IsOp("nn.conv2d")({data, Wildcard()}) | IsOp("nn.max_pool2d")({data});
    return Rewrite(
        window_op, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* call = matched.as<relax::CallNode>();
          const auto* x = m[data]->struct_info().as<relax::TensorStructInfoNode>();
          if (x == nullptr || x->ndim < 0) return matched;
          const bool is_conv = call->op.same_as(relax::GetOpOrDie("nn.conv2d"));
          std::optional<SplitPlan> plan = is_conv ? PlanConv2d(*call) : PlanMaxPool2d(*call, *x);
          if (!plan.has_value()) return matched;
          absl::StatusOr<Layout> layout = Layout::Parse(plan->layout);
          if (!layout.ok() || static_cast<int>(layout->ndim()) != x->ndim) return matched;
          const int hi = layout->PositionOf('H'), wi = layout->PositionOf('W');
          if (hi < 0 || wi < 0 || !fusable_producer(m[data])) return matched;
          std::vector<int64_t> pad_width(2 * x->ndim, 0);
          pad_width[2 * hi] = plan->padding[0];
          pad_width[2 * hi + 1] = plan->padding[2];
          pad_width[2 * wi] = plan->padding[1];
          pad_width[2 * wi + 1] = plan->padding[3];
          relax::Expr padded = MakeConstantPad(m[data], std::move(pad_width), plan->value);
          std::vector<relax::Expr> args = call->args;
          args[0] = padded;
          return relax::MakeCall(call->op, args, plan->unpadded);
        },
        builder);
  }
};

MLC_REGISTER_PASS(SplitPaddingPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
