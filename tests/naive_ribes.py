"""RIBES restated naively from its definition, for clarity: every context n-gram is counted by brute force."""

from __future__ import annotations

import math
from collections.abc import Sequence


def _count(ngram: tuple[str, ...], seq: Sequence[str]) -> int:
    n = len(ngram)
    return sum(tuple(seq[k : k + n]) == ngram for k in range(len(seq) - n + 1))


def _first(ngram: tuple[str, ...], seq: Sequence[str]) -> int:
    n = len(ngram)
    return next(k for k in range(len(seq) - n + 1) if tuple(seq[k : k + n]) == ngram)


def naive_alignment(ref: Sequence[str], hyp: Sequence[str], *, left_first: bool, max_window: int) -> list[int]:
    """Reference position of each alignable hypothesis word: unique unigram, else the shortest unique context
    (window 1 .. max_window - 1, one side then the other)."""
    out = []
    for i, w in enumerate(hyp):
        if w not in ref:
            continue
        if ref.count(w) == 1 and hyp.count(w) == 1:
            out.append(ref.index(w))
            continue
        for window in range(1, max_window(i) if callable(max_window) else max_window):
            sides = ("left", "right") if left_first else ("right", "left")
            found = None
            for side in sides:
                if side == "left" and window <= i:
                    ngram = tuple(hyp[i - window : i + 1])
                    if _count(ngram, ref) == 1 and _count(ngram, hyp) == 1:
                        found = _first(ngram, ref) + window
                elif side == "right" and i + window < len(hyp):
                    ngram = tuple(hyp[i : i + window + 1])
                    if _count(ngram, ref) == 1 and _count(ngram, hyp) == 1:
                        found = _first(ngram, ref)
                if found is not None:
                    break
            if found is not None:
                out.append(found)
                break
    return out


def _ascending(positions: list[int]) -> int:
    return sum(positions[a] < positions[b] for a in range(len(positions)) for b in range(a + 1, len(positions)))


def naive_ribes_official(ref: list[str], hyp: list[str], alpha: float = 0.25, beta: float = 0.10) -> float:
    """RIBES.py 1.03.1's sentence score for one non-empty reference (words already lowercased or not)."""
    if not hyp:
        return 0.0
    bp = min(1.0, math.exp(1.0 - len(ref) / len(hyp)))
    aligned = naive_alignment(ref, hyp, left_first=True, max_window=lambda i: max(i + 1, len(hyp) - i + 1))
    n = len(aligned)
    if n == 1 and len(ref) == 1:
        nkt, precision = 1.0, 1.0 / len(hyp)
    elif n < 2:
        return 0.0
    else:
        nkt = _ascending(aligned) / (n * (n - 1) / 2)
        precision = n / len(hyp)
    return nkt * precision**alpha * bp**beta


def naive_ribes_nltk(ref: list[str], hyp: list[str], alpha: float = 0.25, beta: float = 0.10) -> float:
    """NLTK 3.10's ``sentence_ribes`` for one reference."""
    if not hyp:
        return 0.0
    aligned = naive_alignment(ref, hyp, left_first=False, max_window=lambda i: min(max(i, len(hyp) - i + 1), len(ref)))
    n = len(aligned)
    nkt = 0.0 if n < 2 else _ascending(aligned) / (n * (n - 1) / 2)
    bp = min(1.0, math.exp(1.0 - len(ref) / len(hyp)))
    return nkt * (n / len(hyp)) ** alpha * bp**beta
