"""Benchmark of perplexity against torchmetrics' ``Perplexity`` (``torchmetrics.functional.text.perplexity``).

Workloads (random logits, a quarter of the targets padding with ``ignore_index=-100``; every figure is checked
first: the two perplexities agree within the precision's rounding):

* **corpus**: float32 logits ``(8, 512, 32000)`` in batches of 2 sequences (a language model's evaluation loop),
  the statistics summed over the batches; and the same in float64 on a smaller vocabulary;
* **latency**: batches of 1, 8, 64 and 512 sequences of 64 tokens over a vocabulary of 4,096, fresh logits for
  every call, per sequence: the functions (``nlgmetrics.perplexity`` against torchmetrics' update and compute),
  and at 1 and 8 sequences the torchmetrics classes' ``update()`` (``nlgmetrics.torch.Perplexity`` against
  ``torchmetrics.text.Perplexity``), which is what an evaluation loop calls;
* **log-probabilities**: 10,000 sequences of 200 per-token log-probabilities as Python lists (what inference
  servers return), which torchmetrics cannot take: nlgmetrics alone, with the throughput;
* **cold**: a fresh process that imports the library and scores one batch;
* **warm** (labelled, not a headline): the same batch of 8 sequences scored again and again;
* **accuracy** of bfloat16 logits against the float64 truth (every token's ``log_softmax`` in float64 from the
  same bfloat16 values, summed exactly), on three batches of logits shaped like a language model's: torchmetrics
  (softmax, log and sum in bfloat16), ours with ``precision="auto"`` (softmax in float32, sums in float64),
  ``"logits"`` (softmax in bfloat16 as torchmetrics, logs and sums in float64) and ``"float64"``;
* ``--device cuda``: the GPU table instead of the CPU ones: 8 × 2,048 × 32,000 logits (the size of the first GPU
  measurement), float32 and bfloat16, torchmetrics' ``Perplexity`` against ours, first call and
  repeated (the device synchronised around each), peak GPU memory, and each value's distance to the float64 truth.

Timings alternate between the implementations (best of ``--repeat`` rounds, each in reverse order every other
round, so that neither is always the first to read fresh logits), so background load hits them alike;
CPU time (``time.process_time``) is printed beside wall time. torch runs on ``--threads`` threads (default 1: on a
machine shared with other work, the CPU time of several threads mostly measures their waiting for each other; both
tools run under the same setting). Run: ``python bench/perplexity.py`` (``--quick``: smaller sizes, fewer rounds;
``--device cuda``: on a GPU).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torchmetrics.functional.text.perplexity import _perplexity_compute, _perplexity_update
from torchmetrics.text import Perplexity as TorchmetricsPerplexity

import _harness as harness
import nlgmetrics as nm
from _common import fmt_time, table
from nlgmetrics.torch import Perplexity as AdapterPerplexity

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
    best = {name: (float("inf"), float("inf")) for name in ("ours", "tm")}
    out: dict[str, float] = {}
    tools = [("ours", ours_loop), ("tm", torchmetrics_loop)]
    for r in range(repeat):
        for name, fn in tools[::-1] if r % 2 else tools:
            t0, c0 = time.perf_counter(), time.process_time()
            out[name] = fn(batches)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    assert abs(out["ours"] - out["tm"]) <= rel * abs(out["tm"]), (label, out)
    ratio = best["tm"][1] / best["ours"][1]
    rows = [
        (label, "nlgmetrics.Perplexity", fmt_time(best["ours"][0]), fmt_time(best["ours"][1]), "1.00×"),
        ("", "torchmetrics Perplexity", fmt_time(best["tm"][0]), fmt_time(best["tm"][1]), f"{ratio:.2f}× ours"),
    ]
    return rows, ratio


def fresh_batch(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` sequences of 64 tokens over a vocabulary of 4,096, new logits for every seed."""
    return make(n, 64, 4096, torch.float32, seed=seed)


def ours(x: torch.Tensor, t: torch.Tensor) -> float:
    return nm.perplexity(x, t, ignore_index=IGNORE).score


def tm(x: torch.Tensor, t: torch.Tensor) -> float:
    s, c = _perplexity_update(x, t, IGNORE)
    return float(_perplexity_compute(s, c))


_COLD = """import torch
torch.set_num_threads({threads})
{imports}
g = torch.Generator().manual_seed(0)
x = torch.randn(2, 16, 1000, generator=g)
y = torch.randint(1000, (2, 16), generator=g)
RESULT = {call}"""


def truth_nll(x: torch.Tensor, t: torch.Tensor, ignore: int) -> float:
    """The float64 truth: every counted token's ``-log_softmax`` from the same logits upcast exactly, summed
    exactly (``math.fsum``), in slices of rows so that memory stays bounded."""
    flat, tt = x.reshape(-1, x.shape[-1]), t.reshape(-1)
    parts = []
    for lo in range(0, len(tt), 256):
        rows = flat[lo : lo + 256].double()
        ids = tt[lo : lo + 256]
        keep = ids != ignore
        parts.extend((-rows.log_softmax(1)[torch.arange(len(ids), device=rows.device)[keep], ids[keep]]).tolist())
    return math.fsum(parts) / len(parts)


def make_lm(b: int, t: int, v: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """bfloat16 logits shaped like a language model's: noise, and the target's logit raised by 6 to 12 (a
    perplexity near 40), a quarter of the targets padding."""
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(b, t, v, generator=g) * 2
    target = torch.randint(v, (b, t), generator=g)
    logits.scatter_add_(2, target[..., None], (6 + 6 * torch.rand(b, t, 1, generator=g)))
    target[torch.rand(b, t, generator=g) < 0.25] = IGNORE
    return logits.to(torch.bfloat16), target


def accuracy_rows(
    b: int, length: int, vocab: int, device: str, seeds: int = 3
) -> tuple[list[tuple[str, ...]], dict[str, float]]:
    """bfloat16 logits: each implementation's perplexity against the float64 truth, over ``seeds`` batches of
    language-model-like logits; the range of the relative errors."""
    names = (
        "torchmetrics (softmax, log and sum in bfloat16)",
        'ours, precision="auto" (softmax in float32, sums in float64)',
        'ours, precision="logits" (softmax in bfloat16, logs and sums in float64)',
        'ours, precision="float64"',
    )
    errors: dict[str, list[float]] = {name: [] for name in names}
    truths = []
    for seed in range(seeds):
        x, t = make_lm(b, length, vocab, seed)
        x, t = x.to(device), t.to(device)
        truth = math.exp(truth_nll(x, t, IGNORE))
        truths.append(truth)
        s, c = _perplexity_update(x, t, IGNORE)
        values = (
            float(_perplexity_compute(s, c)),
            nm.perplexity(x, t, ignore_index=IGNORE).score,
            nm.perplexity(x, t, ignore_index=IGNORE, precision="logits").score,
            nm.perplexity(x, t, ignore_index=IGNORE, precision="float64").score,
        )
        for name, value in zip(names, values, strict=True):
            errors[name].append(abs(value - truth) / truth)
    label = f"bfloat16 logits {b}×{length}×{vocab:,}, {seeds} batches"
    rows = [(label, "float64 truth", ", ".join(f"{v:.2f}" for v in truths))]
    figures = {}
    for k, name in enumerate(names):
        rows.append(("", name, f"{min(errors[name]):.1e} to {max(errors[name]):.1e}"))
        figures[f"accuracy_max_rel_err_{k}"] = max(errors[name])
    return rows, figures


def _timed(fn: Callable[[], float], device: str) -> tuple[float, float, float]:
    """Seconds (the device synchronised before and after), the value, and the peak GPU memory above the start."""
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    t0 = time.perf_counter()
    value = fn()
    torch.cuda.synchronize(device)
    return time.perf_counter() - t0, float(value), (torch.cuda.max_memory_allocated(device) - base) / 2**20


def gpu_rows(device: str, quick: bool, repeat: int) -> tuple[list[tuple[str, ...]], dict[str, float]]:
    """torchmetrics' Perplexity against ours on a GPU: first call and best repeated call, peak memory, accuracy."""
    b, length, vocab = (2, 2048, 32000) if quick else (8, 2048, 32000)
    rows: list[tuple[str, ...]] = []
    figures: dict[str, float] = {}
    for dtype in (torch.float32, torch.bfloat16):
        x, t = make(b, length, vocab, dtype, seed=5)
        x, t = x.to(device), t.to(device)
        truth = math.exp(truth_nll(x, t, IGNORE))
        theirs = TorchmetricsPerplexity(ignore_index=IGNORE).to(device)

        def tm_call(m: Any = theirs, x: torch.Tensor = x, t: torch.Tensor = t) -> float:
            m.reset()
            m.update(x, t)
            return float(m.compute())

        def ours_call(precision: str, x: torch.Tensor = x, t: torch.Tensor = t) -> float:
            return nm.perplexity(x, t, ignore_index=IGNORE, precision=precision).score

        tools: dict[str, Callable[[], float]] = {
            "torchmetrics Perplexity": tm_call,
            "nlgmetrics": lambda: ours_call("auto"),
        }
        if dtype is torch.bfloat16:
            tools['nlgmetrics precision="logits"'] = lambda: ours_call("logits")
        first = {name: _timed(fn, device) for name, fn in tools.items()}
        best = {name: min(_timed(fn, device)[0] for _ in range(repeat)) for name, fn in tools.items()}
        label = f"{str(dtype).split('.')[-1]} logits {b}×{length}×{vocab:,}"
        for name, (first_s, value, peak) in first.items():
            ratio = best["torchmetrics Perplexity"] / best[name]
            rel = abs(value - truth) / truth
            rows.append(
                (label, name, fmt_time(first_s), fmt_time(best[name]), f"{ratio:.2f}×", f"{peak:.0f} MiB", f"{rel:.1e}")
            )
            label = ""
            figures[f"gpu_{dtype}_{name}_s"] = best[name]
    return rows, figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer rounds")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--device", default="cpu", help="cpu (the CPU tables), or cuda (the GPU table)")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = parser.parse_args(argv)
    repeat = args.repeat
    if args.device != "cpu":
        torch.set_num_threads(args.threads)
        harness.header(
            "perplexity on a GPU: nlgmetrics against torchmetrics", f"python bench/perplexity.py --device {args.device}"
        )
        print(f"torch {torch.__version__}, {torch.cuda.get_device_name(args.device)}")
        rows, figures = gpu_rows(args.device, args.quick, repeat)
        print(
            table(
                rows,
                (
                    "workload",
                    "implementation",
                    "first call",
                    "repeated (best)",
                    "vs torchmetrics",
                    "peak",
                    "rel. err vs float64",
                ),
            )
        )
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        return 0
    torch.set_num_threads(args.threads)
    command = "python bench/perplexity.py" + (" --quick" if args.quick else "") + f" --threads {args.threads}"
    harness.header("perplexity: nlgmetrics against torchmetrics", command)
    print(f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    figures: dict[str, float] = {}
    rows: list[tuple[str, ...]] = []
    n_batches = 2 if args.quick else 4
    vocab = 8000 if args.quick else 32000
    f32 = [make(2, 512, vocab, torch.float32, seed=i) for i in range(n_batches)]
    r, figures["float32_cpu_ratio"] = corpus_rows(f"float32 logits, {2 * n_batches}×512×{vocab:,}", f32, repeat, 1e-5)
    rows += r
    del f32
    f64 = [make(2, 512, 4000, torch.float64, seed=10 + i) for i in range(n_batches)]
    r, figures["float64_cpu_ratio"] = corpus_rows(f"float64 logits, {2 * n_batches}×512×4,000", f64, repeat, 1e-12)
    rows += r
    del f64
    print()
    print(table(rows, ("corpus workload (batches of 2 sequences)", "implementation", "wall", "CPU", "CPU vs ours")))
    sizes = (1, 8, 64) if args.quick else (1, 8, 64, 512)
    rounds = 4 if args.quick else 6
    lat = harness.latency({"nlgmetrics": ours, "torchmetrics": tm}, fresh_batch, sizes, rounds=rounds, alternate=True)
    for n, per in lat.items():
        figures[f"latency_{n}_cpu_ratio"] = per["torchmetrics"][1] / per["nlgmetrics"][1]
    adapter, their_class = AdapterPerplexity(ignore_index=IGNORE), TorchmetricsPerplexity(ignore_index=IGNORE)
    updates = harness.latency(
        {"nlgmetrics.torch": adapter.update, "torchmetrics": their_class.update},
        fresh_batch,
        (1, 8),
        rounds=rounds,
        alternate=True,
    )
    assert abs(float(adapter.compute()) - float(their_class.compute())) <= 1e-5 * float(their_class.compute())
    for n, per in updates.items():
        figures[f"update_{n}_cpu_ratio"] = per["torchmetrics"][1] / per["nlgmetrics.torch"][1]
    codes = {
        "nlgmetrics": _COLD.format(
            threads=args.threads, imports="import nlgmetrics as nm", call="nm.perplexity(x, y).score"
        ),
        "torchmetrics": _COLD.format(
            threads=args.threads, imports="from torchmetrics.text import Perplexity", call="float(Perplexity()(x, y))"
        ),
    }
    cold = harness.cold(codes, [], [], rounds=1 if args.quick else 3)
    figures["cold_cpu_ratio"] = cold["torchmetrics"]["cpu"] / cold["nlgmetrics"]["cpu"]
    x8, t8 = fresh_batch(8, 0)
    warm = harness.warm({"nlgmetrics": lambda: ours(x8, t8), "torchmetrics": lambda: tm(x8, t8)})
    harness.print_tables(
        [
            (harness.COLD_HEADER, harness.cold_table("2 × 16 tokens, vocabulary 1,000", cold, "nlgmetrics")),
            (harness.LATENCY_HEADER, harness.latency_table("64 tokens, vocabulary 4,096", lat, "nlgmetrics")),
            (
                harness.LATENCY_HEADER,
                harness.latency_table("update() of the torchmetrics classes", updates, "nlgmetrics.torch"),
            ),
            (harness.WARM_HEADER, harness.warm_table("the same 8 × 64 × 4,096 batch", warm, "nlgmetrics")),
        ]
    )
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
    size = (2, 512, 8000) if args.quick else (2, 2048, 32000)
    acc_rows, acc = accuracy_rows(*size, "cpu")
    figures.update(acc)
    print()
    print(table(acc_rows, ("accuracy", "implementation", "perplexity / relative error against float64")))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
