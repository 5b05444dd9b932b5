#!/usr/bin/env bash
# GridSample against PyTorch's grid_sample (3 modes x 3 padding modes x align_corners, grids past
# the image's edges) and RoiAlign against torchvision's roi_align (aligned at opset 16, unaligned at
# opset 11), from sampling_cases.py; each output within 1e-4 of its scale.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="${TEST_TMPDIR}"
/usr/bin/python3 frontend/onnx/sampling_cases.py "$t" 2> "$t/export.log" || { cat "$t/export.log"; exit 1; }
reference_cases "$t"
finish
