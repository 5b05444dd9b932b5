/*! \file fx_recurrent_converters.cc
 *  \brief nn.RNN, nn.GRU and nn.LSTM modules (layers, directions, batch_first, biases, initial
 *         states), each layer unrolled by frontend/common/recurrent.h. PyTorch orders the gates
 *         LSTM (i, f, g, o) and GRU (r, z, n); the weights are reordered to ONNX's (i, o, f, c)
 *         and (z, r, h) at import (constant slices fold), and PyTorch's GRU is ONNX's
 *         linear_before_reset.
 */
#include "absl/strings/str_cat.h"
#include "frontend/common/recurrent.h"
#include "frontend/torch/fx_converter_util.h"

namespace mlc {
namespace fx {
namespace {

using frontend::RecurrentCell;

/*! \brief The positional or keyword argument `i` of a call as its list of values (LSTM's (h0, c0)),
 *  one value as a list of one, none as empty. */
absl::StatusOr<std::vector<relax::Expr>> ArgValues(FxContext& ctx, const proto::FxNode& node, int i,
                                                   const std::string& keyword) {
  const proto::FxArg* arg = i < node.args_size() ? &node.args(i) : nullptr;
  if (arg == nullptr) {
    auto it = node.kwargs().find(keyword);
    if (it != node.kwargs().end()) arg = &it->second;
  }
  std::vector<relax::Expr> out;
  if (arg == nullptr || arg->value_case() == proto::FxArg::kNone) return out;
  if (arg->value_case() != proto::FxArg::kList) {
    absl::StatusOr<relax::Expr> v = ctx.Value(*arg);
    if (!v.ok()) return v.status();
    return std::vector<relax::Expr>{*v};
  }
  for (const proto::FxArg& item : arg->list().items()) {
    absl::StatusOr<relax::Expr> v = ctx.Value(item);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return out;
}

/*! \brief nn.RNN / nn.GRU / nn.LSTM (x[, h0 or (h0, c0)]) -> (output, h_n) or (output, (h_n, c_n)). */
FxConverter ConvertRecurrent(RecurrentCell cell) {
  return [cell](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    const bool lstm = cell == RecurrentCell::kLstm;
    absl::StatusOr<relax::Expr> input = ctx.Arg(node, 0);
    if (!input.ok()) return input.status();
    if (FloatOf(node, "proj_size", 0) != 0)
      return absl::UnimplementedError("LSTM with proj_size (projected hidden states) is not supported");
    const int64_t hidden = static_cast<int64_t>(FloatOf(node, "hidden_size", 0));
    const int64_t layers = static_cast<int64_t>(FloatOf(node, "num_layers", 1));
    const bool batch_first = BoolOf(node, "batch_first", false);
    const int directions = BoolOf(node, "bidirectional", false) ? 2 : 1;
    const bool bias = BoolOf(node, "bias", true);
    std::string activation = "Tanh";
    if (cell == RecurrentCell::kRnn) {
      const std::string nonlinearity = StringOf(node, "nonlinearity", "tanh");
      if (nonlinearity != "tanh" && nonlinearity != "relu")
        return absl::InvalidArgumentError(absl::StrCat("nonlinearity '", nonlinearity, "' is not tanh or relu"));
      activation = nonlinearity == "relu" ? "Relu" : "Tanh";
    }
    if (RankOf(*input) != 3) return absl::UnimplementedError("only batched input (rank 3) is supported");
    frontend::Composer c(ctx, *input);
    auto swap01 = [&](const relax::Expr& v) { return c.Permute(v, {1, 0, 2}); };
    // PyTorch's gate blocks in ONNX's order.
    const std::vector<int> order = lstm                          ? std::vector<int>{0, 3, 1, 2}
                                   : cell == RecurrentCell::kGru ? std::vector<int>{1, 0, 2}
                                                                 : std::vector<int>{0};
    auto reorder = [&](const relax::Expr& v) {
      if (order.size() == 1) return v;
      std::vector<relax::Expr> blocks;
      for (int k : order) blocks.push_back(c.Slice(v, 0, k * hidden, (k + 1) * hidden));
      return c.Op("concat", blocks, {{"axis", int64_t{0}}});
    };

    absl::StatusOr<std::vector<relax::Expr>> states = ArgValues(ctx, node, 1, "hx");
    if (!states.ok()) return states.status();
    if (!states->empty() && states->size() != (lstm ? 2u : 1u))
      return absl::InvalidArgumentError(lstm ? "hx must be (h0, c0)" : "hx must be one tensor");
    relax::Expr x = batch_first ? swap01(*input) : *input;
    if (!c.status().ok()) return c.status();
    const auto* xt = x->struct_info().as<relax::TensorStructInfoNode>();
    if (xt == nullptr || !xt->shape)
      return absl::UnimplementedError("the input needs a static shape (a dynamic batch or sequence is not supported)");
    const int64_t seq = (*xt->shape)[0], batch = (*xt->shape)[1];

    std::vector<relax::Expr> hs, cs;
    for (int64_t l = 0; l < layers; ++l) {
      frontend::RecurrentLayer layer;
      layer.cell = cell;
      layer.hidden = hidden;
      layer.linear_before_reset = true;
      std::vector<std::string> names = frontend::DefaultActivationNames(cell);
      if (cell == RecurrentCell::kRnn) names = {activation};
      absl::StatusOr<std::vector<frontend::CellActivation>> acts = frontend::CellActivations(names, {}, {});
      if (!acts.ok()) return acts.status();
      for (int d = 0; d < directions; ++d) {
        const std::string suffix = absl::StrCat("_l", l, d == 1 ? "_reverse" : "");
        frontend::RecurrentDirection dir;
        dir.reverse = d == 1;
        dir.activations = *acts;
        const std::string prefix = node.target() + ".";
        absl::StatusOr<relax::Expr> w = ctx.Param(prefix + "weight_ih" + suffix);
        absl::StatusOr<relax::Expr> r = ctx.Param(prefix + "weight_hh" + suffix);
        if (!w.ok()) return w.status();
        if (!r.ok()) return r.status();
        dir.w = reorder(*w);
        dir.r = reorder(*r);
        if (bias) {
          absl::StatusOr<relax::Expr> wb = ctx.Param(prefix + "bias_ih" + suffix);
          absl::StatusOr<relax::Expr> rb = ctx.Param(prefix + "bias_hh" + suffix);
          if (!wb.ok()) return wb.status();
          if (!rb.ok()) return rb.status();
          dir.wb = reorder(*wb);
          dir.rb = reorder(*rb);
        }
        // h0 and c0 are (layers * directions, batch, hidden), layer-major.
        const int64_t index = l * directions + d;
        if (!states->empty()) {
          dir.h0 = c.Reshape(c.Slice((*states)[0], 0, index, index + 1), {batch, hidden});
          if (lstm) dir.c0 = c.Reshape(c.Slice((*states)[1], 0, index, index + 1), {batch, hidden});
        }
        layer.directions.push_back(dir);
      }
      if (!c.status().ok()) return c.status();
      absl::StatusOr<frontend::RecurrentOutputs> out =
          frontend::EmitRecurrentLayer(frontend::EmitterOf(ctx), layer, x, std::nullopt);
      if (!out.ok()) return absl::Status(out.status().code(), absl::StrCat("layer ", l, ": ", out.status().message()));
      // (seq, directions, batch, hidden) -> (seq, batch, directions * hidden): the next layer's input.
      x = c.Reshape(c.Permute(out->y, {0, 2, 1, 3}), {seq, batch, directions * hidden});
      hs.push_back(out->h);
      cs.push_back(out->c);
    }
    relax::Expr output = batch_first ? swap01(x) : x;
    relax::Expr h = layers == 1 ? hs[0] : c.Op("concat", hs, {{"axis", int64_t{0}}});
    relax::Expr cell_state = layers == 1 ? cs[0] : c.Op("concat", cs, {{"axis", int64_t{0}}});
    if (!c.status().ok()) return c.status();
    return relax::MakeTuple({output, lstm ? relax::MakeTuple({h, cell_state}) : h});
  };
}

}  // namespace

void RegisterRecurrentFxConverters(FxConverterRegistry& r) {
  using K = FxConverterRegistry;
  r.Register(K::kModule, "RNN", ConvertRecurrent(RecurrentCell::kRnn));
  r.Register(K::kModule, "GRU", ConvertRecurrent(RecurrentCell::kGru));
  r.Register(K::kModule, "LSTM", ConvertRecurrent(RecurrentCell::kLstm));
}

}  // namespace fx
}  // namespace mlc
