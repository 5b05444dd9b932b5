/*! \file activations.h
 *  \brief Composite activations, written once for every importer (ONNX, torch.fx, ATen): each is a
 *         formula of the operator library's elementwise operators, which fuse-ops puts back into
 *         one kernel. An importer reads its node's parameters and calls the formula.
 */
#ifndef MLC_FRONTEND_COMMON_ACTIVATIONS_H_
#define MLC_FRONTEND_COMMON_ACTIVATIONS_H_

#include <optional>

#include "frontend/common/composer.h"

namespace mlc {
namespace frontend {

/*! \brief min(max(x, lo), hi), either bound absent (Clip, clamp, Hardtanh, ReLU6). */
relax::Expr Clamp(Composer& c, relax::Expr x, std::optional<relax::Expr> lo, std::optional<relax::Expr> hi);

/*! \brief min(max(alpha * x + beta, 0), 1); PyTorch's Hardsigmoid is alpha = 1/6, beta = 1/2. */
relax::Expr HardSigmoid(Composer& c, relax::Expr x, double alpha = 1.0 / 6.0, double beta = 0.5);

/*! \brief x * HardSigmoid(x) (MobileNetV3). */
relax::Expr HardSwish(Composer& c, relax::Expr x);

enum class GeluApproximation { kNone, kTanh };

/*! \brief x * 0.5 * (1 + erf(x / sqrt(2))), or with kTanh
 *  x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))). */
relax::Expr Gelu(Composer& c, relax::Expr x, GeluApproximation approximation);

/*! \brief x * sigmoid(x) (SiLU, Swish; SwiGLU's gate). */
relax::Expr Silu(Composer& c, relax::Expr x);

/*! \brief relu(x) - alpha * relu(-x): exact for any alpha, negative or above 1 included. */
relax::Expr LeakyRelu(Composer& c, relax::Expr x, double alpha);

/*! \brief relu(x) + alpha * (exp(min(input_scale * x, 0)) - 1) (ATen's elu has the input scale). */
relax::Expr Elu(Composer& c, relax::Expr x, double alpha, double input_scale = 1.0);

/*! \brief gamma * Elu(x, alpha); the defaults are the self-normalizing constants ONNX and PyTorch use. */
relax::Expr Selu(Composer& c, relax::Expr x, double alpha = 1.67326319217681884765625,
                 double gamma = 1.05070102214813232421875);

/*! \brief max(0, x) + min(0, alpha * (exp(x / alpha) - 1)). */
relax::Expr Celu(Composer& c, relax::Expr x, double alpha);

/*! \brief log(1 + e^(beta x)) / beta without overflow; PyTorch's linear region above `threshold`
 *  (x where beta x > threshold) is left out: there the two differ by less than e^-threshold. */
relax::Expr Softplus(Composer& c, relax::Expr x, double beta = 1.0);

/*! \brief x * tanh(softplus(x)). */
relax::Expr Mish(Composer& c, relax::Expr x);

}  // namespace frontend
}  // namespace mlc

#endif  // MLC_FRONTEND_COMMON_ACTIVATIONS_H_
