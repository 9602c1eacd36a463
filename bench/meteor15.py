"""Benchmark of METEOR 1.5 (``nlgmetrics.meteor15``) against pycocoevalcap 1.2's ``Meteor``, in one process.

Both run the same ``meteor-1.5.jar`` (Java), so the jar's own work is the same; what differs is around it.
pycocoevalcap writes one ``SCORE`` line per image and waits for its answer before the next (a round trip per
image), then sends every answer back in an ``EVAL`` line. nlgmetrics writes all ``SCORE`` lines at once (a thread
reads the answers as they come) and computes the scores from the statistics in Python, so it needs no ``EVAL``.

Workload: 1,000 images x 5 references of COCO-style captions (bench/cider.py's grammar, seeded), fresh captions
for every timed call. Figures, each the best of a few rounds with the two tools taking turns:

* warm: the JVM already running (pycocoevalcap: one ``Meteor()`` kept, as a script that scores several times
  would keep it; nlgmetrics: its shared JVM);
* per call with the JVM's start (pycocoevalcap: ``Meteor()`` then ``compute_score``, as ``COCOEvalCap.evaluate``
  does; nlgmetrics: its JVM closed first);
* cold: a fresh process, import and a first call on 100 images;
* per image at batch sizes 1, 8, 64 and 512, warm (nlgmetrics closes a JVM idle for 2 minutes: the bench calls
  once before timing), on captions no earlier call has seen.

Times are wall-clock; CPU is this process's plus the JVM's (from ``/proc``, Linux). Scores are checked against
pycocoevalcap's before any time is reported.

Run: ``python bench/meteor15.py`` (``--quick``: fewer rounds and batches). Needs pycocoevalcap and Java.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import nlgmetrics as nm
from _common import fmt_time, machine, table
from cider import corpus
from nlgmetrics.metrics import meteor_jar


def jvm_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) a running process has used, from /proc (0 where unavailable)."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def theirs(meteor: Any, preds: list[str], refs: list[list[str]]) -> tuple[float, np.ndarray]:
    score, scores = meteor.compute_score(dict(enumerate(refs)), {i: [p] for i, p in enumerate(preds)})
    return float(score), np.asarray(scores)


def ours(preds: list[str], refs: list[list[str]]) -> tuple[float, np.ndarray]:
    r = nm.meteor15(preds, refs, segments=True)
    return r.score, np.asarray(r.segments)


def our_pid() -> int | None:
    procs = meteor_jar.running()
    return procs[0].pid if procs else None


def check(a: tuple[float, np.ndarray], b: tuple[float, np.ndarray], what: str) -> None:
    diff = float(np.max(np.abs(a[1] - b[1]))) if len(a[1]) else 0.0
    if abs(a[0] - b[0]) > 1e-12 or diff > 1e-12:
        sys.exit(f"{what}: scores differ from pycocoevalcap (corpus {a[0]} vs {b[0]}, per image {diff})")


def timed(fn: Callable[[], Any], pid: Callable[[], int | None]) -> tuple[float, float, Any]:
    """Wall time, CPU time (this process + the JVM), result."""
    p0 = pid()
    j0, c0, t0 = jvm_cpu(p0), time.process_time(), time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t0
    p1 = pid()
    cpu = time.process_time() - c0 + jvm_cpu(p1) - (j0 if p1 == p0 else 0.0)
    return wall, cpu, out


CPU = """
import resource
cpu = sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
          for f in ("ru_utime", "ru_stime"))
print(wall, cpu)
"""
COLD_OURS = """
import time; t = time.perf_counter()
import nlgmetrics as nm
nm.meteor15({preds!r}, {refs!r})
wall = time.perf_counter() - t
from nlgmetrics.metrics import meteor_jar
meteor_jar.close()  # reaped: its CPU time is the children's
"""
COLD_THEIRS = """
import time; t = time.perf_counter()
from pycocoevalcap.meteor.meteor import Meteor
preds, refs = {preds!r}, {refs!r}
m = Meteor()
m.compute_score(dict(enumerate(refs)), {{i: [p] for i, p in enumerate(preds)}})
wall = time.perf_counter() - t
del m  # killed and reaped
"""


def cold(template: str, preds: list[str], refs: list[list[str]]) -> tuple[float, float]:
    """Wall and CPU seconds (the process and its JVM) of a fresh process."""
    code = template.format(preds=preds, refs=refs) + CPU
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    wall, cpu = out.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main(argv: list[str] | None = None) -> int:
    from pycocoevalcap.meteor.meteor import Meteor

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds and batch sizes")
    ap.add_argument("--images", type=int, default=1000)
    args = ap.parse_args(argv)
    if shutil.which("java") is None:
        sys.exit("java is needed: METEOR 1.5 is a Java program")
    n, repeat = args.images, (2 if args.quick else 3)
    rows: list[tuple[str, ...]] = []
    meteor = Meteor()
    seeds = iter(range(1000))

    def fresh(size: int) -> tuple[list[str], list[list[str]]]:
        return corpus(size, next(seeds))

    preds, refs = fresh(n)
    check(ours(preds, refs), theirs(meteor, preds, refs), f"{n} images")

    # warm: both JVMs running
    best: dict[str, list[float]] = {"ours": [1e9, 1e9], "theirs": [1e9, 1e9]}
    for _ in range(repeat):
        preds, refs = fresh(n)
        w, c, _ = timed(lambda p=preds, r=refs: ours(p, r), our_pid)
        best["ours"] = [min(best["ours"][0], w), min(best["ours"][1], c)]
        w, c, _ = timed(lambda p=preds, r=refs: theirs(meteor, p, r), lambda: meteor.meteor_p.pid)
        best["theirs"] = [min(best["theirs"][0], w), min(best["theirs"][1], c)]
    o, t = best["ours"], best["theirs"]
    rows.append(
        (
            f"warm JVM, {n:,} images x 5 refs",
            f"{fmt_time(o[0])} (CPU {fmt_time(o[1])})",
            f"{fmt_time(t[0])} (CPU {fmt_time(t[1])})",
            f"{t[0] / o[0]:.2f}x (CPU {t[1] / o[1]:.2f}x)",
        )
    )

    # per call, the JVM's start included (wall only: the JVM's CPU is gone when it ends)
    w_ours = w_theirs = 1e9
    for _ in range(max(1, repeat - 1)):
        preds, refs = fresh(n)
        meteor_jar.close()
        t0 = time.perf_counter()
        ours(preds, refs)
        w_ours = min(w_ours, time.perf_counter() - t0)
        t0 = time.perf_counter()
        m = Meteor()
        theirs(m, preds, refs)
        del m
        w_theirs = min(w_theirs, time.perf_counter() - t0)
    rows.append((f"JVM start + {n:,} images", fmt_time(w_ours), fmt_time(w_theirs), f"{w_theirs / w_ours:.2f}x"))

    # cold: a fresh process, the two taking turns
    preds, refs = fresh(100)
    c_ours, c_theirs = [1e9, 1e9], [1e9, 1e9]
    for _ in range(1 if args.quick else 2):
        c_ours = [min(a, b) for a, b in zip(c_ours, cold(COLD_OURS, preds, refs), strict=True)]
        c_theirs = [min(a, b) for a, b in zip(c_theirs, cold(COLD_THEIRS, preds, refs), strict=True)]
    rows.append(
        (
            "cold: fresh process, import + 100 images",
            f"{fmt_time(c_ours[0])} (CPU {fmt_time(c_ours[1])})",
            f"{fmt_time(c_theirs[0])} (CPU {fmt_time(c_theirs[1])})",
            f"{c_theirs[0] / c_ours[0]:.2f}x (CPU {c_theirs[1] / c_ours[1]:.2f}x)",
        )
    )

    # per image at small batches, warm
    for size in (1, 8, 64) if args.quick else (1, 8, 64, 512):
        calls = max(4, 512 // size)
        ours(*fresh(size))  # warm: an idle JVM is closed after meteor_jar.IDLE_SECONDS
        theirs(meteor, *fresh(size))
        w_o = w_t = c_o = c_t = 0.0
        for _ in range(calls):
            preds, refs = fresh(size)
            w, c, _ = timed(lambda p=preds, r=refs: ours(p, r), our_pid)
            w_o, c_o = w_o + w, c_o + c
            w, c, _ = timed(lambda p=preds, r=refs: theirs(meteor, p, r), lambda: meteor.meteor_p.pid)
            w_t, c_t = w_t + w, c_t + c
        k = calls * size
        rows.append(
            (
                f"per image, batch {size}",
                f"{fmt_time(w_o / k)} (CPU {fmt_time(c_o / k)})",
                f"{fmt_time(w_t / k)} (CPU {fmt_time(c_t / k)})",
                f"{w_t / w_o:.2f}x (CPU {c_t / c_o:.2f}x)",
            )
        )

    meteor_jar.close()
    print(f"METEOR 1.5: nlgmetrics vs pycocoevalcap 1.2 Meteor ({machine()}, load {os.getloadavg()[0]:.1f})")
    print(table(rows, ("workload", "nlgmetrics", "pycocoevalcap", "ratio (theirs / ours)")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
