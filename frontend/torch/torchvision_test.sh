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
# (SiLU, squeeze-excitation).
# Each model, the dynamic batch and the int8 model are parts of the test (shard_owns): its shards
# run them in parallel.
part=0
for model in resnet18 mobilenet_v2 mobilenet_v3_small resnext50_32x4d densenet121 convnext_tiny vit efficientnet_b0; do
  part=$((part + 1))
  shard_owns $part || continue
  formats="fxpb onnx"
  /usr/bin/python3 frontend/torch/export_fx.py --example $model --out "$t/$model.fxpb" --onnx "$t/$model.onnx" \
    --inputs "$t/$model.x.npy" --reference "$t/$model.ref.npy" 2> /dev/null
  for format in $formats; do
    out="$t/$model.$format"
    if tools/pipeline "$out" --inputs "$t/$model.x.npy" --out "$out.work" --no-cache > "$out.log" 2>&1 &&
       matches_reference "$out.work/out0.npy" "$t/$model.ref.npy"
    then
      echo "ok: $model ($format) matches PyTorch"; passed=$((passed + 1))
    else
      echo "FAILED: $model ($format)"; cat "$out.log"; failures=$((failures + 1))
    fi
  done
done
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
# SSDLite320 (MobileNetV3 backbone), torchvision's detector through ONNX (opset 11): anchors,
# box decoding, a TopK per level over a data-dependent count, batched NMS under an If (its
# branch a function of the detections), gathers of what survives. Untrained, the batch norms'
# unit statistics saturate every activation and all anchors score alike, so they are calibrated
# on four random batches first. Boxes (in pixels), scores and labels match PyTorch.
if shard_owns 11; then
  /usr/bin/python3 - "$t" <<'PY' 2> /dev/null
import sys
import numpy as np
import torch
import torchvision
t = sys.argv[1]
torch.manual_seed(0)
m = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5)
for bn in m.modules():
    if isinstance(bn, torch.nn.BatchNorm2d):
        bn.momentum = None
        bn.reset_running_stats()
m.train()
with torch.no_grad():
    for _ in range(4):
        m.head(list(m.backbone(torch.rand(4, 3, 320, 320)).values()))
m.eval()
x = torch.rand(3, 320, 320)
with torch.no_grad():
    out = m([x])[0]
torch.onnx.export(m, ([x],), f"{t}/ssdlite.onnx", opset_version=11, input_names=["image"],
                  output_names=["boxes", "scores", "labels"])
np.save(f"{t}/ssdlite.x.npy", x.numpy())
for k in ("boxes", "scores", "labels"):
    np.save(f"{t}/ssdlite.ref_{k}.npy", out[k].numpy())
PY
  ssd="$t/ssdlite"
  if { frontend/import --in "$ssd.onnx" --out "$ssd.irpb" && passes/opt --in "$ssd.irpb" --out "$ssd.opt.irpb" &&
       codegen/build --in "$ssd.opt.irpb" --out "$ssd.mlcx" &&
       vm/run --exe "$ssd.mlcx" --inputs "$ssd.x.npy" --outputs "$ssd.boxes.npy,$ssd.scores.npy,$ssd.labels.npy"; } > "$ssd.log" 2>&1 &&
     matches_reference "$ssd.boxes.npy" "$ssd.ref_boxes.npy" && matches_reference "$ssd.scores.npy" "$ssd.ref_scores.npy" &&
     matches_reference "$ssd.labels.npy" "$ssd.ref_labels.npy" 1e-9; then
    echo "ok: ssdlite320 detections (onnx) match PyTorch"; passed=$((passed + 1))
  else
    echo "FAILED: ssdlite320 detections (onnx)"; cat "$ssd.log"; failures=$((failures + 1))
  fi
fi
echo "$passed passed, $failures failed"
test "$failures" -eq 0
