"""BLEU's statistics: clipped matches and totals per order, lengths, and the last segment's tail (kept, not
added; see :mod:`nlgmetrics.metrics.bleu`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from ...stats import Stats, StatsBatch

# ====================================================================== statistics
_TAIL_ORDER = 5  # NLTK's method5 reads the last sentence's 5-gram precision, whatever the maximum order
_TAIL_FIELDS = ("tail", "tail_hyp_len", "tail_matches5", "tail_total5")


@dataclasses.dataclass(frozen=True)
class BLEUStats(Stats):
    """Sufficient statistics of BLEU.

    ``matches``/``totals``: clipped matches and number of hypothesis n-grams per order; ``short``: number of
    segments too short for an n-gram of the order (NLTK counts 1 in their denominator); ``hyp_len``,
    ``ref_len``: hypothesis length and reference length (by the ``ref_length`` rule); ``n_segments``,
    ``n_refs``, ``n_refs_sq``: segments, references and the sum of squared reference counts (a constant count
    makes ``n_segments * n_refs_sq == n_refs**2``: sacrebleu's ``nrefs`` in the signature). The ``tail_*`` fields
    hold the last segment (``tail`` is 1 when set); they are kept, not added (see the module docstring).
    """

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (
        ("matches", "totals"),
        ("totals", "hyp_len"),
        ("short", "n_segments"),
        ("n_segments", "n_refs"),
        ("n_refs", "n_refs_sq"),
        ("tail_matches5", "tail_total5"),
        ("tail_total5", "tail_hyp_len"),
    )

    tuple_fields: ClassVar[Mapping[str, int]] = {"matches": 4, "totals": 4, "short": 4}
    kept_fields: ClassVar[frozenset[str]] = frozenset(_TAIL_FIELDS)

    matches: tuple[int, ...]
    totals: tuple[int, ...]
    short: tuple[int, ...]
    hyp_len: int
    ref_len: int
    n_segments: int
    n_refs: int
    n_refs_sq: int
    tail: int
    tail_hyp_len: int
    tail_matches5: int
    tail_total5: int
    sentence_sum: float = 0.0  # the sum of per-segment BLEU under average="sentence" (metrics/bleu/sentence.py)


class _BLEUBatch(StatsBatch[BLEUStats]):
    """Per-segment BLEU statistics, read row by row faster (the total keeps the last segment's tail, as
    :meth:`~nlgmetrics.stats.StatsBatch.total` does for every class with kept fields)."""

    def __iter__(self) -> Iterator[BLEUStats]:
        if self._rows is not None:
            yield from self._rows
            return
        if self._lists is not None:
            lists = self._lists
            for values in zip(*(lists[name] for name in BLEUStats.field_names()), strict=True):
                yield BLEUStats(*values)
            return
        # every column to Python numbers at once: per-segment results (sentence_bleu of a list) read every row
        names = list(self.columns)
        for values in zip(*(column.tolist() for column in self.columns.values()), strict=True):
            row: dict[str, Any] = {k: tuple(v) if type(v) is list else v for k, v in zip(names, values, strict=True)}
            yield BLEUStats(**row)
