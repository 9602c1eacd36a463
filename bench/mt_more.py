"""Benchmark of GLEU, NIST, EED, CharacTER and MER/WIL/WIP against their reference tools, in one run.

Peers: NLTK 3.10 ``corpus_gleu`` and ``corpus_nist`` (on whitespace tokens, as the ``nltk`` presets),
torchmetrics ``extended_edit_distance``, the ``cer`` package (CharacTER, as HF evaluate calls it) and jiwer
(MER/WIL/WIP). Every number is checked against the peer's before a time is reported.

Workloads (WMT22 from the shared data folder):

* **campaign**: every system of de-en and zh-en (two references each) scored one after the other, as an
  evaluation campaign does; nlgmetrics keeps each pair's reference n-grams (its reference cache);
* **cold**: a fresh process per tool: import and the first call on one WMT22 system;
* **latency**: seconds per segment at batch sizes 1, 8, 64 and 512, each batch text no earlier call has seen
  (the reference cache cannot help);
* **warm** (labelled, never the headline): the same call repeated.

Run: ``python bench/mt_more.py`` (``--quick``: fewer systems and segments, EED on 300 segments).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import nlgmetrics as nm
from _common import SHARED_DATA, fmt_time, interleaved, machine, table
from nlgmetrics.metrics import gleu as gleu_module
from nlgmetrics.metrics import nist as nist_module


def _lines(path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def wmt22(pair: str) -> tuple[list[list[str]], list[list[str]]]:
    """(references per segment, system outputs) of one pair."""
    root = SHARED_DATA / "wmt22"
    streams = [_lines(p) for p in sorted((root / "references").glob(f"generaltest2022.{pair}.ref.*"))]
    systems = [_lines(p) for p in sorted((root / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*"))]
    return [list(r) for r in zip(*streams, strict=True)], systems


def clear() -> None:
    gleu_module._CACHE.clear()
    nist_module._CACHE.clear()


def check(name: str, ours: float, theirs: float, tol: float = 1e-12) -> None:
    if abs(ours - theirs) > tol:
        raise SystemExit(f"{name}: nlgmetrics {ours!r} != peer {theirs!r}")


# ---------------------------------------------------------------------------------------------- peers
def nltk_gleu(preds: list[str], refs: list[list[str]]) -> float:
    from nltk.translate.gleu_score import corpus_gleu

    return float(corpus_gleu([[r.split() for r in rs] for rs in refs], [p.split() for p in preds]))


def nltk_nist(preds: list[str], refs: list[list[str]]) -> float:
    from nltk.translate.nist_score import corpus_nist

    return float(corpus_nist([[r.split() for r in rs] for rs in refs], [p.split() for p in preds]))


def tm_eed(preds: list[str], refs: list[list[str]]) -> float:
    from torchmetrics.functional.text import extended_edit_distance

    return float(extended_edit_distance(preds, refs))


def cer_character(preds: list[str], refs: list[list[str]]) -> float:
    import cer

    return float(cer.calculate_cer_corpus([p.split() for p in preds], [r[0].split() for r in refs])["mean"])


def jiwer_mer(preds: list[str], refs: list[list[str]]) -> float:
    import jiwer

    return float(jiwer.mer([r[0] for r in refs], preds))


METRICS: dict[str, tuple[Callable[..., Any], Callable[..., float], str, float]] = {
    # name: (ours, peer, peer label, tolerance of the check)
    "GLEU": (lambda p, r: nm.gleu(p, r).score, nltk_gleu, "NLTK corpus_gleu", 1e-12),
    "NIST": (lambda p, r: nm.nist(p, r).score, nltk_nist, "NLTK corpus_nist", 1e-12),
    "EED": (lambda p, r: nm.eed(p, r).score, tm_eed, "torchmetrics extended_edit_distance", 1e-6),  # float32 there
    "CharacTER": (lambda p, r: nm.character(p, [x[0] for x in r]).score, cer_character, "cer 1.2.0", 1e-12),
    "MER": (lambda p, r: nm.mer(p, [x[0] for x in r]).score, jiwer_mer, "jiwer.mer", 1e-12),
}
COLD_OURS = {
    "GLEU": "nlgmetrics.gleu(P, R)",
    "NIST": "nlgmetrics.nist(P, R)",
    "EED": "nlgmetrics.eed(P, R)",
    "CharacTER": "nlgmetrics.character(P, [r[0] for r in R])",
    "MER": "nlgmetrics.mer(P, [r[0] for r in R])",
}
COLD_PEER = {
    "GLEU": "from nltk.translate.gleu_score import corpus_gleu; "
    "corpus_gleu([[x.split() for x in r] for r in R], [p.split() for p in P])",
    "NIST": "from nltk.translate.nist_score import corpus_nist; "
    "corpus_nist([[x.split() for x in r] for r in R], [p.split() for p in P])",
    "EED": "from torchmetrics.functional.text import extended_edit_distance; extended_edit_distance(P, R)",
    "CharacTER": "import cer; cer.calculate_cer_corpus([p.split() for p in P], [r[0].split() for r in R])",
    "MER": "import jiwer; jiwer.mer([r[0] for r in R], P)",
}


def cold(code: str, pair: str, n: int) -> float:
    """Seconds from the first import to the end of the first call, in a fresh process."""
    script = (
        "import time, pathlib, sys\n"
        f"root = pathlib.Path({str(SHARED_DATA / 'wmt22')!r})\n"
        f"refs = [p.read_text('utf-8').splitlines()[:{n}] for p in sorted(root.glob('references/*{pair}.ref.*'))]\n"
        "R = [list(r) for r in zip(*refs)]\n"
        f"P = sorted(root.glob('system-outputs/*{pair}.hyp.*'))[0].read_text('utf-8').splitlines()[:{n}]\n"
        "t0 = time.perf_counter()\nimport nlgmetrics\n"
        f"{code}\nprint(time.perf_counter() - t0)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    rows: list[tuple[str, ...]] = []

    # ---------------------------------------------------------------- campaign: GLEU and NIST, every system
    for name in ("GLEU", "NIST"):
        ours_fn, peer_fn, label, tol = METRICS[name]
        total_ours = total_peer = 0.0
        n_sys = 0
        for pair in ("de-en", "zh-en"):
            refs, systems = wmt22(pair)
            if args.quick:
                systems = systems[:3]
            clear()
            for hyps in systems:
                t0 = time.perf_counter()
                ours = ours_fn(hyps, refs)
                t1 = time.perf_counter()
                theirs = peer_fn(hyps, refs)
                t2 = time.perf_counter()
                check(f"{name} {pair}", ours, theirs, tol)
                total_ours += t1 - t0
                total_peer += t2 - t1
                n_sys += 1
        rows.append(
            (
                f"{name}, WMT22 de-en + zh-en, {n_sys} systems (campaign)",
                fmt_time(total_ours),
                label,
                fmt_time(total_peer),
                f"{total_peer / total_ours:.1f}x",
            )
        )

    # ---------------------------------------------------------------- one system, one call each (no cache)
    refs, systems = wmt22("de-en")
    hyps = systems[0]
    for name, (ours_fn, peer_fn, label, tol) in METRICS.items():
        n = 300 if args.quick or name in ("EED", "CharacTER") else len(hyps)
        if name == "EED" and not args.quick:
            n = 1000
        p, r = hyps[:n], refs[:n]

        def ours_call(p=p, r=r, f=ours_fn):
            clear()
            return f(p, r)

        best, out = interleaved({"ours": ours_call, "peer": lambda p=p, r=r, f=peer_fn: f(p, r)}, repeat=1)
        check(name, out["ours"], out["peer"], tol)
        rows.append(
            (
                f"{name}, WMT22 de-en, one system, {n} segments, one call",
                fmt_time(best["ours"]),
                label,
                fmt_time(best["peer"]),
                f"{best['peer'] / best['ours']:.1f}x",
            )
        )
        if name in ("GLEU", "NIST"):  # warm: the same call again, reference cache kept (labelled)
            warm, _ = interleaved({"ours": lambda p=p, r=r, f=ours_fn: f(p, r)}, repeat=3)
            rows.append(
                (
                    "  warm: the same call repeated (reference cache)",
                    fmt_time(warm["ours"]),
                    label,
                    fmt_time(best["peer"]),
                    f"{best['peer'] / warm['ours']:.1f}x",
                )
            )

    # ---------------------------------------------------------------- cold: a fresh process per tool
    for name in METRICS:
        n = 200 if name in ("EED", "CharacTER") else len(hyps)
        ours_t = cold(COLD_OURS[name], "de-en", n)
        peer_t = cold(COLD_PEER[name], "de-en", n)
        rows.append(
            (
                f"{name}, cold (fresh process: import + first call), {n} segments",
                fmt_time(ours_t),
                METRICS[name][2],
                fmt_time(peer_t),
                f"{peer_t / ours_t:.1f}x",
            )
        )

    # one pair in a fresh process: GLEU's small-batch path imports no numpy (NLTK's sentence_gleu for the peer)
    ours_t = cold("nlgmetrics.gleu(P, R)", "de-en", 1)
    peer_t = cold(
        "from nltk.translate.gleu_score import sentence_gleu; sentence_gleu([x.split() for x in R[0]], P[0].split())",
        "de-en",
        1,
    )
    rows.append(
        ("GLEU, one pair, cold (fresh process: import + first call)", fmt_time(ours_t), "NLTK", fmt_time(peer_t),
         f"{peer_t / ours_t:.1f}x")
    )  # fmt: skip

    # ---------------------------------------------------------------- latency per segment, unseen text
    sizes = (1, 8, 64) if args.quick else (1, 8, 64, 512)
    offset = 0
    for size in sizes:
        for name, (ours_fn, peer_fn, label, tol) in METRICS.items():
            p, r = hyps[offset : offset + size], refs[offset : offset + size]
            if name == "EED" and size == 512:
                p, r = p[:128], r[:128]  # torchmetrics needs about 10 ms a segment
            t0 = time.perf_counter()
            ours = ours_fn(p, r)
            t1 = time.perf_counter()
            theirs = peer_fn(p, r)
            t2 = time.perf_counter()
            check(f"{name} batch {size}", ours, theirs, tol)
            per_o, per_p = (t1 - t0) / len(p), (t2 - t1) / len(p)
            rows.append(
                (
                    f"{name}, latency per segment, batch {size}" + (" (128 for EED)" if len(p) < size else ""),
                    fmt_time(per_o),
                    label,
                    fmt_time(per_p),
                    f"{per_p / per_o:.1f}x",
                )
            )
        offset += size
    print(table(rows, ("workload", "nlgmetrics", "peer", "peer time", "ratio (peer / ours)")))


if __name__ == "__main__":
    main()
