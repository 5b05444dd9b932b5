#!/usr/bin/env bash
# The contrib pass runs by name when linked in (passes/contrib:opt) and when loaded as a
# plug-in into the stock //passes:opt; the stock opt alone does not know it.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
tmp="${TEST_TMPDIR}"
cat > "$tmp/linear.py" <<'PY'
@R.function
def main(x: R.Tensor((2, 4), "float32"), w: R.Tensor((3, 4), "float32"), b: R.Tensor((3,), "float32")) -> R.Tensor((2, 3), "float32"):
    with R.dataflow():
        y = R.linear(x, w, b)
        R.output(y)
    return y
PY
frontend/parse --in "$tmp/linear.py" --out "$tmp/in.irpb"

passes/contrib/opt --in "$tmp/in.irpb" --out "$tmp/linked.irpb" --passes=decompose-linear
tools/print --in "$tmp/linked.irpb" > "$tmp/linked.py"
grep -q "R.matmul(x, lv" "$tmp/linked.py" || { echo "linked-in pass did not rewrite"; cat "$tmp/linked.py"; exit 1; }

passes/opt --pass-plugin="$PWD/passes/contrib/libdecompose_linear_pass.so" \
  --in "$tmp/in.irpb" --out "$tmp/plugin.irpb" --passes=decompose-linear,legalize
tools/print --in "$tmp/plugin.irpb" > "$tmp/plugin.py"
grep -q "R.call_tir(cls.matmul" "$tmp/plugin.py" || { echo "plug-in pass did not run"; cat "$tmp/plugin.py"; exit 1; }

if passes/opt --in "$tmp/in.irpb" --out "$tmp/none.irpb" --passes=decompose-linear 2> "$tmp/err.txt"; then
  echo "stock opt should not know decompose-linear"; exit 1
fi
grep -q "unknown pass 'decompose-linear'" "$tmp/err.txt"
echo "1 passed, 0 failed"
