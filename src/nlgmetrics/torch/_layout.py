"""How a family's statistics travel through torch: the :class:`~nlgmetrics.stats.Schema`'s flat rows as float64
tensors, carried values as uint8 tensors of their bytes.

Both the torchmetrics adapter and the distributed helpers move :class:`~nlgmetrics.stats.Stats` through torch as
float64: every number is exact there up to 2**53, far beyond any count a corpus produces. On the way back,
integer fields become Python ``int`` again (the schema reads which fields count from the annotations), so the
formula sees exactly the types the pure-Python path gives it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from ..stats import Carried, CarriedColumn, FieldSpec, Schema, Stats, StatsBatch

__all__ = ["StatsLayout"]


class StatsLayout:
    """A :class:`~nlgmetrics.stats.Schema` (one statistics class, its tuple sizes fixed) and its tensors."""

    __slots__ = ("schema",)

    def __init__(self, schema: Schema[Any]) -> None:
        self.schema = schema

    @classmethod
    def of(cls, example: Stats) -> StatsLayout:
        """The layout of ``example``'s class, with the tuple lengths ``example`` has."""
        return cls(example.layout())

    @property
    def stats_cls(self) -> type[Stats]:
        return self.schema.stats_cls

    @property
    def fields(self) -> tuple[FieldSpec, ...]:
        return self.schema.fields

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

    def carried_from_tensors(self, field: FieldSpec, tensors: Any) -> Any:
        """The sum of the values encoded in ``tensors`` (a tensor or a list of tensors of concatenated bytes)."""
        assert field.carried is not None
        return field.carried.sum(field.carried.from_bytes(self.tensor_bytes(tensors)))

    # ------------------------------------------------------------------ one Stats <-> a flat vector
    def to_tensor(self, stats: Stats, device: torch.device | str | None = None) -> torch.Tensor:
        return torch.tensor([float(v) for v in self.schema.to_row(stats)], dtype=torch.float64, device=device)

    def from_tensor(self, vector: torch.Tensor, carried: Mapping[str, Any] | None = None) -> Stats:
        """The :class:`Stats` of a flat vector of the numeric fields; ``carried`` gives the table fields."""
        return self.schema.from_row(vector.detach().to("cpu", torch.float64).reshape(-1).tolist(), carried)

    def value_from_tensor(self, field: FieldSpec, tensor: torch.Tensor) -> Any:
        """One field's Python value from its (0-d or 1-D) summed tensor."""
        flat = tensor.detach().to("cpu", torch.float64).reshape(-1).tolist()
        values = [round(x) if field.integer else x for x in flat]
        return values[0] if field.size is None else tuple(values)

    # ------------------------------------------------------------------ per-segment columns <-> tensors
    def column_to_tensor(self, column: Any, device: torch.device | str | None = None) -> torch.Tensor:
        if isinstance(column, CarriedColumn):  # one value per segment, encoded and concatenated
            return self.bytes_to_tensor(column.to_bytes(), device)
        return torch.as_tensor(np.asarray(column, dtype=np.float64), device=device)

    def empty_column(self, field: FieldSpec, device: torch.device | str | None = None) -> torch.Tensor:
        if field.carried is not None:
            return torch.zeros(0, dtype=torch.uint8, device=device)
        shape = (0,) if field.size is None else (0, field.size)
        return torch.zeros(shape, dtype=torch.float64, device=device)

    def column_from_tensor(self, field: FieldSpec, tensor: torch.Tensor) -> Any:
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
        return torch.as_tensor(self.schema.matrix(columns), device=device)

    def columns_from_rows(self, rows: torch.Tensor) -> dict[str, np.ndarray]:
        """The inverse of :meth:`rows_to_tensor`, with integer fields back to ``int64``."""
        return self.schema.columns(rows.detach().to("cpu", torch.float64).numpy())
