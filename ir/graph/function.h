/*! \file function.h
 *  \brief A graph-level function: parameters, a SeqExpr body, and the declared result.
 */
#ifndef MLC_IR_GRAPH_FUNCTION_H_
#define MLC_IR_GRAPH_FUNCTION_H_

#include <vector>

#include "ir/graph/expr.h"
#include "ir/tir/prim_func.h"

namespace mlc {
namespace relax {

/*! \brief The shape variables `params`' struct info names, in order of first appearance. */
std::vector<tir::Var> ParamShapeVars(const std::vector<Var>& params);

class FunctionNode : public BaseFuncNode {
 public:
  MLC_DECLARE_NODE(Function)
  FunctionNode(std::vector<Var> params, SeqExpr body, StructInfo ret_struct_info, Attrs attrs)
      : BaseFuncNode(kKind, std::move(attrs)),
        params(std::move(params)),
        body(std::move(body)),
        ret_struct_info(std::move(ret_struct_info)) {}
  const std::vector<Var> params;
  const SeqExpr body;
  const StructInfo ret_struct_info;

  /*! \brief The signature, for calls of this function. */
  StructInfo GetStructInfo() const;
  /*! \brief The shape variables the signature defines (its parameters' dims), in order of
   *         first appearance. */
  std::vector<tir::Var> SignatureShapeVars() const;
  /*! \brief Every shape variable of the function: the signature's, then those the body's
   *         R.match_cast bindings define, in binding order. */
  std::vector<tir::Var> ShapeVars() const;
  /*! \brief Fused sub-functions carry the attribute "Primitive" = 1. */
  bool IsPrimitive() const { return GetIntAttr(attrs, "Primitive", 0) != 0; }
};
using Function = Ref<FunctionNode>;

/*! \brief A function whose declared result is the body's struct info unless given. */
Function MakeFunction(std::vector<Var> params, SeqExpr body, StructInfo ret_struct_info = nullptr, Attrs attrs = {});

/*! \brief The same function with one attribute set. */
Function WithAttr(const Function& func, const std::string& key, AttrValue value);

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_GRAPH_FUNCTION_H_
