"""Several devices for one call, with output in input order whatever the split.

* :func:`map_devices` (one process): the items are split into one contiguous shard per device, balanced by a
  cost per item (tokens, say); each shard runs in its own thread on its own device (torch releases the GIL while
  its kernels run), and the shards' outputs are put back at their items' positions.
* :func:`distributed_map` (``torch.distributed``, one process per device, as under ``torchrun``): every rank
  calls it with the same items; rank ``r`` computes shard ``r`` and the outputs of every rank are gathered, with
  the index of each item, so that every rank gets all outputs in input order. COMET's multi-GPU ``predict``
  returned its scores in the order the sampler dealt them to the GPUs (Unbabel/COMET#60); here the positions
  travel with the values, so the order cannot depend on the split, the number of ranks, or which rank answers
  first. Tensors only travel (no pickling): the values are float64, padded to the longest shard.

The outputs are numpy arrays whose first dimension is the item: ``fn(device_or_rank, indices)`` returns one array
or a tuple of arrays, each with ``len(indices)`` rows.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["distributed_map", "map_devices", "shards"]


def shards(n: int, parts: int, cost: Sequence[float] | np.ndarray | None = None) -> list[np.ndarray]:
    """``parts`` contiguous shards of ``range(n)`` whose total ``cost`` (default: 1 per item) is as even as
    contiguity allows; some may be empty when there are fewer items than parts.

    >>> [s.tolist() for s in shards(5, 2)]
    [[0, 1], [2, 3, 4]]
    >>> [s.tolist() for s in shards(4, 2, cost=[10, 1, 1, 1])]
    [[0], [1, 2, 3]]
    """
    parts = max(1, int(parts))
    weights = np.ones(n) if cost is None else np.asarray(cost, dtype=np.float64).reshape(-1)
    if len(weights) != n:
        raise ValueError(f"cost has {len(weights)} entries for {n} items")
    total = np.cumsum(weights)
    if n == 0:
        return [np.zeros(0, dtype=np.int64) for _ in range(parts)]
    targets = total[-1] * np.arange(1, parts) / parts
    cuts = np.searchsorted(total, targets, side="left")
    # the item that crosses a target goes to whichever side it is nearer
    for k, c in enumerate(cuts):
        if c < n and (total[c] - targets[k]) < (targets[k] - (total[c - 1] if c > 0 else 0.0)):
            cuts[k] = c + 1
    bounds = np.concatenate([[0], np.maximum.accumulate(np.clip(cuts, 0, n)), [n]])
    return [np.arange(bounds[i], bounds[i + 1], dtype=np.int64) for i in range(parts)]


def _as_tuple(value: Any) -> tuple[np.ndarray, ...]:
    return tuple(np.asarray(v) for v in value) if isinstance(value, tuple) else (np.asarray(value),)


def _assemble(n: int, pieces: list[tuple[np.ndarray, tuple[np.ndarray, ...]]]) -> tuple[np.ndarray, ...]:
    """Outputs in input order: each piece's rows placed at its indices."""
    template = next((values for idx, values in pieces if len(idx)), pieces[0][1])
    outs = [np.zeros((n, *v.shape[1:]), dtype=v.dtype) for v in template]
    for idx, values in pieces:
        if len(values) != len(outs):
            raise ValueError("every shard must return the same number of outputs")
        for out, v in zip(outs, values, strict=True):
            if len(v) != len(idx):
                raise ValueError(f"a shard of {len(idx)} items returned {len(v)} rows")
            out[idx] = v
    return tuple(outs)


def map_devices(
    n: int,
    devices: Sequence[str],
    fn: Callable[[str, np.ndarray], Any],
    *,
    cost: Sequence[float] | np.ndarray | None = None,
) -> Any:
    """``fn(device, indices)`` for one contiguous shard of ``range(n)`` per device, the shards in parallel threads;
    the outputs (one array, or a tuple of arrays, with a row per item) in input order. One device: a plain call."""
    if len(devices) == 1:
        return fn(devices[0], np.arange(n, dtype=np.int64))
    parts = shards(n, len(devices), cost)
    results: list[Any] = [None] * len(devices)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            results[k] = fn(devices[k], parts[k])
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,), name=f"nlgmetrics-{devices[k]}") for k in range(len(devices))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    single = not isinstance(results[0], tuple)
    out = _assemble(n, [(parts[k], _as_tuple(results[k])) for k in range(len(devices))])
    return out[0] if single else out


def distributed_map(
    n: int,
    fn: Callable[[int, np.ndarray], Any],
    *,
    cost: Sequence[float] | np.ndarray | None = None,
    group: Any = None,
) -> Any:
    """Under an initialised ``torch.distributed`` process group, every rank calls this with the same ``n``: rank
    ``r`` runs ``fn(r, indices)`` on its contiguous shard, and every rank gets every output, in input order (the
    positions are gathered with the values). Without a process group: ``fn(0, all indices)``."""
    import torch
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return fn(0, np.arange(n, dtype=np.int64))
    world = dist.get_world_size(group)
    rank = dist.get_rank(group)
    mine = shards(n, world, cost)[rank]
    result = fn(rank, mine)
    single = not isinstance(result, tuple)
    values = _as_tuple(result)
    device = torch.device("cpu")
    if dist.get_backend(group) == "nccl":
        device = torch.device("cuda", torch.cuda.current_device())
    # every rank learns every shard's size and each output's row shape, then gathers padded float64 tensors
    sizes = [torch.zeros(1, dtype=torch.int64, device=device) for _ in range(world)]
    dist.all_gather(sizes, torch.tensor([len(mine)], dtype=torch.int64, device=device), group=group)
    counts = [int(s.item()) for s in sizes]
    longest = max(counts)
    gathered_idx = [torch.zeros(longest, dtype=torch.int64, device=device) for _ in range(world)]
    own_idx = torch.zeros(longest, dtype=torch.int64, device=device)
    own_idx[: len(mine)] = torch.as_tensor(mine, device=device)
    dist.all_gather(gathered_idx, own_idx, group=group)
    columns: list[list[np.ndarray]] = []
    for v in values:
        flat = np.asarray(v, dtype=np.float64).reshape(len(mine), -1)
        width = flat.shape[1]
        padded = torch.zeros((longest, width), dtype=torch.float64, device=device)
        padded[: len(mine)] = torch.as_tensor(flat, device=device)
        parts = [torch.zeros_like(padded) for _ in range(world)]
        dist.all_gather(parts, padded, group=group)
        columns.append([p.cpu().numpy()[: counts[r]].reshape(counts[r], *v.shape[1:]) for r, p in enumerate(parts)])
    pieces = [
        (
            gathered_idx[r].cpu().numpy()[: counts[r]],
            tuple(col[r].astype(v.dtype) for col, v in zip(columns, values, strict=True)),
        )
        for r in range(world)
    ]
    out = _assemble(n, pieces)
    return out[0] if single else out
