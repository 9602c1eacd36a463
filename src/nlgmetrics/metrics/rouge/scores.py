"""The score tuples of ROUGE, in a module of their own so that :mod:`~nlgmetrics.metrics.rouge` and the modules
it uses (:mod:`~nlgmetrics.metrics.rouge.bootstrap`) import them without importing each other."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["AggregateScore", "RougeScore"]


class RougeScore(NamedTuple):
    """Precision, recall and F of one type (rouge-score's ``Score``)."""

    precision: float
    recall: float
    fmeasure: float


class AggregateScore(NamedTuple):
    """A bootstrap confidence interval: ``low`` and ``high`` bounds around ``mid`` (rouge-score's
    ``AggregateScore``)."""

    low: RougeScore
    mid: RougeScore
    high: RougeScore
