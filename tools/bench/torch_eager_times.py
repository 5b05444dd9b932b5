"""PyTorch eager latency of the benchmark models, for model_bench's PyTorch column.

    /usr/bin/python3 tools/bench/torch_eager_times.py OUT.json [--threads N] [--runs N] [--models a,b]

The models are export_bench_models.py's, built the same way (the same seeded weights the ONNX
files hold); each runs under torch.no_grad() with `threads` intra-op threads, after a warm-up,
and the median of `runs` calls (at least 20) is written as {"model": milliseconds}. Models with
no eager twin here (the dynamic-shape and int8 exports) are left out. Other arguments (model_bench's)
are ignored, so the wrapper can pass its own on.
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_bench_models import DEFAULT_SET, MODELS, build, expand  # noqa: E402  (the models and their input shapes)
from models_vs_torch import torch_median_ms  # noqa: E402  (the same timing as bench_models)
from torch_threads import set_threads  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--models", default=",".join(DEFAULT_SET))
    args, _ = parser.parse_known_args()
    set_threads(args.threads)
    times = {}
    for name in expand(args.models).split(","):
        if name not in MODELS:
            continue
        # As export_bench_models builds it: the same seed, the same batch-norm statistics.
        model, shape = build(name)
        times[name] = torch_median_ms(model, torch.rand(*shape), max(args.runs, 20), warmup=3)
    with open(args.out, "w") as f:
        json.dump(times, f)


if __name__ == "__main__":
    main()
