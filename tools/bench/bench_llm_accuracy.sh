#!/usr/bin/env bash
# What --quantize q8 / q4 costs a trained decoder (tools/bench/llm_accuracy.py, Debian's Python)
# against the stage binaries built by Bazel; the trained weights and executables are cached.
#   ./bazelw run //tools:bench_llm_accuracy -- [--steps 1500]
set -euo pipefail
runfiles="${RUNFILES_DIR:-$0.runfiles}/mlc"
cache="${MLC_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlc/bench}/llm/accuracy"
exec /usr/bin/python3 "$runfiles/tools/bench/llm_accuracy.py" --bin "$runfiles" --cache "$cache" "$@"
