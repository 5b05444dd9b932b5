/*! \file onnx_recurrent_converters.cc
 *  \brief ONNX RNN, GRU and LSTM (opsets 7-14 and later: directions, initial states, biases,
 *         peepholes, sequence_lens, layout 0 and 1, activations with alpha/beta, clip), unrolled
 *         by frontend/common/recurrent.h over the static sequence length.
 */
#include <algorithm>

#include "frontend/common/recurrent.h"
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

using frontend::RecurrentCell;

/*! \brief Inputs: X, W, R, B, sequence_lens, initial_h (and LSTM's initial_c, P). Outputs: Y, Y_h
 *  (and LSTM's Y_c). */
OnnxConverter Recurrent(RecurrentCell cell) {
  return [cell](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    const bool lstm = cell == RecurrentCell::kLstm;
    std::vector<relax::Expr> in(lstm ? 8 : 6);
    std::vector<bool> has(in.size(), false);
    for (size_t i = 0; i < in.size(); ++i) {
      if (!ctx.HasInput(node, static_cast<int>(i))) continue;
      absl::StatusOr<relax::Expr> v = ctx.Input(node, static_cast<int>(i));
      if (!v.ok()) return v.status();
      in[i] = *v;
      has[i] = true;
    }
    if (!has[0] || !has[1] || !has[2]) return absl::InvalidArgumentError("X, W and R are required");
    Composer c(ctx, in[0]);
    const int64_t layout = ctx.IntAttr(node, "layout", 0);
    if (layout != 0 && layout != 1) return absl::InvalidArgumentError(absl::StrCat("layout ", layout, " is not 0 or 1"));
    auto swap01 = [&](const relax::Expr& v) { return c.Permute(v, {1, 0, 2}); };
    // layout 1 is batch-major: X (batch, seq, input), states (batch, directions, hidden).
    relax::Expr x = layout == 1 ? swap01(in[0]) : in[0];
    if (!c.status().ok()) return c.status();
    absl::StatusOr<std::vector<int64_t>> xs = StaticShape(x, "X (pin symbolic sizes with --dim)");
    if (!xs.ok()) return xs.status();
    absl::StatusOr<std::vector<int64_t>> rs = StaticShape(in[2], "R");
    if (!rs.ok()) return rs.status();
    if (xs->size() != 3 || rs->size() != 3) return absl::InvalidArgumentError("X and R must have rank 3");
    const int64_t seq = (*xs)[0], batch = (*xs)[1];

    frontend::RecurrentLayer layer;
    layer.cell = cell;
    const int gates = frontend::GateCount(cell);
    layer.hidden = ctx.IntAttr(node, "hidden_size", (*rs)[2]);
    if ((*rs)[1] != gates * layer.hidden || (*rs)[2] != layer.hidden) {
      return absl::InvalidArgumentError(absl::StrCat("R has shape (", (*rs)[0], ", ", (*rs)[1], ", ", (*rs)[2], "), not (directions, ", gates, " * ",
                                                     layer.hidden, ", ", layer.hidden, ") for hidden_size ", layer.hidden));
    }
    layer.clip = ctx.HasAttr(node, "clip") ? ctx.FloatAttr(node, "clip", 0) : 0;
    layer.linear_before_reset = ctx.IntAttr(node, "linear_before_reset", 0) != 0;
    layer.input_forget = ctx.IntAttr(node, "input_forget", 0) != 0;
    const std::string direction = ctx.StringAttr(node, "direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
      return absl::InvalidArgumentError(absl::StrCat("direction '", direction, "' is not forward, reverse or bidirectional"));
    }
    const int directions = direction == "bidirectional" ? 2 : 1;
    if ((*rs)[0] != directions) return absl::InvalidArgumentError(absl::StrCat("R has ", (*rs)[0], " directions, direction '", direction, "' needs ", directions));

    // Activations: one list per direction, forward's first; a single list serves both.
    std::vector<std::string> names = ctx.StringsAttr(node, "activations");
    const size_t per_direction = frontend::DefaultActivationNames(cell).size();
    if (names.empty()) {
      for (int d = 0; d < directions; ++d) {
        for (const std::string& n : frontend::DefaultActivationNames(cell)) names.push_back(n);
      }
    } else if (names.size() == per_direction && directions == 2) {
      names.insert(names.end(), names.begin(), names.end());
    } else if (names.size() != per_direction * directions) {
      return absl::InvalidArgumentError(absl::StrCat("activations lists ", names.size(), " functions; ", direction, " needs ", per_direction * directions));
    }
    absl::StatusOr<std::vector<frontend::CellActivation>> acts =
        frontend::CellActivations(names, ctx.FloatsAttr(node, "activation_alpha"), ctx.FloatsAttr(node, "activation_beta"));
    if (!acts.ok()) return acts.status();

    // Direction d's slice of a stacked (directions, ...) input as (rest...).
    auto of_direction = [&](const relax::Expr& v, int d, std::vector<int64_t> rest) {
      return c.Reshape(c.Slice(v, 0, d, d + 1), std::move(rest));
    };
    const int64_t gh = gates * layer.hidden;
    for (int d = 0; d < directions; ++d) {
      frontend::RecurrentDirection dir;
      dir.reverse = direction == "reverse" || d == 1;
      dir.w = of_direction(in[1], d, {gh, (*xs)[2]});
      dir.r = of_direction(in[2], d, {gh, layer.hidden});
      if (has[3]) {
        relax::Expr b = of_direction(in[3], d, {2 * gh});
        dir.wb = c.Slice(b, 0, 0, gh);
        dir.rb = c.Slice(b, 0, gh, 2 * gh);
      }
      for (int s : {5, 6}) {
        if (s == 6 && !lstm) break;
        if (!has[s]) continue;
        relax::Expr state = layout == 1 ? swap01(in[s]) : in[s];
        (s == 5 ? dir.h0 : dir.c0) = of_direction(state, d, {batch, layer.hidden});
      }
      if (lstm && has[7]) dir.peephole = of_direction(in[7], d, {3 * layer.hidden});
      dir.activations.assign(acts->begin() + d * per_direction, acts->begin() + (d + 1) * per_direction);
      layer.directions.push_back(dir);
    }
    if (!c.status().ok()) return c.status();

    // sequence_lens that are a constant equal to the length everywhere mask nothing.
    std::optional<relax::Expr> lens;
    if (has[4]) {
      absl::StatusOr<std::vector<int64_t>> known = ctx.ConstantInts(node, 4, "sequence_lens");
      const bool full = known.ok() && std::all_of(known->begin(), known->end(), [&](int64_t n) { return n == seq; });
      if (known.ok() && std::any_of(known->begin(), known->end(), [&](int64_t n) { return n < 0 || n > seq; })) {
        return absl::InvalidArgumentError(absl::StrCat("sequence_lens holds a length outside [0, ", seq, "]"));
      }
      if (!full) lens = in[4];
    }
    absl::StatusOr<frontend::RecurrentOutputs> out = frontend::EmitRecurrentLayer(frontend::EmitterOf(ctx), layer, x, lens);
    if (!out.ok()) return out.status();
    std::vector<relax::Expr> results = {out->y, out->h};
    if (lstm) results.push_back(out->c);
    if (layout == 1) {
      results[0] = c.Permute(results[0], {2, 0, 1, 3});
      for (size_t i = 1; i < results.size(); ++i) results[i] = swap01(results[i]);
    }
    return c.Result(results);
  };
}

}  // namespace

void RegisterRecurrentOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("RNN", Recurrent(RecurrentCell::kRnn));
  r.Register("GRU", Recurrent(RecurrentCell::kGru));
  r.Register("LSTM", Recurrent(RecurrentCell::kLstm));
}

}  // namespace onnx_import
}  // namespace mlc
