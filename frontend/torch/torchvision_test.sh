#!/usr/bin/env bash
# torchvision's ResNet-18 and MobileNetV2 (seeded weights, batch norms with non-trivial
# statistics) exported with torch 1.13 through FX and through ONNX, compiled by the pipeline
# and run: the 1000 logits match PyTorch within 1e-4 of their scale. ResNet-18's int8 QDQ twin
# (frontend/torch/quantize_qdq.py) runs every convolution and its classifier as int8 kernels.
set -euo pipefail
cd "${TEST_SRCDIR}/mlc"
source tools/testing/checks.sh
t="${TEST_TMPDIR}"
failures=0; passed=0

# ResNet-18, MobileNetV2 and more families, through FX and ONNX: MobileNetV3 (hardswish,
# squeeze-excitation), ResNeXt (grouped convolutions), DenseNet (dense concatenation), ConvNeXt
# (channel-last layer norm, GELU, layer scale, stochastic depth), a small ViT (`n, c, h, w =
# x.shape`, torch._assert on sizes, MultiheadAttention called with keywords) and EfficientNet-B0
# (SiLU, squeeze-excitation); ResNet-18, ConvNeXt, the ViT and EfficientNet-B0 also captured as
# ATen operators (make_fx).
# Each model, the dynamic batch and the int8 model are parts of the test (shard_owns): its shards
# run them in parallel.
# compiled_matches MODEL FORMAT: $t/MODEL.FORMAT through the pipeline matches $t/MODEL.ref.npy.
compiled_matches() {
  local model=$1 format=$2 out="$t/$1.$2"
  if tools/pipeline "$out" --inputs "$t/$model.x.npy" --out "$out.work" --no-cache > "$out.log" 2>&1 &&
     matches_reference "$out.work/out0.npy" "$t/$model.ref.npy"
  then
    echo "ok: $model ($format) matches PyTorch"; passed=$((passed + 1))
  else
    echo "FAILED: $model ($format)"; cat "$out.log"; failures=$((failures + 1))
  fi
}
part=0
for model in resnet18 mobilenet_v2 mobilenet_v3_small resnext50_32x4d densenet121 convnext_tiny vit efficientnet_b0; do
  part=$((part + 1))
  shard_owns $part || continue
  formats="fxpb onnx"
  /usr/bin/python3 frontend/torch/export_fx.py --example $model --out "$t/$model.fxpb" --onnx "$t/$model.onnx" \
    --inputs "$t/$model.x.npy" --reference "$t/$model.ref.npy" 2> /dev/null
  # Four of them also as the ATen operators make_fx records (export_fx.py --capture aten).
  case $model in resnet18 | convnext_tiny | vit | efficientnet_b0)
    formats="$formats aten.fxpb"
    /usr/bin/python3 frontend/torch/export_fx.py --example $model --capture aten --out "$t/$model.aten.fxpb" 2> /dev/null ;;
  esac
  for format in $formats; do compiled_matches $model $format; done
done
# LR-ASPP (MobileNetV3 segmentation: bilinear upsampling, sizes sliced from x.shape) through ATen
# capture only (torch.fx cannot trace its x.shape[-2:]).
if shard_owns 13; then
  model=lraspp
  /usr/bin/python3 frontend/torch/export_fx.py --example $model --capture aten --out "$t/$model.aten.fxpb" \
    --inputs "$t/$model.x.npy" --reference "$t/$model.ref.npy" 2> /dev/null
  compiled_matches $model aten.fxpb
fi
# ResNet-18 exported with a dynamic batch: imported without --dim, built once, run at batch 1, 3
# and 8 against PyTorch.
if shard_owns 9; then
  for n in 1 3 8; do
    /usr/bin/python3 frontend/torch/export_fx.py --example resnet18 --shape $n,3,224,224 --dynamic 0=batch \
      --onnx "$t/r18dyn.onnx" --out "$t/r18dyn.fxpb" --inputs "$t/r18dyn.x$n.npy" --reference "$t/r18dyn.ref$n.npy" 2> /dev/null
  done
  for format in onnx fxpb; do
    frontend/import --in "$t/r18dyn.$format" --out "$t/r18dyn.irpb"
    passes/opt --in "$t/r18dyn.irpb" --out "$t/r18dyn.opt.irpb"
    codegen/build --in "$t/r18dyn.opt.irpb" --out "$t/r18dyn.mlcx"
    for n in 1 3 8; do
      if vm/run --exe "$t/r18dyn.mlcx" --inputs "$t/r18dyn.x$n.npy" --outputs "$t/r18dyn.out$n.npy" &&
         matches_reference "$t/r18dyn.out$n.npy" "$t/r18dyn.ref$n.npy"; then
        echo "ok: resnet18 ($format) with a dynamic batch, run at batch $n, matches PyTorch"; passed=$((passed + 1))
      else
        echo "FAILED: resnet18 ($format) dynamic batch $n"; failures=$((failures + 1))
      fi
    done
  done
fi
# The int8 QDQ ResNet-18 through ONNX: qdq-to-integer turns all 20 convolutions into
# mlc.int8.conv2d and the classifier into mlc.int8.dense, and the logits match PyTorch's fake-quantized model within 2% of their scale
# (every quantized activation is rounded to one of 256 steps; sums in another order put a few
# elements on the neighbouring step, which moves the logits by about 0.5%).
if shard_owns 10; then
  /usr/bin/python3 frontend/torch/export_fx.py --example resnet18 --qdq --onnx "$t/r18q.onnx" --inputs "$t/r18q.x.npy" \
    --reference "$t/r18q.ref.npy" 2> /dev/null
  if tools/pipeline "$t/r18q.onnx" --inputs "$t/r18q.x.npy" --out "$t/r18q.work" --no-cache > "$t/r18q.log" 2>&1 &&
     matches_reference "$t/r18q.work/out0.npy" "$t/r18q.ref.npy" 2e-2; then
    echo "ok: int8 QDQ resnet18 (onnx) matches PyTorch's fake-quantized model"; passed=$((passed + 1))
  else
    echo "FAILED: int8 QDQ resnet18 (onnx)"; cat "$t/r18q.log"; failures=$((failures + 1))
  fi
  int8_convs=$(tools/print --in "$t/r18q.work/model.opt.irpb" | grep -c 'R.call_dps_packed("mlc.int8.conv2d"' || true)
  if [[ "$int8_convs" -eq 20 ]]; then
    echo "ok: all 20 convolutions of the int8 resnet18 run as mlc.int8.conv2d"; passed=$((passed + 1))
  else
    echo "FAILED: $int8_convs of 20 convolutions of the int8 resnet18 run as mlc.int8.conv2d"; failures=$((failures + 1))
  fi
  int8_dense=$(tools/print --in "$t/r18q.work/model.opt.irpb" | grep -c 'R.call_dps_packed("mlc.int8.dense"' || true)
  if [[ "$int8_dense" -eq 1 ]]; then
    echo "ok: the int8 resnet18's classifier runs as mlc.int8.dense"; passed=$((passed + 1))
  else
    echo "FAILED: $int8_dense mlc.int8.dense calls in the int8 resnet18 (the classifier: 1 expected)"; failures=$((failures + 1))
  fi
fi
# torchvision's detectors through ONNX (opset 11): SSDLite320 (MobileNetV3 backbone) and
# RetinaNet (ResNet-50 FPN, at 256x256): anchors, box decoding, a TopK per level over the boxes
# that pass the score threshold (a count the data decide), batched NMS under an If whose other
# branch is empty, gathers of what survives. Untrained, every anchor scores alike, so the batch
# norms take the statistics of a random batch (and RetinaNet's classifier, whose prior bias
# rejects everything, is scaled down and unbiased). The detections match PyTorch's: the same
# number, scores in the same order within 1e-5, and each box (within 1e-3 of the largest
# coordinate) and label found among the reference's of the same score (near-equal scores may
# come out in either order).
part=10
for detector in ssdlite320_mobilenet_v3_large retinanet_resnet50_fpn; do
  part=$((part + 1))
  shard_owns $part || continue
  /usr/bin/python3 - "$t" "$detector" <<'PY' 2> /dev/null
import sys
import numpy as np
import torch
import torchvision
from torchvision.ops.misc import FrozenBatchNorm2d
t, name = sys.argv[1:]
torch.manual_seed(0)
size = 320 if name.startswith("ssdlite") else 256
options = {} if name.startswith("ssdlite") else {"min_size": size, "max_size": size}
m = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None, num_classes=5, **options).eval()
def calibrate(bn, inputs):
    bn.running_mean.copy_(inputs[0].mean((0, 2, 3)))
    bn.running_var.copy_(inputs[0].var((0, 2, 3)))
hooks = [bn.register_forward_pre_hook(calibrate) for bn in m.modules() if isinstance(bn, (torch.nn.BatchNorm2d, FrozenBatchNorm2d))]
with torch.no_grad():
    m.head(list(m.backbone(torch.rand(4, 3, size, size)).values()))
    if name.startswith("retinanet"):
        m.head.classification_head.cls_logits.weight.mul_(0.1)
        m.head.classification_head.cls_logits.bias.zero_()
for h in hooks:
    h.remove()
x = torch.rand(3, size, size)
with torch.no_grad():
    out = m([x])[0]
torch.onnx.export(m, ([x],), f"{t}/{name}.onnx", opset_version=11, input_names=["image"],
                  output_names=["boxes", "scores", "labels"])
np.save(f"{t}/{name}.x.npy", x.numpy())
for k in ("boxes", "scores", "labels"):
    np.save(f"{t}/{name}.ref_{k}.npy", out[k].numpy())
PY
  d="$t/$detector"
  if { frontend/import --in "$d.onnx" --out "$d.irpb" && passes/opt --in "$d.irpb" --out "$d.opt.irpb" &&
       codegen/build --in "$d.opt.irpb" --out "$d.mlcx" &&
       vm/run --exe "$d.mlcx" --inputs "$d.x.npy" --outputs "$d.boxes.npy,$d.scores.npy,$d.labels.npy"; } > "$d.log" 2>&1 &&
     /usr/bin/python3 - "$d" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
ob, os, ol = (np.load(f"{d}.{k}.npy") for k in ("boxes", "scores", "labels"))
rb, rs, rl = (np.load(f"{d}.ref_{k}.npy") for k in ("boxes", "scores", "labels"))
assert os.shape == rs.shape and ob.shape == rb.shape, (ob.shape, rb.shape)
print(f"  {len(rs)} detections, max |score diff| = {np.abs(os - rs).max():.2e}")
assert np.abs(os - rs).max() < 1e-5
tol = 1e-3 * max(float(np.abs(rb).max()), 1.0)
left = set(range(len(rs)))
for i in range(len(os)):
    same = [j for j in left if abs(rs[j] - os[i]) < 1e-5 and rl[j] == ol[i] and np.abs(rb[j] - ob[i]).max() < tol]
    assert same, f"detection {i} (label {ol[i]}, score {os[i]}, box {ob[i]}) is not among PyTorch's"
    left.remove(min(same, key=lambda j: np.abs(rb[j] - ob[i]).max()))
PY
  then
    echo "ok: $detector detections (onnx) match PyTorch"; passed=$((passed + 1))
  else
    echo "FAILED: $detector detections (onnx)"; cat "$d.log"; failures=$((failures + 1))
  fi
done
echo "$passed passed, $failures failed"
test "$failures" -eq 0
