"""Writes the reference decoder (testdata/models/decoder/decoder.py, Llama style) as a GGUF v3
file that llama.cpp loads: the same seeded weights in float32, or with --type q8_0 / q4_0 every
matrix whose rows are whole blocks of 32 in llama.cpp's Q8_0 / Q4_0 (weight_formats.py, the
formats the compiler's quantize-weights uses, scales stored as fp16), the `llama` architecture's
metadata, and a plain `llama` (SentencePiece-style) vocabulary of placeholder pieces, enough to
evaluate token ids. For tools/bench/bench_llm.sh.

    /usr/bin/python3 write_gguf.py --out model.gguf [--type f32|q8_0|q4_0] --style llama --dim 1024 --layers 16 ...
    /usr/bin/python3 write_gguf.py --check model.gguf [--type ...] --style llama ...   # reads it back

GGUF v3: "GGUF", version, tensor count, key/value count; the key/values; per tensor its name,
dimensions (ggml lists the fastest-varying first: a PyTorch [out, in] weight is [in, out]), type
and offset; then the data, each tensor aligned to 32 bytes. llama.cpp rotates query/key pairs
that are adjacent (x0, x1), where the reference model (as Hugging Face's Llama) rotates the two
halves of a head; the query and key rows are permuted to match, as llama.cpp's own converter does.
"""
import argparse
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "models", "decoder"))
import decoder  # noqa: E402
import weight_formats  # noqa: E402

ALIGNMENT = 32
UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64 = 4, 5, 6, 7, 8, 9, 10
# ggml tensor types and llama.cpp's file types (general.file_type) of each --type.
GGML_F32, GGML_Q4_0, GGML_Q8_0 = 0, 2, 8
TYPES = {"f32": (GGML_F32, 0, None), "q8_0": (GGML_Q8_0, 7, 8), "q4_0": (GGML_Q4_0, 2, 4)}


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_value(kind, value):
    if kind == STRING:
        return gguf_string(value)
    if kind == ARRAY:
        elem, items = value
        out = struct.pack("<IQ", elem, len(items))
        return out + b"".join(gguf_value(elem, v) for v in items)
    return struct.pack({UINT32: "<I", INT32: "<i", FLOAT32: "<f", BOOL: "<?", UINT64: "<Q"}[kind], value)


def halves_to_pairs(w, heads):
    """Rows of a query/key projection, per head [first half; second half] -> interleaved pairs."""
    out, dim = w.shape
    return w.reshape(heads, 2, out // heads // 2, dim).swapaxes(1, 2).reshape(out, dim)


def tensors_of(model):
    cfg = model.cfg
    sd = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    yield "token_embd.weight", sd["embed.weight"]
    for i in range(cfg.layers):
        p = f"blocks.{i}."
        yield f"blk.{i}.attn_norm.weight", sd[p + "norm1.weight"]
        yield f"blk.{i}.attn_q.weight", halves_to_pairs(sd[p + "attn.q.weight"], cfg.heads)
        yield f"blk.{i}.attn_k.weight", halves_to_pairs(sd[p + "attn.k.weight"], cfg.kv_heads)
        yield f"blk.{i}.attn_v.weight", sd[p + "attn.v.weight"]
        yield f"blk.{i}.attn_output.weight", sd[p + "attn.o.weight"]
        yield f"blk.{i}.ffn_norm.weight", sd[p + "norm2.weight"]
        yield f"blk.{i}.ffn_gate.weight", sd[p + "ffn.gate.weight"]
        yield f"blk.{i}.ffn_up.weight", sd[p + "ffn.up.weight"]
        yield f"blk.{i}.ffn_down.weight", sd[p + "ffn.down.weight"]
    yield "output_norm.weight", sd["norm.weight"]
    # No output.weight: llama.cpp then uses token_embd (the head is tied, as in the model).


def encode(t, kind):
    """(ggml type, bytes) of tensor t stored as --type `kind`: matrices whose rows are whole blocks
    of 32 quantized (per block: the fp16 scale, then 32 int8 codes, or 16 bytes whose low nibbles
    hold codes 0..15 and high nibbles codes 16..31), the rest float32."""
    ggml_type, _, bits = TYPES[kind]
    if bits is None or t.ndim != 2 or t.shape[-1] % weight_formats.BLOCK:
        return GGML_F32, np.ascontiguousarray(t, np.float32).tobytes()
    d, codes = weight_formats.quantize(t, bits)
    blocks = codes.reshape(*d.shape, weight_formats.BLOCK).view(np.uint8)
    if bits == 4:
        blocks = blocks[..., :16] | (blocks[..., 16:] << 4)
    scale = d[..., None].view(np.uint8)
    return ggml_type, np.concatenate([scale, blocks], axis=-1).tobytes()


def decode(ggml_type, shape, data):
    """The float32 values of a tensor as encode() stored it (shape: PyTorch's order)."""
    if ggml_type == GGML_F32:
        return np.frombuffer(data, np.float32).reshape(shape)
    block = 34 if ggml_type == GGML_Q8_0 else 18
    raw = np.frombuffer(data, np.uint8).reshape(*shape[:-1], shape[-1] // weight_formats.BLOCK, block)
    d = raw[..., :2].copy().view(np.float16)[..., 0]
    if ggml_type == GGML_Q8_0:
        codes = raw[..., 2:].copy().view(np.int8)
        return weight_formats.dequantize(d, codes.reshape(shape), 8)
    packed = raw[..., 2:]
    codes = np.concatenate([packed & 0xF, packed >> 4], axis=-1)
    return weight_formats.dequantize(d, codes.reshape(shape), 4)


def read(path):
    """{name: float32 values} of a GGUF file this script wrote, and its key/values (a reader of
    the subset of GGUF v3 that write() produces)."""
    with open(path, "rb") as f:
        buf = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from(fmt, buf, pos)
        pos += struct.calcsize(fmt)
        return v if len(v) > 1 else v[0]

    def string():
        nonlocal pos
        n = take("<Q")
        pos += n
        return buf[pos - n:pos].decode()

    def value(kind):
        if kind == STRING:
            return string()
        if kind == ARRAY:
            elem, n = take("<IQ")
            return [value(elem) for _ in range(n)]
        return take({UINT32: "<I", INT32: "<i", FLOAT32: "<f", BOOL: "<?", UINT64: "<Q"}[kind])

    magic, version, n_tensors, n_kv = buf[:4], *struct.unpack_from("<IQQ", buf, 4)
    assert magic == b"GGUF" and version == 3, (magic, version)
    pos = 24
    kv = {}
    for _ in range(n_kv):
        key = string()
        kv[key] = value(take("<I"))
    infos = []
    for _ in range(n_tensors):
        name = string()
        ndim = take("<I")
        dims = [take("<Q") for _ in range(ndim)]
        ggml_type, offset = take("<IQ")
        infos.append((name, tuple(reversed(dims)), ggml_type, offset))
    base = (pos + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
    sizes = {GGML_F32: lambda n: 4 * n, GGML_Q8_0: lambda n: n // 32 * 34, GGML_Q4_0: lambda n: n // 32 * 18}
    tensors = {}
    for name, shape, ggml_type, offset in infos:
        n = int(np.prod(shape))
        tensors[name] = decode(ggml_type, shape, buf[base + offset:base + offset + sizes[ggml_type](n)])
    return tensors, kv


def write(model, path, kind="f32"):
    cfg = model.cfg
    # Pieces: <unk> <s> </s>, the 256 byte pieces llama vocabularies carry, then placeholders.
    pieces = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    pieces += [f"t{i}" for i in range(len(pieces), cfg.vocab)]
    types = [2, 3, 3] + [6] * 256 + [1] * (cfg.vocab - 259)  # unknown, control, byte, normal
    kv = [
        ("general.architecture", STRING, "llama"),
        ("general.name", STRING, "mlc reference decoder"),
        ("general.alignment", UINT32, ALIGNMENT),
        ("general.file_type", UINT32, TYPES[kind][1]),
        ("llama.context_length", UINT32, cfg.context),
        ("llama.embedding_length", UINT32, cfg.dim),
        ("llama.block_count", UINT32, cfg.layers),
        ("llama.feed_forward_length", UINT32, cfg.ffn),
        ("llama.attention.head_count", UINT32, cfg.heads),
        ("llama.attention.head_count_kv", UINT32, cfg.kv_heads),
        ("llama.rope.dimension_count", UINT32, cfg.dim // cfg.heads),
        ("llama.rope.freq_base", FLOAT32, 10000.0),
        ("llama.attention.layer_norm_rms_epsilon", FLOAT32, cfg.eps),
        ("tokenizer.ggml.model", STRING, "llama"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, pieces)),
        ("tokenizer.ggml.scores", ARRAY, (FLOAT32, [0.0] * cfg.vocab)),
        ("tokenizer.ggml.token_type", ARRAY, (INT32, types)),
        ("tokenizer.ggml.bos_token_id", UINT32, 1),
        ("tokenizer.ggml.eos_token_id", UINT32, 2),
        ("tokenizer.ggml.unknown_token_id", UINT32, 0),
        ("tokenizer.ggml.add_bos_token", BOOL, False),
    ]
    tensors = [(name, t, *encode(t, kind)) for name, t in tensors_of(model)]
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv))
    for key, value_kind, value in kv:
        head += gguf_string(key) + struct.pack("<I", value_kind) + gguf_value(value_kind, value)
    offset = 0
    for name, t, ggml_type, data in tensors:
        head += gguf_string(name) + struct.pack("<I", t.ndim) + struct.pack(f"<{t.ndim}Q", *reversed(t.shape))
        head += struct.pack("<IQ", ggml_type, offset)
        offset += (len(data) + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(head)
        f.write(b"\0" * (-len(head) % ALIGNMENT))
        for _, _, _, data in tensors:
            f.write(data)
            f.write(b"\0" * (-len(data) % ALIGNMENT))
    os.replace(tmp, path)


def check(model, path, kind):
    """Reads `path` back: every tensor equals what `kind` makes of the model's weights, exactly."""
    tensors, kv = read(path)
    assert kv["general.file_type"] == TYPES[kind][1], kv["general.file_type"]
    expected = dict(tensors_of(model))
    assert sorted(tensors) == sorted(expected), (sorted(tensors), sorted(expected))
    for name, t in expected.items():
        got = tensors[name]
        assert got.shape == t.shape, (name, got.shape, t.shape)
        bits = TYPES[kind][2]
        want = t if bits is None or t.ndim != 2 or t.shape[-1] % 32 else weight_formats.fake_quantize(t, bits)
        assert np.array_equal(got, want), (name, float(np.abs(got - want).max()))
    print(f"{path}: {len(tensors)} tensors read back as written ({kind})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", help="the GGUF file to write")
    p.add_argument("--check", help="a GGUF file to read back and compare with the model's weights")
    p.add_argument("--type", default="f32", choices=sorted(TYPES))
    decoder.add_config_arguments(p)
    a = p.parse_args()
    if a.style != "llama":
        p.error("llama.cpp's `llama` architecture is the Llama style: pass --style llama")
    if bool(a.out) == bool(a.check):
        p.error("give --out or --check")
    model = decoder.build(decoder.config_from(a))
    if a.out:
        write(model, a.out, a.type)
    else:
        check(model, a.check, a.type)


if __name__ == "__main__":
    main()
