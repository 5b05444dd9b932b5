#!/usr/bin/env bash
# Whole models, ours against ONNX Runtime (see model_bench.cc). Installs ONNX Runtime from npm
# and exports the models (PyTorch, Debian's Python) into a cache directory on first use.
#   ./bazelw run //tools:bench_vs_ort -- [--threads 2] [--runs 20] [--models mlp_b1,resnet18]
set -euo pipefail
runfiles="${RUNFILES_DIR:-$0.runfiles}/mlc"
cache="${MLC_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlc/bench}"
ort=$("$runfiles/tools/bench/install_onnxruntime.sh" "$cache/onnxruntime")
/usr/bin/python3 "$runfiles/tools/bench/export_bench_models.py" "$cache/models" 2> "$cache/export.log" ||
  { cat "$cache/export.log" >&2; exit 1; }
exec "$runfiles/tools/model_bench" --models_dir "$cache/models" --ort_library "$ort" "$@"
