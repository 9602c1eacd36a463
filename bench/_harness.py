"""What users experience, measured the same way for every family: cold, latency, warm and torch ``update()``.

* **cold**: a fresh Python process per tool and round: the import plus the first call, timed inside the process
  (``time.perf_counter`` before the first import; interpreter start-up excluded, the same for every tool). Tools
  take turns round by round, and the best round counts.
* **latency**: the cost per segment of a call on ``n`` segments, ``n`` in 1, 8, 64 and 512, on text generated
  fresh for every round (no earlier call has seen it, so no cache is warm); tools take turns on the same batch.
* **warm**: the same call repeated on the same data (caches warm). Labelled as such, never the headline.
* **torch**: a torchmetrics adapter's ``update()`` on batches of 32 in a loop, against the functional call on the
  same batches.

Times are wall-clock bests over interleaved rounds; CPU times (``time.process_time``, which a busy machine
disturbs less) are printed beside them. ``machine_load()`` gives the load average to print with the figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from _common import fmt_time, machine, table

SIZES = (1, 8, 64, 512)
BENCH = Path(__file__).resolve().parent


def machine_load() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def header(title: str, command: str) -> None:
    print(f"# {title}")
    print(f"command: {command}")
    print(f"machine: {machine()}; {machine_load()}; {time.strftime('%Y-%m-%d %H:%M')}")


# ---------------------------------------------------------------------------------------------- cold
_COLD_TEMPLATE = """
import json, sys, time
data = json.load(open({path!r}, encoding="utf-8"))
preds, refs = data["preds"], data["refs"]
t0 = time.perf_counter(); c0 = time.process_time()
{code}
t1 = time.perf_counter(); c1 = time.process_time()
print(json.dumps({{"wall": t1 - t0, "cpu": c1 - c0, "check": float(RESULT)}}))
"""


def cold(
    tools: dict[str, str], preds: Sequence[Any], refs: Sequence[Any], rounds: int = 3, env: dict[str, str] | None = None
) -> dict[str, dict[str, float]]:
    """Each tool's ``code`` (imports, then one call that sets ``RESULT`` to a number) in a fresh process per round;
    ``preds`` and ``refs`` are loaded before the clock starts. Returns the best wall and CPU time per tool and the
    number it computed."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as fh:
        json.dump({"preds": list(preds), "refs": list(refs)}, fh)
        path = fh.name
    best: dict[str, dict[str, float]] = {}
    # An installed package runs from compiled bytecode (pip writes it); with PYTHONDONTWRITEBYTECODE set, a tool run
    # from a source checkout would recompile every module in every round, so the first round writes the bytecode
    # and the best round counts, as for every other tool.
    child_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | (env or {})
    try:
        for _ in range(rounds):
            for name, code in tools.items():
                script = _COLD_TEMPLATE.format(path=path, code=code)
                out = subprocess.run(
                    [sys.executable, "-c", script],
                    capture_output=True,
                    text=True,
                    cwd=BENCH,
                    env=child_env,
                )
                if out.returncode:
                    raise RuntimeError(f"{name} failed:\n{out.stderr[-2000:]}")
                got = json.loads(out.stdout.strip().splitlines()[-1])
                prev = best.get(name)
                if prev is None or got["wall"] < prev["wall"]:
                    best[name] = got
                if prev is not None:
                    best[name]["cpu"] = min(best[name]["cpu"], prev["cpu"], got["cpu"])
    finally:
        os.unlink(path)
    return best


def cold_table(label: str, results: dict[str, dict[str, float]], ours: str) -> list[tuple[str, ...]]:
    base = results[ours]
    rows = []
    for name, r in results.items():
        ratio = "1.00×" if name == ours else f"{r['wall'] / base['wall']:.2f}× ours"
        cpu_ratio = "" if name == ours else f"{r['cpu'] / base['cpu']:.2f}×"
        rows.append((label, name, fmt_time(r["wall"]), ratio, fmt_time(r["cpu"]), cpu_ratio, f"{r['check']:.6g}"))
        label = ""
    return rows


COLD_HEADER = (
    "workload (cold: fresh process, import + first call)",
    "tool",
    "wall",
    "vs ours",
    "CPU",
    "CPU vs ours",
    "score",
)


# ---------------------------------------------------------------------------------------------- latency
def latency(
    tools: dict[str, Callable[[list[Any], list[Any]], Any]],
    make_batch: Callable[[int, int], tuple[list[Any], list[Any]]],
    sizes: Sequence[int] = SIZES,
    rounds: int = 5,
    min_segments: int = 200,
    alternate: bool = False,
) -> dict[int, dict[str, tuple[float, float]]]:
    """Per-segment (wall, CPU) cost of one call on ``n`` fresh segments, for each size: each round generates new
    batches (``make_batch(n, seed)``), enough of them to cover ``min_segments`` segments, and every tool scores
    them in turn (``alternate``: in reverse order every other round, so that no tool is always the first to read
    the fresh batches). Best round per tool."""
    out: dict[int, dict[str, tuple[float, float]]] = {}
    seed = 10_000
    for n in sizes:
        calls = max(1, min_segments // n)
        best = {name: (float("inf"), float("inf")) for name in tools}
        for r in range(rounds):
            batches = []
            for _ in range(calls):
                seed += 1
                batches.append(make_batch(n, seed))
            order = list(tools.items())
            for name, fn in order[::-1] if alternate and r % 2 else order:
                t0, c0 = time.perf_counter(), time.process_time()
                for preds, refs in batches:
                    fn(preds, refs)
                wall = (time.perf_counter() - t0) / (calls * n)
                cpu = (time.process_time() - c0) / (calls * n)
                best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
        out[n] = best
    return out


def latency_table(label: str, results: dict[int, dict[str, tuple[float, float]]], ours: str) -> list[tuple[str, ...]]:
    rows = []
    for n, per in results.items():
        base = per[ours]
        for name, (wall, cpu) in per.items():
            ratio = "1.00×" if name == ours else f"{wall / base[0]:.2f}× ours"
            cpu_ratio = "" if name == ours else f"{cpu / base[1]:.2f}×"
            rows.append((label, str(n), name, fmt_time(wall), ratio, fmt_time(cpu), cpu_ratio))
            label = ""
    return rows


LATENCY_HEADER = (
    "workload (latency per segment, fresh text)",
    "batch",
    "tool",
    "wall",
    "vs ours",
    "CPU",
    "CPU vs ours",
)


# ---------------------------------------------------------------------------------------------- warm
def warm(tools: dict[str, Callable[[], Any]], rounds: int = 3) -> dict[str, tuple[float, float]]:
    """Best (wall, CPU) of each repeated call on the same data, after one untimed call (caches warm)."""
    best = {name: (float("inf"), float("inf")) for name in tools}
    for fn in tools.values():
        fn()
    for _ in range(rounds):
        for name, fn in tools.items():
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            best[name] = (min(best[name][0], time.perf_counter() - t0), min(best[name][1], time.process_time() - c0))
    return best


def warm_table(label: str, results: dict[str, tuple[float, float]], ours: str) -> list[tuple[str, ...]]:
    base = results[ours]
    rows = []
    for name, (wall, cpu) in results.items():
        ratio = "1.00×" if name == ours else f"{wall / base[0]:.2f}× ours"
        rows.append((label, name, fmt_time(wall), ratio, fmt_time(cpu)))
        label = ""
    return rows


WARM_HEADER = ("workload (WARM: repeated call, caches warm; not the headline)", "tool", "wall", "vs ours", "CPU")


# ---------------------------------------------------------------------------------------------- torch
def torch_update(
    adapter: Any, functional: Callable[[list[Any], list[Any]], Any], batches: list[tuple[list[Any], list[Any]]]
) -> tuple[float, float]:
    """Seconds of ``adapter.update()`` over the batches (then one ``compute()``) and of the functional call on
    the same batches; best of interleaved rounds."""
    best_u, best_f = float("inf"), float("inf")
    for _ in range(3):
        adapter.reset()
        t0 = time.perf_counter()
        for p, r in batches:
            adapter.update(p, r)
        adapter.compute()
        best_u = min(best_u, time.perf_counter() - t0)
        t0 = time.perf_counter()
        for p, r in batches:
            functional(p, r)
        best_f = min(best_f, time.perf_counter() - t0)
    return best_u, best_f


def print_tables(sections: list[tuple[tuple[str, ...], list[tuple[str, ...]]]]) -> None:
    for head, rows in sections:
        if rows:
            print()
            print(table(rows, head))
