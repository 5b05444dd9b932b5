#!/usr/bin/env bash
# The executables built by compile_model() (for this CPU, for x86-64-v3, and for both x86-64 and
# x86-64-v3 in one) run and reach the reference accuracy (97.50%); the multi-target one runs the
# x86-64-v3 kernels exactly where this CPU has AVX2 and FMA.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
d=testdata/models/digits_mlp
for exe in digits digits_x86_64_v3 digits_multi_target; do
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

chosen=$(vm/run --exe "$d/digits_multi_target.mlcx" --inputs "$d/test_x.npy" --profile --bench 1 | grep -o "kernels for '[^']*'")
if grep -q avx2 /proc/cpuinfo && grep -q " fma" /proc/cpuinfo && [[ "${MLC_MAX_ISA:-}" != x86-64 ]]; then
  want="kernels for 'llvm -mcpu=x86-64-v3'"
else
  want="kernels for 'llvm -mcpu=x86-64'"
fi
[[ "$chosen" == "$want" ]] || { echo "multi-target executable: $chosen, want $want"; exit 1; }
echo "multi-target executable: $chosen"
