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

from ..errors import InvalidInputError, MissingDependencyError
from ..stats import Stats
from ._job import Collected, Job

__all__ = ["score_dataframe", "stats_of_dataframe"]

_SCHEMA = "part long, stats binary, segments binary"
_INVALID = re.compile(r"InvalidInputError: (.+)")


def _require_spark() -> Any:
    try:
        import pyspark.sql.functions as sf
    except ImportError as err:
        raise MissingDependencyError("nlgmetrics.engines.spark", "pip install 'nlgmetrics[spark]'") from err
    return sf


def _references(value: Any) -> Any:
    """A references cell as Spark hands it to pandas: a string, or an array (numpy) of strings."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, float):  # a null cell of a string column (pandas gives NaN)
        return None
    return list(value)


def _map_partition(job: Job) -> Any:
    def run(frames: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd
        from pyspark import TaskContext

        context = TaskContext.get()
        part = context.partitionId() if context is not None else 0
        references = job.columns[1]
        totals: list[Stats] = []
        batches = []
        seen = 0
        for frame in frames:

            def column(name: str, frame: Any = frame) -> list[Any]:
                cells = frame[name].tolist()
                return [_references(r) for r in cells] if name == references else cells

            batch = job.batch(column, where=f"Spark partition {part}, rows from {seen}")
            seen += len(frame)
            totals.append(batch.exact_total())
            if job.segments:
                batches.append(batch)
        if not totals:
            return
        stats, seg = job.row(totals, batches)
        yield pd.DataFrame({"part": [part], "stats": [stats], "segments": [seg]})

    return run


def _combine(job: Job) -> Any:
    def run(frame: Any) -> Any:
        import pandas as pd

        frame = frame.sort_values("part")
        total = job.combine([bytes(b) for b in frame["stats"].tolist()])
        return pd.DataFrame({"part": [int(frame["group"].iloc[0])], "stats": [total], "segments": [None]})

    return run


def _num_partitions(frame: Any) -> int | None:
    try:
        return int(frame.rdd.getNumPartitions())
    except Exception:  # Spark Connect has no RDD: the partition rows then go to the driver in one step
        return None


def _collect(frame: Any, job: Job, fan_in: int) -> Collected:
    sf = _require_spark()
    wanted = job.wanted(list(frame.columns), "DataFrame")
    n = _num_partitions(frame)
    rows = frame.select(*wanted).mapInPandas(_map_partition(job), _SCHEMA)
    if not job.segments and n is not None:
        # the tree: each step sums ``fan_in`` consecutive partitions' rows, in order, on the executors
        while n > fan_in:
            grouped = rows.withColumn("group", sf.floor(sf.col("part") / fan_in)).groupBy("group")
            rows = grouped.applyInPandas(_combine(job), _SCHEMA)
            n = math.ceil(n / fan_in)
    try:
        collected = sorted(rows.collect(), key=lambda r: r["part"])
    except Exception as err:  # a worker's InvalidInputError reaches the driver as text in a PythonException
        found = _INVALID.search(str(err))
        if found is None:
            raise
        raise InvalidInputError(found.group(1)) from err
    return job.gather(
        [bytes(r["stats"]) for r in collected], [bytes(r["segments"]) for r in collected] if job.segments else None
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
    _require_spark()
    job = Job.start(metric, preset, options, (prediction, references, sources), fan_in=fan_in)
    return job.total(_collect(frame, job, fan_in))


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
    job = Job.start(metric, preset, options, (prediction, references, sources), segments=segments, fan_in=fan_in)
    return job.result(_collect(frame, job, fan_in))
