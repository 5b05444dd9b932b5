/*! \file onnx_recurrent_converters.cc
 *  \brief ONNX RNN, GRU and LSTM (opsets 7-14 and later: directions, initial states, biases,
 *         peepholes, sequence_lens, layout 0 and 1, activations with alpha/beta, clip), unrolled
 *         by frontend/common/recurrent.h over a static sequence length; over a symbolic one, a
 *         Loop whose body is the layer over one step.
 */
#include <algorithm>

#include "frontend/common/recurrent.h"
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

using frontend::RecurrentCell;

/*! \brief The layer over a sequence of symbolic length (x time-major: (seq, batch, input)): per
 *  direction an ONNX Loop over the steps whose body is the same node over one step (the step's
 *  input taken at the iteration number, from the end for the reverse direction; sequence_lens
 *  as the step's own length, 1 while the entry lasts, 0 after, so the state stays and the output
 *  is 0), the states carried, the outputs stacked (and reversed back for the reverse
 *  direction). Returns Y, Y_h (and Y_c) time-major. */
Outputs OverSymbolicSequence(OnnxContext& ctx, const onnx::NodeProto& node, RecurrentCell cell, const relax::Expr& x,
                             const std::vector<relax::Expr>& in, const std::vector<bool>& has, int directions,
                             const std::vector<std::string>& activations, int64_t hidden) {
  const bool lstm = cell == RecurrentCell::kLstm;
  Composer c(ctx, x);
  const relax::TensorStructInfoNode* t = TensorOf(x);
  const std::vector<tir::PrimExpr> dims = t->Dims();
  const int64_t *batch = tir::AsConstInt(dims[1]), *input = tir::AsConstInt(dims[2]);
  if (batch == nullptr || input == nullptr)
    return absl::UnimplementedError("a recurrent layer over a symbolic sequence needs a static batch and input size");
  if (directions == 2 && (ctx.HasAttr(node, "activation_alpha") || ctx.HasAttr(node, "activation_beta"))) {
    return absl::UnimplementedError("activation_alpha/beta of a bidirectional layer over a symbolic sequence");
  }
  const std::string base = SanitizeIdentifier(node.name().empty() ? node.output(0) : node.name()) + "_";
  const size_t per_direction = frontend::DefaultActivationNames(cell).size();
  absl::StatusOr<relax::Expr> length = ctx.SizeAsTensor(dims[0]);
  if (!length.ok()) return length.status();
  ctx.SetValue(base + "x", x);
  ctx.SetValue(base + "length", *length);
  ctx.SetValue(base + "last", c.Op("subtract", {*length, Scalar(1, DataType::Int64())}));
  if (has[4]) ctx.SetValue(base + "lens", c.Op("astype", {in[4]}, {{"dtype", DataType::Int64()}}));
  ctx.SetValue(base + "step_shape", relax::MakeConstant(Int64Tensor({1, *batch, *input})));
  ctx.SetValue(base + "row_shape", relax::MakeConstant(Int64Tensor({1, *batch, hidden})));
  const relax::Expr zeros = relax::MakeConstant(TensorData(t->dtype, {1, *batch, hidden}));
  std::vector<std::vector<relax::Expr>> per_output(lstm ? 3 : 2);
  for (int d = 0; d < directions; ++d) {
    const bool reverse = directions == 2 ? d == 1 : ctx.StringAttr(node, "direction", "forward") == "reverse";
    const std::string p = absl::StrCat(base, "d", d, "_");
    // This direction's weights, biases, peepholes and initial states, as (1, ...).
    const int weights[] = {1, 2, 3, 7};
    for (int w : weights) {
      if (w == 7 && !lstm) continue;
      if (has[w]) ctx.SetValue(absl::StrCat(p, "in", w), directions == 1 ? in[w] : c.Slice(in[w], 0, d, d + 1));
    }
    for (int s : {5, 6}) {
      if (s == 6 && !lstm) continue;
      ctx.SetValue(absl::StrCat(p, "in", s), has[s] ? (directions == 1 ? in[s] : c.Slice(in[s], 0, d, d + 1)) : zeros);
    }
    if (!c.status().ok()) return c.status();
    onnx::NodeProto loop;
    loop.set_op_type("Loop");
    loop.set_name(p + "loop");
    loop.add_input(base + "length");
    loop.add_input("");
    loop.add_input(p + "in5");
    if (lstm) loop.add_input(p + "in6");
    for (const char* o : {"h", "c", "y"}) {
      if (o[0] != 'c' || lstm) loop.add_output(p + o);
    }
    onnx::AttributeProto* body_attr = AddAttr(&loop, "body", onnx::AttributeProto::GRAPH);
    onnx::GraphProto& g = *body_attr->mutable_g();
    g.set_name(p + "step");
    for (const char* i : {"i", "cond", "h_in", "c_in"}) {
      if (i[0] != 'c' || i[1] == 'o' || lstm) g.add_input()->set_name(p + i);
    }
    std::string at = p + "i";
    if (reverse) AddNode(g, "Sub", {base + "last", p + "i"}, {at = p + "at"});
    AddAttr(AddNode(g, "Gather", {base + "x", at}, {p + "x_t"}), "axis", onnx::AttributeProto::INT)->set_i(0);
    AddNode(g, "Reshape", {p + "x_t", base + "step_shape"}, {p + "x_step"});
    std::string lens;
    if (has[4]) {
      AddNode(g, "Greater", {base + "lens", at}, {p + "active"});
      AddAttr(AddNode(g, "Cast", {p + "active"}, {lens = p + "lens_t"}), "to", onnx::AttributeProto::INT)
          ->set_i(onnx::TensorProto::INT32);
    }
    std::vector<std::string> step_inputs = {p + "x_step", p + "in1", p + "in2", has[3] ? p + "in3" : "",
                                            lens,         p + "h_in"};
    if (lstm) step_inputs.insert(step_inputs.end(), {p + "c_in", has[7] ? p + "in7" : ""});
    std::vector<std::string> step_outputs = {p + "y_t", p + "h_out"};
    if (lstm) step_outputs.push_back(p + "c_out");
    onnx::NodeProto* step = AddNode(g, node.op_type(), step_inputs, step_outputs);
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.name() != "direction" && a.name() != "layout" && a.name() != "activations") *step->add_attribute() = a;
    }
    onnx::AttributeProto* acts = AddAttr(step, "activations", onnx::AttributeProto::STRINGS);
    for (size_t k = 0; k < per_direction; ++k) acts->add_strings(activations[d * per_direction + k]);
    AddAttr(step, "hidden_size", onnx::AttributeProto::INT)->set_i(hidden);
    AddNode(g, "Reshape", {p + "y_t", base + "row_shape"}, {p + "row"});
    AddNode(g, "Identity", {p + "cond"}, {p + "cond_out"});
    for (const char* o : {"cond_out", "h_out", "c_out", "row"}) {
      if (std::string(o) != "c_out" || lstm) g.add_output()->set_name(p + o);
    }
    absl::StatusOr<std::vector<relax::Expr>> looped = ConvertLoop(ctx, loop);
    if (!looped.ok()) return looped.status();
    // (seq, 1, batch, hidden) in the order the steps ran: one row per step, so its length is X's.
    absl::StatusOr<relax::Expr> counted =
        ctx.EmitOp("match_cast", {looped->back()}, {},
                   {relax::TensorSInfoOfDims({dims[0], tir::I64(1), tir::I64(*batch), tir::I64(hidden)}, t->dtype)});
    if (!counted.ok()) return counted.status();
    relax::Expr y = *counted;
    if (reverse)
      y = c.Op("strided_slice", {y},
               {{"axes", std::vector<int64_t>{0}},
                {"begin", std::vector<int64_t>{-1}},
                {"end", std::vector<int64_t>{-(int64_t{1} << 40)}},
                {"strides", std::vector<int64_t>{-1}}});
    per_output[0].push_back(y);
    for (size_t o = 1; o < per_output.size(); ++o) per_output[o].push_back((*looped)[o - 1]);
  }
  std::vector<relax::Expr> results;
  for (size_t o = 0; o < per_output.size(); ++o) {
    results.push_back(directions == 1 ? per_output[o][0]
                                      : c.Op("concat", per_output[o], {{"axis", int64_t{o == 0 ? 1 : 0}}}));
  }
  if (!c.status().ok()) return c.status();
  return results;
}

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
    if (layout != 0 && layout != 1)
      return absl::InvalidArgumentError(absl::StrCat("layout ", layout, " is not 0 or 1"));
    auto swap01 = [&](const relax::Expr& v) { return c.Permute(v, {1, 0, 2}); };
    // layout 1 is batch-major: X (batch, seq, input), states (batch, directions, hidden).
    relax::Expr x = layout == 1 ? swap01(in[0]) : in[0];
    if (!c.status().ok()) return c.status();
    absl::StatusOr<std::vector<int64_t>> rs = StaticShape(in[2], "R");
    if (!rs.ok()) return rs.status();
    const relax::TensorStructInfoNode* xt = TensorOf(x);
    if (xt == nullptr || !xt->HasKnownShape() || xt->ndim != 3 || rs->size() != 3) {
      return absl::InvalidArgumentError("X (of a known shape) and R must have rank 3");
    }

    frontend::RecurrentLayer layer;
    layer.cell = cell;
    const int gates = frontend::GateCount(cell);
    layer.hidden = ctx.IntAttr(node, "hidden_size", (*rs)[2]);
    if ((*rs)[1] != gates * layer.hidden || (*rs)[2] != layer.hidden) {
      return absl::InvalidArgumentError(absl::StrCat("R has shape (", (*rs)[0], ", ", (*rs)[1], ", ", (*rs)[2],
                                                     "), not (directions, ", gates, " * ", layer.hidden, ", ",
                                                     layer.hidden, ") for hidden_size ", layer.hidden));
    }
    layer.clip = ctx.HasAttr(node, "clip") ? ctx.FloatAttr(node, "clip", 0) : 0;
    layer.linear_before_reset = ctx.IntAttr(node, "linear_before_reset", 0) != 0;
    layer.input_forget = ctx.IntAttr(node, "input_forget", 0) != 0;
    const std::string direction = ctx.StringAttr(node, "direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
      return absl::InvalidArgumentError(
          absl::StrCat("direction '", direction, "' is not forward, reverse or bidirectional"));
    }
    const int directions = direction == "bidirectional" ? 2 : 1;
    if ((*rs)[0] != directions)
      return absl::InvalidArgumentError(
          absl::StrCat("R has ", (*rs)[0], " directions, direction '", direction, "' needs ", directions));

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
      return absl::InvalidArgumentError(absl::StrCat("activations lists ", names.size(), " functions; ", direction,
                                                     " needs ", per_direction * directions));
    }
    absl::StatusOr<std::vector<frontend::CellActivation>> acts = frontend::CellActivations(
        names, ctx.FloatsAttr(node, "activation_alpha"), ctx.FloatsAttr(node, "activation_beta"));
    if (!acts.ok()) return acts.status();

    // A sequence of symbolic length runs as a loop over the steps.
    const tir::PrimExpr seq_dim = xt->Dims()[0];  // held: AsConstInt points into it
    if (tir::AsConstInt(seq_dim) == nullptr) {
      std::vector<relax::Expr> time_major = in;
      for (int s : {5, 6}) {
        if (layout == 1 && s < static_cast<int>(in.size()) && has[s]) time_major[s] = swap01(in[s]);
      }
      Outputs out = OverSymbolicSequence(ctx, node, cell, x, time_major, has, directions, names, layer.hidden);
      if (!out.ok() || layout == 0) return out;
      std::vector<relax::Expr> results = *out;
      results[0] = c.Permute(results[0], {2, 0, 1, 3});
      for (size_t i = 1; i < results.size(); ++i) results[i] = swap01(results[i]);
      return c.Result(results);
    }
    absl::StatusOr<std::vector<int64_t>> xs = StaticShape(x, "X");
    if (!xs.ok()) return xs.status();
    const int64_t seq = (*xs)[0], batch = (*xs)[1];

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
    absl::StatusOr<frontend::RecurrentOutputs> out =
        frontend::EmitRecurrentLayer(frontend::EmitterOf(ctx), layer, x, lens);
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
