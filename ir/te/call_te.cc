/*! \file call_te.cc */
#include "ir/te/call_te.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"
#include "ir/tir/shape_expr.h"

namespace mlc {
namespace te {

using relax::Expr;
using relax::Var;

absl::StatusOr<Expr> CallTE(relax::BlockBuilder* bb, const std::string& name_hint, const FTE& f,
                            const std::vector<Expr>& args) {
  return CallTEWithDims(
      bb, name_hint, [&f](const std::vector<Tensor>& t, const std::vector<tir::PrimExpr>&) { return f(t); }, args, {});
}

absl::StatusOr<Expr> CallTEWithDims(relax::BlockBuilder* bb, const std::string& name_hint, const FTEWithDims& f,
                                    const std::vector<Expr>& args, const std::vector<tir::PrimExpr>& given_dims) {
  std::vector<Tensor> placeholders;
  std::vector<Expr> normalized_args;
  tir::DimGeneralizer dims;  // the PrimFunc binds every shape variable from its buffers
  for (size_t i = 0; i < args.size(); ++i) {
    absl::StatusOr<Expr> arg = bb->Normalize(args[i]);
    if (!arg.ok()) return arg.status();
    if ((*arg)->kind() == NodeKind::kCall && bb->InFunction()) {
      absl::StatusOr<Var> v = bb->Emit(*arg);
      if (!v.ok()) return v.status();
      arg = Expr(*v);
    }
    const auto* t = (*arg)->struct_info().as<relax::TensorStructInfoNode>();
    if (t == nullptr || !t->HasKnownShape() || t->dtype.is_void()) {
      return absl::InvalidArgumentError(absl::StrCat(name_hint, ": argument ", i,
                                                     " must be a tensor of known shape, got ",
                                                     relax::StructInfoToString((*arg)->struct_info())));
    }
    // Symbolic dimensions stay expressions of the graph function's shape variables; the
    // PrimFunc binds the same variables from its buffers.
    std::vector<tir::PrimExpr> shape = dims.Generalize(t->Dims());
    std::string name = (*arg)->kind() == NodeKind::kVar || (*arg)->kind() == NodeKind::kDataflowVar
                           ? (*arg).as<relax::VarNode>()->name_hint
                           : std::string(1, static_cast<char>('A' + i % 26));
    placeholders.push_back(PlaceholderWithExtents(shape, t->dtype, name));
    normalized_args.push_back(*arg);
  }
  // A given dimension stays as it is where the inputs bind its variables (`past + seq` from
  // inputs of `past` and `seq`), else it is generalized like theirs (the same fresh variable
  // for the same expression).
  std::vector<const Object*> bound;
  for (const Tensor& p : placeholders) {
    for (const tir::PrimExpr& d : p.shape()) {
      if (tir::Var v = tir::BindingVarOf(d); v.defined()) bound.push_back(v.get());
    }
  }
  std::vector<tir::PrimExpr> given;
  for (const tir::PrimExpr& d : given_dims) {
    std::vector<tir::Var> uses;
    tir::CollectVars(d, &uses);
    bool known = true;
    for (const tir::Var& v : uses) known = known && std::find(bound.begin(), bound.end(), v.get()) != bound.end();
    given.push_back(known ? d : dims.Generalize(d));
  }
  absl::StatusOr<Tensor> out = f(placeholders, given);
  if (!out.ok()) return out.status();
  std::vector<Tensor> func_args = placeholders;
  func_args.push_back(*out);
  absl::StatusOr<tir::PrimFunc> prim = CreatePrimFunc(func_args);
  if (!prim.ok()) return absl::Status(prim.status().code(), absl::StrCat(name_hint, ": ", prim.status().message()));
  relax::GlobalVar gv = bb->AddFunc(*prim, name_hint);
  std::vector<tir::PrimExpr> out_dims;
  for (const tir::PrimExpr& d : out->shape()) {
    if (!tir::IsShapeExpr(d))
      return absl::InvalidArgumentError(absl::StrCat(name_hint, ": the output shape is not a shape expression"));
    out_dims.push_back(dims.Restore(d));
  }
  relax::Call call = relax::MakeCall(relax::GetOpOrDie("call_tir"), {gv, relax::MakeTuple(normalized_args)}, {},
                                     {relax::TensorSInfoOfDims(out_dims, out->dtype())});
  return bb->Normalize(call);
}

absl::StatusOr<Var> EmitTE(relax::BlockBuilder* bb, const std::string& name_hint, const FTE& f,
                           const std::vector<Expr>& args) {
  if (!bb->InFunction()) return absl::FailedPreconditionError("EmitTE outside a function: call BeginFunction first");
  absl::StatusOr<Expr> call = CallTE(bb, name_hint, f, args);
  if (!call.ok()) return call.status();
  return bb->Emit(*call);
}

}  // namespace te
}  // namespace mlc
