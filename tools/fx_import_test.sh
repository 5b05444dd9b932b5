#!/usr/bin/env bash
# PyTorch FX models (the seeds' MLP and MyModel) exported with torch 1.13, imported (high-level
# operators and TE), compiled and run: outputs match PyTorch within 1e-4 of the output's scale.
# The imported modules print like their goldens. An unsupported module is a clear error.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
t="${TEST_TMPDIR}"
failures=0; passed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAILED: $1"; failures=$((failures + 1)); }

compare() {  # compare OUT REF
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys
import numpy as np
out, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
assert out.shape == ref.shape, (out.shape, ref.shape)
scale = max(float(np.abs(ref).max()), 1e-6)
err = float(np.abs(out - ref).max()) / scale
print(f"  max |diff| / max |ref| = {err:.2e}")
sys.exit(0 if err < 1e-4 else 1)
PY
}

for example in mlp mymodel; do
  /usr/bin/python3 frontend/torch/export_fx.py --example $example --out "$t/$example.fxpb" \
    --inputs "$t/$example.x.npy" --reference "$t/$example.ref.npy"
  for mode in high_level te; do
    flag=""; [ "$mode" = te ] && flag="--te"
    frontend/import --in "$t/$example.fxpb" --out "$t/$example.$mode.irpb" $flag
    tools/print --in "$t/$example.$mode.irpb" > "$t/$example.$mode.py"
    if diff -u "testdata/import/fx_${example}_${mode}.py" "$t/$example.$mode.py" > "$t/diff.txt"; then
      ok "$example ($mode) prints like its golden"
    else
      bad "$example ($mode) prints like its golden"; cat "$t/diff.txt"
    fi
    passes/opt --in "$t/$example.$mode.irpb" --out "$t/$example.$mode.opt.irpb" --passes=fuse-ops,legalize,fuse-tir
    codegen/build --in "$t/$example.$mode.opt.irpb" --out "$t/$example.$mode.mlcx"
    vm/run --exe "$t/$example.$mode.mlcx" --inputs "$t/$example.x.npy" --outputs "$t/$example.$mode.out.npy"
    if compare "$t/$example.$mode.out.npy" "$t/$example.ref.npy"; then ok "$example ($mode) matches PyTorch"; else bad "$example ($mode) matches PyTorch"; fi
  done
done

/usr/bin/python3 frontend/torch/export_fx.py --example conv --out "$t/conv.fxpb"
if frontend/import --in "$t/conv.fxpb" --out "$t/conv.irpb" 2> "$t/err.txt"; then
  bad "unsupported module is an error"
elif grep -q "node conv (call_module conv): unsupported module Conv2d" "$t/err.txt" && [ ! -e "$t/conv.irpb" ]; then
  ok "unsupported module is an error naming the node, and nothing is written"
else
  bad "unsupported module error message"; cat "$t/err.txt"
fi
echo "$passed passed, $failures failed"
test "$failures" -eq 0
