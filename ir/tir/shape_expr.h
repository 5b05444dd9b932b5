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

/*! \brief A variable of `shapes` that no dimension is equal to by itself (only in `n * 2`,
 *         say), or an undefined Var when there is none. A run time binds each shape
 *         variable from a dimension that is the variable itself, so every one needs one. */
Var UnbindableShapeVar(const std::vector<std::vector<PrimExpr>>& shapes);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_SHAPE_EXPR_H_
