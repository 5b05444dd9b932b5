/*! \file shape_expr.h
 *  \brief Symbolic shapes: int64 expressions of shape variables (`n`, `n * 2`,
 *         `(h + 2) // 2 + 1`) as graph-level struct info and PrimFunc buffers use them.
 */
#ifndef MLC_IR_TIR_SHAPE_EXPR_H_
#define MLC_IR_TIR_SHAPE_EXPR_H_

#include <string>
#include <vector>

#include "ir/tir/prim_func.h"

namespace mlc {
namespace tir {

/*! \brief Appends the variables of `e` not yet in `out`, in order of first appearance. */
void CollectVars(const PrimExpr& e, std::vector<Var>* out);

/*! \brief Whether `e` may be a dimension: an integer expression of constants, variables,
 *         + - * // % min max (casts between integer types allowed). */
bool IsShapeExpr(const PrimExpr& e);

/*! \brief Python-like text of a shape expression: `n * 2`, `(h + 2) // 2`, `T.min(a, b)`. */
std::string ShapeExprToString(const PrimExpr& e);

/*! \brief The shape variables of a PrimFunc: those in its parameters' shapes, in order of
 *         first appearance. Code generation passes their values after the buffers, in
 *         this order. */
std::vector<Var> ShapeVarsOf(const PrimFuncNode* func);

/*! \brief The variable a dimension binds: one of the form `v`, `v * c`, `c * v`, `v + c` or
 *         `v - c` (c constant), from which a run time recovers v; an undefined Var otherwise. */
Var BindingVarOf(const PrimExpr& dim);

/*! \brief A variable of `shapes` that no dimension binds (it appears only in `n * m` or
 *         `n // 2`, say), or an undefined Var when there is none: a run time binds each shape
 *         variable from the dimensions of the tensors passed, so every one needs one. */
Var UnbindableShapeVar(const std::vector<std::vector<PrimExpr>>& shapes);

/*! \brief Makes a PrimFunc's dimensions bindable: a dimension no run time can bind a variable
 *         from (`seq * batch`) becomes a fresh variable (`d0`, one per distinct expression), so
 *         the kernel takes any size there; Restore maps its results back to the caller's terms. */
class DimGeneralizer {
 public:
  /*! \brief The fresh variables are `<prefix>0`, `<prefix>1`, ... */
  explicit DimGeneralizer(std::string prefix = "d") : prefix_(std::move(prefix)) {}
  PrimExpr Generalize(const PrimExpr& dim);
  std::vector<PrimExpr> Generalize(const std::vector<PrimExpr>& dims);
  /*! \brief The variables Generalize made for dims seen before; other dims as they are (an
   *  intermediate buffer's sizes, expressions of variables the parameters bind). */
  std::vector<PrimExpr> GeneralizeSeen(const std::vector<PrimExpr>& dims) const;
  /*! \brief `e` with the fresh variables replaced by the expressions they stand for. */
  PrimExpr Restore(const PrimExpr& e) const;

 private:
  std::string prefix_;
  std::vector<std::pair<PrimExpr, Var>> fresh_;
};

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_SHAPE_EXPR_H_
