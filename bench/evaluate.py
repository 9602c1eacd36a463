"""Benchmark of ``nlgmetrics evaluate`` against the equivalent sacrebleu command lines, end to end.

The workload is the whole WMT22 data in ``../shared/data/wmt22``: four pairs (en-ja, en-zh, zh-en, de-en), every
system, BLEU + chrF + TER, with the official tokenisation per pair (``char`` for en-ja, ``zh`` for en-zh, 13a
otherwise) and every reference file of the pair. Peer: one ``sacrebleu REFS -i SYSTEM -m bleu chrf ter
[-tok T]`` command per system, run one after another (what a shell loop does). Ours: one
``nlgmetrics evaluate`` command per pair, all systems at once, ``--jobs 2``. Both as subprocesses, so start-up
is counted on both sides; peak memory is the largest resident set of any one command.

Run: ``python bench/evaluate.py`` (``--pairs en-ja`` to restrict, ``--jobs N``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import SHARED_DATA, fmt_time, machine, table

TOKENIZE = {"en-ja": "char", "en-zh": "zh", "zh-en": "13a", "de-en": "13a"}


def files(pair: str) -> tuple[list[Path], list[Path]]:
    root = SHARED_DATA / "wmt22"
    refs = sorted((root / "references").glob(f"generaltest2022.{pair}.ref.*"))
    systems = sorted((root / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*"))
    return refs, systems


def run(cmd: list[str]) -> tuple[float, int, str]:
    """Wall time, peak RSS (KiB) of this one command (with the worker processes it waited for), stdout."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode("utf-8"), err.read().decode("utf-8", "replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} ... failed: {stderr[-2000:]}")
    return elapsed, usage.ru_maxrss, stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", nargs="+", default=list(TOKENIZE))
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    if not (SHARED_DATA / "wmt22").is_dir():
        print(f"shared data not found at {SHARED_DATA}", file=sys.stderr)
        return 1
    bindir = Path(sys.executable).parent
    rows = []
    total_ours = total_peer = 0.0
    peak_ours = peak_peer = 0
    n_systems = 0
    for pair in args.pairs:
        refs, systems = files(pair)
        tok = TOKENIZE[pair]
        n_systems += len(systems)
        cmd = [str(bindir / "nlgmetrics"), "evaluate", "--ref", *map(str, refs), "--quiet", "--json"]
        for s in systems:
            cmd += ["--sys", f"{s.name.split('.hyp.')[1].rsplit('.', 1)[0]}={s}"]
        cmd += ["--metric", f"bleu:tokenizer={tok}", "--metric", "chrf", "--metric", "ter"]
        cmd += ["--bootstrap", "0", "--test", "none", "--jobs", str(args.jobs)]
        t_ours, rss_ours, out = run(cmd)
        ours = json.loads(out)
        t_peer = 0.0
        rss_peer = 0
        worst = 0.0
        for s in systems:
            peer_cmd = [str(bindir / "sacrebleu"), *map(str, refs), "-i", str(s), "-m", "bleu", "chrf", "ter"]
            peer_cmd += ["-tok", tok, "-b", "-w", "4"]
            t, rss, text = run(peer_cmd)
            t_peer += t
            rss_peer = max(rss_peer, rss)
            bleu, chrf, ter = json.loads(text)
            name = s.name.split(".hyp.")[1].rsplit(".", 1)[0]
            got = ours["systems"][name]
            worst = max(
                worst,
                abs(round(got["bleu"]["score"], 4) - bleu),
                abs(round(got["chrf"]["score"], 4) - chrf),
                abs(round(got["ter"]["score"], 4) - ter),
            )
        rows.append(
            (pair, str(len(systems)), fmt_time(t_ours), fmt_time(t_peer), f"{t_peer / t_ours:.1f}×", f"{worst:.4f}")
        )
        print("  ".join(rows[-1]), file=sys.stderr, flush=True)  # progress: sacrebleu's TER takes minutes
        total_ours += t_ours
        total_peer += t_peer
        peak_ours = max(peak_ours, rss_ours)
        peak_peer = max(peak_peer, rss_peer)
    rows.append(
        ("all", str(n_systems), fmt_time(total_ours), fmt_time(total_peer), f"{total_peer / total_ours:.1f}×", "")
    )
    print(f"machine: {machine()}")
    print(table(rows, ("pair", "systems", "nlgmetrics evaluate", "sacrebleu loop", "speed-up", "max |Δ| (4 dp)")))
    peaks = f"nlgmetrics {peak_ours / 1024:.0f} MiB, sacrebleu {peak_peer / 1024:.0f} MiB"
    print(f"peak RSS of the largest single command: {peaks}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
