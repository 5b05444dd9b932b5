#!/usr/bin/env bash
# The executables built by compile_model() (for this CPU and for x86-64-v3) run and reach the
# reference accuracy (97.50%).
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
d=testdata/models/digits_mlp
for exe in digits digits_x86_64_v3; do
vm/run --exe "$d/$exe.mlcx" --inputs "$d/test_x.npy" --outputs "$TEST_TMPDIR/logits.npy"
/usr/bin/python3 - "$TEST_TMPDIR/logits.npy" "$d/test_y.npy" <<'PY'
import sys
import numpy as np
logits, labels = np.load(sys.argv[1]), np.load(sys.argv[2])
accuracy = float((logits.argmax(axis=1) == labels).mean())
print(f"accuracy {accuracy:.4f}")
assert logits.shape == (360, 10), logits.shape
assert abs(accuracy - 0.975) < 1e-9, accuracy
print("1 passed, 0 failed")
PY
done
