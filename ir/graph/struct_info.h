/*! \file struct_info.h
 *  \brief What is known statically about a graph-level value: tensor shape and dtype,
 *         tuple structure, shape values, or a function signature.
 */
#ifndef MLC_IR_GRAPH_STRUCT_INFO_H_
#define MLC_IR_GRAPH_STRUCT_INFO_H_

#include <optional>
#include <string>
#include <vector>

#include "ir/core/object.h"
#include "ir/tir/prim_expr.h"
#include "support/dtype.h"

namespace mlc {
namespace relax {

class StructInfoNode : public Object {
 public:
  explicit StructInfoNode(NodeKind kind) : Object(kind) {}
  static bool IsInstance(const Object* obj) { return CategoryOf(obj->kind()) == NodeCategory::kStructInfo; }
};
using StructInfo = Ref<StructInfoNode>;

/*! \brief Any value; nothing known. */
class ObjectStructInfoNode : public StructInfoNode {
 public:
  MLC_DECLARE_NODE(ObjectStructInfo)
  ObjectStructInfoNode() : StructInfoNode(kKind) {}
};

/*! \brief A scalar of the given dtype. */
class PrimStructInfoNode : public StructInfoNode {
 public:
  MLC_DECLARE_NODE(PrimStructInfo)
  explicit PrimStructInfoNode(DataType dtype) : StructInfoNode(kKind), dtype(dtype) {}
  const DataType dtype;
};

/*! \brief A shape value (what R.shape / ShapeExpr produce): ndim and, when known, the dims
 *         (int64 constants or expressions of shape variables). */
class ShapeStructInfoNode : public StructInfoNode {
 public:
  MLC_DECLARE_NODE(ShapeStructInfo)
  ShapeStructInfoNode(int ndim, std::optional<std::vector<tir::PrimExpr>> values)
      : StructInfoNode(kKind), ndim(ndim), values(std::move(values)) {}
  const int ndim;  // -1: unknown
  const std::optional<std::vector<tir::PrimExpr>> values;
};

/*! \brief A tensor: dtype, rank (-1 when unknown) and, when known, the shape.
 *
 *  A known shape is static (`shape`: every dimension a constant) or symbolic (`symbolic_dims`:
 *  some dimension an int64 expression of the function's shape variables, `("n", 784)`); at
 *  most one of the two is set. Code that needs constants reads `shape` and sees a symbolic
 *  tensor as one of unknown shape; code that handles both reads `Dims()`. */
class TensorStructInfoNode : public StructInfoNode {
 public:
  MLC_DECLARE_NODE(TensorStructInfo)
  TensorStructInfoNode(std::optional<std::vector<int64_t>> shape, DataType dtype, int ndim)
      : StructInfoNode(kKind), shape(std::move(shape)), dtype(dtype), ndim(ndim) {}
  /*! \brief A known shape of any kind: static when every dimension is a constant. */
  TensorStructInfoNode(std::vector<tir::PrimExpr> dims, DataType dtype);
  const std::optional<std::vector<int64_t>> shape;
  const std::optional<std::vector<tir::PrimExpr>> symbolic_dims;
  const DataType dtype;  // void: unknown
  const int ndim;        // -1: unknown; equals the number of dimensions when the shape is known

  bool HasKnownShape() const { return shape.has_value() || symbolic_dims.has_value(); }
  bool IsSymbolic() const { return symbolic_dims.has_value(); }
  /*! \brief The known shape as expressions (int64 constants for a static one); empty when
   *         the shape is unknown. */
  std::vector<tir::PrimExpr> Dims() const;
};
using TensorStructInfo = Ref<TensorStructInfoNode>;

class TupleStructInfoNode : public StructInfoNode {
 public:
  MLC_DECLARE_NODE(TupleStructInfo)
  explicit TupleStructInfoNode(std::vector<StructInfo> fields) : StructInfoNode(kKind), fields(std::move(fields)) {}
  const std::vector<StructInfo> fields;
};

class FuncStructInfoNode : public StructInfoNode {
 public:
  MLC_DECLARE_NODE(FuncStructInfo)
  FuncStructInfoNode(std::vector<StructInfo> params, StructInfo ret)
      : StructInfoNode(kKind), params(std::move(params)), ret(std::move(ret)) {}
  const std::vector<StructInfo> params;
  const StructInfo ret;
};

StructInfo ObjectSInfo();
StructInfo PrimSInfo(DataType dtype);
StructInfo TensorSInfo(std::vector<int64_t> shape, DataType dtype);
StructInfo TensorSInfoUnknownShape(DataType dtype, int ndim);
/*! \brief A tensor of known shape, symbolic or not (constant dims make a static shape). */
StructInfo TensorSInfoOfDims(std::vector<tir::PrimExpr> dims, DataType dtype);

/*! \brief The shape variables of `sinfo` (tensor dims, recursively), in order of first
 *         appearance, each once. */
void CollectShapeVars(const StructInfo& sinfo, std::vector<tir::Var>* out);
/*! \brief `sinfo` as seen where only the shape variables `keep` are defined: a tensor whose
 *         dims use another variable keeps its dtype and rank but not its shape. A function's
 *         result seen by its callers is its body's, erased to the signature's variables. */
StructInfo EraseShapeVars(const StructInfo& sinfo, const std::vector<tir::Var>& keep);
StructInfo ShapeSInfo(std::vector<tir::PrimExpr> values);
StructInfo TupleSInfo(std::vector<StructInfo> fields);
StructInfo FuncSInfo(std::vector<StructInfo> params, StructInfo ret);

/*! \brief Human-readable form for error messages: "Tensor((1, 784), float32)". */
std::string StructInfoToString(const StructInfo& sinfo);

/*! \brief Whether a value described by `value` may be used where `expected` is declared
 *         (equal, or `expected` is less specific: unknown shape, dtype, rank or Object). */
bool IsBaseOf(const StructInfo& expected, const StructInfo& value);

/*! \brief The most specific struct info both `a` and `b` satisfy (the result of a branch):
 *         `a` when they agree; tensors keep the dtype and rank they share, not a shape that
 *         differs; tuples join field by field; otherwise Object. */
StructInfo JoinStructInfo(const StructInfo& a, const StructInfo& b);

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_GRAPH_STRUCT_INFO_H_
