"""A stand-in ``java`` for the METEOR 1.5 process plumbing: tests of errors, timeouts, reuse and additivity that
need neither Java nor the jar.

:func:`install` puts an executable ``java`` first on the PATH and points the jar folder at a temporary one. The
stand-in speaks the jar's ``-stdio`` protocol: for each ``SCORE ||| ref ||| ... ||| hyp`` line it prints 23
statistics in Meteor's layout, made of exact word matches against the first reference (function words: a few
English ones; one chunk per run of matches in order), so that scores are consistent and bounded. ``mode``:
``"ok"``; ``"die"`` (writes to standard error and exits with status 3 on the second line); ``"hang"`` (never
answers); ``"garbage"`` (answers with an error line, as the jar does for a malformed command).
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
import collections, os, sys, time
MODE = os.environ.get("FAKE_METEOR_MODE", "ok")
FUNCTION = {"a", "the", "of", "on", "in", "is", "and"}
with open(os.environ["FAKE_METEOR_LOG"], "a") as log:
    log.write(f"{os.getpid()} {' '.join(sys.argv[1:])}\n")
n = 0
for line in sys.stdin:
    n += 1
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "die" and n == 2:
        sys.stderr.write("Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n")
        sys.stderr.flush()
        sys.exit(3)
    if MODE == "garbage":
        print("Error: specify SCORE or EVAL or SING", flush=True)
        continue
    parts = [p.strip() for p in line.split("|||")]
    hyp, ref = parts[-1].lower().split(), parts[1].lower().split()
    left = collections.Counter(ref)
    matched = []
    for w in hyp:
        if left[w] > 0:
            left[w] -= 1
            matched.append(w)
    content = sum(1 for w in matched if w not in FUNCTION)
    function = len(matched) - content
    stats = [len(hyp), len(ref), sum(w in FUNCTION for w in hyp), sum(w in FUNCTION for w in ref)]
    stats += [content, content, function, function] + [0] * 12
    stats += [1 if matched else 0, len(matched), len(matched)]
    print(" ".join(f"{float(x)}" for x in stats), flush=True)
"""


def install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mode: str = "ok") -> Path:
    """Use the stand-in ``java`` (and close any running METEOR process first and after). Returns the log file,
    one line per started process: its pid and arguments."""
    from nlgmetrics.metrics.meteor import jar as meteor_jar

    meteor_jar.close()
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    java = bindir / "java"
    java.write_text(f"#!{sys.executable}\n{SCRIPT}", encoding="utf-8")
    java.chmod(java.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    log = tmp_path / "java.log"
    log.touch()
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_METEOR_MODE", mode)
    monkeypatch.setenv("FAKE_METEOR_LOG", str(log))
    monkeypatch.setattr(meteor_jar, "jar_dir", lambda: tmp_path)
    return log
