"""Benchmark of perplexity against torchmetrics' ``Perplexity`` (``torchmetrics.functional.text.perplexity``).

Workloads (random logits, a quarter of the targets padding with ``ignore_index=-100``; every figure is checked
first: the two perplexities agree within the precision's rounding):

* **corpus**: float32 logits ``(8, 512, 32000)`` in batches of 2 sequences (a language model's evaluation loop),
  the statistics summed over the batches; and the same in float64 on a smaller vocabulary;
* **latency**: batches of 1, 8, 64 and 512 sequences of 64 tokens over a vocabulary of 4,096, fresh logits for
  every call, per sequence;
* **log-probabilities**: 10,000 sequences of 200 per-token log-probabilities as Python lists (what inference
  servers return), which torchmetrics cannot take: nlgmetrics alone, with the throughput;
* **cold**: a fresh process that imports the library and scores one batch.

Timings alternate between the implementations (best of ``--repeat`` rounds), so background load hits them alike.
Run: ``python bench/perplexity.py`` (``--quick``: smaller sizes, fewer rounds).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torchmetrics.functional.text.perplexity import _perplexity_compute, _perplexity_update

import nlgmetrics as nm
from _common import fmt_time, interleaved, machine, table

IGNORE = -100


def make(b: int, t: int, v: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    logits = (torch.randn(b, t, v, generator=g) * 2).to(dtype)
    target = torch.randint(v, (b, t), generator=g)
    target[torch.rand(b, t, generator=g) < 0.25] = IGNORE
    return logits, target


def ours_loop(batches: list[tuple[torch.Tensor, torch.Tensor]]) -> float:
    m = nm.Perplexity(ignore_index=IGNORE)
    for x, t in batches:
        m.update(x, t)
    return float(m.compute().score)


def torchmetrics_loop(batches: list[tuple[torch.Tensor, torch.Tensor]]) -> float:
    # torchmetrics.text.Perplexity's update and compute, with its state in the batches' dtype
    total, count = None, None
    for x, t in batches:
        s, c = _perplexity_update(x, t, IGNORE)
        total = s if total is None else total + s
        count = c if count is None else count + c
    return float(_perplexity_compute(total, count))


def corpus_rows(label: str, batches: list, repeat: int, rel: float) -> tuple[list[tuple[str, ...]], float]:
    best, out = interleaved({"ours": lambda: ours_loop(batches), "tm": lambda: torchmetrics_loop(batches)}, repeat)
    assert abs(out["ours"] - out["tm"]) <= rel * abs(out["tm"]), (label, out)
    ratio = best["tm"] / best["ours"]
    rows = [
        (label, "nlgmetrics.Perplexity", fmt_time(best["ours"]), "1.00×"),
        (
            "",
            "torchmetrics Perplexity",
            fmt_time(best["tm"]),
            f"{ratio:.2f}× slower" if ratio >= 1 else f"{1 / ratio:.2f}× faster",
        ),
    ]
    return rows, ratio


def latency_rows(sizes: list[int], repeat: int) -> tuple[list[tuple[str, ...]], dict[int, float]]:
    rows, ratios = [], {}
    for size in sizes:
        data = [make(size, 64, 4096, torch.float32, seed=1000 * size + i) for i in range(2 * repeat)]
        it_ours, it_tm = iter(data[::2]), iter(data[1::2])

        def ours(it=it_ours) -> float:
            x, t = next(it)
            return nm.perplexity(x, t, ignore_index=IGNORE).score

        def tm(it=it_tm) -> float:
            x, t = next(it)
            s, c = _perplexity_update(x, t, IGNORE)
            return float(_perplexity_compute(s, c))

        best, _ = interleaved({"ours": ours, "tm": tm}, repeat)
        ratios[size] = best["tm"] / best["ours"]
        rows.append(
            (
                f"latency, batch of {size} × 64 tokens",
                f"{fmt_time(best['ours'] / size)} / sequence",
                f"{fmt_time(best['tm'] / size)} / sequence",
                f"{ratios[size]:.2f}×",
            )
        )
    return rows, ratios


_COLD = """
import time
t = time.perf_counter()
import torch
{imports}
g = torch.Generator().manual_seed(0)
x = torch.randn(2, 16, 1000, generator=g)
y = torch.randint(1000, (2, 16), generator=g)
{call}
print(time.perf_counter() - t)
"""


def cold(repeat: int) -> tuple[float, float]:
    codes = {
        "ours": _COLD.format(imports="import nlgmetrics as nm", call="nm.perplexity(x, y).score"),
        "tm": _COLD.format(imports="from torchmetrics.text import Perplexity", call="float(Perplexity()(x, y))"),
    }
    best = {k: float("inf") for k in codes}
    for _ in range(repeat):
        for name, code in codes.items():
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            best[name] = min(best[name], float(out.stdout.split()[-1]))
    return best["ours"], best["tm"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer rounds")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    print(f"machine: {machine()}, torch {torch.__version__} ({torch.get_num_threads()} threads)")
    figures: dict[str, float] = {}
    rows: list[tuple[str, ...]] = []
    n_batches = 2 if args.quick else 4
    vocab = 8000 if args.quick else 32000
    f32 = [make(2, 512, vocab, torch.float32, seed=i) for i in range(n_batches)]
    r, figures["float32_ratio"] = corpus_rows(f"float32 logits, {2 * n_batches}×512×{vocab:,}", f32, repeat, 1e-5)
    rows += r
    del f32
    f64 = [make(2, 512, 4000, torch.float64, seed=10 + i) for i in range(n_batches)]
    r, figures["float64_ratio"] = corpus_rows(f"float64 logits, {2 * n_batches}×512×4,000", f64, repeat, 1e-12)
    rows += r
    del f64
    print(table(rows, ("workload", "implementation", "time", "ratio")))
    print()
    lat, ratios = latency_rows([1, 8, 64] if args.quick else [1, 8, 64, 512], 3 if args.quick else 7)
    figures.update({f"latency_{k}_ratio": v for k, v in ratios.items()})
    t_ours, t_tm = cold(1 if args.quick else 3)
    figures.update(cold_ours_s=t_ours, cold_torchmetrics_s=t_tm)
    lat.append(("cold: import + one batch", fmt_time(t_ours), fmt_time(t_tm), f"{t_tm / t_ours:.2f}×"))
    print(table(lat, ("workload", "nlgmetrics", "torchmetrics", "ratio")))
    rng = np.random.default_rng(0)
    n_seq = 2000 if args.quick else 10000
    logprobs = [(-rng.exponential(2.0, 200)).tolist() for _ in range(n_seq)]
    t0 = time.perf_counter()
    nm.perplexity(logprobs)
    t = time.perf_counter() - t0
    figures["logprobs_tokens_per_s"] = n_seq * 200 / t
    print(
        f"\nper-token log-probabilities, {n_seq:,} sequences × 200 (Python lists): {fmt_time(t)}, "
        f"{n_seq * 200 / t / 1e6:.1f} M tokens/s (torchmetrics takes logits only)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
