"""llama.cpp's Q8_0 and Q4_0 weight formats in NumPy: the reference for the compiler's
quantize-weights pass (support/weight_quantization.h computes the same codes and fp16 scales)
and the encoder of write_gguf.py's quantized GGUF files. The kernel
(mlc.wq.matmul) also quantizes the activations it multiplies, as Q8_0 per block of 32:
fake_quantize_activations is that, rounded as the kernel rounds.

Blocks of 32 consecutive values along the last axis (a PyTorch [out, in] weight's `in`):
  Q8_0: d = max|w| / 127, code = round(w / d) (halves away from zero), value = code * d;
  Q4_0: d = m / -8 with m the block's value of largest magnitude, code = min(15, trunc(w / d + 8.5)),
        value = (code - 8) * d.
The codes come from d in float32; d is then stored as fp16, and values use the stored d.
"""
import numpy as np

BLOCK = 32


def _blocks(x):
    """x [..., K] float32 as [..., K / 32, 32]."""
    x = np.asarray(x, np.float32)
    return x.reshape(*x.shape[:-1], x.shape[-1] // BLOCK, BLOCK)


def _inverse(d):
    """1 / d in float32, 0 where d is 0 (an all-zero block)."""
    return np.where(d != 0, np.float32(1) / np.where(d != 0, d, np.float32(1)), np.float32(0)).astype(np.float32)


def quantize(w, bits):
    """w [..., K] float32 (K a multiple of 32) -> (d [..., K / 32] float16, codes [..., K] int8
    (Q8_0) or uint8 0..15 (Q4_0))."""
    blocks = _blocks(w)
    if bits == 8:
        d = np.abs(blocks).max(-1) / np.float32(127)
    else:
        at = np.abs(blocks).argmax(-1)[..., None]
        d = np.take_along_axis(blocks, at, -1)[..., 0] / np.float32(-8)
    d = d.astype(np.float32)
    x = blocks * _inverse(d)[..., None]
    if bits == 8:
        codes = (np.sign(x) * np.floor(np.abs(x) + np.float32(0.5))).astype(np.int8)
    else:
        codes = np.minimum(15, np.trunc(x + np.float32(8.5))).astype(np.uint8)
    return d.astype(np.float16), codes.reshape(np.shape(w))


def dequantize(d, codes, bits):
    """The values (d, codes) stand for, float32, shaped as the codes."""
    c = codes.astype(np.float32) - (0 if bits == 8 else 8)
    blocks = c.reshape(*c.shape[:-1], c.shape[-1] // BLOCK, BLOCK)
    return (blocks * d.astype(np.float32)[..., None]).reshape(codes.shape).astype(np.float32)


def fake_quantize(w, bits):
    """w with every block replaced by the values its codes stand for."""
    return dequantize(*quantize(w, bits), bits)


def _scaled_activations(x):
    """x [..., K] float32 per block of 32: the Q8_0 scales d [..., K / 32] and the values in code
    units y = x / d [..., K / 32, 32], both float32 (what the codes round)."""
    blocks = _blocks(x)
    d = (np.abs(blocks).max(-1) / np.float32(127)).astype(np.float32)
    return d, (blocks * _inverse(d)[..., None]).astype(np.float32)


def rounding_margin(x):
    """How far the activations x [..., K] lie from a rounding tie of their Q8_0 codes, relative to
    their size: the least | |y| - floor(|y|) - 0.5 | / max(|y|, 1) over the scaled values y. A
    value within float rounding of a tie may round either way in a compiled model whose
    arithmetic differs in the last bits (contracted FMAs, another summation order), and a flipped
    code moves the logits by far more than rounding."""
    y = np.abs(_scaled_activations(x)[1].astype(np.float64))
    return float((np.abs(y - np.floor(y) - 0.5) / np.maximum(y, 1)).min()) if y.size else 0.5


def fake_quantize_activations(x):
    """x [..., K] float32 with each block of 32 along the last axis replaced by its Q8_0 values,
    rounded as support/weight_quantization.cc QuantizeActivations rounds (y + copysign(0.5, y),
    truncated, in float32)."""
    d, y = _scaled_activations(x)
    q = (y + np.copysign(np.float32(0.5), y)).astype(np.int32).astype(np.float32)
    return (q * d[..., None]).reshape(np.shape(x)).astype(np.float32)
