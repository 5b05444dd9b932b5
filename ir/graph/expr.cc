/*! \file expr.cc
 *  \brief Constructors of graph-level expressions.
 */
#include "ir/graph/expr.h"

#include <cassert>

#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"

namespace mlc {
namespace relax {

void ExprNode::SetStructInfoOnce(StructInfo sinfo) const {
  assert(!struct_info_.defined() || struct_info_.same_as(sinfo));
  struct_info_ = std::move(sinfo);
}

Var MakeVar(std::string name_hint, StructInfo sinfo) {
  return Var(new VarNode(std::move(name_hint), std::move(sinfo)));
}
Var MakeDataflowVar(std::string name_hint, StructInfo sinfo) {
  return Var(new DataflowVarNode(std::move(name_hint), std::move(sinfo)));
}

ConstantNode::ConstantNode(TensorData data)
    : ExprNode(kKind, TensorSInfo(data.shape(), data.dtype())), data(std::move(data)) {}
Expr MakeConstant(TensorData data) { return Expr(new ConstantNode(std::move(data))); }

static StructInfo TupleFieldsSInfo(const std::vector<Expr>& fields) {
  std::vector<StructInfo> sinfos;
  for (const Expr& f : fields) {
    if (!f->struct_info().defined()) return StructInfo();
    sinfos.push_back(f->struct_info());
  }
  return TupleSInfo(std::move(sinfos));
}

TupleNode::TupleNode(std::vector<Expr> fields) : ExprNode(kKind, TupleFieldsSInfo(fields)), fields(std::move(fields)) {}
Expr MakeTuple(std::vector<Expr> fields) { return Expr(new TupleNode(std::move(fields))); }

absl::StatusOr<Expr> MakeTupleGetItem(Expr tuple, int index) {
  const auto* tsinfo = tuple->struct_info().as<TupleStructInfoNode>();
  if (tsinfo == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("indexing [", index, "] a value that is not a tuple: ", StructInfoToString(tuple->struct_info())));
  }
  if (index < 0 || index >= static_cast<int>(tsinfo->fields.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("tuple index ", index, " out of range for a tuple of ", tsinfo->fields.size(), " fields"));
  }
  StructInfo field = tsinfo->fields[index];
  return Expr(new TupleGetItemNode(std::move(tuple), index, std::move(field)));
}

Expr MakeShapeExpr(std::vector<tir::PrimExpr> values) { return Expr(new ShapeExprNode(std::move(values))); }
Expr MakeShapeExpr(const std::vector<int64_t>& values) {
  std::vector<tir::PrimExpr> dims;
  for (int64_t v : values) dims.push_back(tir::IntImm(DataType::Int64(), v));
  return MakeShapeExpr(std::move(dims));
}
GlobalVar MakeGlobalVar(std::string name) { return GlobalVar(new GlobalVarNode(std::move(name))); }
Expr MakeExternFunc(std::string global_symbol) { return Expr(new ExternFuncNode(std::move(global_symbol))); }

OpNode::OpNode(const OpInfo* info) : ExprNode(kKind, ObjectSInfo()), info_(info) {}
const std::string& OpNode::name() const { return info_->name; }

Call MakeCall(Expr op, std::vector<Expr> args, Attrs attrs, std::vector<StructInfo> sinfo_args) {
  return Call(new CallNode(std::move(op), std::move(args), std::move(attrs), std::move(sinfo_args)));
}

}  // namespace relax
}  // namespace mlc
