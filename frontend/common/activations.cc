/*! \file activations.cc
 *  \brief The composite activations' formulas (activations.h).
 */
#include "frontend/common/activations.h"

#include <cmath>
#include <utility>

namespace mlc {
namespace frontend {

relax::Expr Clamp(Composer& c, relax::Expr x, std::optional<relax::Expr> lo, std::optional<relax::Expr> hi) {
  if (lo) x = c.Max(x, *lo);
  if (hi) x = c.Min(x, *hi);
  return x;
}

relax::Expr HardSigmoid(Composer& c, relax::Expr x, double alpha, double beta) {
  return c.Min(c.Max(c.Add(c.Mul(x, c.K(alpha)), c.K(beta)), c.K(0)), c.K(1));
}

relax::Expr HardSwish(Composer& c, relax::Expr x) { return c.Mul(x, HardSigmoid(c, x)); }

relax::Expr Gelu(Composer& c, relax::Expr x, GeluApproximation approximation) {
  relax::Expr inner;
  if (approximation == GeluApproximation::kNone) {
    inner = c.Op("erf", {c.Mul(x, c.K(1.0 / std::sqrt(2.0)))});
  } else {
    relax::Expr cube = c.Mul(c.Mul(c.Mul(x, x), x), c.K(0.044715));
    inner = c.Tanh(c.Mul(c.Add(x, cube), c.K(std::sqrt(2.0 / M_PI))));
  }
  return c.Mul(x, c.Mul(c.Add(inner, c.K(1)), c.K(0.5)));
}

relax::Expr Silu(Composer& c, relax::Expr x) { return c.Mul(x, c.Sigmoid(x)); }

relax::Expr LeakyRelu(Composer& c, relax::Expr x, double alpha) {
  return c.Sub(c.Relu(x), c.Mul(c.K(alpha), c.Relu(c.Neg(x))));
}

relax::Expr Elu(Composer& c, relax::Expr x, double alpha, double input_scale) {
  relax::Expr scaled = input_scale == 1.0 ? x : c.Mul(x, c.K(input_scale));
  return c.Add(c.Relu(x), c.Mul(c.K(alpha), c.Sub(c.Exp(c.Min(scaled, c.K(0))), c.K(1))));
}

relax::Expr Selu(Composer& c, relax::Expr x, double alpha, double gamma) { return c.Mul(c.K(gamma), Elu(c, x, alpha)); }

relax::Expr Celu(Composer& c, relax::Expr x, double alpha) {
  return c.Add(c.Relu(x), c.Min(c.K(0), c.Mul(c.K(alpha), c.Sub(c.Exp(c.Div(x, c.K(alpha))), c.K(1)))));
}

relax::Expr Softplus(Composer& c, relax::Expr x, double beta) {
  if (beta == 1.0) return c.Softplus(x);
  return c.Div(c.Softplus(c.Mul(x, c.K(beta))), c.K(beta));
}

relax::Expr Mish(Composer& c, relax::Expr x) { return c.Mul(x, c.Tanh(c.Softplus(x))); }

}  // namespace frontend
}  // namespace mlc
