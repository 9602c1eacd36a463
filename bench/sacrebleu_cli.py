"""``nlgmetrics sacrebleu`` against ``sacrebleu`` itself: cold end-to-end command lines on WMT22.

    python bench/sacrebleu_cli.py [--quick] [--rounds N]

Each command is a fresh process (interpreter start, imports, reading the files, scoring, printing), the two tools
taking turns on the same arguments (one round by default, ``--rounds N`` for the best of N). The time of each is
reported with the ratio ``sacrebleu / nlgmetrics`` (above 1: nlgmetrics is faster); the outputs are also checked
to be byte-identical.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from _common import SHARED_DATA, fmt_time, interleaved, machine, table

D = "references/generaltest2022"
S = "system-outputs/generaltest2022"
CASES = {
    "en-zh BLEU -tok zh": [f"{D}.en-zh.ref.A.zh", "-i", f"{S}.en-zh.hyp.DLUT.zh", "-tok", "zh"],
    "en-zh BLEU+chrF, 2 refs": [f"{D}.en-zh.ref.A.zh", f"{D}.en-zh.ref.B.zh", "-i", f"{S}.en-zh.hyp.DLUT.zh",
                                "-m", "bleu", "chrf", "-tok", "zh"],
    "de-en BLEU+chrF+TER": [f"{D}.de-en.ref.A.en", "-i", f"{S}.de-en.hyp.LT22.en", "-m", "bleu", "chrf", "ter"],
    "en-ja -tok char -b": [f"{D}.en-ja.ref.A.ja", "-i", f"{S}.en-ja.hyp.NT5.ja", "-tok", "char", "-b"],
    "de-en --confidence": [f"{D}.de-en.ref.A.en", "-i", f"{S}.de-en.hyp.LT22.en", "-m", "bleu", "chrf",
                           "--confidence"],
    "de-en 3 systems --paired-bs": [f"{D}.de-en.ref.A.en", "-i", f"{S}.de-en.hyp.LT22.en",
                                    f"{S}.de-en.hyp.PROMT.en", f"{S}.de-en.hyp.Online-A.en", "-m", "bleu", "chrf",
                                    "--paired-bs", "-f", "text"],
}  # fmt: skip


def main() -> None:
    quick = "--quick" in sys.argv
    data = SHARED_DATA / "wmt22"
    if not data.is_dir():
        sys.exit(f"WMT22 data not found under {data}")
    bindir = Path(sys.executable).parent
    sacrebleu, ours = [str(bindir / "sacrebleu")], [str(bindir / "nlgmetrics"), "sacrebleu"]
    cases = dict(list(CASES.items())[:2]) if quick else CASES
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 1
    rows = []
    for name, args in cases.items():

        def run(cmd: list[str], args: list[str] = args) -> bytes:
            return subprocess.run([*cmd, *args], cwd=data, capture_output=True, check=True).stdout

        best, out = interleaved(
            {"sacrebleu": lambda: run(sacrebleu), "nlgmetrics": lambda: run(ours)}, 1 if quick else 3
        )
        same = "yes" if out["sacrebleu"] == out["nlgmetrics"] else "NO"
        ratio = best["sacrebleu"] / best["nlgmetrics"]
        rows.append((name, fmt_time(best["sacrebleu"]), fmt_time(best["nlgmetrics"]), f"{ratio:.2f}x", same))
    print(f"cold end-to-end command lines on WMT22, best of {rounds} interleaved round(s); {machine()}")
    print(table(rows, ("case", "sacrebleu 2.6.0", "nlgmetrics sacrebleu", "ratio", "same bytes")))


if __name__ == "__main__":
    main()
