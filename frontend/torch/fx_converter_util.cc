/*! \file fx_converter_util.cc */
#include "frontend/torch/fx_converter_util.h"

#include "absl/strings/str_cat.h"
#include "ir/graph/struct_info.h"
#include "ir/tir/prim_expr_ops.h"
#include "support/checked_math.h"

namespace mlc {
namespace fx {

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

/*! \brief An int or a tuple of ints from module attributes, as `n` values. */
std::vector<int64_t> IntsOf(const proto::FxNode& node, const std::string& name, size_t n,
                            std::vector<int64_t> fallback) {
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

bool BoolOf(const proto::FxNode& node, const std::string& name, bool fallback) {
  auto it = node.module_attrs().find(name);
  if (it == node.module_attrs().end()) return fallback;
  if (it->second.value_case() == proto::FxArg::kB) return it->second.b();
  if (it->second.value_case() == proto::FxArg::kI) return it->second.i() != 0;
  return fallback;
}

std::string StringOf(const proto::FxNode& node, const std::string& name, const std::string& fallback) {
  auto it = node.module_attrs().find(name);
  return it != node.module_attrs().end() && it->second.value_case() == proto::FxArg::kS ? it->second.s() : fallback;
}

relax::Expr PerChannel(const TensorData& t, int spatial_dims) {
  std::vector<int64_t> shape(1 + spatial_dims, 1);
  shape[0] = t.NumElements();
  return relax::MakeConstant(TensorData(t.dtype(), shape, t.bytes()));
}

/*! \brief Numeric argument `index` (positional) or `name` (keyword) of a call, else `fallback`. */
double NumberArg(const proto::FxNode& node, int index, const std::string& name, double fallback) {
  auto number = [](const proto::FxArg& a) { return a.value_case() == proto::FxArg::kF ? a.f() : double(a.i()); };
  if (index < node.args_size()) return number(node.args(index));
  auto it = node.kwargs().find(name);
  return it == node.kwargs().end() ? fallback : number(it->second);
}

int64_t IntArg(const proto::FxNode& node, int index, const std::string& name, int64_t fallback) {
  return SaturatingInt64(NumberArg(node, index, name, static_cast<double>(fallback)));
}

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
    for (int i = index; i < node.args_size() && node.args(i).value_case() == proto::FxArg::kI; ++i)
      v.push_back(node.args(i).i());
    if (index >= node.args_size()) v.push_back(a->i());
  }
  return v;
}

absl::StatusOr<std::vector<relax::Expr>> ValueListArg(FxContext& ctx, const proto::FxNode& node, int index,
                                                      const std::string& name, const std::string& op) {
  const proto::FxArg* list = index < node.args_size() ? &node.args(index) : nullptr;
  if (list == nullptr) {
    auto it = node.kwargs().find(name);
    if (it != node.kwargs().end()) list = &it->second;
  }
  if (list == nullptr || list->value_case() != proto::FxArg::kList || list->list().items_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(op, " needs a non-empty list of tensors"));
  }
  std::vector<relax::Expr> values;
  for (const proto::FxArg& item : list->list().items()) {
    absl::StatusOr<relax::Expr> v = ctx.Value(item);
    if (!v.ok()) return v.status();
    values.push_back(*v);
  }
  return values;
}

bool BoolArg(const proto::FxNode& node, int index, const std::string& name, bool fallback) {
  if (index < node.args_size()) return node.args(index).b();
  auto it = node.kwargs().find(name);
  return it == node.kwargs().end() ? fallback : it->second.b();
}

int64_t RankOf(const relax::Expr& e) {
  const auto* t = e->struct_info().as<relax::TensorStructInfoNode>();
  return t ? t->ndim : -1;
}

std::optional<tir::PrimExpr> AsDim(const relax::Expr& value) {
  if (const auto* c = value.as<relax::ConstantNode>(); c != nullptr && c->data.shape().empty()) {
    if (c->data.dtype() == DataType::Int64()) return tir::I64(c->data.data_as<int64_t>()[0]);
    if (c->data.dtype() == DataType::Int32()) return tir::I64(c->data.data_as<int32_t>()[0]);
  }
  if (const auto* s = value.as<relax::ShapeExprNode>(); s != nullptr && s->values.size() == 1) return s->values[0];
  return std::nullopt;
}

relax::Expr DimValue(const tir::PrimExpr& dim) {
  if (const int64_t* v = tir::AsConstInt(dim))
    return relax::MakeConstant(ScalarTensor(static_cast<double>(*v), DataType::Int64()));
  return relax::MakeShapeExpr(std::vector<tir::PrimExpr>{dim});
}

absl::StatusOr<tir::PrimExpr> DimArg(FxContext& ctx, const proto::FxArg& arg) {
  if (arg.value_case() == proto::FxArg::kI) return tir::I64(arg.i());
  absl::StatusOr<relax::Expr> v = ctx.Value(arg);
  if (!v.ok()) return v.status();
  if (std::optional<tir::PrimExpr> d = AsDim(*v)) return *d;
  return absl::UnimplementedError("a size argument must be an integer or a size of a tensor (x.shape[i], x.size(i))");
}

absl::StatusOr<std::vector<tir::PrimExpr>> DimsArgs(FxContext& ctx, const proto::FxNode& node, int first,
                                                    const std::string& keyword) {
  std::vector<proto::FxArg> items;
  const proto::FxArg* list = nullptr;
  if (node.args_size() == first + 1 && node.args(first).value_case() == proto::FxArg::kList) list = &node.args(first);
  if (node.args_size() <= first && node.kwargs().count(keyword)) list = &node.kwargs().at(keyword);
  if (list != nullptr && list->value_case() == proto::FxArg::kList) {
    items.assign(list->list().items().begin(), list->list().items().end());
  } else if (list != nullptr) {
    items.push_back(*list);
  } else {
    items.assign(node.args().begin() + std::min(first, node.args_size()), node.args().end());
  }
  std::vector<tir::PrimExpr> dims;
  for (const proto::FxArg& item : items) {
    absl::StatusOr<tir::PrimExpr> d = DimArg(ctx, item);
    if (!d.ok()) return d.status();
    dims.push_back(*d);
  }
  return dims;
}

}  // namespace fx
}  // namespace mlc
