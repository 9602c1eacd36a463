"""What bench/comet.py and bench/metricx.py share: the fixture folder, the WMT22 en-ja segments both score, the
peak-memory probe their child processes print, and how a child runs (a fresh process, offline, its last line JSON)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from _common import SHARED_DATA

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "learned"

#: Source of a ``_peak()`` function for a child process: its peak resident set in bytes.
PEAK = """
def _peak():
    try:
        for line in open('/proc/self/status'):
            if line.startswith('VmHWM:'):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
"""


def segments(n: int) -> dict[str, list[str]]:
    """The first ``n`` WMT22 en-ja lines: sources, one system's translations (DLUT) and reference A."""

    def lines(name: str) -> list[str]:
        return [x.strip() for x in (SHARED_DATA / "wmt22" / name).read_text(encoding="utf-8").split("\n")[:n]]

    return {
        "src": lines("references/generaltest2022.de-en.ref.A.en"),
        "mt": lines("system-outputs/generaltest2022.en-ja.hyp.DLUT.ja"),
        "ref": lines("references/generaltest2022.en-ja.ref.A.ja"),
    }


def run(python: str, code: str, args: dict, env: dict | None = None) -> dict:
    """``code`` run by ``python`` in a fresh process with ``args`` as JSON; what its last line printed, as JSON."""
    proc = subprocess.run(
        [python, "-c", code, json.dumps(args)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {}), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"},
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"child failed ({python}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])
