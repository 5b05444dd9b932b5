/*! \file nn.cc
 *  \brief Neural-network operators: conv2d, max/avg pooling, adaptive average pooling (NCHW),
 *         constant padding, softmax and layer normalization.
 */
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"

namespace mlc {
namespace relax {
namespace {

/*! \brief An int-list attribute of `n` values (a single value is repeated). */
absl::StatusOr<std::vector<int64_t>> IntsAttr(const CallNode& call, const std::string& name, size_t n,
                                              std::vector<int64_t> fallback) {
  auto it = call.attrs.find(name);
  if (it == call.attrs.end() || it->second.is_none()) return fallback;
  if (it->second.is<int64_t>()) return std::vector<int64_t>(n, it->second.get<int64_t>());
  if (!it->second.is<std::vector<int64_t>>()) return absl::InvalidArgumentError(absl::StrCat(name, " must be a list of ints"));
  std::vector<int64_t> v = it->second.get<std::vector<int64_t>>();
  if (v.size() == 1) v.assign(n, v[0]);
  if (v.size() != n) return absl::InvalidArgumentError(absl::StrCat(name, " needs ", n, " values, got ", v.size()));
  return v;
}

absl::StatusOr<StructInfo> InferConv2d(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<const TensorStructInfoNode*> w = TensorArg(call, 1);
  if (!w.ok()) return w.status();
  if (!(*x)->shape || !(*w)->shape) return TensorSInfoUnknownShape((*x)->dtype, 4);
  const std::vector<int64_t>& xs = *(*x)->shape;
  const std::vector<int64_t>& ws = *(*w)->shape;
  if (xs.size() != 4 || ws.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat("expects NCHW data and OIHW weight, got ", ShapeToString(xs), " and ", ShapeToString(ws)));
  }
  auto strides = IntsAttr(call, "strides", 2, {1, 1});
  auto padding = IntsAttr(call, "padding", 4, {0, 0, 0, 0});
  auto dilation = IntsAttr(call, "dilation", 2, {1, 1});
  for (const auto* s : {&strides, &padding, &dilation}) {
    if (!s->ok()) return s->status();
  }
  int64_t groups = GetIntAttr(call.attrs, "groups", 1);
  if (groups < 1 || xs[1] % groups != 0 || ws[0] % groups != 0 || ws[1] * groups != xs[1]) {
    return absl::InvalidArgumentError(absl::StrCat("data ", ShapeToString(xs), " and weight ", ShapeToString(ws),
                                                   " do not agree for groups=", groups));
  }
  int64_t oh = WindowExtent(xs[2], (*padding)[0], (*padding)[2], ws[2], (*dilation)[0], (*strides)[0]);
  int64_t ow = WindowExtent(xs[3], (*padding)[1], (*padding)[3], ws[3], (*dilation)[1], (*strides)[1]);
  if (oh <= 0 || ow <= 0) return absl::InvalidArgumentError("the window is larger than the padded input");
  return TensorSInfo({xs[0], ws[0], oh, ow}, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferPool2d(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if (!(*x)->shape) return TensorSInfoUnknownShape((*x)->dtype, 4);
  const std::vector<int64_t>& xs = *(*x)->shape;
  if (xs.size() != 4) return absl::InvalidArgumentError(absl::StrCat("expects NCHW data, got ", ShapeToString(xs)));
  auto pool = IntsAttr(call, "pool_size", 2, {});
  auto strides = IntsAttr(call, "strides", 2, {1, 1});
  auto padding = IntsAttr(call, "padding", 4, {0, 0, 0, 0});
  auto dilation = IntsAttr(call, "dilation", 2, {1, 1});
  for (const auto* s : {&pool, &strides, &padding, &dilation}) {
    if (!s->ok()) return s->status();
  }
  if (pool->size() != 2) return absl::InvalidArgumentError("pool_size is required");
  bool ceil_mode = GetIntAttr(call.attrs, "ceil_mode", 0) != 0;
  int64_t oh = WindowExtent(xs[2], (*padding)[0], (*padding)[2], (*pool)[0], (*dilation)[0], (*strides)[0], ceil_mode);
  int64_t ow = WindowExtent(xs[3], (*padding)[1], (*padding)[3], (*pool)[1], (*dilation)[1], (*strides)[1], ceil_mode);
  if (oh <= 0 || ow <= 0) return absl::InvalidArgumentError("the window is larger than the padded input");
  return TensorSInfo({xs[0], xs[1], oh, ow}, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferAdaptiveAvgPool2d(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  auto out = IntsAttr(call, "output_size", 2, {1, 1});
  if (!out.ok()) return out.status();
  if ((*out)[0] != 1 || (*out)[1] != 1) return absl::UnimplementedError("only output_size (1, 1) (global pooling) is supported");
  if (!(*x)->shape || (*x)->shape->size() != 4) return absl::InvalidArgumentError("expects NCHW data");
  return TensorSInfo({(*(*x)->shape)[0], (*(*x)->shape)[1], 1, 1}, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferPad(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if (!(*x)->shape) return absl::InvalidArgumentError("pad needs a static input shape");
  std::vector<int64_t> shape = *(*x)->shape;
  auto it = call.attrs.find("pad_width");
  if (it == call.attrs.end() || !it->second.is<std::vector<int64_t>>() ||
      it->second.get<std::vector<int64_t>>().size() != 2 * shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("pad_width needs ", 2 * shape.size(), " ints for ", ShapeToString(shape)));
  }
  const std::vector<int64_t>& width = it->second.get<std::vector<int64_t>>();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (width[2 * d] < 0 || width[2 * d + 1] < 0) return absl::UnimplementedError("negative pad widths are not supported");
    shape[d] += width[2 * d] + width[2 * d + 1];
  }
  auto mode = call.attrs.find("pad_mode");
  if (mode != call.attrs.end() && mode->second.is<std::string>() && mode->second.get<std::string>() != "constant") {
    return absl::UnimplementedError(absl::StrCat("pad_mode '", mode->second.get<std::string>(), "' is not supported (only constant)"));
  }
  return TensorSInfo(shape, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferSoftmax(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  if (!(*x)->shape) return absl::InvalidArgumentError("softmax needs a static input shape");
  int64_t rank = static_cast<int64_t>((*x)->shape->size()), axis = GetIntAttr(call.attrs, "axis", -1);
  if (axis < -rank || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("axis ", axis, " out of range for rank ", rank));
  return TensorSInfo(*(*x)->shape, (*x)->dtype);
}

absl::StatusOr<StructInfo> InferLayerNorm(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<const TensorStructInfoNode*> gamma = TensorArg(call, 1);
  if (!gamma.ok()) return gamma.status();
  absl::StatusOr<const TensorStructInfoNode*> beta = TensorArg(call, 2);
  if (!beta.ok()) return beta.status();
  if (!(*x)->shape || !(*gamma)->shape || !(*beta)->shape) return absl::InvalidArgumentError("layer_norm needs static shapes");
  const std::vector<int64_t>& xs = *(*x)->shape;
  const std::vector<int64_t>& gs = *(*gamma)->shape;
  if (gs.empty() || gs.size() > xs.size() || gs != *(*beta)->shape ||
      !std::equal(gs.begin(), gs.end(), xs.end() - static_cast<int64_t>(gs.size()))) {
    return absl::InvalidArgumentError(absl::StrCat("gamma ", ShapeToString(gs), " and beta ", ShapeToString(*(*beta)->shape),
                                                   " must equal the trailing dimensions of ", ShapeToString(xs)));
  }
  return TensorSInfo(xs, (*x)->dtype);
}

}  // namespace

void RegisterNNOps(OpRegistry& registry) {
  {
    OpInfo& op = registry.Register("nn.conv2d");
    op.num_inputs = 2;
    op.arg_names = {"data", "weight"};
    op.attrs = {{"strides", "int[]", "(stride_h, stride_w)", std::vector<int64_t>{1, 1}},
                {"padding", "int[]", "(top, left, bottom, right)", std::vector<int64_t>{0, 0, 0, 0}},
                {"dilation", "int[]", "(dilation_h, dilation_w)", std::vector<int64_t>{1, 1}},
                {"groups", "int", "channel groups (depthwise: groups = channels)", int64_t{1}}};
    op.description = "2-D convolution, NCHW data, OIHW weight";
    op.infer = InferConv2d;
    op.pattern = OpPattern::kOutEWiseFusable;
  }
  for (const char* name : {"nn.max_pool2d", "nn.avg_pool2d"}) {
    OpInfo& op = registry.Register(name);
    op.num_inputs = 1;
    op.arg_names = {"data"};
    op.attrs = {{"pool_size", "int[]", "(window_h, window_w)"},
                {"strides", "int[]", "(stride_h, stride_w)", std::vector<int64_t>{1, 1}},
                {"padding", "int[]", "(top, left, bottom, right)", std::vector<int64_t>{0, 0, 0, 0}},
                {"dilation", "int[]", "(dilation_h, dilation_w)", std::vector<int64_t>{1, 1}},
                {"ceil_mode", "bool", "round the output size up (the last window starts inside the input or its padding)", false},
                {"count_include_pad", "bool", "avg: divide by the full window, padding included", true}};
    op.description = std::string(name) == "nn.max_pool2d" ? "2-D max pooling, NCHW" : "2-D average pooling, NCHW";
    op.infer = InferPool2d;
    op.pattern = OpPattern::kOutEWiseFusable;
  }
  {
    OpInfo& op = registry.Register("nn.adaptive_avg_pool2d");
    op.num_inputs = 1;
    op.arg_names = {"data"};
    op.attrs = {{"output_size", "int[]", "(1, 1): global average pooling", std::vector<int64_t>{1, 1}}};
    op.description = "adaptive average pooling to output_size (global pooling only), NCHW";
    op.infer = InferAdaptiveAvgPool2d;
    op.pattern = OpPattern::kOutEWiseFusable;
  }
  {
    OpInfo& op = registry.Register("nn.softmax");
    op.num_inputs = 1;
    op.arg_names = {"data"};
    op.attrs = {{"axis", "int", "the normalized axis", int64_t{-1}}};
    op.description = "exp(x - max) / sum(exp(x - max)) along axis";
    op.infer = InferSoftmax;
    op.pattern = OpPattern::kOpaque;  // a reduction and an elementwise pass: its own kernel
  }
  {
    OpInfo& op = registry.Register("nn.layer_norm");
    op.num_inputs = 3;
    op.arg_names = {"data", "gamma", "beta"};
    op.attrs = {{"epsilon", "float", "added to the variance", 1e-5}};
    op.description = "normalization over the trailing dimensions that gamma and beta have";
    op.infer = InferLayerNorm;
    op.pattern = OpPattern::kOpaque;
  }
  {
    OpInfo& op = registry.Register("nn.pad");
    op.num_inputs = 1;
    op.arg_names = {"data"};
    op.attrs = {{"pad_width", "int[]", "(before_0, after_0, before_1, after_1, ...)"},
                {"pad_value", "float", "the value of the added elements", 0.0},
                {"pad_mode", "str", "only \"constant\"", std::string("constant")}};
    op.description = "adds constant elements around every dimension";
    op.infer = InferPad;
    op.pattern = OpPattern::kInjective;
  }
}

}  // namespace relax
}  // namespace mlc
