#!/usr/bin/env bash
# Runs tools/bench/mlp_vs_torch.py with Debian's Python (which sees python3-torch) against the
# stage binaries built by Bazel. Extra arguments go to the script (e.g. --threads 2).
set -euo pipefail
runfiles="${RUNFILES_DIR:-$0.runfiles}/mlc"
exec /usr/bin/python3 "$runfiles/tools/bench/mlp_vs_torch.py" \
  --parse "$runfiles/frontend/parse" --build "$runfiles/codegen/build" --run "$runfiles/vm/run" \
  --digits "$runfiles/testdata/models/digits_mlp/params.npz" "$@"
