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

/*! \brief The index into `t` for output index `out` under NumPy broadcasting against
 *  `out_shape`: dimensions of `t` that are the constant 1 where the output's is not read
 *  element 0. Dimensions may be symbolic (shape inference has proven them equal). */
inline std::vector<tir::PrimExpr> BroadcastIndex(const te::Tensor& t, const std::vector<tir::Var>& out,
                                                 const std::vector<tir::PrimExpr>& out_shape) {
  std::vector<tir::PrimExpr> index;
  const std::vector<tir::PrimExpr>& t_shape = t.shape();
  size_t offset = out.size() - t_shape.size();
  for (size_t d = 0; d < t_shape.size(); ++d) {
    const int64_t* td = tir::AsConstInt(t_shape[d]);
    const int64_t* od = tir::AsConstInt(out_shape[d + offset]);
    if (td != nullptr && *td == 1 && (od == nullptr || *od != 1)) {
      index.push_back(tir::Const(t_shape[d]->dtype, 0));
    } else {
      index.push_back(out[d + offset]);
    }
  }
  return index;
}

/*! \brief Constant dimensions as constants of the index type `it`; symbolic ones unchanged. */
inline std::vector<tir::PrimExpr> WithIndexType(const std::vector<tir::PrimExpr>& dims, DataType it) {
  std::vector<tir::PrimExpr> out;
  for (const tir::PrimExpr& d : dims) {
    const int64_t* v = tir::AsConstInt(d);
    out.push_back(v != nullptr ? tir::IntImm(it, *v) : d);
  }
  return out;
}

}  // namespace detail
}  // namespace topi
}  // namespace mlc

#endif  // MLC_IR_TOPI_INDEX_UTIL_H_
