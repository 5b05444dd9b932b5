/*! \file prim_expr_ops.h
 *  \brief Operator overloads and helpers for writing loop-level expressions in C++
 *         (A[i, k] * B[k, j] reads as Load(A, {i, k}) * Load(B, {k, j})).
 *
 *  Mixed operands follow TVM: an int literal takes the other side's dtype, an int64 and an
 *  int32 expression promote to int64.
 */
#ifndef MLC_IR_TIR_PRIM_EXPR_OPS_H_
#define MLC_IR_TIR_PRIM_EXPR_OPS_H_

#include <string>
#include <vector>

#include "ir/tir/buffer.h"
#include "ir/tir/prim_expr.h"
#include "ir/tir/stmt.h"

namespace mlc {
namespace tir {

/*! \brief A literal of `dtype` (int or float). */
PrimExpr Const(DataType dtype, double value);
inline PrimExpr I32(int64_t v) { return IntImm(DataType::Int32(), v); }
inline PrimExpr I64(int64_t v) { return IntImm(DataType::Int64(), v); }
inline PrimExpr F32(double v) { return FloatImm(DataType::Float32(), v); }
inline PrimExpr True() { return IntImm(DataType::Bool(), 1); }

/*! \brief Brings `a` and `b` to one dtype (int64 wins over int32; literals adapt). */
void MatchTypes(PrimExpr* a, PrimExpr* b);

PrimExpr operator+(PrimExpr a, PrimExpr b);
PrimExpr operator-(PrimExpr a, PrimExpr b);
PrimExpr operator*(PrimExpr a, PrimExpr b);
PrimExpr operator/(PrimExpr a, PrimExpr b);
PrimExpr operator<(PrimExpr a, PrimExpr b);
PrimExpr operator<=(PrimExpr a, PrimExpr b);
PrimExpr operator>(PrimExpr a, PrimExpr b);
PrimExpr operator>=(PrimExpr a, PrimExpr b);
PrimExpr operator&&(PrimExpr a, PrimExpr b);
PrimExpr operator||(PrimExpr a, PrimExpr b);
PrimExpr operator!(PrimExpr a);
PrimExpr operator-(PrimExpr a);
PrimExpr operator+(PrimExpr a, int64_t b);
PrimExpr operator-(PrimExpr a, int64_t b);
PrimExpr operator*(PrimExpr a, int64_t b);
PrimExpr operator<(PrimExpr a, int64_t b);
PrimExpr operator<=(PrimExpr a, int64_t b);
PrimExpr operator>(PrimExpr a, int64_t b);
PrimExpr operator>=(PrimExpr a, int64_t b);
PrimExpr FloorDiv(PrimExpr a, int64_t b);
PrimExpr FloorMod(PrimExpr a, int64_t b);
PrimExpr Eq(PrimExpr a, PrimExpr b);
PrimExpr Ne(PrimExpr a, PrimExpr b);
PrimExpr FloorDiv(PrimExpr a, PrimExpr b);
PrimExpr FloorMod(PrimExpr a, PrimExpr b);
PrimExpr Max(PrimExpr a, PrimExpr b);
PrimExpr Min(PrimExpr a, PrimExpr b);
/*! \brief cond ? t : f with both sides evaluated (a vector select; loads must be in bounds). */
PrimExpr Select(PrimExpr cond, PrimExpr t, PrimExpr f);
/*! \brief cond ? t : f evaluating only the side chosen (T.if_then_else): for loads the condition
 *  guards. */
PrimExpr IfThenElse(PrimExpr cond, PrimExpr t, PrimExpr f);
PrimExpr Cast(DataType dtype, PrimExpr value);
/*! \brief A math intrinsic ("exp", "sqrt", ...); the result has the first argument's dtype. */
PrimExpr Intrinsic(const std::string& name, std::vector<PrimExpr> args);

PrimExpr Load(const Buffer& buffer, std::vector<PrimExpr> indices);
Stmt Store(const Buffer& buffer, std::vector<PrimExpr> indices, PrimExpr value);

/*! \brief The smallest and largest value of an int dtype, as a literal of it. */
PrimExpr MinValue(DataType dtype);
PrimExpr MaxValue(DataType dtype);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_PRIM_EXPR_OPS_H_
