"""Writes the ATen-capture cases of //frontend/torch:aten_capture_test into a directory.

    /usr/bin/python3 aten_capture_cases.py DIR

Transformer modules that torch.fx cannot trace or that the module converters do not cover, captured
at the ATen level (export_fx.export(..., capture="aten")): nn.MultiheadAttention with a causal
bool mask and a key padding mask, and with a float mask; nn.TransformerEncoderLayer; nn.Transformer
(encoder and decoder, the decoder's causal mask from generate_square_subsequent_mask); the
project's reference decoder (testdata/models/decoder) in its GPT style (learned positions, causal
mask from torch.triu) and Llama style (RMSNorm, rotary embeddings, SwiGLU, grouped-query
attention). Each case's
reference is PyTorch's forward; listed in DIR/cases.txt (tools/testing/reference_case.py).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "testing"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "models", "decoder"))
import decoder  # noqa: E402
import export_fx  # noqa: E402
from reference_case import save_case  # noqa: E402


class SelfAttention(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(d, heads, batch_first=True)

    def forward(self, x, mask, key_padding_mask=None):
        return self.attn(x, x, x, attn_mask=mask, key_padding_mask=key_padding_mask)[0]


class Seq2Seq(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.t = torch.nn.Transformer(32, 4, 1, 1, 64, dropout=0.0, batch_first=True)

    def forward(self, src, tgt):
        mask = self.t.generate_square_subsequent_mask(tgt.shape[1])
        return self.t(src, tgt, tgt_mask=mask)


class ShiftedWindows(torch.nn.Module):
    """What Swin and MaxViT do besides attention: a relative-position bias gathered from a table by
    an index tensor (and by two, on adjacent axes), a cyclic shift (torch.roll, also flattened),
    and a mask built by assigning to slices (fill + slice_scatter once functionalized)."""

    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(13, 4))
        self.register_buffer("index", torch.randint(0, 13, (7, 7)))
        self.register_buffer("rows", torch.randint(0, 5, (3,)))
        self.register_buffer("cols", torch.randint(0, 7, (3,)))

    def forward(self, x):  # (2, 7, 7, 4)
        bias = self.table[self.index]                      # (7, 7, 4)
        y = torch.roll(x, shifts=(-3, 2), dims=(1, 2)) + bias
        mask = torch.zeros(7, 7)
        mask[:4, :] = 1.0
        mask[4:, 2:5] = 2.0
        picked = x[:, :5][:, self.rows, self.cols]         # (2, 3, 4)
        return y * mask[None, :, :, None], picked, torch.roll(x, 5)


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    x = torch.randn(2, 7, 32)
    causal = torch.triu(torch.ones(7, 7, dtype=torch.bool), 1)
    padding = torch.zeros(2, 7, dtype=torch.bool)
    padding[1, 5:] = True
    specs = [
        ("mha_causal_and_padding_masks", SelfAttention(32, 4), (x, causal, padding)),
        ("mha_float_mask", SelfAttention(32, 8), (x, torch.randn(7, 7))),
        ("encoder_layer", torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True), (x,)),
        ("transformer", Seq2Seq(), (x, torch.randn(2, 5, 32))),
        ("decoder_gpt", decoder.build(decoder.Config(style="gpt")), (torch.randint(0, 256, (1, 9)),)),
        ("decoder_llama", decoder.build(decoder.Config(style="llama", kv_heads=2)), (torch.randint(0, 256, (1, 9)),)),
        ("shifted_windows", ShiftedWindows(), (torch.randn(2, 7, 7, 4),)),
    ]
    cases = []
    for name, model, inputs in specs:
        model = model.eval()
        with torch.no_grad():
            ref = model(*inputs)
        refs = ref if isinstance(ref, tuple) else (ref,)
        path = os.path.join(out, f"{name}.fxpb")
        export_fx.export(model, inputs, path, capture="aten")
        cases.append(save_case(out, name, path, [t.numpy() for t in inputs], [r.numpy() for r in refs]))
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
