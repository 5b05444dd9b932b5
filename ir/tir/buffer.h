/*! \file buffer.h
 *  \brief A multi-dimensional buffer of the loop level: a PrimFunc parameter or an
 *         alloc_buffer. Identity is the pointer; two buffers with equal fields are distinct.
 */
#ifndef MLC_IR_TIR_BUFFER_H_
#define MLC_IR_TIR_BUFFER_H_

#include <string>
#include <vector>

#include "ir/tir/prim_expr.h"

namespace mlc {
namespace tir {

class BufferNode : public Object {
 public:
  MLC_DECLARE_NODE(Buffer)
  BufferNode(std::string name, std::vector<PrimExpr> shape, DataType dtype)
      : Object(kKind), name(std::move(name)), shape(std::move(shape)), dtype(dtype) {}
  const std::string name;
  /*! \brief Extents, outermost first; IntImm of int32 or int64 (the text keeps which). */
  const std::vector<PrimExpr> shape;
  const DataType dtype;

  int ndim() const { return static_cast<int>(shape.size()); }
};

Buffer MakeBuffer(std::string name, std::vector<PrimExpr> shape, DataType dtype);

/*! \brief A half-open range [min, min + extent). */
struct Range {
  PrimExpr min;
  PrimExpr extent;
};

/*! \brief The region of a buffer a block reads or writes (T.reads / T.writes). */
struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region;
};

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_BUFFER_H_
