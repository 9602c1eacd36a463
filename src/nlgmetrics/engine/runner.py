"""The runner: a model's forward passes over token-id sequences, in few shapes, outputs in input order.

:class:`Runner` holds a model on a device in a dtype. :meth:`Runner.run` takes token-id sequences (lists, or one
:class:`~nlgmetrics.engine.shapes.Packed` array) and a *head*, ``forward(model, input_ids, attention_mask)``, that
runs the model and reduces its output on the device to what the metric needs:

* ``"tokens"`` outputs ``(batch, width, *features)``, one row per token (BERTScore's embeddings, XCOMET's tag
  logits): they come back packed in one device buffer per call, :class:`TokenOutputs`, sequence ``i`` (its kept
  tokens, ``keep[i] = (lo, hi)``) at rows ``starts[i]:starts[i + 1]``;
* ``"rows"`` outputs ``(batch, *features)``, one row per sequence (a pooled sentence embedding, a score): they come
  back as one device tensor ``(n, *features)`` in input order.

With ``token_types`` (one type id per token, e.g. BERT's segment ids of COMET's joined ``mt`` + ``src`` input) the
head is ``forward(model, input_ids, attention_mask, token_type_ids)``; the types travel in the same copy as the ids.

How it runs:

* the sequences are sorted by length and cut into batches within a token budget
  (:func:`~nlgmetrics.engine.shapes.plan_batches`): padded to each batch's longest on a CPU; on an accelerator
  widths are rounded up to at most 16 buckets fitted to the call's lengths, with two batch sizes per width, so a
  call makes at most 32 distinct forward shapes (recorded in :attr:`Runner.shapes`);
* the host prepares everything in numpy at once (the padded ids of every batch, the rows' lengths, where each
  kept token goes) and sends it in **one** copy per call, from pinned memory and without blocking on CUDA; the
  attention masks are built on the device from the lengths;
* each batch's output goes into the call's buffer with one gather and one scatter kernel (``index_select``,
  ``index_copy_``), never a copy per text; nothing waits for the device until the caller reads the outputs;
* attention runs on the kernels :func:`~nlgmetrics.engine.device.attention_backends` chooses (no cuDNN attention
  on CUDA), under ``torch.inference_mode``, on :func:`~nlgmetrics.engine.device.cpu_threads` threads on a CPU.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from .device import DTYPES, SMALL_PASS_WORK, attention_backends, cpu_threads
from .shapes import Batch, Packed, fit_widths, plan_batches

__all__ = [
    "ACCELERATOR_FORWARD_BYTES",
    "FORWARD_BYTES",
    "Runner",
    "TokenOutputs",
    "model_widths",
    "prepare",
    "token_budget",
]

#: Memory budget of the activations of one forward pass on a CPU, in bytes (turned into padded tokens from the
#: model's width by :func:`token_budget`: 1,820 for MiniLM-L6 in float32, 910 for BERT-base). On MiniLM-L6 (1,000
#: SummEval pairs, 2 threads) every budget from 32 to 128 MiB ran alike within the machine's ±10% noise; 64 MiB
#: peaked lowest (734-737 MiB in three runs against 701-894 MiB in eight), 384 MiB was about 15% slower.
FORWARD_BYTES = 64 * 2**20
#: The same budget on a GPU or another accelerator, where larger batches keep the device busy (5,461 padded tokens
#: for a BERT-base-sized model in float32, 10,922 in bfloat16).
ACCELERATOR_FORWARD_BYTES = 384 * 2**20

Forward = Callable[..., Any]


def model_widths(config: Any) -> tuple[int, int]:
    """A transformers config's hidden size and the inner size of its feed-forward layers."""
    names = ("hidden_size", "d_model", "dim", "n_embd", "emb_dim")
    hidden = next((v for k in names if isinstance(v := getattr(config, k, None), int)), 1024)
    names = ("intermediate_size", "d_ff", "encoder_ffn_dim", "hidden_dim", "n_inner")
    inner = next((v for k in names if isinstance(v := getattr(config, k, None), int)), 4 * hidden)
    return hidden, inner


def token_budget(config: Any, dtype: torch.dtype, device: torch.device, minimum: int = 1) -> int:
    """How many padded tokens one forward pass may hold within :data:`FORWARD_BYTES` on a CPU
    (:data:`ACCELERATOR_FORWARD_BYTES` elsewhere), never fewer than ``minimum`` (one text of the maximum length):
    a pass keeps about ``4 * (inner + 2 * hidden)`` values per token alive (measured on MiniLM-L6: 27 KiB per token
    in float32, within the 36 KiB this estimate gives)."""
    hidden, inner = model_widths(config)
    per_token = 4 * (inner + 2 * hidden) * torch.finfo(dtype).bits // 8
    budget = FORWARD_BYTES if device.type == "cpu" else ACCELERATOR_FORWARD_BYTES
    return max(minimum, budget // per_token)


def prepare(module: Any, device: str | torch.device, dtype: str | torch.dtype = "float32") -> Any:
    """``module`` ready for inference: evaluation mode, no gradients, on ``device`` in ``dtype``."""
    if isinstance(dtype, str):
        dtype = DTYPES[dtype]
    module.eval()
    for p in module.parameters():
        p.requires_grad_(False)
    return module.to(device=torch.device(device), dtype=dtype)


@dataclasses.dataclass
class TokenOutputs:
    """Per-token outputs of a call: sequence ``i``'s kept tokens are ``data[offsets[i]:offsets[i] + lengths[i]]``
    (``data`` on the device, one buffer for the call; ``offsets`` and ``lengths`` numpy arrays)."""

    data: torch.Tensor
    offsets: np.ndarray
    lengths: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets)

    def __getitem__(self, i: int) -> torch.Tensor:
        start = int(self.offsets[i])
        return self.data[start : start + int(self.lengths[i])]


def _positions(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``concat(arange(s, s + n) for s, n in zip(starts, lengths))``, vectorised."""
    total = int(lengths.sum())
    before = np.cumsum(lengths) - lengths
    return np.repeat(starts - before, lengths) + np.arange(total, dtype=np.int64)


class Runner:
    """Forward passes of ``model`` on ``device`` (see the module documentation).

    ``pad_id`` fills padding; ``budget`` is the padded tokens of one pass (default: :func:`token_budget` from the
    model's config); ``bucketed`` rounds widths up to a call's fitted buckets (default: on any device but a CPU).
    ``work_per_token``: the multiply-adds of one token's pass (about the parameters of the layers run); when
    given, a CPU pass of less than :data:`~nlgmetrics.engine.device.SMALL_PASS_WORK` runs on one thread (the
    threads of a small pass on a loaded machine wait longer for each other than they compute).
    :attr:`shapes` lists the ``(rows, width)`` of every forward pass since the runner was made or
    :meth:`reset_stats` was called."""

    def __init__(
        self,
        model: Any,
        *,
        device: str | torch.device,
        dtype: str = "float32",
        pad_id: int = 0,
        budget: int | None = None,
        bucketed: bool | None = None,
        work_per_token: float | None = None,
    ) -> None:
        self.model = model
        self.device = torch.device(device)
        self.dtype = DTYPES[dtype]
        self.pad_id = int(pad_id)
        self.budget = budget
        self.bucketed = self.device.type != "cpu" if bucketed is None else bool(bucketed)
        self.work_per_token = work_per_token
        self.shapes: list[tuple[int, int]] = []
        self._arange: torch.Tensor | None = None

    # ------------------------------------------------------------------ planning
    def token_budget(self, minimum: int = 1) -> int:
        if self.budget is not None:
            return max(minimum, self.budget)
        return token_budget(getattr(self.model, "config", None), self.dtype, self.device, minimum)

    def widths(self, lengths: Sequence[int] | np.ndarray) -> tuple[int, ...] | None:
        """The buckets for a call over sequences of these lengths (``None`` on a CPU: exact widths)."""
        return fit_widths(lengths) if self.bucketed else None

    def plan(
        self,
        lengths: Sequence[int] | np.ndarray,
        *,
        widths: Sequence[int] | None = None,
        batch_size: int | None = None,
    ) -> list[Batch]:
        """The batches :meth:`run` would make (``widths``: a call's buckets, fitted here when bucketed and not
        given)."""
        lens = np.asarray(lengths, dtype=np.int64)
        if self.bucketed and widths is None:
            widths = fit_widths(lens)
        budget = self.token_budget(int(lens.max()) if len(lens) else 1)
        return plan_batches(lens, budget, batch_size=batch_size, widths=widths if self.bucketed else None)

    def reset_stats(self) -> None:
        self.shapes = []

    # ------------------------------------------------------------------ running
    def run(
        self,
        sequences: Sequence[Any] | Packed,
        forward: Forward,
        *,
        kinds: str | Sequence[str] = "tokens",
        keep: np.ndarray | None = None,
        widths: Sequence[int] | None = None,
        batch_size: int | None = None,
        out: torch.Tensor | None = None,
        at: np.ndarray | None = None,
        advance: Callable[[int, int], None] | None = None,
        token_types: Sequence[Any] | Packed | None = None,
    ) -> Any:
        """Run ``forward(model, input_ids, attention_mask)`` over ``sequences`` and return its outputs in input
        order: one per entry of ``kinds`` (``"tokens"``: a :class:`TokenOutputs`; ``"rows"``: a tensor with one
        row per sequence), a tuple when ``kinds`` is a sequence. The head returns a tensor, or a tuple of them in
        the order of ``kinds``.

        ``keep``: ``(n, 2)`` positions ``[lo, hi)`` of each sequence's tokens to keep (default: all).
        ``widths``: the buckets of the whole call when it is run in several pieces (from :meth:`widths`), so the
        pieces share their shapes. ``out``: a buffer for the first output (it may be larger than needed), and
        ``at``: the row of ``out`` where each sequence's kept tokens (or its row) go (default: one after the other
        from row 0, in input order). ``advance(done, total)`` is called after each forward pass with the tokens
        embedded so far. ``token_types``: a type id per token of each sequence (the same lengths as
        ``sequences``; padding gets type 0), passed to the head as a fourth argument.
        """
        packed = Packed.of(sequences)
        single = isinstance(kinds, str)
        kind_list = [kinds] if isinstance(kinds, str) else list(kinds)
        if any(k not in ("tokens", "rows") for k in kind_list):
            raise ValueError(f"kinds must be 'tokens' or 'rows', got {kinds!r}")
        n = len(packed)
        lengths = packed.lengths
        if keep is None:
            keep_arr = np.stack([np.zeros(n, dtype=np.int64), lengths], axis=1)
        else:
            keep_arr = np.asarray(keep, dtype=np.int64).reshape(n, 2)
        kept = keep_arr[:, 1] - keep_arr[:, 0]
        # where each sequence's output goes: its kept tokens (tokens), its row (rows); ``at`` for the first output
        offsets = np.cumsum(kept) - kept
        row_offsets = np.arange(n, dtype=np.int64)
        if at is not None:
            if kind_list[0] == "tokens":
                offsets = np.asarray(at, dtype=np.int64).reshape(n)
            else:
                row_offsets = np.asarray(at, dtype=np.int64).reshape(n)
        needed = {
            "tokens": int((offsets + kept).max(initial=0)),
            "rows": int((row_offsets + 1).max(initial=0)),
        }
        if n == 0 or int(lengths.min(initial=1)) < 1:
            if n == 0:
                return self._empty(kind_list, offsets, kept, single, out)
            raise ValueError("every sequence needs at least one token")
        types = None if token_types is None else Packed.of(token_types)
        if types is not None and (len(types) != n or not np.array_equal(types.lengths, lengths)):
            raise ValueError("token_types must give one type id per token of each sequence")
        batches = self.plan(lengths, widths=widths, batch_size=batch_size)
        staged = self._stage(packed, batches, keep_arr, offsets, row_offsets, "tokens" in kind_list, types)
        results: list[Any] = [None] * len(kind_list)
        total_tokens, done_tokens = int(lengths.sum()), 0
        with torch.inference_mode(), attention_backends(self.device), cpu_threads(self.device) as threads:
            device_data = self._to_device(staged["data"])
            arange = self._positions_on_device(max(b.width for b in batches))
            for b, batch in enumerate(batches):
                rows, width = batch.rows, batch.width
                if self.work_per_token is not None:
                    small = self.work_per_token * rows * width < SMALL_PASS_WORK
                    threads.adjust(at_most=1 if small else None)
                elif b:
                    threads.adjust()  # a CPU follows the machine's load from one forward pass to the next
                base, rb = int(staged["base"][b]), int(staged["row_base"][b])
                ids = device_data[base : base + rows * width].view(rows, width)
                lens = device_data[staged["lens_at"] + rb : staged["lens_at"] + rb + rows]
                mask = torch.lt(arange[:width], lens[:, None]).to(torch.long)
                if types is None:
                    outputs = forward(self.model, ids, mask)
                else:
                    at_types = staged["types_at"] + base
                    outputs = forward(
                        self.model, ids, mask, device_data[at_types : at_types + rows * width].view(rows, width)
                    )
                if not isinstance(outputs, tuple):
                    outputs = (outputs,)
                if len(outputs) != len(kind_list):
                    raise ValueError(f"the head returned {len(outputs)} output(s) for kinds {kind_list}")
                for k, (kind, y) in enumerate(zip(kind_list, outputs, strict=True)):
                    if kind == "tokens":
                        t0, t1 = int(staged["tok_base"][b]), int(staged["tok_base"][b + 1])
                        src = device_data[staged["src_at"] + t0 : staged["src_at"] + t1]
                        dst = device_data[staged["dst_at"] + t0 : staged["dst_at"] + t1]
                        flat = y.reshape(rows * width, *y.shape[2:])
                        if results[k] is None:
                            results[k] = self._buffer(out if k == 0 else None, needed["tokens"], flat)
                        results[k].index_copy_(0, dst, flat.index_select(0, src))
                    else:
                        r0, r1 = int(staged["seq_base"][b]), int(staged["seq_base"][b + 1])
                        dst = device_data[staged["rowdst_at"] + r0 : staged["rowdst_at"] + r1]
                        if results[k] is None:
                            results[k] = self._buffer(out if k == 0 else None, needed["rows"], y)
                        results[k].index_copy_(0, dst, y[: len(batch.indices)])
                self.shapes.append((rows, width))
                done_tokens += int(lengths[list(batch.indices)].sum())
                if advance is not None:
                    advance(done_tokens, total_tokens)
        wrapped = [
            TokenOutputs(r, offsets, kept) if kind == "tokens" else r
            for kind, r in zip(kind_list, results, strict=True)
        ]
        return wrapped[0] if single else tuple(wrapped)

    def _empty(
        self, kinds: list[str], offsets: np.ndarray, kept: np.ndarray, single: bool, out: torch.Tensor | None
    ) -> Any:
        empty = out[:0] if out is not None else torch.empty((0,), device=self.device)
        wrapped = [TokenOutputs(empty, offsets, kept) if kind == "tokens" else empty for kind in kinds]
        return wrapped[0] if single else tuple(wrapped)

    def _buffer(self, out: torch.Tensor | None, rows: int, like: torch.Tensor) -> torch.Tensor:
        if out is not None:
            if out.shape[0] < rows or tuple(out.shape[1:]) != tuple(like.shape[1:]):
                raise ValueError(f"out has shape {tuple(out.shape)}; needed ({rows}, *{tuple(like.shape[1:])})")
            return out
        return like.new_empty((rows, *like.shape[1:]))

    def _positions_on_device(self, width: int) -> torch.Tensor:
        if self._arange is None or self._arange.numel() < width:
            self._arange = torch.arange(max(width, 512), device=self.device)
        return self._arange

    def _stage(
        self,
        packed: Packed,
        batches: list[Batch],
        keep: np.ndarray,
        offsets: np.ndarray,
        row_offsets: np.ndarray,
        tokens: bool,
        types: Packed | None = None,
    ) -> dict[str, Any]:
        """Everything the device needs, in one int64 array: the padded ids of every batch, each batch row's
        length (1 for an empty row), and, per kept token (batches in order), where it is in its batch's output
        and where it goes; per real row, its sequence's index; then, with ``types``, the padded token types laid
        out as the ids."""
        rows = np.asarray([b.rows for b in batches], dtype=np.int64)
        widths = np.asarray([b.width for b in batches], dtype=np.int64)
        base = np.zeros(len(batches) + 1, dtype=np.int64)
        np.cumsum(rows * widths, out=base[1:])
        row_base = np.zeros(len(batches) + 1, dtype=np.int64)
        np.cumsum(rows, out=row_base[1:])
        order = np.fromiter((j for b in batches for j in b.indices), dtype=np.int64, count=len(packed))
        counts = np.fromiter((len(b.indices) for b in batches), dtype=np.int64, count=len(batches))
        batch_of = np.repeat(np.arange(len(batches)), counts)  # per sequence in plan order
        row_in_batch = np.arange(len(order)) - np.repeat(np.cumsum(counts) - counts, counts)
        seq_start = base[batch_of] + row_in_batch * widths[batch_of]  # where each sequence's ids go
        lengths = packed.lengths[order]
        n_ids, n_rows = int(base[-1]), int(row_base[-1])
        row_lens = np.ones(n_rows, dtype=np.int64)  # an empty row holds one padding token, masked in
        row_lens[row_base[batch_of] + row_in_batch] = lengths
        kept = keep[order, 1] - keep[order, 0]
        n_kept = int(kept.sum()) if tokens else 0
        layout = {
            "lens_at": n_ids,
            "src_at": n_ids + n_rows,
            "dst_at": n_ids + n_rows + n_kept,
            "rowdst_at": n_ids + n_rows + 2 * n_kept,
            "types_at": n_ids + n_rows + 2 * n_kept + len(order),
        }
        data = np.empty(layout["types_at"] + (n_ids if types is not None else 0), dtype=np.int64)
        ids = data[:n_ids]
        ids.fill(self.pad_id)
        target = _positions(seq_start, lengths)
        ids[target] = packed.ids[_positions(packed.starts[order], lengths)]
        if types is not None:
            typed = data[layout["types_at"] :]
            typed.fill(0)
            typed[target] = types.ids[_positions(types.starts[order], lengths)]
        data[n_ids : n_ids + n_rows] = row_lens
        tok_base = np.zeros(len(batches) + 1, dtype=np.int64)
        if tokens:
            np.cumsum(np.bincount(batch_of, weights=kept, minlength=len(batches)).astype(np.int64), out=tok_base[1:])
            local = _positions(row_in_batch * widths[batch_of] + keep[order, 0], kept)
            data[layout["src_at"] : layout["src_at"] + n_kept] = local
            data[layout["dst_at"] : layout["dst_at"] + n_kept] = _positions(offsets[order], kept)
        data[layout["rowdst_at"] : layout["types_at"]] = row_offsets[order]
        seq_base = np.zeros(len(batches) + 1, dtype=np.int64)
        np.cumsum(counts, out=seq_base[1:])
        return {
            "data": data,
            "base": base,
            "row_base": row_base,
            "tok_base": tok_base,
            "seq_base": seq_base,
            **layout,
        }

    def _to_device(self, data: np.ndarray) -> torch.Tensor:
        """One host-to-device copy: from pinned memory, without blocking, on CUDA; a view of ``data`` on a CPU."""
        host = torch.from_numpy(data)
        if self.device.type == "cpu":
            return host
        if self.device.type == "cuda":
            pinned = torch.empty(host.shape, dtype=host.dtype, pin_memory=True)
            pinned.copy_(host)
            return pinned.to(self.device, non_blocking=True)
        return host.to(self.device)
