/*! \file checked_reshape.h
 *  \brief A reshape whose inferred (-1) dimension the compiler cannot prove divides: sizes a
 *         runtime function decided (Keypoint R-CNN's heatmaps resized to each box's size, then
 *         viewed as (17, -1)). The division is checked when the function runs instead.
 */
#ifndef MLC_FRONTEND_COMMON_CHECKED_RESHAPE_H_
#define MLC_FRONTEND_COMMON_CHECKED_RESHAPE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/common/composer.h"
#include "ir/graph/expr.h"
#include "ir/tir/prim_expr.h"

namespace mlc {
namespace frontend {

/*! \brief x (known rank) reshaped to `dims`, dims[infer] (when infer >= 0) being what the others
 *  leave of x's elements. Where that is not provably a whole number, x is flattened, matched
 *  (R.match_cast) against (others * m) for a new shape variable named `name` (the VM binds m and
 *  refuses a size that does not divide) and reshaped with m in place. */
absl::StatusOr<relax::Expr> ReshapeInferring(const EmitFn& emit, const relax::Expr& x, std::vector<tir::PrimExpr> dims,
                                             int infer, const std::string& name);

}  // namespace frontend
}  // namespace mlc

#endif  // MLC_FRONTEND_COMMON_CHECKED_RESHAPE_H_
