"""Writes the activation cases of //frontend/common:activations_test into DIR.

    /usr/bin/python3 activations_cases.py DIR

Every activation whose formula frontend/common/activations.h holds, as a module and as a
function, through the three routes that share it: torch.onnx (the ONNX operator, or what the
exporter makes of it), torch.fx (the module or function converters) and ATen capture (the ATen
operator, or its decomposition). Each case's reference is PyTorch's forward on inputs that cross
every formula's kinks; listed in DIR/cases.txt (tools/testing/reference_case.py).
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "testing"))
import export_fx  # noqa: E402
from reference_case import torch_routes_cases  # noqa: E402


class Functional(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    modules = {
        "relu6": torch.nn.ReLU6(),
        "hardtanh": torch.nn.Hardtanh(-0.5, 2.0),
        "hardswish": torch.nn.Hardswish(),
        "hardsigmoid": torch.nn.Hardsigmoid(),
        "silu": torch.nn.SiLU(),
        "gelu": torch.nn.GELU(),
        "gelu_tanh": torch.nn.GELU(approximate="tanh"),
        "leaky_relu": torch.nn.LeakyReLU(0.2),
        "elu": torch.nn.ELU(0.7),
        "selu": torch.nn.SELU(),
        "celu": torch.nn.CELU(1.5),
        "softplus": torch.nn.Softplus(beta=2.0),
        "mish": torch.nn.Mish(),
    }
    functions = {
        "relu6": F.relu6,
        "hardtanh": lambda x: F.hardtanh(x, -2.0, 0.5),
        "hardswish": F.hardswish,
        "hardsigmoid": F.hardsigmoid,
        "silu": F.silu,
        "gelu": F.gelu,
        "leaky_relu": lambda x: F.leaky_relu(x, negative_slope=0.3),
        "elu": lambda x: F.elu(x, alpha=1.3),
        "selu": F.selu,
        "celu": lambda x: F.celu(x, alpha=0.5),
        "softplus": F.softplus,
        "mish": F.mish,
    }
    # Both sides of every kink: hardswish's -3 and 3, relu6's 0 and 6.
    x = torch.linspace(-8, 8, 2 * 3 * 41).reshape(2, 3, 41)
    cases = []
    specs = [(f"{n}_module", torch.nn.Sequential(m)) for n, m in modules.items()]
    specs += [(f"{n}_function", Functional(f)) for n, f in functions.items()]
    for name, model in specs:
        cases += torch_routes_cases(out, name, model.eval(), x, export_fx.export)
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
