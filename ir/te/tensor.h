/*! \file tensor.h
 *  \brief Tensor expressions: placeholder, compute, reduce_axis and sum/max/min, the way the
 *         seeds' `te` module builds loop programs (te_matmul, te_relu...).
 *
 *  A te::Tensor owns a tir::Buffer; indexing a tensor, `A({i, k})`, is a BufferLoad of that
 *  buffer, so a compute body is an ordinary loop-level expression. CreatePrimFunc then turns
 *  the computations into blocks and keeps the buffers: the tensors passed become parameters,
 *  the others become alloc_buffers.
 */
#ifndef MLC_IR_TE_TENSOR_H_
#define MLC_IR_TE_TENSOR_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/prim_func.h"

namespace mlc {
namespace te {

/*! \brief A reduction axis: te.reduce_axis((0, extent), name). */
struct ReduceAxis {
  tir::Var var;
  tir::PrimExpr extent;
  operator tir::PrimExpr() const { return var; }  // NOLINT: used as an index.
};
ReduceAxis MakeReduceAxis(tir::PrimExpr extent, const std::string& name);

enum class ReduceKind { kSum, kProd, kMax, kMin };

/*! \brief What a compute function returns: a plain value, or a reduction over axes. */
struct ComputeValue {
  ComputeValue(tir::PrimExpr value) : value(std::move(value)) {}  // NOLINT
  tir::PrimExpr value;
  std::optional<ReduceKind> reduce;
  std::vector<ReduceAxis> axes;
};
ComputeValue Sum(tir::PrimExpr source, std::vector<ReduceAxis> axes);
ComputeValue Prod(tir::PrimExpr source, std::vector<ReduceAxis> axes);
ComputeValue Max(tir::PrimExpr source, std::vector<ReduceAxis> axes);
ComputeValue Min(tir::PrimExpr source, std::vector<ReduceAxis> axes);

struct TensorNode;

/*! \brief A tensor of a tensor-expression program: a placeholder (input) or a computation. */
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<const TensorNode> node) : node_(std::move(node)) {}

  const tir::Buffer& buffer() const;
  const std::vector<tir::PrimExpr>& shape() const;
  DataType dtype() const;
  const std::string& name() const;
  int ndim() const { return static_cast<int>(shape().size()); }
  bool defined() const { return node_ != nullptr; }
  const TensorNode* get() const { return node_.get(); }

  /*! \brief A(i, j): the element, as a loop-level load. */
  tir::PrimExpr operator()(std::vector<tir::PrimExpr> indices) const;

 private:
  std::shared_ptr<const TensorNode> node_;
};

struct TensorNode {
  tir::Buffer buffer;
  bool is_placeholder = true;
  // Computations only:
  std::vector<tir::Var> axes;  // one per output dimension
  ComputeValue body{tir::PrimExpr()};
  std::vector<Tensor> inputs;  // tensors the body reads, in order of first use
  Attrs attrs;                 // PrimFunc attributes the op asks for (layout_free_buffers)
};

/*! \brief te.placeholder(shape, dtype, name), integer extents as int32 (printed `128`). */
Tensor Placeholder(const std::vector<int64_t>& shape, DataType dtype, const std::string& name);
/*! \brief A placeholder with explicit extent expressions (e.g. int64, printed T.int64(128)). */
Tensor PlaceholderWithExtents(std::vector<tir::PrimExpr> shape, DataType dtype, const std::string& name);

using FCompute = std::function<ComputeValue(const std::vector<tir::Var>&)>;

/*! \brief te.compute(shape, fcompute, name): `axis_names` names the index variables
 *         (default i0, i1, ...); the body may read any tensors by calling them. */
Tensor Compute(std::vector<tir::PrimExpr> shape, const FCompute& fcompute, const std::string& name,
               std::vector<std::string> axis_names = {}, Attrs attrs = {}, DataType dtype = DataType::Void());

/*! \brief te.create_prim_func([inputs..., outputs...]): every tensor computed on the way to
 *         the outputs becomes a block; those not listed become alloc_buffers; a placeholder
 *         that is read but not listed is an error. */
absl::StatusOr<tir::PrimFunc> CreatePrimFunc(const std::vector<Tensor>& args);

}  // namespace te
}  // namespace mlc

#endif  // MLC_IR_TE_TENSOR_H_
