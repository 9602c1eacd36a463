"""How much ``nlgmetrics evaluate --cache`` writes, and what it does to peak memory.

Two runs, each once without and once with ``--cache`` (in a fresh process each, so peak RSS is the run's own):

* WMT22 zh-en (2 references, every system) with BLEU, chrF and TER;
* a generated corpus of ``--lines`` lines (default 1M; about 74 bytes a line, one system) with BLEU.

Prints the bytes written to the cache over the bytes of the inputs (references + systems), and the peak RSS of
each run. ``--quick`` uses 100k generated lines.

    python bench/evaluate_cache.py [--quick] [--lines N] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

SHARED_DATA = Path(
    os.environ.get("NLGMETRICS_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)

_PEAK = (
    "import resource, subprocess, sys; rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(rc)"
)


def run(args: list[str]) -> int:
    """Peak RSS (KiB) of ``nlgmetrics evaluate <args>`` in a fresh process."""
    cmd = [sys.executable, "-c", _PEAK, sys.executable, "-m", "nlgmetrics", "evaluate", "--quiet", *args]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return int(out.stdout.split()[-1])


def cache_bytes(root: str) -> int:
    return sum(e.stat().st_size for e in os.scandir(root) if e.name.endswith(".nlgc"))


def measure(label: str, inputs: list[str], args: list[str]) -> None:
    size_in = sum(os.path.getsize(p) for p in inputs)
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")
        plain = run(args)
        cached = run([*args, "--cache", cache])
        written = cache_bytes(cache)
        again = run([*args, "--cache", cache])
    print(
        f"{label}: input {size_in / 1e6:.1f} MB, cache {written / 1e6:.1f} MB, ratio {written / size_in:.3f}x; "
        f"peak RSS {plain / 1024:.0f} MiB without cache, {cached / 1024:.0f} MiB writing it, "
        f"{again / 1024:.0f} MiB reading it"
    )


def wmt22(data: Path) -> None:
    refs = sorted(str(p) for p in (data / "wmt22" / "references").glob("generaltest2022.zh-en.ref.*"))
    systems = sorted((data / "wmt22" / "system-outputs").glob("generaltest2022.zh-en.hyp.*"))
    args = [a for r in refs for a in ("--ref", r)]
    args += [a for s in systems for a in ("--sys", f"{s.name.split('.')[3]}={s}")]
    args += ["--metric", "bleu", "--metric", "chrf", "--metric", "ter", "--bootstrap", "0", "--test", "none"]
    measure(f"WMT22 zh-en ({len(systems)} systems, 2 refs, BLEU+chrF+TER)", [*refs, *map(str, systems)], args)


def generated(n: int) -> None:
    rng = random.Random(0)
    words = [f"w{i}" for i in range(20000)]
    with tempfile.TemporaryDirectory() as tmp:
        ref, hyp = os.path.join(tmp, "ref.txt"), os.path.join(tmp, "hyp.txt")
        with open(ref, "w") as r, open(hyp, "w") as h:
            for _ in range(n):
                line = [rng.choice(words) for _ in range(rng.randint(8, 16))]
                r.write(" ".join(line) + "\n")
                h.write(" ".join(w if rng.random() < 0.7 else rng.choice(words) for w in line) + "\n")
        args = ["--ref", ref, "--sys", f"a={hyp}", "--metric", "bleu", "--bootstrap", "0", "--test", "none"]
        measure(f"generated {n} lines (BLEU)", [ref, hyp], args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--lines", type=int, default=None)
    parser.add_argument("--data", default=None)
    args = parser.parse_args()
    data = Path(args.data) if args.data else SHARED_DATA
    if (data / "wmt22").is_dir():
        wmt22(data)
    else:
        print("WMT22 not found: skipped (pass --data)")
    generated(args.lines or (100_000 if args.quick else 1_000_000))


if __name__ == "__main__":
    main()
