/*! \file fx_transformer_converters.cc
 *  \brief FX converters of what attention blocks use: softmax, layer norm, reductions,
 *         transpose / permute, and nn.MultiheadAttention as a whole module.
 */
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "frontend/torch/fx_converter_util.h"
#include "ir/graph/shape_util.h"
#include "ir/ops/op_attrs.h"
#include "ir/tir/prim_expr_ops.h"
#include "support/checked_math.h"

namespace mlc {
namespace fx {
namespace {

/*! \brief F.softmax / torch.softmax / x.softmax(dim) / nn.Softmax(dim). */
absl::StatusOr<relax::Expr> ConvertSoftmax(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  int64_t axis = node.op() == "call_module" ? SaturatingInt64(FloatOf(node, "dim", -1)) : IntArg(node, 1, "dim", -1);
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
      absl::StatusOr<relax::Expr> p = ctx.Arg(node, i, i == 2 ? "weight" : "bias");
      if (!p.ok()) return p.status();
      (i == 2 ? gamma : beta) = *p;
    }
  }
  if (shape.empty()) return absl::InvalidArgumentError("normalized_shape is missing");
  DataType dtype = DtypeOf(*x);
  // The default weight and bias are made here: check what they are made from first.
  if (dtype != DataType::Float32()) return absl::UnimplementedError("layer norm is supported for float32");
  // The normalized dimensions are static; those before them (batch, sequence) may be symbolic.
  const auto* xs = x->as<relax::ExprNode>()->struct_info().as<relax::TensorStructInfoNode>();
  std::vector<tir::PrimExpr> dims = xs ? xs->Dims() : std::vector<tir::PrimExpr>{};
  bool trailing = dims.size() >= shape.size();
  for (size_t i = 0; trailing && i < shape.size(); ++i) {
    const int64_t* d = tir::AsConstInt(dims[dims.size() - shape.size() + i]);
    trailing = d != nullptr && *d == shape[i];
  }
  if (!trailing) {
    return absl::InvalidArgumentError(
        absl::StrCat("normalized_shape ", relax::ShapeToString(shape), " is not the trailing shape of the input"));
  }
  for (relax::Expr* e : {&gamma, &beta}) {
    if (e->defined()) continue;
    TensorData t(dtype, shape);
    for (int64_t i = 0; i < t.NumElements(); ++i) static_cast<float*>(t.mutable_data())[i] = e == &gamma ? 1.0f : 0.0f;
    *e = relax::MakeConstant(t);
  }
  return ctx.EmitOp("nn.layer_norm", {*x, gamma, beta}, {{"epsilon", eps}});
}

/*! \brief x.mean(dim, keepdim) / torch.sum(x, dim, keepdim) and friends. */
absl::StatusOr<relax::Expr> ConvertReduce(FxContext& ctx, const proto::FxNode& node, const std::string& op) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  std::vector<int64_t> axes = IntListArg(node, 1, "dim");
  bool keepdims = BoolArg(node, 2, "keepdim", false);
  return ctx.EmitOp(op, {*x}, relax::ToAttrs(relax::ReduceAttrs{axes, keepdims}));
}

/*! \brief x.transpose(d0, d1) / torch.transpose, x.permute(dims...) / torch.permute and x.t(). */
absl::StatusOr<relax::Expr> ConvertPermute(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  int64_t rank = RankOf(*x);
  if (rank < 0) return absl::InvalidArgumentError("needs a static input shape");
  std::vector<int64_t> axes;
  const std::string& target = node.target();
  if (target == "t" || target == "torch.t") {  // a matrix transposed; a vector or a scalar as it is
    if (rank > 2)
      return absl::InvalidArgumentError(absl::StrCat("t() takes a tensor of at most 2 dimensions, not ", rank));
    if (rank < 2) return *x;
    axes = {1, 0};
  } else if (target == "transpose" || target == "torch.transpose") {
    axes.resize(rank);
    for (int64_t d = 0; d < rank; ++d) axes[d] = d;
    int64_t a = IntArg(node, 1, "dim0", 0), b = IntArg(node, 2, "dim1", 1);
    if (a < 0) a += rank;
    if (b < 0) b += rank;
    if (a < 0 || a >= rank || b < 0 || b >= rank) return absl::InvalidArgumentError("transpose dims out of range");
    std::swap(axes[a], axes[b]);
  } else {
    axes = IntListArg(node, 1, "dims");
  }
  return ctx.EmitOp("permute_dims", {*x}, {{"axes", axes}});
}

/*! \brief Rows [begin, end) of a constant matrix or vector (in_proj_weight / in_proj_bias thirds). */
relax::Expr Rows(const TensorData& t, int64_t begin, int64_t end) {
  std::vector<int64_t> shape = t.shape();
  int64_t row = t.NumElements() / shape[0] * t.dtype().bytes();
  shape[0] = end - begin;
  return relax::MakeConstant(TensorData(t.dtype(), shape, t.bytes().substr(begin * row, (end - begin) * row)));
}

/*! \brief The scores [batch, heads, L, S] with a MultiheadAttention mask applied: a bool mask
 *  (true: not attended) sets -inf, a float one is added. attn_mask is [L, S] or [batch * heads,
 *  L, S], key_padding_mask [batch, S]. */
absl::StatusOr<relax::Expr> ApplyAttentionMask(FxContext& ctx, relax::Expr scores, const relax::Expr& mask,
                                               std::vector<int64_t> shape, const std::string& name) {
  const auto* t = mask->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->shape) return absl::InvalidArgumentError(absl::StrCat(name, " needs a static shape"));
  absl::StatusOr<relax::Expr> m = ctx.EmitOp("reshape", {mask}, {{"shape", shape}});
  if (!m.ok()) return m.status();
  if (t->dtype == DataType::Bool()) {
    return ctx.EmitOp("where",
                      {*m, FxContext::Scalar(-std::numeric_limits<double>::infinity(), DataType::Float32()), scores});
  }
  if (t->dtype != DataType::Float32())
    return absl::InvalidArgumentError(absl::StrCat(name, " must be bool or float32"));
  return ctx.EmitOp("add", {scores, *m});
}

/*! \brief nn.MultiheadAttention(query, key, value[, attn_mask, key_padding_mask]): per-head
 *  scaled dot-product attention between the input projections and the output projection.
 *  Returns the tuple (output, None); the attention weights are not computed
 *  (need_weights=False). */
absl::StatusOr<relax::Expr> ConvertMultiheadAttention(FxContext& ctx, const proto::FxNode& node) {
  // forward(query, key, value, key_padding_mask, need_weights, attn_mask, ...), by position or keyword.
  auto argument = [&](int index, const std::string& name) -> const proto::FxArg* {
    if (index < node.args_size()) return &node.args(index);
    auto it = node.kwargs().find(name);
    return it == node.kwargs().end() ? nullptr : &it->second;
  };
  relax::Expr masks[2];  // attn_mask, key_padding_mask
  const std::pair<int, const char*> mask_args[2] = {{5, "attn_mask"}, {3, "key_padding_mask"}};
  for (int i = 0; i < 2; ++i) {
    const proto::FxArg* a = argument(mask_args[i].first, mask_args[i].second);
    if (a == nullptr || a->value_case() == proto::FxArg::kNone) continue;
    absl::StatusOr<relax::Expr> v = ctx.Value(*a);
    if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat(mask_args[i].second, ": ", v.status().message()));
    masks[i] = *v;
  }
  const proto::FxArg* need = argument(4, "need_weights");
  if (need == nullptr || need->b()) return absl::UnimplementedError("only need_weights=False is supported");
  const std::string& m = node.target();
  if (!ctx.HasParam(m + ".in_proj_weight"))
    return absl::UnimplementedError("separate q/k/v projection weights are not supported");
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
    return ctx.EmitOp("permute_dims", {x}, {{"axes", axes}});
  };
  auto reshape = [&](relax::Expr x, std::vector<int64_t> shape) {
    return ctx.EmitOp("reshape", {x}, {{"shape", shape}});
  };
  auto binary = [&](const std::string& op, relax::Expr a, relax::Expr c) { return ctx.EmitOp(op, {a, c}); };
  // x @ weight.T + bias, with the transposed weight folded at import.
  auto linear = [&](relax::Expr x, relax::Expr weight, relax::Expr bias) -> absl::StatusOr<relax::Expr> {
    const TensorData& wt = weight.as<relax::ConstantNode>()->data;
    int64_t rows = wt.shape()[0], cols = wt.shape()[1];
    TensorData t(wt.dtype(), {cols, rows});
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j)
        static_cast<float*>(t.mutable_data())[j * rows + i] = wt.data_as<float>()[i * cols + j];
    }
    absl::StatusOr<relax::Expr> y = binary("matmul", x, relax::MakeConstant(t));
    if (!y.ok()) return y;
    return binary("add", *y, bias);
  };

  std::vector<relax::Expr> qkv;
  int64_t batch = 0, seq[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<relax::Expr> x = ctx.Arg(node, i, i == 0 ? "query" : i == 1 ? "key" : "value");
    if (!x.ok()) return x.status();
    const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
    if (t == nullptr || !t->shape || t->shape->size() != 3 || (*t->shape)[2] != embed ||
        t->dtype != DataType::Float32()) {
      return absl::InvalidArgumentError("query, key and value must be float32 (batch, sequence, embed_dim) tensors");
    }
    if (!batch_first) {
      x = permute(*x, {1, 0, 2});
      if (!x.ok()) return x.status();
    }
    batch = (*t->shape)[batch_first ? 0 : 1];
    seq[i] = (*t->shape)[batch_first ? 1 : 0];
    absl::StatusOr<relax::Expr> y =
        linear(*x, Rows(w, i * embed, (i + 1) * embed), Rows(b, i * embed, (i + 1) * embed));
    if (y.ok()) y = reshape(*y, {batch, seq[i], heads, head_dim});
    // q, v: (batch, heads, seq, head_dim); k: (batch, heads, head_dim, seq).
    if (y.ok()) y = permute(*y, i == 1 ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3});
    if (!y.ok()) return y.status();
    qkv.push_back(*y);
  }
  absl::StatusOr<relax::Expr> scores = binary("matmul", qkv[0], qkv[1]);
  if (scores.ok())
    scores = binary("multiply", *scores, FxContext::Scalar(1.0 / std::sqrt(double(head_dim)), DataType::Float32()));
  if (scores.ok() && masks[0].defined()) {
    const int64_t rank = RankOf(masks[0]);
    if (rank != 2 && rank != 3) return absl::InvalidArgumentError("attn_mask must be [L, S] or [batch * heads, L, S]");
    scores = ApplyAttentionMask(
        ctx, *scores, masks[0],
        rank == 2 ? std::vector<int64_t>{seq[0], seq[1]} : std::vector<int64_t>{batch, heads, seq[0], seq[1]},
        "attn_mask");
  }
  if (scores.ok() && masks[1].defined()) {
    scores = ApplyAttentionMask(ctx, *scores, masks[1], {batch, 1, 1, seq[1]}, "key_padding_mask");
  }
  if (scores.ok()) {
    scores = ctx.EmitOp("nn.softmax", {*scores}, {{"axis", int64_t{-1}}});
  }
  absl::StatusOr<relax::Expr> out = scores.ok() ? binary("matmul", *scores, qkv[2]) : scores;
  if (out.ok()) out = permute(*out, {0, 2, 1, 3});
  if (out.ok()) out = reshape(*out, {batch, seq[0], embed});
  if (out.ok()) out = linear(*out, *w_out, *b_out);
  if (out.ok() && !batch_first) out = permute(*out, {1, 0, 2});
  if (!out.ok()) return out;
  return relax::MakeTuple({*out, relax::MakeTuple({})});  // (output, None: no weights)
}

}  // namespace

void RegisterTransformerFxConverters(FxConverterRegistry& r) {
  using K = FxConverterRegistry;
  for (const char* f : {"torch.nn.functional.softmax", "torch.softmax"}) r.Register(K::kFunction, f, ConvertSoftmax);
  r.Register(K::kMethod, "softmax", ConvertSoftmax);
  r.Register(K::kModule, "Softmax", ConvertSoftmax);
  r.Register(K::kModule, "LayerNorm", ConvertLayerNorm);
  r.Register(K::kModule, "MultiheadAttention", ConvertMultiheadAttention);
  r.Register(K::kFunction, "torch.nn.functional.layer_norm", ConvertLayerNorm);
  for (const auto& [name, op] : std::vector<std::pair<const char*, const char*>>{
           {"mean", "mean"}, {"sum", "sum"}, {"amax", "max"}, {"amin", "min"}}) {
    std::string op_name = op;
    FxConverter c = [op_name](FxContext& ctx, const proto::FxNode& n) { return ConvertReduce(ctx, n, op_name); };
    r.Register(K::kMethod, name, c);
    r.Register(K::kFunction, absl::StrCat("torch.", name), c);
  }
  for (const char* m : {"transpose", "permute", "t"}) {
    r.Register(K::kMethod, m, ConvertPermute);
    r.Register(K::kFunction, absl::StrCat("torch.", m), ConvertPermute);
  }
}

}  // namespace fx
}  // namespace mlc
