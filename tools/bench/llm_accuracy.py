"""What weight quantization costs a trained language model: the reference decoder
(testdata/models/decoder/decoder.py, Llama style) trained on bytes of text a Debian system ships
(the licence texts in /usr/share/common-licenses), compiled in float and with --quantize q8 / q4,
and scored on held-out text against PyTorch's float logits: bits per byte, how often the
compiled model's most likely next byte is PyTorch's, and the largest logit error.

Random weights (the speed benchmark's) give near-flat logits whose argmax any rounding moves, so
their figures say little; a trained model's logits are what a user's would be.

    /usr/bin/python3 llm_accuracy.py --bin DIR --cache DIR [--steps 1500]

--bin holds frontend/import, passes/opt, codegen/build and vm/run (Bazel's runfiles); the trained
weights, the export and the executables stay in --cache for the next run.
"""
import argparse
import hashlib
import os
import subprocess
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "models", "decoder"))
import decoder  # noqa: E402

CORPUS = "/usr/share/common-licenses"
CONFIG = dict(style="llama", vocab=256, dim=64, layers=2, heads=4, kv_heads=2, ffn=192, context=128)
WINDOWS, WINDOW = 8, 128  # held-out windows scored at once: ids [8, 128]


def corpus():
    """The licence texts (each file once: the links name the same texts), in name order, as the
    first 90% of each (training) and the last 10% of each (held out), so both read alike."""
    names = sorted(n for n in os.listdir(CORPUS) if not os.path.islink(os.path.join(CORPUS, n)))
    if not names:
        raise SystemExit(f"llm_accuracy: no text in {CORPUS} (Debian's base-files ships it)")
    texts = [open(os.path.join(CORPUS, n), "rb").read() for n in names]
    cut = [len(t) * 9 // 10 for t in texts]
    train = b"".join(t[:c] for t, c in zip(texts, cut))
    held_out = b"".join(t[c:] for t, c in zip(texts, cut))
    return np.frombuffer(train, np.uint8), np.frombuffer(held_out, np.uint8)


def trained_model(cache, data, steps):
    cfg = decoder.Config(**CONFIG)
    key = hashlib.sha256(data.tobytes() + repr((CONFIG, steps)).encode()).hexdigest()[:16]
    path = os.path.join(cache, f"trained.{key}.pt")
    torch.manual_seed(0)
    model = decoder.Decoder(cfg)
    if os.path.exists(path):
        model.load_state_dict(torch.load(path))
    else:
        print(f"training the decoder for {steps} steps on {len(data)} bytes ...", file=sys.stderr)
        start = time.time()
        loss = decoder.train(model, data, steps, batch=32, seq=64, lr=1e-2)
        print(f"trained in {time.time() - start:.0f} s, last loss {loss / np.log(2):.2f} bits per byte", file=sys.stderr)
        torch.save(model.state_dict(), path + ".tmp")
        os.replace(path + ".tmp", path)
    return model.eval(), key


def compile_and_run(bin_dir, onnx_path, quantize, ids_path, out_path):
    stem = onnx_path[:-len(".onnx")] + "." + quantize
    tool = lambda name: os.path.join(bin_dir, name)  # noqa: E731
    subprocess.run([tool("frontend/import"), "--in", onnx_path, "--out", stem + ".irpb"], check=True)
    subprocess.run([tool("passes/opt"), "--in", stem + ".irpb", "--out", stem + ".opt.irpb",
                    "--quantize=" + ("none" if quantize == "f32" else quantize)], check=True)
    subprocess.run([tool("codegen/build"), "--in", stem + ".opt.irpb", "--out", stem + ".mlcx"], check=True)
    subprocess.run([tool("vm/run"), "--exe", stem + ".mlcx", "--inputs", ids_path, "--outputs", out_path], check=True,
                   stdout=subprocess.DEVNULL)
    return np.load(out_path)


def bits_per_byte(logits, ids):
    """Cross-entropy of each next byte, in bits."""
    z = logits[:, :-1].astype(np.float64)
    z -= z.max(-1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(-1, keepdims=True))
    target = ids[:, 1:]
    return float(-np.take_along_axis(log_p, target[..., None], -1).mean() / np.log(2))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True)
    p.add_argument("--cache", required=True)
    p.add_argument("--steps", type=int, default=1500)
    a = p.parse_args()
    os.makedirs(a.cache, exist_ok=True)
    torch.set_num_threads(os.cpu_count() or 1)
    train, held_out = corpus()
    model, key = trained_model(a.cache, train, a.steps)
    starts = np.linspace(0, len(held_out) - WINDOW, WINDOWS).astype(np.int64)
    ids = np.stack([held_out[s:s + WINDOW] for s in starts]).astype(np.int64)
    ids_path = os.path.join(a.cache, "heldout.ids.npy")
    np.save(ids_path, ids)
    with torch.no_grad():
        reference = model(torch.from_numpy(ids)).numpy()
    onnx_path = os.path.join(a.cache, f"trained.{key}.onnx")
    if not os.path.exists(onnx_path):
        decoder.export_onnx(model, onnx_path + ".tmp.onnx", WINDOW, batch=WINDOWS)
        os.replace(onnx_path + ".tmp.onnx", onnx_path)
    top = reference.argmax(-1)
    print(f"decoder {CONFIG}, trained on {len(train)} bytes of {CORPUS}; {WINDOWS} held-out windows of {WINDOW} bytes")
    print()
    print("| weights | bits per byte | top-1 = PyTorch float | max logit error / max logit | rms error / rms logit |")
    print("|---|---|---|---|---|")

    def row(name, logits):
        error = logits - reference
        print(f"| {name} | {bits_per_byte(logits, ids):.3f} | {(logits.argmax(-1) == top).mean():.4f} | "
              f"{np.abs(error).max() / np.abs(reference).max():.2e} | "
              f"{np.sqrt((error ** 2).mean() / (reference ** 2).mean()):.2e} |")

    row("PyTorch float", reference)
    for quantize in ("f32", "q8", "q4"):
        if quantize != "f32":
            # The same model fake-quantized as quantize-weights compiles it (Q8_0 / Q4_0 weights,
            # Q8_0 activations into them): what the format costs, apart from our kernels.
            twin, _ = trained_model(a.cache, train, a.steps)
            with torch.no_grad():
                row(f"PyTorch {quantize} (fake-quantized)",
                    decoder.fake_quantize(twin, 8 if quantize == "q8" else 4)(torch.from_numpy(ids)).numpy())
        row(f"ours {quantize}",
            compile_and_run(a.bin, onnx_path, quantize, ids_path, os.path.join(a.cache, f"heldout.{quantize}.npy")))


if __name__ == "__main__":
    main()
