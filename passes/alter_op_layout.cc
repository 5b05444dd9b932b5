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
 *  Int8 layers (qdq-to-integer's) join in where the target has a blocked int8 tile (AVX-512
 *  VNNI or AVX-VNNI, or AVX2 for the int16 weights qdq-to-integer gives targets without VNNI):
 *
 *    quantize(conv', s, z)   ->  the same on the blocked tensor (dequantize too; per tensor)
 *    mlc.int8.conv2d(q', ...) of a 1 x 1 window  ->  mlc.int8.conv2d_nchwc(q', ...) -> NCHW16c
 *
 *  so a QDQ MobileNet's int8 pointwise layers and float depthwise ones share one layout.
 *
 *  The channels go in blocks of one vector of the module's target (16 floats with AVX-512, 8
 *  with AVX2). A convolution whose output channels are a multiple of 8 but not of the vector
 *  (SqueezeNet's 1000 classes, MobileNetV3's 40, 72, 120 on AVX-512) pads them up to whole
 *  vectors, as ONNX Runtime's NCHWc transformer does: the weights' extra filters are zeros, so
 *  the extra channels hold zeros, and the result's NCHW view is strided_slice(layout_transform)
 *  back to the real count. (In blocks of 8 its register tile ran on half vectors: half the
 *  peak at best.) The padding flows on through pooling and the elementwise operators that keep
 *  finite values finite (add, multiply, max, min, relu, sigmoid, ...; a per-channel constant is
 *  padded with zeros, a divisor with ones), and a convolution reading it gives its weights zero
 *  taps for the extra channels. A direct convolution over blocked
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
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "absl/strings/str_cat.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/layout.h"
#include "ir/graph/op.h"
#include "ir/graph/shape_util.h"
#include "ir/ops/op_attrs.h"
#include "ir/target/target.h"
#include "passes/int8_weight_panels.h"
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

/*! \brief `extent` rounded up to a multiple of `block`. */
int64_t RoundUp(int64_t extent, int64_t block) { return (extent + block - 1) / block * block; }

/*! \brief The block of a convolution's output channels padded up to whole vectors, or 0 when
 *  they are not padded: fewer than a vector but more than half of one, or counts that are a
 *  multiple of 8 but not of the vector, padded by at most a quarter (24 -> 32 on AVX-512 would
 *  move a third more bytes through the memory-bound depthwise layers that follow such a
 *  convolution). With `any_count` (3-D convolutions, which have no GEMM route for the counts
 *  left in NCDHW) any count is: R(2+1)D-18's factored convolutions to 230, 460 and 921 channels
 *  ran as plain loop nests at 1-12% of the peak. */
int64_t PaddedBlock(int64_t channels, int64_t lanes, bool any_count) {
  if (channels % lanes == 0) return 0;
  // Fewer than a vector but more than half of one: the padded products cost less than
  // conv2d-to-gemm's per-tile window packing, which ran ESPCN's 32 -> 9 3 x 3 layer at 30% of
  // the peak (7.5 ms; padded to 16 and computed in place: 5.7 ms, and the layer before it
  // 20.5 -> 18.1 ms without its conversion back to NCHW).
  if (channels < lanes && 2 * channels > lanes) return lanes;
  if (!any_count && (lanes <= 8 || channels % 8 != 0)) return 0;
  return 4 * (RoundUp(channels, lanes) - channels) <= channels ? lanes : 0;
}

/*! \brief Elementwise operators that give finite results for finite operands, so padded
 *  channels (zeros from the convolution) stay finite and a convolution's zero taps ignore them
 *  (0 * inf would not be 0). divide only by a constant (padded with ones). */
bool KeepsPaddingFinite(const std::string& op) {
  static const char* const kOps[] = {"add",      "subtract", "multiply", "maximum", "minimum", "nn.relu",
                                     "negative", "abs",      "sigmoid",  "tanh",    "erf",     "divide"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
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

/*! \brief The weight forms whose mlc.int8.conv2d_nchwc tile the target runs: int8 panels
 *  (AVX-512 VNNI or AVX-VNNI) and int16 ones (AVX2; qdq-to-integer's form for targets without
 *  VNNI). */
struct Int8BlockedTiles {
  bool int8_panels = false;
  bool int16_panels = false;
};

class LayoutRewriter : public relax::ExprMutator {
 public:
  LayoutRewriter(relax::BlockBuilder* bb, int64_t lanes, Int8BlockedTiles int8_tiles)
      : relax::ExprMutator(bb), lanes_(lanes), int8_tiles_(int8_tiles) {}

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
    std::optional<BlockedValue> blocked;
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
    } else if (name == "quantize" || name == "dequantize") {
      blocked = PerTensorQuantize(*call);
    } else if (name == "call_dps_packed") {
      blocked = Int8Pointwise(e);
    } else if (name == "nn.pad") {
      blocked = SpatialPad(*call);
    } else if (name == "strided_slice") {
      blocked = SpatialSlice(*call);
    } else if (LayoutAgnostic(callee)) {
      blocked = Elementwise(*call);
    }
    if (!blocked) return e;
    const std::string base = name_hint_.empty() ? "blocked" : name_hint_;
    relax::Var v = Emit(blocked->value, name_hint_.empty() ? "blocked" : absl::StrCat(name_hint_, "_blocked"));
    name_hint_.clear();  // a nested call's result is named after no binding
    // The unblocked tensor, for whoever needs it; blocked consumers look through it.
    relax::Expr primal = Transform(v, blocked->layout, Layout::Parse(blocked->layout)->Primal());
    if (blocked->channels == 0) return primal;
    // Padded: the real channels of the unblocked tensor.
    relax::Var full = Emit(primal, absl::StrCat(base, "_padded"));
    return Call("strided_slice", {full}, relax::ToAttrs(relax::StridedSliceAttrs{{1}, {0}, {blocked->channels}, {}}));
  }

 private:
  /*! \brief A channel-blocked value in `layout`; `channels` is the real channel count when the
   *  blocks are padded beyond it (0: not padded). */
  struct BlockedValue {
    relax::Expr value;
    std::string layout;
    int64_t channels = 0;
  };

  /*! \brief layout_transform(x) from `src` to `dst`, emitted once per variable and layout in a
   *  block: a value several convolutions read (the phases of a transposed convolution, each
   *  its own convolution of one input) is converted once, not once per reader. */
  relax::Expr Converted(const relax::Expr& x, const std::string& src, const std::string& dst,
                        const std::string& name_hint = "") {
    const bool named = x.as<relax::VarNode>() != nullptr;
    const std::pair<const Object*, std::string> key{x.get(), dst};
    if (auto it = converted_.find(key); named && it != converted_.end() && BoundInCurrentBlock(it->second))
      return it->second;
    relax::Var v = Emit(Transform(x, src, dst), name_hint);
    if (named) converted_[key] = v;
    return v;
  }

  /*! \brief The call `e` is or its variable is bound to, when it calls operator `name`. */
  const relax::CallNode* BoundCall(const relax::Expr& e, const std::string& name) const {
    relax::Expr value = e;
    if (const auto* v = e.as<relax::VarNode>()) {
      std::optional<relax::Expr> bound = LookupBinding(relax::Var(v));
      if (!bound) return nullptr;
      value = *bound;
    }
    const auto* call = value.as<relax::CallNode>();
    const auto* op = call != nullptr ? call->op.as<relax::OpNode>() : nullptr;
    return op != nullptr && op->name() == name ? call : nullptr;
  }

  /*! \brief The blocked value behind `e`: `e` (or the value a variable is bound to) is the
   *  layout_transform of a channel-blocked value back to NCHW (or NCDHW), or the first
   *  `channels` channels of one, fewer than a block short of its padded count. */
  std::optional<BlockedValue> FindBlocked(const relax::Expr& e) const {
    relax::Expr unblocked = e;
    int64_t channels = 0;
    if (const relax::CallNode* slice = BoundCall(e, "strided_slice")) {
      absl::StatusOr<relax::StridedSliceAttrs> s = relax::ParseAttrs<relax::StridedSliceAttrs>(slice->attrs);
      if (!s.ok() || s->axes != std::vector<int64_t>{1} || s->begin != std::vector<int64_t>{0} || s->end.size() != 1 ||
          s->end[0] <= 0 || !(s->strides.empty() || s->strides == std::vector<int64_t>{1})) {
        return std::nullopt;
      }
      channels = s->end[0];
      unblocked = slice->args[0];
    }
    const relax::CallNode* call = BoundCall(unblocked, "layout_transform");
    if (call == nullptr) return std::nullopt;
    absl::StatusOr<relax::LayoutTransformAttrs> a = relax::ParseAttrs<relax::LayoutTransformAttrs>(call->attrs);
    if (!a.ok() || (a->dst_layout != "NCHW" && a->dst_layout != "NCDHW")) return std::nullopt;
    absl::StatusOr<Layout> src = Layout::Parse(a->src_layout);
    if (!src.ok() || src->Primal() != a->dst_layout || src->IsPrimal()) return std::nullopt;
    if (channels > 0) {
      const auto* t = TensorInfo(call->args[0]);
      const std::vector<tir::PrimExpr> dims = t != nullptr ? t->Dims() : std::vector<tir::PrimExpr>{};
      const int64_t* blocks = dims.size() > 1 ? tir::AsConstInt(dims[1]) : nullptr;
      const int64_t block = src->Factor('C'), stored = blocks != nullptr ? *blocks * block : 0;
      if (stored == 0 || channels > stored || channels <= stored - block) return std::nullopt;
      if (channels == stored) channels = 0;  // the whole tensor
    }
    return BlockedValue{call->args[0], a->src_layout, channels};
  }

  /*! \brief The channels a blocked value stores: its real ones rounded up to whole blocks. */
  static int64_t Stored(const BlockedValue& b, int64_t channels) {
    return b.channels > 0 ? RoundUp(b.channels, Layout::Parse(b.layout)->Factor('C')) : channels;
  }

  /*! \brief A convolution's data: the value, its channel block (1: NCHW) and the channels it
   *  stores (beyond the real ones when padded). */
  struct Data {
    relax::Expr value;
    int64_t block, stored;
  };

  /*! \brief Data for a blocked operator: blocked already, or converted when its channels
   *  divide into blocks; nullopt when they do not (or `allow_nchw` and there are too few). */
  std::optional<Data> BlockedData(const relax::Expr& x, const std::string& primal, int64_t channels, bool allow_nchw) {
    if (std::optional<BlockedValue> b = FindBlocked(x))
      return Data{b->value, Layout::Parse(b->layout)->Factor('C'), Stored(*b, channels)};
    // Few channels (an image's three): read in place, NCHW, by the convolution.
    if (allow_nchw && channels < lanes_) return Data{x, 1, channels};
    int64_t block = ChannelBlock(channels, lanes_);
    if (block == 0) {
      if (allow_nchw) return Data{x, 1, channels};
      return std::nullopt;
    }
    return Data{Converted(x, primal, Blocked(primal, block), "blocked"), block, channels};
  }

  /*! \brief nn.conv2d (Conv2DAttrs) or nn.conv3d (Conv3DAttrs) in blocked layouts. */
  template <typename Attrs>
  std::optional<BlockedValue> Conv(const relax::CallNode& call, const std::string& op) {
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
    std::optional<Data> data;
    std::string kernel_layout, out_layout;
    int64_t out_stored = out_channels;  // padded up to whole blocks, or the real count
    if (attrs->groups != 1 && !depthwise) {
      // Grouped (ResNeXt, RegNet): one block for data, weight and result that divides a group's
      // input and output channels (at least 4 lanes), so a tile stays within its group.
      int64_t in_group = in_channels / attrs->groups, out_group = out_channels / attrs->groups, block = lanes_;
      while (block >= 4 && (in_group % block != 0 || out_group % block != 0)) block /= 2;
      if (block < 4) return std::nullopt;
      std::optional<relax::Expr> blocked =
          Operand(call.args[0], *Layout::Parse(Blocked(primal, block)), in_channels, in_channels);
      if (!blocked) return std::nullopt;
      data = Data{*blocked, block, in_channels};
      kernel_layout = absl::StrCat(kernel_primal, block, "i", block, "o");
      out_layout = Blocked(primal, block);
    } else if (depthwise) {
      // One filter per channel: the result is blocked as the data is.
      data = BlockedData(call.args[0], primal, in_channels, /*allow_nchw=*/false);
      if (!data) return std::nullopt;
      kernel_layout = absl::StrCat(kernel_primal, data->block, "o");
      out_layout = Blocked(primal, data->block);
      out_stored = data->stored;  // one filter per stored channel (zeros for the padding)
    } else {
      int64_t out_block = ChannelBlock(out_channels, lanes_);
      if (int64_t padded = PaddedBlock(out_channels, lanes_, /*any_count=*/op == "nn.conv3d"); padded > 0) {
        out_block = padded;
        out_stored = RoundUp(out_channels, padded);
      }
      if (out_block == 0) return std::nullopt;
      data = BlockedData(call.args[0], primal, in_channels, /*allow_nchw=*/true);
      kernel_layout = data->block > 1 ? absl::StrCat(kernel_primal, data->block, "i", out_block, "o")
                                      : absl::StrCat(kernel_primal, out_block, "o");
      out_layout = Blocked(primal, out_block);
    }
    // Padded channels: zero filters for the extra outputs, zero taps for the extra inputs.
    TensorData weight = PadAxis(w->data, 0, out_stored, 0.0f);
    if (!depthwise && attrs->groups == 1) weight = PadAxis(weight, 1, data->stored, 0.0f);
    absl::StatusOr<TensorData> packed =
        TransformLayout(weight, *Layout::Parse(kernel_primal), *Layout::Parse(kernel_layout));
    if (!packed.ok()) return std::nullopt;
    Attrs blocked = *attrs;
    blocked.data_layout = data->block > 1 ? Blocked(primal, data->block) : primal;
    blocked.kernel_layout = kernel_layout;
    blocked.out_layout = out_layout;
    if (depthwise) blocked.groups = out_stored;
    return BlockedValue{Call(op, {data->value, relax::MakeConstant(*packed)}, relax::ToAttrs(blocked)), out_layout,
                        out_stored != out_channels ? out_channels : 0};
  }

  std::optional<BlockedValue> Pool(const relax::CallNode& call) {
    std::optional<BlockedValue> b = FindBlocked(call.args[0]);
    if (!b) return std::nullopt;
    Attrs attrs = call.attrs;
    auto layout = attrs.find("layout");
    const std::string primal = Layout::Parse(b->layout)->Primal();
    if (layout != attrs.end() && !(layout->second == AttrValue(primal))) return std::nullopt;
    attrs["layout"] = AttrValue(b->layout);
    return BlockedValue{relax::MakeCall(call.op, {b->value}, attrs), b->layout, b->channels};
  }

  /*! \brief nn.pad of a blocked value along its batch and spatial axes only: the same padding,
   *  none for the lanes. Padded channels take the pad value at the new border, still finite.
   *  Split convolution taps (split-conv-taps: DeepLabV3's dilated branches, a transposed
   *  convolution of a 1 x 1 input) pad each tap's result to the output: through NCHW, each
   *  went out of its blocks and back, and their sum gathered 16 planes per vector. */
  std::optional<BlockedValue> SpatialPad(const relax::CallNode& call) {
    std::optional<BlockedValue> b = FindBlocked(call.args[0]);
    absl::StatusOr<relax::PadAttrs> attrs = relax::ParseAttrs<relax::PadAttrs>(call.attrs);
    if (!b || !attrs.ok() || !std::isfinite(attrs->pad_value)) return std::nullopt;
    const size_t rank = Layout::Parse(b->layout)->Primal().size();
    std::vector<int64_t> width = attrs->pad_width;
    if (width.size() != 2 * rank || width[2] != 0 || width[3] != 0) return std::nullopt;
    width.insert(width.end(), {0, 0});
    Attrs blocked = call.attrs;
    blocked["pad_width"] = AttrValue(width);
    return BlockedValue{relax::MakeCall(call.op, {b->value}, blocked), b->layout, b->channels};
  }

  /*! \brief strided_slice of a blocked value along its batch and spatial axes only: the same
   *  slice (those axes keep their positions; the lanes come last). A convolution tap's input
   *  window (split-conv-taps) was cut from an NCHW copy of a blocked input. */
  std::optional<BlockedValue> SpatialSlice(const relax::CallNode& call) {
    std::optional<BlockedValue> b = FindBlocked(call.args[0]);
    absl::StatusOr<relax::StridedSliceAttrs> attrs = relax::ParseAttrs<relax::StridedSliceAttrs>(call.attrs);
    if (!b || !attrs.ok()) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(Layout::Parse(b->layout)->Primal().size());
    std::vector<int64_t> axes = attrs->axes;
    for (int64_t& a : axes) {
      if (a < 0) a += rank;
      if (a < 0 || a >= rank || a == 1) return std::nullopt;
    }
    Attrs blocked = call.attrs;
    blocked["axes"] = AttrValue(axes);
    return BlockedValue{relax::MakeCall(call.op, {b->value}, blocked), b->layout, b->channels};
  }

  /*! \brief An operand of an elementwise operator in `layout` (channels `channels`, stored as
   *  `stored`: more when padded): blocked the same way, converted from another blocking, or a
   *  per-channel, per-pixel or scalar operand broadcast against it (a constant's padding filled
   *  with `pad`); nullopt when it cannot be. */
  std::optional<relax::Expr> Operand(const relax::Expr& e, const Layout& layout, int64_t channels, int64_t stored,
                                     float pad = 0.0f) {
    if (std::optional<BlockedValue> b = FindBlocked(e)) {
      const bool padded = b->channels > 0;
      if (b->layout == layout.name() && Stored(*b, channels) == stored) return b->value;
      if (stored != channels) return std::nullopt;  // only constants are padded here
      // Another blocking: from the blocked value, or, when that is padded, from the real channels.
      if (!padded) return Converted(b->value, b->layout, layout.name());
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
      TensorData values(constant->data.dtype(), dims, constant->data.bytes());
      if (stored != channels) {
        if (values.dtype() != DataType::Float32()) return std::nullopt;
        values = PadAxis(values, 1, stored, pad);
      }
      absl::StatusOr<TensorData> packed = TransformLayout(values, *Layout::Parse(primal), layout);
      if (!packed.ok()) return std::nullopt;
      return relax::MakeConstant(*packed);
    }
    if (stored != channels) return std::nullopt;
    relax::Expr full =
        t->ndim == rank ? e : relax::Expr(Emit(Call("reshape", {e}, relax::ToAttrs(relax::ReshapeAttrs{dims}))));
    return Converted(full, primal, layout.name());
  }

  /*! \brief concat(x1, ..., xn, axis=1) of channel-blocked values whose channel counts are
   *  whole blocks: the blocked tensors joined along the outer channel axis, in their layout
   *  (DenseNet's growing feature maps, Inception's branches). Left in NCHW it was a round trip
   *  per input and a gather per element: a third of DenseNet-121's time. */
  std::optional<BlockedValue> Concat(const relax::CallNode& call) {
    absl::StatusOr<relax::AxisAttrs> attrs = relax::ParseAttrs<relax::AxisAttrs>(call.attrs);
    std::optional<BlockedValue> first;
    for (const relax::Expr& a : call.args) {
      if ((first = FindBlocked(a))) break;
    }
    if (!attrs.ok() || !first || first->channels > 0) return std::nullopt;
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
      std::optional<relax::Expr> o = Operand(call.args[i], layout, channels[i], channels[i]);
      if (!o) return std::nullopt;
      args.push_back(*o);
    }
    return BlockedValue{relax::MakeCall(call.op, args, call.attrs), first->layout};
  }

  /*! \brief quantize or dequantize with one scale and zero point for the whole tensor (0-d or
   *  one element), which is elementwise: on the blocked tensor as it is. */
  std::optional<BlockedValue> PerTensorQuantize(const relax::CallNode& call) {
    std::optional<BlockedValue> b = FindBlocked(call.args[0]);
    if (!b) return std::nullopt;
    for (size_t i = 1; i < call.args.size(); ++i) {
      const auto* t = TensorInfo(call.args[i]);
      if (t == nullptr || t->ndim > 1 || (t->ndim == 1 && (*t->shape)[0] != 1)) return std::nullopt;
    }
    return BlockedValue{relax::MakeCall(call.op, {b->value, call.args[1], call.args[2]}, call.attrs), b->layout,
                        b->channels};
  }

  /*! \brief mlc.int8.conv2d (qdq-to-integer) of a 1 x 1 window at stride 1 without padding whose
   *  input is blocked (the quantize of a blocked float result): mlc.int8.conv2d_nchwc, which
   *  reads the blocked bytes in place and writes its result blocked as a float convolution's
   *  would be, where the target has a tile for the weight's form (int8: AVX-512 VNNI or
   *  AVX-VNNI; int16: AVX2). A QDQ MobileNet's int8 expansions and projections then meet its
   *  float depthwise convolutions without layout transforms, and without the column packing
   *  mlc.int8.conv2d does per call. The weight [F, Kp] is repacked in panels
   *  (int8_weight_panels.h), zero for padded input channels. */
  std::optional<BlockedValue> Int8Pointwise(const relax::Expr& call) {
    const relax::TupleNode* operands = PackedCallOperands(call, "mlc.int8.conv2d");
    if (operands == nullptr || (operands->fields.size() != 6 && operands->fields.size() != 7)) return std::nullopt;
    std::vector<relax::Expr> args = operands->fields;
    const auto* w = args[1].as<relax::ConstantNode>();
    const auto* geometry = args[2].as<relax::ConstantNode>();
    if (w == nullptr || geometry == nullptr || w->data.shape().size() != 2 ||
        geometry->data.dtype() != DataType::Int(64) || geometry->data.NumElements() != 12) {
      return std::nullopt;
    }
    const bool int16 = w->data.dtype() == DataType::Int(16);
    if (!(int16 ? int8_tiles_.int16_panels : w->data.dtype() == DataType::Int(8) && int8_tiles_.int8_panels))
      return std::nullopt;
    // (stride_h, stride_w, pad x 4, dilation x 2, kernel_h, kernel_w, zero point, activation)
    const int64_t* g = geometry->data.data_as<int64_t>();
    if (g[0] != 1 || g[1] != 1 || g[2] != 0 || g[3] != 0 || g[4] != 0 || g[5] != 0 || g[8] != 1 || g[9] != 1)
      return std::nullopt;
    const auto* x = TensorInfo(args[0]);
    const auto* result = TensorInfo(call);
    std::optional<BlockedValue> blocked = FindBlocked(args[0]);
    if (x == nullptr || result == nullptr || !blocked || x->ndim != 4) return std::nullopt;
    const Layout layout = *Layout::Parse(blocked->layout);
    const int64_t block = layout.Factor('C');
    const std::vector<tir::PrimExpr> x_dims = x->Dims();
    const int64_t* channels = tir::AsConstInt(x_dims[1]);
    const int64_t filters = w->data.shape()[0], kp = w->data.shape()[1];
    if (layout.Primal() != "NCHW" || block % 4 != 0 || 16 % block != 0 || channels == nullptr) return std::nullopt;
    const int64_t stored = Stored(*blocked, *channels), out_block = ChannelBlock(filters, lanes_);
    if (kp < *channels || kp > stored || out_block == 0 || 16 % out_block != 0) return std::nullopt;
    const auto* blocked_x = TensorInfo(blocked->value);
    if (blocked_x == nullptr || blocked_x->ndim != 5) return std::nullopt;
    args[0] = blocked->value;
    args[1] = relax::MakeConstant(int16 ? Int16WeightPanels(w->data.data_as<int16_t>(), filters, *channels, kp, stored)
                                        : Int8WeightPanels(w->data.data_as<int8_t>(), filters, *channels, kp, stored));
    std::vector<tir::PrimExpr> dims = blocked_x->Dims();
    dims[1] = tir::IntImm(dims[1]->dtype, filters / out_block);
    dims[4] = tir::IntImm(dims[4]->dtype, out_block);
    relax::Expr conv =
        relax::MakeCall(relax::GetOpOrDie("call_dps_packed"),
                        {relax::MakeExternFunc("mlc.int8.conv2d_nchwc"), relax::MakeTuple(std::move(args))}, {},
                        {relax::TensorSInfoOfDims(std::move(dims), result->dtype)});
    return BlockedValue{conv, Blocked("NCHW", out_block)};
  }

  std::optional<BlockedValue> Elementwise(const relax::CallNode& call) {
    std::optional<BlockedValue> first;
    for (const relax::Expr& a : call.args) {
      if ((first = FindBlocked(a))) break;
    }
    const auto* result = TensorInfo(relax::Expr(&call));
    if (!first || result == nullptr) return std::nullopt;
    Layout layout = *Layout::Parse(first->layout);
    const int64_t rank = static_cast<int64_t>(layout.Primal().size());
    if (result->ndim != rank) return std::nullopt;
    std::vector<tir::PrimExpr> dims = result->Dims();
    const int64_t* known = tir::AsConstInt(dims[1]);
    if (known == nullptr) return std::nullopt;
    const int64_t channels = *known;
    const std::string& op = call.op.as<relax::OpNode>()->name();
    // Padded channels only through operators that keep them finite, dividing only by constants.
    const bool padded = first->channels > 0;
    if (padded && (first->channels != channels || !KeepsPaddingFinite(op) ||
                   (op == "divide" && call.args[1].as<relax::ConstantNode>() == nullptr))) {
      return std::nullopt;
    }
    const int64_t stored = Stored(*first, channels);
    dims[1] = tir::IntImm(dims[1]->dtype, stored);
    absl::StatusOr<std::vector<tir::PrimExpr>> want = layout.ShapeFromPrimal(dims);
    if (!want.ok()) return std::nullopt;
    // Check every operand converts before emitting any conversion.
    for (const relax::Expr& a : call.args) {
      if (FindBlocked(a)) continue;
      const auto* t = TensorInfo(a);
      if (t == nullptr || t->ndim > rank || !t->shape) return std::nullopt;
      std::vector<int64_t> extended(rank - t->ndim, 1);
      extended.insert(extended.end(), t->shape->begin(), t->shape->end());
      if (t->ndim != 0 && extended[1] != 1 && extended[1] != channels) return std::nullopt;
    }
    std::vector<relax::Expr> args;
    for (size_t i = 0; i < call.args.size(); ++i) {
      // A divisor's padding is ones: 0 / 0 would not be finite.
      const float pad = op == "divide" && i == 1 ? 1.0f : 0.0f;
      std::optional<relax::Expr> o = Operand(call.args[i], layout, channels, stored, pad);
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
    return BlockedValue{*normalized, layout.name(), first->channels};
  }

  int64_t lanes_;
  Int8BlockedTiles int8_tiles_;  // the weight forms mlc.int8.conv2d_nchwc has a tile for here
  std::string name_hint_;        // the binding being rewritten
  std::map<std::pair<const Object*, std::string>, relax::Var> converted_;  // Converted's conversions
};

class AlterOpLayoutPass : public FunctionPass {
 public:
  std::string name() const override { return "alter-op-layout"; }
  std::string description() const override {
    return "Rewrites float32 convolutions (groups 1 and depthwise, constant weights) into channel-blocked layouts "
           "(NCHW16c data, OIHW16i16o weights packed at compile time, NCDHW16c for 3-D; the block is one vector of the "
           "module's target; output channels a multiple of 8 but not of the vector, and any count of a 3-D "
           "convolution, padded up to whole vectors with zero filters where that adds at most a quarter, and counts "
           "between half a vector and one padded to one, the real channels sliced out where read unblocked) and "
           "carries the blocked layout through elementwise operators, pooling and spatial padding and slicing, "
           "converting back to NCHW only where an operator needs it (once per variable). Per-tensor quantize and "
           "dequantize carry the blocked layout too, and where the target has a blocked int8 tile (AVX-512 VNNI or "
           "AVX-VNNI for int8 weights, AVX2 for the int16 ones of targets without VNNI) an int8 1 x 1 convolution "
           "(mlc.int8.conv2d, stride 1, no padding) of a blocked input becomes mlc.int8.conv2d_nchwc, blocked in and "
           "out. Run after "
           "fold-scale-into-conv, before conv2d-to-gemm and fuse-ops; "
           "remove-unused drops the conversions nobody reads.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    absl::StatusOr<Target> target = TargetFromAttrs(builder->module().attrs());
    if (!target.ok()) return target.status();
    const bool avx2 = target->has("avx2") && target->has("fma");
    const Int8BlockedTiles tiles{
        (target->has("avx512vnni") && target->has("avx512bw")) || (avx2 && target->has("avxvnni")), avx2};
    LayoutRewriter rewriter(builder, target->float_lanes(), tiles);
    return rewriter.VisitFunction(func);
  }
};

MLC_REGISTER_PASS(AlterOpLayoutPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
