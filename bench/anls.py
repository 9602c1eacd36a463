"""Benchmark of the ANLS / NLS family against the peer tools, in one process on the same data.

Peers:
* the NLS class as it is usually written on torchmetrics (``EditDistance(reduction="none")`` plus the
  normalisation ``1 - d / max(len)``), the seed of this project;
* a bare rapidfuzz loop (``Levenshtein.normalized_similarity`` per pair), the speed floor for Python callers;
* the PyPI ``anls`` package (``anls_score`` per question), on the real DocVQA answers.

Run: ``python bench/anls.py`` (add ``--pairs N`` to change the synthetic corpus size, ``--quick`` to time the
torchmetrics class on a 2,000-pair subset and scale the ratio per pair).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import nlgmetrics as nm
from _common import SHARED_DATA, best_of, fmt_time, machine, table


def synthetic_pairs(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """Short answer-like pairs: a target of 1-30 characters and a noisy copy of it."""
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 .,-/"
    preds, targets = [], []
    for _ in range(n):
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
        p = list(t)
        for _ in range(rng.randint(0, 4)):
            op = rng.random()
            pos = rng.randint(0, len(p))
            if op < 0.4 and p:
                p[min(pos, len(p) - 1)] = rng.choice(alphabet)
            elif op < 0.7:
                p.insert(pos, rng.choice(alphabet))
            elif p:
                del p[min(pos, len(p) - 1)]
        preds.append("".join(p))
        targets.append(t)
    return preds, targets


def torchmetrics_nls_class():
    """The seed: NLS written as a torchmetrics Metric on top of torchmetrics' EditDistance."""
    import torch
    from torchmetrics import Metric
    from torchmetrics.text import EditDistance

    class SeedNLS(Metric):
        def __init__(self) -> None:
            super().__init__()
            self.edit = EditDistance(reduction="none")
            self.add_state("total", default=torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
            self.add_state("count", default=torch.tensor(0), dist_reduce_fx="sum")

        def update(self, preds, target):
            d = self.edit(preds, target).to(torch.float64)
            lens = torch.tensor([max(len(p), len(t)) for p, t in zip(preds, target, strict=False)], dtype=torch.float64)
            sims = torch.where(lens > 0, 1 - d / lens.clamp(min=1), torch.ones_like(d))
            self.total += sims.sum()
            self.count += len(preds)

        def compute(self):
            return self.total / self.count

    return SeedNLS


def _import_anls_package():
    """``anls.anls_score`` from the PyPI package; this script's own name shadows it on ``sys.path``."""
    import importlib

    here = str(Path(__file__).resolve().parent)
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if p not in ("", here) and Path(p).resolve() != Path(here)]
    own = sys.modules.pop("anls", None)
    try:
        return importlib.import_module("anls").anls_score
    except ImportError:
        return None
    finally:
        sys.path[:] = saved
        if own is not None:
            sys.modules["__main__" if own.__name__ == "__main__" else "anls"] = own


NLS_OURS = "import nlgmetrics as nm\nRESULT = nm.nls(preds, refs).score"
NLS_BARE = (
    "from rapidfuzz.distance import Levenshtein\n"
    "RESULT = sum(map(Levenshtein.normalized_similarity, preds, refs)) / len(preds)"
)
ONE_NLS = "import nlgmetrics as nm\nRESULT = nm.nls(preds, refs).score"
ONE_ANLS = "import nlgmetrics as nm\nRESULT = nm.anls(preds, [[r] for r in refs]).score"
ONE_BARE = "from rapidfuzz.distance import Levenshtein\nRESULT = Levenshtein.normalized_similarity(preds[0], refs[0])"
CER_OURS = "import nlgmetrics as nm\nRESULT = nm.cer(preds, refs).score"
CER_JIWER = "import jiwer\nRESULT = jiwer.cer(refs, preds)"


def cold_and_latency(quick: bool) -> dict[str, float]:
    """Cold (fresh process, import + first call) and latency per pair on fresh pairs (see bench/_harness.py)."""
    from rapidfuzz.distance import Levenshtein

    import _harness as h

    h.header("NLS / ANLS: cold and latency", f"python bench/anls.py{' --quick' if quick else ''}")
    n = 2_000 if quick else 10_000
    preds, targets = synthetic_pairs(n, seed=7)
    rounds = 2 if quick else 3  # (a first round may write the bytecode of changed modules: the best round counts)
    cold_rows = h.cold_table(
        f"NLS, {n:,} synthetic short pairs",
        res := h.cold({"nlgmetrics": NLS_OURS, "bare rapidfuzz loop": NLS_BARE}, preds, targets, rounds=rounds),
        "nlgmetrics",
    )
    figures = {"cold_nls_over_bare_rapidfuzz": res["nlgmetrics"]["wall"] / res["bare rapidfuzz loop"]["wall"]}
    first = h.cold(
        {"nlgmetrics nls": ONE_NLS, "nlgmetrics anls": ONE_ANLS, "bare rapidfuzz": ONE_BARE},
        preds[:1],
        targets[:1],
        rounds=rounds + 2,
    )
    cold_rows += h.cold_table("import + first call, one pair", first, "nlgmetrics nls")
    figures["import_first_call_nls_ms"] = first["nlgmetrics nls"]["wall"] * 1e3
    figures["import_first_call_anls_ms"] = first["nlgmetrics anls"]["wall"] * 1e3
    cold_rows += h.cold_table(
        f"CER, {n:,} synthetic short pairs",
        h.cold({"nlgmetrics": CER_OURS, "jiwer": CER_JIWER}, preds, targets, rounds=rounds),
        "nlgmetrics",
    )

    def ours(p: list[str], r: list[str]) -> object:
        return nm.nls(p[0], r[0]) if len(p) == 1 else nm.nls(p, r, reduction=None)

    anls_score = _import_anls_package()
    tools = {
        "nlgmetrics nls": ours,
        "bare rapidfuzz loop": lambda p, r: [
            Levenshtein.normalized_similarity(a, b) for a, b in zip(p, r, strict=True)
        ],
        "nlgmetrics anls": lambda p, r: nm.anls(p[0], r[0]) if len(p) == 1 else nm.anls(p, r, segments=True),
    }
    if anls_score is not None:
        tools["anls package"] = lambda p, r: [anls_score(a, [b], 0.5) for a, b in zip(p, r, strict=True)]
    lat = h.latency(tools, synthetic_pairs, rounds=2 if quick else 5, min_segments=256 if quick else 2048)
    lat_rows = h.latency_table("short pairs (answers, OCR lines)", lat, "nlgmetrics nls")
    figures["one_pair_nls_us"] = lat[1]["nlgmetrics nls"][0] * 1e6
    figures["one_pair_nls_cpu_us"] = lat[1]["nlgmetrics nls"][1] * 1e6
    h.print_tables([(h.COLD_HEADER, cold_rows), (h.LATENCY_HEADER, lat_rows)])
    from nlgmetrics import torch as nt

    tp, tr = synthetic_pairs(32 * (10 if quick else 100), seed=9)
    batches = [(tp[i : i + 32], tr[i : i + 32]) for i in range(0, len(tp), 32)]
    upd, fun = h.torch_update(nt.NormalizedLevenshteinSimilarity(), nm.nls, batches)
    print(
        f"\ntorch adapter: NormalizedLevenshteinSimilarity.update() on {len(batches)} batches of 32: {fmt_time(upd)}; "
        f"functional call on the same batches: {fmt_time(fun)}; update / functional = {upd / fun:.2f} (target <= 1.5)"
    )
    figures["torch_update_over_functional"] = upd / fun
    print("targets: " + ", ".join(f"{k} = {v:.2f}" for k, v in figures.items()))
    print(f"(after the run: {h.machine_load()})")
    return figures


def one_pair_loop(quick: bool) -> dict[str, float]:
    """Per-call CPU time of one-pair calls (the reward-loop case) in a loop over fresh pairs, tools interleaved
    round by round, best round: ``nm.nls(p, r)``, ``nm.anls(p, r)``, ``nm.cer(p, r)`` against a bare rapidfuzz call
    and jiwer's ``cer``."""
    import time

    from rapidfuzz.distance import Levenshtein

    import _harness as h

    tools = {
        "nlgmetrics nls": nm.nls,
        "bare rapidfuzz normalized_similarity": Levenshtein.normalized_similarity,
        "nlgmetrics anls": nm.anls,
        "nlgmetrics cer": nm.cer,
    }
    try:
        import jiwer

        tools["jiwer cer"] = lambda p, r: jiwer.cer(r, p)
    except ImportError:
        pass
    n, rounds = (5_000, 3) if quick else (20_000, 5)
    best = dict.fromkeys(tools, float("inf"))
    for k in range(rounds):
        pairs = list(zip(*synthetic_pairs(n, seed=500 + k), strict=True))
        for name, fn in tools.items():
            c0 = time.process_time()
            for p, r in pairs:
                fn(p, r)
            best[name] = min(best[name], (time.process_time() - c0) / n)
    base = best["bare rapidfuzz normalized_similarity"]
    print(f"\none pair per call, {n:,} fresh pairs per round, best of {rounds} (CPU per call; {h.machine_load()}):")
    for name, t in best.items():
        print(f"  {name:40s} {t * 1e6:6.2f} µs  ({t / base:.1f}× the bare rapidfuzz call)")
    return {f"one_pair_{name.split()[-1]}_cpu_us": t * 1e6 for name, t in best.items() if name.startswith("nlg")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=20_000)
    ap.add_argument("--quick", action="store_true", help="time torchmetrics on 2,000 pairs and scale per pair")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)

    from rapidfuzz.distance import Levenshtein

    preds, targets = synthetic_pairs(args.pairs if not args.quick else 5_000)
    rows = []
    figures: dict[str, float] = {}

    t_ours, ours = best_of(lambda: nm.nls(preds, targets).score, repeat=7)

    def bare_loop():
        return sum(Levenshtein.normalized_similarity(p, t) for p, t in zip(preds, targets, strict=False)) / len(preds)

    t_bare, bare = best_of(bare_loop, repeat=7)
    assert abs(ours - bare) < 1e-12, (ours, bare)

    n_tm = 2_000 if args.quick else args.pairs
    try:
        seed_cls = torchmetrics_nls_class()

        def tm_run():
            m = seed_cls()
            m.update(preds[:n_tm], targets[:n_tm])
            return float(m.compute())

        t_tm, tm_val = best_of(tm_run, repeat=1, warmup=0)
        t_tm *= args.pairs / n_tm
        ours_subset = nm.nls(preds[:n_tm], targets[:n_tm]).score
        tm_note = f"{tm_val:.6f} (ours on the same pairs: {ours_subset:.6f})"
    except ImportError:
        t_tm, tm_note = float("nan"), "torchmetrics not installed"

    rows.append((f"NLS, {args.pairs:,} synthetic pairs", "nlgmetrics.nls", fmt_time(t_ours), "1.00×", f"{ours:.6f}"))
    rows.append(("", "bare rapidfuzz loop", fmt_time(t_bare), f"{t_ours / t_bare:.2f}× ours/theirs", f"{bare:.6f}"))
    scaled = " (scaled from 2,000 pairs)" if args.quick else ""
    rows.append(
        ("", f"torchmetrics EditDistance NLS class{scaled}", fmt_time(t_tm), f"{t_tm / t_ours:,.0f}× faster", tm_note)
    )
    figures.update(nls_ours_s=t_ours, nls_bare_rapidfuzz_s=t_bare, nls_torchmetrics_s=t_tm)

    docvqa = SHARED_DATA / "docvqa"
    if docvqa.is_dir():
        anls_score = _import_anls_package()
        for path in sorted(docvqa.glob("*.docvqa-val.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            p = [d["answer"] for d in data]
            r = [d["gt_answers"] for d in data]
            t_a, a_val = best_of(lambda p=p, r=r: nm.anls(p, r, preset="anls-pkg").score, repeat=7)
            label = f"ANLS, {path.name.split('.')[0]} ({len(p):,} questions)"
            rows.append((label, "nlgmetrics.anls(preset='anls-pkg')", fmt_time(t_a), "1.00×", f"{a_val:.5f}"))
            if anls_score is not None:
                t_pkg, pkg_val = best_of(
                    lambda p=p, r=r: sum(anls_score(x, y, 0.5) for x, y in zip(p, r, strict=False)) / len(p), repeat=3
                )
                rows.append(("", "anls package", fmt_time(t_pkg), f"{t_pkg / t_a:,.0f}× faster", f"{pkg_val:.5f}"))
                figures[f"anls_{path.name.split('.')[0]}_speedup_vs_pkg"] = t_pkg / t_a
    else:
        print(f"(shared data not found at {SHARED_DATA}: DocVQA rows skipped)", file=sys.stderr)

    print(f"machine: {machine()}")
    print("WARM (in one process, best of repeated calls; not the headline):")
    print(table(rows, ("workload", "implementation", "time", "ratio", "value")))
    figures |= cold_and_latency(args.quick)
    figures |= one_pair_loop(args.quick)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(figures, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
