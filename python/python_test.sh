#!/usr/bin/env bash
# The Python package, as a user imports it: PYTHONPATH at the assembled package, Debian's
# /usr/bin/python3 (it sees torch and NumPy).
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
export PYTHONPATH="$PWD/python/site"
# -P: the source tree's python/mlc (no native half) must not shadow the assembled package.
/usr/bin/python3 -P python/python_test.py

# The wheel installs with pip, offline, and the installed package compiles and runs a model.
site="$TEST_TMPDIR/wheel_site"
/usr/bin/python3 -m pip install --quiet --no-index --no-deps --no-cache-dir --disable-pip-version-check \
  --target "$site" python/mlc-*.whl
PYTHONPATH="$site" /usr/bin/python3 -P - <<'PY'
import os
import numpy as np
import mlc
assert mlc.__file__.startswith(os.environ["PYTHONPATH"]), mlc.__file__
m = mlc.compile('@R.function\ndef main(x: R.Tensor((3,), "float32")):\n    return R.nn.relu(x)\n')
np.testing.assert_array_equal(m(np.array([-1, 0, 2], np.float32)), [0, 0, 2])
print("ok: the installed wheel compiles and runs a model from", os.path.dirname(mlc.__file__))
PY
