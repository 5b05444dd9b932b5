/*! \file status_macros.h
 *  \brief Early returns on absl::Status errors, the one spelling the code base uses.
 *
 *    MLC_ASSIGN_OR_RETURN(shape, InferShape(x));   // declares `shape` or returns the error
 *    MLC_RETURN_IF_ERROR(Check(x));
 */
#ifndef MLC_SUPPORT_STATUS_MACROS_H_
#define MLC_SUPPORT_STATUS_MACROS_H_

#include <utility>

#define MLC_ASSIGN_OR_RETURN(lhs, expr)         \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = *std::move(lhs##_or)

#define MLC_RETURN_IF_ERROR(expr)              \
  do {                                         \
    absl::Status _mlc_status = (expr);         \
    if (!_mlc_status.ok()) return _mlc_status; \
  } while (0)

#endif  // MLC_SUPPORT_STATUS_MACROS_H_
