/*! \file fx_activation.h
 *  \brief Converters of activations: argument 0 through a formula of frontend/common/activations.h
 *         (fx_converters.cc's modules and functions, fx_aten_converters.cc's ATen operators).
 */
#ifndef MLC_FRONTEND_TORCH_FX_ACTIVATION_H_
#define MLC_FRONTEND_TORCH_FX_ACTIVATION_H_

#include "frontend/common/composer.h"
#include "frontend/torch/fx_importer.h"

namespace mlc {
namespace fx {

/*! \brief A converter of argument 0 through a Composer formula `formula(c, x, node)` (those of
 *  frontend/common/activations.h), which reads its parameters from the node; the first error of
 *  the composition is the converter's. */
template <typename Formula>
FxConverter Activation(Formula formula) {
  return [formula](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
    if (!x.ok()) return x.status();
    frontend::Composer c(ctx, *x);
    relax::Expr y = formula(c, *x, node);
    if (!c.status().ok()) return c.status();
    return y;
  };
}

}  // namespace fx
}  // namespace mlc

#endif  // MLC_FRONTEND_TORCH_FX_ACTIVATION_H_
