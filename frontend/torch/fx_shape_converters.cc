/*! \file fx_shape_converters.cc
 *  \brief FX converters of sizes and of tensors made from sizes: x.shape / x.size(d), arithmetic
 *         on sizes (t + 1, d // 2), torch.arange, torch.ones / zeros / full and x.expand.
 *
 *  A size is a value (AsDim in fx_converter_util.h): an int64 constant when it is static, a
 *  one-value shape when it follows a symbolic input dimension, so a decoder's positions and
 *  causal mask keep the sequence length symbolic instead of the example's.
 */
#include <limits>

#include "absl/strings/str_cat.h"
#include "frontend/torch/fx_converter_util.h"
#include "ir/graph/shape_util.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace fx {

bool AreSizes(FxContext& ctx, const proto::FxNode& node) {
  if (node.args_size() != 2) return false;
  bool any_node = false;
  for (const proto::FxArg& a : node.args()) {
    if (a.value_case() == proto::FxArg::kI) continue;
    if (a.value_case() != proto::FxArg::kNode) return false;
    absl::StatusOr<relax::Expr> v = ctx.Value(a);
    if (!v.ok() || !AsDim(*v).has_value()) return false;
    any_node = true;
  }
  return any_node;
}

absl::StatusOr<relax::Expr> SizeArithmetic(FxContext& ctx, const proto::FxNode& node, const std::string& op) {
  absl::StatusOr<tir::PrimExpr> a = DimArg(ctx, node.args(0));
  if (!a.ok()) return a.status();
  absl::StatusOr<tir::PrimExpr> b = DimArg(ctx, node.args(1));
  if (!b.ok()) return b.status();
  tir::PrimExpr r;
  if (op == "add") {
    r = tir::operator+(*a, *b);
  } else if (op == "subtract") {
    r = tir::operator-(*a, *b);
  } else if (op == "multiply") {
    r = tir::operator*(*a, *b);
  } else if (op == "floor_divide") {
    const int64_t* divisor = tir::AsConstInt(*b);
    if (divisor != nullptr && *divisor == 0) return absl::InvalidArgumentError("division of a size by 0");
    r = tir::FloorDiv(*a, *b);
  } else if (op == "equal" || op == "not_equal" || op == "less" || op == "less_equal" || op == "greater" ||
             op == "greater_equal") {
    // A comparison of sizes (torch._assert(h == self.image_size)): a bool when it is decided.
    const int64_t* x = tir::AsConstInt(*a);
    const int64_t* y = tir::AsConstInt(*b);
    if (x == nullptr || y == nullptr) {
      if (op == "equal" && relax::DimsEqual(*a, *b)) return relax::MakeConstant(ScalarTensor(1, DataType::Bool()));
      return absl::UnimplementedError(absl::StrCat("'", op, "' of sizes that are not both known"));
    }
    const bool v = op == "equal"        ? *x == *y
                   : op == "not_equal"  ? *x != *y
                   : op == "less"       ? *x < *y
                   : op == "less_equal" ? *x <= *y
                   : op == "greater"    ? *x > *y
                                        : *x >= *y;
    return relax::MakeConstant(ScalarTensor(v ? 1 : 0, DataType::Bool()));
  } else {
    return absl::UnimplementedError(absl::StrCat("'", op, "' of two sizes (arithmetic and comparisons are supported)"));
  }
  return DimValue(tir::Analyzer().Simplify(r));
}

namespace {

/*! \brief torch._assert(condition, message): checked when the importer knows the condition (a
 *  comparison of static sizes); a false one is an error carrying the model's message. */
absl::StatusOr<relax::Expr> ConvertAssert(FxContext& ctx, const proto::FxNode& node) {
  if (node.args_size() < 1) return absl::InvalidArgumentError("torch._assert needs a condition");
  const std::string message =
      node.args_size() > 1 && node.args(1).value_case() == proto::FxArg::kS ? node.args(1).s() : "";
  std::optional<bool> holds;
  if (node.args(0).value_case() == proto::FxArg::kB) holds = node.args(0).b();
  if (node.args(0).value_case() == proto::FxArg::kNode) {
    absl::StatusOr<relax::Expr> v = ctx.Value(node.args(0));
    if (!v.ok()) return v.status();
    const auto* c = v->as<relax::ConstantNode>();
    if (c != nullptr && c->data.NumElements() == 1 && c->data.dtype() == DataType::Bool())
      holds = c->data.data_as<bool>()[0];
  }
  if (!holds) return absl::UnimplementedError("torch._assert of a condition known only when the model runs");
  if (!*holds) return absl::InvalidArgumentError(absl::StrCat("the model's assertion fails: ", message));
  return relax::MakeTuple({});
}

/*! \brief x.size(), x.size(d), x.shape (getattr): a shape value, or one size; x.dim(), x.ndim: the rank. */
absl::StatusOr<relax::Expr> ConvertSize(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape()) return absl::InvalidArgumentError("needs a known input shape");
  std::vector<tir::PrimExpr> dims = t->Dims();
  if (node.target() == "dim" || node.target() == "ndimension" ||
      (node.target() == "builtins.getattr" && node.args_size() > 1 && node.args(1).s() == "ndim")) {
    return DimValue(tir::I64(static_cast<int64_t>(dims.size())));  // the rank
  }
  if (node.target() == "builtins.getattr") {
    if (node.args_size() < 2 || node.args(1).s() != "shape") {
      return absl::UnimplementedError(
          absl::StrCat("tensor attribute '", node.args_size() > 1 ? node.args(1).s() : "", "'"));
    }
    return relax::MakeShapeExpr(dims);
  }
  if (node.args_size() < 2 && !node.kwargs().count("dim")) return relax::MakeShapeExpr(dims);
  int64_t d = IntArg(node, 1, "dim", 0), rank = static_cast<int64_t>(dims.size());
  if (d < 0) d += rank;
  if (d < 0 || d >= rank) return absl::InvalidArgumentError(absl::StrCat("dimension ", d, " out of range"));
  return DimValue(dims[d]);
}

/*! \brief A number or a size argument: its value when constant. */
std::optional<double> ConstantNumber(FxContext& ctx, const proto::FxArg& arg) {
  if (arg.value_case() == proto::FxArg::kF) return arg.f();
  absl::StatusOr<tir::PrimExpr> d = DimArg(ctx, arg);
  if (!d.ok()) return std::nullopt;
  const int64_t* v = tir::AsConstInt(*d);
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

/*! \brief torch.arange(end), (start, end) or (start, end, step), each a number or a size: with
 *  sizes among them, the length a shape expression and the sizes read when the function runs
 *  where they are more than the length (SizeRange). */
absl::StatusOr<relax::Expr> ConvertArange(FxContext& ctx, const proto::FxNode& node) {
  const proto::FxArg* start = nullptr;
  const proto::FxArg* end = nullptr;
  const proto::FxArg* step = nullptr;
  if (node.args_size() == 1) {
    end = &node.args(0);
  } else if (node.args_size() >= 2) {
    start = &node.args(0);
    end = &node.args(1);
    if (node.args_size() > 2) step = &node.args(2);
  }
  for (auto [name, slot] : {std::pair{"start", &start}, std::pair{"end", &end}, std::pair{"step", &step}}) {
    if (auto it = node.kwargs().find(name); it != node.kwargs().end()) *slot = &it->second;
  }
  if (end == nullptr) return absl::InvalidArgumentError("torch.arange needs an end");
  bool all_int = true;
  for (const proto::FxArg* a : {start, end, step})
    all_int = all_int && (a == nullptr || a->value_case() != proto::FxArg::kF);
  DataType dtype = all_int ? DataType::Int64() : DataType::Float32();
  if (auto it = node.kwargs().find("dtype");
      it != node.kwargs().end() && it->second.value_case() == proto::FxArg::kDtype) {
    absl::StatusOr<DataType> t = DataType::Parse(it->second.dtype());
    if (!t.ok()) return t.status();
    dtype = *t;
  }
  std::optional<double> first = start ? ConstantNumber(ctx, *start) : 0.0;
  std::optional<double> last = ConstantNumber(ctx, *end);
  std::optional<double> delta = step ? ConstantNumber(ctx, *step) : 1.0;
  if (delta && *delta == 0) return absl::InvalidArgumentError("torch.arange: step must not be 0");
  if (first && last && delta) {
    const int64_t count = relax::ArangeLength(*first, *last, *delta);
    return ctx.EmitOp("arange", {}, {{"start", *first}, {"step", *delta}, {"dtype", dtype}},
                      {relax::TensorSInfoOfDims({tir::I64(count)}, dtype)});
  }
  // Sizes among them (positions 0..seq-1, past..past+seq-1, a stride from a shape): integers all.
  tir::PrimExpr bounds[3] = {tir::I64(0), tir::I64(0), tir::I64(1)};
  const std::pair<const proto::FxArg*, const char*> args[3] = {{start, "start"}, {end, "end"}, {step, "step"}};
  for (int i = 0; i < 3; ++i) {
    if (args[i].first == nullptr) continue;
    absl::StatusOr<tir::PrimExpr> d = DimArg(ctx, *args[i].first);
    if (!d.ok()) {
      return absl::UnimplementedError(
          absl::StrCat("torch.arange: ", args[i].second, " must be an integer or a size when another bound is a size"));
    }
    bounds[i] = *d;
  }
  return ctx.SizeRange(bounds[0], bounds[1], bounds[2], dtype);
}

/*! \brief A tensor of `dims` holding `fill` (a scalar broadcast when it runs: the sizes may be symbolic). */
absl::StatusOr<relax::Expr> Filled(FxContext& ctx, const std::vector<tir::PrimExpr>& dims, double fill,
                                   DataType dtype) {
  for (const tir::PrimExpr& d : dims) {
    if (const int64_t* v = tir::AsConstInt(d); v != nullptr && *v < 0)
      return absl::InvalidArgumentError(absl::StrCat("negative size ", *v));
  }
  return ctx.EmitOp("broadcast_to", {FxContext::Scalar(fill, dtype)}, {}, {relax::TensorSInfoOfDims(dims, dtype)});
}

/*! \brief torch.ones / torch.zeros (*size, dtype=...) and torch.full(size, fill_value, dtype=...). */
FxConverter ConvertFactory(const std::string& name) {
  return [name](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    const bool full = name == "full";
    double fill = name == "ones" ? 1.0 : 0.0;
    std::optional<double> value;
    if (full) {
      const proto::FxArg* v = node.args_size() > 1 ? &node.args(1) : nullptr;
      if (auto it = node.kwargs().find("fill_value"); it != node.kwargs().end()) v = &it->second;
      if (v == nullptr) return absl::InvalidArgumentError("torch.full needs a fill_value");
      if (v->value_case() == proto::FxArg::kB) value = v->b() ? 1.0 : 0.0;
      if (!value) value = ConstantNumber(ctx, *v);
      if (!value) return absl::UnimplementedError("torch.full: fill_value must be a number");
      fill = *value;
    }
    // As torch: a full of a bool or an integer fill holds bools or int64s.
    DataType dtype = DataType::Float32();
    if (full && node.args_size() > 1 && node.args(1).value_case() == proto::FxArg::kB) dtype = DataType::Bool();
    if (full && node.args_size() > 1 && node.args(1).value_case() == proto::FxArg::kI) dtype = DataType::Int64();
    if (auto it = node.kwargs().find("dtype");
        it != node.kwargs().end() && it->second.value_case() == proto::FxArg::kDtype) {
      absl::StatusOr<DataType> t = DataType::Parse(it->second.dtype());
      if (!t.ok()) return t.status();
      dtype = *t;
    }
    absl::StatusOr<std::vector<tir::PrimExpr>> dims;
    if (full) {
      if (node.args_size() == 0) return absl::InvalidArgumentError("torch.full needs a size");
      proto::FxNode size_only;
      *size_only.add_args() = node.args(0);
      dims = DimsArgs(ctx, size_only, 0, "size");
    } else {
      dims = DimsArgs(ctx, node, 0, "size");
    }
    if (!dims.ok()) return dims.status();
    return Filled(ctx, *dims, fill, dtype);
  };
}

/*! \brief x.expand(*sizes): x broadcast to the sizes (-1 keeps a dimension; new leading
 *  dimensions may be added), which may be symbolic (repeat_kv's expand over the sequence). */
absl::StatusOr<relax::Expr> ConvertExpand(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape()) return absl::InvalidArgumentError("expand needs an input of known shape");
  absl::StatusOr<std::vector<tir::PrimExpr>> sizes = DimsArgs(ctx, node, 1, "size");
  if (!sizes.ok()) return sizes.status();
  std::vector<tir::PrimExpr> in = t->Dims();
  if (sizes->size() < in.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expand to ", sizes->size(), " sizes of a tensor of rank ", in.size()));
  }
  const size_t lead = sizes->size() - in.size();
  std::vector<tir::PrimExpr> out;
  for (size_t d = 0; d < sizes->size(); ++d) {
    const int64_t* v = tir::AsConstInt((*sizes)[d]);
    if (v != nullptr && *v == -1) {
      if (d < lead) return absl::InvalidArgumentError("a new leading dimension of expand cannot be -1");
      out.push_back(in[d - lead]);
      continue;
    }
    if (d >= lead) {
      const int64_t* have = tir::AsConstInt(in[d - lead]);
      if (!(have != nullptr && *have == 1) && !relax::DimsEqual(in[d - lead], (*sizes)[d])) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot expand ", relax::DimsToString(in), " to ", relax::DimsToString(*sizes)));
      }
    }
    out.push_back((*sizes)[d]);
  }
  return ctx.EmitOp("broadcast_to", {*x}, {}, {relax::TensorSInfoOfDims(out, t->dtype)});
}

}  // namespace

void RegisterShapeFxConverters(FxConverterRegistry& r) {
  using K = FxConverterRegistry;
  for (const char* m : {"size", "dim", "ndimension"}) r.Register(K::kMethod, m, ConvertSize);
  r.Register(K::kFunction, "builtins.getattr", ConvertSize);
  r.Register(K::kFunction, "torch.arange", ConvertArange);
  for (const char* f : {"ones", "zeros", "full"})
    r.Register(K::kFunction, absl::StrCat("torch.", f), ConvertFactory(f));
  r.Register(K::kMethod, "expand", ConvertExpand);
  r.Register(K::kFunction, "torch._assert", ConvertAssert);
}

}  // namespace fx
}  // namespace mlc
