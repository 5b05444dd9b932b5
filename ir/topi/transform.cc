/*! \file transform.cc
 *  \brief Data movement and selection: concatenate, take (gather), broadcast_to, where, cast,
 *         layout_transform.
 */
#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "ir/graph/layout.h"
#include "ir/graph/shape_util.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/topi/index_util.h"
#include "ir/topi/topi.h"

namespace mlc {
namespace topi {

using detail::C;

absl::StatusOr<Tensor> Concatenate(const std::vector<Tensor>& xs, int64_t axis) {
  if (xs.empty()) return absl::InvalidArgumentError("concatenate: no inputs");
  int64_t rank = xs[0].ndim();
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError("concatenate: axis out of range");
  for (const Tensor& x : xs) {
    if (x.ndim() != rank || x.dtype() != xs[0].dtype())
      return absl::InvalidArgumentError("concatenate: inputs differ in rank or dtype");
  }
  // Every extent may be symbolic (a key/value cache grown along its sequence axis); the others
  // must agree (shape inference checked them).
  DataType it = detail::IndexType(xs);
  tir::Analyzer analyzer;
  std::vector<tir::PrimExpr> starts, extents;
  tir::PrimExpr total = C(it, 0);
  bool symbolic = false;
  for (const Tensor& x : xs) {
    const int64_t* known = tir::AsConstInt(x.shape()[axis]);
    tir::PrimExpr e = known != nullptr ? C(it, *known) : tir::Cast(it, x.shape()[axis]);
    symbolic = symbolic || known == nullptr;
    starts.push_back(total);
    extents.push_back(e);
    total = analyzer.Simplify(tir::operator+(total, e));
  }
  std::vector<tir::PrimExpr> shape = detail::WithIndexType(xs[0].shape(), it);
  shape[axis] = total;
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        auto load = [&](size_t k) {
          std::vector<tir::PrimExpr> idx(i.begin(), i.end());
          tir::PrimExpr local = tir::operator-(tir::PrimExpr(i[axis]), starts[k]);
          idx[axis] =
              symbolic ? local
                       : tir::Min(tir::Max(local, C(it, 0)), analyzer.Simplify(tir::operator-(extents[k], C(it, 1))));
          return xs[k](idx);
        };
        auto before = [&](size_t k) { return tir::operator<(tir::PrimExpr(i[axis]), starts[k]); };
        // A symbolic extent may be 0, so each input is read only where chosen, by halves: the
        // index before the middle input's start, or not, down to one input (log2(n) tests per
        // element; chained, a detector's concatenation of 90 classes' boxes took 45 on average).
        if (symbolic) {
          std::function<tir::PrimExpr(size_t, size_t)> inputs = [&](size_t lo, size_t hi) -> tir::PrimExpr {
            if (hi - lo == 1) return load(lo);
            const size_t mid = lo + (hi - lo) / 2;
            return tir::IfThenElse(before(mid), inputs(lo, mid), inputs(mid, hi));
          };
          return inputs(0, xs.size());
        }
        // Static extents: every input loaded (clamped into bounds) and one selected, which
        // vectorizes; the last input first, each earlier one chosen when the index falls
        // before its end.
        tir::PrimExpr value = load(xs.size() - 1);
        for (size_t k = xs.size() - 1; k-- > 0;) value = tir::Select(before(k + 1), load(k), value);
        return value;
      },
      "T_concat");
}

absl::StatusOr<Tensor> Take(const Tensor& x, const Tensor& indices, int64_t axis) {
  if (!indices.dtype().is_int()) return absl::InvalidArgumentError("take: indices must be integers");
  int64_t rank = static_cast<int64_t>(x.shape().size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError("take: axis out of range");
  DataType it = detail::IndexType({x, indices});
  std::vector<tir::PrimExpr> shape;
  for (int64_t d = 0; d < axis; ++d) shape.push_back(x.shape()[d]);
  for (const tir::PrimExpr& d : indices.shape()) shape.push_back(d);
  for (int64_t d = axis + 1; d < rank; ++d) shape.push_back(x.shape()[d]);
  shape = detail::WithIndexType(shape, it);
  tir::PrimExpr dim = tir::Cast(it, x.shape()[axis]);
  int64_t nidx = static_cast<int64_t>(indices.shape().size());
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx_index(i.begin() + axis, i.begin() + axis + nidx);
        tir::PrimExpr k = tir::Cast(it, indices(idx_index));
        // Negative indices count from the end; out-of-range ones are clamped (ONNX leaves them undefined).
        k = tir::Select(tir::operator<(k, C(it, 0)), tir::operator+(k, dim), k);
        k = tir::Min(tir::Max(k, C(it, 0)), tir::operator-(dim, C(it, 1)));
        std::vector<tir::PrimExpr> index(i.begin(), i.begin() + axis);
        index.push_back(k);
        index.insert(index.end(), i.begin() + axis + nidx, i.end());
        return x(index);
      },
      "T_take");
}

absl::StatusOr<Tensor> TakeAlongAxis(const Tensor& x, const Tensor& indices, int64_t axis) {
  if (!indices.dtype().is_int()) return absl::InvalidArgumentError("take_along_axis: indices must be integers");
  int64_t rank = x.ndim();
  if (indices.ndim() != rank)
    return absl::InvalidArgumentError("take_along_axis: the indices must have the data's rank");
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError("take_along_axis: axis out of range");
  DataType it = detail::IndexType({x, indices});
  tir::PrimExpr dim = tir::Cast(it, x.shape()[axis]);
  return te::Compute(
      detail::WithIndexType(indices.shape(), it),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> index(i.begin(), i.end());
        tir::PrimExpr k = tir::Cast(it, indices(index));
        // Negative indices count from the end; out-of-range ones are clamped (ONNX leaves them undefined).
        k = tir::Select(tir::operator<(k, C(it, 0)), tir::operator+(k, dim), k);
        index[axis] = tir::Min(tir::Max(k, C(it, 0)), tir::operator-(dim, C(it, 1)));
        return x(index);
      },
      "T_take_along_axis");
}

absl::StatusOr<Tensor> BroadcastTo(const Tensor& x, const std::vector<tir::PrimExpr>& shape) {
  absl::StatusOr<std::vector<tir::PrimExpr>> out = relax::BroadcastDims(x.shape(), shape);
  bool same = out.ok() && out->size() == shape.size();
  for (size_t i = 0; same && i < shape.size(); ++i) same = relax::DimsEqual((*out)[i], shape[i]);
  if (!same) {
    return absl::InvalidArgumentError(absl::StrCat("broadcast_to: ", relax::DimsToString(x.shape()),
                                                   " cannot be broadcast to ", relax::DimsToString(shape)));
  }
  DataType it = detail::IndexType({x});
  std::vector<tir::PrimExpr> extents = detail::WithIndexType(shape, it);
  return te::Compute(
      extents,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue { return x(detail::BroadcastIndex(x, i, extents)); },
      "T_broadcast_to");
}

absl::StatusOr<Tensor> Where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) return absl::InvalidArgumentError("where: the two branches differ in dtype");
  absl::StatusOr<std::vector<tir::PrimExpr>> out = relax::BroadcastDims(cond.shape(), a.shape());
  if (out.ok()) out = relax::BroadcastDims(*out, b.shape());
  if (!out.ok()) return absl::InvalidArgumentError(absl::StrCat("where: ", out.status().message()));
  std::vector<tir::PrimExpr> extents = detail::WithIndexType(*out, detail::IndexType({cond, a, b}));
  return te::Compute(
      extents,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        tir::PrimExpr c = cond(detail::BroadcastIndex(cond, i, extents));
        if (cond.dtype() != DataType::Bool()) c = tir::Ne(c, tir::Const(cond.dtype(), 0));
        return tir::Select(c, a(detail::BroadcastIndex(a, i, extents)), b(detail::BroadcastIndex(b, i, extents)));
      },
      "T_where");
}

Tensor Cast(const Tensor& x, DataType dtype) {
  return te::Compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx(i.begin(), i.end());
        return tir::Cast(dtype, x(idx));
      },
      "T_cast");
}

absl::StatusOr<Tensor> LayoutTransform(const Tensor& x, const std::string& src, const std::string& dst) {
  absl::StatusOr<Layout> from = Layout::Parse(src);
  if (!from.ok()) return absl::InvalidArgumentError(absl::StrCat("layout_transform: ", from.status().message()));
  absl::StatusOr<Layout> to = Layout::Parse(dst);
  if (!to.ok()) return absl::InvalidArgumentError(absl::StrCat("layout_transform: ", to.status().message()));
  if (from->Primal() != to->Primal() || from->ndim() != x.ndim()) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout_transform: ", x.ndim(), "-d data in ", src, " cannot become ", dst));
  }
  absl::StatusOr<std::vector<tir::PrimExpr>> shape = to->ShapeFromPrimal(from->ShapeToPrimal(x.shape()));
  if (!shape.ok()) return absl::InvalidArgumentError(absl::StrCat("layout_transform: ", shape.status().message()));
  std::vector<std::string> names;
  for (size_t d = 0; d < to->ndim(); ++d) names.push_back(absl::StrCat("ax", d));
  return te::Compute(
      detail::WithIndexType(*shape, detail::IndexType({x})),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        return x(from->IndexOf(to->CoordsOf(std::vector<tir::PrimExpr>(i.begin(), i.end()))));
      },
      "T_layout_trans", names);
}

}  // namespace topi
}  // namespace mlc
