/*! \file onnx_activation_converters.cc
 *  \brief ONNX activations and elementwise math composed of the operator library's elementwise
 *         operators (fuse-ops puts each composition back into one kernel; the formulas shared
 *         with the torch importers are in frontend/common/activations.h): HardSigmoid,
 *         HardSwish, LeakyRelu, PRelu, Elu, Selu, Celu, Softplus, Softsign, Mish, Reciprocal,
 *         the variadic Min, Max, Sum, Mean, and BitShift.
 */
#include <cmath>

#include "frontend/common/activations.h"
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief A converter of input 0 through `formula(c, x, node)`. */
template <typename Formula>
OnnxConverter Activation(Formula formula) {
  return [formula](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    Composer c(ctx, *x);
    return c.Result(formula(c, *x, ctx, node));
  };
}

/*! \brief Min, Max, Sum, Mean: any number of inputs, broadcast. */
OnnxConverter Variadic(const char* op, bool mean) {
  return [op, mean](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    if (node.input_size() == 0) return absl::InvalidArgumentError("needs at least one input");
    absl::StatusOr<relax::Expr> first = ctx.Input(node, 0);
    if (!first.ok()) return first.status();
    Composer c(ctx, *first);
    relax::Expr acc = *first;
    for (int i = 1; i < node.input_size(); ++i) {
      absl::StatusOr<relax::Expr> x = ctx.Input(node, i);
      if (!x.ok()) return x.status();
      acc = c.Op(op, {acc, *x});
    }
    if (mean && node.input_size() > 1) acc = c.Div(acc, c.K(node.input_size()));
    return c.Result(acc);
  };
}

/*! \brief BitShift of unsigned integers by constant amounts: x * 2^y (LEFT, wrapping as the shift
 *  does) or x / 2^y (RIGHT); a shift by the width or more gives 0. */
Outputs BitShift(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  const DataType dtype = TensorOf(*x)->dtype;
  if (!dtype.is_uint())
    return absl::InvalidArgumentError(absl::StrCat("BitShift takes unsigned integers, not ", dtype.ToString()));
  const std::string direction = ctx.StringAttr(node, "direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return absl::InvalidArgumentError(absl::StrCat("direction '", direction, "' is not LEFT or RIGHT"));
  absl::StatusOr<std::vector<int64_t>> amounts = ctx.ConstantInts(node, 1, "the shift amounts (input Y)");
  if (!amounts.ok()) return amounts.status();
  const TensorData* y = ctx.ConstantInput(node, 1);
  std::vector<double> factors, keep;
  for (int64_t a : *amounts) {
    const bool inside = a >= 0 && a < dtype.bits();
    factors.push_back(inside ? std::ldexp(1.0, static_cast<int>(a)) : 1.0);
    keep.push_back(inside ? 1.0 : 0.0);
  }
  Composer c(ctx, *x);
  relax::Expr factor = relax::MakeConstant(TensorFromDoubles(dtype, y->shape(), factors));
  relax::Expr shifted = direction == "LEFT" ? c.Mul(*x, factor) : c.Div(*x, factor);
  return c.Result(c.Mul(shifted, relax::MakeConstant(TensorFromDoubles(dtype, y->shape(), keep))));
}

}  // namespace

void RegisterActivationOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("BitShift", BitShift);
  using C = Composer;
  using Ctx = OnnxContext;
  using Node = onnx::NodeProto;
  r.Register("HardSigmoid", Activation([](C& c, relax::Expr x, Ctx& ctx, const Node& n) {
               return HardSigmoid(c, x, ctx.FloatAttr(n, "alpha", 0.2f), ctx.FloatAttr(n, "beta", 0.5f));
             }));
  r.Register("HardSwish", Activation([](C& c, relax::Expr x, Ctx&, const Node&) { return HardSwish(c, x); }));
  r.Register("LeakyRelu", Activation([](C& c, relax::Expr x, Ctx& ctx, const Node& n) {
               return LeakyRelu(c, x, ctx.FloatAttr(n, "alpha", 0.01f));
             }));
  r.Register("PRelu", [](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    absl::StatusOr<relax::Expr> slope = ctx.Input(node, 1);
    if (!slope.ok()) return slope.status();
    Composer c(ctx, *x);
    return c.Result(c.Sub(c.Relu(*x), c.Mul(*slope, c.Relu(c.Neg(*x)))));
  });
  r.Register("Elu", Activation([](C& c, relax::Expr x, Ctx& ctx, const Node& n) {
               return Elu(c, x, ctx.FloatAttr(n, "alpha", 1.0f));
             }));
  r.Register("Selu", Activation([](C& c, relax::Expr x, Ctx& ctx, const Node& n) {
               return Selu(c, x, ctx.FloatAttr(n, "alpha", 1.67326319217681884765625f),
                           ctx.FloatAttr(n, "gamma", 1.05070102214813232421875f));
             }));
  r.Register("Celu", Activation([](C& c, relax::Expr x, Ctx& ctx, const Node& n) {
               return Celu(c, x, ctx.FloatAttr(n, "alpha", 1.0f));
             }));
  // x where x > alpha, else 0.
  r.Register("ThresholdedRelu", [](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    DataType dtype = TensorOf(*x)->dtype;
    absl::StatusOr<relax::Expr> above = ctx.EmitOp("greater", {*x, Scalar(ctx.FloatAttr(node, "alpha", 1.0f), dtype)});
    if (!above.ok()) return above.status();
    return One(ctx.EmitOp("where", {*above, *x, Scalar(0, dtype)}));
  });
  r.Register("Shrink", Activation([](C& c, relax::Expr x, Ctx& ctx, const Node& n) {
               // x + bias below -lambd, x - bias above lambd, 0 between.
               const double lambd = ctx.FloatAttr(n, "lambd", 0.5f), bias = ctx.FloatAttr(n, "bias", 0.0f);
               relax::Expr above = c.Op("where", {c.Op("greater", {x, c.K(lambd)}), c.Sub(x, c.K(bias)), c.K(0)});
               return c.Op("where", {c.Op("less", {x, c.K(-lambd)}), c.Add(x, c.K(bias)), above});
             }));
  r.Register("Softplus", Activation([](C& c, relax::Expr x, Ctx&, const Node&) { return Softplus(c, x); }));
  r.Register("Softsign",
             Activation([](C& c, relax::Expr x, Ctx&, const Node&) { return c.Div(x, c.Add(c.K(1), c.Abs(x))); }));
  r.Register("Mish", Activation([](C& c, relax::Expr x, Ctx&, const Node&) { return Mish(c, x); }));
  r.Register("Reciprocal", Activation([](C& c, relax::Expr x, Ctx&, const Node&) { return c.Div(c.K(1), x); }));
  r.Register("Min", Variadic("minimum", false));
  r.Register("Max", Variadic("maximum", false));
  r.Register("Sum", Variadic("add", false));
  r.Register("Mean", Variadic("add", true));
}

}  // namespace onnx_import
}  // namespace mlc
