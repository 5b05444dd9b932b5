"""Compiled models against PyTorch eager, in one run, on the same weights.

    ./bazelw run //tools:bench_models [-- --threads 2 --runs 20 --models resnet18]

For each example of frontend/torch/export_fx.py (torchvision's ResNet-18 and MobileNetV2 at
batch 1, 224x224, and nn.TransformerEncoderLayer(256, 4 heads) on 1x128x256; seeded weights):
exports it through FX, compiles it with the pipeline's default passes (our own kernels) and,
with --compare-blas, also with the `blas` pipeline (convolutions, dense and matmul through
OpenBLAS); times
`run --bench`, times the module under torch.no_grad() with the same thread count, checks the
outputs agree and prints median latencies and the ratio. Nothing is asserted: the figures go
into docs/performance.md.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from torch_threads import set_threads

DEFAULT = "default"
BLAS = "blas"


def torch_median_ms(model, x, runs, warmup):
    with torch.no_grad():
        for _ in range(warmup):
            model(x)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exporter", required=True, help="frontend/torch/export_fx.py")
    for stage in ("import", "opt", "build", "run"):
        parser.add_argument("--" + stage, required=True)
    parser.add_argument("--models", default="resnet18,mobilenet_v2,encoder")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--compare-blas", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.exporter)))
    import export_fx  # noqa: E402

    set_threads(args.threads)
    env = dict(os.environ, MLC_NUM_THREADS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads))
    pipelines = [("default", DEFAULT)] + ([("blas", BLAS)] if args.compare_blas else [])
    print(f"threads: {args.threads} (ours, OpenBLAS and PyTorch {torch.__version__}); {args.runs} timed runs; "
          "median latency in ms")
    print(f"{'model':<14} {'passes':<14} {'ours':>9} {'pytorch':>9} {'pytorch/ours':>13}  max|diff|/max|ref|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            torch.manual_seed(0)
            cls, shape = export_fx.EXAMPLES[name]
            model = cls().eval()
            export_fx.randomize_batch_norms(model)
            x = torch.rand(*shape)
            fxpb, xnpy = os.path.join(tmp, name + ".fxpb"), os.path.join(tmp, name + ".x.npy")
            export_fx.export(model, (x,), fxpb)
            np.save(xnpy, x.numpy())
            with torch.no_grad():
                expected = model(x).numpy()
            t_torch = torch_median_ms(model, x, args.runs, 3)
            irpb = os.path.join(tmp, name + ".irpb")
            subprocess.run([args.__dict__["import"], "--in", fxpb, "--out", irpb], check=True)
            for label, passes in pipelines:
                opt, exe, out = (os.path.join(tmp, f"{name}.{p}") for p in ("opt.irpb", "mlcx", "out.npy"))
                subprocess.run([args.opt, "--in", irpb, "--out", opt, "--passes", passes], check=True)
                subprocess.run([args.build, "--in", opt, "--out", exe], check=True)
                runs = args.runs if label == "dispatch-blas" else max(2, args.runs // 10)
                res = subprocess.run([args.run, "--exe", exe, "--inputs", xnpy, "--outputs", out, "--bench", str(runs),
                                      "--warmup", "2"], check=True, capture_output=True, text=True, env=env)
                ours = float(re.search(r"median ([\d.]+) us", res.stdout).group(1)) / 1e3
                err = float(np.abs(np.load(out) - expected).max() / np.abs(expected).max())
                print(f"{name:<14} {label:<14} {ours:>9.2f} {t_torch:>9.2f} {t_torch / ours:>12.2f}x  {err:.1e}")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
