/*! \file index_util.h
 *  \brief Index helpers the operator-library files share (internal to ir/topi).
 */
#ifndef MLC_IR_TOPI_INDEX_UTIL_H_
#define MLC_IR_TOPI_INDEX_UTIL_H_

#include <vector>

#include "ir/te/tensor.h"

namespace mlc {
namespace topi {
namespace detail {

/*! \brief An index constant of the index type `t`. */
inline tir::PrimExpr C(DataType t, int64_t v) { return tir::IntImm(t, v); }

/*! \brief int64 when any extent of the tensors is int64 (imported modules), else int32. */
inline DataType IndexType(const std::vector<te::Tensor>& ts) {
  for (const te::Tensor& t : ts) {
    for (const tir::PrimExpr& d : t.shape()) {
      if (d->dtype == DataType::Int64()) return DataType::Int64();
    }
  }
  return DataType::Int32();
}

/*! \brief The index into `t` (static shape `t_shape`) for output index `out` under NumPy
 *  broadcasting against `out_shape`: broadcast dimensions read element 0. */
inline std::vector<tir::PrimExpr> BroadcastIndex(const te::Tensor& t, const std::vector<int64_t>& t_shape,
                                                 const std::vector<tir::Var>& out, const std::vector<int64_t>& out_shape) {
  std::vector<tir::PrimExpr> index;
  size_t offset = out.size() - t_shape.size();
  for (size_t d = 0; d < t_shape.size(); ++d) {
    if (t_shape[d] == 1 && out_shape[d + offset] != 1) {
      index.push_back(tir::Const(t.shape()[d]->dtype, 0));
    } else {
      index.push_back(out[d + offset]);
    }
  }
  return index;
}

}  // namespace detail
}  // namespace topi
}  // namespace mlc

#endif  // MLC_IR_TOPI_INDEX_UTIL_H_
