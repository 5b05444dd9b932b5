#!/usr/bin/env bash
# The seeds' MLP and MyModel, a small CNN (every convolution feature) and a transformer block
# (layer norm, attention, softmax) exported with torch 1.13 through FX and through ONNX, imported
# (FX: graph-level operators, and those legalized to tensor expressions), compiled and run:
# outputs match PyTorch within 1e-4 of the output's scale.
# The imported modules print like their goldens. An unsupported module is a clear error.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/golden.sh
source tools/testing/checks.sh
t="${TEST_TMPDIR}"
failures=0; passed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAILED: $1"; failures=$((failures + 1)); }
# compile_and_run MODEL STEM INPUTS: imports MODEL (FX or ONNX), compiles it with the default
# passes and runs it on INPUTS (comma-separated .npy) into STEM.out.npy; the stages' files are
# STEM.*.
compile_and_run() {
  local model=$1 stem=$2 inputs=$3
  compile_model "$model" "$stem" && vm/run --exe "$stem.mlcx" --inputs "$inputs" --outputs "$stem.out.npy"
}
# compile_model MODEL STEM: imports MODEL and compiles it with the default passes into STEM.mlcx.
compile_model() {
  frontend/import --in "$1" --out "$2.irpb" && passes/opt --in "$2.irpb" --out "$2.opt.irpb" &&
    codegen/build --in "$2.opt.irpb" --out "$2.mlcx"
}
# compiles_like_reference MODEL STEM INPUTS REFERENCE [TOLERANCE]: compile_and_run, then the
# output against REFERENCE.
compiles_like_reference() {
  compile_and_run "$1" "$2" "$3" && matches_reference "$2.out.npy" "$4" "${5:-1e-4}"
}

for example in mlp mymodel cnn volumetric attention; do
  /usr/bin/python3 frontend/torch/export_fx.py --example $example --out "$t/$example.fxpb" \
    --onnx "$t/$example.onnx" --inputs "$t/$example.x.npy" --reference "$t/$example.ref.npy" 2> /dev/null
  for mode in high_level te onnx; do
    case $mode in
      high_level) frontend/import --in "$t/$example.fxpb" --out "$t/$example.$mode.irpb" ;;
      te) frontend/import --in "$t/$example.fxpb" --out "$t/$example.fx.irpb" &&
          passes/opt --in "$t/$example.fx.irpb" --out "$t/$example.$mode.irpb" --passes=legalize ;;
      onnx) frontend/import --in "$t/$example.onnx" --out "$t/$example.$mode.irpb" ;;
    esac
    tools/print --in "$t/$example.$mode.irpb" > "$t/$example.$mode.py"
    if check_golden "testdata/import/${example}_${mode}.py" "$t/$example.$mode.py" > "$t/diff.txt"; then
      ok "$example ($mode) prints like its golden"
    else
      bad "$example ($mode) prints like its golden"; cat "$t/diff.txt"
    fi
    passes/opt --in "$t/$example.$mode.irpb" --out "$t/$example.$mode.opt.irpb" --passes=fuse-ops,legalize,fuse-tir
    codegen/build --in "$t/$example.$mode.opt.irpb" --out "$t/$example.$mode.mlcx"
    vm/run --exe "$t/$example.$mode.mlcx" --inputs "$t/$example.x.npy" --outputs "$t/$example.$mode.out.npy"
    if matches_reference "$t/$example.$mode.out.npy" "$t/$example.ref.npy"; then ok "$example ($mode) matches PyTorch"; else bad "$example ($mode) matches PyTorch"; fi
  done
done

# nn.TransformerEncoderLayer(d_model=256, nhead=4, batch_first=True) on 1x128x256: through FX
# (traced with its eval-mode computation, MultiheadAttention converted whole) and through ONNX
# (MatMul, Softmax, ReduceMean-based layer norms, shape subgraphs evaluated at import). The
# reference is PyTorch's own (fast-path) forward.
/usr/bin/python3 frontend/torch/export_fx.py --example encoder --out "$t/encoder.fxpb" --onnx "$t/encoder.onnx" \
  --inputs "$t/encoder.x.npy" --reference "$t/encoder.ref.npy" 2> /dev/null
for format in fxpb onnx; do
  if tools/pipeline "$t/encoder.$format" --inputs "$t/encoder.x.npy" --out "$t/enc.$format" --no-cache > "$t/enc.txt" 2>&1 &&
     matches_reference "$t/enc.$format/out0.npy" "$t/encoder.ref.npy"; then
    ok "TransformerEncoderLayer ($format) matches PyTorch"
  else
    bad "TransformerEncoderLayer ($format)"; cat "$t/enc.txt"
  fi
done

# The same encoder exported with a dynamic batch and sequence (the attention's reshapes computed
# from Shape at run time in ONNX): built once, it matches PyTorch at three sizes.
for bs in 1,128 3,77 8,16; do
  /usr/bin/python3 frontend/torch/export_fx.py --example encoder --shape "${bs/,/,},256" --dynamic 0=batch,1=seq \
    --onnx "$t/encdyn.onnx" --inputs "$t/encdyn.x.${bs/,/_}.npy" --reference "$t/encdyn.ref.${bs/,/_}.npy" 2> /dev/null
done
frontend/import --in "$t/encdyn.onnx" --out "$t/encdyn.irpb"
passes/opt --in "$t/encdyn.irpb" --out "$t/encdyn.opt.irpb"
codegen/build --in "$t/encdyn.opt.irpb" --out "$t/encdyn.mlcx"
for bs in 1_128 3_77 8_16; do
  if vm/run --exe "$t/encdyn.mlcx" --inputs "$t/encdyn.x.$bs.npy" --outputs "$t/encdyn.out.$bs.npy" &&
     matches_reference "$t/encdyn.out.$bs.npy" "$t/encdyn.ref.$bs.npy"; then
    ok "TransformerEncoderLayer with dynamic batch and sequence at ${bs/_/ x } matches PyTorch"
  else
    bad "TransformerEncoderLayer dynamic at $bs"
  fi
done

# The pipeline takes an ONNX file directly.
if tools/pipeline "$t/mlp.onnx" --inputs "$t/mlp.x.npy" --out "$t/pipe" --no-cache > "$t/pipe.txt" 2>&1 &&
   grep -q "\[1/4\] import" "$t/pipe.txt" && matches_reference "$t/pipe/out0.npy" "$t/mlp.ref.npy"; then
  ok "the pipeline compiles and runs an ONNX model"
else
  bad "the pipeline on ONNX"; cat "$t/pipe.txt"
fi

# An ONNX model with a dynamic batch (dim_param "batch") imports without --dim: one executable
# runs every batch size, and a wrong feature size names the input, dimension and both values.
/usr/bin/python3 - "$t" <<'PY'
import sys, numpy as np, torch, torch.nn as nn
t = sys.argv[1]
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)).eval()
torch.onnx.export(m, torch.randn(1, 784), f"{t}/dyn.onnx", input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, opset_version=13)
for n in (1, 3, 64):
    x = torch.randn(n, 784)
    np.save(f"{t}/dyn.x{n}.npy", x.numpy())
    np.save(f"{t}/dyn.ref{n}.npy", m(x).detach().numpy())
np.save(f"{t}/dyn.bad.npy", np.zeros((2, 785), np.float32))
PY
frontend/import --in "$t/dyn.onnx" --out "$t/dyn.irpb"
tools/print --in "$t/dyn.irpb" > "$t/dyn.py"
if [[ $(cat "$t/dyn.py") == *'def main(x: R.Tensor(("batch", 784), dtype="float32")) -> R.Tensor(("batch", 10), dtype="float32"):'* ]]; then
  ok "a dim_param imports as a shape variable"
else
  bad "a dim_param imports as a shape variable"; head -12 "$t/dyn.py"
fi
passes/opt --in "$t/dyn.irpb" --out "$t/dyn.opt.irpb"
codegen/build --in "$t/dyn.opt.irpb" --out "$t/dyn.mlcx"
for n in 1 3 64; do
  vm/run --exe "$t/dyn.mlcx" --inputs "$t/dyn.x$n.npy" --outputs "$t/dyn.out$n.npy"
  if matches_reference "$t/dyn.out$n.npy" "$t/dyn.ref$n.npy"; then ok "dynamic-batch ONNX MLP at batch $n matches PyTorch"; else bad "dynamic batch $n"; fi
done
if vm/run --exe "$t/dyn.mlcx" --inputs "$t/dyn.bad.npy" 2> "$t/dynerr.txt"; then
  bad "a wrong input shape is an error"
elif [[ $(cat "$t/dynerr.txt") == *"argument 0 (x): dimension 1 is 785, expected 784"* ]]; then
  ok "a wrong input shape names the parameter, dimension and both values"
else
  bad "wrong input shape message"; cat "$t/dynerr.txt"
fi

# FX with a dynamic batch: the CNN's x.view(x.size(0), -1) follows its arguments (size(0) is the
# shape variable), not the example's sizes; one executable at batch 1 and 5.
for n in 1 5; do
  /usr/bin/python3 frontend/torch/export_fx.py --example cnn --shape $n,3,17,15 --dynamic 0=batch --out "$t/cnndyn.fxpb" \
    --inputs "$t/cnndyn.x$n.npy" --reference "$t/cnndyn.ref$n.npy" 2> /dev/null
done
frontend/import --in "$t/cnndyn.fxpb" --out "$t/cnndyn.irpb"
passes/opt --in "$t/cnndyn.irpb" --out "$t/cnndyn.opt.irpb"
codegen/build --in "$t/cnndyn.opt.irpb" --out "$t/cnndyn.mlcx"
for n in 1 5; do
  if vm/run --exe "$t/cnndyn.mlcx" --inputs "$t/cnndyn.x$n.npy" --outputs "$t/cnndyn.out$n.npy" &&
     matches_reference "$t/cnndyn.out$n.npy" "$t/cnndyn.ref$n.npy"; then
    ok "FX CNN with a dynamic batch (view(x.size(0), -1)) at batch $n matches PyTorch"
  else
    bad "FX CNN dynamic batch $n"
  fi
done

# Shape-driven operators with a dynamic batch and sequence: Gather (an embedding: take),
# Unsqueeze, torch's expand (a Reshape/Shape/ConstantOfShape/Equal/Where subgraph over the shape,
# folded at import, then Expand), zeros (ConstantOfShape of a symbolic shape) and Where.
/usr/bin/python3 - "$t" <<'PY' 2> /dev/null
import sys, numpy as np, torch, torch.nn as nn
t = sys.argv[1]
torch.manual_seed(0)
class MaskedEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
    def forward(self, ids, mask):
        x = self.emb(ids)
        m = mask.unsqueeze(-1).expand(x.shape[0], x.shape[1], 16)
        return torch.where(m > 0.5, x, torch.zeros(x.shape[0], x.shape[1], 16)) * 2.0
m = MaskedEmbedding().eval()
axes = {0: "batch", 1: "seq"}
torch.onnx.export(m, (torch.randint(0, 50, (2, 5)), torch.rand(2, 5)), f"{t}/mask.onnx", input_names=["ids", "mask"],
                  output_names=["y"], dynamic_axes={"ids": axes, "mask": axes, "y": axes}, opset_version=13)
for b, s in ((1, 7), (3, 12)):
    ids, mask = torch.randint(0, 50, (b, s)), torch.rand(b, s)
    np.save(f"{t}/mask.ids.{b}_{s}.npy", ids.numpy())
    np.save(f"{t}/mask.m.{b}_{s}.npy", mask.numpy())
    np.save(f"{t}/mask.ref.{b}_{s}.npy", m(ids, mask).detach().numpy())
PY
frontend/import --in "$t/mask.onnx" --out "$t/mask.irpb"
passes/opt --in "$t/mask.irpb" --out "$t/mask.opt.irpb"
codegen/build --in "$t/mask.opt.irpb" --out "$t/mask.mlcx"
for bs in 1_7 3_12; do
  if vm/run --exe "$t/mask.mlcx" --inputs "$t/mask.ids.$bs.npy,$t/mask.m.$bs.npy" --outputs "$t/mask.out.$bs.npy" &&
     matches_reference "$t/mask.out.$bs.npy" "$t/mask.ref.$bs.npy"; then
    ok "Gather/Expand/ConstantOfShape/Where with dynamic batch and sequence at ${bs/_/ x } match PyTorch"
  else
    bad "masked embedding dynamic at $bs"
  fi
done

# Positions after a key/value cache, as GPT-2 computes them: arange(past, past + seq) with past
# read from the cache's shape (a dim_value when the function runs), through ONNX (Range) and FX
# (torch.arange): one executable for every (seq, past), an empty cache included.
/usr/bin/python3 - "$t" <<'PY' 2> /dev/null
import sys, numpy as np, torch
sys.path.insert(0, "frontend/torch")
import export_fx
t = sys.argv[1]
torch.manual_seed(0)
class Positions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.wpe = torch.nn.Embedding(64, 8)
    def forward(self, x, past_key):
        past = past_key.shape[2]
        return x + self.wpe(torch.arange(past, past + x.shape[1], dtype=torch.long))[None]
m = Positions().eval()
axes = {"x": {1: "seq"}, "past_key": {2: "past"}, "y": {1: "seq"}}
torch.onnx.export(m, (torch.randn(1, 3, 8), torch.randn(1, 2, 5, 4)), f"{t}/pos.onnx", input_names=["x", "past_key"],
                  output_names=["y"], dynamic_axes=axes, opset_version=14)
export_fx.export(m, (torch.randn(1, 3, 8), torch.randn(1, 2, 5, 4)), f"{t}/pos.fxpb", dynamic_axes={0: {1: "seq"}, 1: {2: "past"}})
for seq, past in ((3, 5), (1, 17), (7, 0)):
    x, k = torch.randn(1, seq, 8), torch.randn(1, 2, past, 4)
    np.save(f"{t}/pos.x.{seq}_{past}.npy", x.numpy())
    np.save(f"{t}/pos.k.{seq}_{past}.npy", k.numpy())
    np.save(f"{t}/pos.ref.{seq}_{past}.npy", m(x, k).detach().numpy())
PY
for format in onnx fxpb; do
  compile_model "$t/pos.$format" "$t/pos.$format"
  for sp in 3_5 1_17 7_0; do
    if vm/run --exe "$t/pos.$format.mlcx" --inputs "$t/pos.x.$sp.npy,$t/pos.k.$sp.npy" --outputs "$t/pos.out.$sp.npy" &&
       matches_reference "$t/pos.out.$sp.npy" "$t/pos.ref.$sp.npy"; then
      ok "arange(past, past + seq) over a symbolic cache length ($format) at seq x past = ${sp/_/ x } matches PyTorch"
    else
      bad "symbolic arange start ($format) at $sp"
    fi
  done
done

# A causal mask after a key/value cache, triu(ones(seq, past + seq), diagonal=past + 1), and a
# range whose start and step are sizes, arange(past, past + seq * heads, heads): the diagonal
# is computed when the function runs (Trilu's k from the shapes; torch.triu's diagonal a size),
# the range's length is a shape expression. ONNX (Trilu, Range) and FX, one executable for every
# (seq, past, heads), an empty cache included.
/usr/bin/python3 - "$t" <<'PY' 2> /dev/null
import sys, numpy as np, torch
sys.path.insert(0, "frontend/torch")
import export_fx
t = sys.argv[1]
class CacheMask(torch.nn.Module):
    def forward(self, x, past_key):
        seq, heads, past = x.shape[1], past_key.shape[1], past_key.shape[2]
        mask = torch.triu(torch.ones(seq, past + seq), diagonal=past + 1)
        strided = torch.arange(past, past + seq * heads, heads, dtype=torch.long)
        return x * 2, mask, strided.float()
m = CacheMask().eval()
example = (torch.randn(1, 3, 8), torch.randn(1, 2, 5, 4))
torch.onnx.export(m, example, f"{t}/mask.onnx", input_names=["x", "past_key"], output_names=["y", "mask", "strided"],
                  dynamic_axes={"x": {1: "seq"}, "past_key": {1: "heads", 2: "past"}}, opset_version=14)
export_fx.export(m, example, f"{t}/mask.fxpb", dynamic_axes={0: {1: "seq"}, 1: {1: "heads", 2: "past"}})
for seq, heads, past in ((3, 2, 5), (1, 3, 17), (4, 1, 0)):
    x, k = torch.randn(1, seq, 8), torch.randn(1, heads, past, 4)
    sp = f"{seq}_{heads}_{past}"
    np.save(f"{t}/mask.x.{sp}.npy", x.numpy())
    np.save(f"{t}/mask.k.{sp}.npy", k.numpy())
    for i, r in enumerate(m(x, k)):
        np.save(f"{t}/mask.ref{i}.{sp}.npy", r.numpy())
PY
for format in onnx fxpb; do
  compile_model "$t/mask.$format" "$t/mask.$format"
  for sp in 3_2_5 1_3_17 4_1_0; do
    if vm/run --exe "$t/mask.$format.mlcx" --inputs "$t/mask.x.$sp.npy,$t/mask.k.$sp.npy" \
         --outputs "$t/mask.out0.$sp.npy,$t/mask.out1.$sp.npy,$t/mask.out2.$sp.npy" &&
       matches_reference "$t/mask.out1.$sp.npy" "$t/mask.ref1.$sp.npy" &&
       matches_reference "$t/mask.out2.$sp.npy" "$t/mask.ref2.$sp.npy"; then
      ok "triu(diagonal=past + 1) and arange(past, .., heads) of sizes ($format) at seq x heads x past = ${sp//_/ x } match PyTorch"
    else
      bad "run-time diagonal and symbolic step ($format) at $sp"
    fi
  done
done

# A reshape no size proves whole (x[x > 0] as (2, -1): an odd count cannot be) is checked when it
# runs: an odd count is an error naming the match, not a silently shortened result.
/usr/bin/python3 - "$t" <<'PY' 2> /dev/null
import sys, numpy as np, torch
t = sys.argv[1]
class Pairs(torch.nn.Module):
    def forward(self, x):
        return x[x > 0].reshape(2, -1) * 2
torch.onnx.export(Pairs(), (torch.ones(6, 4),), f"{t}/pairs.onnx", opset_version=17, input_names=["x"])  # 24 kept
odd = np.ones((6, 4), np.float32)
odd[0, 0] = -1
np.save(f"{t}/pairs.odd.npy", odd)
PY
if compile_and_run "$t/pairs.onnx" "$t/pairs" "$t/pairs.odd.npy" 2> "$t/pairs.err"; then
  bad "a reshape of 23 elements to (2, -1) ran"
elif grep -q "match_cast: dimension 0 is 23, which is not 2 \* " "$t/pairs.err"; then
  ok "a reshape of a data-sized tensor that does not divide is refused when it runs"
else
  bad "reshape check message: $(cat "$t/pairs.err")"
fi

# OneHot, Range and Tile with constant operands (as exporters write them; the node cases pass
# them as inputs): against NumPy.
/usr/bin/python3 - "$t" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
t = sys.argv[1]
consts = [numpy_helper.from_array(np.array(4, np.int64), "depth"), numpy_helper.from_array(np.array([-1.0, 2.0], np.float32), "values"),
          numpy_helper.from_array(np.array(1.0, np.float32), "start"), numpy_helper.from_array(np.array(3.0, np.float32), "limit"),
          numpy_helper.from_array(np.array(0.5, np.float32), "delta"), numpy_helper.from_array(np.array([2, 1], np.int64), "repeats")]
nodes = [helper.make_node("OneHot", ["idx", "depth", "values"], ["hot"], axis=1),
         helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
         helper.make_node("Tile", ["hot", "repeats"], ["tiled"]),
         helper.make_node("Add", ["tiled", "r"], ["y"])]
g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("idx", TensorProto.INT64, [3])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 4])], consts)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{t}/hot.onnx")
idx = np.array([0, -1, 2], np.int64)
hot = np.where(np.arange(4)[None, :] == np.where(idx < 0, idx + 4, idx)[:, None], 2.0, -1.0)
np.save(f"{t}/hot.idx.npy", idx)
np.save(f"{t}/hot.ref.npy", (np.tile(hot, (2, 1)) + np.arange(1.0, 3.0, 0.5)).astype(np.float32))
PY
if compiles_like_reference "$t/hot.onnx" "$t/hot" "$t/hot.idx.npy" "$t/hot.ref.npy"; then
  ok "OneHot, Range and Tile with constant operands match NumPy"
else
  bad "OneHot, Range and Tile"
fi

# Resize as PyTorch exports it (torch.onnx, opset 13): nearest x2, bilinear half-pixel, bicubic
# with align_corners to a size that is no multiple of the input: against PyTorch.
/usr/bin/python3 - "$t" <<'PY' 2> /dev/null
import sys, numpy as np, torch, torch.nn as nn, torch.nn.functional as F
t = sys.argv[1]
torch.manual_seed(0)
class Upsampling(nn.Module):
    def forward(self, x):
        a = F.interpolate(x, scale_factor=2, mode="nearest")
        b = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        c = F.interpolate(x, size=(10, 14), mode="bicubic", align_corners=True)
        return torch.cat([a.flatten(1), b.flatten(1), c.flatten(1)], 1)
x = torch.randn(2, 3, 5, 7)
torch.onnx.export(Upsampling(), (x,), f"{t}/resize.onnx", input_names=["x"], output_names=["y"], opset_version=13)
np.save(f"{t}/resize.x.npy", x.numpy())
np.save(f"{t}/resize.ref.npy", Upsampling()(x).numpy())
PY
if compiles_like_reference "$t/resize.onnx" "$t/resize" "$t/resize.x.npy" "$t/resize.ref.npy"; then
  ok "Resize from torch.onnx (nearest, bilinear, bicubic align_corners) matches PyTorch"
else
  bad "Resize from torch.onnx"
fi

# Decoder-style layers as torch.onnx (opset 13) writes them: ConvTranspose (grouped, strided,
# output_padding; 2-D and 3-D), InstanceNormalization, reflect and edge Pad, DepthToSpace
# (PixelShuffle), 1-D Conv and MaxPool, Einsum: against PyTorch.
/usr/bin/python3 - "$t" <<'PY' 2> /dev/null
import sys, numpy as np, torch, torch.nn as nn
t = sys.argv[1]
torch.manual_seed(0)
class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 8, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.norm = nn.InstanceNorm2d(8, affine=True)
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)
        nn.init.uniform_(self.norm.bias, -0.5, 0.5)
        self.pads = nn.Sequential(nn.ReflectionPad2d((1, 2, 0, 1)), nn.ReplicationPad2d(1))
        self.shuffle = nn.PixelShuffle(2)
        self.seq = nn.Sequential(nn.Conv1d(3, 5, 3, padding=1, stride=2), nn.MaxPool1d(2))
        self.up3 = nn.ConvTranspose3d(2, 4, 3, stride=(1, 2, 2), padding=1, output_padding=(0, 1, 1), groups=2)
    def forward(self, x, s, a, b, v):
        y = self.shuffle(self.pads(self.norm(self.up(x))))
        return torch.cat([y.flatten(1), self.seq(s).flatten(1), torch.einsum("bij,bkj->bik", a, b).flatten(1),
                          self.up3(v).flatten(1)], 1)
m = Decoder().eval()
args = (torch.randn(2, 4, 5, 7), torch.randn(2, 3, 17), torch.randn(2, 3, 6), torch.randn(2, 4, 6), torch.randn(2, 2, 3, 4, 5))
torch.onnx.export(m, args, f"{t}/decoder.onnx", input_names=["x", "s", "a", "b", "v"], output_names=["y"], opset_version=13)
for name, v in zip("xsabv", args):
    np.save(f"{t}/decoder.{name}.npy", v.numpy())
np.save(f"{t}/decoder.ref.npy", m(*args).detach().numpy())
PY
ops=$(/usr/bin/python3 -c "import onnx,sys; print(' '.join(sorted({n.op_type for n in onnx.load(sys.argv[1]).graph.node})))" "$t/decoder.onnx" 2> /dev/null)
for op in ConvTranspose InstanceNormalization Pad DepthToSpace Conv MaxPool Einsum; do
  [[ " $ops " == *" $op "* ]] || bad "torch.onnx wrote no $op node (it wrote: $ops)"
done
if compiles_like_reference "$t/decoder.onnx" "$t/decoder" "$t/decoder.x.npy,$t/decoder.s.npy,$t/decoder.a.npy,$t/decoder.b.npy,$t/decoder.v.npy" \
     "$t/decoder.ref.npy"; then
  ok "decoder layers from torch.onnx ($ops) match PyTorch"
else
  bad "decoder layers from torch.onnx ($ops)"
fi

# int8 QDQ linear layers (quantize_qdq.py) through torch.onnx: the MLP's Gemm (nn.dense) and the
# attention block's rank-3 Linear layers (MatMul by a transposed weight) each run as one
# mlc.int8.dense, and the outputs match PyTorch's fake-quantized model within 1% of their scale
# (a quantized activation may land on the neighbouring step when sums run in another order).
for case in mlp:2 attention:6; do
  example=${case%%:*} layers=${case##*:}
  /usr/bin/python3 frontend/torch/export_fx.py --example "$example" --qdq --onnx "$t/${example}_q.onnx" \
    --inputs "$t/${example}_q.x.npy" --reference "$t/${example}_q.ref.npy" 2> /dev/null
  if compiles_like_reference "$t/${example}_q.onnx" "$t/${example}_q" "$t/${example}_q.x.npy" "$t/${example}_q.ref.npy" 1e-2; then
    ok "int8 QDQ $example (onnx) matches PyTorch's fake-quantized model"
  else
    bad "int8 QDQ $example (onnx)"
  fi
  dense=$(tools/print --in "$t/${example}_q.opt.irpb" | grep -c 'R.call_dps_packed("mlc.int8.dense"' || true)
  if [[ "$dense" -eq "$layers" ]]; then
    ok "all $layers linear layers of the int8 $example run as mlc.int8.dense"
  else
    bad "$dense of $layers linear layers of the int8 $example run as mlc.int8.dense"
  fi
done

# ONNX Runtime's contrib QLinearAdd and QLinearMul (domain com.microsoft, as its quantizer writes
# them for residual adds), broadcasting a per-channel operand, against NumPy's dequantize-op-
# quantize within one quantization step; an unknown contrib operator is an error naming it.
/usr/bin/python3 - "$t" <<'PY' 2> /dev/null
import sys, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
t = sys.argv[1]
rng = np.random.RandomState(0)
a = rng.randint(0, 256, size=(2, 3, 4, 5)).astype(np.uint8)
b = rng.randint(0, 256, size=(1, 3, 1, 1)).astype(np.uint8)
params = [("as", 0.02, np.float32), ("az", 120, np.uint8), ("b", b, np.uint8), ("bs", 0.05, np.float32),
          ("bz", 100, np.uint8), ("cs", 0.04, np.float32), ("cz", 128, np.uint8), ("ds", 0.03, np.float32), ("dz", 10, np.uint8)]
inits = [numpy_helper.from_array(np.array(v, dtype=ty), n) for n, v, ty in params]
def model(ops, path):
    nodes = [helper.make_node(op, ins, [out], domain="com.microsoft") for op, ins, out in ops]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", TensorProto.UINT8, a.shape)],
                          [helper.make_tensor_value_info(ops[-1][2], TensorProto.UINT8, a.shape)], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)]), path)
model([("QLinearAdd", ["a", "as", "az", "b", "bs", "bz", "cs", "cz"], "c"),
       ("QLinearMul", ["c", "cs", "cz", "a", "as", "az", "ds", "dz"], "d")], f"{t}/qlinear.onnx")
model([("QLinearFancy", ["a", "as", "az", "b", "bs", "bz", "cs", "cz"], "c")], f"{t}/qfancy.onnx")
np.save(f"{t}/qlinear.x.npy", a)
dq = lambda q, s, z: (q.astype(np.float64) - z) * s
qz = lambda x, s, z: np.clip(np.rint(x / s) + z, 0, 255).astype(np.uint8)
c = qz(dq(a, .02, 120) + dq(b, .05, 100), .04, 128)
np.save(f"{t}/qlinear.ref.npy", qz(dq(c, .04, 128) * dq(a, .02, 120), .03, 10))
PY
if compile_and_run "$t/qlinear.onnx" "$t/qlinear" "$t/qlinear.x.npy" &&
   /usr/bin/python3 -c "import sys, numpy as np; o, r = (np.load(p).astype(int) for p in sys.argv[1:]); sys.exit(0 if o.shape == r.shape and np.abs(o - r).max() <= 1 else 1)" \
     "$t/qlinear.out.npy" "$t/qlinear.ref.npy"; then
  ok "com.microsoft QLinearAdd and QLinearMul match NumPy within one quantization step"
else
  bad "com.microsoft QLinearAdd and QLinearMul"
fi
if frontend/import --in "$t/qfancy.onnx" --out "$t/qfancy.irpb" 2> "$t/qfancy.err"; then
  bad "an unknown com.microsoft operator is an error"
elif grep -q "unsupported operator com.microsoft.QLinearFancy" "$t/qfancy.err"; then
  ok "an unknown com.microsoft operator is an error naming it"
else
  bad "unknown contrib operator message"; cat "$t/qfancy.err"
fi

# Sequences are lists known at import: a Loop that fills one with a trip count given only when
# the model runs is an error naming the node and saying why, not a crash or a half-written file.
/usr/bin/python3 - "$t" <<'PY' 2> /dev/null
import sys, onnx
from onnx import helper, TensorProto as T
body = helper.make_graph(
    [helper.make_node("SequenceInsert", ["s", "x"], ["s_next"]), helper.make_node("Identity", ["c"], ["c_next"])], "body",
    [helper.make_tensor_value_info("i", T.INT64, []), helper.make_tensor_value_info("c", T.BOOL, []),
     helper.make_tensor_sequence_value_info("s", T.FLOAT, None)],
    [helper.make_tensor_value_info("c_next", T.BOOL, []), helper.make_tensor_sequence_value_info("s_next", T.FLOAT, None)])
g = helper.make_graph([helper.make_node("SequenceEmpty", [], ["e"]), helper.make_node("Loop", ["n", "", "e"], ["s"], body=body, name="fill"),
                       helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)], "g",
                      [helper.make_tensor_value_info("n", T.INT64, []), helper.make_tensor_value_info("x", T.FLOAT, [2])],
                      [helper.make_tensor_value_info("y", T.FLOAT, None)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), f"{sys.argv[1]}/seq_loop.onnx")
PY
if frontend/import --in "$t/seq_loop.onnx" --out "$t/seq_loop.irpb" 2> "$t/seq_loop.err"; then
  bad "a Loop filling a sequence with a run-time trip count is refused"
elif grep -q "node 1 'fill' (Loop, opset 17): the trip count of a Loop that carries a sequence must be a constant" \
       "$t/seq_loop.err" && [[ ! -e "$t/seq_loop.irpb" ]]; then
  ok "a Loop filling a sequence with a run-time trip count is an error naming the node and why"
else
  bad "run-time sequence Loop message"; cat "$t/seq_loop.err"
fi

# Attention written with einsum (torchvision's MaxViT: "bghid,bghjd->bghij", a bias added,
# softmax, "bghij,bghjd->bghid"): the importer writes each product as one batched matmul of the
# operands as they are, so fuse-attention makes it one mlc.attention; it matches PyTorch.
/usr/bin/python3 - "$t" <<'PY' 2> /dev/null
import sys, numpy as np, torch
t = sys.argv[1]
class EinsumAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(2, 5, 5))
    def forward(self, x):
        q, k, v = x, x * 0.5, x + 1
        s = torch.einsum("bghid,bghjd->bghij", q, k)
        return torch.einsum("bghij,bghjd->bghid", torch.softmax(s + self.bias, dim=-1), v)
torch.manual_seed(0)
m, x = EinsumAttention().eval(), torch.randn(1, 3, 2, 5, 4)
torch.onnx.export(m, (x,), f"{t}/einsum_attention.onnx", opset_version=13, input_names=["x"])
np.save(f"{t}/einsum_attention.x.npy", x.numpy())
np.save(f"{t}/einsum_attention.ref.npy", m(x).detach().numpy())
PY
if compiles_like_reference "$t/einsum_attention.onnx" "$t/einsum_attention" "$t/einsum_attention.x.npy" \
     "$t/einsum_attention.ref.npy" && tools/print --in "$t/einsum_attention.opt.irpb" | grep -q '"mlc.attention"'; then
  ok "einsum attention becomes one mlc.attention and matches PyTorch"
else
  bad "einsum attention becomes one mlc.attention and matches PyTorch"
fi

# Examples compiled from FX and from ONNX against PyTorch: padding modules and F.pad in every
# mode (reflect, replicate, zero, constant); pooling and activations called as functions
# (F.max_pool2d, F.avg_pool2d with keywords, F.silu, torch.rsqrt) with chunk / split /
# index_select; nn.MultiheadAttention with a causal bool mask, a key padding mask and an additive
# float mask.
for example in padding functional masked_attention; do
  /usr/bin/python3 frontend/torch/export_fx.py --example $example --out "$t/$example.fxpb" --onnx "$t/$example.onnx" \
    --inputs "$t/$example.x.npy" --reference "$t/$example.ref.npy" 2> /dev/null
  for src in fxpb onnx; do
    if compiles_like_reference "$t/$example.$src" "$t/$example.$src" "$t/$example.x.npy" "$t/$example.ref.npy"; then
      ok "$example example ($src) matches PyTorch"
    else
      bad "$example example ($src) matches PyTorch"
    fi
  done
done

/usr/bin/python3 frontend/torch/export_fx.py --example unsupported --out "$t/unsupported.fxpb"
printf 'not a model' > "$t/garbage.onnx"
if frontend/import --in "$t/garbage.onnx" --out "$t/g.irpb" 2> "$t/gerr.txt"; then
  bad "a corrupt ONNX file is an error"
elif grep -q "garbage.onnx: not a valid ONNX model" "$t/gerr.txt"; then ok "a corrupt ONNX file is an error"; else bad "corrupt ONNX message"; cat "$t/gerr.txt"; fi
if frontend/import --in "$t/unsupported.fxpb" --out "$t/unsupported.irpb" 2> "$t/err.txt"; then
  bad "unsupported module is an error"
elif grep -q "node shuffle (call_module shuffle): unsupported module PixelShuffle" "$t/err.txt" && [ ! -e "$t/unsupported.irpb" ]; then
  ok "unsupported module is an error naming the node, and nothing is written"
else
  bad "unsupported module error message"; cat "$t/err.txt"
fi
# Constant inputs read as integers take any integer or bool type (torchvision's Swin exports
# Dropout's training_mode as a constant bool); a float there is named with its type.
/usr/bin/python3 - "$t" <<'PY'
import sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
for name, mode, ratio in (("dropout_bool", np.array(False), 0.5), ("dropout_uint8", np.array(0, np.uint8), 0.5),
                          ("dropout_float", np.array(0.0, np.float32), 0.5),
                          ("dropout_training_ratio0", np.array(True), 0.0), ("dropout_training", np.array(True), 0.5)):
    graph = helper.make_graph([helper.make_node("Dropout", ["x", "ratio", "mode"], ["y"])], name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                              [numpy_helper.from_array(np.array(ratio, np.float32), "ratio"), numpy_helper.from_array(mode, "mode")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), f"{sys.argv[1]}/{name}.onnx")
PY
if frontend/import --in "$t/dropout_bool.onnx" --out "$t/db.irpb" && frontend/import --in "$t/dropout_uint8.onnx" --out "$t/du.irpb"; then
  ok "a constant bool or uint8 training_mode is read as an integer"
else
  bad "constant bool / uint8 inputs read as integers"
fi
if frontend/import --in "$t/dropout_float.onnx" --out "$t/df.irpb" 2> "$t/df.err"; then
  bad "a float training_mode is an error"
elif grep -q "node 0 (Dropout, opset 14): training_mode must be an integer or bool tensor, not float32" "$t/df.err"; then
  ok "a float where an integer constant belongs is an error naming the input and its type"
else
  bad "float training_mode message"; cat "$t/df.err"
fi
# Training mode drops nothing at a constant ratio of 0 (torchvision 0.14's Swin attention);
# at any other ratio it would be random, and is refused.
if frontend/import --in "$t/dropout_training_ratio0.onnx" --out "$t/dt0.irpb"; then
  ok "training-mode Dropout at ratio 0 is the identity"
else
  bad "training-mode Dropout at ratio 0"
fi
if frontend/import --in "$t/dropout_training.onnx" --out "$t/dt.irpb" 2> "$t/dt.err"; then
  bad "training-mode Dropout at ratio 0.5 is an error"
elif grep -q "node 0 (Dropout, opset 14): training_mode=true with a ratio that is not a constant 0" "$t/dt.err"; then
  ok "random dropout is refused, naming the node"
else
  bad "random dropout message"; cat "$t/dt.err"
fi
# Under ./bazelw run (BUILD_WORKING_DIRECTORY set), relative paths are the user's directory's,
# not the runfiles' the binary starts in.
mkdir -p "$t/user_dir" && cp "$t/mlp.onnx" "$t/user_dir/relative.onnx"
if BUILD_WORKING_DIRECTORY="$t/user_dir" frontend/import --in relative.onnx --out relative.irpb && [ -s "$t/user_dir/relative.irpb" ]; then
  ok "under bazel run, relative paths are taken from the directory it was started in"
else
  bad "relative paths under bazel run"
fi
echo "$passed passed, $failures failed"
test "$failures" -eq 0
