/*! \file linear_algebra.cc
 *  \brief dense (x @ w.T), NumPy matmul, and transpose.
 */
#include "absl/strings/str_cat.h"
#include "ir/graph/shape_util.h"
#include "ir/tir/analyzer.h"
#include "ir/topi/index_util.h"
#include "ir/topi/topi.h"
#include "support/checked_math.h"

namespace mlc {
namespace topi {

absl::StatusOr<Tensor> Dense(const Tensor& x, const Tensor& w) {
  if (x.shape().empty() || w.shape().size() != 2 || !relax::DimsEqual(x.shape().back(), w.shape()[1]) ||
      x.dtype() != w.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat("dense: data ", relax::DimsToString(x.shape()), " ",
                                                   x.dtype().ToString(), " and weight ", relax::DimsToString(w.shape()),
                                                   " ", w.dtype().ToString(), " do not fit x @ w.T"));
  }
  std::vector<tir::PrimExpr> shape(x.shape().begin(), x.shape().end() - 1);
  shape.push_back(w.shape()[0]);
  std::vector<std::string> names;
  for (size_t d = 0; d < shape.size(); ++d) names.push_back(absl::StrCat("i", d));
  te::ReduceAxis k = te::MakeReduceAxis(x.shape().back(), "k");
  return te::Compute(shape,
                     [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
                       std::vector<tir::PrimExpr> xi(i.begin(), i.end() - 1);
                       xi.push_back(k);
                       return te::Sum(tir::operator*(x(xi), w({i.back(), k})), {k});
                     },
                     "T_matmul_NT", names, {{"layout_free_inputs", std::vector<int64_t>{1}}});
}

absl::StatusOr<Tensor> Matmul(const Tensor& a, const Tensor& b) {
  const std::vector<tir::PrimExpr>& sa = a.shape();
  const std::vector<tir::PrimExpr>& sb = b.shape();
  if (sa.empty() || sb.empty() || a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError("matmul: operands need rank >= 1 and one dtype");
  }
  bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  tir::PrimExpr ka = sa.back(), kb = b_vec ? sb[0] : sb[sb.size() - 2];
  if (!relax::DimsEqual(ka, kb)) {
    return absl::InvalidArgumentError(
        absl::StrCat("matmul: reduction dimensions differ: ", relax::DimsToString(sa), " @ ", relax::DimsToString(sb)));
  }
  std::vector<tir::PrimExpr> batch_a(sa.begin(), sa.end() - (a_vec ? 1 : 2));
  std::vector<tir::PrimExpr> batch_b(sb.begin(), sb.end() - (b_vec ? 1 : 2));
  absl::StatusOr<std::vector<tir::PrimExpr>> batch = relax::BroadcastDims(batch_a, batch_b);
  if (!batch.ok()) return absl::InvalidArgumentError(absl::StrCat("matmul: ", batch.status().message()));
  DataType it = a.shape()[0]->dtype;
  std::vector<tir::PrimExpr> shape = detail::WithIndexType(*batch, it);
  if (!a_vec) shape.push_back(sa[sa.size() - 2]);
  if (!b_vec) shape.push_back(sb.back());
  shape = detail::WithIndexType(shape, it);
  std::vector<std::string> names;
  for (size_t d = 0; d < shape.size(); ++d) names.push_back(absl::StrCat("i", d));
  te::ReduceAxis k = te::MakeReduceAxis(detail::WithIndexType({ka}, it)[0], "k");
  size_t nb = batch->size();
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        // Batch indices broadcast into each operand's own batch dims.
        auto batch_index = [&](const std::vector<tir::PrimExpr>& own, const Tensor& t) {
          std::vector<tir::PrimExpr> idx;
          size_t offset = nb - own.size();
          for (size_t d = 0; d < own.size(); ++d) {
            const int64_t* od = tir::AsConstInt(own[d]);
            const int64_t* bd = tir::AsConstInt(shape[d + offset]);
            idx.push_back(od != nullptr && *od == 1 && (bd == nullptr || *bd != 1) ? tir::Const(t.shape()[d]->dtype, 0)
                                                                                   : tir::PrimExpr(i[d + offset]));
          }
          return idx;
        };
        std::vector<tir::PrimExpr> ai = batch_index(batch_a, a), bi = batch_index(batch_b, b);
        if (!a_vec) ai.push_back(i[nb]);
        ai.push_back(k);
        bi.push_back(k);
        if (!b_vec) bi.push_back(i.back());
        return te::Sum(tir::operator*(a(ai), b(bi)), {k});
      },
      "T_matmul", names);
}

absl::StatusOr<Tensor> Transpose(const Tensor& x, std::vector<int64_t> axes) {
  int n = x.ndim();
  if (axes.empty()) {
    for (int d = n - 1; d >= 0; --d) axes.push_back(d);
  }
  if (static_cast<int>(axes.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("transpose: ", axes.size(), " axes for a tensor of rank ", n));
  }
  std::vector<bool> seen(n, false);
  for (int64_t& a : axes) {
    if (a < 0) a += n;
    if (a < 0 || a >= n || seen[a]) return absl::InvalidArgumentError("transpose: axes is not a permutation");
    seen[a] = true;
  }
  std::vector<tir::PrimExpr> shape;
  std::vector<std::string> names;
  for (int d = 0; d < n; ++d) {
    shape.push_back(x.shape()[axes[d]]);
    names.push_back(absl::StrCat("ax", d));
  }
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> idx(n);
        for (int d = 0; d < n; ++d) idx[axes[d]] = i[d];
        return x(idx);
      },
      "T_transpose", names);
}

absl::StatusOr<Tensor> Reshape(const Tensor& x, const std::vector<int64_t>& shape) {
  DataType it = x.ndim() > 0 ? x.shape()[0]->dtype : DataType::Int64();
  std::vector<tir::PrimExpr> dims;
  for (int64_t d : shape) dims.push_back(tir::IntImm(it, d));
  return Reshape(x, dims);
}

absl::StatusOr<Tensor> Reshape(const Tensor& x, const std::vector<tir::PrimExpr>& shape) {
  // Same number of elements. Symbolic sizes were proven equal by the operator's shape inference
  // in the caller's terms; here the input's may be generalized (d0 for seq * batch), so only
  // sizes that are provably different are an error.
  tir::PrimExpr n = tir::I64(1), m = tir::I64(1);
  for (const tir::PrimExpr& d : x.shape()) n = tir::operator*(n, tir::Cast(DataType::Int64(), d));
  for (const tir::PrimExpr& d : shape) m = tir::operator*(m, tir::Cast(DataType::Int64(), d));
  tir::Analyzer analyzer;
  n = analyzer.Simplify(n);
  m = analyzer.Simplify(m);
  const int64_t* cn = tir::AsConstInt(n);
  const int64_t* cm = tir::AsConstInt(m);
  if (cn != nullptr && cm != nullptr && *cn != *cm) {
    return absl::InvalidArgumentError(absl::StrCat("reshape: ", relax::DimsToString(x.shape()), " and ",
                                                   relax::DimsToString(shape), " differ in size"));
  }
  DataType it = x.ndim() > 0 ? x.shape()[0]->dtype : DataType::Int64();
  for (const tir::PrimExpr& d : shape) {
    if (!tir::AsConstInt(d)) it = DataType::Int64();
  }
  std::vector<tir::PrimExpr> out_shape = detail::WithIndexType(shape, it);
  std::vector<std::string> names;
  for (size_t d = 0; d < shape.size(); ++d) names.push_back(absl::StrCat("ax", d));
  std::vector<tir::PrimExpr> in_shape = x.shape();
  auto as_index = [&](const tir::PrimExpr& e) { return e->dtype == it ? e : tir::Cast(it, e); };
  return te::Compute(
      out_shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        // Flat row-major offset of the output index, then the input index of that offset.
        tir::PrimExpr flat = tir::IntImm(it, 0);
        for (size_t d = 0; d < out_shape.size(); ++d) {
          flat = tir::operator+(tir::operator*(flat, as_index(out_shape[d])), as_index(i[d]));
        }
        std::vector<tir::PrimExpr> idx(in_shape.size());
        for (int d = static_cast<int>(in_shape.size()) - 1; d >= 0; --d) {
          tir::PrimExpr extent = as_index(in_shape[d]);
          idx[d] = d == 0 ? flat : tir::FloorMod(flat, extent);
          flat = tir::FloorDiv(flat, extent);
        }
        return x(idx);
      },
      "T_reshape", names);
}

}  // namespace topi
}  // namespace mlc
