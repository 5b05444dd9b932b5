#!/usr/bin/env bash
# Whole models, ours against ONNX Runtime and PyTorch eager (see model_bench.cc). Installs ONNX
# Runtime from npm and exports the models (PyTorch, Debian's Python) into a cache directory on
# first use; times PyTorch eager on the same models first (torch_eager_times.py).
#   ./bazelw run //tools:bench_vs_ort -- [--threads 2] [--runs 20] [--models mlp_b1,resnet18 | wide]
set -euo pipefail
runfiles="${RUNFILES_DIR:-$0.runfiles}/mlc"
cache="${MLC_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlc/bench}"
export_models="$runfiles/tools/bench/export_bench_models.py"
# --models names models or sets of them (default, wide): expanded once, by the export script.
args=() models=default
while (($#)); do
  if [[ $1 == --models ]]; then models=$2; shift 2; continue; fi
  args+=("$1"); shift
done
models=$(/usr/bin/python3 "$export_models" --list --models "$models" /dev/null)
set -- "${args[@]}" --models "$models"
ort=$("$runfiles/tools/bench/install_onnxruntime.sh" "$cache/onnxruntime")
/usr/bin/python3 "$export_models" "$cache/models" --models "$models" 2> "$cache/export.log" ||
  { cat "$cache/export.log" >&2; exit 1; }
# PyTorch eager on the same seeded models, the same thread count, just before: its column.
torch_times="$cache/torch_times.json"
/usr/bin/python3 "$runfiles/tools/bench/torch_eager_times.py" "$torch_times" "$@" 2> "$cache/torch.log" ||
  { cat "$cache/torch.log" >&2; exit 1; }
exec "$runfiles/tools/model_bench" --models_dir "$cache/models" --ort_library "$ort" --torch_times "$torch_times" "$@"
