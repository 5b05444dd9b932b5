/*! \file static_shape.h
 *  \brief Reading a value's shape as integers, for converters that need it known: the helpers every
 *         importer shares, with the error that names what needed it.
 */
#ifndef MLC_FRONTEND_COMMON_STATIC_SHAPE_H_
#define MLC_FRONTEND_COMMON_STATIC_SHAPE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ir/graph/expr.h"
#include "ir/graph/shape_util.h"

namespace mlc {
namespace frontend {

/*! \brief A value's tensor struct info, or null when it is not a tensor. */
inline const relax::TensorStructInfoNode* TensorOf(const relax::Expr& e) {
  return e->struct_info().as<relax::TensorStructInfoNode>();
}

/*! \brief The static shape of a value, or an error naming `what`. */
inline absl::StatusOr<std::vector<int64_t>> StaticShape(const relax::Expr& e, const char* what) {
  const auto* t = TensorOf(e);
  if (t == nullptr || !t->shape) return absl::InvalidArgumentError(absl::StrCat(what, " needs a static shape"));
  return *t->shape;
}

/*! \brief The dimensions of a value of known rank, -1 where symbolic (a dynamic batch), for
 *  converters that read only some of them; an error naming `what` when the rank is unknown. */
inline absl::StatusOr<std::vector<int64_t>> KnownShape(const relax::Expr& e, const char* what) {
  const auto* t = TensorOf(e);
  if (t == nullptr || !t->HasKnownShape())
    return absl::InvalidArgumentError(absl::StrCat(what, " needs a known shape"));
  return relax::KnownValues(t->Dims(), {}, what);
}

}  // namespace frontend
}  // namespace mlc

#endif  // MLC_FRONTEND_COMMON_STATIC_SHAPE_H_
