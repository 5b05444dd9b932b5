/*! \file recurrent.cc
 *  \brief RNN, GRU and LSTM layers unrolled into operator-library calls (recurrent.h).
 */
#include "frontend/common/recurrent.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mlc {
namespace frontend {
namespace {

/*! \brief An activation's name, parameter count and default parameters (ONNX's operators'). */
struct ActivationKind {
  const char* name;
  int params;  // 0, 1 (alpha) or 2 (alpha, beta)
  float alpha;
  float beta;
};

constexpr ActivationKind kActivationKinds[] = {
    {"Relu", 0, 0, 0},          {"Tanh", 0, 0, 0},
    {"Sigmoid", 0, 0, 0},       {"Affine", 2, 1, 0},
    {"LeakyRelu", 1, 0.01f, 0}, {"ThresholdedRelu", 1, 1, 0},
    {"ScaledTanh", 2, 1, 1},    {"HardSigmoid", 2, 0.2f, 0.5f},
    {"Elu", 1, 1, 0},           {"Softsign", 0, 0, 0},
    {"Softplus", 0, 0, 0},
};

/*! \brief f(x) for one of kActivationKinds. */
relax::Expr Activate(Composer& c, const CellActivation& a, relax::Expr x, float clip) {
  if (clip > 0) x = c.Min(c.Max(x, c.K(-clip)), c.K(clip));
  const std::string& n = a.name;
  if (n == "Relu") return c.Relu(x);
  if (n == "Tanh") return c.Tanh(x);
  if (n == "Sigmoid") return c.Sigmoid(x);
  if (n == "Affine") return c.Add(c.Mul(c.K(a.alpha), x), c.K(a.beta));
  if (n == "LeakyRelu") return c.Sub(c.Relu(x), c.Mul(c.K(a.alpha), c.Relu(c.Neg(x))));
  if (n == "ThresholdedRelu") return c.Mul(x, c.Cast(c.Op("greater", {x, c.K(a.alpha)}), c.dtype()));
  if (n == "ScaledTanh") return c.Mul(c.K(a.alpha), c.Tanh(c.Mul(c.K(a.beta), x)));
  if (n == "HardSigmoid") return c.Min(c.Max(c.Add(c.Mul(c.K(a.alpha), x), c.K(a.beta)), c.K(0)), c.K(1));
  // relu(x) + alpha * (e^min(x, 0) - 1): x where x >= 0, alpha * (e^x - 1) below.
  if (n == "Elu") return c.Add(c.Relu(x), c.Mul(c.K(a.alpha), c.Sub(c.Exp(c.Min(x, c.K(0))), c.K(1))));
  if (n == "Softsign") return c.Div(x, c.Add(c.K(1), c.Abs(x)));
  return c.Softplus(x);  // CellActivations admits no other name
}

/*! \brief The calls one layer needs, over one Composer. */
class LayerEmitter {
 public:
  LayerEmitter(const EmitFn& emit, const relax::Expr& x) : c_(emit, x) {}

  Composer& c() { return c_; }
  relax::Expr Transpose(relax::Expr v) { return c_.Permute(std::move(v), {1, 0}); }
  relax::Expr MatMul(relax::Expr a, relax::Expr b) { return c_.Op("matmul", {std::move(a), std::move(b)}); }
  relax::Expr Zeros(std::vector<int64_t> shape) {
    return c_.Op("broadcast_to", {c_.K(0)}, {{"shape", std::move(shape)}});
  }
  relax::Expr Concat(std::vector<relax::Expr> parts, int64_t axis) {
    if (parts.size() == 1) return parts[0];
    return c_.Op("concat", std::move(parts), {{"axis", axis}});
  }
  /*! \brief Gate block k of the last axis of a (batch, gates * hidden) value. */
  relax::Expr Gate(const relax::Expr& v, int k, int64_t hidden) { return c_.Slice(v, 1, k * hidden, (k + 1) * hidden); }

 private:
  Composer c_;
};

}  // namespace

int GateCount(RecurrentCell cell) {
  switch (cell) {
    case RecurrentCell::kRnn: return 1;
    case RecurrentCell::kGru: return 3;
    case RecurrentCell::kLstm: return 4;
  }
  return 1;
}

std::vector<std::string> DefaultActivationNames(RecurrentCell cell) {
  switch (cell) {
    case RecurrentCell::kRnn: return {"Tanh"};
    case RecurrentCell::kGru: return {"Sigmoid", "Tanh"};
    case RecurrentCell::kLstm: return {"Sigmoid", "Tanh", "Tanh"};
  }
  return {};
}

absl::StatusOr<std::vector<CellActivation>> CellActivations(const std::vector<std::string>& names,
                                                            const std::vector<float>& alphas,
                                                            const std::vector<float>& betas) {
  std::vector<CellActivation> out;
  size_t next_alpha = 0, next_beta = 0;
  for (const std::string& name : names) {
    const ActivationKind* kind = nullptr;
    for (const ActivationKind& k : kActivationKinds) {
      if (absl::AsciiStrToLower(k.name) == absl::AsciiStrToLower(name)) kind = &k;
    }
    if (kind == nullptr) {
      std::vector<std::string> known;
      for (const ActivationKind& k : kActivationKinds) known.push_back(k.name);
      return absl::InvalidArgumentError(
          absl::StrCat("unknown activation '", name, "' (known: ", absl::StrJoin(known, ", "), ")"));
    }
    CellActivation a{kind->name, kind->alpha, kind->beta};
    if (kind->params >= 1 && next_alpha < alphas.size()) a.alpha = alphas[next_alpha++];
    if (kind->params >= 2 && next_beta < betas.size()) a.beta = betas[next_beta++];
    out.push_back(a);
  }
  return out;
}

absl::StatusOr<RecurrentOutputs> EmitRecurrentLayer(const EmitFn& emit, const RecurrentLayer& layer,
                                                    const relax::Expr& x,
                                                    const std::optional<relax::Expr>& sequence_lens) {
  const auto* xt = x->struct_info().as<relax::TensorStructInfoNode>();
  if (xt == nullptr || !xt->shape || xt->shape->size() != 3) {
    return absl::InvalidArgumentError(
        "the input must have a static shape (seq, batch, input); pin symbolic sizes with --dim");
  }
  const int64_t seq = (*xt->shape)[0], batch = (*xt->shape)[1], input = (*xt->shape)[2];
  const int64_t hidden = layer.hidden;
  const int gates = GateCount(layer.cell);
  if (hidden <= 0) return absl::InvalidArgumentError(absl::StrCat("hidden size ", hidden, " must be positive"));
  if (seq <= 0) return absl::InvalidArgumentError("the sequence is empty");
  const size_t needed = DefaultActivationNames(layer.cell).size();
  for (const RecurrentDirection& d : layer.directions) {
    if (d.activations.size() != needed) {
      return absl::InvalidArgumentError(
          absl::StrCat("a direction needs ", needed, " activations, got ", d.activations.size()));
    }
  }

  LayerEmitter e(emit, x);
  Composer& c = e.c();
  // valid[t]: (batch, 1) bool, t < sequence_lens[b].
  std::vector<std::optional<relax::Expr>> valid(seq);
  if (sequence_lens) {
    const auto* lt = (*sequence_lens)->struct_info().as<relax::TensorStructInfoNode>();
    if (lt == nullptr || (!lt->dtype.is_int() && !lt->dtype.is_uint()))
      return absl::InvalidArgumentError("sequence_lens must be an integer tensor");
    for (int64_t t = 0; t < seq; ++t)
      valid[t] = c.Reshape(c.Op("less", {Scalar(t, lt->dtype), *sequence_lens}), {batch, 1});
  }
  const relax::Expr rows = c.Reshape(x, {seq * batch, input});

  std::vector<relax::Expr> ys, hs, cs;
  for (const RecurrentDirection& d : layer.directions) {
    const std::vector<CellActivation>& act = d.activations;
    auto f = [&](relax::Expr v) { return Activate(c, act[0], std::move(v), layer.clip); };
    auto g = [&](relax::Expr v) { return Activate(c, act[1], std::move(v), layer.clip); };
    const relax::Expr rt = e.Transpose(d.r);  // (hidden, gates * hidden)
    // The input projection of every step, with the biases that do not sit behind GRU's reset gate.
    relax::Expr xw = e.MatMul(rows, e.Transpose(d.w));
    if (d.wb) xw = c.Add(xw, *d.wb);
    std::optional<relax::Expr> rbh;  // GRU linear_before_reset: Rbh goes inside r * (...)
    if (d.rb) {
      if (layer.cell == RecurrentCell::kGru && layer.linear_before_reset) {
        xw = c.Add(xw, e.Concat({c.Slice(*d.rb, 0, 0, 2 * hidden), e.Zeros({hidden})}, 0));
        rbh = c.Slice(*d.rb, 0, 2 * hidden, 3 * hidden);
      } else {
        xw = c.Add(xw, *d.rb);
      }
    }
    xw = c.Reshape(xw, {seq, batch, gates * hidden});
    // GRU without linear_before_reset multiplies H by r before Rh.
    const bool reset_first = layer.cell == RecurrentCell::kGru && !layer.linear_before_reset;
    const relax::Expr rt_zr = reset_first ? c.Slice(rt, 1, 0, 2 * hidden) : rt;
    const relax::Expr rt_h = reset_first ? c.Slice(rt, 1, 2 * hidden, 3 * hidden) : rt;
    std::optional<relax::Expr> pi, po, pf;
    if (d.peephole) {
      pi = c.Slice(*d.peephole, 0, 0, hidden);
      po = c.Slice(*d.peephole, 0, hidden, 2 * hidden);
      pf = c.Slice(*d.peephole, 0, 2 * hidden, 3 * hidden);
    }

    relax::Expr h = d.h0 ? *d.h0 : e.Zeros({batch, hidden});
    relax::Expr cell = d.c0 ? *d.c0 : e.Zeros({batch, hidden});
    std::vector<relax::Expr> y(seq);
    for (int64_t s = 0; s < seq; ++s) {
      const int64_t t = d.reverse ? seq - 1 - s : s;
      const relax::Expr in = c.Reshape(c.Slice(xw, 0, t, t + 1), {batch, gates * hidden});
      relax::Expr hn, cn = cell;
      switch (layer.cell) {
        case RecurrentCell::kRnn: hn = f(c.Add(in, e.MatMul(h, rt))); break;
        case RecurrentCell::kGru: {
          const relax::Expr hr = e.MatMul(h, rt_zr);
          const relax::Expr z = f(c.Add(e.Gate(in, 0, hidden), e.Gate(hr, 0, hidden)));
          const relax::Expr r = f(c.Add(e.Gate(in, 1, hidden), e.Gate(hr, 1, hidden)));
          relax::Expr candidate;
          if (reset_first) {
            candidate = g(c.Add(e.Gate(in, 2, hidden), e.MatMul(c.Mul(r, h), rt_h)));
          } else {
            relax::Expr recurrent = e.Gate(hr, 2, hidden);
            if (rbh) recurrent = c.Add(recurrent, *rbh);
            candidate = g(c.Add(e.Gate(in, 2, hidden), c.Mul(r, recurrent)));
          }
          hn = c.Add(candidate, c.Mul(z, c.Sub(h, candidate)));  // (1 - z) * candidate + z * h
          break;
        }
        case RecurrentCell::kLstm: {
          const relax::Expr all = c.Add(in, e.MatMul(h, rt));
          relax::Expr gi = e.Gate(all, 0, hidden), go = e.Gate(all, 1, hidden), gf = e.Gate(all, 2, hidden);
          if (pi) gi = c.Add(gi, c.Mul(*pi, cell));
          if (pf) gf = c.Add(gf, c.Mul(*pf, cell));
          const relax::Expr i = f(gi);
          const relax::Expr forget = layer.input_forget ? c.Sub(c.K(1), i) : f(gf);
          cn = c.Add(c.Mul(forget, cell), c.Mul(i, g(e.Gate(all, 3, hidden))));
          if (po) go = c.Add(go, c.Mul(*po, cn));
          hn = c.Mul(f(go), Activate(c, act[2], cn, layer.clip));
          break;
        }
      }
      relax::Expr out = hn;
      if (valid[t]) {
        out = c.Op("where", {*valid[t], hn, c.K(0)});
        hn = c.Op("where", {*valid[t], hn, h});
        cn = c.Op("where", {*valid[t], cn, cell});
      }
      y[t] = c.Reshape(out, {1, 1, batch, hidden});
      h = hn;
      cell = cn;
    }
    ys.push_back(e.Concat(y, 0));
    hs.push_back(c.Reshape(h, {1, batch, hidden}));
    cs.push_back(c.Reshape(cell, {1, batch, hidden}));
  }
  RecurrentOutputs out{e.Concat(ys, 1), e.Concat(hs, 0), e.Concat(cs, 0)};
  if (!c.status().ok()) return c.status();
  return out;
}

}  // namespace frontend
}  // namespace mlc
