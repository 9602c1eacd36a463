"""Edit-distance kernels. No metric knowledge lives here.

All distances are exact. They come from rapidfuzz's C++ kernels (``rapidfuzz.distance.Levenshtein``), which
compute the exact weighted Levenshtein distance with the bit-parallel algorithms of Hyyrö and Myers, and from
``rapidfuzz.process.cpdist``, which runs them over whole columns of pairs without a Python call per pair.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist

__all__ = [
    "expand_pairs",
    "lengths",
    "levenshtein",
    "levenshtein_many",
    "operation_counts",
    "reduce_segments",
]

Seq = str | Sequence[Hashable]


def _weights(substitution_cost: int) -> tuple[int, int, int] | None:
    return None if substitution_cost == 1 else (1, 1, int(substitution_cost))


def levenshtein(a: Seq, b: Seq, substitution_cost: int = 1) -> int:
    """Exact Levenshtein distance between two strings (or token sequences), insertion and deletion cost 1."""
    return int(Levenshtein.distance(a, b, weights=_weights(substitution_cost)))


def levenshtein_many(a: Sequence[Seq], b: Sequence[Seq], substitution_cost: int = 1) -> np.ndarray:
    """Element-wise exact Levenshtein distances ``d[i] = lev(a[i], b[i])`` as an ``int64`` array."""
    if len(a) != len(b):
        raise ValueError(f"levenshtein_many needs equal lengths, got {len(a)} and {len(b)}")
    if not a:
        return np.zeros(0, dtype=np.int64)
    weights = _weights(substitution_cost)
    kwargs: dict[str, Any] = {"weights": weights} if weights else {}
    out = cpdist(a, b, scorer=Levenshtein.distance, scorer_kwargs=kwargs, dtype=np.int64, workers=1)
    return np.asarray(out, dtype=np.int64)


def lengths(items: Sequence[Any]) -> np.ndarray:
    """``len`` of each item as an ``int64`` array."""
    return np.fromiter(map(len, items), dtype=np.int64, count=len(items))


def expand_pairs(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> tuple[list[str], list[str], np.ndarray]:
    """Pair each prediction with each of its references.

    Returns the repeated predictions, the flat references and the start offset of each segment in the flat
    lists (for :func:`reduce_segments`).
    """
    counts = lengths(references)
    if bool((counts == 1).all()):
        flat_refs = [r[0] for r in references]
        return list(predictions), flat_refs, np.arange(len(predictions), dtype=np.int64)
    flat_preds: list[str] = []
    flat_refs = []
    for p, refs in zip(predictions, references):
        flat_preds.extend([p] * len(refs))
        flat_refs.extend(refs)
    starts = np.zeros(len(predictions), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    return flat_preds, flat_refs, starts


def reduce_segments(values: np.ndarray, starts: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray]:
    """Reduce per-pair ``values`` to per-segment values with ``"max"`` or ``"min"``.

    Returns the reduced values and, for each segment, the flat index of the chosen pair (the first on ties).
    """
    n_pairs = len(values)
    if len(starts) == n_pairs:  # one reference per segment: nothing to reduce
        return values, np.arange(n_pairs, dtype=np.int64)
    ufunc = np.maximum if how == "max" else np.minimum
    reduced = ufunc.reduceat(values, starts)
    # index of the first pair that attains the reduced value, per segment
    seg_of_pair = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n_pairs)))
    hit = values == reduced[seg_of_pair]
    flat_idx = np.arange(n_pairs)
    first = np.full(len(starts), n_pairs, dtype=np.int64)
    np.minimum.at(first, seg_of_pair[hit], flat_idx[hit])
    return reduced, first


def operation_counts(reference: Sequence[Hashable], prediction: Sequence[Hashable]) -> tuple[int, int, int, int]:
    """(hits, substitutions, deletions, insertions) of rapidfuzz's optimal alignment of ``prediction`` to
    ``reference``. Deletions are reference items missing from the prediction; insertions are extra prediction
    items. This is the alignment jiwer reports, since jiwer uses the same rapidfuzz routine."""
    hits = subs = dels = ins = 0
    for tag, i1, i2, j1, j2 in Levenshtein.opcodes(reference, prediction):
        if tag == "equal":
            hits += i2 - i1
        elif tag == "replace":
            subs += i2 - i1
        elif tag == "delete":
            dels += i2 - i1
        else:
            ins += j2 - j1
    return hits, subs, dels, ins
