"""Writes the transposed-convolution cases of //frontend/common:conv_transpose_test into DIR.

    /usr/bin/python3 conv_transpose_cases.py DIR

Each nn.ConvTranspose2d / nn.ConvTranspose3d configuration (strides, padding, output_padding,
dilation, groups, no bias) goes through the three routes that share
frontend/common/conv_transpose.h: torch.onnx (ConvTranspose nodes), torch.fx (the module) and
ATen capture (aten.convolution with transposed=True); each case's reference is PyTorch's forward.
Listed in DIR/cases.txt (tools/testing/reference_case.py).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "testing"))
import export_fx  # noqa: E402
from reference_case import torch_routes_cases  # noqa: E402


class Decoder(torch.nn.Module):
    """A segmentation head's upsampling: a stride-2 transposed convolution, ReLU, another."""

    def __init__(self):
        super().__init__()
        self.up0 = torch.nn.ConvTranspose2d(8, 6, 4, stride=2, padding=1)
        self.up1 = torch.nn.ConvTranspose2d(6, 3, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return self.up1(torch.relu(self.up0(x)))


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    specs = [
        ("stride2_pad1", torch.nn.ConvTranspose2d(4, 5, 3, stride=2, padding=1), (2, 4, 7, 6)),
        ("output_padding", torch.nn.ConvTranspose2d(4, 5, 3, stride=(2, 3), padding=(1, 0), output_padding=(1, 2)), (1, 4, 5, 5)),
        ("dilation_groups", torch.nn.ConvTranspose2d(6, 4, (3, 2), stride=2, dilation=(2, 1), groups=2), (1, 6, 4, 5)),
        ("no_bias_stride1", torch.nn.ConvTranspose2d(3, 4, 3, padding=2, bias=False), (1, 3, 6, 6)),
        ("kernel_is_stride", torch.nn.ConvTranspose2d(6, 4, 2, stride=2), (2, 6, 4, 3)),
        ("padding_past_a_phase", torch.nn.ConvTranspose2d(3, 4, 5, stride=3, padding=4, output_padding=2), (1, 3, 4, 4)),
        ("padding_crops_a_phase", torch.nn.ConvTranspose2d(3, 4, 4, stride=2, padding=3), (1, 3, 5, 5)),
        ("volume", torch.nn.ConvTranspose3d(3, 2, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)), (1, 3, 3, 5, 4)),
        ("volume_exact_phases", torch.nn.ConvTranspose3d(3, 2, (2, 4, 4), stride=(1, 2, 2), padding=(0, 1, 1)), (1, 3, 3, 4, 4)),
        ("decoder", Decoder(), (1, 8, 5, 5)),
    ]
    cases = []
    for name, model, shape in specs:
        # In a container: torch.fx traces the root module's own forward, and calls its children.
        model = torch.nn.Sequential(model).eval()
        cases += torch_routes_cases(out, name, model, torch.randn(*shape), export_fx.export)
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
