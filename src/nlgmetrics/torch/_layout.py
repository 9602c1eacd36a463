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

from ..stats import Carried, CarriedColumn, Stats, StatsBatch

__all__ = ["FieldLayout", "StatsLayout"]


@dataclasses.dataclass(frozen=True)
class FieldLayout:
    """One statistics field: its name, its length (``None`` for a number) and whether it holds integers."""

    name: str
    size: int | None
    integer: bool
    #: The :class:`~nlgmetrics.stats.Carried` class of a carried field (``None`` for numbers): such a field travels
    #: as concatenated bytes in uint8 tensors (``dist_reduce_fx="cat"``), never summed.
    carried: type[Carried] | None = None

    @property
    def width(self) -> int:
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
            if isinstance(value, Carried):
                out.append(FieldLayout(f.name, None, False, type(value)))
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
    def numeric(self) -> tuple[FieldLayout, ...]:
        """The fields that are numbers (summed); the others are carried tables (concatenated)."""
        return tuple(f for f in self.fields if f.carried is None)

    @property
    def width(self) -> int:
        """The length of the flat vector holding the numeric fields of one :class:`Stats`."""
        return sum(f.width for f in self.numeric)

    # ------------------------------------------------------------------ carried values <-> bytes
    @staticmethod
    def bytes_to_tensor(data: bytes, device: torch.device | str | None = None) -> torch.Tensor:
        if not data:
            return torch.zeros(0, dtype=torch.uint8, device=device)
        return torch.frombuffer(bytearray(data), dtype=torch.uint8).to(device)

    @staticmethod
    def tensor_bytes(tensors: Any) -> bytes:
        """The bytes held in a uint8 tensor, or in a list of them (a list state, or its concatenation)."""
        parts = tensors if isinstance(tensors, (list, tuple)) else [tensors]
        return b"".join(t.detach().to("cpu", torch.uint8).reshape(-1).numpy().tobytes() for t in parts)

    def carried_to_tensor(self, value: Carried, device: torch.device | str | None = None) -> torch.Tensor:
        return self.bytes_to_tensor(value.to_bytes(), device)

    def carried_from_tensors(self, field: FieldLayout, tensors: Any) -> Any:
        """The sum of the values encoded in ``tensors`` (a tensor or a list of tensors of concatenated bytes)."""
        assert field.carried is not None
        return field.carried.sum(field.carried.from_bytes(self.tensor_bytes(tensors)))

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

    def from_tensor(self, vector: torch.Tensor, carried: Mapping[str, Any] | None = None) -> Stats:
        """The :class:`Stats` of a flat vector of the numeric fields; ``carried`` gives the table fields."""
        flat = vector.detach().to("cpu", torch.float64).reshape(-1).tolist()
        if len(flat) != self.width:
            raise ValueError(f"expected {self.width} values for {self.stats_cls.__name__}, got {len(flat)}")
        kwargs: dict[str, Any] = dict(carried or {})
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
    def column_to_tensor(self, column: Any, device: torch.device | str | None = None) -> torch.Tensor:
        if isinstance(column, CarriedColumn):  # one value per segment, encoded and concatenated
            return self.bytes_to_tensor(column.to_bytes(), device)
        return torch.as_tensor(np.asarray(column, dtype=np.float64), device=device)

    def empty_column(self, field: FieldLayout, device: torch.device | str | None = None) -> torch.Tensor:
        if field.carried is not None:
            return torch.zeros(0, dtype=torch.uint8, device=device)
        shape = (0,) if field.size is None else (0, field.size)
        return torch.zeros(shape, dtype=torch.float64, device=device)

    def column_from_tensor(self, field: FieldLayout, tensor: torch.Tensor) -> Any:
        if field.carried is not None:
            return CarriedColumn.from_bytes(field.carried, self.tensor_bytes(tensor))
        arr = tensor.detach().to("cpu", torch.float64).numpy()
        arr = arr.reshape(-1) if field.size is None else arr.reshape(-1, field.size)
        return np.rint(arr).astype(np.int64) if field.integer else arr.astype(np.float64, copy=True)

    def batch_from_columns(self, columns: Mapping[str, torch.Tensor]) -> StatsBatch[Any]:
        return StatsBatch(self.stats_cls, {f.name: self.column_from_tensor(f, columns[f.name]) for f in self.fields})

    # ------------------------------------------------------------------ all columns as one matrix
    def rows_to_tensor(
        self, columns: Mapping[str, Sequence[Any]], device: torch.device | str | None = None
    ) -> torch.Tensor:
        """Per-segment numeric columns (as lists or arrays) side by side in one ``(n, width)`` float64 matrix."""
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
