"""Writes GridSample test cases for sampling_test.sh into a directory (see reference_cases in
tools/testing/checks.sh): torch.nn.functional.grid_sample in every mode, padding mode and
align_corners setting, exported with torch.onnx at opset 16, with grids reaching past the image
so every padding mode matters; the reference is PyTorch's forward.

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
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
