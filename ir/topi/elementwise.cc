/*! \file elementwise.cc
 *  \brief Broadcasting binary operators and elementwise maps.
 */
#include <map>

#include "absl/strings/str_cat.h"
#include "ir/graph/shape_util.h"
#include "ir/topi/index_util.h"
#include "ir/topi/topi.h"

namespace mlc {
namespace topi {

absl::StatusOr<std::vector<int64_t>> StaticShape(const Tensor& t, const std::string& op) {
  std::vector<int64_t> shape;
  for (const tir::PrimExpr& d : t.shape()) {
    const int64_t* v = tir::AsConstInt(d);
    if (v == nullptr) return absl::InvalidArgumentError(absl::StrCat(op, ": ", t.name(), " has a non-constant shape"));
    shape.push_back(*v);
  }
  return shape;
}

absl::StatusOr<std::vector<int64_t>> KnownExtents(const Tensor& t, const std::vector<int>& need_static,
                                                  const std::string& op) {
  return relax::KnownValues(t.shape(), need_static, absl::StrCat(op, ": ", t.name()));
}

namespace {

using detail::BroadcastIndex;
using detail::IndexType;

using BinaryFn = tir::PrimExpr (*)(tir::PrimExpr, tir::PrimExpr);

absl::StatusOr<Tensor> Broadcast(const Tensor& a, const Tensor& b, const std::string& op,
                                 const std::function<tir::PrimExpr(tir::PrimExpr, tir::PrimExpr)>& f) {
  if (a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": dtype mismatch: ", a.dtype().ToString(), " vs ", b.dtype().ToString()));
  }
  absl::StatusOr<std::vector<tir::PrimExpr>> out = relax::BroadcastDims(a.shape(), b.shape());
  if (!out.ok()) return absl::InvalidArgumentError(absl::StrCat(op, ": ", out.status().message()));
  std::vector<tir::PrimExpr> shape = detail::WithIndexType(*out, IndexType({a, b}));
  std::vector<std::string> names;
  for (size_t d = 0; d < shape.size(); ++d) names.push_back(absl::StrCat("ax", d));
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        return f(a(BroadcastIndex(a, i, shape)), b(BroadcastIndex(b, i, shape)));
      },
      absl::StrCat("T_", op), names);
}

}  // namespace

absl::StatusOr<Tensor> Add(const Tensor& a, const Tensor& b) {
  return Broadcast(a, b, "add", [](tir::PrimExpr x, tir::PrimExpr y) { return tir::operator+(x, y); });
}
absl::StatusOr<Tensor> Subtract(const Tensor& a, const Tensor& b) {
  return Broadcast(a, b, "subtract", [](tir::PrimExpr x, tir::PrimExpr y) { return tir::operator-(x, y); });
}
absl::StatusOr<Tensor> Multiply(const Tensor& a, const Tensor& b) {
  return Broadcast(a, b, "multiply", [](tir::PrimExpr x, tir::PrimExpr y) { return tir::operator*(x, y); });
}
absl::StatusOr<Tensor> Divide(const Tensor& a, const Tensor& b) {
  return Broadcast(a, b, "divide", [](tir::PrimExpr x, tir::PrimExpr y) { return tir::operator/(x, y); });
}
absl::StatusOr<Tensor> Maximum(const Tensor& a, const Tensor& b) {
  return Broadcast(a, b, "maximum", [](tir::PrimExpr x, tir::PrimExpr y) { return tir::Max(x, y); });
}
absl::StatusOr<Tensor> Minimum(const Tensor& a, const Tensor& b) {
  return Broadcast(a, b, "minimum", [](tir::PrimExpr x, tir::PrimExpr y) { return tir::Min(x, y); });
}
absl::StatusOr<Tensor> Power(const Tensor& a, const Tensor& b) {
  return Broadcast(a, b, "power", [](tir::PrimExpr x, tir::PrimExpr y) {
    if (x->dtype.is_float()) return tir::Intrinsic("pow", {x, y});
    // Integers: in double precision (exact for the results an integer type holds up to 2^53).
    DataType t = x->dtype;
    return tir::Cast(t, tir::Intrinsic("round", {tir::Intrinsic("pow", {tir::Cast(DataType::Float(64), x),
                                                                        tir::Cast(DataType::Float(64), y)})}));
  });
}

absl::StatusOr<Tensor> FloorMod(const Tensor& a, const Tensor& b) {
  return Broadcast(a, b, "floor_mod", [](tir::PrimExpr x, tir::PrimExpr y) {
    if (!x->dtype.is_float()) return tir::FloorMod(x, y);
    tir::PrimExpr r = tir::Intrinsic("fmod", {x, y});
    // fmod has x's sign; move a nonzero remainder of the other sign over by y.
    tir::PrimExpr zero = tir::Const(x->dtype, 0);
    tir::PrimExpr differ = tir::operator&&(tir::Ne(r, zero), tir::Ne(tir::operator<(r, zero), tir::operator<(y, zero)));
    return tir::Select(differ, tir::operator+(r, y), r);
  });
}
absl::StatusOr<Tensor> TruncMod(const Tensor& a, const Tensor& b) {
  return Broadcast(a, b, "fmod", [](tir::PrimExpr x, tir::PrimExpr y) {
    if (x->dtype.is_float()) return tir::Intrinsic("fmod", {x, y});
    return tir::operator-(x, tir::operator*(tir::operator/(x, y), y));  // integer / truncates
  });
}

absl::StatusOr<Tensor> Compare(const Tensor& a, const Tensor& b, const std::string& op) {
  using tir::PrimExpr;
  static const std::map<std::string, PrimExpr (*)(PrimExpr, PrimExpr)> kFormulas = {
      {"equal", [](PrimExpr x, PrimExpr y) { return tir::Eq(x, y); }},
      {"not_equal", [](PrimExpr x, PrimExpr y) { return tir::Ne(x, y); }},
      {"less", [](PrimExpr x, PrimExpr y) { return tir::operator<(x, y); }},
      {"less_equal", [](PrimExpr x, PrimExpr y) { return tir::operator<=(x, y); }},
      {"greater", [](PrimExpr x, PrimExpr y) { return tir::operator>(x, y); }},
      {"greater_equal", [](PrimExpr x, PrimExpr y) { return tir::operator>=(x, y); }},
      {"logical_and", [](PrimExpr x, PrimExpr y) { return tir::operator&&(x, y); }},
      {"logical_or", [](PrimExpr x, PrimExpr y) { return tir::operator||(x, y); }},
      {"logical_xor", [](PrimExpr x, PrimExpr y) { return tir::Ne(x, y); }},
  };
  auto it = kFormulas.find(op);
  if (it == kFormulas.end()) return absl::InvalidArgumentError(absl::StrCat("unknown comparison ", op));
  return Broadcast(a, b, op, it->second);
}

absl::StatusOr<Tensor> EwiseFma(const Tensor& a, const Tensor& b, const Tensor& c) {
  for (const Tensor* t : {&b, &c}) {
    absl::StatusOr<std::vector<int64_t>> sa = StaticShape(a, "ewise_fma");
    absl::StatusOr<std::vector<int64_t>> st = StaticShape(*t, "ewise_fma");
    if (!sa.ok()) return sa.status();
    if (!st.ok()) return st.status();
    if (*sa != *st || a.dtype() != t->dtype()) {
      return absl::InvalidArgumentError(absl::StrCat("ewise_fma: operands must have one shape and dtype, got ",
                                                     relax::ShapeToString(*sa), " and ", relax::ShapeToString(*st)));
    }
  }
  std::vector<std::string> names;
  for (int d = 0; d < a.ndim(); ++d) names.push_back(absl::StrCat("ax", d));
  return te::Compute(
      a.shape(),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx(i.begin(), i.end());
        return tir::operator+(tir::operator*(a(idx), b(idx)), c(idx));
      },
      "T_ewise_fma", names);
}

Tensor Unary(const Tensor& x, const std::function<tir::PrimExpr(const tir::PrimExpr&)>& f) {
  return te::Compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        return f(x(std::vector<tir::PrimExpr>(i.begin(), i.end())));
      },
      "compute");
}

Tensor Relu(const Tensor& x) {
  return Unary(x, [&](const tir::PrimExpr& v) { return tir::Max(v, tir::Const(x.dtype(), 0)); });
}

}  // namespace topi
}  // namespace mlc
