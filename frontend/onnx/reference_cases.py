"""Writes the cases of reference_test.sh into a directory (see reference_cases in
tools/testing/checks.sh): ONNX operators whose reference is another implementation.
GridSample: torch.nn.functional.grid_sample in every mode,
padding mode and align_corners setting, exported with torch.onnx at opset 16, with grids reaching
past the image so every padding mode matters; torchvision.ops.roi_align (aligned at opset 16,
unaligned at opset 11) on RoIs inside, across and beyond the image, against PyTorch's forward.
DFT and STFT (what the node cases leave out: onesided, dft_length cutting and padding, complex
input forward, a non-default axis) against numpy.fft.

    /usr/bin/python3 reference_cases.py DIR
"""
import itertools
import os
import sys

import numpy as np
import onnx
import torch


class GridSample(torch.nn.Module):
    def __init__(self, mode, padding_mode, align_corners):
        super().__init__()
        self.options = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)

    def forward(self, x, grid):
        return torch.nn.functional.grid_sample(x, grid, **self.options)


def signal_cases(out):
    """DFT and STFT nodes built with onnx.helper; numpy.fft is the reference."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    lines = []

    def save(name, node, inputs, constants, ref):
        graph = helper.make_graph([node], name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, v.shape) for n, v in inputs],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                  [numpy_helper.from_array(v, n) for n, v in constants])
        path = os.path.join(out, name + ".onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
        paths = [os.path.join(out, f"{name}.in{i}.npy") for i in range(len(inputs))]
        for p, (_, v) in zip(paths, inputs):
            np.save(p, v)
        np.save(os.path.join(out, f"{name}.ref0.npy"), ref.astype(np.float32))
        lines.append(f"{name} {path} {','.join(paths)} {os.path.join(out, name + '.ref0.npy')}")

    def pair(z):
        return np.stack((z.real, z.imag), axis=-1)

    x = rng.standard_normal((2, 10, 3, 1)).astype(np.float32)
    save("dft_onesided_padded", helper.make_node("DFT", ["x", "n"], ["y"], axis=1, onesided=1), [("x", x)], [("n", np.array(12, np.int64))],
         pair(np.fft.rfft(x[..., 0], n=12, axis=1)))
    z = rng.standard_normal((2, 3, 8, 2)).astype(np.float32)
    save("dft_complex_axis2_cut", helper.make_node("DFT", ["x", "n"], ["y"], axis=2), [("x", z)], [("n", np.array(6, np.int64))],
         pair(np.fft.fft(z[..., 0] + 1j * z[..., 1], n=6, axis=2)))
    s = rng.standard_normal((2, 40, 2)).astype(np.float32)
    frames = np.stack([s[:, f * 6:f * 6 + 9] for f in range(1 + (40 - 9) // 6)], axis=1)  # (2, frames, 9, 2)
    save("stft_complex_two_sided", helper.make_node("STFT", ["x", "step", "", "length"], ["y"], onesided=0), [("x", s)],
         [("step", np.array(6, np.int64)), ("length", np.array(9, np.int64))], pair(np.fft.fft(frames[..., 0] + 1j * frames[..., 1], axis=2)))
    return lines


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 7)
    grid = torch.rand(2, 4, 6, 2) * 2.6 - 1.3  # a margin beyond [-1, 1] on every side
    lines = []
    for mode, padding, align in itertools.product(("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (False, True)):
        name = f"grid_sample_{mode}_{padding}_{'aligned' if align else 'unaligned'}"
        model = GridSample(mode, padding, align).eval()
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(model, (x, grid), path, opset_version=16, input_names=["x", "grid"], output_names=["y"])
        paths = [os.path.join(out, f"{name}.in{i}.npy") for i in range(2)]
        for p, v in zip(paths, (x, grid)):
            np.save(p, v.numpy())
        ref = os.path.join(out, f"{name}.ref0.npy")
        np.save(ref, model(x, grid).numpy())
        lines.append(f"{name} {path} {','.join(paths)} {ref}")
    import torchvision
    feature = torch.randn(2, 4, 12, 10)
    # (batch index, x1, y1, x2, y2) in image coordinates (spatial_scale 0.5): inside, across the
    # edge, a sliver, and one past the image.
    boxes = torch.tensor([[0, 2.0, 3.0, 15.0, 20.0], [1, -4.0, 5.0, 9.0, 30.0], [1, 6.0, 6.0, 6.5, 7.0], [0, 18.0, 22.0, 30.0, 40.0]])

    class RoiAlign(torch.nn.Module):
        def __init__(self, aligned):
            super().__init__()
            self.aligned = aligned

        def forward(self, x, rois):
            return torchvision.ops.roi_align(x, rois, output_size=(3, 2), spatial_scale=0.5, sampling_ratio=2, aligned=self.aligned)

    # torchvision 0.14 exports RoiAlign without coordinate_transformation_mode at any opset, so
    # its opset-16 export means half_pixel (aligned=True) whatever `aligned` says, and opset 11
    # (RoiAlign-10) means output_half_pixel (aligned=False): one case of each.
    for aligned, opset in ((True, 16), (False, 11)):
        name = f"roi_align_{'aligned' if aligned else 'unaligned'}_opset{opset}"
        model = RoiAlign(aligned).eval()
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(model, (feature, boxes), path, opset_version=opset, input_names=["x", "rois"], output_names=["y"])
        paths = [os.path.join(out, f"{name}.in{i}.npy") for i in range(2)]
        for p, v in zip(paths, (feature, boxes)):
            np.save(p, v.numpy())
        ref = os.path.join(out, f"{name}.ref0.npy")
        np.save(ref, model(feature, boxes).numpy())
        lines.append(f"{name} {path} {','.join(paths)} {ref}")
    lines += signal_cases(out)
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
