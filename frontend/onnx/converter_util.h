/*! \file converter_util.h
 *  \brief Small helpers shared by the ONNX converter files.
 */
#ifndef MLC_FRONTEND_ONNX_CONVERTER_UTIL_H_
#define MLC_FRONTEND_ONNX_CONVERTER_UTIL_H_

#include <vector>

#include "absl/strings/str_cat.h"
#include "frontend/common/composer.h"
#include "frontend/common/static_shape.h"
#include "frontend/onnx/onnx_importer.h"
#include "ir/graph/shape_util.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace onnx_import {

using Outputs = absl::StatusOr<std::vector<relax::Expr>>;

inline Outputs One(absl::StatusOr<relax::Expr> e) {
  if (!e.ok()) return e.status();
  return std::vector<relax::Expr>{*e};
}

// Shapes as integers: frontend/common/static_shape.h, shared with the other importers.
using frontend::KnownShape;
using frontend::StaticShape;
using frontend::TensorOf;

/*! \brief reshape of `x` to `dims`: the shape attribute when they are constants, else the
 *  target as reshape's struct info. */
inline Outputs ReshapeToDims(OnnxContext& ctx, const relax::Expr& x, const std::vector<tir::PrimExpr>& dims) {
  std::vector<int64_t> shape;
  for (const tir::PrimExpr& d : dims) {
    const int64_t* v = tir::AsConstInt(d);
    if (v == nullptr) return One(ctx.EmitOp("reshape", {x}, {}, {relax::TensorSInfoOfDims(dims, TensorOf(x)->dtype)}));
    shape.push_back(*v);
  }
  return One(ctx.EmitOp("reshape", {x}, {{"shape", shape}}));
}

/*! \brief ReshapeToDims's one value. */
inline absl::StatusOr<relax::Expr> Reshaped(OnnxContext& ctx, const relax::Expr& x,
                                            const std::vector<tir::PrimExpr>& dims) {
  Outputs r = ReshapeToDims(ctx, x, dims);
  if (!r.ok()) return r.status();
  return r->front();
}

/*! \brief The 1-D (NCW) or 2-D (NCHW) convolution of x by w with the node's window attributes
 *  (kernel_shape, strides, dilations, pads or auto_pad, group), as Conv reads them
 *  (onnx_nn_converters.cc). */
absl::StatusOr<relax::Expr> EmitConv(OnnxContext& ctx, const onnx::NodeProto& node, const relax::Expr& x,
                                     const relax::Expr& w);
/*! \brief A (C,) vector as (C, 1, ..., 1) with `spatial_dims` ones, so that it broadcasts over the
 *  channels of NC(H)W data. */
absl::StatusOr<relax::Expr> PerChannel(OnnxContext& ctx, const relax::Expr& v, int spatial_dims = 2);

/*! \brief A result of data-dependent size: its dtype and dimensions, shape variables where the
 *  runtime function decides them. */
struct AllocatedResult {
  DataType dtype;
  std::vector<tir::PrimExpr> dims;
};
/*! \brief R.call_pure_packed of the runtime function `name` (which allocates its results), each
 *  result R.match_cast to `outs` so what follows sees its sizes named (onnx_library_converters.cc). */
Outputs CallAllocating(OnnxContext& ctx, const std::string& name, std::vector<relax::Expr> args,
                       const std::vector<AllocatedResult>& outs);
/*! \brief A new shape variable naming a data-dependent size of `node`'s results. */
tir::PrimExpr CountVar(const onnx::NodeProto& node);
/*! \brief The shape variables `<output>_d<k>` of a result whose sizes are decided when it runs
 *  (`rank` of them), or the name of the k-th alone. */
std::string OutputDimName(const onnx::NodeProto& node, int64_t k);
std::vector<tir::PrimExpr> OutputDimVars(const onnx::NodeProto& node, int64_t rank);

/*! \brief ONNX Loop (onnx_control_flow_converters.cc), for converters that write their work as
 *  one: a recurrent layer over a sequence of symbolic length, a long Scan. */
Outputs ConvertLoop(OnnxContext& ctx, const onnx::NodeProto& node);

/*! \brief A node appended to `g` (the body of a loop a converter writes as ONNX). */
inline onnx::NodeProto* AddNode(onnx::GraphProto& g, const std::string& op, std::vector<std::string> inputs,
                                std::vector<std::string> outputs) {
  onnx::NodeProto* n = g.add_node();
  n->set_op_type(op);
  for (std::string& i : inputs) n->add_input(std::move(i));
  for (std::string& o : outputs) n->add_output(std::move(o));
  return n;
}

/*! \brief An attribute of `n`, of `type`, for the caller to fill. */
inline onnx::AttributeProto* AddAttr(onnx::NodeProto* n, const std::string& name,
                                     onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

/*! \brief x sliced along `axis` into consecutive pieces of `sizes`, which must add up to the
 *  axis's `length` (Split, SplitToSequence; onnx_transform_converters.cc). */
absl::StatusOr<std::vector<relax::Expr>> SplitAlong(OnnxContext& ctx, const relax::Expr& x, int64_t axis,
                                                    const std::vector<int64_t>& sizes, int64_t length);

/*! \brief An ONNX sequence: the list of its tensors, known at import, held as a relax Tuple
 *  expression that is never emitted (onnx_sequence_converters.cc); null for a tensor. */
inline const relax::TupleNode* AsSequence(const relax::Expr& value) { return value.as<relax::TupleNode>(); }
inline relax::Expr MakeSequence(std::vector<relax::Expr> items) { return relax::MakeTuple(std::move(items)); }

/*! \brief A 0-d constant of `dtype`. */
using frontend::Scalar;

using frontend::Composer;

}  // namespace onnx_import
}  // namespace mlc

#endif  // MLC_FRONTEND_ONNX_CONVERTER_UTIL_H_
