"""Benchmark of ROUGE against rouge-score and rouge-score-rs, in one process on the same data.

Workloads (rouge1, rouge2, rougeL and rougeLsum, Porter stemming, rouge-score's tokenizer):

* 10,000 synthetic summaries of about 60 words in three sentences, one per line (rougeLsum then has real work
  to do), each against one reference;
* SummEval: 1,600 system summaries, each against its 11 references (``score_multi``), from ``../shared/data``.

Implementations:

* ``nlgmetrics.rouge(..., preset="rouge-score", use_stemmer=True)`` (``workers=1``, and ``workers=2``);
* rouge-score 0.1.2: ``RougeScorer.score`` / ``score_multi`` per segment (the reference implementation);
* rouge-score-rs: the same calls per segment (one thread, as its ``RougeScorer`` runs when called per pair),
  and its ``score_batch`` (all cores) where it applies (one reference per segment).

Every implementation is checked to give the same per-segment numbers (max abs difference printed). Timings
alternate between implementations (best of ``--repeat`` rounds), so that background load hits all of them alike.

Run: ``python bench/rouge.py`` (``--quick`` times rouge-score on 1,000 synthetic summaries and 200 SummEval
summaries and scales per segment; ``--json FILE`` writes the figures).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import nlgmetrics as nm
from _common import SHARED_DATA, fmt_time, interleaved, machine, table

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]

_STEMS = [
    "report", "govern", "nation", "develop", "announce", "run", "play", "school", "market", "price", "increase",
    "decide", "police", "investigate", "happen", "city", "country", "lead", "people", "company", "work", "study",
    "research", "show", "result", "team", "win", "game", "season", "star", "court", "judge", "vote", "elect",
    "hospital", "patient", "doctor", "treat", "money", "bank", "invest", "energy", "power", "climate", "change",
]  # fmt: skip
_SUFFIXES = ["", "s", "ed", "ing", "er", "ers", "ment", "ly", "ation", "ness", "ive", "ity"]
_FUNCTION = ["the", "a", "of", "to", "in", "and", "is", "was", "for", "on", "that", "with", "by", "at", "it", "as"]


def synthetic(n: int, seed: int = 0, words: int = 60, sentences: int = 3) -> tuple[list[str], list[str]]:
    """``n`` (prediction, reference) pairs: references of about ``words`` words in ``sentences`` lines, from an
    English-like vocabulary with inflections (so stemming matters); predictions are noisy copies (10% of the
    words dropped, 10% replaced, a few inserted)."""
    rng = random.Random(seed)
    vocab = [s + x for s in _STEMS for x in _SUFFIXES] + [f"w{i}" for i in range(3000)]
    weights = [1.0 / (i + 1) ** 0.9 for i in range(len(vocab))]

    def word() -> str:
        return rng.choice(_FUNCTION) if rng.random() < 0.35 else rng.choices(vocab, weights)[0]

    preds, refs = [], []
    for _ in range(n):
        ref_lines, pred_lines = [], []
        for _ in range(sentences):
            toks = [word() for _ in range(words // sentences + rng.randint(-4, 4))]
            toks[0] = toks[0].capitalize()
            ref_lines.append(" ".join(toks) + rng.choice([".", ".", "!", "?"]))
            out = []
            for t in toks:
                r = rng.random()
                if r < 0.1:
                    continue
                out.append(word() if r < 0.2 else t)
                if r > 0.96:
                    out.append(rng.choice(_FUNCTION))
            pred_lines.append(" ".join(out) + ".")
        preds.append("\n".join(pred_lines))
        refs.append("\n".join(ref_lines))
    return preds, refs


def summeval() -> tuple[list[str], list[list[str]]] | None:
    path = SHARED_DATA / "summeval" / "summeval.jsonl"
    if not path.exists():
        return None
    preds, refs = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for system in row["sys_summs"].values():
            preds.append(system["sys_summ"])
            refs.append(row["ref_summs"])
    return preds, refs


def per_segment(result: Any) -> np.ndarray:
    """(segments x types x 3) array of precision, recall, F from a list of ``{type: Score}`` dicts."""
    return np.array([[[s[t].precision, s[t].recall, s[t].fmeasure] for t in TYPES] for s in result])


def run_workload(
    label: str, preds: list[str], refs: list[Any], repeat: int, quick_n: int | None, rows: list[tuple[str, ...]]
) -> dict[str, float]:
    from rouge_score import rouge_scorer

    multi = not isinstance(refs[0], str)
    n = len(preds)

    def ours(workers: int = 1) -> Callable[[], Any]:
        return lambda: (
            nm.rouge(
                preds, refs, rouge_types=TYPES, preset="rouge-score", use_stemmer=True, segments=True, workers=workers
            ).segments
        )

    fns: dict[str, Callable[[], Any]] = {"nlgmetrics": ours(1), "nlgmetrics (workers=2)": ours(2)}
    try:
        from rouge_score_rs import rouge_scorer as rs_scorer

        rs = rs_scorer.RougeScorer(TYPES, use_stemmer=True)
        if multi:
            fns["rouge-score-rs (score_multi per segment, 1 thread)"] = lambda: [
                rs.score_multi(r, p) for p, r in zip(preds, refs, strict=True)
            ]
        else:
            fns["rouge-score-rs (score per segment, 1 thread)"] = lambda: [
                rs.score(r, p) for p, r in zip(preds, refs, strict=True)
            ]
            fns["rouge-score-rs (score_batch, all cores)"] = lambda: rs.score_batch(refs, preds)
    except ImportError:
        print("(rouge-score-rs not installed: its rows are skipped)", file=sys.stderr)
    fns["nlgmetrics"]()  # warm-up: imports, stem cache
    best, out = interleaved(fns, repeat)
    ref_scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    m = min(n, quick_n) if quick_n else n
    t0 = time.perf_counter()
    reference = [
        ref_scorer.score_multi(r, p) if multi else ref_scorer.score(r, p)
        for p, r in zip(preds[:m], refs[:m], strict=True)
    ]
    t_ref = (time.perf_counter() - t0) * n / m
    truth = per_segment(reference)
    figures = {"rouge-score": t_ref}
    t_ours = best["nlgmetrics"]
    scaled = f" (timed on {m:,} segments, scaled)" if m < n else ""
    rows.append((label, f"rouge-score 0.1.2{scaled}", fmt_time(t_ref), f"{t_ref / t_ours:,.1f}", "0 (reference)"))
    for name, t in best.items():
        diff = float(np.abs(per_segment(out[name][:m]) - truth).max())
        rows.append((label, name, fmt_time(t), f"{t / t_ours:.2f}", f"{diff:.1e}"))
        figures[name] = t
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--segments", type=int, default=10_000, help="synthetic summaries (default 10,000)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="time rouge-score on a subset and scale per segment")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    rows: list[tuple[str, ...]] = []
    figures: dict[str, Any] = {}
    preds, refs = synthetic(args.segments)
    words = np.mean([len(r.split()) for r in refs])
    label = f"{args.segments:,} synthetic, ~{words:.0f} words, 3 lines"
    figures["synthetic"] = run_workload(label, preds, refs, args.repeat, 1000 if args.quick else None, rows)
    data = summeval()
    if data is None:
        print(f"(shared data not found at {SHARED_DATA}: the SummEval rows are skipped)", file=sys.stderr)
    else:
        label = f"SummEval, {len(data[0]):,} summaries × 11 refs"
        figures["summeval"] = run_workload(label, *data, args.repeat, 200 if args.quick else None, rows)
    print(f"machine: {machine()}")
    print("rouge1/2/L/Lsum, Porter stemming, rouge-score's tokenizer; best of", args.repeat, "alternating rounds")
    print(table(rows, ("workload", "implementation", "time", "time / nlgmetrics time", "max |Δ| vs rouge-score")))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(figures, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
