"""The inputs read from a table or an eval log (:class:`Inputs`): its own module, below both readers
(:mod:`nlgmetrics.tables` and :mod:`nlgmetrics.eval_logs`), which return it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["Inputs"]


class Inputs:
    """Predictions and references read from a table, in the order every metric takes them: ``metric(*inputs)``.

    ``sources`` holds the source column when one was asked for (``nlgmetrics.sari(*inputs,
    sources=inputs.sources)``), ``ids`` the rows' identifiers where the format has them (lm-eval's ``doc_id``),
    ``keywords`` the further per-segment inputs of the metric the log was made for (a multiple-choice log's
    ``choices``: ``nlgmetrics.multiple_choice(*inputs, **inputs.keywords)``).
    """

    __slots__ = ("ids", "keywords", "name", "predictions", "references", "sources")

    def __init__(
        self,
        predictions: list[Any],
        references: list[Any],
        sources: list[str] | None = None,
        ids: list[Any] | None = None,
        name: str = "<table>",
        keywords: dict[str, list[Any]] | None = None,
    ) -> None:
        self.predictions = predictions
        self.references = references
        self.sources = sources
        self.ids = ids
        self.name = name
        self.keywords: dict[str, list[Any]] = keywords or {}

    def __iter__(self) -> Iterator[Any]:
        yield self.predictions
        yield self.references

    def __len__(self) -> int:
        return len(self.predictions)

    def __repr__(self) -> str:
        return f"Inputs({len(self)} segments from {self.name})"
