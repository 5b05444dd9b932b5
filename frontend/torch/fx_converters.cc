/*! \file fx_converters.cc
 *  \brief The core FX converters: high-level operators by default, the operator library's
 *         tensor expressions with `use_te` (the seeds' two ways of importing).
 */
#include <cmath>

#include <tuple>

#include "absl/strings/str_cat.h"
#include "frontend/torch/fx_importer.h"
#include "ir/topi/topi.h"

namespace mlc {
namespace fx {
namespace {

using te::Tensor;

/*! \brief Argument i as a value; a number becomes a scalar constant of `like`'s dtype. */
absl::StatusOr<relax::Expr> Operand(FxContext& ctx, const proto::FxNode& node, int i, DataType like) {
  if (i >= node.args_size()) return absl::InvalidArgumentError(absl::StrCat("missing argument ", i));
  const proto::FxArg& a = node.args(i);
  if (a.value_case() == proto::FxArg::kF) return FxContext::Scalar(a.f(), like);
  if (a.value_case() == proto::FxArg::kI) return FxContext::Scalar(static_cast<double>(a.i()), like);
  return ctx.Value(a);
}

DataType DtypeOf(const relax::Expr& e) {
  const auto* t = e->struct_info().as<relax::TensorStructInfoNode>();
  return t ? t->dtype : DataType::Float32();
}

absl::StatusOr<relax::Expr> EmitTE(FxContext& ctx, const std::string& name, const relax::FTE& f,
                                   const std::vector<relax::Expr>& args) {
  absl::StatusOr<relax::Var> v = ctx.bb().EmitTE(name, f, args);
  if (!v.ok()) return v.status();
  return relax::Expr(*v);
}

using TopiBinary = absl::StatusOr<Tensor> (*)(const Tensor&, const Tensor&);
using TopiUnary = Tensor (*)(const Tensor&);

FxConverter Binary(const std::string& op, const std::string& te_name, TopiBinary topi_fn) {
  return [=](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    // The dtype comes from whichever operand is a tensor.
    DataType dtype = DataType::Float32();
    for (int i = 0; i < 2 && i < node.args_size(); ++i) {
      if (node.args(i).value_case() == proto::FxArg::kNode) {
        absl::StatusOr<relax::Expr> v = ctx.Arg(node, i);
        if (v.ok()) dtype = DtypeOf(*v);
      }
    }
    absl::StatusOr<relax::Expr> a = Operand(ctx, node, 0, dtype);
    if (!a.ok()) return a.status();
    absl::StatusOr<relax::Expr> b = Operand(ctx, node, 1, dtype);
    if (!b.ok()) return b.status();
    if (ctx.options().use_te) {
      return EmitTE(ctx, te_name, [topi_fn](const std::vector<Tensor>& t) { return topi_fn(t[0], t[1]); }, {*a, *b});
    }
    return ctx.EmitOp(op, {*a, *b});
  };
}

FxConverter Unary(const std::string& op, const std::string& te_name, TopiUnary topi_fn) {
  return [=](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
    if (!x.ok()) return x.status();
    if (ctx.options().use_te) {
      return EmitTE(ctx, te_name, [topi_fn](const std::vector<Tensor>& t) -> absl::StatusOr<Tensor> { return topi_fn(t[0]); }, {*x});
    }
    return ctx.EmitOp(op, {*x});
  };
}

/*! \brief torch.nn.Linear: x @ weight.T + bias. High-level: the seeds' permute_dims + matmul +
 *         add; TE: dense + add from the operator library. */
absl::StatusOr<relax::Expr> ConvertLinear(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> w = ctx.Param(node.target() + ".weight");
  if (!w.ok()) return w.status();
  bool has_bias = ctx.HasParam(node.target() + ".bias");
  if (ctx.options().use_te) {
    absl::StatusOr<relax::Expr> y = EmitTE(ctx, "dense", [](const std::vector<Tensor>& t) { return topi::Dense(t[0], t[1]); }, {*x, *w});
    if (!y.ok() || !has_bias) return y;
    absl::StatusOr<relax::Expr> b = ctx.Param(node.target() + ".bias");
    if (!b.ok()) return b.status();
    return EmitTE(ctx, "add", [](const std::vector<Tensor>& t) { return topi::Add(t[0], t[1]); }, {*y, *b});
  }
  absl::StatusOr<relax::Expr> wt = ctx.EmitOp("permute_dims", {*w});
  if (!wt.ok()) return wt;
  absl::StatusOr<relax::Expr> y = ctx.EmitOp("matmul", {*x, *wt});
  if (!y.ok() || !has_bias) return y;
  absl::StatusOr<relax::Expr> b = ctx.Param(node.target() + ".bias");
  if (!b.ok()) return b.status();
  return ctx.EmitOp("add", {*y, *b});
}

/*! \brief flatten / view / reshape: the result shape is the one shape propagation recorded. */
absl::StatusOr<relax::Expr> ConvertReshape(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  if (node.outputs_size() != 1) return absl::InvalidArgumentError("the result shape was not recorded");
  std::vector<int64_t> shape(node.outputs(0).shape().begin(), node.outputs(0).shape().end());
  if (ctx.options().use_te) {
    return EmitTE(ctx, "reshape", [shape](const std::vector<Tensor>& t) { return topi::Reshape(t[0], shape); }, {*x});
  }
  return ctx.EmitOp("reshape", {*x}, {{"shape", shape}});
}

/*! \brief An int or a tuple of ints from module attributes, as `n` values. */
std::vector<int64_t> IntsOf(const proto::FxNode& node, const std::string& name, size_t n, std::vector<int64_t> fallback) {
  auto it = node.module_attrs().find(name);
  if (it == node.module_attrs().end()) return fallback;
  const proto::FxArg& a = it->second;
  if (a.value_case() == proto::FxArg::kI) return std::vector<int64_t>(n, a.i());
  if (a.value_case() != proto::FxArg::kList) return fallback;
  std::vector<int64_t> v;
  for (const proto::FxArg& item : a.list().items()) v.push_back(item.i());
  if (v.size() == 1) v.assign(n, v[0]);
  return v.size() == n ? v : fallback;
}

double FloatOf(const proto::FxNode& node, const std::string& name, double fallback) {
  auto it = node.module_attrs().find(name);
  if (it == node.module_attrs().end()) return fallback;
  if (it->second.value_case() == proto::FxArg::kF) return it->second.f();
  if (it->second.value_case() == proto::FxArg::kI) return static_cast<double>(it->second.i());
  return fallback;
}

/*! \brief A (C,) tensor as (C, 1, 1), to broadcast over NCHW. */
relax::Expr PerChannel(const TensorData& t) {
  return relax::MakeConstant(TensorData(t.dtype(), {t.NumElements(), 1, 1}, t.bytes()));
}

absl::StatusOr<relax::Expr> EmitBinaryOp(FxContext& ctx, const std::string& op, TopiBinary f, relax::Expr a, relax::Expr b) {
  if (ctx.options().use_te) {
    return EmitTE(ctx, op, [f](const std::vector<Tensor>& t) { return f(t[0], t[1]); }, {a, b});
  }
  return ctx.EmitOp(op, {a, b});
}

absl::StatusOr<relax::Expr> ConvertConv2d(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> w = ctx.Param(node.target() + ".weight");
  if (!w.ok()) return w.status();
  auto pad_attr = node.module_attrs().find("padding");
  if (pad_attr != node.module_attrs().end() && pad_attr->second.value_case() == proto::FxArg::kS) {
    return absl::UnimplementedError("string padding ('same'/'valid') is not supported");
  }
  std::vector<int64_t> strides = IntsOf(node, "stride", 2, {1, 1}), pad = IntsOf(node, "padding", 2, {0, 0}),
                       dilation = IntsOf(node, "dilation", 2, {1, 1});
  int64_t groups = IntsOf(node, "groups", 1, {1})[0];
  std::vector<int64_t> padding = {pad[0], pad[1], pad[0], pad[1]};
  absl::StatusOr<relax::Expr> y;
  if (ctx.options().use_te) {
    y = EmitTE(ctx, "conv2d",
               [=](const std::vector<Tensor>& t) { return topi::Conv2d(t[0], t[1], strides, padding, dilation, groups); },
               {*x, *w});
  } else {
    y = ctx.EmitOp("nn.conv2d", {*x, *w},
                   {{"strides", strides}, {"padding", padding}, {"dilation", dilation}, {"groups", groups}});
  }
  if (!y.ok() || !ctx.HasParam(node.target() + ".bias")) return y;
  absl::StatusOr<relax::Expr> b = ctx.Param(node.target() + ".bias");
  if (!b.ok()) return b.status();
  return EmitBinaryOp(ctx, "add", topi::Add, *y, PerChannel(b->as<relax::ConstantNode>()->data));
}

/*! \brief Eval-mode batch norm, folded: x * (w / sqrt(var + eps)) + (b - mean * w / sqrt(var + eps)). */
absl::StatusOr<relax::Expr> ConvertBatchNorm2d(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  std::vector<const TensorData*> p;
  for (const char* name : {".weight", ".bias", ".running_mean", ".running_var"}) {
    absl::StatusOr<relax::Expr> c = ctx.Param(node.target() + name);
    if (!c.ok()) return c.status();
    p.push_back(&c->as<relax::ConstantNode>()->data);
  }
  if (p[0]->dtype() != DataType::Float32()) return absl::UnimplementedError("batch norm is supported for float32");
  double eps = FloatOf(node, "eps", 1e-5);
  int64_t c = p[0]->NumElements();
  TensorData scale(DataType::Float32(), {c, 1, 1}), shift(DataType::Float32(), {c, 1, 1});
  for (int64_t i = 0; i < c; ++i) {
    double s = p[0]->data_as<float>()[i] / std::sqrt(static_cast<double>(p[3]->data_as<float>()[i]) + eps);
    static_cast<float*>(scale.mutable_data())[i] = static_cast<float>(s);
    static_cast<float*>(shift.mutable_data())[i] = static_cast<float>(p[1]->data_as<float>()[i] - p[2]->data_as<float>()[i] * s);
  }
  absl::StatusOr<relax::Expr> y = EmitBinaryOp(ctx, "multiply", topi::Multiply, *x, relax::MakeConstant(scale));
  if (!y.ok()) return y;
  return EmitBinaryOp(ctx, "add", topi::Add, *y, relax::MakeConstant(shift));
}

absl::StatusOr<relax::Expr> ConvertPool(FxContext& ctx, const proto::FxNode& node, bool is_max) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  std::vector<int64_t> kernel = IntsOf(node, "kernel_size", 2, {1, 1});
  std::vector<int64_t> strides = IntsOf(node, "stride", 2, kernel), pad = IntsOf(node, "padding", 2, {0, 0}),
                       dilation = IntsOf(node, "dilation", 2, {1, 1});
  std::vector<int64_t> padding = {pad[0], pad[1], pad[0], pad[1]};
  auto ceil = node.module_attrs().find("ceil_mode");
  if (ceil != node.module_attrs().end() && ceil->second.b()) return absl::UnimplementedError("ceil_mode=True is not supported");
  bool include_pad = true;
  auto cip = node.module_attrs().find("count_include_pad");
  if (cip != node.module_attrs().end()) include_pad = cip->second.b();
  if (ctx.options().use_te) {
    return EmitTE(ctx, is_max ? "max_pool2d" : "avg_pool2d",
                  [=](const std::vector<Tensor>& t) { return topi::Pool2d(t[0], is_max, kernel, strides, padding, dilation, include_pad); },
                  {*x});
  }
  return ctx.EmitOp(is_max ? "nn.max_pool2d" : "nn.avg_pool2d", {*x},
                    {{"pool_size", kernel}, {"strides", strides}, {"padding", padding}, {"dilation", dilation},
                     {"count_include_pad", include_pad}});
}

absl::StatusOr<relax::Expr> ConvertGlobalPool(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  if (node.outputs_size() != 1 || node.outputs(0).shape_size() != 4 || node.outputs(0).shape(2) != 1 ||
      node.outputs(0).shape(3) != 1) {
    return absl::UnimplementedError("only output_size (1, 1) adaptive pooling is supported");
  }
  if (ctx.options().use_te) {
    return EmitTE(ctx, "adaptive_avg_pool2d", [](const std::vector<Tensor>& t) { return topi::GlobalAvgPool2d(t[0]); }, {*x});
  }
  return ctx.EmitOp("nn.adaptive_avg_pool2d", {*x});
}

/*! \brief Numeric argument `index` (positional) or `name` (keyword) of a call, else `fallback`. */
double NumberArg(const proto::FxNode& node, int index, const std::string& name, double fallback) {
  auto number = [](const proto::FxArg& a) { return a.value_case() == proto::FxArg::kF ? a.f() : double(a.i()); };
  if (index < node.args_size()) return number(node.args(index));
  auto it = node.kwargs().find(name);
  return it == node.kwargs().end() ? fallback : number(it->second);
}

/*! \brief min(max(x, lo), hi): ReLU6 and Hardtanh modules (their min_val/max_val), F.hardtanh and F.relu6. */
absl::StatusOr<relax::Expr> ConvertClamp(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  double lo = 0.0, hi = 6.0;
  if (node.op() == "call_module") {
    lo = FloatOf(node, "min_val", -1.0);
    hi = FloatOf(node, "max_val", 1.0);
  } else if (node.target() == "torch.nn.functional.hardtanh") {
    lo = NumberArg(node, 1, "min_val", -1.0);
    hi = NumberArg(node, 2, "max_val", 1.0);
  }
  DataType dtype = DtypeOf(*x);
  absl::StatusOr<relax::Expr> y = EmitBinaryOp(ctx, "maximum", topi::Maximum, *x, FxContext::Scalar(lo, dtype));
  if (!y.ok()) return y;
  return EmitBinaryOp(ctx, "minimum", topi::Minimum, *y, FxContext::Scalar(hi, dtype));
}

/*! \brief F.pad(x, pad, mode="constant", value=0): `pad` lists (before, after) pairs from the last dimension. */
absl::StatusOr<relax::Expr> ConvertPad(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const proto::FxArg* pad = node.args_size() > 1 ? &node.args(1) : nullptr;
  if (pad == nullptr && node.kwargs().count("pad")) pad = &node.kwargs().at("pad");
  if (pad == nullptr || pad->value_case() != proto::FxArg::kList) return absl::InvalidArgumentError("pad needs a list of ints");
  const proto::FxArg* mode = node.args_size() > 2 ? &node.args(2) : nullptr;
  if (mode == nullptr && node.kwargs().count("mode")) mode = &node.kwargs().at("mode");
  if (mode != nullptr && mode->value_case() == proto::FxArg::kS && mode->s() != "constant") {
    return absl::UnimplementedError(absl::StrCat("mode '", mode->s(), "' is not supported (only constant)"));
  }
  const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->shape) return absl::InvalidArgumentError("pad needs a static input shape");
  size_t rank = t->shape->size();
  if (pad->list().items_size() % 2 != 0 || static_cast<size_t>(pad->list().items_size()) > 2 * rank) {
    return absl::InvalidArgumentError(absl::StrCat("pad has ", pad->list().items_size(), " values for a rank-", rank, " input"));
  }
  std::vector<int64_t> before(rank, 0), after(rank, 0);
  for (int i = 0; i + 1 < pad->list().items_size(); i += 2) {
    before[rank - 1 - i / 2] = pad->list().items(i).i();
    after[rank - 1 - i / 2] = pad->list().items(i + 1).i();
  }
  double value = NumberArg(node, 3, "value", 0.0);
  if (ctx.options().use_te) {
    return EmitTE(ctx, "pad", [=](const std::vector<Tensor>& a) { return topi::Pad(a[0], before, after, tir::Const(a[0].dtype(), value)); },
                  {*x});
  }
  std::vector<int64_t> width;
  for (size_t d = 0; d < rank; ++d) {
    width.push_back(before[d]);
    width.push_back(after[d]);
  }
  return ctx.EmitOp("nn.pad", {*x}, {{"pad_width", width}, {"pad_value", value}});
}

// ---- What attention blocks use: softmax, layer norm, reductions, transpose / permute.

/*! \brief An int list argument (positional `index` or keyword `name`), or the remaining
 *  positional ints from `index` on (x.permute(0, 2, 1)). */
std::vector<int64_t> IntListArg(const proto::FxNode& node, int index, const std::string& name) {
  const proto::FxArg* a = index < node.args_size() ? &node.args(index) : nullptr;
  if (a == nullptr) {
    auto it = node.kwargs().find(name);
    if (it == node.kwargs().end()) return {};
    a = &it->second;
  }
  std::vector<int64_t> v;
  if (a->value_case() == proto::FxArg::kList) {
    for (const proto::FxArg& item : a->list().items()) v.push_back(item.i());
  } else if (a->value_case() == proto::FxArg::kI) {
    for (int i = index; i < node.args_size() && node.args(i).value_case() == proto::FxArg::kI; ++i) v.push_back(node.args(i).i());
    if (index >= node.args_size()) v.push_back(a->i());
  }
  return v;
}

bool BoolArg(const proto::FxNode& node, int index, const std::string& name, bool fallback) {
  if (index < node.args_size()) return node.args(index).b();
  auto it = node.kwargs().find(name);
  return it == node.kwargs().end() ? fallback : it->second.b();
}

int64_t RankOf(const relax::Expr& e) {
  const auto* t = e->struct_info().as<relax::TensorStructInfoNode>();
  return t && t->shape ? static_cast<int64_t>(t->shape->size()) : -1;
}

/*! \brief F.softmax / torch.softmax / x.softmax(dim) / nn.Softmax(dim). */
absl::StatusOr<relax::Expr> ConvertSoftmax(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  int64_t axis = node.op() == "call_module" ? static_cast<int64_t>(FloatOf(node, "dim", -1))
                                            : static_cast<int64_t>(NumberArg(node, 1, "dim", -1));
  if (ctx.options().use_te) {
    return EmitTE(ctx, "softmax", [axis](const std::vector<Tensor>& t) { return topi::Softmax(t[0], axis); }, {*x});
  }
  return ctx.EmitOp("nn.softmax", {*x}, {{"axis", axis}});
}

/*! \brief nn.LayerNorm (weight and bias parameters, or ones and zeros without elementwise_affine)
 *  and F.layer_norm(x, normalized_shape, weight, bias, eps). */
absl::StatusOr<relax::Expr> ConvertLayerNorm(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  std::vector<int64_t> shape;
  relax::Expr gamma, beta;
  double eps = 1e-5;
  if (node.op() == "call_module") {
    auto it = node.module_attrs().find("normalized_shape");
    if (it != node.module_attrs().end()) {
      for (const proto::FxArg& item : it->second.list().items()) shape.push_back(item.i());
    }
    eps = FloatOf(node, "eps", 1e-5);
    for (const char* name : {".weight", ".bias"}) {
      if (!ctx.HasParam(node.target() + name)) continue;
      absl::StatusOr<relax::Expr> p = ctx.Param(node.target() + name);
      if (!p.ok()) return p.status();
      (std::string(name) == ".weight" ? gamma : beta) = *p;
    }
  } else {
    shape = IntListArg(node, 1, "normalized_shape");
    eps = NumberArg(node, 4, "eps", 1e-5);
    for (int i : {2, 3}) {
      bool present = i < node.args_size() ? node.args(i).value_case() == proto::FxArg::kNode
                                          : node.kwargs().count(i == 2 ? "weight" : "bias") > 0;
      if (!present) continue;
      absl::StatusOr<relax::Expr> p = ctx.Arg(node, i);
      if (!p.ok()) return p.status();
      (i == 2 ? gamma : beta) = *p;
    }
  }
  if (shape.empty()) return absl::InvalidArgumentError("normalized_shape is missing");
  DataType dtype = DtypeOf(*x);
  for (relax::Expr* e : {&gamma, &beta}) {
    if (e->defined()) continue;
    TensorData t(dtype, shape);
    for (int64_t i = 0; i < t.NumElements(); ++i) static_cast<float*>(t.mutable_data())[i] = e == &gamma ? 1.0f : 0.0f;
    *e = relax::MakeConstant(t);
  }
  if (ctx.options().use_te) {
    int64_t n = static_cast<int64_t>(shape.size());
    return EmitTE(ctx, "layer_norm", [n, eps](const std::vector<Tensor>& t) { return topi::LayerNorm(t[0], t[1], t[2], n, eps); },
                  {*x, gamma, beta});
  }
  return ctx.EmitOp("nn.layer_norm", {*x, gamma, beta}, {{"epsilon", eps}});
}

/*! \brief x.mean(dim, keepdim) / torch.sum(x, dim, keepdim) and friends. */
absl::StatusOr<relax::Expr> ConvertReduce(FxContext& ctx, const proto::FxNode& node, const std::string& op, topi::ReduceOp kind) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  std::vector<int64_t> axes = IntListArg(node, 1, "dim");
  bool keepdims = BoolArg(node, 2, "keepdim", false);
  if (ctx.options().use_te) {
    return EmitTE(ctx, op, [=](const std::vector<Tensor>& t) { return topi::Reduce(t[0], kind, axes, keepdims); }, {*x});
  }
  Attrs attrs = {{"keepdims", keepdims}};
  if (!axes.empty()) attrs["axis"] = axes;
  return ctx.EmitOp(op, {*x}, attrs);
}

/*! \brief x.transpose(d0, d1) / torch.transpose and x.permute(dims...) / torch.permute. */
absl::StatusOr<relax::Expr> ConvertPermute(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  int64_t rank = RankOf(*x);
  if (rank < 0) return absl::InvalidArgumentError("needs a static input shape");
  std::vector<int64_t> axes;
  const std::string& target = node.target();
  if (target == "transpose" || target == "torch.transpose") {
    axes.resize(rank);
    for (int64_t d = 0; d < rank; ++d) axes[d] = d;
    int64_t a = static_cast<int64_t>(NumberArg(node, 1, "dim0", 0)), b = static_cast<int64_t>(NumberArg(node, 2, "dim1", 1));
    if (a < 0) a += rank;
    if (b < 0) b += rank;
    if (a < 0 || a >= rank || b < 0 || b >= rank) return absl::InvalidArgumentError("transpose dims out of range");
    std::swap(axes[a], axes[b]);
  } else {
    axes = IntListArg(node, 1, "dims");
  }
  if (ctx.options().use_te) {
    return EmitTE(ctx, "transpose", [axes](const std::vector<Tensor>& t) { return topi::Transpose(t[0], axes); }, {*x});
  }
  return ctx.EmitOp("permute_dims", {*x}, {{"axes", axes}});
}

/*! \brief Emits op(args) as a high-level operator, or with --te as the operator library's compute. */
absl::StatusOr<relax::Expr> Emit(FxContext& ctx, const std::string& op, std::vector<relax::Expr> args, Attrs attrs,
                                 const relax::FTE& te) {
  if (ctx.options().use_te) return EmitTE(ctx, op.substr(op.rfind('.') + 1), te, args);
  return ctx.EmitOp(op, std::move(args), std::move(attrs));
}

/*! \brief Rows [begin, end) of a constant matrix or vector (in_proj_weight / in_proj_bias thirds). */
relax::Expr Rows(const TensorData& t, int64_t begin, int64_t end) {
  std::vector<int64_t> shape = t.shape();
  int64_t row = t.NumElements() / shape[0] * t.dtype().bytes();
  shape[0] = end - begin;
  return relax::MakeConstant(TensorData(t.dtype(), shape, t.bytes().substr(begin * row, (end - begin) * row)));
}

/*! \brief nn.MultiheadAttention(query, key, value) without masks: per-head scaled dot-product
 *  attention between the input projections and the output projection. Returns the tuple
 *  (output,); the attention weights are not computed (need_weights=False). */
absl::StatusOr<relax::Expr> ConvertMultiheadAttention(FxContext& ctx, const proto::FxNode& node) {
  for (const char* mask : {"attn_mask", "key_padding_mask"}) {
    auto it = node.kwargs().find(mask);
    if (it != node.kwargs().end() && it->second.value_case() != proto::FxArg::kNone) {
      return absl::UnimplementedError(absl::StrCat(mask, " is not supported"));
    }
  }
  auto need = node.kwargs().find("need_weights");
  if (need == node.kwargs().end() || need->second.b()) return absl::UnimplementedError("only need_weights=False is supported");
  const std::string& m = node.target();
  if (!ctx.HasParam(m + ".in_proj_weight")) return absl::UnimplementedError("separate q/k/v projection weights are not supported");
  int64_t heads = IntsOf(node, "num_heads", 1, {1})[0], embed = IntsOf(node, "embed_dim", 1, {0})[0];
  bool batch_first = node.module_attrs().count("batch_first") && node.module_attrs().at("batch_first").b();
  if (embed <= 0 || embed % heads != 0) return absl::InvalidArgumentError("embed_dim must be a multiple of num_heads");
  int64_t head_dim = embed / heads;
  absl::StatusOr<relax::Expr> w_in = ctx.Param(m + ".in_proj_weight"), b_in = ctx.Param(m + ".in_proj_bias"),
                              w_out = ctx.Param(m + ".out_proj.weight"), b_out = ctx.Param(m + ".out_proj.bias");
  for (const auto* p : {&w_in, &b_in, &w_out, &b_out}) {
    if (!p->ok()) return p->status();
  }
  const TensorData& w = w_in->as<relax::ConstantNode>()->data;
  const TensorData& b = b_in->as<relax::ConstantNode>()->data;

  auto permute = [&](relax::Expr x, std::vector<int64_t> axes) {
    return Emit(ctx, "permute_dims", {x}, {{"axes", axes}},
                [axes](const std::vector<Tensor>& t) { return topi::Transpose(t[0], axes); });
  };
  auto reshape = [&](relax::Expr x, std::vector<int64_t> shape) {
    return Emit(ctx, "reshape", {x}, {{"shape", shape}}, [shape](const std::vector<Tensor>& t) { return topi::Reshape(t[0], shape); });
  };
  auto binary = [&](const std::string& op, TopiBinary f, relax::Expr a, relax::Expr c) { return EmitBinaryOp(ctx, op, f, a, c); };
  // x @ weight.T + bias, with the transposed weight folded at import.
  auto linear = [&](relax::Expr x, relax::Expr weight, relax::Expr bias) -> absl::StatusOr<relax::Expr> {
    const TensorData& wt = weight.as<relax::ConstantNode>()->data;
    int64_t rows = wt.shape()[0], cols = wt.shape()[1];
    TensorData t(wt.dtype(), {cols, rows});
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) static_cast<float*>(t.mutable_data())[j * rows + i] = wt.data_as<float>()[i * cols + j];
    }
    absl::StatusOr<relax::Expr> y = binary("matmul", topi::Matmul, x, relax::MakeConstant(t));
    if (!y.ok()) return y;
    return binary("add", topi::Add, *y, bias);
  };

  std::vector<relax::Expr> qkv;
  int64_t batch = 0, seq[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<relax::Expr> x = ctx.Arg(node, i);
    if (!x.ok()) return x.status();
    const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
    if (t == nullptr || !t->shape || t->shape->size() != 3 || (*t->shape)[2] != embed || t->dtype != DataType::Float32()) {
      return absl::InvalidArgumentError("query, key and value must be float32 (batch, sequence, embed_dim) tensors");
    }
    if (!batch_first) {
      x = permute(*x, {1, 0, 2});
      if (!x.ok()) return x.status();
    }
    batch = (*t->shape)[batch_first ? 0 : 1];
    seq[i] = (*t->shape)[batch_first ? 1 : 0];
    absl::StatusOr<relax::Expr> y = linear(*x, Rows(w, i * embed, (i + 1) * embed), Rows(b, i * embed, (i + 1) * embed));
    if (y.ok()) y = reshape(*y, {batch, seq[i], heads, head_dim});
    // q, v: (batch, heads, seq, head_dim); k: (batch, heads, head_dim, seq).
    if (y.ok()) y = permute(*y, i == 1 ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3});
    if (!y.ok()) return y.status();
    qkv.push_back(*y);
  }
  absl::StatusOr<relax::Expr> scores = binary("matmul", topi::Matmul, qkv[0], qkv[1]);
  if (scores.ok()) scores = binary("multiply", topi::Multiply, *scores, FxContext::Scalar(1.0 / std::sqrt(double(head_dim)), DataType::Float32()));
  if (scores.ok()) {
    scores = Emit(ctx, "nn.softmax", {*scores}, {{"axis", int64_t{-1}}},
                  [](const std::vector<Tensor>& t) { return topi::Softmax(t[0], -1); });
  }
  absl::StatusOr<relax::Expr> out = scores.ok() ? binary("matmul", topi::Matmul, *scores, qkv[2]) : scores;
  if (out.ok()) out = permute(*out, {0, 2, 1, 3});
  if (out.ok()) out = reshape(*out, {batch, seq[0], embed});
  if (out.ok()) out = linear(*out, *w_out, *b_out);
  if (out.ok() && !batch_first) out = permute(*out, {1, 0, 2});
  if (!out.ok()) return out;
  return relax::MakeTuple({*out});
}

/*! \brief operator.getitem on a tuple a converter returned (MultiheadAttention's (output,)). */
absl::StatusOr<relax::Expr> ConvertGetItem(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const auto* tuple = x->as<relax::TupleNode>();
  if (tuple == nullptr || node.args_size() < 2 || node.args(1).value_case() != proto::FxArg::kI) {
    return absl::UnimplementedError("indexing is supported on tuple results only (not tensors or shapes)");
  }
  int64_t i = node.args(1).i();
  if (i < 0 || i >= static_cast<int64_t>(tuple->fields.size())) {
    return absl::UnimplementedError(absl::StrCat("element ", i, " of this tuple is not computed"));
  }
  return tuple->fields[i];
}

}  // namespace

void RegisterCoreFxConverters(FxConverterRegistry& r) {
  using K = FxConverterRegistry;
  struct BinaryEntry {
    const char* op;
    const char* te;
    TopiBinary f;
    std::vector<const char*> targets;
  };
  for (const BinaryEntry& e : {BinaryEntry{"add", "add", topi::Add, {"operator.add", "torch.add"}},
                               BinaryEntry{"subtract", "subtract", topi::Subtract, {"operator.sub", "torch.sub"}},
                               BinaryEntry{"multiply", "multiply", topi::Multiply, {"operator.mul", "torch.mul"}},
                               BinaryEntry{"divide", "divide", topi::Divide, {"operator.truediv", "torch.div"}},
                               BinaryEntry{"matmul", "matmul", topi::Matmul, {"torch.matmul", "operator.matmul"}},
                               BinaryEntry{"maximum", "maximum", topi::Maximum, {"torch.maximum"}},
                               BinaryEntry{"minimum", "minimum", topi::Minimum, {"torch.minimum"}},
                               BinaryEntry{"power", "power", topi::Power, {"torch.pow", "operator.pow"}}}) {
    for (const char* t : e.targets) r.Register(K::kFunction, t, Binary(e.op, e.te, e.f));
  }
  r.Register(K::kMethod, "add", Binary("add", "add", topi::Add));
  r.Register(K::kMethod, "mul", Binary("multiply", "multiply", topi::Multiply));
  r.Register(K::kMethod, "matmul", Binary("matmul", "matmul", topi::Matmul));
  struct UnaryEntry {
    const char* op;
    const char* te;
    TopiUnary f;
    std::vector<const char*> functions;
    const char* module;
    const char* method;
  };
  for (const UnaryEntry& e :
       {UnaryEntry{"nn.relu", "relu", topi::Relu, {"torch.relu", "torch.nn.functional.relu"}, "ReLU", "relu"},
        UnaryEntry{"sigmoid", "sigmoid", topi::Sigmoid, {"torch.sigmoid", "torch.nn.functional.sigmoid"}, "Sigmoid", "sigmoid"},
        UnaryEntry{"tanh", "tanh", topi::Tanh, {"torch.tanh", "torch.nn.functional.tanh"}, "Tanh", "tanh"},
        UnaryEntry{"exp", "exp", topi::Exp, {"torch.exp"}, nullptr, "exp"},
        UnaryEntry{"log", "log", topi::Log, {"torch.log"}, nullptr, "log"},
        UnaryEntry{"sqrt", "sqrt", topi::Sqrt, {"torch.sqrt"}, nullptr, "sqrt"},
        UnaryEntry{"erf", "erf", topi::Erf, {"torch.erf", "torch.special.erf"}, nullptr, "erf"},
        UnaryEntry{"negative", "negative", topi::Negative, {"operator.neg", "torch.neg"}, nullptr, "neg"}}) {
    FxConverter c = Unary(e.op, e.te, e.f);
    for (const char* f : e.functions) r.Register(K::kFunction, f, c);
    if (e.module) r.Register(K::kModule, e.module, c);
    if (e.method) r.Register(K::kMethod, e.method, c);
  }
  r.Register(K::kModule, "Linear", ConvertLinear);
  r.Register(K::kModule, "Flatten", ConvertReshape);
  r.Register(K::kModule, "Conv2d", ConvertConv2d);
  r.Register(K::kModule, "BatchNorm2d", ConvertBatchNorm2d);
  r.Register(K::kModule, "MaxPool2d", [](FxContext& c, const proto::FxNode& n) { return ConvertPool(c, n, true); });
  r.Register(K::kModule, "AvgPool2d", [](FxContext& c, const proto::FxNode& n) { return ConvertPool(c, n, false); });
  r.Register(K::kModule, "AdaptiveAvgPool2d", ConvertGlobalPool);
  r.Register(K::kFunction, "torch.nn.functional.adaptive_avg_pool2d", ConvertGlobalPool);
  r.Register(K::kModule, "ReLU6", ConvertClamp);
  r.Register(K::kModule, "Hardtanh", ConvertClamp);
  r.Register(K::kFunction, "torch.nn.functional.hardtanh", ConvertClamp);
  r.Register(K::kFunction, "torch.nn.functional.relu6", ConvertClamp);
  r.Register(K::kFunction, "torch.nn.functional.pad", ConvertPad);
  for (const char* f : {"torch.nn.functional.softmax", "torch.softmax"}) r.Register(K::kFunction, f, ConvertSoftmax);
  r.Register(K::kMethod, "softmax", ConvertSoftmax);
  r.Register(K::kModule, "Softmax", ConvertSoftmax);
  r.Register(K::kModule, "LayerNorm", ConvertLayerNorm);
  r.Register(K::kModule, "MultiheadAttention", ConvertMultiheadAttention);
  r.Register(K::kFunction, "operator.getitem", ConvertGetItem);
  r.Register(K::kFunction, "torch.nn.functional.layer_norm", ConvertLayerNorm);
  for (const auto& [name, op, kind] : std::vector<std::tuple<const char*, const char*, topi::ReduceOp>>{
           {"mean", "mean", topi::ReduceOp::kMean}, {"sum", "sum", topi::ReduceOp::kSum}, {"amax", "max", topi::ReduceOp::kMax},
           {"amin", "min", topi::ReduceOp::kMin}}) {
    std::string op_name = op;
    topi::ReduceOp k = kind;
    FxConverter c = [op_name, k](FxContext& ctx, const proto::FxNode& n) { return ConvertReduce(ctx, n, op_name, k); };
    r.Register(K::kMethod, name, c);
    r.Register(K::kFunction, absl::StrCat("torch.", name), c);
  }
  for (const char* m : {"transpose", "permute"}) {
    r.Register(K::kMethod, m, ConvertPermute);
    r.Register(K::kFunction, absl::StrCat("torch.", m), ConvertPermute);
  }
  r.Register(K::kFunction, "operator.iadd", Binary("add", "add", topi::Add));
  r.Register(K::kFunction, "torch.flatten", ConvertReshape);
  r.Register(K::kFunction, "torch.reshape", ConvertReshape);
  for (const char* m : {"view", "reshape", "flatten"}) r.Register(K::kMethod, m, ConvertReshape);
  r.Register(K::kModule, "Identity", [](FxContext& ctx, const proto::FxNode& node) { return ctx.Arg(node, 0); });
  r.Register(K::kModule, "Dropout", [](FxContext& ctx, const proto::FxNode& node) { return ctx.Arg(node, 0); });
}

}  // namespace fx
}  // namespace mlc
