#!/usr/bin/env bash
# Decoder-only language models with a dynamic sequence axis (decoder.py, GPT and Llama styles:
# positions from torch.arange, a causal mask from torch.triu over seq x seq, rotary embeddings,
# grouped-query attention) exported to ONNX and traced with torch.fx: each imports without --dim,
# keeps `seq` symbolic,
# compiles once (attention as one mlc.attention call per layer), and matches PyTorch's logits at
# sequence lengths 1, 7 and 30.
# The same models exported with a key/value cache (past_key_values in, grown caches out: `past`
# and `seq` symbolic) generate, through //tools:generate, PyTorch's greedy continuation of a
# prompt, token for token; so does the model without a cache (each step the whole sequence).
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="${TEST_TMPDIR}"
# The text of one function of a printed module (main, prefill): counts below are per entry point.
function_text() { awk -v f="def $2(" 'index($0, f) { p = 1 } p && /^    @/ { exit } p' "$1"; }
export -f function_text

# Both importers: torch.onnx's graph and torch.fx's (frontend/torch/export_fx.py traces the
# same module: sizes, torch.arange, torch.triu, tensor indexing and the caches' concatenation
# keep `seq` and `past` symbolic there too). Each model is named <style> (ONNX) or <style>.fx.
for format in onnx fxpb; do
for style in gpt llama; do
  m=$([[ $format == onnx ]] && echo "$style" || echo "$style.fx")
  mkdir -p "$t/$m"
  kv=$([[ $style == llama ]] && echo 2 || echo 4)
  /usr/bin/python3 testdata/models/decoder/decoder.py --style "$style" --kv_heads "$kv" --out "$t/$m.$format" \
    --samples "$t/$m" --seqs 1,7,30 2> /dev/null
  check "$m: imports with the sequence symbolic" frontend/import --in "$t/$m.$format" --out "$t/$m.irpb"
  tools/print --in "$t/$m.irpb" > "$t/$m.py"
  check "$m: main takes ids of shape (1, seq)" grep -q 'ids: R.Tensor((1, "seq"), dtype="int64")' "$t/$m.py"
  check "$m: the positions are an arange over seq" grep -q 'R.arange(.*R.Tensor((seq,)' "$t/$m.py"
  check "$m: the causal mask is a triu over seq x seq" grep -q 'R.triu(' "$t/$m.py"
  check "$m: compiles once" bash -c "passes/opt --in $t/$m.irpb --out $t/$m.opt.irpb &&
                                         codegen/build --in $t/$m.opt.irpb --out $t/$m.mlcx"
  # fuse-attention: the chain from q.k^T to the product with v is one library call per layer
  # (2 layers); no kernel computes a softmax any more.
  check "$m: each layer's attention is one mlc.attention call" \
    bash -c "tools/print --in $t/$m.opt.irpb > $t/$m.opt.py && [[ \$(function_text $t/$m.opt.py main | grep -c 'mlc.attention') == 2 ]] &&
             ! grep -q 'nn.softmax' $t/$m.opt.py"
  for seq in 1 7 30; do
    check "$m: at seq $seq the logits match PyTorch" bash -c "
      vm/run --exe $t/$m.mlcx --inputs $t/$m/ids.$seq.npy --outputs $t/$m/out.$seq.npy &&
      source tools/testing/checks.sh && matches_reference $t/$m/out.$seq.npy $t/$m/logits.$seq.npy 1e-5"
  done
  # prefill-entry: @prefill returns the last position's logits only, [1, 1, vocab].
  check "$m: @prefill returns the last position's logits [1, 1, vocab], equal to PyTorch's last row" bash -c "
    grep -q 'def prefill(ids: R.Tensor((1, \"seq\"), dtype=\"int64\")) -> R.Tensor((1, 1, 256)' $t/$m.opt.py &&
    vm/run --exe $t/$m.mlcx --func prefill --inputs $t/$m/ids.30.npy --outputs $t/$m/last.30.npy &&
    /usr/bin/python3 -c 'import numpy as np, sys; np.save(sys.argv[2], np.load(sys.argv[1])[:, -1:])' $t/$m/logits.30.npy $t/$m/ref_last.30.npy &&
    source tools/testing/checks.sh && matches_reference $t/$m/last.30.npy $t/$m/ref_last.30.npy 1e-5"

  /usr/bin/python3 testdata/models/decoder/decoder.py --style "$style" --kv_heads "$kv" --cache --out "$t/$m.cache.$format" \
    --greedy "$t/$m.greedy.npy" --prompt 1,2,3 --new_tokens 20 2> /dev/null
  check "$m (cache): compiles with past and seq symbolic" bash -c "
    frontend/import --in $t/$m.cache.$format --out $t/$m.cache.irpb && passes/opt --in $t/$m.cache.irpb --out $t/$m.cache.opt.irpb &&
    codegen/build --in $t/$m.cache.opt.irpb --out $t/$m.cache.mlcx"
  tools/print --in "$t/$m.cache.irpb" > "$t/$m.cache.py"
  check "$m (cache): each layer's attention over past + seq keys is one mlc.attention call" \
    bash -c "tools/print --in $t/$m.cache.opt.irpb > $t/$m.cache.opt.py &&
             [[ \$(function_text $t/$m.cache.opt.py main | grep -c 'mlc.attention') == 2 &&
                \$(function_text $t/$m.cache.opt.py prefill | grep -c 'mlc.attention') == 2 ]]"
  check "$m (cache): the caches grow from past to past + seq" grep -q 'R.Tensor((1, [0-9]*, "past + seq", 16)' "$t/$m.cache.py"
  check "$m (cache): the cache inputs are named past_<layer>_key (ONNX's past.0.key made an identifier)" grep -q 'past_0_key: R.Tensor((1, [0-9]*, "past", 16)' "$t/$m.cache.py"
  for form in cache full; do
    exe=$([[ $form == cache ]] && echo "$t/$m.cache.mlcx" || echo "$t/$m.mlcx")
    check "$m ($form): generate gives PyTorch's greedy continuation" bash -c "
      tools/generate --exe $exe --prompt_ids 1,2,3 --max_new_tokens 20 --out $t/$m.$form.ids.npy > $t/$m.$form.txt &&
      /usr/bin/python3 -c 'import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print(\"  ours \", list(a)); print(\"  torch\", list(b)); sys.exit(0 if list(a) == list(b) else 1)' \
        $t/$m.$form.ids.npy $t/$m.greedy.npy"
  done
  check "$m (cache): generate reports prefill and decode speed" grep -q "^decode: 19 tokens" "$t/$m.cache.txt"
  check "$m (cache): generate runs the prompt through @prefill" grep -q "^prefill: 3 tokens .* through @prefill" "$t/$m.cache.txt"
  # kv-cache-append: the caches are sequence-major parameters grown by R.cache_append, and the
  # generator's caches have room for every position, so no step copies a cache: 20 calls x 2
  # layers x (keys, values) appends, all in place (the VM's counters).
  check "$m (cache): the caches are parameters of shape [1, past, heads, dim] grown by R.cache_append" \
    bash -c "grep -q 'def main(.*past_0_key: R.Tensor((1, \"past\", [0-9]*, 16)' $t/$m.cache.opt.py &&
             [[ \$(function_text $t/$m.cache.opt.py main | grep -c 'R.cache_append(') == 4 ]]"
  check "$m (cache): generation appends to the caches in place, never copying one" \
    grep -q "^cache: .* 80 appends in place, 0 copied the cache" "$t/$m.cache.txt"
done
done

# Quantized weights (opt --quantize): every matmul by a weight whose K is whole groups of
# 32 (q, k, v, o, gate, up per layer and the tied head; not down, K = 170) runs on int8 / int4
# codes, and the logits equal PyTorch's with the same weights and their inputs fake-quantized (decoder.py
# --quantized_samples) up to float rounding. Their distance from the float logits is the
# format's (printed; on this tiny random model q4 is far from float).
for q in q8 q4; do
  /usr/bin/python3 testdata/models/decoder/decoder.py --style llama --kv_heads 2 --out "$t/llama.$q.onnx" \
    --samples "$t/llama" --seqs 7,30 --quantized_samples "$q" 2> /dev/null
  check "llama $q: compiles" bash -c "passes/opt --in $t/llama.irpb --out $t/llama.$q.opt.irpb --quantize=$q &&
                                     codegen/build --in $t/llama.$q.opt.irpb --out $t/llama.$q.mlcx"
  check "llama $q: the 13 weights of K % 32 == 0 become mlc.wq.matmul calls" \
    bash -c "tools/print --in $t/llama.$q.opt.irpb > $t/llama.$q.opt.py && [[ \$(function_text $t/llama.$q.opt.py main | grep -c 'mlc.wq.matmul') == 13 ]]"
  check "llama $q: the embedding lookup reads the quantized copy of the head tied to it (one copy for both)" \
    /usr/bin/python3 -c '
import re, subprocess, sys
text = subprocess.run(["bash", "-c", "function_text " + sys.argv[1] + " main"], capture_output=True, text=True, check=True).stdout
takes = re.findall(r"mlc\.wq\.take\", \(\w+, (metadata\[\"relax\.expr\.Constant\"\]\[\d+\])", text)
sys.exit(0 if len(takes) == 1 and re.search(r"mlc\.wq\.matmul\", \(\w+, " + re.escape(takes[0]) + ",", text) else 1)' "$t/llama.$q.opt.py"
  for seq in 7 30; do
    check "llama $q: at seq $seq the logits match PyTorch's on fake-quantized weights and inputs" bash -c "
      vm/run --exe $t/llama.$q.mlcx --inputs $t/llama/ids.$seq.npy --outputs $t/llama/out.$seq.$q.npy &&
      source tools/testing/checks.sh && matches_reference $t/llama/out.$seq.$q.npy $t/llama/logits.$seq.$q.npy 2e-5"
  done
  # The same on an AVX2 machine (this CPU capped to x86-64-v3): kernels for that target, the
  # quantized matmul's AVX2 path.
  check "llama $q: compiled for x86-64-v3 and run as on an AVX2 CPU, the logits match too" bash -c "
    passes/opt --in $t/llama.irpb --out $t/llama.$q.v3.irpb --quantize=$q --target=x86-64-v3 &&
    codegen/build --in $t/llama.$q.v3.irpb --out $t/llama.$q.v3.mlcx --target=x86-64-v3 &&
    MLC_MAX_ISA=x86-64-v3 vm/run --exe $t/llama.$q.v3.mlcx --inputs $t/llama/ids.30.npy --outputs $t/llama/out.30.$q.v3.npy &&
    source tools/testing/checks.sh && matches_reference $t/llama/out.30.$q.v3.npy $t/llama/logits.30.$q.npy 2e-5"
  echo "  llama $q against the float model's logits at seq 30 (the format's error):"
  matches_reference "$t/llama/out.30.$q.npy" "$t/llama/logits.30.npy" 10 || true
done
check "q4 holds the weights in fewer bytes than q8, q8 in fewer than float" bash -c "
  [[ \$(stat -c %s $t/llama.q4.mlcx) -lt \$(stat -c %s $t/llama.q8.mlcx) && \$(stat -c %s $t/llama.q8.mlcx) -lt \$(stat -c %s $t/llama.mlcx) ]]"
# The benchmark's GGUF files (tools/bench/write_gguf.py, for llama.cpp) hold the model's weights:
# read back by its own reader, every tensor equals the float weight or its Q8_0 / Q4_0 values.
for ty in f32 q8_0 q4_0; do
  check "GGUF $ty: the tiny llama written and read back with the same tensors" bash -c "
    /usr/bin/python3 tools/bench/write_gguf.py --out $t/llama.$ty.gguf --type $ty --style llama --kv_heads 2 &&
    /usr/bin/python3 tools/bench/write_gguf.py --check $t/llama.$ty.gguf --type $ty --style llama --kv_heads 2"
done
# What the FX importer does not take is refused, naming the node: indexing by a tensor (a bool
# mask), and a slice of a symbolic axis.
/usr/bin/python3 - "$t" <<'EOF'
import sys
import torch
sys.path.insert(0, "frontend/torch")
from export_fx import export
class MaskIndex(torch.nn.Module):
    def forward(self, x):
        return x[x > 0]
class SymbolicSlice(torch.nn.Module):
    def forward(self, x):
        return x[:, 1:]
x = torch.randn(1, 5, 4)
export(MaskIndex(), (x,), sys.argv[1] + "/mask_index.fxpb")
export(SymbolicSlice(), (x,), sys.argv[1] + "/symbolic_slice.fxpb", {0: {1: "seq"}})
EOF
refused "FX: indexing by a tensor is refused naming the node" "node getitem (call_function operator.getitem): tensor indices" \
  frontend/import --in "$t/mask_index.fxpb" --out "$t/x.irpb"
refused "FX: a slice of a symbolic axis is refused naming the node" "node getitem (call_function operator.getitem): slicing axis 1, which is symbolic" \
  frontend/import --in "$t/symbolic_slice.fxpb" --out "$t/x.irpb"
refused "opt names a weight format it does not know" "'q5' is not a weight format" \
  passes/opt --in "$t/llama.irpb" --out "$t/x.irpb" --quantize=q5
refused "generate names the parameter of a model that is no decoder" "main's parameter 0 (x) must be int64 \[1, seq\]" \
  tools/generate --exe testdata/models/digits_mlp/digits.mlcx --prompt_ids 1
refused "generate names a missing function" "has no function nope" tools/generate --exe "$t/gpt.cache.mlcx" --func nope --prompt_ids 1
refused "generate refuses a prompt that is not token ids" "'x' is not a token id" tools/generate --exe "$t/gpt.cache.mlcx" --prompt_ids 1,x
finish
