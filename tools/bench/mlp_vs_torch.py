"""Compiled MLPs against PyTorch eager, in one run, on the same weights and inputs.

    ./bazelw run //tools:bench_mlp            (runs with Debian's /usr/bin/python3)

For the bundled digits MLP (64-128-10, trained weights) and the seeds' 784-128-10 MLP (seeded
random weights), at batch 1 and 64: writes the model as TVMScript, runs the parse and build
stages, times `run --bench`, times torch.nn.Sequential(Linear, ReLU, Linear) under no_grad on
the same threads count, checks the outputs agree, and prints median latencies and the ratio.
Nothing is asserted: the figures go into the notes and docs/performance.md.
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

MODULE = '''@I.ir_module
class MLP:
    @T.prim_func
    def relu0(X: T.Buffer(({n}, {h}), "float32"), Y: T.Buffer(({n}, {h}), "float32")):
        for i, j in T.grid({n}, {h}):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(X: T.Buffer(({n}, {k}), "float32"), W: T.Buffer(({h}, {k}), "float32"),
                B: T.Buffer(({h},), "float32"), Z: T.Buffer(({n}, {h}), "float32")):
        Y = T.alloc_buffer(({n}, {h}), "float32")
        for i, j, k in T.grid({n}, {h}, {k}):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid({n}, {h}):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func
    def linear1(X: T.Buffer(({n}, {h}), "float32"), W: T.Buffer(({m}, {h}), "float32"),
                B: T.Buffer(({m},), "float32"), Z: T.Buffer(({n}, {m}), "float32")):
        Y = T.alloc_buffer(({n}, {m}), "float32")
        for i, j, k in T.grid({n}, {m}, {h}):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid({n}, {m}):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor(({n}, {k}), "float32"), w0: R.Tensor(({h}, {k}), "float32"),
             b0: R.Tensor(({h},), "float32"), w1: R.Tensor(({m}, {h}), "float32"),
             b1: R.Tensor(({m},), "float32")):
        with R.dataflow():
            lv0 = R.call_tir(linear0, (x, w0, b0), out_sinfo=R.Tensor(({n}, {h}), "float32"))
            lv1 = R.call_tir(relu0, (lv0,), out_sinfo=R.Tensor(({n}, {h}), "float32"))
            out = R.call_tir(linear1, (lv1, w1, b1), out_sinfo=R.Tensor(({n}, {m}), "float32"))
            R.output(out)
        return out
'''


def torch_median_us(model, x, runs, warmup):
    with torch.no_grad():
        for _ in range(warmup):
            model(x)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - start) * 1e6)
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.9)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--parse", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--digits", required=True, help="params.npz of the digits MLP")
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    set_threads(args.threads)
    env = dict(os.environ, MLC_NUM_THREADS=str(args.threads))
    env.pop("OPENBLAS_CORETYPE", None)

    digits = np.load(args.digits)
    rng = np.random.default_rng(0)
    configs = [
        ("digits 64-128-10", {k: digits[k] for k in ("w0", "b0", "w1", "b1")}),
        ("seeds 784-128-10", {
            "w0": (rng.standard_normal((128, 784)) * 0.05).astype(np.float32),
            "b0": rng.standard_normal(128).astype(np.float32),
            "w1": (rng.standard_normal((10, 128)) * 0.1).astype(np.float32),
            "b1": rng.standard_normal(10).astype(np.float32)}),
    ]
    print(f"threads: {args.threads} (ours and PyTorch {torch.__version__}); {args.runs} timed runs each; median / p90 in us")
    print(f"{'model':<18} {'batch':>5} {'ours':>16} {'pytorch':>16} {'pytorch/ours':>13}  max|diff|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, w in configs:
            for batch in (1, 64):
                h, k = w["w0"].shape
                m = w["w1"].shape[0]
                x = rng.random((batch, k), dtype=np.float32)
                paths = {}
                for key, value in dict(x=x, **w).items():
                    paths[key] = os.path.join(tmp, f"{key}.npy")
                    np.save(paths[key], value)
                src = os.path.join(tmp, "mlp.py")
                with open(src, "w") as f:
                    f.write(MODULE.format(n=batch, k=k, h=h, m=m))
                irpb, exe, out = (os.path.join(tmp, p) for p in ("mlp.irpb", "mlp.mlcx", "out.npy"))
                subprocess.run([args.parse, "--in", src, "--out", irpb], check=True)
                subprocess.run([args.build, "--in", irpb, "--out", exe], check=True)
                inputs = ",".join(paths[key] for key in ("x", "w0", "b0", "w1", "b1"))
                res = subprocess.run([args.run, "--exe", exe, "--inputs", inputs, "--outputs", out,
                                      "--bench", str(args.runs), "--warmup", "100"],
                                     check=True, capture_output=True, text=True, env=env)
                found = re.search(r"median ([\d.]+) us, p90 ([\d.]+) us", res.stdout)
                ours, ours_p90 = float(found.group(1)), float(found.group(2))
                model = torch.nn.Sequential(torch.nn.Linear(k, h), torch.nn.ReLU(), torch.nn.Linear(h, m))
                with torch.no_grad():
                    model[0].weight.copy_(torch.from_numpy(w["w0"]))
                    model[0].bias.copy_(torch.from_numpy(w["b0"]))
                    model[2].weight.copy_(torch.from_numpy(w["w1"]))
                    model[2].bias.copy_(torch.from_numpy(w["b1"]))
                    expected = model(torch.from_numpy(x)).numpy()
                diff = float(np.abs(np.load(out) - expected).max())
                t_med, t_p90 = torch_median_us(model, torch.from_numpy(x), args.runs, 100)
                print(f"{name:<18} {batch:>5} {ours:>7.1f} / {ours_p90:<6.1f} {t_med:>7.1f} / {t_p90:<6.1f}"
                      f" {t_med / ours:>12.2f}x  {diff:.1e}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
