# Named checks for shell tests (source this file):
#   check NAME COMMAND...            passes when COMMAND succeeds
#   refused NAME PATTERN COMMAND...  passes when COMMAND exits 1 (an error, not a signal or a
#                                    crash) and its stderr matches PATTERN; stderr is kept in
#                                    $CHECK_ERR for further checks
#   finish                           prints the tally; exits non-zero if any check failed
#   matches_reference OUT REF [TOL]  succeeds when the .npy OUT matches the .npy REF: same shape,
#                                    max |OUT - REF| / max |REF| < TOL (default 1e-4; printed)
#   reference_cases DIR              one check per case of DIR/cases.txt (below): imported,
#                                    compiled, run and matched against its reference outputs
#   shard_owns K                     true when this shard of a sharded test (shard_count in
#                                    BUILD) runs part K of it; parts go round robin over shards
# Every check prints "ok: NAME" or "FAILED: NAME", so a test log reads as a list of properties.
checks_passed=0
checks_failed=0
CHECK_ERR="${TEST_TMPDIR:-/tmp}/check.err"

check() {
  local name=$1; shift
  if "$@"; then
    echo "ok: $name"; checks_passed=$((checks_passed + 1))
  else
    echo "FAILED: $name"; checks_failed=$((checks_failed + 1))
  fi
}

refused() {
  local name=$1 pattern=$2; shift 2
  local rc=0
  "$@" > /dev/null 2> "$CHECK_ERR" || rc=$?
  if [[ $rc -eq 1 ]] && grep -q -- "$pattern" "$CHECK_ERR"; then
    echo "ok: $name"; checks_passed=$((checks_passed + 1))
  else
    echo "FAILED: $name (exit $rc)"; cat "$CHECK_ERR"; checks_failed=$((checks_failed + 1))
  fi
}

finish() {
  echo "${checks_passed} passed, ${checks_failed} failed"
  [[ $checks_failed -eq 0 ]]
}

matches_reference() {
  /usr/bin/python3 - "$1" "$2" "${3:-1e-4}" <<'PY'
import sys
import numpy as np
out, ref, tol = np.load(sys.argv[1]), np.load(sys.argv[2]), float(sys.argv[3])
assert out.shape == ref.shape, (out.shape, ref.shape)
err = float(np.abs(out - ref).max()) / max(float(np.abs(ref).max()), 1e-6)
print(f"  max |diff| / max |ref| = {err:.2e}")
sys.exit(0 if err < tol else 1)
PY
}

shard_owns() {
  if [[ -n "${TEST_SHARD_STATUS_FILE:-}" ]]; then touch "$TEST_SHARD_STATUS_FILE"; fi
  (( $1 % ${TEST_TOTAL_SHARDS:-1} == ${TEST_SHARD_INDEX:-0} ))
}

# reference_cases DIR: the cases a generator wrote to DIR/cases.txt, one per line
# "<case> <model file> <inputs> <references>" (comma-separated .npy lists), each imported,
# compiled with the default passes and run by the stage binaries (run from the runfiles root);
# every output must match its reference within 1e-4 of its scale. One check per case.
reference_cases() {
  local dir=$1 case model inputs refs outs
  while read -r case model inputs refs; do
    outs=${refs//.ref/.out}
    check "$case matches its reference" _reference_case "$dir/$case" "$model" "$inputs" "$outs" "$refs"
  done < "$dir/cases.txt"
}

_reference_case() {
  local stem=$1 model=$2 inputs=$3 outs=$4 refs=$5 i
  frontend/import --in "$model" --out "$stem.irpb" && passes/opt --in "$stem.irpb" --out "$stem.opt.irpb" &&
    codegen/build --in "$stem.opt.irpb" --out "$stem.mlcx" && vm/run --exe "$stem.mlcx" --inputs "$inputs" --outputs "$outs" ||
    return 1
  local -a o r
  IFS=, read -ra o <<< "$outs"
  IFS=, read -ra r <<< "$refs"
  for i in "${!r[@]}"; do matches_reference "${o[$i]}" "${r[$i]}" 1e-4 || return 1; done
}
