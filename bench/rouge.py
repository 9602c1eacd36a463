"""ROUGE as users meet it, against rouge-score, rouge-score-rs, rapidrouge, rouge-rust (``fast_rouge``) and
torchmetrics: cold (fresh process, import + first call), latency per segment at batch sizes 1/8/64/512 on fresh
text, warm (labelled), and the torch adapter's ``update()``.

Workloads: synthetic summaries (about 60 words in 3 lines, inflected words so that stemming matters) and
SummEval (1,600 summaries x 11 references) from the shared data. Types rouge1/2/L/Lsum with Porter stemming and
rouge-score's tokenizer for corpora; rouge1/2/L with stemming for latency (what rouge-score-rs's ``score``
computes); rouge1/2/L without stemming against rouge-rust, which has no stemmer.

Run: ``python bench/rouge.py`` (about 10 minutes on 2 loaded cores) or ``--quick`` (under a minute: smaller
corpora, fewer rounds). The shared data folder is ``../shared/data`` or ``$NLGMETRICS_SHARED_DATA``.
"""

from __future__ import annotations

import argparse
import compileall
import os
import sys
import time
from collections.abc import Callable

import _harness as h
import nlgmetrics as nm
from _common import fmt_time, summeval, synthetic_summaries

T4 = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
T3 = ["rouge1", "rouge2", "rougeL"]

OURS = (
    "import nlgmetrics as nm\n"
    "RESULT = nm.rouge(preds, refs, rouge_types={t}, preset='rouge-score', use_stemmer={s}).score['{k}']"
)
RS = (
    "from rouge_score_rs import rouge_scorer\nsc = rouge_scorer.RougeScorer({t}, use_stemmer={s})\n"
    "out = [sc.{call}(r, p) for p, r in zip(preds, refs)]\nRESULT = sum(o['{k}'].fmeasure for o in out) / len(out)"
)
RS_BATCH = (
    "from rouge_score_rs import rouge_scorer\nsc = rouge_scorer.RougeScorer({t}, use_stemmer={s})\n"
    "out = sc.score_batch(refs, preds)\nRESULT = sum(o['{k}'].fmeasure for o in out) / len(out)"
)
PEER = (
    "from {module} import rouge_scorer\nsc = rouge_scorer.RougeScorer({t}, use_stemmer={s})\n"
    "out = [sc.{call}(r, p) for p, r in zip(preds, refs)]\nRESULT = sum(o['{k}'].fmeasure for o in out) / len(out)"
)
FAST_ROUGE = (
    "import fast_rouge\nout = [fast_rouge.score(r, p) for p, r in zip(preds, refs)]\n"
    "RESULT = sum(o['{k}'].fmeasure for o in out) / len(out)"
)


def bytecode() -> None:
    """Compile nlgmetrics' modules to bytecode, as ``pip install`` does for an installed copy (and for every peer), so
    that the cold processes read them instead of compiling each module: a source checkout run with
    PYTHONDONTWRITEBYTECODE set never caches them, and that compiling is no part of a user's first call."""
    compileall.compile_dir(os.path.dirname(nm.__file__), quiet=1)


def cold_section(args: argparse.Namespace, rows: list[tuple[str, ...]]) -> dict[str, float]:
    figures: dict[str, float] = {}
    bytecode()
    n = args.cold_segments
    preds, refs = synthetic_summaries(n, seed=1)
    t, s, k = T4, True, "rougeLsum"
    tools = {
        "nlgmetrics": OURS.format(t=t, s=s, k=k),
        "rouge-score-rs score (1 thread)": RS.format(t=t, s=s, k=k, call="score"),
        "rouge-score-rs score_batch (all cores)": RS_BATCH.format(t=t, s=s, k=k),
    }
    res = h.cold(tools, preds, refs, rounds=args.rounds)
    rows += h.cold_table(f"{n:,} synthetic summaries, rouge1/2/L/Lsum + stemming", res, "nlgmetrics")
    figures["cold_synthetic_vs_rs"] = res["rouge-score-rs score (1 thread)"]["wall"] / res["nlgmetrics"]["wall"]
    figures["cold_synthetic_cpu_vs_rs"] = res["rouge-score-rs score (1 thread)"]["cpu"] / res["nlgmetrics"]["cpu"]
    m = min(n, args.slow_segments)
    res = h.cold(
        {
            "nlgmetrics": tools["nlgmetrics"],
            "rouge-score 0.1.2": PEER.format(module="rouge_score", t=t, s=s, k=k, call="score"),
            "rapidrouge": PEER.format(module="rapidrouge", t=t, s=s, k=k, call="score"),
        },
        preds[:m],
        refs[:m],
        rounds=1,
    )
    rows += h.cold_table(f"{m:,} synthetic summaries (the Python peers are slow)", res, "nlgmetrics")
    # no stemming: rouge-rust has no stemmer and computes rouge1/2/L only
    t, s, k = T3, False, "rougeL"
    res = h.cold(
        {
            "nlgmetrics": OURS.format(t=t, s=s, k=k),
            "rouge-score-rs score (1 thread)": RS.format(t=t, s=s, k=k, call="score"),
            "rouge-rust (fast_rouge.score)": FAST_ROUGE.format(k=k),
        },
        preds,
        refs,
        rounds=args.rounds,
    )
    rows += h.cold_table(f"{n:,} synthetic summaries, rouge1/2/L, no stemming", res, "nlgmetrics")
    data = summeval()
    if data is None:
        print("(shared data not found: SummEval rows skipped)", file=sys.stderr)
        return figures
    sp, sr = data[0][: args.summeval], data[1][: args.summeval]
    t, s, k = T4, True, "rougeLsum"
    res = h.cold(
        {
            "nlgmetrics": OURS.format(t=t, s=s, k=k),
            "rouge-score-rs score_multi (1 thread)": RS.format(t=t, s=s, k=k, call="score_multi"),
        },
        sp,
        sr,
        rounds=args.rounds,
    )
    rows += h.cold_table(f"SummEval {len(sp):,} summaries x 11 refs, rouge1/2/L/Lsum + stemming", res, "nlgmetrics")
    figures["cold_summeval_vs_rs"] = res["rouge-score-rs score_multi (1 thread)"]["wall"] / res["nlgmetrics"]["wall"]
    figures["cold_summeval_cpu_vs_rs"] = res["rouge-score-rs score_multi (1 thread)"]["cpu"] / res["nlgmetrics"]["cpu"]
    return figures


def latency_section(args: argparse.Namespace, rows: list[tuple[str, ...]]) -> dict[str, float]:
    from rapidrouge import rouge_scorer as rapid
    from rouge_score import rouge_scorer as reference
    from rouge_score_rs import rouge_scorer as rs

    sc_rs, sc_rapid = rs.RougeScorer(T3, use_stemmer=True), rapid.RougeScorer(T3, use_stemmer=True)
    sc_ref = reference.RougeScorer(T3, use_stemmer=True)

    def ours(p: list[str], r: list[str]) -> object:
        if len(p) == 1:  # one pair, as a per-example reward calls it
            return nm.rouge(p[0], r[0], rouge_types=T3, preset="rouge-score", use_stemmer=True)
        return nm.rouge(p, r, rouge_types=T3, preset="rouge-score", use_stemmer=True, segments=True).segments

    tools = {
        "nlgmetrics": ours,
        "rouge-score-rs score": lambda p, r: [sc_rs.score(b, a) for a, b in zip(p, r, strict=True)],
    }
    if not args.quick:
        tools["rapidrouge"] = lambda p, r: [sc_rapid.score(b, a) for a, b in zip(p, r, strict=True)]
        tools["rouge-score 0.1.2"] = lambda p, r: [sc_ref.score(b, a) for a, b in zip(p, r, strict=True)]

    def make(n: int, seed: int) -> tuple[list[str], list[str]]:
        return synthetic_summaries(n, seed=seed, words=30, sentences=1)

    res = h.latency(tools, make, rounds=args.latency_rounds, min_segments=args.latency_segments)
    rows += h.latency_table("~30-word pairs, rouge1/2/L + stemming", res, "nlgmetrics")
    pair = {name: tools[name] for name in ("nlgmetrics", "rouge-score-rs score")}
    inter = interleaved_latency(pair, make, min_segments=4 * args.latency_segments)
    rows += h.latency_table("the same, interleaved per call (order alternating)", inter, "nlgmetrics")
    return {
        "one_pair_cpu_vs_rs": res[1]["nlgmetrics"][1] / res[1]["rouge-score-rs score"][1],
        "batch64_cpu_vs_rs": res[64]["nlgmetrics"][1] / res[64]["rouge-score-rs score"][1],
        "one_pair_cpu_vs_rs_interleaved": inter[1]["nlgmetrics"][1] / inter[1]["rouge-score-rs score"][1],
        "batch8_cpu_vs_rs_interleaved": inter[8]["nlgmetrics"][1] / inter[8]["rouge-score-rs score"][1],
        "batch64_cpu_vs_rs_interleaved": inter[64]["nlgmetrics"][1] / inter[64]["rouge-score-rs score"][1],
    }


def interleaved_latency(
    tools: dict[str, Callable[[list[str], list[str]], object]],
    make_batch: Callable[[int, int], tuple[list[str], list[str]]],
    min_segments: int,
) -> dict[int, dict[str, tuple[float, float]]]:
    """Per-segment (wall, CPU) cost as :func:`_harness.latency` measures it, but with the tools taking turns on each
    fresh batch (first one, then the other), so that a burst of load on a shared machine falls on both alike."""
    out: dict[int, dict[str, tuple[float, float]]] = {}
    names = list(tools)
    for n in h.SIZES:
        calls = max(2, min_segments // n)
        wall = dict.fromkeys(names, 0.0)
        cpu = dict.fromkeys(names, 0.0)
        for i in range(calls):
            preds, refs = make_batch(n, 90_000 + 1_000 * n + i)
            for name in names if i % 2 == 0 else names[::-1]:
                t0, c0 = time.perf_counter(), time.process_time()
                tools[name](preds, refs)
                wall[name] += time.perf_counter() - t0
                cpu[name] += time.process_time() - c0
        out[n] = {name: (wall[name] / (calls * n), cpu[name] / (calls * n)) for name in names}
    return out


def warm_section(args: argparse.Namespace, rows: list[tuple[str, ...]]) -> None:
    from rouge_score_rs import rouge_scorer as rs

    preds, refs = synthetic_summaries(args.cold_segments, seed=2)
    sc = rs.RougeScorer(T4, use_stemmer=True)
    res = h.warm(
        {
            "nlgmetrics": lambda: nm.rouge(preds, refs, rouge_types=T4, preset="rouge-score", use_stemmer=True),
            "rouge-score-rs score (1 thread)": lambda: [sc.score(r, p) for p, r in zip(preds, refs, strict=True)],
        },
        rounds=args.rounds,
    )
    rows += h.warm_table(f"{len(preds):,} synthetic summaries, rouge1/2/L/Lsum + stemming, repeated", res, "nlgmetrics")


def torch_section(args: argparse.Namespace) -> str:
    from nlgmetrics.torch import ROUGE

    preds, refs = synthetic_summaries(32 * args.torch_batches, seed=3)
    batches = [(preds[i : i + 32], refs[i : i + 32]) for i in range(0, len(preds), 32)]
    metric = ROUGE(preset="rouge-score", use_stemmer=True)
    upd, fun = h.torch_update(metric, lambda p, r: nm.rouge(p, r, preset="rouge-score", use_stemmer=True), batches)
    return (
        f"torch adapter: ROUGE.update() on {len(batches)} batches of 32: {fmt_time(upd)}; functional call on the same "
        f"batches: {fmt_time(fun)}; update / functional = {upd / fun:.2f} (target <= 1.5)"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller corpora and fewer rounds (under a minute)")
    ap.add_argument("--rounds", type=int, default=0, help="rounds of the cold runs (default: 1 with --quick, else 3)")
    args = ap.parse_args(argv)
    q = args.quick
    args.cold_segments = 2_000 if q else 10_000
    args.slow_segments = 50 if q else 1_000
    args.summeval = 400 if q else 1_600
    args.rounds = args.rounds or (1 if q else 3)
    args.latency_rounds = 2 if q else 5
    args.latency_segments = 64 if q else 512
    args.torch_batches = 10 if q else 40
    h.header("ROUGE", f"python bench/rouge.py{' --quick' if q else ''}")
    cold_rows: list[tuple[str, ...]] = []
    lat_rows: list[tuple[str, ...]] = []
    warm_rows: list[tuple[str, ...]] = []
    figures = cold_section(args, cold_rows)
    figures |= latency_section(args, lat_rows)
    warm_section(args, warm_rows)
    h.print_tables([(h.COLD_HEADER, cold_rows), (h.LATENCY_HEADER, lat_rows), (h.WARM_HEADER, warm_rows)])
    print()
    print(torch_section(args))
    print("targets: " + ", ".join(f"{k} = {v:.2f}" for k, v in figures.items()))
    print(f"(after the run: {h.machine_load()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
