#!/usr/bin/env bash
# //tools:schedule as a stage: text and Protobuf traces give the same module as the
# apply-trace pass, the course's example gives the course's result, and a refused trace
# exits non-zero, names the instruction and writes nothing.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/golden.sh
source tools/testing/checks.sh
tmp="${TEST_TMPDIR}"

frontend/parse --in testdata/schedule/mm_relu.py --out "$tmp/m.irpb"
tools/schedule --in "$tmp/m.irpb" --trace testdata/schedule/mm_relu_course.trace.py --out "$tmp/s.irpb" \
  --trace_out "$tmp/applied.pb" --print_trace > "$tmp/printed_trace.py"
tools/print --in "$tmp/s.irpb" --out "$tmp/s.py"
check "the course's trace gives the course's module" check_golden testdata/schedule/mm_relu_course.expected.py "$tmp/s.py"
check "--print_trace prints the applied trace" grep -q 'sch.reverse_compute_at(block=b., loop=l.)' "$tmp/printed_trace.py"

tools/schedule --in "$tmp/m.irpb" --trace "$tmp/applied.pb" --out "$tmp/s2.irpb"
tools/print --in "$tmp/s2.irpb" --out "$tmp/s2.py"
check "the Protobuf trace replays to the same module" cmp -s "$tmp/s.py" "$tmp/s2.py"

passes/opt --in "$tmp/m.irpb" --out "$tmp/s3.irpb" --passes="apply-trace{file=testdata/schedule/mm_relu_course.trace.py}"
tools/print --in "$tmp/s3.irpb" --out "$tmp/s3.py"
check "the apply-trace pass gives the same module" cmp -s "$tmp/s.py" "$tmp/s3.py"

frontend/parse --in testdata/schedule/matmul_odd.py --out "$tmp/odd.irpb"
if tools/schedule --in "$tmp/odd.irpb" --trace testdata/schedule/err_parallel_reduction.trace.py --out "$tmp/bad.irpb" \
    2> "$tmp/bad.err"; then
  check "a refused trace exits non-zero" false
else
  check "a refused trace exits non-zero" true
fi
check "the refusal names the instruction, the loop and why" \
  grep -q "err_parallel_reduction.trace.py: line 6 (sch.parallel): parallel: loop k: it is bound to the reduction variable vk" "$tmp/bad.err"
check "nothing is written after a refusal" test ! -e "$tmp/bad.irpb"

if tools/schedule --in "$tmp/m.irpb" --trace "$tmp/missing.py" --out "$tmp/x.irpb" 2> "$tmp/missing.err"; then
  check "a missing trace file is an error" false
else
  check "a missing trace file is an error" grep -q "missing.py" "$tmp/missing.err"
fi

finish
