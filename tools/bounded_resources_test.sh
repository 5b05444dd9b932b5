#!/usr/bin/env bash
# Models that ask for more than a machine has (docs/limits.md): each gets a clear error naming
# the limit and a non-zero exit, never a crash, an out-of-memory kill or a hang; what fits
# runs and is right. A million-node graph compiles and runs.
set -uo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="${TEST_TMPDIR}"

/usr/bin/python3 tools/testing/make_limit_models.py "$t" || { echo "FAILED: making the models"; exit 1; }

# ---- A graph of a million nodes: compiled and run in bounded time (the test's timeout). It is
# part 1 of the test (shard_owns: the two shards run in parallel), everything else part 0.
if shard_owns 1; then
  start=$SECONDS
  check "a million-node ONNX graph compiles and runs" tools/pipeline "$t/chain.onnx" --inputs "$t/x4.npy" --out "$t/chain" --no-cache
  check "... and computes relu" /usr/bin/python3 -c \
    'import numpy as n, sys; sys.exit(0 if n.load(sys.argv[1]).tolist() == [0.0, 0.0, 2.0, 3.25] else 1)' "$t/chain/out0.npy"
  echo "million-node graph: $((SECONDS - start)) s"
fi
shard_owns 0 || { finish; exit; }

# ---- An expression nested 100,000 deep, as a left-leaning chain and as parentheses.
/usr/bin/python3 - "$t" <<'PY'
import sys
out = sys.argv[1]
head = '''@tvm.script.ir_module
class M:
    @T.prim_func
    def f(X: T.Buffer[(4,), "float32"], Y: T.Buffer[(4,), "float32"]):
        for i in T.grid(4):
            with T.block("Y"):
                vi = T.axis.remap("S", [i])
                Y[vi] = '''
open(f"{out}/chain.py", "w").write(head + " + ".join(["X[vi]"] * 100000) + "\n")
open(f"{out}/parens.py", "w").write(head + "(" * 100000 + "X[vi]" + " + X[vi])" * 100000 + "\n")
open(f"{out}/deep150.py", "w").write(head + " + ".join(["X[vi]"] * 150) + "\n")
PY
refused "a 100,000-term chain is refused by depth" "nested more than 2000 levels deep" frontend/parse --in "$t/chain.py" --out "$t/c.irpb"
refused "100,000 parentheses are refused" "nested too deeply" frontend/parse --in "$t/parens.py" --out "$t/p.irpb"
check "nothing is written for a refused module" test ! -e "$t/c.irpb"
check "150 levels parse by default" frontend/parse --in "$t/deep150.py" --out "$t/d.irpb"
refused "--limits lowers the depth limit" "nested more than 100 levels deep (limit max_nesting_depth = 100" \
  frontend/parse --in "$t/deep150.py" --out "$t/d2.irpb" --limits=max_nesting_depth=100

# ---- A loop of 2^40 iterations.
cat > "$t/loop.py" <<'EOF'
@tvm.script.ir_module
class M:
    @T.prim_func
    def f(X: T.Buffer[(4,), "float32"], Y: T.Buffer[(4,), "float32"]):
        for i, k in T.grid(4, 1099511627776):
            with T.block("Y"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    Y[vi] = T.float32(0)
                Y[vi] = Y[vi] + X[vi]
EOF
refused "a 2^40 loop is refused" "PrimFunc @f: its loops run 8796093022208 statement instances (limit max_kernel_iterations = 2^38" \
  frontend/parse --in "$t/loop.py" --out "$t/l.irpb"

# ---- Tensors of 10^12 elements.
cat > "$t/tensor.py" <<'EOF'
@R.function
def main(x: R.Tensor((1000000, 1000000), "float32")):
    with R.dataflow():
        y = R.nn.relu(x)
        R.output(y)
    return y
EOF
refused "a 10^12-element parameter is refused" "parameter x of type Tensor((1000000, 1000000), float32) needs 3.64 TiB (limit max_tensor_bytes = 64 GiB" \
  frontend/parse --in "$t/tensor.py" --out "$t/t.irpb"
refused "an ONNX Expand to 10^12 elements is refused at import" "needs 3.64 TiB (limit max_tensor_bytes" \
  frontend/import --in "$t/expand_huge.onnx" --out "$t/e.irpb"
refused "an ONNX ConstantOfShape of 10^12 elements is refused, not allocated" "needs 3.64 TiB" \
  frontend/import --in "$t/constant_of_shape_huge.onnx" --out "$t/c.irpb"
check "a ConstantOfShape of 4M elements is filled at run time" \
  tools/pipeline "$t/constant_of_shape_4m.onnx" --inputs "$t/x1.npy" --out "$t/cos" --no-cache
check "... and gives 1 + 4M * 0.5" /usr/bin/python3 -c 'import numpy as n, sys; y = n.load(sys.argv[1]); sys.exit(0 if y.tolist() == [2097153.0] else 1)' "$t/cos/out0.npy"

# With the compile-time limits raised, the runtime refuses what it cannot allocate.
raised=--limits=max_tensor_bytes=16T,max_kernel_iterations=2^50
frontend/import --in "$t/expand_huge.onnx" --out "$t/e.irpb" $raised &&
  passes/opt --in "$t/e.irpb" --out "$t/e.opt.irpb" $raised &&
  codegen/build --in "$t/e.opt.irpb" --out "$t/e.mlcx" $raised
check "with raised limits the 10^12-element model builds" test -s "$t/e.mlcx"
refused "the VM refuses a kernel workspace over its limit" "kernel fused_broadcast_to_sum could not allocate 3.64 TiB of workspace" \
  vm/run --exe "$t/e.mlcx" --inputs "$t/x11.npy"
if [[ $(ldd vm/run) == *libasan* ]]; then
  # AddressSanitizer reserves terabytes of address space for its shadow, which ulimit -v forbids.
  echo "not run under AddressSanitizer: the VM refusing what the system cannot give (ulimit -v)"
else
  refused "... and one the system cannot give" "could not allocate 3.64 TiB of workspace (out of memory" \
    bash -c 'ulimit -v 8000000; exec vm/run --exe "$0" --inputs "$1" --limits=max_tensor_bytes=16T' "$t/e.mlcx" "$t/x11.npy"
fi
cat > "$t/out_huge.py" <<'EOF'
@R.function
def main(x: R.Tensor((1, 1), "float32")):
    with R.dataflow():
        y = R.broadcast_to(x, shape=(1000000, 1000000))
        R.output(y)
    return y
EOF
frontend/parse --in "$t/out_huge.py" --out "$t/o.irpb" $raised &&
  passes/opt --in "$t/o.irpb" --out "$t/o.opt.irpb" $raised &&
  codegen/build --in "$t/o.opt.irpb" --out "$t/o.mlcx" $raised
refused "the VM refuses a tensor over its limit" "tensor float32 (1000000, 1000000) needs 3.64 TiB (limit max_tensor_bytes = 64 GiB" \
  vm/run --exe "$t/o.mlcx" --inputs "$t/x11.npy"

# ---- A 2 GiB initializer (external data: a single Protobuf message cannot hold it).
refused "a 2 GiB initializer is refused before it is read" "initializer W: the initializers up to this one need 2 GiB (limit max_constant_bytes = 1.75 GiB" \
  frontend/import --in "$t/initializer_2gib.onnx" --out "$t/i.irpb"
check "... with advice" grep -q "keep_params_in_input" "$CHECK_ERR"
check "as a parameter of main it imports without reading it" \
  frontend/import --in "$t/initializer_2gib.onnx" --out "$t/i.irpb" --keep_params_in_input
check "... and main takes it" bash -c 'tools/print --in "$0" | grep -q "W: R.Tensor((536870912,), dtype=\"float32\")"' "$t/i.irpb"
refused "external data outside the model's directory is refused" "external data location '../w.bin' is not inside the model's directory" \
  frontend/import --in "$t/external_escape.onnx" --out "$t/x.irpb"
check "weights in external data run" tools/pipeline "$t/ext_small.onnx" --inputs "$t/x4.npy" --out "$t/ext" --no-cache
check "... with the file's values (x + [0.5, 1.5, 2.5, 3.5])" /usr/bin/python3 -c \
  'import numpy as n, sys; sys.exit(0 if n.load(sys.argv[1]).tolist() == [-1.0, 1.5, 4.5, 6.75] else 1)' "$t/ext/out0.npy"

# ---- The flag itself.
frontend/parse --in "$t/deep150.py" --out "$t/f.irpb" --limits=max_tensor_size=1 2> "$t/err"
check "an unknown limit is a usage error" test $? -eq 2
check "... naming it and the known ones" grep -q "unknown limit 'max_tensor_size' (known: max_tensor_bytes" "$t/err"

finish
