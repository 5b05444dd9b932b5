#!/usr/bin/env bash
# Runs tools/bench/models_vs_torch.py with Debian's Python (which sees python3-torch) against the
# stage binaries built by Bazel. Extra arguments go to the script (e.g. --threads 2).
set -euo pipefail
runfiles="${RUNFILES_DIR:-$0.runfiles}/mlc"
exec /usr/bin/python3 "$runfiles/tools/bench/models_vs_torch.py" --exporter "$runfiles/frontend/torch/export_fx.py" \
  --import "$runfiles/frontend/import" --opt "$runfiles/passes/opt" --build "$runfiles/codegen/build" \
  --run "$runfiles/vm/run" "$@"
