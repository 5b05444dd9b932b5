"""PyTorch eager's prefill and decode speed on the reference decoder with its key/value cache
(testdata/models/decoder/decoder.py, configured by its flags), for tools/bench/bench_llm.sh.
The prompt is the same seeded ids llm_bench uses only in length; speed does not depend on them."""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "models", "decoder"))
import decoder  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--prompt_len", type=int, default=128)
    p.add_argument("--new_tokens", type=int, default=64)
    decoder.add_config_arguments(p)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    cfg = decoder.config_from(a)
    model = decoder.CachedDecoder(decoder.build(cfg))
    head_dim = cfg.dim // cfg.heads
    ids = torch.randint(0, 256, (1, a.prompt_len), generator=torch.Generator().manual_seed(1))
    best_prefill = best_decode = float("inf")
    with torch.no_grad():
        for _ in range(2):
            past = [torch.zeros(1, cfg.kv_heads, 0, head_dim) for _ in range(2 * cfg.layers)]
            start = time.perf_counter()
            out = model(ids, torch.arange(a.prompt_len)[None], *past)
            prefill = time.perf_counter() - start
            token = out[0][0, -1].argmax().view(1, 1)
            past = out[1:]
            start = time.perf_counter()
            for n in range(a.new_tokens):
                out = model(token, torch.tensor([[a.prompt_len + n]]), *past)
                token, past = out[0][0, -1].argmax().view(1, 1), out[1:]
            decode = time.perf_counter() - start
            best_prefill, best_decode = min(best_prefill, prefill), min(best_decode, decode)
    print(f"PyTorch {torch.__version__} eager, {a.threads} thread(s): prefill {a.prompt_len / best_prefill:.1f} tokens/s, "
          f"decode {a.new_tokens / best_decode:.1f} tokens/s")


if __name__ == "__main__":
    main()
