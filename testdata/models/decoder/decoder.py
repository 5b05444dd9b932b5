"""A decoder-only language model in PyTorch, the project's reference for generative models.

Two styles share one skeleton (token embedding, N pre-norm blocks of causal self-attention and
a feed-forward network, a final norm, a head tied to the embedding):

  gpt    GPT-2: learned positions, LayerNorm, GELU feed-forward, biases.
  llama  Llama: rotary position embeddings, RMSNorm, SwiGLU feed-forward, grouped-query
         attention (fewer key/value heads than query heads), no biases.

The causal mask and the positions are computed from the sequence length inside forward (torch.triu,
torch.arange), so an export with a dynamic sequence axis carries them as shape computations.
Weights are seeded: the same configuration and seed give the same model everywhere.

    /usr/bin/python3 decoder.py --style llama --kv_heads 2 --out tiny.onnx \
        [--samples DIR --seqs 1,7,30]   # DIR/ids.<seq>.npy and PyTorch's DIR/logits.<seq>.npy

--out's extension picks the format: .onnx (torch.onnx) or .fxpb (a torch.fx graph,
frontend/torch/export_fx.py), both with the same symbolic axes.
"""
import argparse
import math
import os
import sys

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


class Config:
    def __init__(self, style="gpt", vocab=256, dim=64, layers=2, heads=4, kv_heads=None, ffn=None, context=128,
                 eps=1e-5):
        if style not in ("gpt", "llama"):
            raise ValueError(f"style must be gpt or llama, not {style!r}")
        self.style, self.vocab, self.dim, self.layers, self.heads = style, vocab, dim, layers, heads
        self.kv_heads = kv_heads or heads
        self.ffn = ffn or (4 * dim if style == "gpt" else 2 * ((8 * dim // 3 + 1) // 2))
        self.context, self.eps = context, eps
        if dim % heads or heads % self.kv_heads:
            raise ValueError("dim must divide into heads, and heads into kv_heads groups")


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.head_dim = cfg.dim // cfg.heads
        bias = cfg.style == "gpt"
        self.q = nn.Linear(cfg.dim, cfg.heads * self.head_dim, bias=bias)
        self.k = nn.Linear(cfg.dim, cfg.kv_heads * self.head_dim, bias=bias)
        self.v = nn.Linear(cfg.dim, cfg.kv_heads * self.head_dim, bias=bias)
        self.o = nn.Linear(cfg.heads * self.head_dim, cfg.dim, bias=bias)

    def forward(self, x, mask, rope, past=None):
        """past: this layer's cached (keys, values), [b, kv_heads, past, head_dim] each; then the
        result is (out, (keys, values) grown by this call's t entries)."""
        b, t = x.shape[0], x.shape[1]
        q = self.q(x).view(b, t, self.cfg.heads, self.head_dim).transpose(1, 2)
        k = self.k(x).view(b, t, self.cfg.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v(x).view(b, t, self.cfg.kv_heads, self.head_dim).transpose(1, 2)
        if rope is not None:
            cos, sin = rope
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
        if past is not None:
            k = torch.cat((past[0], k), dim=2)
            v = torch.cat((past[1], v), dim=2)
        present = (k, v)
        s = k.shape[2]
        group = self.cfg.heads // self.cfg.kv_heads
        if group > 1:  # each key/value head serves `group` query heads (as Hugging Face's repeat_kv)
            k = k[:, :, None].expand(b, self.cfg.kv_heads, group, s, self.head_dim).reshape(b, self.cfg.heads, s, self.head_dim)
            v = v[:, :, None].expand(b, self.cfg.kv_heads, group, s, self.head_dim).reshape(b, self.cfg.heads, s, self.head_dim)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(mask, float("-inf"))
        out = torch.matmul(torch.softmax(scores, dim=-1), v)
        out = self.o(out.transpose(1, 2).reshape(b, t, self.cfg.heads * self.head_dim))
        return out if past is None else (out, present)


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.style = cfg.style
        if cfg.style == "gpt":
            self.up = nn.Linear(cfg.dim, cfg.ffn)
            self.down = nn.Linear(cfg.ffn, cfg.dim)
        else:
            self.gate = nn.Linear(cfg.dim, cfg.ffn, bias=False)
            self.up = nn.Linear(cfg.dim, cfg.ffn, bias=False)
            self.down = nn.Linear(cfg.ffn, cfg.dim, bias=False)

    def forward(self, x):
        if self.style == "gpt":
            return self.down(F.gelu(self.up(x)))
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        norm = (lambda: nn.LayerNorm(cfg.dim, eps=cfg.eps)) if cfg.style == "gpt" else (lambda: RMSNorm(cfg.dim, cfg.eps))
        self.norm1, self.attn, self.norm2, self.ffn = norm(), Attention(cfg), norm(), FeedForward(cfg)

    def forward(self, x, mask, rope, past=None):
        if past is None:
            x = x + self.attn(self.norm1(x), mask, rope)
            return x + self.ffn(self.norm2(x))
        a, present = self.attn(self.norm1(x), mask, rope, past)
        x = x + a
        return x + self.ffn(self.norm2(x)), present


class Decoder(nn.Module):
    """ids [batch, seq] (int64) -> logits [batch, seq, vocab]."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.dim)
        if cfg.style == "gpt":
            self.positions = nn.Embedding(cfg.context, cfg.dim)
            self.norm = nn.LayerNorm(cfg.dim, eps=cfg.eps)
        else:
            head_dim = cfg.dim // cfg.heads
            inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
            self.register_buffer("inv_freq", inv_freq)
            self.norm = RMSNorm(cfg.dim, cfg.eps)
        self.blocks = nn.ModuleList([Block(cfg) for _ in range(cfg.layers)])

    def embed_positions(self, ids, pos):
        """The token embeddings (plus learned positions), and the rotary (cos, sin) or None."""
        x = self.embed(ids)
        if self.cfg.style == "gpt":
            return x + self.positions(pos), None
        freqs = pos.to(torch.float32)[..., None] * self.inv_freq
        angles = torch.cat((freqs, freqs), dim=-1)
        return x, (angles.cos(), angles.sin())

    def forward(self, ids):
        t = ids.shape[1]
        x, rope = self.embed_positions(ids, torch.arange(t, device=ids.device))
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=ids.device), diagonal=1)
        for block in self.blocks:
            x = block(x, mask, rope)
        x = self.norm(x)
        if getattr(self, "head_input", None) is not None:
            x = self.head_input(x)
        return torch.matmul(x, self.embed.weight.t())


class CachedDecoder(nn.Module):
    """The decoder with a key/value cache, in the form exporters give it (Hugging Face's
    past_key_values): ids [1, seq] and their positions [1, seq] (past, past+1, ...), and for each
    layer the cached keys and values [1, kv_heads, past, head_dim] (past = 0: empty) -> logits
    [1, seq, vocab] and each layer's keys and values grown to past + seq. A prompt is one call
    with an empty cache; each generated token one call with seq = 1."""

    def __init__(self, decoder):
        super().__init__()
        self.decoder = decoder

    def forward(self, ids, positions, *past):
        d = self.decoder
        x, rope = d.embed_positions(ids, positions[0])
        if rope is not None:
            rope = (rope[0][None, None], rope[1][None, None])
        total = past[0].shape[2] + ids.shape[1]
        # Query i (at positions[i]) sees the keys at positions <= its own.
        mask = torch.arange(total, device=ids.device)[None, :] > positions[0][:, None]
        presents = []
        for i, block in enumerate(d.blocks):
            x, (k, v) = block(x, mask, rope, (past[2 * i], past[2 * i + 1]))
            presents += [k, v]
        return (torch.matmul(d.norm(x), d.embed.weight.t()), *presents)


def build(cfg, seed=0):
    """The model with seeded weights (eval mode). Norm weights are perturbed around 1 so that a
    converter that drops them is caught; matrices are scaled so that greedy decoding does not
    settle on one token (at 0.5 / sqrt(fan_in) it repeats one id), which would hide a wrong cache."""
    torch.manual_seed(seed)
    model = Decoder(cfg)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm1.weight") or name.endswith("norm2.weight") or name == "norm.weight":
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
            elif p.dim() >= 2:
                p.copy_(torch.randn_like(p) * 2.0 / math.sqrt(p.shape[-1]))
            else:
                p.copy_(0.02 * torch.randn_like(p))
    return model.eval()


def train(model, data, steps, batch=32, seq=128, lr=3e-3, seed=0):
    """`model` trained in place to predict the next byte of `data` (a uint8 array; vocab 256):
    AdamW on random windows, the learning rate decaying to 0 along a cosine; returns the last
    step's loss (nats). Seeded, so the same data and steps give the same weights."""
    if model.cfg.vocab != 256:
        raise ValueError("training reads bytes: the vocabulary must be 256")
    g = torch.Generator().manual_seed(seed)
    data = torch.from_numpy(np.asarray(data, np.int64))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    model.train()
    loss = torch.tensor(float("nan"))
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * step / steps))
        starts = torch.randint(0, len(data) - seq - 1, (batch,), generator=g)
        window = torch.stack([data[s:s + seq + 1] for s in starts.tolist()])
        logits = model(window[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 256), window[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return float(loss.detach())


def export_onnx(model, path, seq, batch=1, opset=14):
    """ONNX with the sequence axis dynamic (named `seq`); the batch stays fixed."""
    ids = torch.zeros(batch, seq, dtype=torch.int64)
    torch.onnx.export(model, (ids,), path, input_names=["ids"], output_names=["logits"],
                      dynamic_axes={"ids": {1: "seq"}, "logits": {1: "seq"}}, opset_version=opset)


def export_cached_onnx(model, path, seq=3, past=2, opset=14):
    """CachedDecoder(model) as ONNX: `seq` and `past` dynamic, inputs ids, positions,
    past.<layer>.key / .value, outputs logits, present.<layer>.key / .value."""
    cfg = model.cfg
    head_dim = cfg.dim // cfg.heads
    ids = torch.zeros(1, seq, dtype=torch.int64)
    positions = torch.arange(past, past + seq)[None]
    cache = [torch.zeros(1, cfg.kv_heads, past, head_dim) for _ in range(2 * cfg.layers)]
    kv = [f"{n}.{i}.{w}" for i in range(cfg.layers) for n, w in (("%s", "key"), ("%s", "value"))]
    past_names = [n % "past" for n in kv]
    present_names = [n % "present" for n in kv]
    axes = {"ids": {1: "seq"}, "positions": {1: "seq"}, "logits": {1: "seq"}}
    axes.update({n: {2: "past"} for n in past_names})
    axes.update({n: {2: "total"} for n in present_names})
    torch.onnx.export(CachedDecoder(model), (ids, positions, *cache), path,
                      input_names=["ids", "positions", *past_names], output_names=["logits", *present_names],
                      dynamic_axes=axes, opset_version=opset)


def _export_fx():
    """frontend/torch/export_fx.py (in the source tree and in Bazel's runfiles alike)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "frontend", "torch"))
    import export_fx
    return export_fx


def export_fx(model, path, seq, batch=1):
    """The decoder as a torch.fx graph with the sequence axis symbolic (named `seq`)."""
    _export_fx().export(model, (torch.zeros(batch, seq, dtype=torch.int64),), path, {0: {1: "seq"}})


def _named_caches(cached, layers):
    """CachedDecoder with one parameter per cache (past_<layer>_key, past_<layer>_value) in place
    of *past, which torch.fx cannot trace."""
    names = ", ".join(f"past_{i}_{w}" for i in range(layers) for w in ("key", "value"))
    scope = {"CachedDecoder": CachedDecoder}
    exec(f"def forward(self, ids, positions, {names}):\n"
         f"    return CachedDecoder.forward(self, ids, positions, {names})\n", scope)
    return type("CachedDecoder", (CachedDecoder,), {"forward": scope["forward"]})(cached.decoder)


def export_cached_fx(model, path, seq=3, past=2):
    """CachedDecoder(model) as a torch.fx graph: `seq` and `past` symbolic, inputs ids, positions,
    past_<layer>_key / _value, outputs the logits and each layer's grown keys and values."""
    cfg = model.cfg
    ids = torch.zeros(1, seq, dtype=torch.int64)
    positions = torch.arange(past, past + seq)[None]
    cache = [torch.zeros(1, cfg.kv_heads, past, cfg.dim // cfg.heads) for _ in range(2 * cfg.layers)]
    axes = {0: {1: "seq"}, 1: {1: "seq"}}
    axes.update({2 + i: {2: "past"} for i in range(len(cache))})
    _export_fx().export(_named_caches(CachedDecoder(model), cfg.layers), (ids, positions, *cache), path, axes)


def fake_quantize(model, bits):
    """The model as `quantize-weights{bits=...}` compiles it: the weights it quantizes (every
    linear layer whose input width is a multiple of 32, and the embedding table, which the head
    shares) replaced by the values of their Q8_0 / Q4_0 codes, and the activations entering the
    linear layers and the head by their Q8_0 values (the kernel's integer products): the
    reference for a quantized executable."""
    import weight_formats

    def quantized(x):
        model.rounding_margin = min(model.rounding_margin, weight_formats.rounding_margin(x.numpy()))
        return torch.from_numpy(weight_formats.fake_quantize_activations(x.numpy()))

    model.rounding_margin = 0.5
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear) and m.in_features % weight_formats.BLOCK == 0:
                m.weight.copy_(torch.from_numpy(weight_formats.fake_quantize(m.weight.numpy(), bits)))
                m.register_forward_pre_hook(lambda module, args: (quantized(args[0]),))
        if model.cfg.dim % weight_formats.BLOCK == 0:
            model.embed.weight.copy_(torch.from_numpy(weight_formats.fake_quantize(model.embed.weight.numpy(), bits)))
            model.head_input = quantized
    return model


# Codes of a fake-quantized reference at least this far from a rounding tie, relative to the
# scaled value (weight_formats.rounding_margin): the compiled model's activations differ from
# PyTorch's by about 1e-7 of their size, and a tie closer than that (seen: 7.6e-6 codes, 1.9e-7
# relative) was decided one way on one CPU and the other way on another, moving q4 logits
# by 1e-2.
MIN_ROUNDING_MARGIN = 1e-6


def sample_ids(model, fake, seed, seq):
    """Seeded token ids [1, seq] (random over the vocabulary). With a fake-quantized model, the
    first draw whose every activation code stays MIN_ROUNDING_MARGIN from a tie, so that the
    reference's codes are the only correct ones."""
    for attempt in range(100):
        ids = torch.from_numpy(np.random.default_rng(seed + 1000 * attempt).integers(0, model.cfg.vocab, (1, seq)))
        if fake is None:
            return ids
        fake.rounding_margin = 0.5
        with torch.no_grad():
            fake(ids)
        if fake.rounding_margin >= MIN_ROUNDING_MARGIN:
            return ids
        print(f"seq {seq}: token ids {attempt} put an activation {fake.rounding_margin:.1e} from a rounding tie; drawing others",
              file=sys.stderr)
    raise SystemExit(f"no token ids of length {seq} keep every quantized activation {MIN_ROUNDING_MARGIN} from a rounding tie")


def greedy(model, prompt, new_tokens):
    """PyTorch's greedy continuation of `prompt` (a list of ids), without a cache."""
    ids = list(prompt)
    with torch.no_grad():
        for _ in range(new_tokens):
            logits = model(torch.tensor([ids]))
            ids.append(int(logits[0, -1].argmax()))
    return ids[len(prompt):]


def add_config_arguments(p):
    """The configuration's flags (the tools that build this model take the same ones)."""
    p.add_argument("--style", default="gpt", choices=["gpt", "llama"])
    p.add_argument("--vocab", type=int, default=256)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv_heads", type=int, default=0, help="0: as many as --heads")
    p.add_argument("--ffn", type=int, default=0, help="0: the style's default")
    p.add_argument("--context", type=int, default=128)


def config_from(a):
    """The Config of flags parsed after add_config_arguments."""
    return Config(a.style, a.vocab, a.dim, a.layers, a.heads, a.kv_heads or None, a.ffn or None, a.context)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_config_arguments(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seq", type=int, default=8, help="sequence length of the export's example")
    p.add_argument("--out", required=True, help="the ONNX (.onnx) or torch.fx (.fxpb) file (sequence axis dynamic)")
    p.add_argument("--cache", action="store_true",
                   help="export the form with a key/value cache (past_key_values inputs, present outputs)")
    p.add_argument("--greedy", help="write PyTorch's greedy continuation (--new_tokens) of the prompt --prompt here (.npy)")
    p.add_argument("--prompt", default="1,2,3", help="token ids of --greedy's prompt")
    p.add_argument("--new_tokens", type=int, default=20)
    p.add_argument("--samples", help="write seeded token ids DIR/ids.<seq>.npy and PyTorch's DIR/logits.<seq>.npy here")
    p.add_argument("--seqs", default="1,7,30", help="the sequence lengths of --samples")
    p.add_argument("--quantized_samples", choices=["q8", "q4"],
                   help="with --samples: also DIR/logits.<seq>.<q8|q4>.npy, the logits of the model fake-quantized as "
                        "quantize-weights compiles it (weights and the activations entering them)")
    a = p.parse_args()
    model = build(config_from(a), a.seed)
    fx = a.out.endswith(".fxpb")
    if a.cache:
        (export_cached_fx if fx else export_cached_onnx)(model, a.out)
    else:
        (export_fx if fx else export_onnx)(model, a.out, a.seq)
    if a.greedy:
        np.save(a.greedy, np.array(greedy(model, [int(t) for t in a.prompt.split(",")], a.new_tokens), np.int64))
    if a.samples:
        fake = fake_quantize(build(config_from(a), a.seed), 8 if a.quantized_samples == "q8" else 4) if a.quantized_samples else None
        for seq in (int(t) for t in a.seqs.split(",")):
            ids = sample_ids(model, fake, a.seed + seq, seq)
            np.save(f"{a.samples}/ids.{seq}.npy", ids.numpy())
            with torch.no_grad():
                np.save(f"{a.samples}/logits.{seq}.npy", model(ids).numpy())
                if fake is not None:
                    np.save(f"{a.samples}/logits.{seq}.{a.quantized_samples}.npy", fake(ids).numpy())

if __name__ == "__main__":
    main()
