"""Benchmark of SARI against HF evaluate's SARI script (restated line by line in ``tests/naive_sari.py``).

The peer is the script's own arithmetic: sacrebleu 2.6's ``13a`` tokenizer (built afresh per sentence, as the
script's ``normalize`` does) and ``collections.Counter`` per n-gram order, then the mean of the sentence scores.
``evaluate.load("sari")`` adds its own overhead (Arrow tables, features) on top: the restated script is the
faster, fairer peer. Every figure is checked first: both give the same score (per segment to the bit).

Workloads (from ``../shared/data``, shaped as simplification data: a source, a system output, several references):

* **WMT22 de-en**: the source is reference A, the references are reference B and the outputs of three other
  systems (four references, as the four-to-ten of TurkCorpus and ASSET), the predictions each of the remaining
  six systems (1,984 segments each), scored one system after the other: cold (nothing kept from one system to
  the next), and with the sources' and references' tokens kept (nlgmetrics' cache, as when several systems are
  scored on one test set);
* **SummEval**: the source is the news article, the references its 11 reference summaries, the predictions
  each of the 16 systems' summaries (100 segments each): long sources, many references;
* **latency**: batches of 1, 8, 64 and 512 WMT22 segments no earlier call has seen (each round takes slices
  that no earlier round took, across the systems' outputs), per segment;
* **cold**: a fresh process that imports the library and scores one segment;
* **warm** (labelled, not a headline): the same 64 segments scored again and again.

Timings alternate between the implementations (best of ``--repeat`` rounds) so that background load hits them
alike; CPU time (``time.process_time``) is printed beside wall time, and the ratios are CPU-time ratios (a shared
machine disturbs them less). Run: ``python bench/sari.py`` (``--quick``: fewer systems and rounds).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _harness as harness
import nlgmetrics as nm
from _common import SHARED_DATA, fmt_time, table
from nlgmetrics.algorithms.fastpath import has_native
from nlgmetrics.metrics import sari as sari_module

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.naive_sari import corpus_sari, sentence_sari  # noqa: E402


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def wmt22() -> tuple[list[str], list[list[str]], dict[str, list[str]]]:
    """Sources (reference A), four references per segment (reference B and three systems) and five systems."""
    root = SHARED_DATA / "wmt22"
    a = _lines(root / "references" / "generaltest2022.de-en.ref.A.en")
    b = _lines(root / "references" / "generaltest2022.de-en.ref.B.en")
    paths = sorted((root / "system-outputs").glob("generaltest2022.de-en.hyp.*"))
    outputs = {p.name.split(".hyp.")[1].rsplit(".", 1)[0]: _lines(p) for p in paths}
    names = list(outputs)
    ref_systems, systems = names[:3], names[3:]
    refs = [[b[i], *(outputs[s][i] for s in ref_systems)] for i in range(len(a))]
    return a, refs, {s: outputs[s] for s in systems}


def summeval() -> tuple[list[str], list[list[str]], dict[str, list[str]]]:
    docs = [json.loads(line) for line in (SHARED_DATA / "summeval" / "summeval.jsonl").read_text("utf-8").splitlines()]
    names = sorted(docs[0]["sys_summs"])
    systems = {s: [d["sys_summs"][s]["sys_summ"] for d in docs] for s in names}
    return [d["src"] for d in docs], [list(d["ref_summs"]) for d in docs], systems


def interleaved_cpu(fns: dict[str, Callable[[], Any]], repeat: int) -> tuple[dict[str, tuple[float, float]], Any]:
    """Best (wall, CPU) seconds of each function over ``repeat`` rounds, the functions taking turns in each round;
    and each one's last result."""
    best = {name: (float("inf"), float("inf")) for name in fns}
    out: dict[str, Any] = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0, c0 = time.perf_counter(), time.process_time()
            out[name] = fn()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best, out


def corpus_rows(
    label: str, data: Any, repeat: int, n_systems: int | None
) -> tuple[list[tuple[str, ...]], float, float]:
    """Every system scored one after the other: cold (nothing cached between systems), and as a campaign does it
    (the sources' and references' tokens kept from one system to the next)."""
    sources, refs, systems = data
    chosen = list(systems.items())[:n_systems]
    n_seg = sum(len(p) for _, p in chosen)

    def cold() -> list[float]:
        out = []
        for _, p in chosen:
            sari_module._CACHE.clear()
            out.append(nm.sari(p, refs, sources).score)
        return out

    def cached() -> list[float]:
        sari_module._CACHE.clear()
        return [nm.sari(p, refs, sources).score for _, p in chosen]

    def theirs() -> list[float]:
        return [corpus_sari(sources, p, refs) for _, p in chosen]

    best, out = interleaved_cpu({"cold": cold, "cached": cached, "script": theirs}, repeat=repeat)
    for name in ("cold", "cached"):
        diff = max(abs(a - b) for a, b in zip(out[name], out["script"], strict=True))
        assert diff == 0.0, f"{label}: scores differ by {diff}"
    r_cold, r_cached = best["script"][1] / best["cold"][1], best["script"][1] / best["cached"][1]
    rows = [
        (f"{label}: {len(chosen)} systems, {n_seg:,} segments", "nlgmetrics.sari, cold for every system",
         fmt_time(best["cold"][0]), fmt_time(best["cold"][1]), f"{r_cold:.1f}× faster"),
        ("", "nlgmetrics.sari, sources and references tokenized once", fmt_time(best["cached"][0]),
         fmt_time(best["cached"][1]), f"{r_cached:.1f}× faster"),
        ("", "HF evaluate's script (restated)", fmt_time(best["script"][0]), fmt_time(best["script"][1]), "1.00×"),
    ]  # fmt: skip
    return rows, r_cold, r_cached


def fresh_batches(data: Any) -> Callable[[int, int], tuple[list[str], list[Any]]]:
    """``make_batch(n, seed)`` for the harness: ``n`` consecutive segments (prediction; source and references)
    from the systems' outputs taken one after the other, each call from where the last one stopped, so no call
    sees a batch an earlier call saw (the sources and references repeat only after every system's pass)."""
    sources, refs, systems = data
    triples = [(p, (s, r)) for preds in systems.values() for p, s, r in zip(preds, sources, refs, strict=True)]
    cursor = [0]

    def make(n: int, seed: int) -> tuple[list[str], list[Any]]:
        if cursor[0] + n > len(triples):
            cursor[0] = 0
        part = triples[cursor[0] : cursor[0] + n]
        cursor[0] += n
        return [p for p, _ in part], [sr for _, sr in part]

    return make


def ours(preds: list[str], packed: list[Any]) -> float:
    return nm.sari(preds, [r for _, r in packed], [s for s, _ in packed]).score


def script(preds: list[str], packed: list[Any]) -> float:
    return corpus_sari([s for s, _ in packed], preds, [r for _, r in packed])


_COLD_OURS = """import nlgmetrics as nm
RESULT = nm.sari(preds, [r for _, r in refs], [s for s, _ in refs]).score"""
_COLD_SCRIPT = f"""import sys
sys.path.insert(0, {str(ROOT)!r})
from tests.naive_sari import corpus_sari
RESULT = corpus_sari([s for s, _ in refs], preds, [r for _, r in refs])"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer systems and rounds")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    if not SHARED_DATA.is_dir():
        print(f"the shared data folder is missing: {SHARED_DATA}", file=sys.stderr)
        return 2
    harness.header(
        "SARI: nlgmetrics against HF evaluate's script (restated)",
        "python bench/sari.py" + (" --quick" if args.quick else ""),
    )
    print(f"compiled kernel: {'yes' if has_native() else 'no (numpy and plain-Python paths)'}")
    wmt = wmt22()
    # the per-segment scores agree to the bit, not only the corpus mean
    sources, refs, systems = wmt
    preds = next(iter(systems.values()))
    segs = nm.sari(preds[:300], refs[:300], sources[:300], segments=True).segments
    assert segs is not None
    assert all(a == sentence_sari(s, p, r) for a, s, p, r in zip(segs, sources, preds, refs, strict=False))
    figures: dict[str, float] = {}
    rows: list[tuple[str, ...]] = []
    r, figures["wmt22_cold_ratio"], figures["wmt22_cached_ratio"] = corpus_rows(
        "WMT22 de-en, 4 references", wmt, repeat, 2 if args.quick else None
    )
    rows += r
    r, figures["summeval_cold_ratio"], figures["summeval_cached_ratio"] = corpus_rows(
        "SummEval, 11 references", summeval(), repeat, 4 if args.quick else None
    )
    rows += r
    print()
    print(table(rows, ("corpus workload", "implementation", "wall", "CPU", "CPU ratio")))
    tools = {"nlgmetrics": ours, "script (restated)": script}
    lat = harness.latency(tools, fresh_batches(wmt), rounds=3 if args.quick else 5)
    for n, per in lat.items():
        figures[f"latency_{n}_cpu_ratio"] = per["script (restated)"][1] / per["nlgmetrics"][1]
    one = fresh_batches(wmt)(1, 0)
    cold = harness.cold(
        {"nlgmetrics": _COLD_OURS, "script (restated)": _COLD_SCRIPT}, *one, rounds=1 if args.quick else 3
    )
    figures["cold_cpu_ratio"] = cold["script (restated)"]["cpu"] / cold["nlgmetrics"]["cpu"]
    p64, r64 = fresh_batches(wmt)(64, 0)
    warm = harness.warm({"nlgmetrics": lambda: ours(p64, r64), "script (restated)": lambda: script(p64, r64)})
    harness.print_tables(
        [
            (harness.COLD_HEADER, harness.cold_table("WMT22, one segment", cold, "nlgmetrics")),
            (harness.LATENCY_HEADER, harness.latency_table("WMT22 de-en, 4 references", lat, "nlgmetrics")),
            (harness.WARM_HEADER, harness.warm_table("WMT22, the same 64 segments", warm, "nlgmetrics")),
        ]
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
