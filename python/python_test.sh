#!/usr/bin/env bash
# The Python package, as a user imports it: PYTHONPATH at the assembled package, Debian's
# /usr/bin/python3 (it sees torch and NumPy).
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
export PYTHONPATH="$PWD/python/site"
# -P: the source tree's python/mlc (no native half) must not shadow the assembled package.
exec /usr/bin/python3 -P python/python_test.py
