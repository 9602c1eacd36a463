"""Naive reference implementations, written for clarity, to test the fast kernels against."""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def naive_levenshtein(a: Sequence[Hashable], b: Sequence[Hashable], substitution_cost: int = 1) -> int:
    """Textbook O(len a × len b) dynamic program, insertion and deletion cost 1."""
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            same = a[i - 1] == b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (0 if same else substitution_cost))
        prev = cur
    return prev[-1]


def naive_nls(p: str, t: str, substitution_cost: int = 1) -> float:
    longest = max(len(p), len(t))
    return 1.0 if longest == 0 else 1.0 - naive_levenshtein(p, t, substitution_cost) / longest
