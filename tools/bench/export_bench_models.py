"""Writes the benchmark models as ONNX files (opset 13), with seeded weights, into a directory.

    /usr/bin/python3 tools/bench/export_bench_models.py OUT_DIR [--models mlp_b1,resnet18]

Each model is <name>.onnx with one float32 input "x"; the set is the one issue 12's table
names: the seeds' MLP 784-128-10 at batch 1 and 64, the digits MLP 64-128-10 at batch 450,
nn.TransformerEncoderLayer(d_model=256, nhead=4) on 1x128x256, MobileNetV2 and ResNet-18 at
batch 1, 224x224 (batch norms with seeded statistics); encoder_dyn / resnet18_dyn, the same
models with a dynamic batch (and sequence); and resnet18_int8, ResNet-18's int8 QDQ twin
(frontend/torch/quantize_qdq.py, calibrated on the export's input); on request (--models),
the wide suite (--models wide: torchvision classifiers tv_<name>, segmentation models seg_<name>,
recurrent encoders rnn_<name>, and the families of family_models.py: video, U-Net, style
transfer, speech, BERT and GPT blocks, a GAN generator, super-resolution; also what the
compile-time table times). Existing files are kept.
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
                       ("swin_t", 224), ("efficientnet_v2_s", 224), ("maxvit_t", 224)]
}
WIDE.update({
    f"seg_{name}": (segmentation_model(name), (1, 3, 224, 224))
    for name in ["deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large", "fcn_resnet50", "deeplabv3_resnet50"]
})


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


# Families beyond image classification (family_models.py): video, dense prediction at full
# resolution, style transfer, speech, a BERT-base encoder, a GPT-2 decoder's prompt pass.
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
})
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


def expand(models):
    """The model names a --models value stands for: 'default' and 'wide' are sets."""
    sets = {"default": DEFAULT_SET + list(QUANTIZED), "wide": list(WIDE)}
    return ",".join(n for part in models.split(",") for n in sets.get(part, [part]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
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
        known = list(MODELS) + list(DYNAMIC) + list(QUANTIZED)
        if name not in known:
            sys.exit(f"export_bench_models: unknown model {name} (known: {', '.join(known)})")
        path = os.path.join(args.out_dir, name + ".onnx")
        if os.path.exists(path):
            continue
        torch.manual_seed(0)
        base, dynamic = DYNAMIC.get(name, (QUANTIZED.get(name, name), None))
        cls, shape = MODELS[base]
        model = cls().eval()
        export_fx.randomize_batch_norms(model)
        x = torch.rand(*shape)
        if name in QUANTIZED:
            model = to_qdq(model, x)
        tmp = path + ".tmp"
        # Not under no_grad: there nn.TransformerEncoderLayer takes a fused fast path ONNX cannot express.
        axes = {"x": dynamic, "y": dynamic} if dynamic else None
        torch.onnx.export(model, (x,), tmp, opset_version=13, input_names=["x"], output_names=["y"], dynamic_axes=axes,
                          do_constant_folding=name not in QUANTIZED)
        os.replace(tmp, path)
        print(f"exported {name} -> {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
