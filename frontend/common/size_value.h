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

/*! \brief arange(start, limit, step) of integer sizes (constants or shape expressions) as a 1-d
 *  tensor of `dtype`: its length a shape expression, ceil((limit - start) / step) (and no less
 *  than 0 where sizes could make it so), its values start + step * i. Constant start and step
 *  make one arange; sizes among them are read when the function runs (SizeAsTensor). A symbolic
 *  step is a size, so positive; a constant one may be negative, not 0. */
absl::StatusOr<relax::Expr> SizeRange(const EmitFn& emit, const std::map<std::string, relax::Expr>& values,
                                      const tir::PrimExpr& start, const tir::PrimExpr& limit, const tir::PrimExpr& step,
                                      DataType dtype);

}  // namespace frontend
}  // namespace mlc

#endif  // MLC_FRONTEND_COMMON_SIZE_VALUE_H_
