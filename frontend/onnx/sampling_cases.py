"""Writes GridSample and RoiAlign test cases for sampling_test.sh into a directory (see
reference_cases in tools/testing/checks.sh): torch.nn.functional.grid_sample in every mode,
padding mode and align_corners setting, exported with torch.onnx at opset 16, with grids reaching
past the image so every padding mode matters; torchvision.ops.roi_align (aligned at opset 16,
unaligned at opset 11) on RoIs inside, across and beyond the image. The reference is PyTorch's forward.

    /usr/bin/python3 sampling_cases.py DIR
"""
import itertools
import os
import sys

import numpy as np
import torch


class GridSample(torch.nn.Module):
    def __init__(self, mode, padding_mode, align_corners):
        super().__init__()
        self.options = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)

    def forward(self, x, grid):
        return torch.nn.functional.grid_sample(x, grid, **self.options)


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
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
