#!/usr/bin/env bash
# The zoo's models compiled by the Bazel rules from ONNX and from FX (same weights): each
# executable runs, and the two importers' executables agree on the same input. The attention
# model tuned by tune_model (two shards, merged) compiles with its records and agrees too. The
# tune stage takes an .onnx file as the import stage does, and names the formats it takes.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
t="$TEST_TMPDIR"
/usr/bin/python3 -c '
import numpy as np, sys
rng = np.random.default_rng(0)
np.save(sys.argv[1] + "/cnn_x.npy", rng.standard_normal((1, 3, 8, 8)).astype(np.float32))
np.save(sys.argv[1] + "/attn_x.npy", rng.standard_normal((1, 4, 8)).astype(np.float32))' "$t"
for model in cnn attn; do
  for fmt in onnx fx; do
    vm/run --exe "testdata/models/zoo/${model}_${fmt}.mlcx" --inputs "$t/${model}_x.npy" --outputs "$t/${model}_${fmt}.npy" > /dev/null
  done
  /usr/bin/python3 -c '
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
scale = max(float(np.abs(a).max()), 1e-3)
err = float(np.abs(a - b).max()) / scale
print(f"{sys.argv[3]}: ONNX and FX executables agree to {err:.1e} of the output scale")
sys.exit(0 if a.shape == b.shape and err < 1e-5 else 1)' "$t/${model}_onnx.npy" "$t/${model}_fx.npy" "$model"
done
vm/run --exe testdata/models/zoo/attn_tuned.mlcx --inputs "$t/attn_x.npy" --outputs "$t/attn_tuned.npy" > /dev/null
/usr/bin/python3 -c '
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
err = float(np.abs(a - b).max()) / max(float(np.abs(a).max()), 1e-3)
print(f"attn with tuned kernels: agrees to {err:.1e} of the output scale")
sys.exit(0 if a.shape == b.shape and err < 1e-5 else 1)' "$t/attn_onnx.npy" "$t/attn_tuned.npy"
# The two shards' records merged hold one record per tuning task of the model (as many as an
# unsharded run tunes; the attention itself is a library call since fuse-attention, so fewer
# than shards is possible: an empty shard merges too).
tasks=$(tools/tune --in testdata/models/zoo/attn.onnx --db "$t/attn_all.pb" --trials 1 --target x86-64-v3 | sed -n 's/^tuned \([0-9]*\) tasks.*/\1/p')
merged=$(tools/tune --merge testdata/models/zoo/attn_records.pb --db "$t/records_copy.pb")
echo "$merged ($tasks tasks)"
[[ $tasks -ge 1 && $merged == "merged $tasks records into"* ]]
tools/tune --in testdata/models/zoo/cnn.onnx --db "$t/cnn_records.pb" --trials 2 --target x86-64-v3 > "$t/tune.out"
grep -q "^tuned " "$t/tune.out" && test -s "$t/cnn_records.pb" || { echo "tune on an .onnx file wrote no records"; cat "$t/tune.out"; exit 1; }
if tools/tune --in "$t/cnn_x.npy" --db "$t/x.pb" 2> "$t/tune.err"; then echo "tune took a .npy file"; exit 1; fi
grep -q "expected \*.onnx (ONNX), \*.fxpb (PyTorch FX), \*.irpb" "$t/tune.err" || { cat "$t/tune.err"; exit 1; }
echo "tune: takes .onnx, refuses other formats naming the ones it takes"
