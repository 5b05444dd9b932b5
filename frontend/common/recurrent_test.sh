#!/usr/bin/env bash
# Recurrent layers through both importers: nn.LSTM / nn.GRU / nn.RNN (layers, directions,
# batch_first, initial states, no bias, relu) through torch.onnx, FX and ATen capture against
# PyTorch, and ONNX LSTM/GRU/RNN nodes with what PyTorch does not export (run-time sequence_lens
# in both directions, layout 1, GRU's two reset orders, peepholes, input_forget, clip, activations
# with alpha/beta) against recurrent_cases.py's NumPy reading of the ONNX definitions, the ONNX
# ones also over a sequence of symbolic length (a loop over the steps). Every output (Y, Y_h,
# Y_c) within 1e-4 of its scale. Inputs neither form can take are clear errors.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="${TEST_TMPDIR}"
/usr/bin/python3 frontend/common/recurrent_cases.py "$t" 2> "$t/export.log" || { cat "$t/export.log"; exit 1; }

reference_cases "$t"

# A symbolic sequence length cannot be unrolled: the error names the node and says how to pin it.
/usr/bin/python3 - "$t" <<'PY'
import sys, numpy as np, onnx
from onnx import TensorProto, helper, numpy_helper
t = sys.argv[1]
w, r = np.zeros((1, 16, 3), np.float32), np.zeros((1, 16, 4), np.float32)
def save(name, x_shape, **attrs):
    node = helper.make_node("LSTM", ["X", "W", "R"], ["Y"], hidden_size=4, **attrs)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, x_shape)],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(w, "W"), numpy_helper.from_array(r, "R")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]), f"{t}/{name}.onnx")
save("symbolic_seq_and_batch", ["seq", "batch", 3])
save("bad_activation", [2, 1, 3], activations=["Sigmoid", "Swish", "Tanh"])
PY
refused "an LSTM over a symbolic sequence and batch says what the loop over the steps needs" \
  "LSTM.*symbolic sequence needs a static batch" frontend/import --in "$t/symbolic_seq_and_batch.onnx" --out "$t/bad.irpb"
check "... and with --dim batch=1 it imports" frontend/import --in "$t/symbolic_seq_and_batch.onnx" --out "$t/pinned.irpb" --dim batch=1
refused "an unknown activation is named with the known ones" "unknown activation 'Swish' (known: Relu, Tanh" \
  frontend/import --in "$t/bad_activation.onnx" --out "$t/bad.irpb"
check "no output is left behind by a refused import" test ! -e "$t/bad.irpb"
finish
