"""Writes one case of a reference test (reference_cases in checks.sh): the model file, its
inputs DIR/<name>.in<i>.npy and reference outputs DIR/<name>.ref<i>.npy, and returns the line of
DIR/cases.txt that names them: "<name> <model> <inputs> <references>"."""
import os

import numpy as np


def save_case(out, name, model_path, inputs, references):
    def save(kind, arrays):
        paths = [os.path.join(out, f"{name}.{kind}{i}.npy") for i in range(len(arrays))]
        for p, a in zip(paths, arrays):
            np.save(p, np.asarray(a))
        return ",".join(paths)

    return f"{name} {model_path} {save('in', inputs)} {save('ref', references)}"


def torch_onnx_case(out, name, model, inputs, opset, input_names=None, dynamic_axes=None):
    """`model` (eval mode) exported with torch.onnx at `opset` (`dynamic_axes` as torch.onnx takes
    them); its forward on `inputs` is the reference (one tensor or a tuple)."""
    import torch
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, tuple(inputs), path, opset_version=opset, input_names=input_names, dynamic_axes=dynamic_axes)
    with torch.no_grad():
        refs = model(*inputs)
    refs = refs if isinstance(refs, (tuple, list)) else (refs,)
    return save_case(out, name, path, [t.numpy() for t in inputs], [t.numpy() for t in refs])


def torch_routes_cases(out, name, model, x, export, opset=14):
    """`model` (eval mode) on one input `x` through the three torch routes: torch.onnx at `opset`,
    torch.fx and ATen capture (`export` is frontend/torch/export_fx.export); its forward is the
    reference. Returns the three lines of DIR/cases.txt."""
    import torch
    with torch.no_grad():
        ref = model(x)
    cases = [torch_onnx_case(out, f"{name}_onnx", model, [x], opset, ["x"])]
    for capture in ("fx", "aten"):
        path = os.path.join(out, f"{name}_{capture}.fxpb")
        export(model, (x,), path, capture=capture)
        cases.append(save_case(out, f"{name}_{capture}", path, [x.numpy()], [ref.numpy()]))
    return cases
