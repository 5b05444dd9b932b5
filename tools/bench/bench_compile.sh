#!/usr/bin/env bash
# Compile and load time per model (docs/performance.md, "Compile and load time"): the pipeline's
# stages untuned and uncached on the bench models and torchvision classifiers, our executable's
# load time and resident memory, and ONNX Runtime's session creation for the same .onnx file.
# Installs ONNX Runtime from npm and exports the models (seeded weights) into a cache on first use.
#   ./bazelw run //tools:bench_compile -- [--threads 2] [--models resnet18,tv_convnext_tiny] [--llm]
# --llm adds the 250M decoder that //tools:bench_llm exports (when it is in the cache).
set -euo pipefail
runfiles="${RUNFILES_DIR:-$0.runfiles}/mlc"
cache="${MLC_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlc/bench}"
models="mlp_b1,encoder,mobilenet_v2,resnet18,tv_resnet50,tv_densenet121,tv_inception_v3,tv_convnext_tiny,tv_efficientnet_b0,tv_alexnet,tv_mobilenet_v3_large,tv_vgg11"
threads=1
llm=0
while [ $# -gt 0 ]; do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --llm) llm=1; shift ;;
    *) echo "bench_compile: unknown argument $1" >&2; exit 2 ;;
  esac
done
ort=$("$runfiles/tools/bench/install_onnxruntime.sh" "$cache/onnxruntime")
/usr/bin/python3 "$runfiles/tools/bench/export_bench_models.py" "$cache/models" --models "$models" 2> "$cache/export.log" ||
  { cat "$cache/export.log" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=""
paths=""
for m in ${models//,/ }; do paths="$paths $m:$cache/models/$m.onnx"; done
if [ "$llm" = 1 ] && [ -f "$cache/llm/250m/model.onnx" ]; then paths="$paths llama_250m:$cache/llm/250m/model.onnx"; fi
for entry in $paths; do
  name="${entry%%:*}"
  onnx="${entry#*:}"
  out="$work/$name"
  # Peak resident memory of the pipeline and the stages it waits for (GNU time's %M).
  if ! MLC_NUM_THREADS="$threads" /usr/bin/time -f "%M" -o "$work/$name.rss" \
      "$runfiles/tools/pipeline" "$onnx" --no_cache --out "$out" > "$work/$name.log" 2>&1; then
    echo "bench_compile: $name failed:" >&2
    cat "$work/$name.log" >&2
    continue
  fi
  times=$(awk '/^\[[0-9]\/3\]/ { print $(NF-1) }' "$work/$name.log" | paste -sd, -)
  rows="$rows$name,$onnx,$out/model.mlcx,$times,$(cat "$work/$name.rss");"
done
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; ONNX Runtime with $threads thread(s)"
"$runfiles/tools/compile_bench" --ort_library "$ort" --threads "$threads" --rows "$rows"
