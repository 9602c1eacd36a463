"""Benchmark of corpus BLEU, chrF and TER against sacrebleu, torchmetrics and NLTK, in one process.

Workloads:

* **WMT22**: every system of the four pairs in the shared data (47 systems: en-ja with ``char``, en-zh with
  ``zh`` and two references, zh-en and de-en with ``13a`` and two references), scored one after the other, as
  an evaluation campaign does. nlgmetrics extracts each pair's reference n-grams once (its reference cache);
  sacrebleu is timed as it is usually called (``BLEU(...).corpus_score(hyps, refs)`` per system) and with its own
  reference cache (``BLEU(references=refs)``); both are in the table.
* **synthetic**: 10,000 segments (Zipfian vocabulary, one reference, noisy copies), scored once: no cache helps.

Every score is checked against the peer's before a time is reported. The slowest peers (torchmetrics' chrF and
TER, sacrebleu's TER on WMT22 unless ``--full``) run on a part of the data and their time is scaled per segment;
the table says so.

Run: ``python bench/mt_campaign.py`` (``--full`` runs sacrebleu's TER on every WMT22 system, about ten minutes;
``--json FILE`` writes the figures).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import nlgmetrics as nm
from _common import SHARED_DATA, best_of, fmt_time, machine, table
from nlgmetrics.metrics import chrf as chrf_module
from nlgmetrics.metrics.bleu import kernel as bleu_module

PAIRS = {"en-ja": "char", "en-zh": "zh", "zh-en": "13a", "de-en": "13a"}


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def clear_caches() -> None:
    bleu_module._CACHE.clear()
    chrf_module._CACHE.clear()


# ---------------------------------------------------------------------------------------------- data
def _lines(path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def wmt22() -> list[tuple[str, str, list[list[str]], list[list[str]]]]:
    """(pair, tokenizer, reference streams, system outputs) per pair."""
    root = SHARED_DATA / "wmt22"
    out = []
    for pair, tokenizer in PAIRS.items():
        streams = [_lines(p) for p in sorted((root / "references").glob(f"generaltest2022.{pair}.ref.*"))]
        systems = [_lines(p) for p in sorted((root / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*"))]
        out.append((pair, tokenizer, streams, systems))
    return out


def synthetic(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(20000)]
    weights = [1 / (i + 1) for i in range(len(vocab))]
    punct = [",", ".", "'s", "-", "(", ")"]
    refs, hyps = [], []
    for _ in range(n):
        words = rng.choices(vocab, weights, k=rng.randint(5, 40))
        words = [w + rng.choice(punct) if rng.random() < 0.08 else w for w in words]
        hyp = [w if rng.random() < 0.75 else rng.choices(vocab, weights)[0] for w in words]
        if len(hyp) > 6 and rng.random() < 0.3:
            i, j = sorted(rng.sample(range(len(hyp)), 2))
            hyp = hyp[:i] + hyp[j:] + hyp[i:j]
        refs.append(" ".join(words))
        hyps.append(" ".join(hyp))
    return hyps, refs


def per_segment(refs_streams: list[list[str]]) -> list[Any]:
    if len(refs_streams) == 1:
        return refs_streams[0]
    return [list(seg) for seg in zip(*refs_streams, strict=True)]


# ---------------------------------------------------------------------------------------------- runners
class Bench:
    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []
        self.figures: dict[str, float] = {}

    def add(self, workload: str, impl: str, seconds: float, ours: float | None, note: str = "") -> None:
        ratio = "1.00×" if ours is None else f"{seconds / ours:,.1f}× slower"
        self.rows.append((workload, impl, fmt_time(seconds), ratio, note))


def check(a: float, b: float, what: str, tol: float = 1e-9) -> None:
    if abs(float(a) - float(b)) > tol * max(1.0, abs(float(b))):
        raise AssertionError(f"{what}: nlgmetrics {a} vs peer {b}")


DIFFERENCES: list[str] = []


def compare(ours: float, theirs: float, what: str) -> None:
    """torchmetrics' numbers are not sacrebleu's everywhere: record how far they are, do not fail."""
    if abs(ours - theirs) > 1e-4:
        DIFFERENCES.append(f"{what}: torchmetrics {theirs:.4f}, nlgmetrics (= sacrebleu) {ours:.4f}")


def bench_wmt(bench: Bench, data, full: bool) -> None:
    from sacrebleu.metrics import BLEU, CHRF, TER

    n_systems = sum(len(s) for _, _, _, s in data)
    n_segments = sum(len(h) for _, _, _, s in data for h in s)
    label = f"WMT22, {n_systems} systems ({n_segments:,} segments)"

    # ---- BLEU
    def ours_bleu() -> list[float]:
        clear_caches()
        return [
            nm.bleu(hyps, per_segment(refs), tokenizer=tok).score for _, tok, refs, systems in data for hyps in systems
        ]

    def ours_bleu_cold() -> list[float]:
        out = []
        for _, tok, refs, systems in data:
            for hyps in systems:
                clear_caches()
                out.append(nm.bleu(hyps, per_segment(refs), tokenizer=tok).score)
        return out

    t_ours, ours = best_of(ours_bleu, 3, warmup=0)
    t_cold, _ = best_of(ours_bleu_cold, 2, warmup=0)
    t_sacre, sacre = timed(
        lambda: [BLEU(tokenize=tok).corpus_score(h, refs).score for _, tok, refs, systems in data for h in systems]
    )
    for a, b in zip(ours, sacre, strict=True):
        check(a, b, "BLEU")

    def sacre_cached() -> list[float]:
        out = []
        for _, tok, refs, systems in data:
            metric = BLEU(tokenize=tok, references=refs)
            out += [metric.corpus_score(h, None).score for h in systems]
        return out

    t_sacre_c, _ = timed(sacre_cached)
    bench.add(label + ": corpus BLEU", "nlgmetrics.bleu (reference n-grams extracted once per pair)", t_ours, None)
    bench.add(
        "",
        "nlgmetrics.bleu, cold every time (no reuse)",
        t_cold,
        t_ours,
        f"{t_sacre / t_cold:.1f}× faster than sacrebleu",
    )
    bench.add("", "sacrebleu BLEU().corpus_score per system", t_sacre, t_ours)
    bench.add("", "sacrebleu BLEU(references=refs) (its reference cache)", t_sacre_c, t_ours)
    bench.figures.update(wmt_bleu_ours_s=t_ours, wmt_bleu_sacrebleu_s=t_sacre, wmt_bleu_sacrebleu_cached_s=t_sacre_c)

    # torchmetrics' SacreBLEUScore on the first system of each pair, scaled per segment
    from torchmetrics.text import SacreBLEUScore

    t_tm = 0.0
    segs = 0
    for pair, tok, refs, systems in data:
        per = [list(seg) for seg in zip(*refs, strict=True)]
        t, value = timed(lambda tok=tok, per=per, h=systems[0]: float(SacreBLEUScore(tokenize=tok)(h, per)))
        compare(nm.bleu(systems[0], per_segment(refs), tokenizer=tok).score, value * 100, f"BLEU {pair}")
        t_tm += t
        segs += len(systems[0])
    t_tm *= n_segments / segs
    bench.add("", "torchmetrics SacreBLEUScore (scaled from 1 system per pair)", t_tm, t_ours)
    bench.figures["wmt_bleu_torchmetrics_s"] = t_tm

    # NLTK corpus_bleu on whitespace-split text against our nltk preset
    import nltk.translate.bleu_score as nltk_bleu

    def ours_nltk() -> list[float]:
        return [nm.bleu(h, per_segment(refs), preset="nltk").score for _, _, refs, systems in data for h in systems]

    t_on, on = best_of(ours_nltk, 2, warmup=0)

    def theirs_nltk() -> list[float]:
        out = []
        for _, _, refs, systems in data:
            lor = [[r.split() for r in seg] for seg in zip(*refs, strict=True)]
            out += [nltk_bleu.corpus_bleu(lor, [x.split() for x in h]) for h in systems]
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_nltk, nl = timed(theirs_nltk)
    for a, b in zip(on, nl, strict=True):
        check(a, b, "NLTK BLEU")
    bench.add(label + ": NLTK corpus_bleu", "nlgmetrics.bleu(preset='nltk')", t_on, None)
    bench.add("", "nltk.translate.bleu_score.corpus_bleu", t_nltk, t_on)
    bench.figures.update(wmt_nltk_ours_s=t_on, wmt_nltk_nltk_s=t_nltk)

    # ---- chrF
    def ours_chrf() -> list[float]:
        clear_caches()
        return [nm.chrf(h, per_segment(refs)).score for _, _, refs, systems in data for h in systems]

    t_oc, oc = best_of(ours_chrf, 3, warmup=0)
    t_sc, sc = timed(lambda: [CHRF().corpus_score(h, refs).score for _, _, refs, systems in data for h in systems])
    for a, b in zip(oc, sc, strict=True):
        check(a, b, "chrF")

    def sacre_chrf_cached() -> list[float]:
        out = []
        for _, _, refs, systems in data:
            metric = CHRF(references=refs)
            out += [metric.corpus_score(h, None).score for h in systems]
        return out

    t_sc_c, _ = timed(sacre_chrf_cached)
    from torchmetrics.text import CHRFScore

    t_tmc = 0.0
    segs = 0
    for pair, _, refs, systems in data:
        per = [list(seg) for seg in zip(*refs, strict=True)][:300]
        t, value = timed(lambda per=per, h=systems[0][:300]: float(CHRFScore()(h, per)))
        compare(nm.chrf(systems[0][:300], per_segment([r[:300] for r in refs])).score, value * 100, f"chrF {pair}")
        t_tmc += t
        segs += len(per)
    t_tmc *= n_segments / segs
    bench.add(label + ": chrF", "nlgmetrics.chrf (reference n-grams extracted once per pair)", t_oc, None)
    bench.add("", "sacrebleu CHRF().corpus_score per system", t_sc, t_oc)
    bench.add("", "sacrebleu CHRF(references=refs)", t_sc_c, t_oc)
    bench.add("", "torchmetrics CHRFScore (scaled from 300 segments per pair)", t_tmc, t_oc)
    bench.figures.update(wmt_chrf_ours_s=t_oc, wmt_chrf_sacrebleu_s=t_sc, wmt_chrf_sacrebleu_cached_s=t_sc_c)
    bench.figures["wmt_chrf_torchmetrics_s"] = t_tmc

    # ---- TER
    t_ot, ot = timed(lambda: [nm.ter(h, per_segment(refs)).score for _, _, refs, systems in data for h in systems])
    t_ot2, _ = timed(
        lambda: [nm.ter(h, per_segment(refs), workers=2).score for _, _, refs, systems in data for h in systems]
    )
    if full:
        t_st, st = timed(lambda: [TER().corpus_score(h, refs).score for _, _, refs, systems in data for h in systems])
        for a, b in zip(ot, st, strict=True):
            check(a, b, "TER")
        note = ""
    else:
        t_st, segs = 0.0, 0
        k = 0
        for _, _, refs, systems in data:
            for h in systems[:2]:
                t, value = timed(lambda h=h, refs=refs: TER().corpus_score(h, refs).score)
                check(ot[k + systems.index(h)], value, "TER")
                t_st += t
                segs += len(h)
            k += len(systems)
        t_st *= n_segments / segs
        note = "scaled from 2 systems per pair (--full for all)"
    from torchmetrics.text import TranslationEditRate

    t_tmt, segs = 0.0, 0
    for pair, _, refs, systems in data:
        per = [list(seg) for seg in zip(*refs, strict=True)][:150]
        t, value = timed(lambda per=per, h=systems[0][:150]: float(TranslationEditRate()(h, per)))
        compare(nm.ter(systems[0][:150], per_segment([r[:150] for r in refs])).score, value * 100, f"TER {pair}")
        t_tmt += t
        segs += len(per)
    t_tmt *= n_segments / segs
    bench.add(label + ": TER", "nlgmetrics.ter", t_ot, None)
    bench.add("", "nlgmetrics.ter(workers=2)", t_ot2, t_ot)
    bench.add("", "sacrebleu TER().corpus_score per system", t_st, t_ot, note)
    bench.add("", "torchmetrics TranslationEditRate (scaled from 150 segments per pair)", t_tmt, t_ot)
    bench.figures.update(wmt_ter_ours_s=t_ot, wmt_ter_ours_2workers_s=t_ot2, wmt_ter_sacrebleu_s=t_st)
    bench.figures["wmt_ter_torchmetrics_s"] = t_tmt


def bench_synthetic(bench: Bench, n: int) -> None:
    from sacrebleu.metrics import BLEU, CHRF, TER
    from torchmetrics.text import BLEUScore, CHRFScore, SacreBLEUScore, TranslationEditRate

    hyps, refs = synthetic(n)
    label = f"synthetic, {n:,} segments"
    clear_caches()
    t_ours, ours = best_of(lambda: (clear_caches(), nm.bleu(hyps, refs).score)[1], 3, warmup=0)
    t_sacre, sacre = timed(lambda: BLEU().corpus_score(hyps, [refs]).score)
    check(ours, sacre, "synthetic BLEU")
    t_tm, tm = timed(lambda: float(SacreBLEUScore()(hyps, [[r] for r in refs])))
    compare(ours, tm * 100, "BLEU synthetic")
    t_tmb, _ = timed(lambda: float(BLEUScore()(hyps, [[r] for r in refs])))
    bench.add(label + ": corpus BLEU (cold)", "nlgmetrics.bleu", t_ours, None)
    bench.add("", "sacrebleu BLEU().corpus_score", t_sacre, t_ours)
    bench.add("", "torchmetrics SacreBLEUScore", t_tm, t_ours)
    bench.add("", "torchmetrics BLEUScore (whitespace tokens)", t_tmb, t_ours)
    bench.figures.update(syn_bleu_ours_s=t_ours, syn_bleu_sacrebleu_s=t_sacre, syn_bleu_torchmetrics_s=t_tm)

    t_oc, oc = best_of(lambda: (clear_caches(), nm.chrf(hyps, refs).score)[1], 3, warmup=0)
    t_sc, sc = timed(lambda: CHRF().corpus_score(hyps, [refs]).score)
    check(oc, sc, "synthetic chrF")
    m = 500
    t_tmc, _ = timed(lambda: float(CHRFScore()(hyps[:m], [[r] for r in refs[:m]])))
    t_tmc *= n / m
    bench.add(label + ": chrF (cold)", "nlgmetrics.chrf", t_oc, None)
    bench.add("", "sacrebleu CHRF().corpus_score", t_sc, t_oc)
    bench.add("", f"torchmetrics CHRFScore (scaled from {m} segments)", t_tmc, t_oc)
    bench.figures.update(syn_chrf_ours_s=t_oc, syn_chrf_sacrebleu_s=t_sc, syn_chrf_torchmetrics_s=t_tmc)

    t_ot, ot = timed(lambda: nm.ter(hyps, refs).score)
    t_st, st = timed(lambda: TER().corpus_score(hyps, [refs]).score)
    check(ot, st, "synthetic TER")
    m = 300
    t_tmt, _ = timed(lambda: float(TranslationEditRate()(hyps[:m], [[r] for r in refs[:m]])))
    t_tmt *= n / m
    bench.add(label + ": TER", "nlgmetrics.ter", t_ot, None)
    bench.add("", "sacrebleu TER().corpus_score", t_st, t_ot)
    bench.add("", f"torchmetrics TranslationEditRate (scaled from {m} segments)", t_tmt, t_ot)
    bench.figures.update(syn_ter_ours_s=t_ot, syn_ter_sacrebleu_s=t_st, syn_ter_torchmetrics_s=t_tmt)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--segments", type=int, default=10_000, help="synthetic corpus size (default 10,000)")
    ap.add_argument("--full", action="store_true", help="run sacrebleu's TER on every WMT22 system")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    bench = Bench()
    if (SHARED_DATA / "wmt22").is_dir():
        bench_wmt(bench, wmt22(), args.full)
    else:
        print(f"(shared data not found at {SHARED_DATA}: WMT22 rows skipped)", file=sys.stderr)
    bench_synthetic(bench, args.segments)
    print(f"machine: {machine()}")
    print(table(bench.rows, ("workload", "implementation", "time", "vs nlgmetrics", "note")))
    if DIFFERENCES:
        print("torchmetrics numbers that differ from sacrebleu's:\n  " + "\n  ".join(DIFFERENCES))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(bench.figures, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
