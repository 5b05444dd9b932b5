/*! \file triangle.h
 *  \brief triu / tril whose diagonal is known only when the function runs (ONNX Trilu's k as an
 *         input computed from the graph, torch.triu(x, diagonal=past + 1)): a constant diagonal
 *         is the triu / tril operators' attribute; this one is compared with column - row.
 */
#ifndef MLC_FRONTEND_COMMON_TRIANGLE_H_
#define MLC_FRONTEND_COMMON_TRIANGLE_H_

#include "absl/status/statusor.h"
#include "frontend/common/composer.h"
#include "ir/graph/expr.h"

namespace mlc {
namespace frontend {

/*! \brief x where column - row >= k (upper) or <= k (lower) over its last two dimensions (which
 *  may be symbolic), 0 elsewhere; k is a 0-d or one-element integer tensor. */
absl::StatusOr<relax::Expr> TriangleWithRuntimeDiagonal(const EmitFn& emit, const relax::Expr& x, const relax::Expr& k,
                                                        bool upper);

}  // namespace frontend
}  // namespace mlc

#endif  // MLC_FRONTEND_COMMON_TRIANGLE_H_
