"""Shared helpers of the benchmark scripts: timing, the shared data folder, machine description."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SHARED_DATA = Path(
    os.environ.get("NLGMETRICS_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)


def best_of(fn: Callable[[], Any], repeat: int = 5, warmup: int = 1) -> tuple[float, Any]:
    """Best wall time of ``repeat`` runs (after ``warmup`` runs), and the last result."""
    result = None
    for _ in range(warmup):
        result = fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def interleaved(
    fns: dict[str, Callable[[], Any]], repeat: int, warmup: int = 0
) -> tuple[dict[str, float], dict[str, Any]]:
    """Best wall time of each function over ``repeat`` rounds, the functions taking turns within each round (so
    a change of machine load hits them alike), after ``warmup`` untimed rounds; and each one's last result."""
    best = dict.fromkeys(fns, float("inf"))
    out: dict[str, Any] = {}
    for _ in range(warmup):
        for name, fn in fns.items():
            out[name] = fn()
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            out[name] = fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best, out


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=False)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = ["| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)) + " |" for r in rows]
    return "\n".join([line, sep, *body])


median = statistics.median
