"""Writes the benchmark models as ONNX files (opset 13), with seeded weights, into a directory.

    /usr/bin/python3 tools/bench/export_bench_models.py OUT_DIR [--models mlp_b1,resnet18]

Each model is <name>.onnx with one float32 input "x"; the set is the one issue 12's table
names: the seeds' MLP 784-128-10 at batch 1 and 64, the digits MLP 64-128-10 at batch 450,
nn.TransformerEncoderLayer(d_model=256, nhead=4) on 1x128x256, MobileNetV2 and ResNet-18 at
batch 1, 224x224 (batch norms with seeded statistics); encoder_dyn / resnet18_dyn, the same
models with a dynamic batch (and sequence); and resnet18_int8, ResNet-18's int8 QDQ twin
(frontend/torch/quantize_qdq.py, calibrated on the export's input); on request (--models),
the wide suite (--models wide: torchvision classifiers tv_<name>, segmentation models seg_<name>,
recurrent encoders rnn_<name>, object detectors det_<name> (one [3, H, W] image in; boxes,
scores and labels out), and the families of family_models.py: video, U-Net, style transfer,
speech, BERT and GPT blocks, a GAN generator, super-resolution; also what the compile-time
table times). Existing files are kept.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "frontend", "torch"))
import export_fx  # noqa: E402  (the example models with seeded weights)
from quantize_qdq import to_qdq  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import family_models  # noqa: E402


class DigitsMlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))

    def forward(self, x):
        return self.net(x)


MODELS = {
    "mlp_b1": (export_fx.MLP, (1, 784)),
    "mlp_b64": (export_fx.MLP, (64, 784)),
    "digits_b450": (DigitsMlp, (450, 64)),
    "encoder": (export_fx.transformer_encoder_layer, (1, 128, 256)),
    "mobilenet_v2": (export_fx.torchvision_model("mobilenet_v2"), (1, 3, 224, 224)),
    "resnet18": (export_fx.torchvision_model("resnet18"), (1, 3, 224, 224)),
}
class SegmentationOutput(torch.nn.Module):
    """torchvision's segmentation models return {"out": ...}; ONNX wants the tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def segmentation_model(name):
    def make():
        import torchvision
        return SegmentationOutput(getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None))
    return make


# The wide suite (--models wide): torchvision classifiers and segmentation models beyond the
# default six, to judge the default rules on workloads they were not written for. Also what
# //tools:bench_compile times.
WIDE = {
    f"tv_{name}": (export_fx.torchvision_model(name), (1, 3, size, size))
    for name, size in [("resnet50", 224), ("densenet121", 224), ("inception_v3", 299), ("convnext_tiny", 224),
                       ("efficientnet_b0", 224), ("alexnet", 224), ("mobilenet_v3_large", 224), ("vgg11", 224),
                       ("resnext50_32x4d", 224), ("regnet_y_400mf", 224), ("shufflenet_v2_x1_0", 224),
                       ("googlenet", 224), ("squeezenet1_1", 224), ("mnasnet1_0", 224), ("vit_b_16", 224),
                       ("swin_t", 224), ("efficientnet_v2_s", 224), ("maxvit_t", 224), ("convnext_base", 224),
                       ("regnet_y_3_2gf", 224), ("efficientnet_v2_m", 224)]
}
WIDE.update({
    f"seg_{name}": (segmentation_model(name), (1, 3, 224, 224))
    for name in ["deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large", "fcn_resnet50", "deeplabv3_resnet50"]
})


class DetectionOutput(torch.nn.Module):
    """A torchvision detector on one image [3, H, W]: its boxes (the output compared; model_bench
    compares a det_ model's boxes as a set, near-equal scores coming out in either order), scores
    and labels. Untrained, every anchor scores alike and nothing passes the score threshold, so
    prepare_for_export gives each batch norm the statistics of a random image's activations and
    spreads the classifiers' logits (bias 0, weights x10), as the importer's detection checks do."""

    def __init__(self, model, size):
        super().__init__()
        self.model = model
        self.size = size

    def prepare_for_export(self):
        from torchvision.ops.misc import FrozenBatchNorm2d

        def calibrate(bn, inputs):
            bn.running_mean.copy_(inputs[0].mean((0, 2, 3)))
            bn.running_var.copy_(inputs[0].var((0, 2, 3)) + 1e-3)

        norms = [m for m in self.model.modules() if isinstance(m, (torch.nn.BatchNorm2d, FrozenBatchNorm2d))]
        hooks = [bn.register_forward_pre_hook(calibrate) for bn in norms]
        with torch.no_grad():
            self.model([torch.rand(3, self.size, self.size)])
            for m in self.model.modules():
                for name in ("cls_logits", "cls_score"):
                    layer = getattr(m, name, None)
                    if isinstance(layer, (torch.nn.Conv2d, torch.nn.Linear)):
                        layer.bias.zero_()
                        layer.weight.mul_(10)
        for h in hooks:
            h.remove()

    def forward(self, x):
        out = self.model([x])[0]
        return out["boxes"], out["scores"], out["labels"]


class DetectionWithExtraOutput(DetectionOutput):
    """A detector with a fourth output per detection: Mask R-CNN's masks, Keypoint R-CNN's keypoints."""

    def __init__(self, model, size, extra):
        super().__init__(model, size)
        self.extra = extra

    def forward(self, x):
        out = self.model([x])[0]
        return out["boxes"], out["scores"], out["labels"], out[self.extra]


def detection_model(name, size, extra=None):
    def make():
        import torchvision
        options = {} if name.startswith("ssd") else {"min_size": size, "max_size": size}
        model = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None, **options)
        if extra:
            return DetectionWithExtraOutput(model.eval(), size, extra)
        return DetectionOutput(model.eval(), size)
    return make


# Object detectors at 320 x 320 (91 COCO classes; SSD300 at 300): a backbone, then anchors, box
# decoding, a TopK per level, batched NMS over thousands of boxes, and for the two-stage R-CNNs
# RoIAlign over the proposals and a box head (convolutional in the v2 Faster R-CNN: four 3 x 3
# convolutions over every proposal), a mask head (Mask R-CNN) or keypoint head. ONNX opset 17, as
# mlc.compile exports a module.
DETECTOR_EXTRA_OUTPUTS = {"det_maskrcnn_resnet50_fpn": "masks", "det_keypointrcnn_resnet50_fpn": "keypoints"}
DETECTORS = {
    f"det_{name}": (detection_model(name, 320, DETECTOR_EXTRA_OUTPUTS.get(f"det_{name}")), (3, 320, 320))
    for name in ["ssdlite320_mobilenet_v3_large", "retinanet_resnet50_fpn", "fcos_resnet50_fpn",
                 "fasterrcnn_mobilenet_v3_large_320_fpn", "fasterrcnn_resnet50_fpn_v2", "retinanet_resnet50_fpn_v2",
                 "maskrcnn_resnet50_fpn", "keypointrcnn_resnet50_fpn"]
}
DETECTORS["det_ssd300_vgg16"] = (detection_model("ssd300_vgg16", 300), (3, 300, 300))
WIDE.update(DETECTORS)


class SequenceEncoder(torch.nn.Module):
    """A recurrent layer stack over (seq, batch, features) whose output sequence is the result."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x):
        return self.rnn(x)[0]


# Recurrent sequence encoders (speech and time-series shapes): sequence 64, batch 1.
WIDE.update({
    "rnn_lstm2_h256": (lambda: SequenceEncoder(torch.nn.LSTM(80, 256, num_layers=2)), (64, 1, 80)),
    "rnn_gru_bi_h256": (lambda: SequenceEncoder(torch.nn.GRU(80, 256, bidirectional=True)), (64, 1, 80)),
})


def video_model(name):
    def make():
        import torchvision
        return getattr(torchvision.models.video, name)(weights=None)
    return make


# Families beyond image classification (family_models.py): video (MViT's attention pooling
# exports as Loops over sequences), dense prediction at full resolution, style transfer, speech
# (1-D convolutions, a dilated TCN, Conformer blocks), a BERT-base encoder, a GPT-2 decoder's
# prompt pass, an encoder-decoder transformer, MLP-Mixer, optical flow (RAFT-small).
WIDE.update({
    "video_r3d_18": (video_model("r3d_18"), (1, 3, 8, 112, 112)),
    "video_r2plus1d_18": (video_model("r2plus1d_18"), (1, 3, 8, 112, 112)),
    "video_s3d": (video_model("s3d"), (1, 3, 16, 224, 224)),
    "unet": (family_models.UNet, (1, 3, 256, 256)),
    "style_transfer": (family_models.TransformerNet, (1, 3, 256, 256)),
    "speech_conv1d": (family_models.SpeechConv1d, (1, 80, 400)),
    "bert_encoder": (family_models.BertEncoder, (1, 128, 768)),
    "gpt_decoder": (family_models.GptDecoder, (1, 128, 768)),
    "dcgan_generator": (family_models.DcganGenerator, (16, 100, 1, 1)),
    "super_resolution": (family_models.SuperResolution, (1, 1, 224, 224)),
    "mixer_b16": (family_models.MlpMixer, (1, 3, 224, 224)),
    "tcn_dilated": (family_models.DilatedTcn, (1, 40, 2000)),
    "conformer": (family_models.Conformer, (1, 200, 256)),
    "seq2seq_transformer": (family_models.Seq2SeqTransformer, (1, 64, 512)),
    "rnn_lstm2_h1024": (lambda: SequenceEncoder(torch.nn.LSTM(512, 1024, num_layers=2)), (32, 1, 512)),
    "flow_raft_small": (family_models.OpticalFlowRaft, (2, 3, 128, 128)),
    "video_mvit_v1_b": (video_model("mvit_v1_b"), (1, 3, 16, 224, 224)),
    "video_mc3_18": (video_model("mc3_18"), (1, 3, 8, 112, 112)),
})
# Opsets beyond the default 13: the detectors' (17), GridSample's (16).
OPSETS = dict({name: 17 for name in DETECTORS}, flow_raft_small=16)
MODELS.update(WIDE)
DEFAULT_SET = [name for name in MODELS if name not in WIDE]
# The same models (same seeded weights) with symbolic dimensions: one executable for every size,
# timed at the static twin's size against it (model_bench pins these names to run them).
DYNAMIC = {
    "encoder_dyn": ("encoder", {0: "batch", 1: "seq"}),
    "resnet18_dyn": ("resnet18", {0: "batch"}),
}
# Int8 QDQ twins of float models.
QUANTIZED = {"resnet18_int8": "resnet18"}
# Int8 twins in the wide suite: depthwise (MobileNetV2, EfficientNet-B0) and bottleneck networks.
WIDE_QUANTIZED = {f"{name}_int8": name for name in ("mobilenet_v2", "tv_resnet50", "tv_efficientnet_b0", "tv_mobilenet_v3_large")}


def build(name):
    """The float model `name` (of MODELS) with its seeded weights, ready to export or time, and its
    input shape: what the ONNX file holds and what PyTorch eager runs."""
    torch.manual_seed(0)
    cls, shape = MODELS[name]
    model = cls().eval()
    prepare = getattr(model, "prepare_for_export", None)
    if prepare is not None:
        prepare()
    else:
        export_fx.randomize_batch_norms(model)
    export_fx.seed_zero_weights(model)
    return model, shape


def expand(models):
    """The model names a --models value stands for: 'default' and 'wide' are sets."""
    sets = {"default": DEFAULT_SET + list(QUANTIZED), "wide": list(WIDE) + list(WIDE_QUANTIZED)}
    return ",".join(n for part in models.split(",") for n in sets.get(part, [part]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    quantized = dict(QUANTIZED, **WIDE_QUANTIZED)
    parser.add_argument("--models", default=",".join(DEFAULT_SET + list(DYNAMIC) + list(QUANTIZED)),
                        help="names, or 'default' (the six and their twins) or 'wide' (the wide suite)")
    parser.add_argument("--list", action="store_true", help="print the expanded --models list and exit")
    args = parser.parse_args()
    args.models = expand(args.models)
    if args.list:
        print(args.models)
        return
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.models.split(","):
        known = list(MODELS) + list(DYNAMIC) + list(quantized)
        if name not in known:
            sys.exit(f"export_bench_models: unknown model {name} (known: {', '.join(known)})")
        path = os.path.join(args.out_dir, name + ".onnx")
        if os.path.exists(path):
            continue
        base, dynamic = DYNAMIC.get(name, (quantized.get(name, name), None))
        model, shape = build(base)
        x = torch.rand(*shape)
        if name in quantized:
            model = to_qdq(model, x)
        tmp = path + ".tmp"
        # Not under no_grad: there nn.TransformerEncoderLayer takes a fused fast path ONNX cannot express.
        axes = {"x": dynamic, "y": dynamic} if dynamic else None
        outputs = ["y", "scores", "labels"] if name in DETECTORS else ["y"]
        if name in DETECTOR_EXTRA_OUTPUTS:
            outputs.append(DETECTOR_EXTRA_OUTPUTS[name])
        torch.onnx.export(model, (x,), tmp, opset_version=OPSETS.get(name, 13), input_names=["x"],
                          output_names=outputs, dynamic_axes=axes, do_constant_folding=name not in quantized)
        os.replace(tmp, path)
        print(f"exported {name} -> {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
