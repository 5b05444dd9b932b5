#!/usr/bin/env bash
# //tools:pipeline end to end: the bundled default, the cache (hits, option changes, corrupt
# entries, two pipelines at once, a full disk), failures, several targets, --dim.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
pipeline=tools/pipeline
cache="${TEST_TMPDIR}/cache"
source tools/testing/checks.sh

out1=$($pipeline --cache-dir "$cache" 2>&1)
check "default model runs with the reference accuracy" grep -q "accuracy: 351 / 360 = 97.50%" <<<"$out1"
check "first run computes every stage" test "$(grep -c '(cached)' <<<"$out1" || true)" -eq 0

out2=$($pipeline --cache-dir "$cache" 2>&1)
check "second run reruns no stage" test "$(grep -c '(cached)' <<<"$out2")" -eq 4
check "cached run gives the same accuracy" grep -q "accuracy: 351 / 360 = 97.50%" <<<"$out2"

out3=$($pipeline --cache-dir "$cache" --passes='fuse-ops{max-depth=2},legalize,fuse-tir' 2>&1)
check "a pass option change keeps the frontend cached" grep -q "parse .*(cached)" <<<"$out3"
check "a pass option change reruns opt" bash -c '! grep -q "opt .*(cached)" <<<"$0"' "$out3"

# Corrupt every cached build output: it must be detected and rebuilt, never used.
for f in "$cache"/build-*/*.mlcx; do truncate -s 64 "$f"; done
out4=$($pipeline --cache-dir "$cache" 2>&1)
check "a corrupt entry is rebuilt" bash -c '! grep -q "build .*(cached)" <<<"$0"' "$out4"
check "after the rebuild the result is right" grep -q "accuracy: 351 / 360 = 97.50%" <<<"$out4"

printf '@R.function\ndef main(x: R.Tensor((3,), "float32")):\n    return R.add(x, y)\n' > "$TEST_TMPDIR/bad.py"
if $pipeline "$TEST_TMPDIR/bad.py" --cache-dir "$cache" > "$TEST_TMPDIR/bad.out" 2>&1; then
  check "a failing stage exits non-zero" false
else
  check "a failing stage exits non-zero" true
fi
check "the failing stage and file are named" grep -q "stage parse failed on $TEST_TMPDIR/bad.py" "$TEST_TMPDIR/bad.out"
check "the parser's message is shown" grep -q "bad.py:3:21: undefined variable 'y'" "$TEST_TMPDIR/bad.out"

# Without --out the stage outputs live in a temporary directory that is removed at exit, on
# success and on failure; with --out they stay, and the pipeline says where.
scratch="${TEST_TMPDIR}/scratch"
mkdir -p "$scratch"
TMPDIR="$scratch" $pipeline --cache-dir "$cache" > /dev/null 2>&1
TMPDIR="$scratch" $pipeline "$TEST_TMPDIR/bad.py" --cache-dir "$cache" > /dev/null 2>&1 || true
check "no temporary work directory is left behind" test -z "$(ls -A "$scratch")"
kept=$($pipeline --cache-dir "$cache" --out "$TEST_TMPDIR/kept" 2>&1)
check "--out keeps the stage outputs" test -s "$TEST_TMPDIR/kept/model.mlcx"
check "... and says where they are" grep -q "stage outputs in $TEST_TMPDIR/kept" <<<"$kept"
printf '@R.function\ndef main(x: R.Tensor((3,), "float32")):\n    return R.add(x, x)\n' > "$TEST_TMPDIR/twice.py"
compiled=$($pipeline "$TEST_TMPDIR/twice.py" --cache-dir "$cache" 2>&1)
check "without --inputs and --out no deleted file is named" grep -q "no --inputs: not run; --out DIR keeps the executable" <<<"$compiled"

# Two pipelines filling one cache at once: both right, and the cache they leave is whole.
shared="${TEST_TMPDIR}/shared_cache"
$pipeline --cache-dir "$shared" > "$TEST_TMPDIR/a.out" 2>&1 & a=$!
$pipeline --cache-dir "$shared" > "$TEST_TMPDIR/b.out" 2>&1 & b=$!
wait $a; ra=$?; wait $b; rb=$?
check "two concurrent pipelines both succeed" test "$ra$rb" = "00"
check "both get the reference accuracy" bash -c 'grep -q "accuracy: 351 / 360 = 97.50%" "$0" && grep -q "accuracy: 351 / 360 = 97.50%" "$1"' "$TEST_TMPDIR/a.out" "$TEST_TMPDIR/b.out"
check "no temporary entry is left behind" bash -c '! compgen -G "$0/.tmp.*"' "$shared"
out6=$($pipeline --cache-dir "$shared" 2>&1)
check "the cache they filled serves every stage" test "$(grep -c '(cached)' <<<"$out6")" -eq 4

# A full disk, as RLIMIT_FSIZE makes one (a write past the limit fails as on a full disk):
# whichever stage's write fails, a clear error and exit 1; no output and no cache entry is left
# half-written; once there is room, the cache serves what it holds and the run is right.
full="${TEST_TMPDIR}/full_cache"
for k in 1 20 48; do
  if (trap '' XFSZ; ulimit -f $k; exec $pipeline --cache-dir "$full" --out "$TEST_TMPDIR/full$k") > "$TEST_TMPDIR/full$k.out" 2>&1; then
    rc=0
  else
    rc=$?
  fi
  check "with $k KiB per file the pipeline exits 1" test $rc -eq 1
  check "... and names the write that failed" grep -q "write failed: File too large" "$TEST_TMPDIR/full$k.out"
done
check "a 1 KiB limit stops at opt: nothing after it is written" test ! -e "$TEST_TMPDIR/full1/model.opt.irpb"
check "no partial output file remains" bash -c '! compgen -G "$0/full*/*.tmp.*"' "$TEST_TMPDIR"
check "no partial cache entry remains" bash -c '! compgen -G "$0/.tmp.*"' "$full"
out7=$($pipeline --cache-dir "$full" 2>&1)
check "with room again the run is right" grep -q "accuracy: 351 / 360 = 97.50%" <<<"$out7"
check "... reusing the stages cached before the disk filled" grep -q "opt .*(cached)" <<<"$out7"

out5=$($pipeline --cache-dir "$cache" --profile --profile_json "$TEST_TMPDIR/trace.json" 2>&1)
check "--profile prints the table with the model's kernels" grep -q "^fused_dense_add_relu.*nn.dense, add, nn.relu" <<<"$out5"
check "--profile shows the VM's own time and the memory" bash -c 'grep -q "^(VM: dispatch" <<<"$0" && grep -q "^memory: tensors" <<<"$0"' "$out5"
check "--profile_json writes a Chrome trace" python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["traceEvents"]; assert any(x.get("cat") == "kernel" for x in e)' "$TEST_TMPDIR/trace.json"

$pipeline --no-cache --emit-dot "$TEST_TMPDIR/g.dot" --dump-dir "$TEST_TMPDIR/dump" > /dev/null 2>&1
check "emit-dot writes a graph with fused groups as clusters" grep -q "subgraph cluster_0" "$TEST_TMPDIR/g.dot"
check "dump-dir holds every intermediate module" compgen -G "$TEST_TMPDIR/dump/module.0*.after_legalize.py"
$pipeline --no-cache --dump-dir "$TEST_TMPDIR/new/nested" > /dev/null 2>&1
check "dump-dir is made when it does not exist" compgen -G "$TEST_TMPDIR/new/nested/module.0*.after_legalize.py"
touch "$TEST_TMPDIR/a_file"
refused "a dump-dir that cannot be a directory is an error naming it" "dump directory $TEST_TMPDIR/a_file/sub" \
  $pipeline --no-cache --dump-dir "$TEST_TMPDIR/a_file/sub"

# Several targets: opt and build once per target, merged into one executable that runs here.
multi=$($pipeline --cache-dir "$cache" --target=x86-64,x86-64-v3 --out "$TEST_TMPDIR/multi" 2>&1)
check "two targets: the default model runs with the reference accuracy" grep -q "accuracy: 351 / 360 = 97.50%" <<<"$multi"
check "... each target optimized and built, then merged" test "$(grep -cE '\] (opt|build) ' <<<"$multi")-$(grep -c '\] merge ' <<<"$multi")" = "4-1"
check "... into one executable" test -s "$TEST_TMPDIR/multi/model.mlcx"
refused "a target named twice is refused" "is named twice" $pipeline --cache-dir "$cache" --target=x86-64-v3,x86-64-v3
refused "a bad target in a list is named" "target 2 of 2 ('pentium9')" $pipeline --cache-dir "$cache" --target=x86-64-v3,pentium9

# --dim pins an ONNX model's symbolic dimensions at import (here the sequence length that a
# Range needs as a constant); a cached import under one pin is not reused under another.
/usr/bin/python3 - "$TEST_TMPDIR" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper
out = sys.argv[1]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["seq", 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["seq", 4])
nodes = [
    helper.make_node("Shape", ["x"], ["shape"]),
    helper.make_node("Gather", ["shape", "zero"], ["len"], axis=0),
    helper.make_node("Cast", ["len"], ["len_f"], to=TensorProto.FLOAT),
    helper.make_node("Range", ["start", "len_f", "step"], ["pos"]),
    helper.make_node("Unsqueeze", ["pos", "one"], ["col"]),
    helper.make_node("Add", ["x", "col"], ["y"]),
]
inits = [helper.make_tensor("zero", TensorProto.INT64, [], [0]), helper.make_tensor("one", TensorProto.INT64, [1], [1]),
         helper.make_tensor("start", TensorProto.FLOAT, [], [0.0]), helper.make_tensor("step", TensorProto.FLOAT, [], [1.0])]
model = helper.make_model(helper.make_graph(nodes, "positions", [x], [y], inits), opset_imports=[helper.make_opsetid("", 14)])
onnx.save(model, f"{out}/positions.onnx")
np.save(f"{out}/pos_x3.npy", np.zeros((3, 4), np.float32))
PY
check "--dim pins a symbolic dimension an operator needs static" \
  $pipeline "$TEST_TMPDIR/positions.onnx" --dim seq=3 --inputs "$TEST_TMPDIR/pos_x3.npy" --cache-dir "$cache" --out "$TEST_TMPDIR/pos3"
check "... and the result is x + its row index" /usr/bin/python3 -c \
  'import numpy as n, sys; y = n.load(sys.argv[1]); sys.exit(0 if y.tolist() == [[0.0] * 4, [1.0] * 4, [2.0] * 4] else 1)' \
  "$TEST_TMPDIR/pos3/out0.npy"
out5=$($pipeline "$TEST_TMPDIR/positions.onnx" --dim seq=5 --cache-dir "$cache" 2>&1 || true)
check "another pin does not reuse the cached import" bash -c '! grep -q "import .*(cached)" <<<"$0"' "$out5"
refused "--dim on a model that is not ONNX is refused" "pins symbolic dimensions of an ONNX model" \
  $pipeline "$TEST_TMPDIR/bad.py" --dim seq=3 --cache-dir "$cache"

finish
