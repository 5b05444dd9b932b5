/*! \file tensor_type.h
 *  \brief Declared tensor types into the executable: dtype, rank and shape, with symbolic
 *         dimensions as proto::DimExpr over a function's or kernel's shape variables.
 */
#ifndef MLC_CODEGEN_TENSOR_TYPE_H_
#define MLC_CODEGEN_TENSOR_TYPE_H_

#include <vector>

#include "absl/status/status.h"
#include "ir/tir/prim_expr.h"
#include "vm/executable.pb.h"

namespace mlc {
namespace codegen {

/*! \brief The shape variables of one function or kernel, numbered in order. */
class ShapeVarTable {
 public:
  explicit ShapeVarTable(const std::vector<tir::Var>& vars);
  /*! \brief Index of `var`, or -1. */
  int IndexOf(const tir::TirVarNode* var) const;
  const std::vector<tir::Var>& vars() const { return vars_; }

 private:
  std::vector<tir::Var> vars_;
};

/*! \brief One dimension (constant or shape expression of `vars`). */
absl::Status DimToProto(const tir::PrimExpr& dim, const ShapeVarTable& vars, proto::DimExpr* out);

/*! \brief A known shape: `shape` when every dimension is constant, else `symbolic_dims`. */
absl::Status SetTensorShape(const std::vector<tir::PrimExpr>& dims, const ShapeVarTable& vars, proto::TensorType* out);

}  // namespace codegen
}  // namespace mlc

#endif  // MLC_CODEGEN_TENSOR_TYPE_H_
