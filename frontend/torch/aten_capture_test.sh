#!/usr/bin/env bash
# Transformer modules through ATen capture (aten_capture_cases.py): nn.MultiheadAttention with bool
# causal and key-padding masks and with a float mask, nn.TransformerEncoderLayer, nn.Transformer
# with the decoder's causal mask, the reference decoder in GPT and Llama style; each within 1e-4 of
# PyTorch's output scale.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="${TEST_TMPDIR}"
/usr/bin/python3 frontend/torch/aten_capture_cases.py "$t" 2> "$t/export.log" || { cat "$t/export.log"; exit 1; }
reference_cases "$t"
finish
