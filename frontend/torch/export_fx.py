"""Exports a PyTorch module as an FX graph file (*.fxpb, frontend/torch/fx_graph.proto).

    from export_fx import export
    export(model, example_inputs, "model.fxpb")

or, for the bundled example models (seeded weights):

    /usr/bin/python3 export_fx.py --example mlp --out mlp.fxpb [--inputs x.npy --reference y.npy]

It symbolic-traces the module with torch.fx, runs shape propagation on the example inputs,
and records every node (op, name, target, args, kwargs, result shapes and dtypes), the
configuration of every called submodule, and all parameters and buffers. Run it with Debian's
/usr/bin/python3 (it sees python3-torch).
"""
import argparse
import contextlib
import dis
import inspect
import operator
import os
import sys

import numpy as np
import torch
from torch import fx
from torch.fx.passes.shape_prop import ShapeProp

def _load_schema():
    """fx_graph_pb2 sits next to this file in Bazel's runfiles; run from the source tree, the
    schema is compiled with protoc into a temporary directory."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    try:
        import fx_graph_pb2
        return fx_graph_pb2
    except ImportError:
        import atexit
        import shutil
        import subprocess
        import tempfile
        out = tempfile.mkdtemp(prefix="mlc_fx_schema_")
        atexit.register(shutil.rmtree, out, True)
        subprocess.run(["protoc", f"--proto_path={here}", f"--python_out={out}", os.path.join(here, "fx_graph.proto")],
                       check=True)
        sys.path.insert(0, out)
        import fx_graph_pb2
        return fx_graph_pb2


fx_graph_pb2 = _load_schema()

FORMAT_VERSION = 1
DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.int64: "int64",
          torch.int32: "int32", torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool"}

# Configuration recorded for called modules (the importer's converters read these).
def target_name(target):
    if isinstance(target, str):
        return target
    if isinstance(target, torch._ops.OpOverload):  # an ATen operator (make_fx): aten.convolution.default
        return str(target)
    if target in (operator.add, operator.sub, operator.mul, operator.truediv, operator.getitem, operator.floordiv,
                  operator.neg, operator.matmul, operator.pow, operator.gt, operator.lt, operator.ge, operator.le,
                  operator.eq, operator.ne):
        return "operator." + target.__name__
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", str(target))
    if module.startswith("torch._C._nn") or module == "torch.nn.functional":
        return "torch.nn.functional." + name
    if module.startswith("torch"):
        return "torch." + name
    return f"{module}.{name}"


def set_arg(msg, value):
    if isinstance(value, fx.Node):
        msg.node = value.name
    elif isinstance(value, bool):
        msg.b = value
    elif isinstance(value, int):
        msg.i = value
    elif isinstance(value, float):
        msg.f = value
    elif isinstance(value, str):
        msg.s = value
    elif value is None:
        msg.none = True
    elif value is Ellipsis:
        msg.ellipsis = True
    elif isinstance(value, slice):
        for field in ("start", "stop", "step"):
            set_arg(getattr(msg.slice, field), getattr(value, field))
    elif isinstance(value, torch.dtype):
        msg.dtype = DTYPES.get(value, str(value))
    elif isinstance(value, (torch.layout, torch.device, torch.memory_format)):  # ATen's tensor options
        msg.s = str(value)
    elif isinstance(value, (list, tuple, torch.Size)):
        msg.list.SetInParent()
        for v in value:
            set_arg(msg.list.items.add(), v)
    else:
        raise ValueError(f"cannot export argument {value!r} of type {type(value).__name__}")


def set_tensor(msg, tensor):
    tensor = tensor.detach().cpu().contiguous()
    msg.dtype = DTYPES[tensor.dtype]
    msg.shape.extend(tensor.shape)
    msg.data = tensor.numpy().tobytes()


def _encoder_layer_forward(self, src, src_mask=None, src_key_padding_mask=None):
    """nn.TransformerEncoderLayer.forward without its fast-path checks (which branch on tensor
    properties, so torch.fx cannot trace them): the computation torch 1.13 runs in eval mode."""
    x = src
    if self.norm_first:
        x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
        x = x + self._ff_block(self.norm2(x))
    else:
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
        x = self.norm2(x + self._ff_block(x))
    return x


class _Tracer(fx.Tracer):
    """Keeps nn.MultiheadAttention whole (a converter maps it; its forward is not traceable)."""

    def is_leaf_module(self, m, qualified_name):
        if isinstance(m, torch.nn.TransformerEncoderLayer):
            return False  # traced through _encoder_layer_forward
        return isinstance(m, torch.nn.MultiheadAttention) or super().is_leaf_module(m, qualified_name)


class _Root(torch.nn.Module):
    """Wraps a model whose own forward must be replaced for tracing."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)


# Functions torch.fx does not trace by itself when a size is among their non-tensor arguments:
# called with a traced size (torch.arange(t) of t = x.shape[1], torch.triu(m, diagonal=past + 1)),
# they become graph nodes, so a causal mask or positions follow a symbolic length.
_FACTORIES = ("arange", "ones", "zeros", "full", "triu", "tril")


def _proxy_iter(self):
    """`b, t = x.shape`, `x, _ = attention(...)`: torch 1.13's Proxy.__iter__ looks for the
    UNPACK_SEQUENCE that asks by indexing the instruction list with f_lasti // 2, which Python
    3.11's inline caches throw off; here the instruction is found by its offset, and the proxy
    unpacks into as many items as it asks for."""
    user = inspect.currentframe().f_back
    for inst in dis.get_instructions(user.f_code):
        if inst.offset == user.f_lasti and inst.opname == "UNPACK_SEQUENCE":
            return (self[i] for i in range(inst.argval))
    return self.tracer.iter(self)


@contextlib.contextmanager
def _tracing_patches(tracer):
    saved = {name: getattr(torch, name) for name in _FACTORIES}
    saved_iter = fx.Proxy.__iter__
    fx.Proxy.__iter__ = _proxy_iter

    def wrap(factory):
        def call(*args, **kwargs):
            kwargs.pop("device", None)  # the compiled model has one device
            flat = list(args) + list(kwargs.values())
            flat += [x for a in args if isinstance(a, (list, tuple)) for x in a]
            if any(isinstance(a, fx.Proxy) for a in flat):
                return tracer.create_proxy("call_function", factory, args, kwargs)
            return factory(*args, **kwargs)
        return call

    for name, factory in saved.items():
        setattr(torch, name, wrap(factory))
    try:
        yield
    finally:
        fx.Proxy.__iter__ = saved_iter
        for name, factory in saved.items():
            setattr(torch, name, factory)


def _trace(model):
    for m in model.modules():
        if isinstance(m, torch.nn.TransformerEncoderLayer):
            m.forward = _encoder_layer_forward.__get__(m)
    root = _Root(model) if isinstance(model, torch.nn.TransformerEncoderLayer) else model
    tracer = _Tracer()
    with _tracing_patches(tracer):
        graph = tracer.trace(root)
    return fx.GraphModule(root, graph)


def _capture_aten(model, example_inputs):
    """The module as ATen operators (torch.fx.experimental.proxy_tensor.make_fx, the way
    torch.export captures in later PyTorch): run on the example inputs, so Python control flow,
    shape arithmetic, indexing and every function or method reduce to the operators they call;
    functionalized, so in-place operators become ones that return their result. Parameters are
    constants of the graph (get_attr)."""
    from torch.fx.experimental.proxy_tensor import make_fx
    from functorch.experimental import functionalize
    # Traced with autograd on: without it, eval-mode attention takes PyTorch's fused inference
    # kernel (_native_multi_head_attention), one opaque operator instead of the matmuls it is.
    with torch.enable_grad():
        gm = make_fx(functionalize(model))(*example_inputs)
    # Results nobody reads (max_pool2d's indices, batch norm's saved statistics) go: every
    # operator is pure once functionalized.
    gm.graph.eliminate_dead_code()
    gm.recompile()
    return gm


def export(model, example_inputs, path, dynamic_axes=None, capture="fx"):
    """dynamic_axes: {input index: {axis: name}}, the inputs' symbolic dimensions (the importer
    makes each name a shape variable; reshapes of them follow their arguments, not the example's
    sizes). capture: "fx" traces the module's Python with torch.fx (modules and functions as
    written); "aten" records the ATen operators it runs (static shapes only)."""
    model = model.eval()
    if capture not in ("fx", "aten"):
        raise ValueError(f"capture must be 'fx' or 'aten', not {capture!r}")
    if capture == "aten" and dynamic_axes:
        raise ValueError("capture='aten' records static shapes; use capture='fx' for dynamic_axes")
    traced = _trace(model) if capture == "fx" else _capture_aten(model, example_inputs)
    ShapeProp(traced).propagate(*example_inputs)
    dynamic_axes = dynamic_axes or {}
    placeholders = [node for node in traced.graph.nodes if node.op == "placeholder"]
    for index in dynamic_axes:
        if not 0 <= index < len(placeholders):
            raise ValueError(f"dynamic_axes: no input {index} (the module takes {len(placeholders)})")
    graph = fx_graph_pb2.FxGraph(magic="mlc.fx", format_version=FORMAT_VERSION, module_name=type(model).__name__)
    modules = dict(traced.named_modules())
    for node in traced.graph.nodes:
        n = graph.nodes.add(op=node.op, name=node.name, target=target_name(node.target))
        args = node.args
        if node.op == "output" and not isinstance(args[0], fx.Node) and not (
                type(args[0]) is tuple and all(isinstance(v, fx.Node) for v in args[0])):
            # Nested results (a detection model's list of dicts) leave as their tensors in
            # torch's pytree order (torch.onnx's too); mlc.compile nests them again.
            from torch.utils import _pytree
            args = (tuple(v for v in _pytree.tree_flatten(args[0])[0] if isinstance(v, fx.Node)),)
        for a in args:
            set_arg(n.args.add(), a)
        for k, v in node.kwargs.items():
            set_arg(n.kwargs[k], v)
        meta = node.meta.get("tensor_meta")
        # TensorMetadata is itself a NamedTuple: only a plain list/tuple means several results.
        if meta is None:
            metas = []
        elif hasattr(meta, "shape"):
            metas = [meta]
        else:
            metas = list(meta)
        for m in metas:
            if hasattr(m, "shape"):
                out = n.outputs.add(shape=list(m.shape), dtype=DTYPES.get(m.dtype, str(m.dtype)))
                if node.op == "placeholder" and placeholders.index(node) in dynamic_axes:
                    axes = dynamic_axes[placeholders.index(node)]
                    out.dim_names.extend(axes.get(d, "") for d in range(len(m.shape)))
        if node.op == "call_module":
            sub = modules[node.target]
            n.module_type = type(sub).__name__
            # Every plain public attribute (the module's configuration), so converters of module
            # types we do not know yet (plug-ins) find theirs too.
            for attr, value in sorted(vars(sub).items()):
                if attr.startswith("_") or attr == "training":
                    continue
                if isinstance(value, (bool, int, float, str)) or value is None or (
                        isinstance(value, (tuple, list)) and all(isinstance(v, (bool, int, float)) for v in value)):
                    set_arg(n.module_attrs[attr], value)
    for name, tensor in list(traced.named_parameters()) + list(traced.named_buffers()):
        set_tensor(graph.parameters[name], tensor)
    for node in traced.graph.nodes:  # make_fx's constants: plain tensor attributes
        if node.op == "get_attr" and node.target not in graph.parameters:
            set_tensor(graph.parameters[node.target], getattr(traced, node.target))
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(graph.SerializeToString())
    os.replace(tmp, path)
    return traced


# ---- Example models with seeded weights.

class MLP(torch.nn.Module):
    """The seeds' FashionMNIST MLP."""

    def __init__(self):
        super().__init__()
        self.linear0 = torch.nn.Linear(784, 128, bias=True)
        self.relu = torch.nn.ReLU()
        self.linear1 = torch.nn.Linear(128, 10, bias=True)

    def forward(self, x):
        return self.linear1(self.relu(self.linear0(x)))


class MyModel(torch.nn.Module):
    """The seeds' matmul + relu model."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(128, 128))

    def forward(self, x):
        return torch.relu(torch.matmul(x, self.weight))


class SmallCnn(torch.nn.Module):
    """Every convolution feature the importer handles: padding, stride, dilation, groups,
    batch norm, max/avg pooling, explicit padding, adaptive pooling, flatten and a classifier."""

    def __init__(self):
        super().__init__()
        self.conv0 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn0 = torch.nn.BatchNorm2d(8)
        self.pool0 = torch.nn.MaxPool2d(3, stride=2, padding=1)
        self.conv1 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=2, dilation=2, groups=4, bias=False)
        self.pool1 = torch.nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True)
        self.conv2 = torch.nn.Conv2d(8, 16, 1)
        self.gap = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(16, 5)

    def forward(self, x):
        x = self.pool0(torch.relu(self.bn0(self.conv0(x))))
        x = self.pool1(torch.nn.functional.relu6(self.conv1(x)))
        x = self.gap(self.conv2(torch.nn.functional.pad(x, (1, 2, 0, 1), value=0.25)))
        return self.fc(x.view(x.size(0), -1))


class Volumetric(torch.nn.Module):
    """3-D windows (video, medical volumes): Conv3d with padding, strides, dilation and groups,
    BatchNorm3d, MaxPool3d in ceil mode, AvgPool3d without the padding in its divisor."""

    def __init__(self):
        super().__init__()
        self.conv0 = torch.nn.Conv3d(2, 6, 3, padding=1)
        self.bn0 = torch.nn.BatchNorm3d(6)
        self.pool0 = torch.nn.MaxPool3d((2, 3, 3), stride=2, ceil_mode=True)
        self.conv1 = torch.nn.Conv3d(6, 6, (1, 3, 3), stride=(1, 2, 1), padding=(0, 2, 2), dilation=(1, 2, 2), groups=3)
        self.pool1 = torch.nn.AvgPool3d(3, stride=1, padding=1, count_include_pad=False)
        self.fc = torch.nn.Linear(6, 4)

    def forward(self, x):
        x = self.pool0(torch.relu(self.bn0(self.conv0(x))))
        x = self.pool1(self.conv1(x))
        return self.fc(x.mean(dim=(2, 3, 4)))


class Attention(torch.nn.Module):
    """A pre-norm transformer block written with traceable tensor operations: layer norm,
    multi-head self-attention (reshape, transpose, batched matmul, softmax), a feed-forward
    block and residual adds, then the mean over the sequence."""

    def __init__(self, d=32, heads=4, seq=10, batch=2):
        super().__init__()
        self.shape = (batch, seq, heads, d // heads)
        self.norm1 = torch.nn.LayerNorm(d)
        self.q, self.k, self.v = (torch.nn.Linear(d, d) for _ in range(3))
        self.proj = torch.nn.Linear(d, d)
        self.norm2 = torch.nn.LayerNorm(d)
        self.ff = torch.nn.Sequential(torch.nn.Linear(d, 2 * d), torch.nn.GELU(), torch.nn.Linear(2 * d, d))

    def forward(self, x):
        b, s, h, e = self.shape
        y = self.norm1(x)
        q = self.q(y).reshape(b, s, h, e).transpose(1, 2)
        k = self.k(y).reshape(b, s, h, e).permute(0, 2, 3, 1)
        v = self.v(y).reshape(b, s, h, e).transpose(1, 2)
        att = torch.softmax(torch.matmul(q, k) * (e ** -0.5), dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, s, h * e)
        x = x + self.proj(y)
        x = x + self.ff(self.norm2(x))
        return x.mean(dim=1)


class Padding(torch.nn.Module):
    """Every padding mode as a module and as F.pad."""

    def __init__(self):
        super().__init__()
        self.pads = torch.nn.Sequential(torch.nn.ReflectionPad2d((1, 2, 0, 1)), torch.nn.ReplicationPad2d(1),
                                        torch.nn.ZeroPad2d((0, 1, 2, 0)), torch.nn.ConstantPad2d(1, 0.5))

    def forward(self, x):
        return torch.nn.functional.pad(self.pads(x), (2, 1, 1, 0), mode="reflect") * 2.0


class Functional(torch.nn.Module):
    """Pooling and activations called as functions (Inception's F.max_pool2d / F.avg_pool2d,
    EfficientNet's SiLU), with their keyword arguments; chunk, split and index_select, their
    parts unpacked."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.act = torch.nn.SiLU()
        self.register_buffer("order", torch.tensor([7, 0, 3]))

    def forward(self, x):
        x = self.act(self.conv(x))
        x = torch.nn.functional.max_pool2d(x, 3, 2, padding=1)
        x = torch.nn.functional.avg_pool2d(x, kernel_size=2, ceil_mode=True, count_include_pad=False)
        y = torch.nn.functional.silu(x) * torch.rsqrt(x * x + 1.0)
        a, b = y.chunk(2, dim=1)
        c, d = y.split([3, 5], dim=1)
        e = torch.index_select(y, 1, self.order)
        return torch.cat((a * b, c.sum(1, keepdim=True) + d.mean(1, keepdim=True), e), dim=1)


class MaskedAttention(torch.nn.Module):
    """nn.MultiheadAttention with masks: a causal bool attn_mask and a key_padding_mask by
    keyword, and an additive float attn_mask passed by position."""

    def __init__(self, d=32, heads=4, seq=10):
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(d, heads, batch_first=True)
        self.register_buffer("causal", torch.triu(torch.ones(seq, seq, dtype=torch.bool), 1))
        self.register_buffer("padding", torch.tensor([[False] * (seq - 2) + [True] * 2, [False] * seq]))
        self.register_buffer("bias", torch.randn(seq, seq))

    def forward(self, x):
        a, _ = self.attn(x, x, x, attn_mask=self.causal, key_padding_mask=self.padding, need_weights=False)
        return a + self.attn(x, x, x, None, False, self.bias)[0]


class Unsupported(torch.nn.Module):
    """A module the importer does not support (for the error test)."""

    def __init__(self):
        super().__init__()
        self.shuffle = torch.nn.PixelShuffle(2)

    def forward(self, x):
        return self.shuffle(x)


def torchvision_model(name):
    def make(**options):
        import torchvision
        return getattr(torchvision.models, name)(weights=None, **options)
    return make


class SegmentationOut(torch.nn.Module):
    """torchvision's LR-ASPP (MobileNetV3) segmenter returning its "out" map (bilinear upsampling,
    shapes sliced from x.shape: torch.fx cannot trace it, ATen capture can)."""

    def __init__(self):
        super().__init__()
        import torchvision
        self.model = torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)

    def forward(self, x):
        return self.model(x)["out"]


def randomize_batch_norms(model):
    """Fresh batch norms are identities in eval mode; seeded statistics make folding them testable."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.BatchNorm2d, torch.nn.BatchNorm3d)):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)


def seed_zero_weights(model):
    """Layers that start at zero (the classification heads of torchvision's ViT) make every output
    zero, whatever the input: a check against a reference would pass whatever we compute. They get
    PyTorch's default initialization instead (from the seeded generator)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d)) and not m.weight.any():
                m.reset_parameters()


def small_vit():
    """torchvision's VisionTransformer at a small size (32x32 images, 8x8 patches, 2 layers); its
    classification head starts at zero, so it gets seeded values like the rest."""
    from torchvision.models.vision_transformer import VisionTransformer
    model = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=64, mlp_dim=128,
                              num_classes=10)
    with torch.no_grad():
        for p in model.heads.parameters():
            p.normal_(0, 0.1)
    return model


def transformer_encoder_layer():
    # Traced with its eval-mode computation (_encoder_layer_forward); MultiheadAttention stays a module.
    return torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, batch_first=True)


EXAMPLES = {"mlp": (MLP, (1, 784)), "encoder": (transformer_encoder_layer, (1, 128, 256)),
            "attention": (Attention, (2, 10, 32)), "mymodel": (MyModel, (1, 128)), "cnn": (SmallCnn, (2, 3, 17, 15)),
            "volumetric": (Volumetric, (2, 2, 6, 11, 9)),
            "resnet18": (torchvision_model("resnet18"), (1, 3, 224, 224)),
            "mobilenet_v2": (torchvision_model("mobilenet_v2"), (1, 3, 224, 224)),
            # The families beyond those two (torchvision_test): hardswish and squeeze-excitation,
            # grouped convolutions, dense concatenation, channel-last layer norm with GELU, a ViT.
            "mobilenet_v3_small": (torchvision_model("mobilenet_v3_small"), (1, 3, 224, 224)),
            "resnext50_32x4d": (torchvision_model("resnext50_32x4d"), (1, 3, 224, 224)),
            "densenet121": (torchvision_model("densenet121"), (1, 3, 224, 224)),
            "convnext_tiny": (torchvision_model("convnext_tiny"), (1, 3, 224, 224)),
            "vit": (small_vit, (2, 3, 32, 32)),
            # SiLU and stochastic depth; Inception's functional pools and branches.
            "efficientnet_b0": (torchvision_model("efficientnet_b0"), (1, 3, 224, 224)),
            "inception_v3": (lambda: torchvision_model("inception_v3")(aux_logits=False, init_weights=True), (1, 3, 299, 299)),
            "functional": (Functional, (2, 3, 13, 11)),
            "masked_attention": (MaskedAttention, (2, 10, 32)),
            "lraspp": (SegmentationOut, (1, 3, 224, 224)),
            "padding": (Padding, (2, 3, 5, 6)), "unsupported": (Unsupported, (1, 4, 4, 4))}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--example", choices=sorted(EXAMPLES), required=True)
    parser.add_argument("--out", help="write the FX graph here (.fxpb)")
    parser.add_argument("--inputs", help="write the example input here (.npy)")
    parser.add_argument("--reference", help="write PyTorch's output here (.npy)")
    parser.add_argument("--onnx", help="also export the example with torch.onnx (opset 13) to this path")
    parser.add_argument("--dynamic", default="",
                        help="symbolic dimensions of the input (and, for ONNX, the output), e.g. 0=batch,1=seq")
    parser.add_argument("--shape", default="", help="the example input's shape instead of the example's own, e.g. 3,3,224,224")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--capture", choices=("fx", "aten"), default="fx",
                        help="fx: trace modules and functions with torch.fx; aten: record the ATen operators (make_fx)")
    parser.add_argument("--qdq", action="store_true",
                        help="export the int8 QDQ twin of the example (quantize_qdq.py; ONNX only)")
    args = parser.parse_args()
    if args.qdq and args.out:
        parser.error("--qdq exports ONNX only: the FX importer has no converter for fake quantization")
    torch.manual_seed(args.seed)
    cls, shape = EXAMPLES[args.example]
    if args.shape:
        shape = tuple(int(d) for d in args.shape.split(","))
    model = cls().eval()
    randomize_batch_norms(model)
    x = torch.rand(*shape)
    if args.qdq:
        from quantize_qdq import to_qdq
        model = to_qdq(model, x)
    if args.reference:  # from the unmodified model, before tracing swaps any forward
        with torch.no_grad():
            np.save(args.reference, model(x).numpy())
    dynamic = {int(k): v for k, v in (kv.split("=") for kv in args.dynamic.split(",") if kv)}
    if args.out:
        export(model, (x,), args.out, {0: dynamic} if dynamic else None, capture=args.capture)
    if args.onnx:
        with torch.no_grad():
            out_rank = model(x).dim()
        axes = {"x": dynamic, "y": {k: v for k, v in dynamic.items() if k < out_rank}} if dynamic else None
        # Without constant folding the weights' QuantizeLinear stays in the graph (the importer
        # folds it); torch's folding would drop the quantization of some of them.
        torch.onnx.export(model, (x,), args.onnx, opset_version=13, input_names=["x"], output_names=["y"],
                          dynamic_axes=axes, do_constant_folding=not args.qdq)
    if args.inputs:
        np.save(args.inputs, x.numpy())

if __name__ == "__main__":
    main()
