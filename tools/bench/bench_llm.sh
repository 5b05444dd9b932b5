#!/usr/bin/env bash
# A decoder's prefill and decode speed: ours against ONNX Runtime (llm_bench.cc), PyTorch eager
# (llm_torch_times.py) and llama.cpp (llama_cpp_times.mjs: the npm package node-llama-cpp's
# prebuilt CPU build, on GGUF files write_gguf.py makes from the same weights: F32, Q8_0, Q4_0),
# on the reference decoder (testdata/models/decoder/decoder.py, Llama style, seeded) exported
# with a key/value cache; ours in float and with --quantize q8 / q4, with their accuracy against
# float. Exports, converts and compiles the model into a cache directory on first use.
#   ./bazelw run //tools:bench_llm -- [--size small|250m] [--threads 2] [--prompt_len 128] [--new_tokens 64]
set -euo pipefail
runfiles="${RUNFILES_DIR:-$0.runfiles}/mlc"
cache="${MLC_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlc/bench}"
size=small threads=1 prompt_len=128 new_tokens=64
while [[ $# -gt 0 ]]; do
  case $1 in
    --size) size=$2 ;; --threads) threads=$2 ;; --prompt_len) prompt_len=$2 ;; --new_tokens) new_tokens=$2 ;;
    *) echo "bench_llm: unknown flag $1" >&2; exit 2 ;;
  esac
  shift 2
done
case $size in
  # The issue's benchmark model (~250 M parameters with the embedding) and a quick one.
  250m) config="--style llama --dim 1024 --layers 16 --heads 16 --kv_heads 4 --ffn 2816 --vocab 32000 --context 512" ;;
  small) config="--style llama --dim 512 --layers 8 --heads 8 --kv_heads 2 --ffn 1408 --vocab 8000 --context 512" ;;
  *) echo "bench_llm: --size is small or 250m" >&2; exit 2 ;;
esac
ort=$("$runfiles/tools/bench/install_onnxruntime.sh" "$cache/onnxruntime")
dir="$cache/llm/$size"
mkdir -p "$dir"
if [[ ! -f "$dir/model.onnx" ]]; then
  echo "exporting the $size decoder into $dir ..." >&2
  /usr/bin/python3 "$runfiles/testdata/models/decoder/decoder.py" $config --cache --out "$dir/model.onnx.tmp" 2> "$dir/export.log"
  mv "$dir/model.onnx.tmp" "$dir/model.onnx"
fi
# One executable per weight format (float, q8, q4), recompiled when the compiler changed.
stamp=$(cat "$runfiles/frontend/import" "$runfiles/passes/opt" "$runfiles/codegen/build" | sha256sum | cut -c1-16)
for q in f32 q8 q4; do
  if [[ "$(cat "$dir/model.$q.stamp" 2> /dev/null)" != "$stamp" ]]; then
    echo "compiling the $size decoder ($q) ..." >&2
    start=$(date +%s.%N)
    if [[ "$(cat "$dir/model.irpb.stamp" 2> /dev/null)" != "$stamp" ]]; then  # one import serves the three formats
      "$runfiles/frontend/import" --in "$dir/model.onnx" --out "$dir/model.irpb"
      echo "$stamp" > "$dir/model.irpb.stamp"
    fi
    "$runfiles/passes/opt" --in "$dir/model.irpb" --out "$dir/model.$q.opt.irpb" --quantize=$([[ $q == f32 ]] && echo none || echo $q)
    "$runfiles/codegen/build" --in "$dir/model.$q.opt.irpb" --out "$dir/model.$q.mlcx"
    echo "compiled in $(echo "$(date +%s.%N) - $start" | bc) s" >&2
    echo "$stamp" > "$dir/model.$q.stamp"
  fi
done
for ty in f32 q8_0 q4_0; do
  if [[ ! -f "$dir/model.$ty.gguf" ]]; then
    /usr/bin/python3 "$runfiles/tools/bench/write_gguf.py" --out "$dir/model.$ty.gguf" --type $ty $config
  fi
done
llamacpp="$cache/llamacpp"
if [[ ! -d "$llamacpp/node_modules/node-llama-cpp" ]]; then
  echo "installing node-llama-cpp 3.21.1 into $llamacpp ..." >&2
  mkdir -p "$llamacpp"
  (cd "$llamacpp" && npm i -E node-llama-cpp@3.21.1 --ignore-scripts --no-audit --no-fund > npm.log 2>&1) ||
    { cat "$llamacpp/npm.log" >&2; exit 1; }
fi
for ty in f32 q8_0 q4_0; do
  echo "GGUF $ty:"
  node "$runfiles/tools/bench/llama_cpp_times.mjs" "$llamacpp/node_modules" "$dir/model.$ty.gguf" "$threads" "$prompt_len" "$new_tokens"
done
/usr/bin/python3 "$runfiles/tools/bench/llm_torch_times.py" --threads "$threads" --prompt_len "$prompt_len" \
  --new_tokens "$new_tokens" $config
exec "$runfiles/tools/llm_bench" --exe "$dir/model.f32.mlcx" --onnx "$dir/model.onnx" --ort_library "$ort" \
  --threads "$threads" --prompt_len "$prompt_len" --new_tokens "$new_tokens" --quantized "q8=$dir/model.q8.mlcx,q4=$dir/model.q4.mlcx"
