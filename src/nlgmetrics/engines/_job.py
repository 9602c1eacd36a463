"""What the scale-out engines (:mod:`~nlgmetrics.engines.spark`, :mod:`~nlgmetrics.engines.ray`,
:mod:`~nlgmetrics.engines.dask`) share around :mod:`~nlgmetrics.engines._partials`: one scoring :class:`Job`.

A job holds the metric's name, preset and options, the columns to read and whether per-segment statistics are
kept. It holds no family object, so it travels to the workers as it is; each worker looks the family up and builds
the configuration again. On the driver, :meth:`Job.start` checks the options and ``fan_in`` before any work is
scheduled. A worker turns its rows into one statistics row (:meth:`Job.batch`, :meth:`Job.row`); a step of the
tree aggregate sums consecutive rows in order (:meth:`Job.combine`); the driver decodes the rows it collected and
applies the formula once (:meth:`Job.gather`, :meth:`Job.total`, :meth:`Job.result`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from ..metrics.base import Family
from ..metrics.catalog import get_family
from ..stats import Stats, StatsBatch
from . import _partials as partials

#: What a driver collects: the summed (exact) total, and the per-segment statistics when they were kept.
Collected = tuple[Stats, list[StatsBatch[Any]] | None]


@dataclasses.dataclass(frozen=True)
class Job:
    """One metric over one table's columns ``(prediction, references, source or None)``."""

    metric: str
    preset: str | None
    options: dict[str, Any]
    columns: tuple[str, str, str | None] = ("prediction", "references", None)
    segments: bool = False

    @classmethod
    def start(
        cls,
        metric: str,
        preset: str | None,
        options: dict[str, Any],
        columns: tuple[str, str, str | None] = ("prediction", "references", None),
        *,
        segments: bool = False,
        fan_in: int | None = None,
    ) -> Job:
        """The job, checked on the driver: the configuration is built (bad options raise before any work is
        scheduled) and ``fan_in``, when given, is at least 2."""
        job = cls(metric, preset, options, columns, segments)
        job.config()
        if fan_in is not None and fan_in < 2:
            raise ValueError(f"fan_in must be at least 2, got {fan_in}")
        return job

    def family(self) -> Family[Any, Any, Any]:
        return get_family(self.metric)

    def config(self) -> Any:
        return self.family().make_config(self.preset, **self.options)

    def wanted(self, existing: Sequence[str], what: str) -> list[str]:
        """The columns to select; one missing from ``existing`` raises, naming the columns of the ``what``."""
        return partials.check_columns(existing, list(self.columns), what)

    def batch(self, column: Callable[[str], list[Any]], *, where: str) -> StatsBatch[Any]:
        """The per-segment statistics of one batch of rows, ``column(name)`` giving a column's cells as a list
        (``where`` names the batch in the message of bad input)."""
        prediction, references, source = self.columns
        sources = None if source is None else column(source)
        return partials.partition_batch(
            self.family(), self.config(), column(prediction), column(references), sources, where=where
        )

    def row(self, totals: Sequence[Stats], batches: Sequence[StatsBatch[Any]]) -> tuple[bytes, bytes | None]:
        """A worker's statistics row: the ordered sum of its exact ``totals``, encoded, and its per-segment
        statistics ``batches`` encoded in one (``None`` unless the job keeps segments)."""
        total = partials.ordered_sum(self.family(), self.config(), totals)
        seg = None
        if self.segments:
            seg = partials.encode_batch(batches[0] if len(batches) == 1 else type(batches[0]).concat(list(batches)))
        return partials.encode_total(total), seg

    def combine(self, encoded: Sequence[bytes]) -> bytes:
        """One step of the tree aggregate: the ordered sum of consecutive encoded totals, encoded."""
        return partials.encode_total(partials.sum_encoded(self.family(), self.config(), encoded))

    def gather(self, totals: Sequence[bytes], batches: Sequence[bytes] | None) -> Collected:
        """On the driver: the collected rows' totals summed in order, and their per-segment statistics decoded."""
        return partials.gather(self.family(), self.config(), totals, batches)

    def total(self, collected: Collected) -> Stats:
        """The summed statistics (float fields rounded once, from their exact sums)."""
        return collected[0].rounded()

    def result(self, collected: Collected) -> Any:
        """The corpus result, with the per-segment scores when the job kept segments."""
        total, batches = collected
        return partials.finish(self.family(), self.config(), total, batches)
