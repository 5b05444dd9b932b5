#!/usr/bin/env bash
# The onnx package's backend node tests through import, opt, build and run
# (tools/onnx_node_tests.py): no case may crash, and every case listed in
# testdata/onnx_node/expected_pass.txt must match the expected outputs.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
exec /usr/bin/python3 tools/onnx_node_tests.py --import frontend/import --opt passes/opt --build codegen/build \
  --run vm/run --expected testdata/onnx_node/expected_pass.txt
