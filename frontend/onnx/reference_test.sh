#!/usr/bin/env bash
# ONNX operators against another implementation (reference_cases.py): GridSample against PyTorch's
# grid_sample (3 modes x 3 padding modes x align_corners, grids past the image's edges), RoiAlign
# against torchvision's roi_align (aligned at opset 16, unaligned at opset 11), DFT and STFT
# against numpy.fft, Einsum diagonals against numpy.einsum, MaxPool's Indices against max_pool2d's
# return_indices; x[x > t], torchvision's nms and torch.unique (results of data-dependent size)
# and what is computed from them against PyTorch; each output within 1e-4 of its scale.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="${TEST_TMPDIR}"
/usr/bin/python3 frontend/onnx/reference_cases.py "$t" 2> "$t/export.log" || { cat "$t/export.log"; exit 1; }
reference_cases "$t"
finish
