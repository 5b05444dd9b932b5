/*! \file composer.h
 *  \brief Formulas of operator-library calls for the importers: a Composer emits each call through
 *         the importer's context and keeps the first error, so a formula reads as one expression.
 */
#ifndef MLC_FRONTEND_COMMON_COMPOSER_H_
#define MLC_FRONTEND_COMMON_COMPOSER_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/core/attrs.h"
#include "ir/graph/expr.h"
#include "support/tensor_data.h"

namespace mlc {
namespace frontend {

/*! \brief Emits one operator call: an importer context's EmitOp (which evaluates calls whose
 *  arguments are all constants). `sinfo_args` gives the result's struct info where the
 *  attributes cannot hold it (an arange of a symbolic length); empty otherwise. */
using EmitFn = std::function<absl::StatusOr<relax::Expr>(const std::string& op, std::vector<relax::Expr> args,
                                                         Attrs attrs, std::vector<relax::StructInfo> sinfo_args)>;

/*! \brief An importer context's EmitOp (anything with EmitOp(op, args, attrs, sinfo_args)) as
 *  an EmitFn. */
template <typename Context,
          typename = decltype(std::declval<Context&>().EmitOp("", {}, Attrs{}, std::vector<relax::StructInfo>{}))>
EmitFn EmitterOf(Context& ctx) {
  return [&ctx](const std::string& op, std::vector<relax::Expr> args, Attrs attrs,
                std::vector<relax::StructInfo> sinfo_args) {
    return sinfo_args.empty() ? ctx.EmitOp(op, std::move(args), std::move(attrs))
                              : ctx.EmitOp(op, std::move(args), std::move(attrs), std::move(sinfo_args));
  };
}

/*! \brief A 0-d constant of `dtype`. */
inline relax::Expr Scalar(double value, DataType dtype) { return relax::MakeConstant(ScalarTensor(value, dtype)); }

class Composer {
 public:
  /*! \brief `like`'s dtype is the dtype of K's constants. */
  Composer(EmitFn emit, const relax::Expr& like) : emit_(std::move(emit)) {
    const auto* t = like->struct_info().as<relax::TensorStructInfoNode>();
    dtype_ = t != nullptr ? t->dtype : DataType::Float32();
  }
  /*! \brief Over an importer's context (anything with EmitOp(op, args, attrs)). */
  template <typename Context, typename = decltype(std::declval<Context&>().EmitOp("", {}, Attrs{}))>
  Composer(Context& ctx, const relax::Expr& like) : Composer(EmitterOf(ctx), like) {}

  relax::Expr Op(const char* op, std::vector<relax::Expr> args, Attrs attrs = {}) {
    relax::Expr fallback = args[0];
    if (!status_.ok()) return fallback;
    return Take(emit_(op, std::move(args), std::move(attrs), {}), fallback);
  }
  relax::Expr K(double v) const { return Scalar(v, dtype_); }  // a constant of the input's dtype
  DataType dtype() const { return dtype_; }

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
  relax::Expr Sigmoid(relax::Expr a) { return Op("sigmoid", {a}); }
  relax::Expr Abs(relax::Expr a) { return Op("abs", {a}); }
  relax::Expr Cast(relax::Expr a, DataType dtype) { return Op("astype", {a}, {{"dtype", dtype}}); }
  /*! a[begin:end] along one axis. */
  relax::Expr Slice(relax::Expr a, int64_t axis, int64_t begin, int64_t end) {
    return Op("strided_slice", {a},
              {{"axes", std::vector<int64_t>{axis}},
               {"begin", std::vector<int64_t>{begin}},
               {"end", std::vector<int64_t>{end}}});
  }
  relax::Expr Reshape(relax::Expr a, std::vector<int64_t> shape) {
    return Op("reshape", {a}, {{"shape", std::move(shape)}});
  }
  relax::Expr Permute(relax::Expr a, std::vector<int64_t> axes) {
    return Op("permute_dims", {a}, {{"axes", std::move(axes)}});
  }
  /*! log(1 + e^a) without overflow: relu(a) + log(1 + e^-|a|). */
  relax::Expr Softplus(relax::Expr a) { return Add(Relu(a), Log(Add(K(1), Exp(Neg(Abs(a)))))); }

  /*! \brief Takes a value made elsewhere into the composition (its error becomes the first). */
  relax::Expr Take(absl::StatusOr<relax::Expr> e, relax::Expr fallback) {
    if (e.ok()) return *e;
    if (status_.ok()) status_ = e.status();
    return fallback;
  }

  const absl::Status& status() const { return status_; }
  absl::StatusOr<std::vector<relax::Expr>> Result(std::vector<relax::Expr> values) const {
    if (!status_.ok()) return status_;
    return values;
  }
  absl::StatusOr<std::vector<relax::Expr>> Result(const relax::Expr& e) const {
    return Result(std::vector<relax::Expr>{e});
  }

 private:
  EmitFn emit_;
  DataType dtype_;
  absl::Status status_;
};

}  // namespace frontend
}  // namespace mlc

#endif  // MLC_FRONTEND_COMMON_COMPOSER_H_
