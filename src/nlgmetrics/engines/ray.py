"""Scale-out on Ray Data: ``map_batches`` → exact statistics → an ordered tree aggregate → the formula.

A Ray ``Dataset`` with a prediction column and a references column (a string or a list of strings per row; for
families with sources also a source column) is scored by running the family's own kernel in ``map_batches`` (one
row of exact statistics per batch, encoded as bytes), summing those rows ``fan_in`` at a time with further
``map_batches`` steps until few are left, and applying the formula once on the driver. Ray Data keeps the order of
the rows during the call (``preserve_order``), so the sums follow the input order. The result is the one-process
result bit for bit, whatever the blocks and batches; ``segments=True`` also brings every segment's statistics to
the driver for the per-segment scores.

Model families (BERTScore, and every family that loads a model or a JVM: ``IN_PROCESS`` in the catalogue) run on
**actors** instead of tasks: each actor builds the configuration and loads the model once, in its constructor, and
then scores batch after batch (``actors=`` of them, default 1; ``num_gpus=`` GPUs each, e.g. ``num_gpus=1`` with
``device="cuda"``). The order of the rows is kept as for every family, so per-segment scores come back in input
order whichever actor scored them.

Needs the ``[ray]`` extra (``pip install 'nlgmetrics[ray]'``: ``ray[data]``, which brings pyarrow).
"""

from __future__ import annotations

from typing import Any

from ..errors import MissingDependencyError
from ..metrics.catalog import IN_PROCESS
from ..stats import Stats
from ._job import Collected, Job

__all__ = ["score_dataset", "stats_of_dataset"]


def _require_ray() -> Any:
    try:
        import pyarrow as pa
        import ray.data
    except ImportError as err:
        raise MissingDependencyError("nlgmetrics.engines.ray", "pip install 'nlgmetrics[ray]'") from err
    return ray.data, pa


def _table(stats: list[bytes], segments: list[bytes | None]) -> Any:
    import pyarrow as pa

    return pa.table({"stats": pa.array(stats, pa.binary()), "segments": pa.array(segments, pa.binary())})


class _Batch:
    """The statistics of one batch of rows (a pyarrow table): one row, exact and encoded."""

    def __init__(self, job: Job) -> None:
        self.job = job

    def __call__(self, table: Any) -> Any:
        batch = self.job.batch(lambda name: table.column(name).to_pylist(), where="Ray batch")
        stats, seg = self.job.row([batch.exact_total()], [batch])
        return _table([stats], [seg])


class _ModelBatch(_Batch):
    """:class:`_Batch` on a Ray actor: the configuration is built and the model loaded once, when the actor starts
    (one warm-up segment through the family's kernel), then every batch the actor gets reuses them."""

    def __init__(self, job: Job) -> None:
        super().__init__(job)
        warm = ["warm up"]
        job.family().batch_stats(warm, warm, job.config(), sources=warm if job.columns[2] is not None else None)


class _Combine:
    """One step of the tree: the ordered sum of a batch of consecutive statistics rows."""

    def __init__(self, job: Job) -> None:
        self.job = job

    def __call__(self, table: Any) -> Any:
        return _table([self.job.combine(table.column("stats").to_pylist())], [None])


def _collect(
    dataset: Any, job: Job, *, batch_size: int | None, fan_in: int, actors: int | None, num_gpus: float | None
) -> Collected:
    rd, _ = _require_ray()
    wanted = job.wanted(list(dataset.columns()), "Dataset")
    # the ordered sums (CIDEr's records) and the segments need the rows in input order: a Dataset runs under the
    # context it was made with (a copy of the current one then), so the switch goes on both, and both get back
    # what they had (without it, actors finishing out of turn hand back the blocks in another order)
    contexts = {id(c): c for c in (rd.DataContext.get_current(), getattr(dataset, "context", None)) if c is not None}
    kept = {key: c.execution_options.preserve_order for key, c in contexts.items()}
    for c in contexts.values():
        c.execution_options.preserve_order = True
    use_actors = actors is not None or num_gpus is not None or job.metric in IN_PROCESS
    if actors is not None and (isinstance(actors, bool) or not isinstance(actors, int) or actors < 1):
        raise ValueError(f"actors must be a positive integer, got {actors!r}")
    try:
        if use_actors:  # a model loads once per actor, not once per task
            rows = dataset.select_columns(wanted).map_batches(
                _ModelBatch,
                fn_constructor_kwargs={"job": job},
                concurrency=actors or 1,
                num_gpus=num_gpus or 0,
                batch_format="pyarrow",
                batch_size=batch_size,
                zero_copy_batch=True,
            )
        else:
            rows = dataset.select_columns(wanted).map_batches(
                _Batch(job), batch_format="pyarrow", batch_size=batch_size, zero_copy_batch=True
            )
        if job.segments:
            collected = rows.take_all()
        else:
            rows = rows.materialize()
            n = rows.count()
            while n > fan_in:
                rows = rows.map_batches(_Combine(job), batch_format="pyarrow", batch_size=fan_in).materialize()
                n, before = rows.count(), n
                if n >= before:  # batches of one row: nothing left to gain on the cluster
                    break
            collected = rows.take_all()
    finally:
        for key, c in contexts.items():
            c.execution_options.preserve_order = kept[key]
    return job.gather([r["stats"] for r in collected], [r["segments"] for r in collected] if job.segments else None)


def stats_of_dataset(
    dataset: Any,
    metric: str,
    *,
    prediction: str = "prediction",
    references: str = "references",
    sources: str | None = None,
    preset: str | None = None,
    batch_size: int | None = 4096,
    fan_in: int = 32,
    actors: int | None = None,
    num_gpus: float | None = None,
    **options: Any,
) -> Stats:
    """The summed statistics of a Ray Dataset (float fields exact until the final rounding)."""
    _require_ray()
    job = Job.start(metric, preset, options, (prediction, references, sources), fan_in=fan_in)
    return job.total(_collect(dataset, job, batch_size=batch_size, fan_in=fan_in, actors=actors, num_gpus=num_gpus))


def score_dataset(
    dataset: Any,
    metric: str,
    *,
    prediction: str = "prediction",
    references: str = "references",
    sources: str | None = None,
    preset: str | None = None,
    segments: bool = False,
    batch_size: int | None = 4096,
    fan_in: int = 32,
    actors: int | None = None,
    num_gpus: float | None = None,
    **options: Any,
) -> Any:
    """The corpus result of ``metric`` over a Ray Dataset.

    ``prediction``, ``references`` and ``sources`` name the columns (references: a string or a list of strings per
    row; sources only for families that take them). ``batch_size`` is the rows per kernel call (``None``: one
    call per block). ``segments=True`` adds the per-segment scores in input order (their statistics come to the
    driver: see docs/engines.md). ``fan_in`` is the number of statistics rows one step of the aggregate sums.
    A model family runs on ``actors`` Ray actors (default 1), each loading the model once, with ``num_gpus`` GPUs
    each (pass ``device="cuda"`` too); ``actors`` or ``num_gpus`` runs any family that way. Other keywords are the
    family's options, as in ``nlgmetrics.<metric>(...)``.
    """
    job = Job.start(metric, preset, options, (prediction, references, sources), segments=segments, fan_in=fan_in)
    return job.result(_collect(dataset, job, batch_size=batch_size, fan_in=fan_in, actors=actors, num_gpus=num_gpus))
