/*! \file arith_simplify.h
 *  \brief A small rewriting simplifier for loop-level index arithmetic: constant folding,
 *         identities (x + 0, x * 1, x * 0, min/max of constants), and reassociation of
 *         constant offsets ((x + 1) + 2 -> x + 3). Enough to keep lowered indices readable and
 *         to remove the guards that lowering adds when they are statically known.
 */
#ifndef MLC_IR_TIR_ARITH_SIMPLIFY_H_
#define MLC_IR_TIR_ARITH_SIMPLIFY_H_

#include "ir/tir/prim_expr.h"
#include "ir/tir/stmt.h"

namespace mlc {
namespace tir {

PrimExpr Simplify(const PrimExpr& expr);
/*! \brief Simplifies every expression; drops `if` statements whose condition is constant. */
Stmt Simplify(const Stmt& stmt);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_ARITH_SIMPLIFY_H_
