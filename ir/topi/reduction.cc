/*! \file reduction.cc
 *  \brief Reductions over axes (sum, mean, max, min), softmax, layer normalization, and
 *         strided slicing, as tensor expressions (names as TVM's topi prints them).
 */
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/graph/shape_util.h"
#include "ir/topi/index_util.h"
#include "ir/topi/topi.h"
#include "support/checked_math.h"

namespace mlc {
namespace topi {
namespace {

using detail::C;

/*! \brief Sorted, non-negative, distinct axes; empty means all. */
absl::StatusOr<std::vector<bool>> AxisMask(std::vector<int64_t> axes, int64_t rank, const std::string& op) {
  std::vector<bool> mask(rank, axes.empty());
  for (int64_t a : axes) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return absl::InvalidArgumentError(absl::StrCat(op, ": axis out of range for rank ", rank));
    if (mask[a]) return absl::InvalidArgumentError(absl::StrCat(op, ": axis ", a, " repeated"));
    mask[a] = true;
  }
  return mask;
}

/*! \brief For every output index, the input index with reduction variables at the masked axes. */
std::vector<tir::PrimExpr> ReducedIndex(const std::vector<tir::Var>& out, const std::vector<bool>& mask,
                                        const std::vector<te::ReduceAxis>& raxes, bool keepdims) {
  std::vector<tir::PrimExpr> index;
  size_t next_out = 0, next_r = 0;
  for (size_t d = 0; d < mask.size(); ++d) {
    if (mask[d]) {
      index.push_back(raxes[next_r++]);
      if (keepdims) ++next_out;
    } else {
      index.push_back(out[next_out++]);
    }
  }
  return index;
}

}  // namespace

absl::StatusOr<Tensor> Reduce(const Tensor& x, ReduceOp op, const std::vector<int64_t>& axes, bool keepdims) {
  const char* names[] = {"sum", "mean", "max", "min", "prod"};
  const std::string name = names[static_cast<int>(op)];
  absl::StatusOr<std::vector<bool>> mask = AxisMask(axes, x.ndim(), name);
  if (!mask.ok()) return mask.status();
  DataType it = detail::IndexType({x});
  std::vector<tir::PrimExpr> out_shape;
  std::vector<te::ReduceAxis> raxes;
  // A mean divides by the number of elements reduced: a constant, or computed from symbolic axes.
  int64_t count = 1;
  tir::PrimExpr symbolic_count;
  for (int d = 0; d < x.ndim(); ++d) {
    if ((*mask)[d]) {
      const tir::PrimExpr& extent = x.shape()[d];
      const int64_t* c = tir::AsConstInt(extent);
      raxes.push_back(te::MakeReduceAxis(c != nullptr ? C(it, *c) : extent, absl::StrCat("k", d)));
      if (c != nullptr) {
        count = SaturatingMul(count, *c);
      } else {
        tir::PrimExpr e = tir::Cast(DataType::Int64(), extent);
        symbolic_count = symbolic_count.defined() ? tir::operator*(symbolic_count, e) : e;
      }
      if (keepdims) out_shape.push_back(C(it, 1));
    } else {
      out_shape.push_back(x.shape()[d]);
    }
  }
  auto body = [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
    tir::PrimExpr v = x(ReducedIndex(i, *mask, raxes, keepdims));
    if (op == ReduceOp::kMax) return te::Max(v, raxes);
    if (op == ReduceOp::kMin) return te::Min(v, raxes);
    if (op == ReduceOp::kProd) return te::Prod(v, raxes);
    return te::Sum(v, raxes);
  };
  const char* tensor_names[] = {"X_red", "X_red", "X_red_max", "X_red_min", "X_red_prod"};
  Tensor reduced =
      te::Compute(out_shape, body, op == ReduceOp::kMean ? "X_red_sum" : tensor_names[static_cast<int>(op)]);
  if (op != ReduceOp::kMean) return reduced;
  return te::Compute(
      out_shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx(i.begin(), i.end());
        tir::PrimExpr n = tir::Const(x.dtype(), static_cast<double>(count));
        if (symbolic_count.defined()) n = tir::operator*(n, tir::Cast(x.dtype(), symbolic_count));
        return tir::operator/(reduced(idx), n);
      },
      "T_divide");
}

absl::StatusOr<Tensor> Cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse) {
  const int64_t rank = x.ndim();
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    return absl::InvalidArgumentError(absl::StrCat("cumsum: axis out of range for rank ", rank));
  // out[..., i, ...] = sum over k of x[..., k, ...] where k precedes (or follows) i: a
  // reduction over the axis with a predicate, O(n^2) along it.
  te::ReduceAxis k = te::MakeReduceAxis(x.shape()[axis], "k");
  return te::Compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> xi(i.begin(), i.end());
        xi[axis] = k;
        tir::PrimExpr a = k.var, b = i[axis];
        if (reverse) std::swap(a, b);
        tir::PrimExpr take = exclusive ? tir::operator<(a, b) : tir::operator<=(a, b);
        return te::Sum(tir::Select(take, x(xi), tir::Const(x.dtype(), 0)), {k});
      },
      "T_cumsum");
}

absl::StatusOr<Tensor> ArgReduce(const Tensor& x, int64_t axis, bool keepdims, bool last, bool largest) {
  const int64_t rank = x.ndim();
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    return absl::InvalidArgumentError(
        absl::StrCat(largest ? "argmax" : "argmin", ": axis out of range for rank ", rank));
  // The extreme value along the axis, then the first (or last) index holding it.
  absl::StatusOr<Tensor> extreme = Reduce(x, largest ? ReduceOp::kMax : ReduceOp::kMin, {axis}, /*keepdims=*/true);
  if (!extreme.ok()) return extreme.status();
  DataType it = detail::IndexType({x});
  std::vector<tir::PrimExpr> out_shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis)
      out_shape.push_back(x.shape()[d]);
    else if (keepdims)
      out_shape.push_back(C(it, 1));
  }
  te::ReduceAxis k = te::MakeReduceAxis(x.shape()[axis], "k");
  const tir::PrimExpr extent = tir::Cast(DataType::Int64(), x.shape()[axis]);
  Tensor m = *extreme;
  return te::Compute(
      out_shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> xi, mi;
        size_t next = 0;
        for (int64_t d = 0; d < rank; ++d) {
          if (d == axis) {
            xi.push_back(k);
            mi.push_back(C(it, 0));
            if (keepdims) ++next;
          } else {
            xi.push_back(i[next]);
            mi.push_back(i[next]);
            ++next;
          }
        }
        tir::PrimExpr index = tir::Cast(DataType::Int64(), k.var);
        tir::PrimExpr hit = tir::Eq(x(xi), m(mi));
        if (last) return te::Max(tir::Select(hit, index, tir::I64(-1)), {k});
        return te::Min(tir::Select(hit, index, extent), {k});
      },
      largest ? "T_argmax" : "T_argmin");
}

absl::StatusOr<Tensor> Softmax(const Tensor& x, int64_t axis) {
  int64_t rank = x.ndim();
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    return absl::InvalidArgumentError(absl::StrCat("softmax: axis out of range for rank ", rank));
  std::vector<tir::PrimExpr> reduced_shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) reduced_shape.push_back(x.shape()[d]);
  }
  // index of x from a reduced index and the position k along the axis
  auto full = [&](const std::vector<tir::Var>& r, tir::PrimExpr k) {
    std::vector<tir::PrimExpr> idx;
    size_t next = 0;
    for (int64_t d = 0; d < rank; ++d) idx.push_back(d == axis ? k : tir::PrimExpr(r[next++]));
    return idx;
  };
  auto reduced = [&](const std::vector<tir::Var>& i) {
    std::vector<tir::PrimExpr> idx;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis) idx.push_back(i[d]);
    }
    return idx;
  };
  te::ReduceAxis k1 = te::MakeReduceAxis(x.shape()[axis], "k");
  Tensor maxelem = te::Compute(
      reduced_shape, [&](const std::vector<tir::Var>& r) -> te::ComputeValue { return te::Max(x(full(r, k1)), {k1}); },
      "T_softmax_maxelem");
  Tensor exp = te::Compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx(i.begin(), i.end());
        return tir::Intrinsic("exp", {tir::operator-(x(idx), maxelem(reduced(i)))});
      },
      "T_softmax_exp");
  te::ReduceAxis k2 = te::MakeReduceAxis(x.shape()[axis], "k");
  Tensor expsum = te::Compute(
      reduced_shape,
      [&](const std::vector<tir::Var>& r) -> te::ComputeValue { return te::Sum(exp(full(r, k2)), {k2}); },
      "T_softmax_expsum");
  return te::Compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx(i.begin(), i.end());
        return tir::operator/(exp(idx), expsum(reduced(i)));
      },
      "T_softmax_norm");
}

absl::StatusOr<Tensor> LayerNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t num_axes,
                                 double epsilon) {
  std::vector<int> normalized;
  for (int64_t d = 0; d < num_axes; ++d) normalized.push_back(-1 - static_cast<int>(d));
  absl::StatusOr<std::vector<int64_t>> xs = KnownExtents(x, normalized, "layer_norm");
  if (!xs.ok()) return xs.status();
  int64_t rank = static_cast<int64_t>(xs->size());
  if (num_axes < 1 || num_axes > rank || gamma.ndim() != num_axes || beta.ndim() != num_axes) {
    return absl::InvalidArgumentError("layer_norm: gamma and beta must have the normalized (trailing) dimensions");
  }
  DataType it = detail::IndexType({x});
  int64_t lead = rank - num_axes, count = 1;
  std::vector<tir::PrimExpr> stat_shape(x.shape().begin(), x.shape().begin() + lead);
  std::vector<te::ReduceAxis> r1, r2;
  for (int64_t d = lead; d < rank; ++d) {
    r1.push_back(te::MakeReduceAxis(C(it, (*xs)[d]), absl::StrCat("k", d)));
    r2.push_back(te::MakeReduceAxis(C(it, (*xs)[d]), absl::StrCat("k", d)));
    count = SaturatingMul(count, (*xs)[d]);
  }
  auto index = [&](const std::vector<tir::Var>& lead_idx, const std::vector<te::ReduceAxis>& r) {
    std::vector<tir::PrimExpr> idx(lead_idx.begin(), lead_idx.end());
    for (const te::ReduceAxis& a : r) idx.push_back(a);
    return idx;
  };
  tir::PrimExpr n = tir::Const(x.dtype(), static_cast<double>(count));
  Tensor sum = te::Compute(
      stat_shape, [&](const std::vector<tir::Var>& i) -> te::ComputeValue { return te::Sum(x(index(i, r1)), r1); },
      "T_layer_norm_sum");
  // Variance as the mean of squared deviations (two passes; more accurate than E[x^2] - E[x]^2).
  Tensor sqsum = te::Compute(
      stat_shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> lead_idx(i.begin(), i.end());
        tir::PrimExpr dev = tir::operator-(x(index(i, r2)), tir::operator/(sum(lead_idx), n));
        return te::Sum(tir::operator*(dev, dev), r2);
      },
      "T_layer_norm_sqsum");
  return te::Compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> lead_idx(i.begin(), i.begin() + lead), tail(i.begin() + lead, i.end()),
            all(i.begin(), i.end());
        tir::PrimExpr mean = tir::operator/(sum(lead_idx), n);
        tir::PrimExpr var = tir::operator/(sqsum(lead_idx), n);
        tir::PrimExpr inv = tir::operator/(
            tir::Const(x.dtype(), 1.0), tir::Intrinsic("sqrt", {tir::operator+(var, tir::Const(x.dtype(), epsilon))}));
        return tir::operator+(tir::operator*(tir::operator*(tir::operator-(x(all), mean), inv), gamma(tail)),
                              beta(tail));
      },
      "T_layer_norm");
}

absl::StatusOr<Tensor> StridedSlice(const Tensor& x, const std::vector<int64_t>& axes,
                                    const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                                    const std::vector<int64_t>& strides) {
  const int64_t rank = static_cast<int64_t>(x.shape().size());
  if (begin.size() != axes.size() || end.size() != axes.size() || (!strides.empty() && strides.size() != axes.size())) {
    return absl::InvalidArgumentError("strided_slice: axes, begin, end and strides differ in length");
  }
  DataType it = detail::IndexType({x});
  // Static extents in the index type; a symbolic one of an axis not sliced as it is.
  auto index = [&](const tir::PrimExpr& e, bool cast) {
    const int64_t* c = tir::AsConstInt(e);
    return c != nullptr ? C(it, *c) : cast ? tir::Cast(it, e) : e;
  };
  std::vector<int64_t> step(rank, 1);
  std::vector<tir::PrimExpr> start(rank, C(it, 0)), shape;
  for (const tir::PrimExpr& d : x.shape()) shape.push_back(index(d, /*cast=*/false));
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t d = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (d < 0 || d >= rank) return absl::InvalidArgumentError("strided_slice: axis out of range");
    int64_t s = strides.empty() ? 1 : strides[k];
    if (s == 0) return absl::InvalidArgumentError("strided_slice: stride 0");
    step[d] = s;
    relax::SliceRangeExpr range = relax::ClampSlice(x.shape()[d], begin[k], end[k], s);
    start[d] = index(range.start, /*cast=*/true);
    shape[d] = index(range.extent, /*cast=*/true);
  }
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx;
        for (int64_t d = 0; d < rank; ++d) {
          tir::PrimExpr v = i[d];
          if (step[d] != 1) v = tir::operator*(v, C(it, step[d]));
          if (!tir::IsConstInt(start[d], 0)) v = tir::operator+(v, start[d]);
          idx.push_back(v);
        }
        return x(idx);
      },
      "T_strided_slice");
}

}  // namespace topi
}  // namespace mlc
