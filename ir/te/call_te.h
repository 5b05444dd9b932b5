/*! \file call_te.h
 *  \brief Tensor expressions into a graph-level function: the seeds' `bb.emit_te` and
 *         `bb.call_te`. The PrimFunc built from the expression is added to the builder's
 *         module and called through call_tir.
 */
#ifndef MLC_IR_TE_CALL_TE_H_
#define MLC_IR_TE_CALL_TE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/block_builder.h"
#include "ir/te/tensor.h"

namespace mlc {
namespace te {

/*! \brief A tensor-expression function: input placeholders -> output tensor. */
using FTE = std::function<absl::StatusOr<Tensor>(const std::vector<Tensor>&)>;

/*! \brief Makes a PrimFunc from `f` on placeholders shaped like `args` (named after the
 *         argument vars), adds it to the module as `name_hint` (made unique; an equal PrimFunc
 *         already there is reused), and returns the call_tir that calls it. */
absl::StatusOr<relax::Expr> CallTE(relax::BlockBuilder* bb, const std::string& name_hint, const FTE& f,
                                   const std::vector<relax::Expr>& args);
/*! \brief A tensor expression of an operator whose result's shape is given rather than derived
 *  from its inputs (arange's length, broadcast_to's target): it also receives those dimensions. */
using FTEWithDims =
    std::function<absl::StatusOr<Tensor>(const std::vector<Tensor>&, const std::vector<tir::PrimExpr>&)>;
/*! \brief CallTE for such an operator: `dims` (the graph function's terms, `past + seq`) reach
 *  `f` in the PrimFunc's terms, generalized as the inputs' dimensions are (a fresh variable
 *  where no buffer could bind the expression), so the kernel binds every variable it names. */
absl::StatusOr<relax::Expr> CallTEWithDims(relax::BlockBuilder* bb, const std::string& name_hint, const FTEWithDims& f,
                                           const std::vector<relax::Expr>& args,
                                           const std::vector<tir::PrimExpr>& dims);
/*! \brief bb->Emit(CallTE(...)): must be inside a function. */
absl::StatusOr<relax::Var> EmitTE(relax::BlockBuilder* bb, const std::string& name_hint, const FTE& f,
                                  const std::vector<relax::Expr>& args);

}  // namespace te
}  // namespace mlc

#endif  // MLC_IR_TE_CALL_TE_H_
