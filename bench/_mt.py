"""The benchmark of one machine-translation metric (BLEU, chrF or TER) against its peers; ``bench/bleu.py``,
``bench/chrf.py`` and ``bench/ter.py`` each run it for their metric (see :mod:`_harness` for the method)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import _harness as h
import nlgmetrics as nm
from _common import fmt_time, synthetic_mt, table, wmt22_references, wmt22_system

# per metric: cold tools (code setting RESULT), a label for the slow peers' subset
COLD = {
    "bleu": {
        "nlgmetrics": "import nlgmetrics as nm\nRESULT = nm.bleu(preds, refs).score",
        "sacrebleu": "from sacrebleu.metrics import BLEU\nRESULT = BLEU().corpus_score(preds, [refs]).score",
        "bleuscore (no smoothing)": (
            "import bleuscore\n"
            "RESULT = 100 * bleuscore.compute([[r] for r in refs], preds, ref_len_method='sacrebleu')['bleu']"
        ),
        "fast-bleu (NLTK-style, whitespace tokens)": (
            "from fast_bleu import BLEU\nb = BLEU([r.split() for r in refs], {'4': (0.25,) * 4})\n"
            "s = b.get_score([p.split() for p in preds])['4']\nRESULT = 100 * sum(s) / len(s)"
        ),
    },
    "chrf": {
        "nlgmetrics": "import nlgmetrics as nm\nRESULT = nm.chrf(preds, refs).score",
        "sacrebleu": "from sacrebleu.metrics import CHRF\nRESULT = CHRF().corpus_score(preds, [refs]).score",
    },
    "ter": {
        "nlgmetrics": "import nlgmetrics as nm\nRESULT = nm.ter(preds, refs).score",
        "sacrebleu": "from sacrebleu.metrics import TER\nRESULT = TER().corpus_score(preds, [refs]).score",
    },
}
SLOW = {
    "bleu": {
        "torchmetrics SacreBLEUScore": (
            "from torchmetrics.text import SacreBLEUScore\n"
            "RESULT = 100 * float(SacreBLEUScore()(preds, [[r] for r in refs]))"
        ),
        "nltk corpus_bleu (whitespace tokens; vs preset nltk)": (
            "from nltk.translate.bleu_score import corpus_bleu\n"
            "RESULT = corpus_bleu([[r.split()] for r in refs], [p.split() for p in preds])"
        ),
        "nlgmetrics preset='nltk'": "import nlgmetrics as nm\nRESULT = nm.bleu(preds, refs, preset='nltk').score",
    },
    "chrf": {
        "torchmetrics CHRFScore": "from torchmetrics.text import CHRFScore\n"
        "RESULT = 100 * float(CHRFScore()(preds, [[r] for r in refs]))"
    },
    "ter": {
        "torchmetrics TranslationEditRate": (
            "from torchmetrics.text import TranslationEditRate\n"
            "RESULT = 100 * float(TranslationEditRate()(preds, [[r] for r in refs]))"
        )
    },
}
CLI = {"bleu": ("bleu", "bleu"), "chrf": ("chrf", "chrf"), "ter": ("ter", "ter")}


def _compile_bytecode() -> None:
    """Write nlgmetrics' bytecode (``__pycache__``) before the cold runs, as ``pip install`` does for an installed
    package and as the peers' installs did: with ``PYTHONDONTWRITEBYTECODE`` set, an editable checkout would
    otherwise compile every module from source in every fresh process, a cost no installed copy pays."""
    import compileall

    compileall.compile_dir(os.path.dirname(nm.__file__), quiet=1)


def _sentence_tools(metric: str) -> dict[str, Callable[[list[str], list[str]], Any]]:
    import sacrebleu

    ours_fn = {"bleu": nm.sentence_bleu, "chrf": nm.sentence_chrf, "ter": nm.sentence_ter}[metric]
    theirs = {"bleu": sacrebleu.sentence_bleu, "chrf": sacrebleu.sentence_chrf, "ter": sacrebleu.sentence_ter}[metric]

    def ours(p: list[str], r: list[str]) -> Any:
        if len(p) == 1:
            return ours_fn(p[0], [r[0]])
        if metric == "bleu":
            return nm.sentence_bleu(p, r)  # one result per sentence
        return getattr(nm, metric)(p, r, segments=True).segments

    tools: dict[str, Callable[[list[str], list[str]], Any]] = {
        "nlgmetrics": ours,
        f"sacrebleu sentence_{metric} loop": lambda p, r: [theirs(a, [b]) for a, b in zip(p, r, strict=True)],
    }
    if metric == "bleu":
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

        smooth = SmoothingFunction().method1
        tools["nltk sentence_bleu loop (method1)"] = lambda p, r: [
            sentence_bleu([b.split()], a.split(), smoothing_function=smooth) for a, b in zip(p, r, strict=True)
        ]
    return tools


def _cli(metric: str, preds: list[str], refs: list[str], rounds: int) -> list[tuple[str, ...]]:
    """End to end from the command line, interpreter start-up included: ``nlgmetrics <metric>`` against
    ``sacrebleu REF -i HYP -m <metric>``."""
    bindir = os.path.dirname(sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        hyp, ref = os.path.join(tmp, "hyp.txt"), os.path.join(tmp, "ref.txt")
        for path, lines in ((hyp, preds), (ref, refs)):
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
        ours_cmd, sacre_metric = CLI[metric]
        commands = {
            f"nlgmetrics {ours_cmd}": [os.path.join(bindir, "nlgmetrics"), ours_cmd, "--pred", hyp, "--ref", ref],
            f"sacrebleu -m {sacre_metric}": [
                os.path.join(bindir, "sacrebleu"),
                ref,
                "-i",
                hyp,
                "-m",
                sacre_metric,
                "-b",
            ],
        }
        best = dict.fromkeys(commands, float("inf"))
        for _ in range(rounds):
            for name, cmd in commands.items():
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True)
                best[name] = min(best[name], time.perf_counter() - t0)
    base = best[f"nlgmetrics {ours_cmd}"]
    label = f"CLI end to end, {len(preds):,} segments"
    rows = []
    for name, t in best.items():
        rows.append((label, name, fmt_time(t), f"{t / base:.2f}× ours" if t != base else "1.00×", "", "", ""))
        label = ""
    return rows


def run(metric: str, argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=f"{metric}: cold, latency, warm and torch against the peers")
    ap.add_argument("--quick", action="store_true", help="smaller corpora and fewer rounds (under a minute)")
    ap.add_argument("--rounds", type=int, default=0, help="rounds of the cold runs (default: 1 with --quick, else 3)")
    args = ap.parse_args(argv)
    q = args.quick
    n = 2_000 if q else 10_000
    slow_n = 200 if q else 1_000
    rounds = args.rounds or (1 if q else 3)
    h.header(metric, f"python bench/{metric}.py{' --quick' if q else ''}")
    _compile_bytecode()
    cold_rows: list[tuple[str, ...]] = []
    figures: dict[str, float] = {}
    preds, refs = synthetic_mt(n, seed=1)
    if metric == "ter" and q:
        preds, refs = preds[:500], refs[:500]
    res = h.cold(COLD[metric], preds, refs, rounds=rounds)
    cold_rows += h.cold_table(f"{len(preds):,} synthetic segments, corpus {metric}", res, "nlgmetrics")
    figures["cold_synthetic_vs_sacrebleu"] = res["sacrebleu"]["wall"] / res["nlgmetrics"]["wall"]
    figures["cold_synthetic_cpu_vs_sacrebleu"] = res["sacrebleu"]["cpu"] / res["nlgmetrics"]["cpu"]
    wmt = wmt22_system("de-en")
    if wmt is not None:
        pair = {k: COLD[metric][k] for k in ("nlgmetrics", "sacrebleu")}
        # the quick run scores the first 500 segments and the whole test set (1,984), the full run the whole set
        for size, suffix in ((500, "_500"), (None, "")) if q else ((None, ""),):
            wp, wr = wmt[0][:size], wmt[1][:size]
            res = h.cold(pair, wp, wr, rounds=rounds if size is None else max(rounds, 3))
            cold_rows += h.cold_table(f"WMT22 de-en, 1 system, {len(wp):,} segments", res, "nlgmetrics")
            figures[f"cold_wmt22{suffix}_vs_sacrebleu"] = res["sacrebleu"]["wall"] / res["nlgmetrics"]["wall"]
            figures[f"cold_wmt22{suffix}_cpu_vs_sacrebleu"] = res["sacrebleu"]["cpu"] / res["nlgmetrics"]["cpu"]
        both = wmt22_references("de-en")
        if both is not None and metric != "ter":  # sacrebleu's TER takes several references too, but slowly
            refs2 = [list(r) for r in zip(*both, strict=True)]
            multi = {
                "nlgmetrics": COLD[metric]["nlgmetrics"],
                "sacrebleu": COLD[metric]["sacrebleu"].replace("[refs]", "[list(r) for r in zip(*refs)]"),
            }
            res = h.cold(multi, wmt[0], refs2, rounds=max(rounds, 2))
            cold_rows += h.cold_table(f"WMT22 de-en, {len(wmt[0]):,} segments x 2 references", res, "nlgmetrics")
            figures["cold_wmt22_2refs_vs_sacrebleu"] = res["sacrebleu"]["wall"] / res["nlgmetrics"]["wall"]
            figures["cold_wmt22_2refs_cpu_vs_sacrebleu"] = res["sacrebleu"]["cpu"] / res["nlgmetrics"]["cpu"]
    else:
        print("(shared data not found: WMT22 rows skipped)", file=sys.stderr)
    slow = {"nlgmetrics": COLD[metric]["nlgmetrics"], **SLOW[metric]}
    res = h.cold(slow, preds[:slow_n], refs[:slow_n], rounds=1)
    cold_rows += h.cold_table(f"{slow_n:,} synthetic segments (slow peers)", res, "nlgmetrics")
    cold_rows += _cli(metric, preds, refs, rounds)
    lat_rows = h.latency_table(
        f"synthetic sentences, sentence {metric}",
        lat := h.latency(
            _sentence_tools(metric),
            synthetic_mt,
            rounds=2 if q else 5,
            min_segments=64 if q else 512,
            sizes=(1, 8, 64) if (q and metric == "ter") else h.SIZES,
        ),
        "nlgmetrics",
    )
    peer = f"sacrebleu sentence_{metric} loop"
    figures["one_pair_speedup_vs_sacrebleu"] = lat[1][peer][0] / lat[1]["nlgmetrics"][0]
    figures["one_pair_cpu_speedup_vs_sacrebleu"] = lat[1][peer][1] / lat[1]["nlgmetrics"][1]
    figures["batch64_speedup_vs_sacrebleu"] = lat[64][peer][0] / lat[64]["nlgmetrics"][0]
    figures["batch64_cpu_speedup_vs_sacrebleu"] = lat[64][peer][1] / lat[64]["nlgmetrics"][1]
    import sacrebleu.metrics as sm

    theirs = {"bleu": sm.BLEU, "chrf": sm.CHRF, "ter": sm.TER}[metric]()
    wp, wr = (preds, refs) if metric != "ter" else (preds[:500], refs[:500])
    warm_rows = h.warm_table(
        f"{len(wp):,} synthetic segments, corpus {metric}, repeated",
        h.warm(
            {
                "nlgmetrics": lambda: getattr(nm, metric)(wp, wr),
                "sacrebleu": lambda: theirs.corpus_score(wp, [wr]),
            },
            rounds=rounds,
        ),
        "nlgmetrics",
    )
    h.print_tables([(h.COLD_HEADER, cold_rows), (h.LATENCY_HEADER, lat_rows), (h.WARM_HEADER, warm_rows)])
    from nlgmetrics import torch as nt

    adapter = {"bleu": nt.BLEU, "chrf": nt.CHRF, "ter": nt.TER}[metric]()
    tp, tr = synthetic_mt(32 * (10 if q else 40), seed=5)
    batches = [(tp[i : i + 32], tr[i : i + 32]) for i in range(0, len(tp), 32)]
    upd, fun = h.torch_update(adapter, getattr(nm, metric), batches)
    print()
    print(
        f"torch adapter: {type(adapter).__name__}.update() on {len(batches)} batches of 32: {fmt_time(upd)}; "
        f"functional call on the same batches: {fmt_time(fun)}; update / functional = {upd / fun:.2f} (target <= 1.5)"
    )
    figures["torch_update_over_functional"] = upd / fun
    print("targets: " + ", ".join(f"{k} = {v:.2f}" for k, v in figures.items()))
    print(f"(after the run: {h.machine_load()})")
    return 0


__all__ = ["run", "table"]
