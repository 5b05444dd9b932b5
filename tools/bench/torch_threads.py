"""Thread counts for PyTorch eager in the benchmarks, set after `import torch`.

torch.set_num_threads sets PyTorch's own intra-op pool, but Debian's PyTorch runs its matrix
products in OpenBLAS (pthreads build), which keeps one thread per core whatever PyTorch was told:
"1 thread" timed the TransformerEncoderLayer on two cores (2.6 ms; 4.5 ms on one). This sets
both, so PyTorch's column means the same thread count as ours and ONNX Runtime's.
"""
import ctypes

import torch


def set_threads(threads):
    torch.set_num_threads(threads)
    with open("/proc/self/maps") as maps:
        libraries = {line.split()[-1] for line in maps if "libopenblas" in line}
    for path in sorted(libraries):
        ctypes.CDLL(path).openblas_set_num_threads(threads)
