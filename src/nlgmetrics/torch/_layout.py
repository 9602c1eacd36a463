"""How a family's statistics map onto flat float64 tensors, and back.

Both the torchmetrics adapter and the distributed helpers move :class:`~nlgmetrics.stats.Stats` through torch as
float64: every number is exact there up to 2**53, far beyond any count a corpus produces. On the way back,
integer fields become Python ``int`` again, so the formula sees exactly the types the pure-Python path gives it.
Whether a field is an integer is read from the dataclass's type annotations (``int``, ``tuple[int, ...]``), and
from the value of the neutral element when the annotations cannot be resolved.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from ..stats import Records, Stats, StatsBatch, object_column

__all__ = ["FieldLayout", "StatsLayout"]


@dataclasses.dataclass(frozen=True)
class FieldLayout:
    """One statistics field: its name, its length (``None`` for a number) and whether it holds integers."""

    name: str
    size: int | None
    integer: bool
    #: A :class:`~nlgmetrics.stats.Records` field: no number, moved as UTF-8 bytes and concatenated.
    records: bool = False

    @property
    def width(self) -> int:
        if self.records:
            return 0
        return 1 if self.size is None else self.size


def _is_integer_hint(hint: Any) -> bool | None:
    """``True`` for ``int`` / ``tuple[int, ...]``, ``False`` for float-like hints, ``None`` when unknown."""
    if hint is int:
        return True
    if hint is float:
        return False
    args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple and args:
        return all(a is int or a is Ellipsis for a in args)
    return None


@dataclasses.dataclass(frozen=True)
class StatsLayout:
    """The layout of one statistics class for one configuration (tuple sizes fixed)."""

    stats_cls: type[Stats]
    fields: tuple[FieldLayout, ...]

    @classmethod
    def of(cls, example: Stats) -> StatsLayout:
        """The layout of ``example``'s class, with the tuple lengths ``example`` has."""
        stats_cls = type(example)
        try:
            hints = typing.get_type_hints(stats_cls)
        except Exception:  # unresolvable annotations: fall back to the values
            hints = {}
        out = []
        for f in dataclasses.fields(stats_cls):
            value = getattr(example, f.name)
            integer = _is_integer_hint(hints.get(f.name))
            if isinstance(value, Records) or f.name in stats_cls.record_fields:
                out.append(FieldLayout(f.name, None, False, records=True))
            elif isinstance(value, tuple):
                if integer is None:
                    integer = all(isinstance(v, (int, np.integer)) for v in value)
                out.append(FieldLayout(f.name, len(value), integer))
            else:
                if integer is None:
                    integer = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
                out.append(FieldLayout(f.name, None, integer))
        return cls(stats_cls, tuple(out))

    @property
    def width(self) -> int:
        """The length of the flat vector holding the numbers of one :class:`Stats` (record fields excluded)."""
        return sum(f.width for f in self.fields)

    @property
    def numeric(self) -> tuple[FieldLayout, ...]:
        """The fields that hold numbers (all but the record fields)."""
        return tuple(f for f in self.fields if not f.records)

    @property
    def record_fields(self) -> tuple[FieldLayout, ...]:
        return tuple(f for f in self.fields if f.records)

    # ------------------------------------------------------------------ records <-> bytes
    @staticmethod
    def records_to_tensor(records: Records | np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
        """Records (or an object column of them) as a 1-D uint8 tensor of UTF-8 JSON lines."""
        data = Records(records.tolist() if isinstance(records, np.ndarray) else records).to_bytes()
        return (
            torch.frombuffer(bytearray(data), dtype=torch.uint8).to(device)
            if data
            else torch.zeros(0, dtype=torch.uint8, device=device)
        )

    @staticmethod
    def records_from_tensor(tensor: torch.Tensor | list[torch.Tensor]) -> Records:
        """The records of one or more byte tensors (a list state, or its concatenation after a sync)."""
        parts = tensor if isinstance(tensor, list) else [tensor]
        data = b"".join(t.detach().to("cpu", torch.uint8).reshape(-1).numpy().tobytes() for t in parts)
        return Records.from_bytes(data)

    # ------------------------------------------------------------------ one Stats <-> a flat vector
    def to_tensor(self, stats: Stats, device: torch.device | str | None = None) -> torch.Tensor:
        values: list[float] = []
        for f in self.numeric:
            v = getattr(stats, f.name)
            if f.size is None:
                values.append(float(v))
            else:
                if len(v) != f.size:
                    raise ValueError(f"{f.name} has {len(v)} entries, expected {f.size}")
                values.extend(float(x) for x in v)
        return torch.tensor(values, dtype=torch.float64, device=device)

    def from_tensor(self, vector: torch.Tensor, records: Mapping[str, Records] | None = None) -> Stats:
        """A :class:`Stats` from its numbers (and the record fields from ``records``, empty by default)."""
        flat = vector.detach().to("cpu", torch.float64).reshape(-1).tolist()
        if len(flat) != self.width:
            raise ValueError(f"expected {self.width} values for {self.stats_cls.__name__}, got {len(flat)}")
        kwargs: dict[str, Any] = {f.name: (records or {}).get(f.name, Records()) for f in self.record_fields}
        pos = 0
        for f in self.numeric:
            chunk = flat[pos : pos + f.width]
            pos += f.width
            values = [round(x) if f.integer else x for x in chunk]
            kwargs[f.name] = values[0] if f.size is None else tuple(values)
        return self.stats_cls(**kwargs)

    def value_from_tensor(self, field: FieldLayout, tensor: torch.Tensor) -> Any:
        """One field's Python value from its (0-d or 1-D) summed tensor."""
        flat = tensor.detach().to("cpu", torch.float64).reshape(-1).tolist()
        values = [round(x) if field.integer else x for x in flat]
        return values[0] if field.size is None else tuple(values)

    # ------------------------------------------------------------------ per-segment columns <-> tensors
    def column_to_tensor(self, column: np.ndarray, device: torch.device | str | None = None) -> torch.Tensor:
        return torch.as_tensor(np.asarray(column, dtype=np.float64), device=device)

    def empty_column(self, field: FieldLayout, device: torch.device | str | None = None) -> torch.Tensor:
        if field.records:
            return torch.zeros(0, dtype=torch.uint8, device=device)
        shape = (0,) if field.size is None else (0, field.size)
        return torch.zeros(shape, dtype=torch.float64, device=device)

    def column_from_tensor(self, field: FieldLayout, tensor: torch.Tensor) -> np.ndarray:
        if field.records:
            return object_column(list(self.records_from_tensor(tensor)))
        arr = tensor.detach().to("cpu", torch.float64).numpy()
        arr = arr.reshape(-1) if field.size is None else arr.reshape(-1, field.size)
        return np.rint(arr).astype(np.int64) if field.integer else arr.astype(np.float64, copy=True)

    def batch_from_columns(self, columns: Mapping[str, torch.Tensor]) -> StatsBatch[Any]:
        return StatsBatch(self.stats_cls, {f.name: self.column_from_tensor(f, columns[f.name]) for f in self.fields})

    # ------------------------------------------------------------------ all columns as one matrix
    def rows_to_tensor(
        self, columns: Mapping[str, Sequence[Any]], device: torch.device | str | None = None
    ) -> torch.Tensor:
        """Per-segment columns (as lists or arrays) side by side in one ``(n, width)`` float64 matrix."""
        parts = []
        for f in self.numeric:
            col = np.asarray(columns[f.name], dtype=np.float64)
            parts.append(col.reshape(-1, f.width))
        if not parts:
            return torch.zeros((0, 0), dtype=torch.float64, device=device)
        return torch.as_tensor(np.concatenate(parts, axis=1), device=device)

    def columns_from_rows(self, rows: torch.Tensor) -> dict[str, np.ndarray]:
        """The inverse of :meth:`rows_to_tensor`, with integer fields back to ``int64``."""
        arr = rows.detach().to("cpu", torch.float64).numpy().reshape(-1, self.width)
        out: dict[str, np.ndarray] = {}
        pos = 0
        for f in self.numeric:
            chunk = arr[:, pos : pos + f.width]
            pos += f.width
            if f.size is None:
                chunk = chunk[:, 0]
            out[f.name] = np.rint(chunk).astype(np.int64) if f.integer else chunk.copy()
        return out
