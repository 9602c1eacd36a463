"""Perplexity and bits per byte of a language model, from its logits and the target ids, or from the
log-probabilities an inference server returns.

Preset ``torchmetrics`` (the default) reproduces ``torchmetrics.text.Perplexity(ignore_index=...)`` (torchmetrics
1.9): ``exp(Σ -log p(target) / number of targets)`` over every target that is not ``ignore_index``, the
probabilities being the softmax of the logits. Bits per byte, ``Σ -log p / (ln 2 × bytes)``, is reported when the
UTF-8 byte length of each sequence's text is given (``num_bytes``), as language-model benchmarks compare models
with different tokenizers.

The inputs (``predictions``, ``references``), one sequence per row or item:

* **logits and targets**, as torchmetrics takes them: logits of shape ``(batch, seq_len, vocab)`` (a torch tensor
  or a numpy array, any floating dtype) and target ids of shape ``(batch, seq_len)`` (any integer dtype); or a
  list of per-sequence logits ``(seq_len_i, vocab)`` with a list of per-sequence target ids ``(seq_len_i,)``, for
  sequences of different lengths. Targets equal to ``ignore_index`` (padding, prompts) are left out; every other
  target must be an id in ``[0, vocab)``.
* **per-token log-probabilities** with no references (``None``): a list with, per sequence, the natural-log
  probabilities of its target tokens (a list of floats, or a 1-D array or tensor), e.g. the ``logprob`` of each
  token of an OpenAI-style ``logprobs.content`` list; or a 2-D array ``(batch, seq_len)`` when every sequence has
  ``seq_len`` tokens. Each value must be finite and at most 0.

The checks are strict, and every error names the sequence and the token: shapes and dtypes; NaN or +inf in the
logits of a counted target's row (NaN in a row whose target is ignored changes nothing, as in torchmetrics,
which masks those rows out); a target's logit of -inf (probability 0: an infinite perplexity); log-probabilities
that are NaN, infinite or positive; negative or non-integer byte counts.

How the numbers are computed, and where they differ from torchmetrics on purpose:

* ``-log p(target)`` is ``-log(softmax(logits)[target])`` (torch), torchmetrics' own formula on the same
  kernel, so every token's value is the one torchmetrics takes; or ``logsumexp(logits) - logit(target)``
  (numpy). It is computed in the logits' precision (float32 for float16 and bfloat16, as torch's own softmax
  accumulates them), or in float64 with ``precision="float64"``. Where a target's probability is below the
  smallest normal float (float32: about ``e^-87``), the softmax has lost its precision, and torchmetrics'
  perplexity is ``inf`` once it underflows to 0 (about ``e^-103``): those tokens are computed again as
  ``-log_softmax(logits)[target]``, which stays finite.
* The statistics are float64: per sequence, the negative log-likelihood (the exactly rounded sum of its tokens',
  :func:`math.fsum`), the number of counted tokens and of bytes. They add over batches, merges and DDP ranks,
  so the corpus perplexity is the same however the data was split (up to the last bit of those few additions);
  torchmetrics keeps a float32 running sum unless its states are cast to float64.
* A target out of ``[0, vocab)`` is an error (torch's indexing would wrap a negative id around silently).
* With no target at all, the perplexity is NaN, as torchmetrics gives it.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from .._inputs import describe
from ..algorithms import fastpath
from ..errors import InvalidInputError, unknown_option
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from .base import Family, Result

__all__ = [
    "PERPLEXITY",
    "PerplexityConfig",
    "PerplexityResult",
    "PerplexityStats",
    "check_logprobs",
    "perplexity",
]

_PRECISIONS = ("auto", "float64", "logits")
_LN2 = math.log(2.0)
#: The logs of the smallest normal float32 and float64 numbers, 2^-126 and 2^-1022.
_LOG_TINY_32, _LOG_TINY_64 = -126 * _LN2, -1022 * _LN2
#: The log of float16's smallest normal number, 2^-14 (bfloat16's is float32's).
_LOG_TINY_16 = -14 * _LN2
#: Logits per chunk of rows: the softmax normaliser is computed chunk by chunk, so memory stays bounded.
_CHUNK = 1 << 24
#: Logits per chunk and per torch thread on the torch path: chunks this small keep the softmax's output in the
#: cache (a 4,096-row batch of a 4,096-word vocabulary runs about twice as fast in chunks of 1 MB per thread as in
#: one call), large enough that each thread's share outweighs the cost of the call.
_TORCH_CHUNK_PER_THREAD = 1 << 18
#: Bytes of probabilities that the torch path computes in one ``softmax`` call, unchunked: 32 MiB, 8M float32 values
#: or 4M float64. Measured with one thread on the development machine: up to that size one call was as fast as
#: cache-sized chunks or faster (8-10% on 2 x 512 x 8,000 float32 logits), while 48 MiB of float32 and 96 MiB of
#: float64 took 2.5x longer in one call than in chunks (torchmetrics' single call included).
_TORCH_ONE_CALL_BYTES = 32 << 20
#: The size of the fast-path rule ``perplexity`` (read-only: :mod:`nlgmetrics.algorithms.fastpath` decides).
_SMALL = fastpath.RULES["perplexity"].rows_up_to
_NUM_BYTES = frozenset({"num_bytes"})


# ====================================================================== configuration, statistics, result
@dataclasses.dataclass(frozen=True)
class PerplexityConfig:
    """Options of perplexity: ``ignore_index`` (targets to leave out, as in torchmetrics) and ``precision``
    (``"auto"``: the softmax in the logits' own precision, float32 for half precision; ``"float64"``: upcast
    first; ``"logits"``: the softmax in the logits' own precision, half precision included, as torchmetrics
    computes it, a half-precision target probability then taken to float64 for its log and the sums:
    torchmetrics' cost on a GPU for bfloat16 logits, and 10 to 4,000 times nearer the float64 value than
    torchmetrics, but 30 to 800 times farther than ``"auto"``; numpy logits as ``"auto"``). See
    ``docs/sari_perplexity.md``."""

    ignore_index: int | None = sig_field(
        "ign", None, help="target id to leave out (padding, prompt tokens), as torchmetrics' ignore_index"
    )
    precision: str = sig_field(
        "prec",
        "auto",
        help="precision of the softmax: the logits' own, float32 for half precision (auto), float64, or the logits' "
        "own even in half precision, logs and sums in float64 (logits: torchmetrics' speed on a GPU)",
        choices=_PRECISIONS,
    )
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        if self.ignore_index is not None and (
            isinstance(self.ignore_index, bool) or not isinstance(self.ignore_index, (int, np.integer))
        ):
            raise InvalidInputError(f"ignore_index must be an integer or None, got {self.ignore_index!r}")
        if self.ignore_index is not None:
            object.__setattr__(self, "ignore_index", int(self.ignore_index))
        if self.precision not in _PRECISIONS:
            raise unknown_option("precision", self.precision, list(_PRECISIONS))


@dataclasses.dataclass(frozen=True)
class PerplexityStats(Stats):
    """Sums over sequences: the negative log-likelihood of the counted targets (natural log), their number, the
    UTF-8 bytes of the sequences' text, the number of sequences and how many of them came with a byte count."""

    segment_field: ClassVar[str | None] = "sequences"
    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (("sequences_with_bytes", "sequences"),)

    nll: float
    tokens: int
    bytes: int
    sequences: int
    sequences_with_bytes: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class PerplexityResult(Result):
    """Perplexity, ``exp(nll / tokens)`` (lower is better). ``nll`` is the mean negative log-likelihood per token
    in nats (the cross-entropy), ``bits_per_token`` the same in bits, ``bits_per_byte`` ``Σ nll / (ln 2 × bytes)``
    (``None`` unless every sequence came with its byte count); ``tokens``, ``bytes`` and ``sequences`` the
    counts."""

    nll: Any = math.nan
    bits_per_token: Any = math.nan
    bits_per_byte: Any = None
    tokens: Any = 0
    bytes: Any = 0
    sequences: Any = 0


def _ratio(num: Any, den: Any) -> Any:
    """``num / den``; NaN where ``den`` is 0 (numbers or numpy columns)."""
    if isinstance(den, np.ndarray):
        out = np.full(den.shape, math.nan)
        return np.divide(np.asarray(num, dtype=np.float64), den, out=out, where=den != 0)
    return num / den if den else math.nan


def _exp(x: float) -> float:
    """``math.exp``, but ``inf`` where the result overflows a double (a mean NLL over ~709.78), as torchmetrics'
    ``torch.exp`` gives, instead of an ``OverflowError``."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def perplexity_from_stats(stats: PerplexityStats, cfg: PerplexityConfig) -> PerplexityResult:
    """torchmetrics' ``exp(total / count)`` in float64, with the cross-entropy and bits per token and per byte."""
    mean = _ratio(stats.nll, stats.tokens)
    if isinstance(mean, np.ndarray):
        bpb: Any = np.where(stats.sequences_with_bytes == stats.sequences, _ratio(stats.nll, stats.bytes), math.nan)
        with np.errstate(over="ignore"):  # a mean NLL over ~709: inf, as torchmetrics gives
            score = np.exp(mean)
        return PerplexityResult(score=score, nll=mean, bits_per_token=mean / _LN2, bits_per_byte=bpb / _LN2)
    bpb = None
    if stats.sequences and stats.sequences_with_bytes == stats.sequences:
        bpb = _ratio(stats.nll, stats.bytes) / _LN2
    return PerplexityResult(
        score=_exp(mean),
        nll=mean,
        bits_per_token=mean / _LN2,
        bits_per_byte=bpb,
        tokens=int(stats.tokens),
        bytes=int(stats.bytes),
        sequences=int(stats.sequences),
    )


# ====================================================================== input checks
def _torch() -> Any:
    """The torch module, for an input that is a torch tensor (so torch is loaded already): this module never
    imports torch itself, which stays an optional dependency of :mod:`nlgmetrics.torch` alone."""
    return sys.modules["torch"]


def _is_tensor(x: Any) -> bool:
    return type(x).__module__.split(".", 1)[0] == "torch" and hasattr(x, "detach")


def _is_array(x: Any) -> bool:
    return isinstance(x, np.ndarray) or _is_tensor(x)


def _dtype_kind(x: Any) -> str:
    """numpy's dtype kind of an array or tensor: ``f`` floating, ``i``/``u`` integer, ``b`` bool, ..."""
    if isinstance(x, np.ndarray):
        return str(x.dtype.kind)
    if x.dtype.is_floating_point:
        return "f"
    if x.dtype.is_complex:
        return "c"
    return "b" if str(x.dtype) == "torch.bool" else "i"


def _where(name: str, index: tuple[int, ...]) -> str:
    return f"{name}[{', '.join(map(str, index))}]"


def check_logprobs(values: np.ndarray, where: Any) -> None:
    """Raise :class:`InvalidInputError` unless every value of a float64 array is a finite log-probability (at
    most 0). ``where(j)`` names position ``j`` of ``values`` in the message."""
    bad = ~np.isfinite(values) | (values > 0)
    if bad.any():
        j = int(np.argmax(bad))
        v = float(values[j])
        why = "NaN" if math.isnan(v) else "infinite" if math.isinf(v) else "positive"
        raise InvalidInputError(
            f"{where(j)} is {v!r}, {why}: a log-probability must be finite and at most 0 (natural log)"
        )


def _as_numbers(seq: Any, name: str) -> np.ndarray:
    """One sequence of log-probabilities as a float64 array: a 1-D array or tensor, or a list of numbers."""
    if _is_array(seq):
        if seq.ndim != 1:
            raise InvalidInputError(
                f"{name} has shape {tuple(seq.shape)}; the log-probabilities of a sequence are 1-D (one per token)"
            )
        if _dtype_kind(seq) != "f":
            raise InvalidInputError(f"{name} has dtype {seq.dtype}; log-probabilities are floating point")
        if _is_tensor(seq):
            torch = _torch()
            return np.asarray(seq.detach().to("cpu", torch.float64).numpy())
        return np.asarray(seq, dtype=np.float64)
    if isinstance(seq, (str, bytes, dict)) or not isinstance(seq, Sequence):
        raise InvalidInputError(f"{name} is {describe(seq)}; expected the log-probabilities of a sequence")
    for j, v in enumerate(seq):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise InvalidInputError(f"{name}[{j}] is {describe(v)}; expected a number (a log-probability)")
    return np.asarray(seq, dtype=np.float64)


def _check_num_bytes(num_bytes: Any, n: int) -> np.ndarray:
    if _is_tensor(num_bytes):
        num_bytes = num_bytes.detach().cpu().numpy()
    if isinstance(num_bytes, np.ndarray):
        if num_bytes.ndim != 1 or num_bytes.dtype.kind not in "iu":
            raise InvalidInputError(
                f"num_bytes has shape {num_bytes.shape} and dtype {num_bytes.dtype}; expected one integer per sequence"
            )
        values = num_bytes.astype(np.int64)
    elif isinstance(num_bytes, Sequence) and not isinstance(num_bytes, (str, bytes)):
        for i, v in enumerate(num_bytes):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise InvalidInputError(f"num_bytes[{i}] is {describe(v)}; expected an integer (a byte count)")
        values = np.asarray(num_bytes, dtype=np.int64).reshape(-1)
    else:
        raise InvalidInputError(f"num_bytes is {describe(num_bytes)}; expected one byte count per sequence")
    if len(values) != n:
        raise InvalidInputError(f"num_bytes has {len(values)} values but there are {n} sequences")
    if (values < 0).any():
        i = int(np.argmax(values < 0))
        raise InvalidInputError(f"num_bytes[{i}] is {int(values[i])}; a byte count cannot be negative")
    return values


# ====================================================================== the negative log-likelihoods
def _torch_step(n_rows: int, vocab: int, dtype: Any, torch: Any) -> int:
    """Rows of logits per ``softmax`` call (in ``dtype``) on the torch path."""
    if n_rows * vocab * dtype.itemsize <= _TORCH_ONE_CALL_BYTES:  # small enough for one call
        return n_rows
    return max(1, min(_CHUNK, _TORCH_CHUNK_PER_THREAD * torch.get_num_threads()) // max(1, vocab))


def _torch_log_probs(x: Any, ids: Any, dtype: Any, rows: Any = None) -> Any:
    """``log(softmax(x[r])[ids[i]])`` for ``r`` the ``i``-th of ``rows`` (every row when ``None``) of a 2-D
    tensor, in ``dtype``, as a 1-D tensor; every id must be in ``[0, vocab)`` (``gather`` raises ``RuntimeError``
    for any other). This is torchmetrics' formula on torch's softmax kernel, so every token's value is the one
    torchmetrics takes (summed more exactly here); torch's softmax is 5-15 % faster than its ``log_softmax`` or
    ``cross_entropy`` on a CPU, across vocabulary sizes and dtypes. A probability below the smallest normal number
    has lost precision (or underflowed to 0, where torchmetrics' perplexity is infinite): :func:`_fix_small`
    computes those rows again with ``log_softmax``. The rows go chunk by chunk through one buffer, which keeps
    memory bounded and the work in cache; a row's value does not depend on its chunk."""
    torch = _torch()
    n = int(x.shape[0]) if rows is None else len(rows)
    vocab = int(x.shape[1])
    step = _torch_step(n, vocab, dtype, torch)
    column = ids.view(n, 1) if ids.is_contiguous() else ids.reshape(n, 1)
    if rows is None and n <= step:
        probs = torch.softmax(x if x.dtype is dtype else x.to(dtype), 1)
        return _logs(probs.gather(1, column), torch).view(n)
    picked = torch.empty((n, 1), dtype=dtype, device=x.device)
    buffer = torch.empty((min(step, n), vocab), dtype=dtype, device=x.device)
    for lo in range(0, n, step):
        chunk = x[lo : lo + step] if rows is None else x.index_select(0, rows[lo : lo + step])
        probs = buffer[: len(chunk)]
        torch.softmax(chunk if chunk.dtype is dtype else chunk.to(dtype), 1, out=probs)
        torch.gather(probs, 1, column[lo : lo + step], out=picked[lo : lo + step])
    return _logs(picked, torch).view(n)


def _logs(picked: Any, torch: Any) -> Any:
    """The logs of picked probabilities, in place; half-precision ones (``precision="logits"``) in float64."""
    if picked.dtype is torch.float16 or picked.dtype is torch.bfloat16:
        return picked.double().log_()
    return picked.log_()


def _log_tiny(dtype: Any) -> float:
    """The log of the smallest normal number of ``dtype``: a log-probability below it came from a probability that
    lost bits in the softmax."""
    torch = _torch()
    if dtype is torch.float64:
        return _LOG_TINY_64
    return _LOG_TINY_16 if dtype is torch.float16 else _LOG_TINY_32


def _fix_small(x: Any, ids: Any, logp: Any, low: Any, rows: Any = None) -> None:
    """Recompute in place, with ``log_softmax`` (``-cross_entropy``), the entries of ``logp`` (from
    :func:`_torch_log_probs`) where the boolean tensor ``low`` is true, chunk by chunk."""
    torch = _torch()
    where = torch.nonzero(low).reshape(-1)
    source = where if rows is None else rows[where]
    step = _torch_step(len(where), int(x.shape[1]), logp.dtype, torch)
    for lo in range(0, len(where), step):
        chunk = x.index_select(0, source[lo : lo + step]).to(logp.dtype)
        part = where[lo : lo + step]
        logp[part] = torch.nn.functional.cross_entropy(chunk, ids[part], reduction="none").neg_()


def _nll_torch(x: Any, targets: Any, counted: np.ndarray | None, cfg: PerplexityConfig) -> np.ndarray:
    """``-log p(target)`` (:func:`_torch_log_probs`) for each counted row of a 2-D tensor (``counted``: a boolean
    array, or ``None`` when every row counts; every counted target is an id in range), as float64. When most rows
    are counted, every row is computed (as torchmetrics does; the ignored ones read id 0 and are left out after)
    rather than the counted ones copied out first."""
    torch = _torch()
    dtype = _torch_dtype(x.dtype, cfg, torch)
    n_rows = int(x.shape[0])
    n_counted = n_rows if counted is None else int(np.count_nonzero(counted))
    if n_counted == 0:
        return np.zeros(0, dtype=np.float64)
    rows = mask = None
    if counted is None:
        ids = targets
    elif 2 * n_counted >= n_rows:  # all rows; then keep the counted ones
        mask = torch.from_numpy(counted).to(x.device)
        ids = torch.where(mask, targets, 0)
    else:
        rows = torch.as_tensor(np.flatnonzero(counted), device=x.device)
        ids = targets[rows]
    logp = _torch_log_probs(x, ids, dtype, rows)
    low = logp < _log_tiny(dtype)  # below the smallest normal number of the softmax's dtype
    if mask is not None:
        low &= mask
    if bool(low.any()):
        _fix_small(x, ids, logp, low, rows)
    values = logp.cpu().numpy().astype(np.float64)
    return -(values if mask is None else values[counted])


def _torch_dtype(dtype: Any, cfg: PerplexityConfig, torch: Any) -> Any:
    """The dtype the softmax runs in: the logits' own, float32 for half precision (unless ``precision="logits"``),
    float64 when asked for."""
    if cfg.precision == "float64" or dtype is torch.float64:
        return torch.float64
    if cfg.precision == "logits" and (dtype is torch.float16 or dtype is torch.bfloat16):
        return dtype
    return torch.float32


def _nll_rows_numpy(x: np.ndarray, rows: np.ndarray, targets: np.ndarray, cfg: PerplexityConfig) -> np.ndarray:
    """The numpy twin of :func:`_nll_torch`: ``logsumexp(x[row]) - x[row, target]``."""
    dtype = np.float64 if cfg.precision == "float64" or x.dtype == np.float64 else np.float32
    n = len(rows)
    out = np.empty(n, dtype=np.float64)
    step = max(1, _CHUNK // max(1, x.shape[1]))
    contiguous = n == x.shape[0]
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        for lo in range(0, n, step):
            sel = slice(lo, lo + step)
            chunk = np.asarray(x[sel] if contiguous else x[rows[sel]], dtype=dtype)
            top = chunk.max(axis=1)
            shifted = np.exp(chunk - top[:, None])
            lse = top + np.log(shifted.sum(axis=1))
            picked = chunk[np.arange(len(chunk)), targets[sel]]
            out[sel] = lse.astype(np.float64) - picked.astype(np.float64)
    return out


def _explain_row(x: Any, target: int, where: str) -> str:
    """Why a counted row gives no finite negative log-likelihood."""
    row = np.asarray(x.detach().to("cpu").double().numpy() if _is_tensor(x) else x, dtype=np.float64)
    if np.isnan(row).any():
        return f"the logits at {where} contain NaN (at vocabulary id {int(np.argmax(np.isnan(row)))})"
    if np.isposinf(row).any():
        return f"the logits at {where} contain +inf (at vocabulary id {int(np.argmax(np.isposinf(row)))})"
    if np.isneginf(row[target]):
        return f"the logit of the target {target} at {where} is -inf: its probability is 0 and the perplexity infinite"
    return f"the logits at {where} give no finite log-probability"


def _logit_sequences(predictions: Any, references: Any) -> list[tuple[Any, Any]]:
    """Logits and targets as (logits (T, V), targets (T,)) pairs per sequence, or one (B, T, V) / (B, T) pair."""
    if _is_array(predictions):
        if predictions.ndim != 3:
            raise InvalidInputError(
                f"logits have shape {tuple(predictions.shape)}; expected (batch, seq_len, vocab) — or no references, "
                "for per-token log-probabilities"
            )
        if not _is_array(references):
            try:
                references = np.asarray(references)
            except (ValueError, TypeError):
                raise InvalidInputError(
                    f"targets are {describe(references)}; expected an integer array (batch, seq_len)"
                ) from None
        if tuple(references.shape) != tuple(predictions.shape[:2]):
            raise InvalidInputError(
                f"logits have shape {tuple(predictions.shape)} but targets {tuple(references.shape)}; the targets "
                "must be (batch, seq_len), the logits' first two dimensions"
            )
        return [(predictions, references)]
    if isinstance(predictions, (str, bytes, dict)) or not isinstance(predictions, Sequence):
        raise InvalidInputError(
            f"predictions are {describe(predictions)}; expected logits (batch, seq_len, vocab) with target ids, or "
            "per-token log-probabilities"
        )
    if isinstance(references, (str, bytes, dict)) or (
        not isinstance(references, Sequence) and not _is_array(references)
    ):
        raise InvalidInputError(f"targets are {describe(references)}; expected one target sequence per sequence")
    if len(references) != len(predictions):
        raise InvalidInputError(
            f"predictions and targets differ in length: {len(predictions)} sequences of logits but "
            f"{len(references)} target sequences"
        )
    pairs = []
    for i, (x, t) in enumerate(zip(predictions, references, strict=True)):
        if not _is_array(x) or x.ndim != 2:
            shape = tuple(x.shape) if _is_array(x) else None
            raise InvalidInputError(
                f"predictions[{i}] is {describe(x) if shape is None else f'an array of shape {shape}'}; expected the "
                "logits of one sequence, (seq_len, vocab)"
            )
        if not _is_array(t):
            if isinstance(t, (str, bytes)) or not isinstance(t, Sequence):
                raise InvalidInputError(f"references[{i}] is {describe(t)}; expected the target ids of a sequence")
            t = np.asarray(t)
        if tuple(t.shape) != tuple(x.shape[:1]):
            raise InvalidInputError(
                f"predictions[{i}] has {x.shape[0]} rows of logits but references[{i}] has shape {tuple(t.shape)}; "
                "expected one target id per row"
            )
        pairs.append((x[None], t[None]))
    return pairs


def _position(r: int, seq_len: int, single: bool) -> tuple[int, ...]:
    """The index of flat row ``r``: (sequence, token) in one batch, (token,) in a sequence of a list."""
    return (r // seq_len, r % seq_len) if single else (r % seq_len,)


def _bad_target(name: str, index: tuple[int, ...], value: int, vocab: int, cfg: PerplexityConfig) -> InvalidInputError:
    hint = "" if cfg.ignore_index is None else f" (ignore_index is {cfg.ignore_index})"
    return InvalidInputError(f"{_where(name, index)} is {value}: a target id must be in [0, {vocab}){hint}")


def _check_targets(
    t: np.ndarray, counted: np.ndarray | None, name: str, seq_len: int, single: bool, vocab: int, cfg: PerplexityConfig
) -> None:
    """Raise naming the first counted target id out of ``[0, vocab)``: one min and one max over the counted ids
    (the ignored ones read as 0), the exact search only when they fail."""
    if not len(t):
        return
    ids = t if counted is None else np.where(counted, t, 0)
    if int(ids.min()) >= 0 and int(ids.max()) < vocab:
        return
    bad = (t < 0) | (t >= vocab)
    if counted is not None:
        bad &= counted
    if bad.any():
        r = int(np.argmax(bad))
        raise _bad_target(name, _position(r, seq_len, single), int(t[r]), vocab, cfg)


def _logit_batch(predictions: Any, references: Any, cfg: PerplexityConfig) -> tuple[np.ndarray, np.ndarray]:
    """Per-token negative log-likelihoods (flat, sequence by sequence) and counted tokens per sequence."""
    pairs = _logit_sequences(predictions, references)
    nll_parts: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    offset = 0  # the sequence index of the pair's first row (for messages)
    single = len(pairs) == 1 and _is_array(predictions)
    for x, t in pairs:
        name_x, name_t = ("logits", "targets") if single else (f"predictions[{offset}]", f"references[{offset}]")
        if _dtype_kind(x) != "f":
            raise InvalidInputError(f"{name_x} have dtype {x.dtype}; logits are floating point")
        if _dtype_kind(t) not in "iu":
            raise InvalidInputError(f"{name_t} have dtype {t.dtype}; target ids are integers")
        b, seq_len, vocab = (int(d) for d in x.shape)
        flat_x = x.reshape(b * seq_len, vocab)
        if _is_tensor(x):
            # the checks on the target ids in numpy (a view of a CPU tensor: no copy), the softmax in torch
            torch = _torch()
            flat_x = flat_x.detach()  # perplexity is no training loss: logits that require grad are read as values
            if not (_is_tensor(t) and t.dtype == torch.int64 and t.device == x.device):
                t = torch.as_tensor(t).to(device=x.device, dtype=torch.int64)
            t_flat = t.reshape(-1)
            t_np = t_flat.cpu().numpy()
            counted_or_none = None if cfg.ignore_index is None else t_np != cfg.ignore_index
            _check_targets(t_np, counted_or_none, name_t, seq_len, single, vocab, cfg)
            nll = _nll_torch(flat_x, t_flat, counted_or_none, cfg)
            counted = np.ones(len(t_np), dtype=bool) if counted_or_none is None else counted_or_none
            rows = None if counted_or_none is None else np.flatnonzero(counted)
        else:
            t_np = np.asarray(t.detach().cpu().numpy() if _is_tensor(t) else t).astype(np.int64).reshape(-1)
            counted = np.ones(len(t_np), dtype=bool) if cfg.ignore_index is None else t_np != cfg.ignore_index
            _check_targets(t_np, None if cfg.ignore_index is None else counted, name_t, seq_len, single, vocab, cfg)
            rows = np.flatnonzero(counted)
            nll = _nll_rows_numpy(np.asarray(flat_x), rows, t_np[rows], cfg)
        finite = np.isfinite(nll)
        if not finite.all():
            j = int(np.argmax(~finite))
            r = j if rows is None else int(rows[j])
            where = _where("logits" if single else name_x, _position(r, seq_len, single))
            raise InvalidInputError(_explain_row(flat_x[r], int(t_np[r]), where))
        nll_parts.append(np.maximum(nll, 0.0))  # -0.0 and rounding below 0 where p(target) is 1
        counts.append(counted.reshape(b, seq_len).sum(axis=1))
        offset += b
    if len(nll_parts) == 1:
        return nll_parts[0], counts[0].astype(np.int64, copy=False)
    return np.concatenate(nll_parts), np.concatenate(counts).astype(np.int64)


def _logprob_batch(predictions: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per-token negative log-likelihoods (flat) and tokens per sequence, from per-token log-probabilities."""
    if _is_array(predictions):
        if predictions.ndim != 2:
            raise InvalidInputError(
                f"log-probabilities have shape {tuple(predictions.shape)}; without references they are per token: "
                "(batch, seq_len), or a list of 1-D sequences (for logits, give the target ids as references)"
            )
        if _dtype_kind(predictions) != "f":
            raise InvalidInputError(f"log-probabilities have dtype {predictions.dtype}; expected floating point")
        if _is_tensor(predictions):
            torch = _torch()
            values = np.asarray(predictions.detach().to("cpu", torch.float64).numpy())
        else:
            values = np.asarray(predictions, dtype=np.float64)
        b, seq_len = values.shape
        flat = values.reshape(-1)
        check_logprobs(flat, lambda j: f"predictions[{j // seq_len}][{j % seq_len}]")
        return -flat, np.full(b, seq_len, dtype=np.int64)
    if isinstance(predictions, (str, bytes, dict)) or not isinstance(predictions, Sequence):
        raise InvalidInputError(
            f"predictions are {describe(predictions)}; expected per-token log-probabilities (one list per sequence), "
            "or logits with target ids"
        )
    parts = [_as_numbers(seq, f"predictions[{i}]") for i, seq in enumerate(predictions)]
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    flat = np.concatenate(parts) if parts else np.zeros(0)
    starts = np.cumsum(lengths) - lengths

    def where(j: int) -> str:
        i = int(np.searchsorted(starts, j, side="right")) - 1
        while lengths[i] == 0:  # an empty sequence shares its start with the next one
            i += 1
        return f"predictions[{i}][{j - int(starts[i])}]"

    check_logprobs(flat, where)
    return -flat, lengths


def _per_sequence_sums(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The exactly rounded sum (:func:`math.fsum`) of each sequence's values: a sequence's statistics do not
    depend on the batch it came in, its padding or its place."""
    flat = values.tolist()
    out = np.empty(len(lengths), dtype=np.float64)
    pos = 0
    for i, n in enumerate(lengths.tolist()):
        out[i] = math.fsum(flat[pos : pos + n])
        pos += n
    return out


def _no_targets(references: Any) -> bool:
    if references is None:
        return True
    if isinstance(references, (list, tuple)):
        return len(references) > 0 and all(r is None for r in references)
    return False


# ====================================================================== small CPU tensors, checked in torch
def _torch_logit_lists(x: Any, t: Any, cfg: PerplexityConfig, num_bytes: Any) -> dict[str, list[Any]] | None:
    """The per-sequence statistics (one list per field) of logits ``(batch, seq_len, vocab)`` and int64 target
    ids ``(batch, seq_len)``, both CPU tensors, computed on the tensors themselves; ``None`` for any other input,
    or whenever something is wrong with it, for :func:`_logit_batch` to score it or to name the position in its
    error.

    A call on a small batch costs little more than the softmax itself: a dozen torch calls on the targets and the
    picked probabilities, one ``tolist`` of the log-probabilities, no numpy, and every check rides on work done
    anyway: ``gather`` checks the target ids (an id out of ``[0, vocab)`` that is not ``ignore_index`` raises),
    and the per-sequence sums show a NaN or an infinity in a counted row (``math.fsum`` propagates them). The
    statistics are the numbers :func:`_logit_batch` gives, bit for bit (the rows it leaves out are 0 here, and 0
    changes no exactly rounded sum)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    tensor = torch.Tensor
    if type(x) is not tensor or type(t) is not tensor or x.ndim != 3 or t.ndim != 2 or t.dtype is not torch.int64:
        return None
    b, seq_len, vocab = x.shape
    if t.shape[0] != b or t.shape[1] != seq_len or not b or not seq_len or not x.is_cpu or not t.is_cpu:
        return None
    dtype = x.dtype
    if dtype is not torch.float32 and dtype is not torch.float64:
        if dtype is not torch.float16 and dtype is not torch.bfloat16:
            return None
        if cfg.precision != "logits":
            dtype = torch.float32
    if cfg.precision == "float64":
        dtype = torch.float64
    if b * seq_len * vocab * dtype.itemsize > _TORCH_ONE_CALL_BYTES:  # large: chunk by chunk, in _logit_batch
        return None
    # the batch stays 3-D: softmax and gather over the last dimension are the kernels _torch_log_probs runs
    ids = t.unsqueeze(2)
    ignore = cfg.ignore_index
    if ignore is None:
        ignored = None
        counts = [seq_len] * b
    else:
        ignored = ids.eq(ignore)
        counts = [seq_len - k for k in ignored.sum((1, 2)).tolist()]
        if 2 * sum(counts) < b * seq_len:  # mostly padding: the counted rows are copied out first
            return None
        ids = ids.masked_fill(ignored, 0)  # an ignored row reads id 0, and its value is dropped below
    if x.requires_grad:
        x = x.detach()
    try:
        logp = _logs(torch.softmax(x if x.dtype is dtype else x.to(dtype), 2).gather(2, ids), torch)
    except RuntimeError:  # a target id out of range: named by the exact checks
        return None
    if ignored is not None:
        logp.masked_fill_(ignored, 0.0)
    tiny = _log_tiny(dtype)
    if logp.min().item() < tiny:  # a probability below the smallest normal number
        low = logp < tiny
        n_rows = b * seq_len
        low = low.view(n_rows) if ignored is None else (low & ~ignored).view(n_rows)
        _fix_small(x.reshape(n_rows, vocab), ids.reshape(n_rows), logp.view(n_rows), low)
    fsum = math.fsum
    # 0.0 - s is -s, and 0.0 (never -0.0) where s is 0
    sums = [0.0 - fsum(row) for row in logp.view(b, seq_len).tolist()]
    if not math.isfinite(sum(sums)):  # NaN or +inf in a counted row's logits, or a target's logit of -inf
        return None
    if num_bytes is None:
        byte_counts = known = [0] * b
    else:
        byte_counts, known = _check_num_bytes(num_bytes, b).tolist(), [1] * b
    return {"nll": sums, "tokens": counts, "bytes": byte_counts, "sequences": [1] * b, "sequences_with_bytes": known}


# ====================================================================== tensors on a GPU, kept there
#: Bytes of probabilities one ``softmax`` call computes on a GPU or another accelerator: the logits go through in a
#: few large calls (a GPU gains nothing from cache-sized chunks, and each call costs a launch), with memory bounded.
#: The chunk size of the CPU path (a few MB per thread) cost 125 calls on 8 x 2,048 x 32,000 logits, where
#: torchmetrics makes one: 6.1 ms against its 2.5 ms on an H200.
_DEVICE_CHUNK_BYTES = 256 << 20


def _torch_device_lists(
    x: Any, t: Any, cfg: PerplexityConfig, num_bytes: Any, *, force: bool = False
) -> dict[str, list[Any]] | None:
    """The per-sequence statistics of logits ``(batch, seq_len, vocab)`` and integer targets ``(batch, seq_len)``
    on a GPU (any device but the CPU; ``force`` takes CPU tensors too, for the tests), computed on the device: a
    few large ``softmax`` calls, each target's probability gathered, its log, and each sequence's sum in float64,
    then one copy of ``batch`` sums and three flags back to the host (the only synchronisation). Every check rides
    on that copy: a target out of range, a NaN or an infinity in a counted row, a probability below the smallest
    normal number (to be computed again with ``log_softmax``). When a flag is up, ``None``: :func:`_logit_batch`
    then names the position in its error, or computes those tokens exactly. The values are the CPU path's; a
    sequence's sum is float64's (within an ulp of :func:`math.fsum`'s exactly rounded one)."""
    torch = sys.modules.get("torch")
    if torch is None or not _is_tensor(x) or not _is_tensor(t) or x.ndim != 3 or t.ndim != 2:
        return None
    if (x.device.type == "cpu" and not force) or t.device != x.device or _dtype_kind(t) not in "iu":
        return None
    b, seq_len, vocab = (int(d) for d in x.shape)
    if (int(t.shape[0]), int(t.shape[1])) != (b, seq_len) or not b or not seq_len or not x.is_floating_point():
        return None
    dtype = _torch_dtype(x.dtype, cfg, torch)
    n = b * seq_len
    flat = x.detach().reshape(n, vocab)
    targets = t.reshape(n).long()
    counted = None if cfg.ignore_index is None else targets.ne(cfg.ignore_index)
    valid = (targets >= 0) & (targets < vocab)
    out_of_range = ~valid if counted is None else counted & ~valid
    ids = targets.where(valid if counted is None else valid & counted, 0)  # never an index out of range
    column = ids.view(n, 1)
    step = max(1, _DEVICE_CHUNK_BYTES // max(1, vocab * dtype.itemsize))
    picked = torch.empty((n, 1), dtype=dtype, device=x.device)
    buffer = torch.empty((min(step, n), vocab), dtype=dtype, device=x.device)
    for lo in range(0, n, step):
        chunk = flat[lo : lo + step]
        probs = buffer[: len(chunk)]
        if chunk.dtype is torch.float16 and dtype is torch.float32 and chunk.is_cuda:
            probs.copy_(torch.softmax(chunk, 1, dtype=torch.float32))  # read as float16, computed in float32
        else:
            torch.softmax(chunk if chunk.dtype is dtype else chunk.to(dtype), 1, out=probs)
        torch.gather(probs, 1, column[lo : lo + step], out=picked[lo : lo + step])
    logp = _logs(picked, torch).view(n)
    low = logp < _log_tiny(dtype)
    if counted is not None:
        low &= counted
        logp = logp.masked_fill(~counted, 0.0)
    sums = logp.view(b, seq_len).double().sum(1).neg_()
    flags = torch.stack([out_of_range.any(), low.any(), ~torch.isfinite(sums).all()]).double()
    host = torch.cat([sums, flags]).cpu().tolist()  # the one copy back, and the one wait
    if any(host[b:]):
        return None  # a bad target, a non-finite value or a tiny probability: the checked path takes over
    tokens = [seq_len] * b if counted is None else counted.view(b, seq_len).sum(1).cpu().tolist()
    if num_bytes is None:
        byte_counts = known = [0] * b
    else:
        byte_counts, known = _check_num_bytes(num_bytes, b).tolist(), [1] * b
    nll = [0.0 + v for v in host[:b]]  # 0.0 + -0.0 is 0.0
    return {"nll": nll, "tokens": tokens, "bytes": byte_counts, "sequences": [1] * b, "sequences_with_bytes": known}


def _tensor_lists(x: Any, t: Any, cfg: PerplexityConfig, num_bytes: Any) -> dict[str, list[Any]] | None:
    """The statistics of logit and target tensors by the lean paths: on the CPU for a small batch, on the
    logits' device for a GPU; ``None`` for anything else (the checked path)."""
    if _is_tensor(x) and getattr(x, "device", None) is not None and x.device.type != "cpu":
        return _torch_device_lists(x, t, cfg, num_bytes)
    return _torch_logit_lists(x, t, cfg, num_bytes)


# ====================================================================== the family
def _perplexity_kernel(
    predictions: Any, references: Any, cfg: PerplexityConfig, *, num_bytes: Any = None
) -> StatsBatch[PerplexityStats]:
    """Per-sequence statistics of a batch of logits and targets, or of per-token log-probabilities."""
    lists = _tensor_lists(predictions, references, cfg, num_bytes)  # logits and targets as tensors: checked in torch
    if lists is not None:
        return StatsBatch.from_lists(PerplexityStats, lists)
    if _no_targets(references):
        nll, lengths = _logprob_batch(predictions)
    else:
        nll, lengths = _logit_batch(predictions, references, cfg)
    n = len(lengths)
    if fastpath.rows("perplexity", n):  # a few sequences: one row each, summed in Python (no numpy column)
        sums = _per_sequence_sums(nll, lengths).tolist()
        byte_list = [0] * n if num_bytes is None else _check_num_bytes(num_bytes, n).tolist()
        known_one = 0 if num_bytes is None else 1
        rows = [
            PerplexityStats(nll=v, tokens=k, bytes=nb, sequences=1, sequences_with_bytes=known_one)
            for v, k, nb in zip(sums, lengths.tolist(), byte_list, strict=True)
        ]
        return StatsBatch.from_rows(PerplexityStats, rows)
    ones = np.ones(n, dtype=np.int64)
    if num_bytes is None:
        byte_counts, known = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    else:
        byte_counts, known = _check_num_bytes(num_bytes, n), ones
    return StatsBatch(
        PerplexityStats,
        {
            "nll": _per_sequence_sums(nll, lengths),
            "tokens": lengths,
            "bytes": byte_counts,
            "sequences": ones,
            "sequences_with_bytes": known,
        },
    )


def _n_sequences(predictions: Any) -> int:
    if _is_array(predictions):
        return int(predictions.shape[0]) if predictions.ndim else 0
    return len(predictions) if isinstance(predictions, Sequence) and not isinstance(predictions, str) else -1


def _first(predictions: Any) -> Any:
    """The first item of a list or tuple of predictions (``None`` for anything else, or an empty one)."""
    return predictions[0] if isinstance(predictions, (list, tuple)) and predictions else None


class _NumericFamily(Family[PerplexityConfig, PerplexityStats, PerplexityResult]):
    """A family whose input is numbers (logits, target ids, log-probabilities), not text: it checks its own."""

    def prepare(
        self, predictions: Any, references: Any, config: Any, allow_empty: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> tuple[Any, Any, dict[str, Any]] | None:
        extra = self.check_inputs(inputs)
        self.check_sources(sources, 0)
        if predictions is None:
            raise InvalidInputError("predictions are None; expected logits with target ids, or log-probabilities")
        first = predictions if isinstance(predictions, str) else _first(predictions)
        if isinstance(first, str):
            raise InvalidInputError(
                f"perplexity scores a model's logits or log-probabilities, not text (got the string {first[:40]!r}); "
                "compute them with the model, then call nlgmetrics.perplexity or `nlgmetrics perplexity` (text "
                "files given to evaluate cannot be scored)"
            )
        n = _n_sequences(predictions)
        if n == 0 and not allow_empty:
            raise InvalidInputError("predictions are empty: there is no sequence to score")
        return (predictions, references, extra) if n else None  # numbers, not text

    def shortcut(
        self, predictions: Any, references: Any, config: Any, segments: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> PerplexityResult | None:
        if segments or sources is not None or not inputs.keys() <= _NUM_BYTES or self.needs_segments(config):
            return None
        # a small batch of CPU tensors, or tensors on a GPU: the total straight from the lists, as
        # StatsBatch.total() sums them
        lists = _tensor_lists(predictions, references, config, inputs.get("num_bytes"))
        if lists is None:
            return None
        nll = lists["nll"]
        total = PerplexityStats(
            nll=nll[0] if len(nll) == 1 else math.fsum(nll),
            tokens=sum(lists["tokens"]),
            bytes=sum(lists["bytes"]),
            sequences=len(nll),
            sequences_with_bytes=sum(lists["sequences_with_bytes"]),
        )
        return self.finalize(total, config)


PERPLEXITY = _NumericFamily(
    name="perplexity",
    bounds=(1.0, None),
    higher_is_better=False,
    config_cls=PerplexityConfig,
    stats_cls=PerplexityStats,
    kernel=_perplexity_kernel,  # type: ignore[arg-type]  # numbers, not strings
    formula=perplexity_from_stats,
    presets={"torchmetrics": {}},
    default_preset="torchmetrics",
    vectorized=True,
    inputs=("num_bytes",),
    cache_configs=True,
    example={
        "predictions": [[-0.5, -1.25, -0.125, -2.0], [-0.75, -3.5]],
        "references": [None, None],
    },
)


# ====================================================================== the functional API
def perplexity(
    predictions: Any,
    references: Any = None,
    *,
    ignore_index: int | None = None,
    num_bytes: Any = None,
    precision: str = "auto",
    preset: str | None = None,
    segments: bool = False,
) -> PerplexityResult:
    """Perplexity (and cross-entropy, bits per token, bits per byte) of a language model.

    ``perplexity(logits, target_ids, ignore_index=-100)`` is ``torchmetrics.text.Perplexity(ignore_index=-100)``;
    ``perplexity(logprobs)`` takes per-token log-probabilities (one list per sequence) instead. ``num_bytes``
    (the UTF-8 length of each sequence's text) adds ``bits_per_byte``; ``segments=True`` the per-sequence
    perplexities.

    >>> r = perplexity([[-0.5, -1.25, -0.125, -2.0], [-0.75, -3.5]], num_bytes=[17, 6])
    >>> round(r.score, 6), round(r.nll, 6), round(r.bits_per_byte, 6), r.tokens
    (3.873532, 1.354167, 0.509648, 6)
    >>> import numpy as np
    >>> logits = np.log(np.array([[[0.5, 0.25, 0.25], [0.1, 0.8, 0.1], [1 / 3, 1 / 3, 1 / 3]]]))
    >>> round(perplexity(logits, np.array([[0, 1, -100]]), ignore_index=-100).score, 6)  # sqrt(1 / (0.5 * 0.8))
    1.581139
    """
    cfg = PERPLEXITY.make_config(preset, ignore_index=ignore_index, precision=precision)
    return PERPLEXITY.compute(predictions, references, cfg, segments=segments, num_bytes=num_bytes)
