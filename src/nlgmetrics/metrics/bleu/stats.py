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

    def __add__(self, other: Any) -> BLEUStats:
        if type(other) is not type(self):
            return NotImplemented
        total = super().__add__(other)
        last = other if other.tail else self  # the later data's last segment
        tail: dict[str, Any] = {name: getattr(last, name) for name in _TAIL_FIELDS}
        return dataclasses.replace(total, **tail)


class _BLEUBatch(StatsBatch[BLEUStats]):
    """Per-segment BLEU statistics whose total keeps the last segment's tail instead of adding tails."""

    def total(self) -> BLEUStats:
        rows = self._rows
        if rows is not None and len(rows) == 1:
            return rows[0]  # one segment: its own statistics, tail included
        return self._keep_tail(super().total())

    def exact_total(self) -> BLEUStats:
        return self._keep_tail(super().exact_total())

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

    def _keep_tail(self, out: BLEUStats) -> BLEUStats:
        if len(self) == 0:
            return out
        if len(self) == 1 and (self._rows is not None or self._lists is not None):
            return out  # one segment: its own tail
        last = self[len(self) - 1]
        tail: dict[str, Any] = {name: int(getattr(last, name)) for name in _TAIL_FIELDS}
        return dataclasses.replace(out, **tail)
