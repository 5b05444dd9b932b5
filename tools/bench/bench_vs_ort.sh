#!/usr/bin/env bash
# Whole models, ours against ONNX Runtime and PyTorch eager (see model_bench.cc). Installs ONNX
# Runtime from npm and exports the models (PyTorch, Debian's Python) into a cache directory on
# first use; times PyTorch eager on the same models first (torch_eager_times.py).
#   ./bazelw run //tools:bench_vs_ort -- [--threads 2] [--runs 20] [--models mlp_b1,resnet18]
set -euo pipefail
runfiles="${RUNFILES_DIR:-$0.runfiles}/mlc"
cache="${MLC_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlc/bench}"
ort=$("$runfiles/tools/bench/install_onnxruntime.sh" "$cache/onnxruntime")
/usr/bin/python3 "$runfiles/tools/bench/export_bench_models.py" "$cache/models" 2> "$cache/export.log" ||
  { cat "$cache/export.log" >&2; exit 1; }
# PyTorch eager on the same seeded models, the same thread count, just before: its column.
torch_times="$cache/torch_times.json"
/usr/bin/python3 "$runfiles/tools/bench/torch_eager_times.py" "$torch_times" "$@" 2> "$cache/torch.log" ||
  { cat "$cache/torch.log" >&2; exit 1; }
exec "$runfiles/tools/model_bench" --models_dir "$cache/models" --ort_library "$ort" --torch_times "$torch_times" "$@"
