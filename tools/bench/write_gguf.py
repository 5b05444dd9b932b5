"""Writes the reference decoder (testdata/models/decoder/decoder.py, Llama style) as a GGUF v3
file that llama.cpp loads: the same seeded weights in float32, the `llama` architecture's
metadata, and a plain `llama` (SentencePiece-style) vocabulary of placeholder pieces, enough to
evaluate token ids. For tools/bench/bench_llm.sh.

    /usr/bin/python3 write_gguf.py --out model.gguf --style llama --dim 1024 --layers 16 ...

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

ALIGNMENT = 32
UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64 = 4, 5, 6, 7, 8, 9, 10
GGML_F32 = 0


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


def write(model, path):
    cfg = model.cfg
    # Pieces: <unk> <s> </s>, the 256 byte pieces llama vocabularies carry, then placeholders.
    pieces = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    pieces += [f"t{i}" for i in range(len(pieces), cfg.vocab)]
    types = [2, 3, 3] + [6] * 256 + [1] * (cfg.vocab - 259)  # unknown, control, byte, normal
    kv = [
        ("general.architecture", STRING, "llama"),
        ("general.name", STRING, "mlc reference decoder"),
        ("general.alignment", UINT32, ALIGNMENT),
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
    tensors = list(tensors_of(model))
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv))
    for key, kind, value in kv:
        head += gguf_string(key) + struct.pack("<I", kind) + gguf_value(kind, value)
    offset = 0
    for name, t in tensors:
        head += gguf_string(name) + struct.pack("<I", t.ndim) + struct.pack(f"<{t.ndim}Q", *reversed(t.shape))
        head += struct.pack("<IQ", GGML_F32, offset)
        offset += (t.nbytes + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(head)
        f.write(b"\0" * (-len(head) % ALIGNMENT))
        for _, t in tensors:
            f.write(np.ascontiguousarray(t).tobytes())
            f.write(b"\0" * (-t.nbytes % ALIGNMENT))
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    decoder.add_config_arguments(p)
    a = p.parse_args()
    if a.style != "llama":
        p.error("llama.cpp's `llama` architecture is the Llama style: pass --style llama")
    write(decoder.build(decoder.config_from(a)), a.out)


if __name__ == "__main__":
    main()
