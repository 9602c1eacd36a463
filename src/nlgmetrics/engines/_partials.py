"""The plumbing every scale-out engine shares: partial statistics, their bytes, and their ordered sum.

An engine (Dask, Spark, Ray) maps :func:`partition_total` over its partitions, ships each partition's exact total
as bytes (:func:`encode_total`), adds the totals in partition order (:func:`ordered_sum`) and applies the formula
once on the driver (:func:`finish`). Nothing here is specific to a family: the statistics' fields come from the
family's :class:`~nlgmetrics.stats.Stats` declaration, carried values (NIST's n-gram table, CIDEr's records) travel
through their own :meth:`~nlgmetrics.stats.Carried.to_bytes` / ``from_bytes``.

Float fields are summed exactly (as fractions, :meth:`~nlgmetrics.stats.StatsBatch.exact_total`; a running sum's
values in order, :class:`~nlgmetrics.stats.RunningSum`) and rounded once at the end, so the corpus numbers are the
one-process numbers bit for bit, whatever the partitioning. Carried
values are added in partition order (CIDEr's records concatenate), so per-segment scores come out in input order.

>>> from nlgmetrics.metrics.catalog import get_family
>>> family = get_family("wer")
>>> config = family.make_config()
>>> parts = [partition_total(family, config, ["a b", "c"], ["a b", "d"]), partition_total(family, config, ["e"], ["e"])]
>>> total = ordered_sum(family, config, [decode_total(family, encode_total(p)) for p in parts])
>>> finish(family, config, total).score == family.compute(["a b", "c", "e"], ["a b", "d", "e"], config).score
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import InvalidInputError
from ..metrics.base import Family
from ..stats import Stats, StatsBatch

__all__ = [
    "check_columns",
    "decode_batch",
    "decode_total",
    "encode_batch",
    "encode_total",
    "finish",
    "gather",
    "ordered_sum",
    "partition_batch",
    "partition_total",
    "sum_encoded",
]


def partition_batch(
    family: Family[Any, Any, Any],
    config: Any,
    predictions: Sequence[Any],
    references: Sequence[Any],
    sources: Sequence[Any] | None = None,
    *,
    where: str = "",
) -> StatsBatch[Any]:
    """The per-segment statistics of one partition (checked as one call would check them). ``where`` names the
    partition in the message of bad input (the index in the message counts from the partition's first row)."""
    try:
        return family.batch_stats(list(predictions), list(references), config, allow_empty=True, sources=sources)
    except InvalidInputError as err:
        if not where:
            raise
        raise InvalidInputError(f"{where}: {err}") from err


def partition_total(
    family: Family[Any, Any, Any],
    config: Any,
    predictions: Sequence[Any],
    references: Sequence[Any],
    sources: Sequence[Any] | None = None,
    *,
    where: str = "",
) -> Stats:
    """The exact total of one partition's statistics (float fields as fractions)."""
    return partition_batch(family, config, predictions, references, sources, where=where).exact_total()


def check_columns(existing: Sequence[str], wanted: Sequence[str | None], what: str) -> list[str]:
    """The wanted column names (``None`` dropped); a missing one raises, naming the columns that exist."""
    names = [c for c in wanted if c is not None]
    for name in names:
        if name not in existing:
            raise InvalidInputError(f"no column {name!r} in the {what}; its columns are: {', '.join(existing)}")
    return names


# ------------------------------------------------------------------------------------------------ totals as bytes
# The layout of the bytes is the statistics' :class:`~nlgmetrics.stats.Schema`'s: a JSON header of the number
# fields (fractions, float bits and running sums exact), then each carried field's own encoding; batches as an
# ``.npz`` of the columns. The tuple lengths are in the data, so the class's schema reads any configuration's.


def encode_total(total: Stats) -> bytes:
    """A partition's (exact) total as bytes. Nothing is pickled, so the bytes can cross any engine's wire and
    process boundary."""
    return total.layout().encode_total(total)


def decode_total(family: Family[Any, Any, Any], data: bytes) -> Stats:
    """The total that :func:`encode_total` encoded."""
    return family.stats_cls.schema().decode_total(data)  # type: ignore[no-any-return]


def ordered_sum(family: Family[Any, Any, Any], config: Any, totals: Sequence[Stats], *, fan_in: int = 16) -> Stats:
    """The sum of partition totals given in partition order, as a balanced tree of ``fan_in``-way sums (each sum
    keeps the order, which carried values such as CIDEr's records need, and BLEU's last-segment tail:
    :meth:`~nlgmetrics.stats.Schema.ordered_sum`)."""
    schema = family.schema(config)
    level = list(totals)
    if not level:
        return schema.zero()  # type: ignore[no-any-return]
    while len(level) > 1:
        level = [schema.ordered_sum(level[i : i + fan_in]) for i in range(0, len(level), fan_in)]
    return level[0]


def sum_encoded(family: Family[Any, Any, Any], config: Any, encoded: Sequence[bytes]) -> Stats:
    """:func:`ordered_sum` of totals encoded by :func:`encode_total`, given in partition order."""
    return ordered_sum(family, config, [decode_total(family, data) for data in encoded])


def gather(
    family: Family[Any, Any, Any], config: Any, totals: Sequence[bytes], batches: Sequence[bytes] | None
) -> tuple[Stats, list[StatsBatch[Any]] | None]:
    """On the driver: the partitions' encoded totals summed in order, and their encoded per-segment statistics
    decoded (``None`` when they were not collected), ready for :func:`finish`."""
    decoded = None if batches is None else [decode_batch(family, data) for data in batches]
    return sum_encoded(family, config, totals), decoded


# ------------------------------------------------------------------------------------------------ batches as bytes
def encode_batch(batch: StatsBatch[Any]) -> bytes:
    """A partition's per-segment statistics as bytes (an ``.npz`` of the columns; carried columns as their bytes)."""
    return batch.cls.schema().encode_batch(batch)


def decode_batch(family: Family[Any, Any, Any], data: bytes) -> StatsBatch[Any]:
    """The per-segment statistics that :func:`encode_batch` encoded."""
    return family.stats_cls.schema().decode_batch(data)  # type: ignore[no-any-return]


def finish(
    family: Family[Any, Any, Any], config: Any, total: Stats, batches: Sequence[StatsBatch[Any]] | None = None
) -> Any:
    """The formula on the driver: the corpus result of the summed (exact) totals, with per-segment scores when
    the partitions' per-segment statistics are given (in partition order)."""
    batch = None
    if batches is not None:
        batch = StatsBatch.concat(list(batches), family.stats_cls) if batches else family.empty_batch(config)
    elif family.needs_segments(config):
        raise InvalidInputError(
            f"{family.name} with reduction='none' gives one score per segment: pass segments=True to bring the "
            "per-segment statistics to the driver"
        )
    return family.finalize(total.rounded(), config, batch)
