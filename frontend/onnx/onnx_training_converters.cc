/*! \file onnx_training_converters.cc
 *  \brief The optimizer updates of the ai.onnx.preview.training domain: Adagrad, Adam and
 *         Momentum (standard and Nesterov), as elementwise arithmetic. An exported training
 *         step ends in them; each updates n tensors at once: inputs R (learning rate), T (update
 *         count), then n X, n G and the optimizer's n-tensor states; outputs the n new X, then
 *         the new states.
 */
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief The node's inputs after R and T in groups of n (X, G, then each state). */
absl::StatusOr<std::vector<std::vector<relax::Expr>>> Groups(OnnxContext& ctx, const onnx::NodeProto& node,
                                                             int groups) {
  const int n = (node.input_size() - 2) / groups;
  if (n < 1 || node.input_size() != 2 + n * groups || node.output_size() != n * (groups - 1)) {
    return absl::InvalidArgumentError(absl::StrCat("expects R, T and ", groups, " groups of n tensors, and ",
                                                   groups - 1, " groups of n outputs; got ", node.input_size(),
                                                   " inputs and ", node.output_size(), " outputs"));
  }
  std::vector<std::vector<relax::Expr>> out(groups);
  for (int g = 0; g < groups; ++g) {
    for (int i = 0; i < n; ++i) {
      absl::StatusOr<relax::Expr> v = ctx.Input(node, 2 + g * n + i);
      if (!v.ok()) return v.status();
      out[g].push_back(*v);
    }
  }
  return out;
}

/*! \brief R, and T as a float of R's dtype, both 0-d. */
absl::StatusOr<std::pair<relax::Expr, relax::Expr>> RateAndCount(OnnxContext& ctx, const onnx::NodeProto& node,
                                                                 Composer& c) {
  absl::StatusOr<relax::Expr> r = ctx.Input(node, 0);
  if (!r.ok()) return r.status();
  absl::StatusOr<relax::Expr> t = ctx.Input(node, 1);
  if (!t.ok()) return t.status();
  const relax::TensorStructInfoNode* rt = TensorOf(*r);
  if (rt == nullptr || !rt->dtype.is_float()) return absl::InvalidArgumentError("R must be a float tensor");
  return std::make_pair(c.Reshape(*r, {}), c.Reshape(c.Cast(*t, rt->dtype), {}));
}

/*! \brief Adagrad: r = R / (1 + T * decay_factor); g = norm_coefficient * X + G; H' = H + g^2;
 *  X' = X - r * g / (sqrt(H') + epsilon). */
Outputs Adagrad(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<std::vector<std::vector<relax::Expr>>> in = Groups(ctx, node, 3);
  if (!in.ok()) return in.status();
  Composer c(ctx, (*in)[0][0]);
  absl::StatusOr<std::pair<relax::Expr, relax::Expr>> rt = RateAndCount(ctx, node, c);
  if (!rt.ok()) return rt.status();
  const double decay = ctx.FloatAttr(node, "decay_factor", 0), epsilon = ctx.FloatAttr(node, "epsilon", 0),
               norm = ctx.FloatAttr(node, "norm_coefficient", 0);
  relax::Expr rate = c.Div(rt->first, c.Add(c.K(1), c.Mul(rt->second, c.K(decay))));
  std::vector<relax::Expr> xs, hs;
  for (size_t i = 0; i < (*in)[0].size(); ++i) {
    const relax::Expr &x = (*in)[0][i], &g = (*in)[1][i], &h = (*in)[2][i];
    relax::Expr gr = c.Add(c.Mul(c.K(norm), x), g);
    relax::Expr h_new = c.Add(h, c.Mul(gr, gr));
    xs.push_back(c.Sub(x, c.Div(c.Mul(rate, gr), c.Add(c.Op("sqrt", {h_new}), c.K(epsilon)))));
    hs.push_back(h_new);
  }
  if (!c.status().ok()) return c.status();
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

/*! \brief Momentum: g = norm_coefficient * X + G; V' = alpha * V + (T > 0 ? beta : 1) * g;
 *  X' = X - R * V' (standard) or X - R * (g + alpha * V') (nesterov). */
Outputs Momentum(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<std::vector<std::vector<relax::Expr>>> in = Groups(ctx, node, 3);
  if (!in.ok()) return in.status();
  const std::string mode = ctx.StringAttr(node, "mode", "standard");
  if (mode != "standard" && mode != "nesterov")
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", mode, "' (standard or nesterov)"));
  Composer c(ctx, (*in)[0][0]);
  absl::StatusOr<std::pair<relax::Expr, relax::Expr>> rt = RateAndCount(ctx, node, c);
  if (!rt.ok()) return rt.status();
  const double alpha = ctx.FloatAttr(node, "alpha", 0), beta = ctx.FloatAttr(node, "beta", 0),
               norm = ctx.FloatAttr(node, "norm_coefficient", 0);
  relax::Expr beta_t = c.Op("where", {c.Op("greater", {rt->second, c.K(0)}), c.K(beta), c.K(1)});
  std::vector<relax::Expr> xs, vs;
  for (size_t i = 0; i < (*in)[0].size(); ++i) {
    const relax::Expr &x = (*in)[0][i], &g = (*in)[1][i], &v = (*in)[2][i];
    relax::Expr gr = c.Add(c.Mul(c.K(norm), x), g);
    relax::Expr v_new = c.Add(c.Mul(c.K(alpha), v), c.Mul(beta_t, gr));
    relax::Expr step = mode == "standard" ? v_new : c.Add(gr, c.Mul(c.K(alpha), v_new));
    xs.push_back(c.Sub(x, c.Mul(rt->first, step)));
    vs.push_back(v_new);
  }
  if (!c.status().ok()) return c.status();
  xs.insert(xs.end(), vs.begin(), vs.end());
  return xs;
}

/*! \brief Adam: g = norm_coefficient * X + G; V' = alpha * V + (1 - alpha) * g;
 *  H' = beta * H + (1 - beta) * g^2; r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R;
 *  X' = (1 - norm_coefficient_post) * (X - r * V' / (sqrt(H') + epsilon)). */
Outputs Adam(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<std::vector<std::vector<relax::Expr>>> in = Groups(ctx, node, 4);
  if (!in.ok()) return in.status();
  Composer c(ctx, (*in)[0][0]);
  absl::StatusOr<std::pair<relax::Expr, relax::Expr>> rt = RateAndCount(ctx, node, c);
  if (!rt.ok()) return rt.status();
  const double alpha = ctx.FloatAttr(node, "alpha", 0.9f), beta = ctx.FloatAttr(node, "beta", 0.999f),
               epsilon = ctx.FloatAttr(node, "epsilon", 1e-6f), norm = ctx.FloatAttr(node, "norm_coefficient", 0),
               norm_post = ctx.FloatAttr(node, "norm_coefficient_post", 0);
  const relax::Expr& t = rt->second;
  relax::Expr corrected = c.Div(c.Mul(rt->first, c.Op("sqrt", {c.Sub(c.K(1), c.Op("power", {c.K(beta), t}))})),
                                c.Sub(c.K(1), c.Op("power", {c.K(alpha), t})));
  relax::Expr rate = c.Op("where", {c.Op("greater", {t, c.K(0)}), corrected, rt->first});
  std::vector<relax::Expr> xs, vs, hs;
  for (size_t i = 0; i < (*in)[0].size(); ++i) {
    const relax::Expr &x = (*in)[0][i], &g = (*in)[1][i], &v = (*in)[2][i], &h = (*in)[3][i];
    relax::Expr gr = c.Add(c.Mul(c.K(norm), x), g);
    relax::Expr v_new = c.Add(c.Mul(c.K(alpha), v), c.Mul(c.K(1 - alpha), gr));
    relax::Expr h_new = c.Add(c.Mul(c.K(beta), h), c.Mul(c.K(1 - beta), c.Mul(gr, gr)));
    relax::Expr x_new = c.Sub(x, c.Mul(rate, c.Div(v_new, c.Add(c.Op("sqrt", {h_new}), c.K(epsilon)))));
    xs.push_back(c.Mul(c.K(1 - norm_post), x_new));
    vs.push_back(v_new);
    hs.push_back(h_new);
  }
  if (!c.status().ok()) return c.status();
  xs.insert(xs.end(), vs.begin(), vs.end());
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

}  // namespace

void RegisterTrainingOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("ai.onnx.preview.training.Adagrad", Adagrad);
  r.Register("ai.onnx.preview.training.Adam", Adam);
  r.Register("ai.onnx.preview.training.Momentum", Momentum);
}

}  // namespace onnx_import
}  // namespace mlc
