#!/usr/bin/env bash
# Transposed convolutions through the three routes that share frontend/common/conv_transpose.h
# (torch.onnx, torch.fx's module, ATen capture), 2-D and 3-D, against PyTorch within 1e-4 of the
# output's scale (conv_transpose_cases.py). ONNX's own cases (auto_pad, output_shape, 1-D) are
# among the node tests.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="${TEST_TMPDIR}"
/usr/bin/python3 frontend/common/conv_transpose_cases.py "$t" 2> "$t/export.log" || { cat "$t/export.log"; exit 1; }
reference_cases "$t"
finish
