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

import dataclasses
import io
import json
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import InvalidInputError
from ..metrics.base import Family
from ..stats import CarriedColumn, RunningSum, Stats, StatsBatch

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
def _number(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_number(v) for v in value]
    if isinstance(value, RunningSum):  # its float so far, or its values in order (exact: they travel as bits)
        data = np.ascontiguousarray(value.values, dtype="<f8").tobytes()
        return {"running": None if value.value is None else float(value.value).hex(), "values": data.hex()}
    if isinstance(value, Fraction):
        return f"q{value.numerator}/{value.denominator}"  # exact: partial sums stay exact across the wire
    if isinstance(value, (float, np.floating)):
        return f"f{float(value).hex()}"  # a non-finite partial sum (exact_sum gives the plain float sum)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return int(value)


def _unnumber(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_unnumber(v) for v in value)
    if isinstance(value, dict):
        start = value["running"]
        values = np.frombuffer(bytes.fromhex(value["values"]), dtype="<f8")
        return RunningSum(None if start is None else float.fromhex(start), values)
    if isinstance(value, str):
        if value[0] == "q":
            num, _, den = value[1:].partition("/")
            return Fraction(int(num), int(den))
        return float.fromhex(value[1:])
    return value


def encode_total(total: Stats) -> bytes:
    """A partition's (exact) total as bytes: a JSON header of the number fields, then each carried field's own
    encoding. Nothing is pickled, so the bytes can cross any engine's wire and process boundary."""
    carried = type(total).carried_fields
    header: dict[str, Any] = {}
    blobs: list[bytes] = []
    for f in dataclasses.fields(total):
        value = getattr(total, f.name)
        if f.name in carried:
            blob = value.to_bytes()
            header[f.name] = {"bytes": len(blob)}
            blobs.append(blob)
        else:
            header[f.name] = _number(value)
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    return len(head).to_bytes(8, "little") + head + b"".join(blobs)


def decode_total(family: Family[Any, Any, Any], data: bytes) -> Stats:
    """The total that :func:`encode_total` encoded."""
    cls = family.stats_cls
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size].decode("utf-8"))
    at = 8 + size
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        kind = cls.carried_fields.get(f.name)
        if kind is not None:
            n = int(header[f.name]["bytes"])
            values[f.name] = kind.sum(kind.from_bytes(bytes(data[at : at + n])))
            at += n
        else:
            values[f.name] = _unnumber(header[f.name])
    return cls(**values)


def ordered_sum(family: Family[Any, Any, Any], config: Any, totals: Sequence[Stats], *, fan_in: int = 16) -> Stats:
    """The sum of partition totals given in partition order, as a balanced tree of ``fan_in``-way sums (each sum
    keeps the order, which carried values such as CIDEr's records need)."""
    level = list(totals)
    if not level:
        return family.zero(config)
    while len(level) > 1:
        level = [_sum_in_order(level[i : i + fan_in]) for i in range(0, len(level), fan_in)]
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


def _sum_in_order(items: Sequence[Stats]) -> Stats:
    cls = type(items[0])
    if len(items) == 1:
        return items[0]
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        kind = cls.carried_fields.get(f.name)
        column = [getattr(s, f.name) for s in items]
        if kind is not None:
            values[f.name] = kind.sum(column)  # Records.sum is linear where folding + is quadratic
        elif isinstance(column[0], RunningSum):
            acc = column[0]
            for part in column[1:]:  # in order: the running sum's values concatenate
                acc = acc + part
            values[f.name] = acc
        elif isinstance(column[0], tuple):
            values[f.name] = tuple(sum(parts, start=type(parts[0])(0)) for parts in zip(*column, strict=True))
        else:
            values[f.name] = sum(column, start=type(column[0])(0))
    return cls(**values)


# ------------------------------------------------------------------------------------------------ batches as bytes
def encode_batch(batch: StatsBatch[Any]) -> bytes:
    """A partition's per-segment statistics as bytes (an ``.npz`` of the columns; carried columns as their bytes)."""
    arrays: dict[str, np.ndarray] = {"n": np.asarray(len(batch), dtype=np.int64)}
    for name, column in batch.columns.items():
        if isinstance(column, CarriedColumn):
            arrays[name] = np.frombuffer(column.to_bytes(), dtype=np.uint8)
        else:
            arrays[name] = np.asarray(column)
    out = io.BytesIO()
    np.savez(out, **arrays)  # type: ignore[arg-type]
    return out.getvalue()


def decode_batch(family: Family[Any, Any, Any], data: bytes) -> StatsBatch[Any]:
    """The per-segment statistics that :func:`encode_batch` encoded."""
    cls = family.stats_cls
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        columns: dict[str, Any] = {}
        for name in cls.field_names():
            kind = cls.carried_fields.get(name)
            if kind is not None:
                columns[name] = CarriedColumn.from_bytes(kind, npz[name].tobytes())
            else:
                columns[name] = npz[name]
    return StatsBatch(cls, columns)


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
