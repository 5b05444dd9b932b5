/*! \file alter_op_layout.cc
 *  \brief alter-op-layout: float32 convolutions in channel-blocked layouts, carried through the
 *         operators that do not care, as TVM's AlterOpLayout and ONNX Runtime's NCHWc
 *         transformer do.
 *
 *    conv2d(x, W)            ->  conv2d(x', W', data_layout="NCHW16c", kernel_layout="OIHW16i16o",
 *                                       out_layout="NCHW16c")      W' packed at compile time
 *    relu(add(conv, bias))   ->  the same operators on the blocked tensors (bias blocked too)
 *    max_pool2d(conv)        ->  max_pool2d(conv', layout="NCHW16c")
 *    concat(conv1, conv2, axis=1) -> the blocked tensors joined along the outer channel axis
 *
 *  and the same for 3-D windows (conv3d, max/avg_pool3d: NCDHW16c data, OIDHW16i16o weights).
 *
 *  The channels go in blocks of one vector of the module's target (16 floats with AVX-512, 8
 *  with AVX2; 8 when the count is not a multiple of that). A direct convolution over blocked
 *  data reads its windows in place and writes whole vectors of output channels, so the
 *  default schedule's register tile (T.gemm_tile_nd) needs no packing per call and no
 *  im2col, and depthwise convolutions and pooling vectorize along the channel block.
 *
 *  Each rewritten call becomes the layout_transform of its blocked result back to NCHW (its
 *  variable keeps it); operators that need NCHW (reshape, dense, the function's result) read
 *  that, operators that take blocks look through it to the blocked value, and
 *  remove-unused drops the conversions nobody reads. Eligible:
 *  groups 1, grouped (in blocks that divide a group's channels) and depthwise (groups = channels,
 *  one filter each) convolutions of constant
 *  weights with static C, H and W (the batch may be symbolic); elementwise and broadcasting
 *  operators whose other operands are blocked the same way, per-channel or scalar; max, average
 *  and global average pooling; concatenations along the channels of whole blocks. Runs after
 *  fold-scale-into-conv and before conv2d-to-gemm (which takes the convolutions left in NCHW)
 *  and fuse-ops. Cost: one walk; the weights are
 *  repacked once.
 */
#include "absl/strings/str_cat.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/layout.h"
#include "ir/graph/op.h"
#include "ir/graph/shape_util.h"
#include "ir/ops/op_attrs.h"
#include "ir/target/target.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief The channel block of a tensor of `channels` channels: a vector of the target, or 8. */
int64_t ChannelBlock(int64_t channels, int64_t lanes) {
  for (int64_t b : {lanes, int64_t{8}}) {
    if (b > 1 && channels % b == 0) return b;
  }
  return 0;
}

/*! \brief `primal` (NCHW, NCDHW) with its channels in blocks of `block`: NCHW16c. */
std::string Blocked(const std::string& primal, int64_t block) { return absl::StrCat(primal, block, "c"); }

const relax::TensorStructInfoNode* TensorInfo(const relax::Expr& e) {
  const auto* t = e->struct_info().as<relax::TensorStructInfoNode>();
  return t != nullptr && t->HasKnownShape() ? t : nullptr;
}

relax::Expr Call(const std::string& op, std::vector<relax::Expr> args, Attrs attrs = {}) {
  return relax::MakeCall(relax::GetOpOrDie(op), std::move(args), std::move(attrs));
}

relax::Expr Transform(const relax::Expr& x, const std::string& src, const std::string& dst) {
  return Call("layout_transform", {x}, relax::ToAttrs(relax::LayoutTransformAttrs{src, dst}));
}

/*! \brief Operators that compute each element from the elements at the same index (with
 *  broadcasting) and know nothing of axes: they run on blocked tensors as they are. */
bool LayoutAgnostic(const relax::OpNode* op) {
  const relax::OpInfo& info = op->info();
  if (info.pattern != relax::OpPattern::kElemWise && info.pattern != relax::OpPattern::kBroadcast) return false;
  if (info.builtin || info.num_inputs < 1) return false;
  for (const relax::OpAttrSpec& a : info.attrs) {
    if (a.name == "axis" || a.name == "axes") return false;
  }
  return true;
}

class LayoutRewriter : public relax::ExprMutator {
 public:
  LayoutRewriter(relax::BlockBuilder* bb, int64_t lanes) : relax::ExprMutator(bb), lanes_(lanes) {}

 protected:
  relax::Expr VisitBindingValue_(const relax::VarBindingNode* binding, const relax::CallNode* call) override {
    name_hint_ = binding->var->name_hint;
    return relax::ExprMutator::VisitBindingValue_(binding, call);
  }

  /*! \brief Post-order: the call's arguments are rewritten already (a blocked one reads as the
   *  layout_transform of its blocked value back to NCHW). */
  relax::Expr VisitExpr_(const relax::CallNode* op, const relax::Expr& self) override {
    relax::Expr e = relax::ExprMutator::VisitExpr_(op, self);
    const auto* call = e.as<relax::CallNode>();
    const auto* callee = call != nullptr ? call->op.as<relax::OpNode>() : nullptr;
    if (callee == nullptr) return e;
    std::optional<std::pair<relax::Expr, std::string>> blocked;
    const std::string& name = callee->name();
    if (name == "nn.conv2d") {
      blocked = Conv<relax::Conv2DAttrs>(*call, name);
    } else if (name == "nn.conv3d") {
      blocked = Conv<relax::Conv3DAttrs>(*call, name);
    } else if (name == "nn.max_pool2d" || name == "nn.avg_pool2d" || name == "nn.adaptive_avg_pool2d" ||
               name == "nn.max_pool3d" || name == "nn.avg_pool3d") {
      blocked = Pool(*call);
    } else if (name == "concat") {
      blocked = Concat(*call);
    } else if (LayoutAgnostic(callee)) {
      blocked = Elementwise(*call);
    }
    if (!blocked) return e;
    relax::Var v = Emit(blocked->first, name_hint_.empty() ? "blocked" : absl::StrCat(name_hint_, "_blocked"));
    name_hint_.clear();  // a nested call's result is named after no binding
    // The unblocked tensor, for whoever needs it; blocked consumers look through it.
    return Transform(v, blocked->second, Layout::Parse(blocked->second)->Primal());
  }

 private:
  struct BlockedValue {
    relax::Expr value;
    std::string layout;
  };

  /*! \brief The blocked value behind `e`: `e` (or the value a variable is bound to) is the
   *  layout_transform of a channel-blocked value back to NCHW (or NCDHW). */
  std::optional<BlockedValue> FindBlocked(const relax::Expr& e) const {
    relax::Expr value = e;
    if (const auto* v = e.as<relax::VarNode>()) {
      std::optional<relax::Expr> bound = LookupBinding(relax::Var(v));
      if (!bound) return std::nullopt;
      value = *bound;
    }
    const auto* call = value.as<relax::CallNode>();
    const auto* op = call != nullptr ? call->op.as<relax::OpNode>() : nullptr;
    if (op == nullptr || op->name() != "layout_transform") return std::nullopt;
    absl::StatusOr<relax::LayoutTransformAttrs> a = relax::ParseAttrs<relax::LayoutTransformAttrs>(call->attrs);
    if (!a.ok() || (a->dst_layout != "NCHW" && a->dst_layout != "NCDHW")) return std::nullopt;
    absl::StatusOr<Layout> src = Layout::Parse(a->src_layout);
    if (!src.ok() || src->Primal() != a->dst_layout || src->IsPrimal()) return std::nullopt;
    return BlockedValue{call->args[0], a->src_layout};
  }

  /*! \brief Data for a blocked operator: blocked already, or converted when its channels
   *  divide into blocks; nullopt when they do not (or `allow_nchw` and there are too few). */
  std::optional<std::pair<relax::Expr, int64_t>> BlockedData(const relax::Expr& x, const std::string& primal,
                                                             int64_t channels, bool allow_nchw) {
    if (std::optional<BlockedValue> b = FindBlocked(x))
      return std::make_pair(b->value, Layout::Parse(b->layout)->Factor('C'));
    // Few channels (an image's three): read in place, NCHW, by the convolution.
    if (allow_nchw && channels < lanes_) return std::make_pair(x, int64_t{1});
    int64_t block = ChannelBlock(channels, lanes_);
    if (block == 0) {
      if (allow_nchw) return std::make_pair(x, int64_t{1});
      return std::nullopt;
    }
    return std::make_pair(relax::Expr(Emit(Transform(x, primal, Blocked(primal, block)), "blocked")), block);
  }

  /*! \brief nn.conv2d (Conv2DAttrs) or nn.conv3d (Conv3DAttrs) in blocked layouts. */
  template <typename Attrs>
  std::optional<std::pair<relax::Expr, std::string>> Conv(const relax::CallNode& call, const std::string& op) {
    const std::string spatial = Attrs::kSpatialAxes, primal = "NC" + spatial, kernel_primal = "OI" + spatial;
    const int64_t rank = static_cast<int64_t>(primal.size());
    absl::StatusOr<Attrs> attrs = relax::ParseAttrs<Attrs>(call.attrs);
    if (!attrs.ok() || attrs->data_layout != primal || attrs->kernel_layout != kernel_primal ||
        (!attrs->out_layout.empty() && attrs->out_layout != primal)) {
      return std::nullopt;
    }
    const auto* x = TensorInfo(call.args[0]);
    const auto* w = call.args[1].as<relax::ConstantNode>();
    if (x == nullptr || x->dtype != DataType::Float32() || x->ndim != rank || w == nullptr ||
        w->data.dtype() != DataType::Float32() || static_cast<int64_t>(w->data.shape().size()) != rank) {
      return std::nullopt;
    }
    std::vector<int> static_dims;  // C and the spatial axes
    for (int d = 1; d < rank; ++d) static_dims.push_back(d);
    absl::StatusOr<std::vector<int64_t>> xs = relax::KnownValues(x->Dims(), static_dims, "data");
    if (!xs.ok()) return std::nullopt;
    const std::vector<int64_t>& ws = w->data.shape();
    int64_t out_channels = ws[0], in_channels = (*xs)[1];
    bool depthwise = attrs->groups == in_channels && ws[1] == 1 && out_channels == in_channels && attrs->groups > 1;
    std::optional<std::pair<relax::Expr, int64_t>> data;
    std::string kernel_layout, out_layout;
    if (attrs->groups != 1 && !depthwise) {
      // Grouped (ResNeXt, RegNet): one block for data, weight and result that divides a group's
      // input and output channels (at least 4 lanes), so a tile stays within its group.
      int64_t in_group = in_channels / attrs->groups, out_group = out_channels / attrs->groups, block = lanes_;
      while (block >= 4 && (in_group % block != 0 || out_group % block != 0)) block /= 2;
      if (block < 4) return std::nullopt;
      std::optional<relax::Expr> blocked = Operand(call.args[0], *Layout::Parse(Blocked(primal, block)), in_channels);
      if (!blocked) return std::nullopt;
      data = std::make_pair(*blocked, block);
      kernel_layout = absl::StrCat(kernel_primal, block, "i", block, "o");
      out_layout = Blocked(primal, block);
    } else if (depthwise) {
      // One filter per channel: the result is blocked as the data is.
      data = BlockedData(call.args[0], primal, in_channels, /*allow_nchw=*/false);
      if (!data) return std::nullopt;
      kernel_layout = absl::StrCat(kernel_primal, data->second, "o");
      out_layout = Blocked(primal, data->second);
    } else {
      int64_t out_block = ChannelBlock(out_channels, lanes_);
      if (out_block == 0) return std::nullopt;
      data = BlockedData(call.args[0], primal, in_channels, /*allow_nchw=*/true);
      kernel_layout = data->second > 1 ? absl::StrCat(kernel_primal, data->second, "i", out_block, "o")
                                       : absl::StrCat(kernel_primal, out_block, "o");
      out_layout = Blocked(primal, out_block);
    }
    absl::StatusOr<TensorData> packed =
        TransformLayout(w->data, *Layout::Parse(kernel_primal), *Layout::Parse(kernel_layout));
    if (!packed.ok()) return std::nullopt;
    Attrs blocked = *attrs;
    blocked.data_layout = data->second > 1 ? Blocked(primal, data->second) : primal;
    blocked.kernel_layout = kernel_layout;
    blocked.out_layout = out_layout;
    return std::make_pair(Call(op, {data->first, relax::MakeConstant(*packed)}, relax::ToAttrs(blocked)), out_layout);
  }

  std::optional<std::pair<relax::Expr, std::string>> Pool(const relax::CallNode& call) {
    std::optional<BlockedValue> b = FindBlocked(call.args[0]);
    if (!b) return std::nullopt;
    Attrs attrs = call.attrs;
    auto layout = attrs.find("layout");
    const std::string primal = Layout::Parse(b->layout)->Primal();
    if (layout != attrs.end() && !(layout->second == AttrValue(primal))) return std::nullopt;
    attrs["layout"] = AttrValue(b->layout);
    return std::make_pair(relax::MakeCall(call.op, {b->value}, attrs), b->layout);
  }

  /*! \brief An operand of an elementwise operator in `layout` (channels `channels`): blocked
   *  the same way, converted from another blocking, or a per-channel, per-pixel or scalar
   *  operand broadcast against it; nullopt when it cannot be. */
  std::optional<relax::Expr> Operand(const relax::Expr& e, const Layout& layout, int64_t channels) {
    if (std::optional<BlockedValue> b = FindBlocked(e)) {
      if (b->layout == layout.name()) return b->value;
      return relax::Expr(Emit(Transform(b->value, b->layout, layout.name())));
    }
    const std::string primal = layout.Primal();
    const int64_t rank = static_cast<int64_t>(primal.size());
    const auto* t = TensorInfo(e);
    if (t == nullptr || t->ndim > rank || !t->shape) return std::nullopt;
    if (t->ndim == 0) return e;
    std::vector<int64_t> dims(rank - t->ndim, 1);
    dims.insert(dims.end(), t->shape->begin(), t->shape->end());
    const auto* constant = e.as<relax::ConstantNode>();
    if (dims[1] == 1) {
      // Constant along the channels: the same values, with unit channel axes.
      std::vector<int64_t> shape = dims;
      shape.push_back(1);
      if (constant != nullptr)
        return relax::MakeConstant(TensorData(constant->data.dtype(), shape, constant->data.bytes()));
      return relax::Expr(Emit(Call("reshape", {e}, relax::ToAttrs(relax::ReshapeAttrs{shape}))));
    }
    if (dims[1] != channels) return std::nullopt;
    if (constant != nullptr) {
      absl::StatusOr<TensorData> packed = TransformLayout(
          TensorData(constant->data.dtype(), dims, constant->data.bytes()), *Layout::Parse(primal), layout);
      if (!packed.ok()) return std::nullopt;
      return relax::MakeConstant(*packed);
    }
    relax::Expr full =
        t->ndim == rank ? e : relax::Expr(Emit(Call("reshape", {e}, relax::ToAttrs(relax::ReshapeAttrs{dims}))));
    return relax::Expr(Emit(Transform(full, primal, layout.name())));
  }

  /*! \brief concat(x1, ..., xn, axis=1) of channel-blocked values whose channel counts are
   *  whole blocks: the blocked tensors joined along the outer channel axis, in their layout
   *  (DenseNet's growing feature maps, Inception's branches). Left in NCHW it was a round trip
   *  per input and a gather per element: a third of DenseNet-121's time. */
  std::optional<std::pair<relax::Expr, std::string>> Concat(const relax::CallNode& call) {
    absl::StatusOr<relax::AxisAttrs> attrs = relax::ParseAttrs<relax::AxisAttrs>(call.attrs);
    std::optional<BlockedValue> first;
    for (const relax::Expr& a : call.args) {
      if ((first = FindBlocked(a))) break;
    }
    if (!attrs.ok() || !first) return std::nullopt;
    Layout layout = *Layout::Parse(first->layout);
    const int64_t rank = static_cast<int64_t>(layout.Primal().size()), block = layout.Factor('C');
    if ((attrs->axis < 0 ? attrs->axis + rank : attrs->axis) != 1) return std::nullopt;
    std::vector<int64_t> channels;
    for (const relax::Expr& a : call.args) {
      const auto* t = TensorInfo(a);
      if (t == nullptr || t->ndim != rank) return std::nullopt;
      const std::vector<tir::PrimExpr> dims = t->Dims();  // AsConstInt points into it
      const int64_t* c = tir::AsConstInt(dims[1]);
      if (c == nullptr || *c % block != 0) return std::nullopt;
      channels.push_back(*c);
    }
    std::vector<relax::Expr> args;
    for (size_t i = 0; i < call.args.size(); ++i) {
      std::optional<relax::Expr> o = Operand(call.args[i], layout, channels[i]);
      if (!o) return std::nullopt;
      args.push_back(*o);
    }
    return std::make_pair(relax::MakeCall(call.op, args, call.attrs), first->layout);
  }

  std::optional<std::pair<relax::Expr, std::string>> Elementwise(const relax::CallNode& call) {
    std::optional<BlockedValue> first;
    for (const relax::Expr& a : call.args) {
      if ((first = FindBlocked(a))) break;
    }
    const auto* result = TensorInfo(relax::Expr(&call));
    if (!first || result == nullptr) return std::nullopt;
    Layout layout = *Layout::Parse(first->layout);
    const int64_t rank = static_cast<int64_t>(layout.Primal().size());
    if (result->ndim != rank) return std::nullopt;
    const std::vector<tir::PrimExpr> dims = result->Dims();  // AsConstInt points into it
    const int64_t* channels = tir::AsConstInt(dims[1]);
    if (channels == nullptr) return std::nullopt;
    absl::StatusOr<std::vector<tir::PrimExpr>> want = layout.ShapeFromPrimal(dims);
    if (!want.ok()) return std::nullopt;
    // Check every operand converts before emitting any conversion.
    for (const relax::Expr& a : call.args) {
      if (FindBlocked(a)) continue;
      const auto* t = TensorInfo(a);
      if (t == nullptr || t->ndim > rank || !t->shape) return std::nullopt;
      std::vector<int64_t> padded(rank - t->ndim, 1);
      padded.insert(padded.end(), t->shape->begin(), t->shape->end());
      if (t->ndim != 0 && padded[1] != 1 && padded[1] != *channels) return std::nullopt;
    }
    std::vector<relax::Expr> args;
    for (const relax::Expr& a : call.args) {
      std::optional<relax::Expr> o = Operand(a, layout, *channels);
      if (!o) return std::nullopt;
      args.push_back(*o);
    }
    relax::Expr out = relax::MakeCall(call.op, args, call.attrs, call.sinfo_args);
    // The blocked call must compute the blocked result (broadcasting may not widen it).
    absl::StatusOr<relax::Expr> normalized = builder_.Normalize(out);
    if (!normalized.ok()) return std::nullopt;
    const auto* t = TensorInfo(*normalized);
    if (t == nullptr || t->ndim != static_cast<int64_t>(want->size())) return std::nullopt;
    for (size_t d = 0; d < want->size(); ++d) {
      if (!relax::DimsEqual(t->Dims()[d], (*want)[d])) return std::nullopt;
    }
    return std::make_pair(*normalized, layout.name());
  }

  int64_t lanes_;
  std::string name_hint_;  // the binding being rewritten
};

class AlterOpLayoutPass : public FunctionPass {
 public:
  std::string name() const override { return "alter-op-layout"; }
  std::string description() const override {
    return "Rewrites float32 convolutions (groups 1 and depthwise, constant weights) into channel-blocked layouts "
           "(NCHW16c data, OIHW16i16o weights packed at compile time, NCDHW16c for 3-D; the block is one vector of the "
           "module's target) "
           "and carries the blocked layout through elementwise operators and pooling, converting back to NCHW only "
           "where an operator needs it. Run after fold-scale-into-conv, before conv2d-to-gemm and fuse-ops; "
           "remove-unused drops the conversions nobody reads.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    absl::StatusOr<Target> target = TargetFromAttrs(builder->module().attrs());
    if (!target.ok()) return target.status();
    LayoutRewriter rewriter(builder, target->float_lanes());
    return rewriter.VisitFunction(func);
  }
};

MLC_REGISTER_PASS(AlterOpLayoutPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
