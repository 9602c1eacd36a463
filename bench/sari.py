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
* **latency**: batches of 1, 8, 64 and 512 WMT22 segments no earlier call has seen, per segment;
* **cold**: a fresh process that imports the library and scores one segment.

Timings alternate between the two implementations (best of ``--repeat`` rounds) so that background load hits both
alike. Run: ``python bench/sari.py`` (``--quick``: fewer systems and rounds).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import nlgmetrics as nm
from _common import SHARED_DATA, fmt_time, interleaved, machine, table
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

    best, out = interleaved({"cold": cold, "cached": cached, "script": theirs}, repeat=repeat)
    for name in ("cold", "cached"):
        diff = max(abs(a - b) for a, b in zip(out[name], out["script"], strict=True))
        assert diff == 0.0, f"{label}: scores differ by {diff}"
    r_cold, r_cached = best["script"] / best["cold"], best["script"] / best["cached"]
    rows = [
        (f"{label}: {len(chosen)} systems, {n_seg:,} segments", "nlgmetrics.sari, cold for every system",
         fmt_time(best["cold"]), f"{r_cold:.1f}× faster"),
        ("", "nlgmetrics.sari, sources and references tokenized once", fmt_time(best["cached"]),
         f"{r_cached:.1f}× faster"),
        ("", "HF evaluate's script (restated)", fmt_time(best["script"]), "1.00×"),
    ]  # fmt: skip
    return rows, r_cold, r_cached


def latency_rows(data: Any, sizes: list[int], repeat: int) -> tuple[list[tuple[str, ...]], dict[int, float]]:
    """Per-segment latency on batches no earlier call has seen: each round takes the next unseen slice."""
    sources, refs, systems = data
    preds = next(iter(systems.values()))
    rows, ratios = [], {}
    cursor = 0
    for size in sizes:
        slices = []
        for _ in range(repeat):
            if cursor + size > len(preds):
                cursor = 0
            slices.append(slice(cursor, cursor + size))
            cursor += size
        it_ours, it_theirs = iter(slices), iter(slices)

        def ours(it: Any = it_ours) -> float:
            s = next(it)  # new text: nothing in the cache helps
            return nm.sari(preds[s], refs[s], sources[s]).score

        def theirs(it: Any = it_theirs) -> float:
            s = next(it)
            return corpus_sari(sources[s], preds[s], refs[s])

        best, _ = interleaved({"ours": ours, "script": theirs}, repeat=repeat)
        ratio = best["script"] / best["ours"]
        ratios[size] = ratio
        rows.append(
            (
                f"latency, batch of {size}",
                f"{fmt_time(best['ours'] / size)} / segment",
                f"{fmt_time(best['script'] / size)} / segment",
                f"{ratio:.1f}×",
            )
        )
    return rows, ratios


_COLD = """
import time
t = time.perf_counter()
{imports}
{call}
print(time.perf_counter() - t)
"""
_SEGMENT = (
    "['About 95 species are currently accepted .'], ['About 95 you now get in .'], "
    "[['About 95 species are currently known .', '95 species are now accepted .']]"
)


def cold(repeat: int) -> tuple[float, float]:
    """Best wall time of a fresh process that imports the library and scores one segment."""
    ours = _COLD.format(
        imports="import nlgmetrics as nm",
        call=f"s, p, r = {_SEGMENT}\nnm.sari(p, r, s).score",
    )
    theirs = _COLD.format(
        imports=f"import sys; sys.path.insert(0, {str(ROOT)!r})\nfrom tests.naive_sari import corpus_sari",
        call=f"corpus_sari({_SEGMENT})",
    )
    best = {"ours": float("inf"), "script": float("inf")}
    for _ in range(repeat):
        for name, code in (("ours", ours), ("script", theirs)):
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            best[name] = min(best[name], float(out.stdout.split()[-1]))
    return best["ours"], best["script"]


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
    print(f"machine: {machine()}")
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
    print(table(rows, ("workload", "implementation", "time", "ratio")))
    print()
    lat_rows, lat = latency_rows(wmt, [1, 8, 64, 512], repeat=3 if args.quick else 7)
    figures.update({f"latency_{k}_ratio": v for k, v in lat.items()})
    t_ours, t_theirs = cold(1 if args.quick else 3)
    figures.update(cold_ours_s=t_ours, cold_script_s=t_theirs)
    lat_rows.append(("cold: import + one segment", fmt_time(t_ours), fmt_time(t_theirs), f"{t_theirs / t_ours:.1f}×"))
    print(table(lat_rows, ("workload", "nlgmetrics", "script (restated)", "ratio")))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
