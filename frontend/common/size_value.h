/*! \file size_value.h
 *  \brief A size known only when the function runs (`past`, `past + seq`) as a 0-d int64 tensor:
 *         each shape variable read from a value that has it as a dimension (R.dim_value), the
 *         arithmetic as operators. What both importers need where a graph uses a size as data
 *         (ONNX Range(past, past + seq), torch.arange(past, past + seq)).
 */
#ifndef MLC_FRONTEND_COMMON_SIZE_VALUE_H_
#define MLC_FRONTEND_COMMON_SIZE_VALUE_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "frontend/common/composer.h"
#include "ir/tir/prim_expr.h"

namespace mlc {
namespace frontend {

/*! \brief `size` over the shape variables of `values` (an importer's values by name); an error
 *  names a variable none of them has as a dimension, or an operation sizes do not use. */
absl::StatusOr<relax::Expr> SizeAsTensor(const EmitFn& emit, const std::map<std::string, relax::Expr>& values,
                                         const tir::PrimExpr& size);

}  // namespace frontend
}  // namespace mlc

#endif  // MLC_FRONTEND_COMMON_SIZE_VALUE_H_
