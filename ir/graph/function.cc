/*! \file function.cc
 *  \brief Graph-level function helpers.
 */
#include "ir/graph/function.h"

#include "ir/graph/op.h"
#include "ir/tir/shape_expr.h"

namespace mlc {
namespace relax {

StructInfo FunctionNode::GetStructInfo() const {
  std::vector<StructInfo> param_sinfo;
  for (const Var& p : params) param_sinfo.push_back(p->struct_info());
  return FuncSInfo(std::move(param_sinfo), ret_struct_info);
}

std::vector<tir::Var> ParamShapeVars(const std::vector<Var>& params) {
  std::vector<tir::Var> vars;
  for (const Var& p : params) CollectShapeVars(p->struct_info(), &vars);
  return vars;
}

std::vector<tir::Var> FunctionNode::SignatureShapeVars() const { return ParamShapeVars(params); }

std::vector<tir::Var> FunctionNode::ShapeVars() const {
  std::vector<tir::Var> vars = SignatureShapeVars();
  for (const BindingBlock& block : body->blocks) {
    for (const VarBinding& b : block->bindings) {
      if (const TensorStructInfoNode* target = MatchCastTarget(b->value)) {
        for (const tir::PrimExpr& d : target->Dims()) tir::CollectVars(d, &vars);
      }
    }
  }
  return vars;
}

Function MakeFunction(std::vector<Var> params, SeqExpr body, StructInfo ret_struct_info, Attrs attrs) {
  if (!ret_struct_info.defined()) {
    // Shapes in terms of variables an R.match_cast defines mean nothing to callers.
    ret_struct_info = EraseShapeVars(body->struct_info(), ParamShapeVars(params));
  }
  return Function(new FunctionNode(std::move(params), std::move(body), std::move(ret_struct_info), std::move(attrs)));
}

Function WithAttr(const Function& func, const std::string& key, AttrValue value) {
  Attrs attrs = func->attrs;
  attrs[key] = std::move(value);
  return Function(new FunctionNode(func->params, func->body, func->ret_struct_info, std::move(attrs)));
}

}  // namespace relax
}  // namespace mlc
