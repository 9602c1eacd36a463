"""Edit-distance kernels. No metric knowledge lives here.

All distances are exact. They come from rapidfuzz's C++ kernels (``rapidfuzz.distance.Levenshtein``), which
compute the exact weighted Levenshtein distance with the bit-parallel algorithms of Hyyrö and Myers, and from
``rapidfuzz.process.cpdist``, which runs them over whole columns of pairs without a Python call per pair.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

from rapidfuzz.distance import Levenshtein

from .._inputs import ReferenceSets
from . import fastpath

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "expand_pairs",
    "lengths",
    "levenshtein",
    "levenshtein_many",
    "normalized_similarity",
    "normalized_similarity_many",
    "operation_counts",
    "reduce_segments",
]

Seq = str | Sequence[Hashable]

#: Up to this many pairs, scores are computed one call per pair and kept in a Python list; beyond it too while numpy
#: is not yet imported (read-only: the rule ``edit`` of :mod:`nlgmetrics.algorithms.fastpath` decides).
SMALL = fastpath.RULES["edit"].rows_up_to


def _weights(substitution_cost: int) -> tuple[int, int, int] | None:
    return None if substitution_cost == 1 else (1, 1, int(substitution_cost))


def levenshtein(a: Seq, b: Seq, substitution_cost: int = 1) -> int:
    """Exact Levenshtein distance between two strings (or token sequences), insertion and deletion cost 1."""
    return int(Levenshtein.distance(a, b, weights=_weights(substitution_cost)))


def normalized_similarity(a: Seq, b: Seq, substitution_cost: int = 1) -> float:
    """``1 - lev(a, b) / max(len a, len b)`` of one pair (1.0 for two empty items): the per-pair function of
    :func:`normalized_similarity_many`, which applies it to each pair of a small batch.

    With unit costs rapidfuzz normalises by exactly ``max(len)``, so its ``normalized_similarity`` is this
    formula, computed in one C++ call; with other costs the weighted distance is divided here.
    """
    if substitution_cost == 1:
        return Levenshtein.normalized_similarity(a, b)  # type: ignore[no-any-return]
    longest = max(len(a), len(b))
    return 1.0 - (Levenshtein.distance(a, b, weights=_weights(substitution_cost)) / longest if longest else 0.0)


def normalized_similarity_many(a: Sequence[Seq], b: Sequence[Seq], substitution_cost: int = 1) -> np.ndarray:
    """Element-wise :func:`normalized_similarity`, float64 (a list of floats for at most :data:`SMALL` pairs, or
    while numpy is not imported: the same values). Larger batches run rapidfuzz's column call (``cpdist``) and
    divide the columns with numpy: the same IEEE divisions of the same integers as the per-pair function."""
    if len(a) != len(b):
        raise ValueError(f"normalized_similarity_many needs equal lengths, got {len(a)} and {len(b)}")
    if fastpath.rows("edit", len(a)):
        if substitution_cost == 1:
            return list(map(Levenshtein.normalized_similarity, a, b))  # type: ignore[return-value]
        return [normalized_similarity(x, y, substitution_cost) for x, y in zip(a, b, strict=True)]  # type: ignore[return-value]
    import numpy as np
    from rapidfuzz.process import cpdist

    if substitution_cost == 1:
        return np.asarray(cpdist(a, b, scorer=Levenshtein.normalized_similarity, dtype=np.float64, workers=1))
    longest = np.maximum(lengths(a), lengths(b))
    dist = levenshtein_many(a, b, substitution_cost).astype(np.float64)
    out = np.zeros(len(a), dtype=np.float64)
    return 1.0 - np.divide(dist, longest, out=out, where=longest != 0)


def levenshtein_many(a: Sequence[Seq], b: Sequence[Seq], substitution_cost: int = 1) -> np.ndarray:
    """Element-wise exact Levenshtein distances ``d[i] = lev(a[i], b[i])`` as an ``int64`` array."""
    import numpy as np
    from rapidfuzz.process import cpdist

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
    import numpy as np

    return np.fromiter(map(len, items), dtype=np.int64, count=len(items))


def expand_pairs(
    predictions: Sequence[str], references: ReferenceSets
) -> tuple[list[str], list[str], list[int] | None]:
    """Pair each prediction with each of its references.

    Returns the repeated predictions, the flat references and the start offset of each segment in the flat
    lists (``None`` when every segment has one reference), for :func:`reduce_segments`.
    """
    if references.offsets is None:
        return predictions if isinstance(predictions, list) else list(predictions), references.flat, None
    flat_preds = [p for p, k in zip(predictions, references.count_list(), strict=False) for _ in range(k)]
    return flat_preds, references.flat, references.offsets  # a list: several references need no numpy


def reduce_segments(values: Any, starts: list[int] | None, how: str) -> Any:
    """Reduce per-pair ``values`` to per-segment values with ``"max"`` or ``"min"`` (``starts`` as returned by
    :func:`expand_pairs`; ``None`` means one pair per segment). A list of values gives a list."""
    if starts is None:
        return values
    if isinstance(values, list):
        pick = max if how == "max" else min
        bounds = [*starts, len(values)]
        return [pick(values[lo:hi]) for lo, hi in itertools.pairwise(bounds)]  # type: ignore[return-value]
    import numpy as np

    ufunc = np.maximum if how == "max" else np.minimum
    return ufunc.reduceat(values, starts)


def operation_counts(reference: Sequence[Hashable], prediction: Sequence[Hashable]) -> tuple[int, int, int, int]:
    """(hits, substitutions, deletions, insertions) of rapidfuzz's optimal alignment of ``prediction`` to
    ``reference``. Deletions are reference items missing from the prediction; insertions are extra prediction
    items. This is the alignment jiwer reports, since jiwer uses the same rapidfuzz routine."""
    hits = subs = dels = ins = 0
    for op in Levenshtein.opcodes(reference, prediction):
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag == "equal":
            hits += i2 - i1
        elif tag == "replace":
            subs += i2 - i1
        elif tag == "delete":
            dels += i2 - i1
        else:
            ins += j2 - j1
    return hits, subs, dels, ins
