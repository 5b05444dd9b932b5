#!/usr/bin/env bash
# A fuzz target's short run (CI's smoke run; an hour is run by hand, docs/testing.md#fuzzing):
#   smoke.sh FUZZER SECONDS SEED...
# The seeds (files or directories) are copied into a scratch corpus (libFuzzer reads it
# recursively); the fuzzer mutates them for
# SECONDS (FUZZ_SECONDS overrides). Any crash, sanitizer finding, leak or timeout fails the test,
# with the input kept under the test's undeclared outputs.
set -euo pipefail
fuzzer=$1; seconds=${FUZZ_SECONDS:-$2}; shift 2
help=$("$fuzzer" -help=1 2>&1 || true)
if [[ $help != *libFuzzer* ]]; then
  echo "$fuzzer is not a libFuzzer build: run with --config=fuzz"
  exit 1
fi
seeds="$TEST_TMPDIR/seeds" work="$TEST_TMPDIR/work"
mkdir -p "$seeds" "$work"
i=0
for s in "$@"; do
  if [[ -d $s ]]; then
    cp -r "$s/." "$seeds/$((i++))"
  else
    cp "$s" "$seeds/$((i++))-$(basename "$s")"
  fi
done
artifacts="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}/"
exec "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
  -artifact_prefix="$artifacts" "$work" "$seeds"
