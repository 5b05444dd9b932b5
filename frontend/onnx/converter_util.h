/*! \file converter_util.h
 *  \brief Small helpers shared by the ONNX converter files.
 */
#ifndef MLC_FRONTEND_ONNX_CONVERTER_UTIL_H_
#define MLC_FRONTEND_ONNX_CONVERTER_UTIL_H_

#include <vector>

#include "absl/strings/str_cat.h"
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

inline const relax::TensorStructInfoNode* TensorOf(const relax::Expr& e) {
  return e->struct_info().as<relax::TensorStructInfoNode>();
}

/*! \brief The static shape of a value, or an error naming `what`. */
inline absl::StatusOr<std::vector<int64_t>> StaticShape(const relax::Expr& e, const char* what) {
  const auto* t = TensorOf(e);
  if (t == nullptr || !t->shape) return absl::InvalidArgumentError(absl::StrCat(what, " needs a static shape"));
  return *t->shape;
}

/*! \brief The dimensions of a value of known shape, -1 where symbolic (a dynamic batch), for
 *  converters that read only some of them; an error naming `what` when the shape is unknown. */
inline absl::StatusOr<std::vector<int64_t>> KnownShape(const relax::Expr& e, const char* what) {
  const auto* t = TensorOf(e);
  if (t == nullptr || !t->HasKnownShape()) return absl::InvalidArgumentError(absl::StrCat(what, " needs a known shape"));
  return relax::KnownValues(t->Dims(), {}, what);
}

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
inline absl::StatusOr<relax::Expr> Reshaped(OnnxContext& ctx, const relax::Expr& x, const std::vector<tir::PrimExpr>& dims) {
  Outputs r = ReshapeToDims(ctx, x, dims);
  if (!r.ok()) return r.status();
  return r->front();
}

/*! \brief The 1-D (NCW) or 2-D (NCHW) convolution of x by w with the node's window attributes
 *  (kernel_shape, strides, dilations, pads or auto_pad, group), as Conv reads them
 *  (onnx_nn_converters.cc). */
absl::StatusOr<relax::Expr> EmitConv(OnnxContext& ctx, const onnx::NodeProto& node, const relax::Expr& x, const relax::Expr& w);
/*! \brief A (C,) vector as (C, 1, ..., 1) with `spatial_dims` ones, so that it broadcasts over the
 *  channels of NC(H)W data. */
absl::StatusOr<relax::Expr> PerChannel(OnnxContext& ctx, const relax::Expr& v, int spatial_dims = 2);

/*! \brief A 0-d constant of `dtype`. */
inline relax::Expr Scalar(double value, DataType dtype) { return relax::MakeConstant(ScalarTensor(value, dtype)); }

/*! \brief Emits a composition of operators, keeping the first error (so a formula reads as one). */
class Composer {
 public:
  Composer(OnnxContext& ctx, const relax::Expr& like) : ctx_(ctx) {
    const auto* t = TensorOf(like);
    dtype_ = t != nullptr ? t->dtype : DataType::Float32();
  }

  relax::Expr Op(const char* op, std::vector<relax::Expr> args, Attrs attrs = {}) {
    if (!status_.ok()) return args[0];
    relax::Expr fallback = args[0];
    absl::StatusOr<relax::Expr> e = ctx_.EmitOp(op, std::move(args), std::move(attrs));
    if (!e.ok()) {
      status_ = e.status();
      return fallback;
    }
    return *e;
  }
  relax::Expr K(double v) const { return Scalar(v, dtype_); }  // a constant of the input's dtype

  relax::Expr Add(relax::Expr a, relax::Expr b) { return Op("add", {a, b}); }
  relax::Expr Sub(relax::Expr a, relax::Expr b) { return Op("subtract", {a, b}); }
  relax::Expr Mul(relax::Expr a, relax::Expr b) { return Op("multiply", {a, b}); }
  relax::Expr Div(relax::Expr a, relax::Expr b) { return Op("divide", {a, b}); }
  relax::Expr Max(relax::Expr a, relax::Expr b) { return Op("maximum", {a, b}); }
  relax::Expr Min(relax::Expr a, relax::Expr b) { return Op("minimum", {a, b}); }
  relax::Expr Relu(relax::Expr a) { return Op("nn.relu", {a}); }
  relax::Expr Neg(relax::Expr a) { return Op("negative", {a}); }
  relax::Expr Exp(relax::Expr a) { return Op("exp", {a}); }
  relax::Expr Log(relax::Expr a) { return Op("log", {a}); }
  relax::Expr Tanh(relax::Expr a) { return Op("tanh", {a}); }
  relax::Expr Abs(relax::Expr a) { return Op("abs", {a}); }
  /*! log(1 + e^a) without overflow: relu(a) + log(1 + e^-|a|). */
  relax::Expr Cast(relax::Expr a, DataType dtype) { return Op("astype", {a}, {{"dtype", dtype}}); }
  relax::Expr Softplus(relax::Expr a) { return Add(Relu(a), Log(Add(K(1), Exp(Neg(Abs(a)))))); }

  /*! \brief Takes a value made elsewhere into the composition (its error becomes the first). */
  relax::Expr Take(absl::StatusOr<relax::Expr> e, relax::Expr fallback) {
    if (e.ok()) return *e;
    if (status_.ok()) status_ = e.status();
    return fallback;
  }

  const absl::Status& status() const { return status_; }
  Outputs Result(std::vector<relax::Expr> values) const {
    if (!status_.ok()) return status_;
    return values;
  }
  Outputs Result(const relax::Expr& e) const { return Result(std::vector<relax::Expr>{e}); }

 private:
  OnnxContext& ctx_;
  DataType dtype_;
  absl::Status status_;
};

}  // namespace onnx_import
}  // namespace mlc

#endif  // MLC_FRONTEND_ONNX_CONVERTER_UTIL_H_
