/*! \file checked_reshape.cc
 *  \brief Reshapes checked when they run (checked_reshape.h).
 */
#include "frontend/common/checked_reshape.h"

#include "absl/strings/str_cat.h"
#include "ir/graph/shape_util.h"
#include "ir/graph/struct_info.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace frontend {

absl::StatusOr<relax::Expr> ReshapeInferring(const EmitFn& emit, const relax::Expr& x, std::vector<tir::PrimExpr> dims,
                                             int infer, const std::string& name) {
  const auto* t = x->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape()) return absl::InvalidArgumentError("reshape needs an input of known shape");
  const DataType dtype = t->dtype;
  auto reshape = [&](const relax::Expr& v, const std::vector<tir::PrimExpr>& to) {
    return emit("reshape", {v}, {}, {relax::TensorSInfoOfDims(to, dtype)});
  };
  if (infer < 0) return reshape(x, dims);
  const std::vector<tir::PrimExpr> in = t->Dims();
  std::vector<tir::PrimExpr> others;
  tir::PrimExpr known = tir::I64(1), total = tir::I64(1);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (static_cast<int>(d) == infer) continue;
    others.push_back(dims[d]);
    known = known * dims[d];
  }
  for (const tir::PrimExpr& d : in) total = total * d;
  known = tir::Analyzer().Simplify(known);
  dims[infer] = relax::InferredReshapeDim(in, others);
  if (relax::DimsEqual(total, known * dims[infer])) return reshape(x, dims);
  absl::StatusOr<relax::Expr> flat = reshape(x, {total});
  if (!flat.ok()) return flat;
  // The VM binds a variable from c * v: the other dimensions must be constants here.
  if (tir::AsConstInt(known) == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat("cannot reshape ", relax::DimsToString(in), " to ", relax::DimsToString(dims),
                     ": the sizes are not provably equal, and the others are not constants"));
  }
  const tir::Var rest = tir::MakeVar(name, DataType::Int64());
  absl::StatusOr<relax::Expr> matched =
      emit("match_cast", {*flat}, {}, {relax::TensorSInfoOfDims({known * rest}, dtype)});
  if (!matched.ok()) return matched;
  dims[infer] = rest;
  return reshape(*matched, dims);
}

}  // namespace frontend
}  // namespace mlc
