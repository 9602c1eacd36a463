"""Scale-out on Dask: partitions → statistics → sum → formula.

Because every family's statistics add, a corpus that does not fit one process is scored by mapping the family
kernel over the partitions of a ``dask.bag`` (or ``dask.dataframe``), summing the per-partition statistics
with a tree reduction, and applying the formula once. The result is the single-process result.

>>> import dask.bag as db
>>> from nlgmetrics.engines.dask import score_bag
>>> pairs = db.from_sequence([("rain", "shine"), ("lnaguaeg", "language")], npartitions=2)
>>> score_bag(pairs, "nls").score
0.45
"""

from __future__ import annotations

from typing import Any

from ..errors import MissingDependencyError
from ..metrics.catalog import get_family
from ..stats import Stats
from . import _partials as partials
from ._job import Job

__all__ = ["partition_stats", "score_bag", "score_dataframe", "stats_of_bag"]


def _require_dask() -> Any:
    try:
        import dask.bag as db
    except ImportError as err:
        raise MissingDependencyError("nlgmetrics.engines.dask", "pip install 'dask[bag]'") from err
    return db


def partition_stats(pairs: Any, metric: str, preset: str | None, options: dict[str, Any]) -> list[Stats]:
    """The summed statistics of one partition of ``(prediction, references)`` pairs, as a one-item list (the
    shape ``Bag.map_partitions`` expects). Float fields are exact sums, so that adding partitions in any tree
    order gives exactly the single-process numbers."""
    family = get_family(metric)
    config = family.make_config(preset, **options)
    items = list(pairs)
    return [partials.partition_total(family, config, [p for p, _ in items], [r for _, r in items])]


def stats_of_bag(bag: Any, metric: str, *, preset: str | None = None, **options: Any) -> Stats:
    """Sum the statistics of a bag of ``(prediction, references)`` pairs (computes the graph)."""
    _require_dask()
    Job.start(metric, preset, options)  # validate before any work is scheduled
    per_partition = bag.map_partitions(partition_stats, metric, preset, options)
    # no float zero to start from: 0.0 + a fraction is a float, and every later addition would round (a last bit
    # off the one-process number); the partitions' exact totals are added in their order, rounded once
    total = per_partition.fold(lambda a, b: a + b).compute()
    return total.rounded()


def score_bag(bag: Any, metric: str, *, preset: str | None = None, **options: Any) -> Any:
    """The corpus result of ``metric`` over a bag of ``(prediction, references)`` pairs."""
    job = Job.start(metric, preset, options)
    return job.family().finalize(stats_of_bag(bag, metric, preset=preset, **options), job.config())


def score_dataframe(
    frame: Any,
    metric: str,
    *,
    prediction: str = "prediction",
    references: str = "references",
    preset: str | None = None,
    **options: Any,
) -> Any:
    """The corpus result of ``metric`` over a ``dask.dataframe`` with a prediction column and a references
    column (a string or a list of strings per row)."""
    bag = frame[[prediction, references]].to_bag(index=False)
    return score_bag(bag, metric, preset=preset, **options)
