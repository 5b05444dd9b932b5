#!/usr/bin/env bash
# The runner of reference tests (tools/build_defs/reference_cases.bzl): the cases script ($1)
# writes model files, inputs and reference outputs into a directory and lists them in cases.txt
# (reference_case.py); each is imported, optimized, built and run, and every output must lie
# within 1e-4 of its reference's scale (reference_cases in checks.sh).
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="${TEST_TMPDIR}"
/usr/bin/python3 "$1" "$t" 2> "$t/export.log" || { cat "$t/export.log"; exit 1; }
reference_cases "$t"
finish
