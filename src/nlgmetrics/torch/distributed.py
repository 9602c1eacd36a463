"""Distributed sync for the plain, torch-free stateful :class:`~nlgmetrics.stateful.Metric`.

Sync lives outside the metric class (as in torcheval's ``toolkit``): the metric only knows how to add states
(``merge``), and this module moves the states between processes with ``torch.distributed``. Summed statistics
travel as one float64 vector through a single ``all_reduce(SUM)``; per-segment columns, when the metric keeps
them, are all-gathered and concatenated in rank order (rank 0's segments first).

Every process must call these functions (they are collectives), in the same order.
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

import torch
import torch.distributed as dist

from ..stateful.metric import Metric
from ..stats import CarriedColumn, Stats
from ._layout import StatsLayout

__all__ = ["all_gather_rows", "all_reduce_stats", "is_distributed", "sync_metric"]

S = TypeVar("S", bound=Stats)
M = TypeVar("M", bound=Metric[Any, Any, Any])


def is_distributed(group: Any | None = None) -> bool:
    """Whether a ``torch.distributed`` process group is initialised (so that collectives make sense)."""
    return dist.is_available() and dist.is_initialized()


def _device_for(group: Any | None) -> torch.device:
    # NCCL only moves CUDA tensors; gloo and the others take CPU tensors.
    backend = dist.get_backend(group)
    if backend == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def all_reduce_stats(stats: S, group: Any | None = None) -> S:
    """The sum of ``stats`` over every process of ``group`` (all of them by default), on every process.

    Without an initialised process group this is ``stats`` itself. Integer fields come back as ``int``. Kept
    fields (BLEU's last segment) are not added: they come from the last rank whose statistics hold them.
    """
    if not is_distributed(group):
        return stats
    layout = StatsLayout.of(stats)
    schema = layout.schema
    vector = layout.to_tensor(stats, device=_device_for(group))
    kept = [k for f in schema.numeric if f.kind == "kept" for k in range(f.start, f.stop)]
    if kept:  # every rank's kept values, in rank order (before the sum changes them)
        ranks = all_gather_rows(vector[kept].reshape(1, -1), group=group)
    dist.all_reduce(vector, op=dist.ReduceOp.SUM, group=group)
    if kept:
        flag = kept.index(schema.field(schema.kept_flag).start)  # type: ignore[arg-type]
        holding = [r for r in range(ranks.shape[0]) if ranks[r, flag] != 0]
        vector[kept] = ranks[holding[-1]] if holding else 0
    carried = {}
    for field in layout.fields:
        if field.carried is not None:  # a table: every process's, merged in rank order
            own = layout.carried_to_tensor(getattr(stats, field.name), device=_device_for(group))
            carried[field.name] = layout.carried_from_tensors(field, all_gather_rows(own, group=group))
    return layout.from_tensor(vector, carried)  # type: ignore[return-value]


def all_gather_rows(rows: torch.Tensor, group: Any | None = None) -> torch.Tensor:
    """Concatenate along dim 0 the ``(n_r, …)`` tensors of every process, in rank order. ``n_r`` may differ."""
    if not is_distributed(group):
        return rows
    world = dist.get_world_size(group)
    size = torch.tensor([rows.shape[0]], dtype=torch.int64, device=rows.device)
    sizes = [torch.zeros_like(size) for _ in range(world)]
    dist.all_gather(sizes, size, group=group)
    counts = [int(s.item()) for s in sizes]
    longest = max(counts)
    padded = torch.zeros((longest, *rows.shape[1:]), dtype=rows.dtype, device=rows.device)
    padded[: rows.shape[0]] = rows
    gathered = [torch.zeros_like(padded) for _ in range(world)]
    dist.all_gather(gathered, padded.contiguous(), group=group)
    return torch.cat([g[:n] for g, n in zip(gathered, counts, strict=True)], dim=0)


def sync_metric(metric: M, group: Any | None = None) -> M:
    """A new metric holding the state of ``metric`` merged over every process of ``group``.

    The summed statistics are all-reduced; the per-segment columns (when ``metric.keep_segments``) are
    all-gathered, rank 0's first. ``metric`` itself is left untouched, so it can keep accumulating. Without an
    initialised process group the result is a copy of ``metric``. Every process gets the same merged metric.
    """
    merged = copy.deepcopy(metric)
    if not is_distributed(group):
        return merged
    state = metric.state_dict()
    schema = metric.family.schema(metric.config)
    stats = schema.from_json(state["stats"], checked=False)
    total = all_reduce_stats(stats, group=group)
    state["stats"] = schema.to_json(total)
    count = torch.tensor([int(state.get("count", 0))], dtype=torch.int64, device=_device_for(group))
    dist.all_reduce(count, op=dist.ReduceOp.SUM, group=group)
    state["count"] = int(count.item())
    if metric.keep_segments:
        layout = StatsLayout(schema)
        device = _device_for(group)
        local = state.get("segments") or {f.name: [] for f in layout.fields}
        rows = all_gather_rows(layout.rows_to_tensor(local, device=device), group=group)
        if rows.shape[0]:
            segments: dict[str, Any] = {k: v.tolist() for k, v in layout.columns_from_rows(rows).items()}
            for f in layout.fields:  # carried values: every process's bytes, gathered in rank order
                if f.carried is not None:
                    column = CarriedColumn.from_json(f.carried, local[f.name])
                    gathered = all_gather_rows(layout.bytes_to_tensor(column.to_bytes(), device=device), group=group)
                    segments[f.name] = layout.column_from_tensor(f, gathered).tolist()
            state["segments"] = segments
        else:
            state.pop("segments", None)
    merged.load_state_dict(state)
    return merged
