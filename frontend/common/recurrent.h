/*! \file recurrent.h
 *  \brief RNN, GRU and LSTM layers as operator-library calls, unrolled over a static sequence
 *         length; shared by the ONNX (RNN/GRU/LSTM) and FX (nn.RNN/nn.GRU/nn.LSTM) importers.
 *
 *  The gate formulas and gate orders are ONNX's (LSTM: i, o, f, c; GRU: z, r, h); an importer
 *  whose framework orders gates otherwise reorders its weights first. The input projection of
 *  every step is one matmul, (seq * batch, input) @ W^T with the input biases added once, so
 *  only H_{t-1} @ R^T (GEMV-shaped at small batch) and the gates' elementwise math remain per
 *  step; fuse-ops merges each step's elementwise calls.
 *
 *  sequence_lens masks the steps at or past a batch entry's length: its state stays and its
 *  output is 0. For the reverse direction that starts each entry at its own last step, which is
 *  ONNX's definition, so both directions need only the mask.
 */
#ifndef MLC_FRONTEND_COMMON_RECURRENT_H_
#define MLC_FRONTEND_COMMON_RECURRENT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/common/composer.h"

namespace mlc {
namespace frontend {

enum class RecurrentCell { kRnn, kGru, kLstm };

/*! \brief The gate blocks of W and R: 1 (RNN), 3 (GRU), 4 (LSTM). */
int GateCount(RecurrentCell cell);

/*! \brief An activation of a cell (ONNX's list: Relu, Tanh, Sigmoid, Affine, LeakyRelu,
 *  ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus) with its parameters. */
struct CellActivation {
  std::string name;
  float alpha = 0;
  float beta = 0;
};

/*! \brief The activations named in `names` (case-insensitive), taking their alphas and betas in
 *  order from `alphas`/`betas` as far as each activation has parameters (the operator's defaults
 *  after that); an error names an unknown activation. */
absl::StatusOr<std::vector<CellActivation>> CellActivations(const std::vector<std::string>& names,
                                                            const std::vector<float>& alphas,
                                                            const std::vector<float>& betas);

/*! \brief The cell's default activations: RNN (Tanh), GRU (Sigmoid, Tanh), LSTM (Sigmoid, Tanh, Tanh). */
std::vector<std::string> DefaultActivationNames(RecurrentCell cell);

/*! \brief One direction's weights and initial state. */
struct RecurrentDirection {
  bool reverse = false;
  relax::Expr w;                            // (gates * hidden, input)
  relax::Expr r;                            // (gates * hidden, hidden)
  std::optional<relax::Expr> wb, rb;        // (gates * hidden)
  std::optional<relax::Expr> peephole;      // LSTM: (3 * hidden), gates i, o, f
  std::optional<relax::Expr> h0, c0;        // (batch, hidden); zeros when absent
  std::vector<CellActivation> activations;  // f, g, h as the cell uses them
};

struct RecurrentLayer {
  RecurrentCell cell = RecurrentCell::kLstm;
  int64_t hidden = 0;
  float clip = 0;                              // > 0: the activations' inputs are clamped to [-clip, clip]
  bool linear_before_reset = false;            // GRU: r * (H @ Rh^T + Rbh) instead of (r * H) @ Rh^T + Rbh
  bool input_forget = false;                   // LSTM: the forget gate is 1 - the input gate
  std::vector<RecurrentDirection> directions;  // 1, or 2 (forward, reverse)
};

struct RecurrentOutputs {
  relax::Expr y;  // (seq, directions, batch, hidden)
  relax::Expr h;  // (directions, batch, hidden): the last state
  relax::Expr c;  // LSTM: (directions, batch, hidden), the last cell state
};

/*! \brief The layer over x (seq, batch, input), whose shape must be static. `sequence_lens`
 *  (batch) of an integer dtype may be a run-time value. */
absl::StatusOr<RecurrentOutputs> EmitRecurrentLayer(const EmitFn& emit, const RecurrentLayer& layer,
                                                    const relax::Expr& x,
                                                    const std::optional<relax::Expr>& sequence_lens);

}  // namespace frontend
}  // namespace mlc

#endif  // MLC_FRONTEND_COMMON_RECURRENT_H_
