"""Makes an int8 QDQ model from a float one, as a post-training quantizer does.

    from quantize_qdq import to_qdq
    qmodel = to_qdq(model, calibration_input)
    torch.onnx.export(qmodel, (x,), "model_int8.onnx", opset_version=13, do_constant_folding=False)

Batch norms are folded into the convolutions before them; then every Conv2d and Linear reads
its input through uint8 per-tensor fake quantization (scale and zero point from the input's range
on the calibration input, 0 included) and its weight through int8 per-output-channel symmetric
fake quantization. torch.onnx exports each fake quantization as QuantizeLinear + DequantizeLinear
(the QDQ format ONNX Runtime's quantizer writes); everything else stays float. The fake-quantized
module run by PyTorch computes exactly what the QDQ graph defines, so it is the reference.
"""
import torch
from torch import nn
from torch.fx.experimental.optimization import fuse


class _Qdq(nn.Module):
    """A Conv2d or Linear whose input and weight pass through fake quantization."""

    def __init__(self, layer, x_scale, x_zero_point):
        super().__init__()
        self.layer = layer
        self.x_scale = float(x_scale)
        self.x_zero_point = int(x_zero_point)
        w = layer.weight.detach()
        w_max = w.abs().reshape(w.shape[0], -1).amax(dim=1).clamp(min=1e-8)
        self.register_buffer("w_scale", w_max / 127)
        self.register_buffer("w_zero_point", torch.zeros(w.shape[0], dtype=torch.int32))

    def forward(self, x):
        x = torch.fake_quantize_per_tensor_affine(x, self.x_scale, self.x_zero_point, 0, 255)
        w = torch.fake_quantize_per_channel_affine(self.layer.weight, self.w_scale, self.w_zero_point, 0, -128, 127)
        if isinstance(self.layer, nn.Conv2d):
            return self.layer._conv_forward(x, w, self.layer.bias)
        return nn.functional.linear(x, w, self.layer.bias)


def _uint8_params(lo, hi):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = max((hi - lo) / 255, 1e-8)
    return scale, int(min(max(round(-lo / scale), 0), 255))


def to_qdq(model, calibration_input):
    """The QDQ twin of an eval-mode model (see the module's doc)."""
    fused = fuse(model.eval())
    ranges = {}

    def record(name):
        def hook(_, inputs):
            lo, hi = ranges.get(name, (0.0, 0.0))
            ranges[name] = (min(lo, float(inputs[0].min())), max(hi, float(inputs[0].max())))
        return hook

    layers = [(n, m) for n, m in fused.named_modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    handles = [m.register_forward_pre_hook(record(n)) for n, m in layers]
    with torch.no_grad():
        fused(calibration_input)
    for h in handles:
        h.remove()
    for name, layer in layers:
        parent_name, _, attr = name.rpartition(".")
        parent = fused.get_submodule(parent_name) if parent_name else fused
        setattr(parent, attr, _Qdq(layer, *_uint8_params(*ranges[name])))
    return fused
