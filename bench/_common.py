"""Shared helpers of the benchmark scripts: timing, the shared data folder, machine description."""

from __future__ import annotations

import itertools
import json
import os
import platform
import random
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


# ---------------------------------------------------------------------------------------------- synthetic text
_STEMS = [
    "report", "govern", "nation", "develop", "announce", "run", "play", "school", "market", "price", "increase",
    "decide", "police", "investigate", "happen", "city", "country", "lead", "people", "company", "work", "study",
    "research", "show", "result", "team", "win", "game", "season", "star", "court", "judge", "vote", "elect",
    "hospital", "patient", "doctor", "treat", "money", "bank", "invest", "energy", "power", "climate", "change",
]  # fmt: skip
_SUFFIXES = ["", "s", "ed", "ing", "er", "ers", "ment", "ly", "ation", "ness", "ive", "ity"]
_FUNCTION = ["the", "a", "of", "to", "in", "and", "is", "was", "for", "on", "that", "with", "by", "at", "it", "as"]
_VOCAB = [s + x for s in _STEMS for x in _SUFFIXES] + [f"w{i}" for i in range(3000)]
_CUM = list(itertools.accumulate(1.0 / (i + 1) ** 0.9 for i in range(len(_VOCAB))))


def _word(rng: random.Random) -> str:
    return rng.choice(_FUNCTION) if rng.random() < 0.35 else rng.choices(_VOCAB, cum_weights=_CUM)[0]


def synthetic_summaries(n: int, seed: int = 0, words: int = 60, sentences: int = 3) -> tuple[list[str], list[str]]:
    """``n`` (prediction, reference) pairs: references of about ``words`` words in ``sentences`` lines, from an
    English-like vocabulary with inflections (so stemming matters); predictions are noisy copies (10% of the
    words dropped, 10% replaced, a few inserted). A new ``seed`` gives text no earlier call has seen."""
    rng = random.Random(seed)
    preds, refs = [], []
    for _ in range(n):
        ref_lines, pred_lines = [], []
        for _ in range(sentences):
            toks = [_word(rng) for _ in range(max(1, words // sentences + rng.randint(-4, 4)))]
            toks[0] = toks[0].capitalize()
            ref_lines.append(" ".join(toks) + rng.choice([".", ".", "!", "?"]))
            out = []
            for t in toks:
                r = rng.random()
                if r < 0.1:
                    continue
                out.append(_word(rng) if r < 0.2 else t)
                if r > 0.96:
                    out.append(rng.choice(_FUNCTION))
            pred_lines.append(" ".join(out) + ".")
        preds.append("\n".join(pred_lines))
        refs.append("\n".join(ref_lines))
    return preds, refs


def synthetic_mt(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` (hypothesis, reference) sentence pairs of 5-40 words with some punctuation: hypotheses are noisy,
    partly reordered copies. A new ``seed`` gives text no earlier call has seen."""
    rng = random.Random(seed)
    punct = [",", ".", "'s", "-", "(", ")"]
    refs, hyps = [], []
    for _ in range(n):
        words = [_word(rng) for _ in range(rng.randint(5, 40))]
        words = [w + rng.choice(punct) if rng.random() < 0.08 else w for w in words]
        hyp = [w if rng.random() < 0.75 else _word(rng) for w in words]
        if len(hyp) > 6 and rng.random() < 0.3:
            i, j = sorted(rng.sample(range(len(hyp)), 2))
            hyp = hyp[:i] + hyp[j:] + hyp[i:j]
        refs.append(" ".join(words))
        hyps.append(" ".join(hyp))
    return hyps, refs


def synthetic_short(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """Short answer-like pairs (DocVQA/OCR): a target of 1-30 characters and a noisy copy of it."""
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


# ---------------------------------------------------------------------------------------------- real data
def summeval() -> tuple[list[str], list[list[str]]] | None:
    """SummEval: every system summary with the 11 references of its document (None without the shared data)."""
    path = SHARED_DATA / "summeval" / "summeval.jsonl"
    if not path.exists():
        return None
    preds, refs = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for system in row["sys_summs"].values():
            preds.append(system["sys_summ"])
            refs.append(row["ref_summs"])
    return preds, refs


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def wmt22_system(pair: str = "de-en") -> tuple[list[str], list[str]] | None:
    """The first system of a WMT22 pair with its first reference (None without the shared data)."""
    root = SHARED_DATA / "wmt22"
    refs = sorted((root / "references").glob(f"generaltest2022.{pair}.ref.*"))
    systems = sorted((root / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*"))
    if not refs or not systems:
        return None
    return _lines(systems[0]), _lines(refs[0])


def wmt22_references(pair: str = "de-en") -> list[list[str]] | None:
    """Every reference of a WMT22 pair (A, B, ...), one list per reference set (None without the shared data)."""
    paths = sorted((SHARED_DATA / "wmt22" / "references").glob(f"generaltest2022.{pair}.ref.*"))
    return [_lines(p) for p in paths] if paths else None
