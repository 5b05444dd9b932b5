#!/usr/bin/env bash
# The onnx package's backend node tests through import, opt, build and run
# (frontend/onnx/onnx_node_tests.py): no case may crash, and every case listed in
# testdata/onnx_node/expected_pass.txt must match the expected outputs; the per-operator table
# in docs/onnx_node_table.md must be current.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/golden.sh
/usr/bin/python3 frontend/onnx/onnx_node_tests.py --import frontend/import --opt passes/opt --build codegen/build \
  --run vm/run --expected testdata/onnx_node/expected_pass.txt --report "$TEST_TMPDIR/table.md"
if ! check_golden docs/onnx_node_table.md "$TEST_TMPDIR/table.md"; then
  echo "FAILED: docs/onnx_node_table.md is out of date; regenerate it (see docs/onnx_node_tests.md)"
  exit 1
fi
