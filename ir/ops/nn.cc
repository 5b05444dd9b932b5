/*! \file nn.cc
 *  \brief Neural-network operators: conv2d/conv3d, max/avg pooling in 2-D and 3-D, adaptive
 *         average pooling (NCHW/NCDHW or channel-blocked NCHW<b>c),
 *         constant padding, softmax and layer normalization.
 */
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/graph/layout.h"
#include "ir/ops/op_util.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/topi/topi.h"
#include "support/status_macros.h"

namespace mlc {
namespace relax {
namespace {

using te::Tensor;

/*! \brief A layout of image data (NCHW or NCDHW, the channels optionally blocked) or weights
 *  (OIHW or OIDHW, the channel axes optionally blocked), or an error naming the attribute. */
absl::StatusOr<Layout> ParseImageLayout(const std::string& text, const std::string& attr, const std::string& primal) {
  absl::StatusOr<Layout> l = Layout::Parse(text);
  if (!l.ok()) return absl::InvalidArgumentError(absl::StrCat(attr, ": ", l.status().message()));
  if (l->Primal() != primal || !l->BlocksOnlyChannels()) {
    return absl::InvalidArgumentError(
        absl::StrCat(attr, " \"", text, "\" is not ", primal, " with only the channels blocked"));
  }
  return *l;
}

/*! \brief The data's dims in primal order (NCHW) for `layout`, checking its rank. */
absl::StatusOr<std::vector<tir::PrimExpr>> PrimalDims(const TensorStructInfoNode* t, const Layout& layout,
                                                      const std::string& what) {
  if (t->ndim != static_cast<int64_t>(layout.ndim())) {
    return absl::InvalidArgumentError(absl::StrCat("expects ", what, " in layout ", layout.name(), " (", layout.ndim(),
                                                   "-d), got ", DimsToString(t->Dims())));
  }
  return layout.ShapeToPrimal(t->Dims());
}

/*! \brief Positions first, first + 1, ..., first + count - 1. */
std::vector<int> Positions(int first, size_t count) {
  std::vector<int> p(count);
  for (size_t i = 0; i < count; ++i) p[i] = first + static_cast<int>(i);
  return p;
}

/*! \brief nn.conv2d and nn.conv3d: the window runs over Attrs::kSpatialAxes. */
template <typename Attrs>
absl::StatusOr<StructInfo> InferConv(const CallNode& call, const Attrs& a) {
  const std::string spatial = Attrs::kSpatialAxes;
  const size_t n = spatial.size();
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<const TensorStructInfoNode*> w = TensorArg(call, 1);
  if (!w.ok()) return w.status();
  MLC_ASSIGN_OR_RETURN(dl, ParseImageLayout(a.data_layout, "data_layout", "NC" + spatial));
  MLC_ASSIGN_OR_RETURN(kl, ParseImageLayout(a.kernel_layout, "kernel_layout", "OI" + spatial));
  MLC_ASSIGN_OR_RETURN(ol, ParseImageLayout(a.ResultLayout(), "out_layout", "NC" + spatial));
  if (!(*x)->HasKnownShape() || !(*w)->HasKnownShape())
    return TensorSInfoUnknownShape((*x)->dtype, static_cast<int>(ol.ndim()));
  MLC_ASSIGN_OR_RETURN(x_dims, PrimalDims(*x, dl, "data"));
  MLC_ASSIGN_OR_RETURN(w_dims, PrimalDims(*w, kl, "weight"));
  MLC_ASSIGN_OR_RETURN(xs, KnownValues(x_dims, Positions(1, n + 1), "data"));
  MLC_ASSIGN_OR_RETURN(ws, KnownValues(w_dims, Positions(0, n + 2), "weight"));
  if (a.groups < 1 || xs[1] % a.groups != 0 || ws[0] % a.groups != 0 || ws[1] * a.groups != xs[1]) {
    return absl::InvalidArgumentError(absl::StrCat("data ", ShapeToString(xs), " and weight ", ShapeToString(ws),
                                                   " do not agree for groups=", a.groups));
  }
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (absl::Status s = CheckWindowAttrs(kernel, a.strides, a.dilation, a.padding); !s.ok()) return s;
  std::vector<tir::PrimExpr> out = {x_dims[0], tir::I64(ws[0])};
  for (size_t d = 0; d < n; ++d) {
    int64_t extent = WindowExtent(xs[2 + d], a.padding[d], a.padding[d + n], kernel[d], a.dilation[d], a.strides[d]);
    if (extent <= 0) return absl::InvalidArgumentError("the window is larger than the padded input");
    out.push_back(tir::I64(extent));
  }
  MLC_ASSIGN_OR_RETURN(result, ol.ShapeFromPrimal(out));
  return TensorSInfoOfDims(result, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferConv2dGemm(const CallNode& call, const Conv2DGemmAttrs& a) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<const TensorStructInfoNode*> w = TensorArg(call, 1);
  if (!w.ok()) return w.status();
  if (!(*x)->HasKnownShape() || !(*w)->HasKnownShape()) return TensorSInfoUnknownShape((*x)->dtype, 4);
  MLC_ASSIGN_OR_RETURN(xs, KnownDims(*x, {1, 2, 3}, "data"));
  MLC_ASSIGN_OR_RETURN(ws, KnownDims(*w, {0, 1}, "weight"));
  if (xs.size() != 4) return absl::InvalidArgumentError(absl::StrCat("expects NCHW data, got ", ShapeToString(xs)));
  if (ws.size() != 2 || ws[1] != xs[1] * a.kernel_size[0] * a.kernel_size[1]) {
    return absl::InvalidArgumentError(absl::StrCat("weight ", ShapeToString(ws), " is not [O, C*KH*KW] = [O, ",
                                                   xs[1] * a.kernel_size[0] * a.kernel_size[1], "]"));
  }
  if (absl::Status s = CheckWindowAttrs(a.kernel_size, a.strides, a.dilation, a.padding); !s.ok()) return s;
  int64_t oh = WindowExtent(xs[2], a.padding[0], a.padding[2], a.kernel_size[0], a.dilation[0], a.strides[0]);
  int64_t ow = WindowExtent(xs[3], a.padding[1], a.padding[3], a.kernel_size[1], a.dilation[1], a.strides[1]);
  if (oh <= 0 || ow <= 0) return absl::InvalidArgumentError("the window is larger than the padded input");
  if (a.column_tile < 1)
    return absl::InvalidArgumentError(absl::StrCat("column_tile ", a.column_tile, " must be positive"));
  return TensorSInfoOfDims({(*x)->Dims()[0], tir::I64(ws[0]), tir::I64(oh), tir::I64(ow)}, (*x)->dtype);
}

/*! \brief nn.{max,avg}_pool{2,3}d: the window runs over Attrs::kSpatialAxes. */
template <typename Attrs>
absl::StatusOr<StructInfo> InferPool(const CallNode& call, const Attrs& a) {
  const std::string spatial = Attrs::kSpatialAxes;
  const size_t n = spatial.size();
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  MLC_ASSIGN_OR_RETURN(layout, ParseImageLayout(a.layout, "layout", "NC" + spatial));
  if (!(*x)->HasKnownShape()) return TensorSInfoUnknownShape((*x)->dtype, static_cast<int>(layout.ndim()));
  MLC_ASSIGN_OR_RETURN(x_dims, PrimalDims(*x, layout, "data"));
  MLC_ASSIGN_OR_RETURN(xs, KnownValues(x_dims, Positions(2, n), "data"));
  if (absl::Status s = CheckWindowAttrs(a.pool_size, a.strides, a.dilation, a.padding); !s.ok()) return s;
  std::vector<tir::PrimExpr> dims = (*x)->Dims();
  for (size_t d = 0; d < n; ++d) {
    int64_t extent = WindowExtent(xs[2 + d], a.padding[d], a.padding[d + n], a.pool_size[d], a.dilation[d],
                                  a.strides[d], a.ceil_mode);
    if (extent <= 0) return absl::InvalidArgumentError("the window is larger than the padded input");
    dims[layout.PositionOf(spatial[d])] = tir::I64(extent);
  }
  return TensorSInfoOfDims(dims, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferAdaptiveAvgPool2d(const CallNode& call, const AdaptivePool2DAttrs& a) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if (a.output_size[0] != 1 || a.output_size[1] != 1) {
    return absl::UnimplementedError("only output_size (1, 1) (global pooling) is supported");
  }
  MLC_ASSIGN_OR_RETURN(layout, ParseImageLayout(a.layout, "layout", "NCHW"));
  if (!(*x)->HasKnownShape() || (*x)->ndim != static_cast<int64_t>(layout.ndim())) {
    return absl::InvalidArgumentError(absl::StrCat("expects data in layout ", layout.name()));
  }
  std::vector<tir::PrimExpr> dims = (*x)->Dims();
  dims[layout.PositionOf('H')] = tir::I64(1);
  dims[layout.PositionOf('W')] = tir::I64(1);
  return TensorSInfoOfDims(dims, (*x)->dtype);
}

absl::StatusOr<topi::PadMode> ParsePadMode(const std::string& mode) {
  if (mode == "constant") return topi::PadMode::kConstant;
  if (mode == "edge") return topi::PadMode::kEdge;
  if (mode == "reflect") return topi::PadMode::kReflect;
  return absl::InvalidArgumentError(absl::StrCat("unknown pad_mode '", mode, "' (constant, edge or reflect)"));
}

absl::StatusOr<StructInfo> InferPad(const CallNode& call, const PadAttrs& a) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if (!(*x)->HasKnownShape()) return absl::InvalidArgumentError("pad needs an input of known shape");
  std::vector<tir::PrimExpr> dims = (*x)->Dims();
  if (a.pad_width.size() != 2 * dims.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pad_width needs ", 2 * dims.size(), " ints for ", DimsToString(dims)));
  }
  // Padded dimensions must be static; the others (a batch) may be symbolic.
  std::vector<int> padded;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (a.pad_width[2 * d] < 0 || a.pad_width[2 * d + 1] < 0)
      return absl::UnimplementedError("negative pad widths are not supported");
    if (a.pad_width[2 * d] != 0 || a.pad_width[2 * d + 1] != 0) padded.push_back(static_cast<int>(d));
  }
  absl::StatusOr<std::vector<int64_t>> known = KnownValues(dims, padded, "pad's input");
  if (!known.ok()) return known.status();
  for (int d : padded) dims[d] = tir::I64((*known)[d] + a.pad_width[2 * d] + a.pad_width[2 * d + 1]);
  absl::StatusOr<topi::PadMode> mode = ParsePadMode(a.pad_mode);
  if (!mode.ok()) return mode.status();
  if (*mode == topi::PadMode::kReflect) {
    for (int d : padded) {
      if (a.pad_width[2 * d] >= (*known)[d] || a.pad_width[2 * d + 1] >= (*known)[d]) {
        return absl::InvalidArgumentError(absl::StrCat("reflect pad widths must be below the dimension: dimension ", d,
                                                       " is ", (*known)[d], ", widths ", a.pad_width[2 * d], " and ",
                                                       a.pad_width[2 * d + 1]));
      }
    }
  }
  return TensorSInfoOfDims(dims, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferSoftmax(const CallNode& call, const SoftmaxAttrs& a) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if ((*x)->ndim < 0) return absl::InvalidArgumentError("softmax needs an input of known rank");
  int64_t rank = (*x)->ndim;
  if (a.axis < -rank || a.axis >= rank)
    return absl::InvalidArgumentError(absl::StrCat("axis ", a.axis, " out of range for rank ", rank));
  return call.args[0]->struct_info();
}

absl::StatusOr<StructInfo> InferLayerNorm(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<const TensorStructInfoNode*> gamma = TensorArg(call, 1);
  if (!gamma.ok()) return gamma.status();
  absl::StatusOr<const TensorStructInfoNode*> beta = TensorArg(call, 2);
  if (!beta.ok()) return beta.status();
  if (!(*x)->HasKnownShape() || !(*gamma)->shape || !(*beta)->shape) {
    return absl::InvalidArgumentError("layer_norm needs known shapes (gamma and beta static)");
  }
  // The normalized (trailing) dimensions are gamma's, static; the leading ones may be symbolic.
  std::vector<int> trailing;
  for (size_t d = 0; d < (*gamma)->shape->size(); ++d) trailing.push_back(-1 - static_cast<int>(d));
  MLC_ASSIGN_OR_RETURN(xs, KnownDims(*x, trailing, "data"));
  const std::vector<int64_t>& gs = *(*gamma)->shape;
  if (gs.empty() || gs.size() > xs.size() || gs != *(*beta)->shape ||
      !std::equal(gs.begin(), gs.end(), xs.end() - static_cast<int64_t>(gs.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("gamma ", ShapeToString(gs), " and beta ", ShapeToString(*(*beta)->shape),
                     " must equal the trailing dimensions of ", DimsToString((*x)->Dims())));
  }
  return call.args[0]->struct_info();
}

absl::StatusOr<Tensor> PadRule(const std::vector<Tensor>& t, const PadAttrs& a) {
  std::vector<int64_t> before, after;
  for (size_t i = 0; i + 1 < a.pad_width.size(); i += 2) {
    before.push_back(a.pad_width[i]);
    after.push_back(a.pad_width[i + 1]);
  }
  absl::StatusOr<topi::PadMode> mode = ParsePadMode(a.pad_mode);
  if (!mode.ok()) return mode.status();
  return topi::Pad(t[0], before, after, tir::Const(t[0].dtype(), a.pad_value), *mode);
}

MLC_REGISTER_OP("nn.conv2d")
    .set_inputs({"data", "weight"})
    .set_attrs_type<Conv2DAttrs>()
    .set_description(
        "2-D convolution, NCHW data and OIHW weight, or their channel-blocked layouts (NCHW16c, OIHW16i64o)")
    .set_infer<Conv2DAttrs>(InferConv<Conv2DAttrs>)
    .set_pattern(OpPattern::kOutEWiseFusable)
    .set_legalize(LegalizeTE<Conv2DAttrs>("conv2d", [](const std::vector<Tensor>& t, const Conv2DAttrs& a) {
      return topi::Conv(t[0], t[1], a.strides, a.padding, a.dilation, a.groups, a.data_layout, a.kernel_layout,
                        a.out_layout);
    }));

MLC_REGISTER_OP("nn.conv3d")
    .set_inputs({"data", "weight"})
    .set_attrs_type<Conv3DAttrs>()
    .set_description("3-D convolution, NCDHW data and OIDHW weight")
    .set_infer<Conv3DAttrs>(InferConv<Conv3DAttrs>)
    .set_pattern(OpPattern::kOutEWiseFusable)
    .set_legalize(LegalizeTE<Conv3DAttrs>("conv3d", [](const std::vector<Tensor>& t, const Conv3DAttrs& a) {
      return topi::Conv(t[0], t[1], a.strides, a.padding, a.dilation, a.groups, a.data_layout, a.kernel_layout,
                        a.out_layout);
    }));

MLC_REGISTER_OP("nn.conv2d_gemm")
    .set_inputs({"data", "weight"})
    .set_attrs_type<Conv2DGemmAttrs>()
    .set_description(
        "2-D convolution, NCHW data, weight flattened to [O, C*KH*KW], computed as a GEMM over the windows "
        "(made by conv2d-to-gemm)")
    .set_infer<Conv2DGemmAttrs>(InferConv2dGemm)
    .set_pattern(OpPattern::kOutEWiseFusable)
    .set_legalize(LegalizeTE<Conv2DGemmAttrs>("conv2d_gemm", [](const std::vector<Tensor>& t,
                                                                const Conv2DGemmAttrs& a) {
      return topi::Conv2dGemm(t[0], t[1], a.kernel_size, a.strides, a.padding, a.dilation, a.column_tile);
    }));

/*! \brief Registers nn.max_pool<n>d and nn.avg_pool<n>d for the attributes of n-d windows. */
template <typename Attrs>
bool RegisterPools(int spatial_dims, const std::string& layouts) {
  const std::string suffix = absl::StrCat(spatial_dims, "d");
  for (bool is_max : {true, false}) {
    const std::string kind = is_max ? "max" : "avg";
    ::mlc::relax::OpRegistry::Global()
        .Register(absl::StrCat("nn.", kind, "_pool", suffix))
        .set_inputs({"data"})
        .template set_attrs_type<Attrs>()
        .set_description(absl::StrCat(spatial_dims, "-D ", is_max ? "max" : "average", " pooling, ", layouts))
        .template set_infer<Attrs>(InferPool<Attrs>)
        .set_pattern(OpPattern::kOutEWiseFusable)
        .set_legalize(LegalizeTE<Attrs>(absl::StrCat(kind, "_pool", suffix),
                                        [is_max](const std::vector<Tensor>& t, const Attrs& a) {
                                          return topi::Pool(t[0], is_max, a.pool_size, a.strides, a.padding, a.dilation,
                                                            a.count_include_pad, a.ceil_mode, a.layout);
                                        }));
  }
  return true;
}
const bool kPools2d = RegisterPools<Pool2DAttrs>(2, "NCHW or NCHW<b>c");
const bool kPools3d = RegisterPools<Pool3DAttrs>(3, "NCDHW or NCDHW<b>c");

MLC_REGISTER_OP("nn.adaptive_avg_pool2d")
    .set_inputs({"data"})
    .set_attrs_type<AdaptivePool2DAttrs>()
    .set_description("adaptive average pooling to output_size (global pooling only), NCHW or NCHW<b>c")
    .set_infer<AdaptivePool2DAttrs>(InferAdaptiveAvgPool2d)
    .set_pattern(OpPattern::kOutEWiseFusable)
    .set_legalize(LegalizeTE<AdaptivePool2DAttrs>("adaptive_avg_pool2d",
                                                  [](const std::vector<Tensor>& t, const AdaptivePool2DAttrs& a) {
                                                    return topi::GlobalAvgPool2d(t[0], a.layout);
                                                  }));

MLC_REGISTER_OP("nn.softmax")
    .set_inputs({"data"})
    .set_attrs_type<SoftmaxAttrs>()
    .set_description("exp(x - max) / sum(exp(x - max)) along axis")
    .set_infer<SoftmaxAttrs>(InferSoftmax)
    .set_pattern(OpPattern::kOpaque)  // a reduction and an elementwise pass: its own kernel
    .set_legalize(LegalizeTE<SoftmaxAttrs>("softmax", [](const std::vector<Tensor>& t, const SoftmaxAttrs& a) {
      return topi::Softmax(t[0], a.axis);
    }));

MLC_REGISTER_OP("nn.layer_norm")
    .set_inputs({"data", "gamma", "beta"})
    .set_attrs_type<LayerNormAttrs>()
    .set_description("normalization over the trailing dimensions that gamma and beta have")
    .set_infer(InferLayerNorm)
    .set_pattern(OpPattern::kOpaque)
    .set_legalize(LegalizeTE<LayerNormAttrs>("layer_norm", [](const std::vector<Tensor>& t, const LayerNormAttrs& a) {
      return topi::LayerNorm(t[0], t[1], t[2], t[1].ndim(), a.epsilon);
    }));

MLC_REGISTER_OP("nn.pad")
    .set_inputs({"data"})
    .set_attrs_type<PadAttrs>()
    .set_description("adds elements around every dimension: a constant, copies of the edge, or its mirror image")
    .set_infer<PadAttrs>(InferPad)
    .set_pattern(OpPattern::kInjective)
    .set_legalize(LegalizeTE<PadAttrs>("pad", PadRule));

}  // namespace
}  // namespace relax
}  // namespace mlc
