#!/usr/bin/env bash
# The Python package, as a user imports it: PYTHONPATH at the assembled package, Debian's
# /usr/bin/python3 (it sees torch and NumPy).
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
export PYTHONPATH="$PWD/python/site"
# Under --config=asan the extension needs the AddressSanitizer runtime loaded before anything
# else (and libstdc++ right after, for its exception interceptors), and the interpreter's own
# allocations are not ours to leak-check.
if asan=$(ldd python/site/mlc/_mlc.so | awk '/libasan/ {print $3}') && [[ -n $asan ]]; then
  stdcxx=$(ldd python/site/mlc/_mlc.so | awk '/libstdc\+\+/ {print $3}')
  export LD_PRELOAD="$asan:$stdcxx" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
# -P: the source tree's python/mlc (no native half) must not shadow the assembled package.
/usr/bin/python3 -P python/python_test.py

# The wheel installs with pip, offline, and the installed package compiles and runs a model.
site="$TEST_TMPDIR/wheel_site"
/usr/bin/python3 -m pip install --quiet --no-index --no-deps --no-cache-dir --disable-pip-version-check \
  --target "$site" python/mlc-*.whl
PYTHONPATH="$site" /usr/bin/python3 -P - <<'PY'
import os
os.environ.pop("LD_PRELOAD", None)
import numpy as np
import mlc
assert mlc.__file__.startswith(os.environ["PYTHONPATH"]), mlc.__file__
m = mlc.compile('@R.function\ndef main(x: R.Tensor((3,), "float32")):\n    return R.nn.relu(x)\n')
np.testing.assert_array_equal(m(np.array([-1, 0, 2], np.float32)), [0, 0, 2])
print("ok: the installed wheel compiles and runs a model from", os.path.dirname(mlc.__file__))
PY
