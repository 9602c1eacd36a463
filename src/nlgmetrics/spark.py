"""Scale-out on Spark: ``mapInPandas`` per partition → exact statistics → a tree aggregate → the formula.

Every family's statistics add, so a Spark DataFrame with a prediction column and a references column (a string or
an ``array<string>`` per row; for SARI-like families also a source column) is scored by running the family's own
kernel inside ``mapInPandas`` (one row of statistics per partition, exact and encoded as bytes), summing those rows
in partition order with a tree of ``groupBy().applyInPandas`` steps, and applying the formula once on the driver.
Only DataFrame operations are used (no RDD), as on Spark Connect. The result is the one-process result bit for
bit, whatever the partitioning; ``segments=True`` also brings every segment's statistics to the driver for the
per-segment scores (in partition order).

Needs the ``[spark]`` extra (``pip install 'nlgmetrics[spark]'``: pyspark with pandas and pyarrow; Java 17).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from .errors import InvalidInputError, MissingDependencyError
from .evaluate import partials
from .metrics.catalog import get_family
from .stats import Stats

__all__ = ["score_dataframe", "stats_of_dataframe"]

_SCHEMA = "part long, stats binary, segments binary"
_INVALID = re.compile(r"InvalidInputError: (.+)")


def _require_spark() -> Any:
    try:
        import pyspark.sql.functions as sf
    except ImportError as err:
        raise MissingDependencyError("nlgmetrics.spark", "pip install 'nlgmetrics[spark]'") from err
    return sf


def _references(value: Any) -> Any:
    """A references cell as Spark hands it to pandas: a string, or an array (numpy) of strings."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, float):  # a null cell of a string column (pandas gives NaN)
        return None
    return list(value)


def _map_partition(
    metric: str,
    preset: str | None,
    options: dict[str, Any],
    columns: tuple[str, str, str | None],
    segments: bool,
) -> Any:
    def run(frames: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd
        from pyspark import TaskContext

        family = get_family(metric)
        config = family.make_config(preset, **options)
        context = TaskContext.get()
        part = context.partitionId() if context is not None else 0
        prediction, references, source = columns
        totals: list[Stats] = []
        batches = []
        seen = 0
        for frame in frames:
            batch = partials.partition_batch(
                family,
                config,
                frame[prediction].tolist(),
                [_references(r) for r in frame[references].tolist()],
                None if source is None else frame[source].tolist(),
                where=f"Spark partition {part}, rows from {seen}",
            )
            seen += len(frame)
            totals.append(batch.exact_total())
            if segments:
                batches.append(batch)
        if not totals:
            return
        total = partials.ordered_sum(family, config, totals)
        seg = None
        if segments:
            seg = partials.encode_batch(batches[0] if len(batches) == 1 else type(batches[0]).concat(batches))
        yield pd.DataFrame({"part": [part], "stats": [partials.encode_total(total)], "segments": [seg]})

    return run


def _combine(metric: str, preset: str | None, options: dict[str, Any]) -> Any:
    def run(frame: Any) -> Any:
        import pandas as pd

        family = get_family(metric)
        config = family.make_config(preset, **options)
        frame = frame.sort_values("part")
        total = partials.encode_total(partials.sum_encoded(family, config, [bytes(b) for b in frame["stats"].tolist()]))
        return pd.DataFrame({"part": [int(frame["group"].iloc[0])], "stats": [total], "segments": [None]})

    return run


def _num_partitions(frame: Any) -> int | None:
    try:
        return int(frame.rdd.getNumPartitions())
    except Exception:  # Spark Connect has no RDD: the partition rows then go to the driver in one step
        return None


def _collect(
    frame: Any,
    metric: str,
    *,
    prediction: str,
    references: str,
    sources: str | None,
    preset: str | None,
    segments: bool,
    fan_in: int,
    options: dict[str, Any],
) -> tuple[Stats, list[Any] | None]:
    sf = _require_spark()
    family = get_family(metric)
    config = family.make_config(preset, **options)  # validate before any job starts
    if fan_in < 2:
        raise ValueError(f"fan_in must be at least 2, got {fan_in}")
    wanted = partials.check_columns(list(frame.columns), [prediction, references, sources], "DataFrame")
    n = _num_partitions(frame)
    columns = (prediction, references, sources)
    rows = frame.select(*wanted).mapInPandas(_map_partition(metric, preset, options, columns, segments), _SCHEMA)
    if not segments and n is not None:
        # the tree: each step sums ``fan_in`` consecutive partitions' rows, in order, on the executors
        while n > fan_in:
            grouped = rows.withColumn("group", sf.floor(sf.col("part") / fan_in)).groupBy("group")
            rows = grouped.applyInPandas(_combine(metric, preset, options), _SCHEMA)
            n = math.ceil(n / fan_in)
    try:
        collected = sorted(rows.collect(), key=lambda r: r["part"])
    except Exception as err:  # a worker's InvalidInputError reaches the driver as text in a PythonException
        found = _INVALID.search(str(err))
        if found is None:
            raise
        raise InvalidInputError(found.group(1)) from err
    return partials.gather(
        family,
        config,
        [bytes(r["stats"]) for r in collected],
        [bytes(r["segments"]) for r in collected] if segments else None,
    )


def stats_of_dataframe(
    frame: Any,
    metric: str,
    *,
    prediction: str = "prediction",
    references: str = "references",
    sources: str | None = None,
    preset: str | None = None,
    fan_in: int = 32,
    **options: Any,
) -> Stats:
    """The summed statistics of a Spark DataFrame (float fields exact until the final rounding)."""
    total, _ = _collect(
        frame,
        metric,
        prediction=prediction,
        references=references,
        sources=sources,
        preset=preset,
        segments=False,
        fan_in=fan_in,
        options=options,
    )
    return total.rounded()


def score_dataframe(
    frame: Any,
    metric: str,
    *,
    prediction: str = "prediction",
    references: str = "references",
    sources: str | None = None,
    preset: str | None = None,
    segments: bool = False,
    fan_in: int = 32,
    **options: Any,
) -> Any:
    """The corpus result of ``metric`` over a Spark DataFrame.

    ``prediction``, ``references`` and ``sources`` name the columns (references: a string or an array of strings
    per row; sources only for families that take them). ``segments=True`` adds the per-segment scores, in
    partition order (their statistics come to the driver: see docs/engines.md for the memory this takes).
    ``fan_in`` is the number of partition rows one step of the tree aggregate sums. Other keywords are the
    family's options, as in ``nlgmetrics.<metric>(...)``.
    """
    family = get_family(metric)
    config = family.make_config(preset, **options)
    total, batches = _collect(
        frame,
        metric,
        prediction=prediction,
        references=references,
        sources=sources,
        preset=preset,
        segments=segments,
        fan_in=fan_in,
        options=options,
    )
    return partials.finish(family, config, total, batches)
