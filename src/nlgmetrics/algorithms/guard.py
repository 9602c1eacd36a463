"""A guard on the cost of the quadratic kernels: refuse, before it starts, a pair that would run for minutes.

TER's and CharacTER's shift search, the edit distances (WER, CER, MER/WIL/WIP, NLS, ANLS, EED, edit distance), the
LCS of ROUGE-L/Lsum/W, ROUGE-S's unlimited skip bigrams, RIBES's word alignment and ANLS*'s list matching take time
in proportion to the product of two lengths (the *cells*). Before a kernel runs, :func:`check_pairs` estimates the
seconds of its most expensive pair from that product and a rate per cell (:data:`RATES`: the cost of a cell
measured on one core of a busy 2-core machine by ``bench/guard_rates.py``, times about 1.5, so that the estimate
is within 1 to 3 times the actual time) and, beyond the limit, raises :class:`InputTooLongError` with the
estimate, instead of running for minutes or hours. A search that the lengths do not bound (CharacTER's greedy
shifts on repetitive text) is also stopped while it runs (:class:`Deadline`), and regular expressions run under
the same limit (:mod:`nlgmetrics.text.regex_limit`).

The limit is :data:`DEFAULT_SECONDS` (30 s for one pair). To go ahead anyway:

* the environment: ``NLGMETRICS_PAIR_LIMIT=off`` (no limit) or a number of seconds, e.g. ``600``; it reaches
  the worker processes of ``evaluate --jobs`` too;
* Python: ``with pair_limit(None): ...`` (or ``pair_limit(600)``).
"""

from __future__ import annotations

import contextlib
import math
import operator
import os
import time
from collections.abc import Iterator, Sequence
from typing import Any

from .._np import is_array
from ..errors import InvalidInputError

__all__ = [
    "DEFAULT_SECONDS",
    "ENV",
    "RATES",
    "Deadline",
    "InputTooLongError",
    "check_items",
    "check_pair",
    "check_pairs",
    "limit_seconds",
    "pair_limit",
]

#: The default limit, in estimated seconds for one pair.
DEFAULT_SECONDS = 30.0
ENV = "NLGMETRICS_PAIR_LIMIT"
HOW = (
    f"To go ahead, set {ENV}=off (or a number of seconds) in the environment, or in Python wrap the call in "
    "`with nlgmetrics.algorithms.guard.pair_limit(None):`"
)
#: kernel -> (what a cell is, what is done, seconds per cell). Each rate is the cost of a cell measured on one core
#: of a busy 2-core machine (``bench/guard_rates.py`` measures them; see docs/limits.md), times about 1.5: the
#: estimate of a pair is within 1 to 3 times the time it takes.
RATES: dict[str, tuple[str, str, float]] = {
    "ter": ("word", "TER's shift search", 3e-6),
    "levenshtein": ("character", "edit distance", 3e-10),
    "token-levenshtein": ("token", "edit distance", 1.5e-9),
    "eed": ("character", "extended edit distance", 1e-8),
    "eed-python": ("character", "extended edit distance (pure Python, no compiled kernel)", 1.5e-6),
    "character": ("word", "CharacTER's shift search", 1.5e-5),
    # ROUGE's compiled kernel: the LCS (ROUGE-L), the union LCS of all sentence pairs (ROUGE-Lsum), the weighted
    # LCS (ROUGE-W, over the whole texts: an upper bound of its sentence pairs), the skip bigrams at any distance
    # (ROUGE-S*, the longer text with itself)
    "compiled-lcs": ("token", "longest common subsequence", 1.5e-10),
    "compiled-union-lcs": ("token", "union LCS over sentence pairs", 8e-10),
    "compiled-weighted-lcs": ("token", "weighted LCS", 8e-8),
    "compiled-skip-bigrams": ("token", "skip bigrams at any distance", 6e-7),
    # ROUGE-L of pltrdy's rouge (a pure-Python table) and of LLaMA-Factory's (rapidfuzz's LCS)
    "python-lcs": ("word", "longest common subsequence (pure Python)", 9e-7),
    "rapidfuzz-lcs": ("word", "longest common subsequence", 3e-9),
    # RIBES: the word alignment's vector steps, hypothesis x (reference + hypothesis) words
    "ribes": ("word", "RIBES's word alignment (hypothesis x (reference + hypothesis) words)", 5e-8),
    # ANLS*: every element of a list against every element of the other (leaves x leaves), then the assignment
    "anls-star": ("item", "list matching", 1e-5),
}


class InputTooLongError(InvalidInputError):
    """A pair whose quadratic kernel would run beyond the limit (see :mod:`nlgmetrics.algorithms.guard`).
    ``seconds`` is the estimate of the pair that was refused (``None`` for a pair stopped while it ran)."""

    seconds: float | None = None


_OVERRIDE: list[float | None] = []


def _environment_lookup() -> Any:
    """A function returning the raw value of :data:`ENV` (or ``None``), read on every call of a quadratic kernel.
    ``os.environ.get`` costs a microsecond or two when the variable is unset (it raises and catches a KeyError
    inside), more than scoring a short pair; CPython's ``os.environ`` keeps its values in a dict under encoded
    keys, read here directly where it has one."""
    data, encode, decode = (getattr(os.environ, a, None) for a in ("_data", "encodekey", "decodevalue"))
    if not isinstance(data, dict) or encode is None or decode is None:
        return lambda: os.environ.get(ENV)
    key = encode(ENV)

    def lookup() -> str | None:
        raw = data.get(key)
        return None if raw is None else decode(raw)  # type: ignore[no-any-return]

    return lookup


_environment = _environment_lookup()


def limit_seconds() -> float | None:
    """The limit now in force, in seconds (``None``: no limit)."""
    if _OVERRIDE:
        return _OVERRIDE[-1]
    raw = _environment()
    if raw is None:  # the common case: answered without parsing
        return DEFAULT_SECONDS
    raw = raw.strip()
    if not raw:
        return DEFAULT_SECONDS
    if raw.lower() in ("off", "none", "no", "0", "inf"):
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InvalidInputError(f"{ENV}={raw!r}: expected 'off' or a number of seconds > 0")
    return value


@contextlib.contextmanager
def pair_limit(seconds: float | None) -> Iterator[None]:
    """Within the block, the limit is ``seconds`` (``None``: none). The environment variable is set too, so
    worker processes started inside the block inherit it."""
    if seconds is not None and (not isinstance(seconds, (int, float)) or not seconds > 0 or math.isinf(seconds)):
        raise InvalidInputError(f"pair_limit takes a number of seconds > 0 or None, got {seconds!r}")
    previous = os.environ.get(ENV)
    _OVERRIDE.append(seconds)
    os.environ[ENV] = "off" if seconds is None else repr(float(seconds))
    try:
        yield
    finally:
        _OVERRIDE.pop()
        if previous is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = previous


def check_pairs(
    metric: str,
    kernel: str,
    pred_lengths: Any,
    ref_lengths: Any,
    segment_of_pair: Any = None,
    *,
    rate: Any = None,
    references: Any = None,
) -> None:
    """Raise :class:`InputTooLongError` if one pair (``pred_lengths[k]``, ``ref_lengths[k]``) would take longer
    than the limit with ``kernel`` (a key of :data:`RATES`). ``segment_of_pair`` maps pairs to segments (for
    the message); ``rate`` overrides the rate per cell (a column, for rates that depend on the pair);
    ``references``: the reference lengths the message names, where ``ref_lengths`` counts something else."""
    limit = limit_seconds()
    if limit is None:
        return
    unit, what, per_cell = RATES[kernel]
    # lengths as Python numbers: the worst pair has the most cells, found without numpy; numpy only to raise
    if (
        rate is None
        and not is_array(pred_lengths)
        and not is_array(ref_lengths)
        and (not len(pred_lengths) or max(map(operator.mul, pred_lengths, ref_lengths)) * per_cell <= limit)
    ):
        return
    import numpy as np

    a = np.asarray(pred_lengths, dtype=np.float64)
    b = np.asarray(ref_lengths, dtype=np.float64)
    if not a.size:
        return
    cells = a * b
    seconds = cells * (per_cell if rate is None else np.asarray(rate, dtype=np.float64))
    worst = int(np.argmax(seconds))
    if seconds[worst] <= limit:
        return
    segment = worst if segment_of_pair is None else int(np.asarray(segment_of_pair)[worst])
    shown = int(b[worst] if references is None else np.asarray(references)[worst])
    error = InputTooLongError(
        f"predictions[{segment}] is too long for {metric}: {int(a[worst]):,} {unit}s against a reference of "
        f"{shown:,} make {int(cells[worst]):,} cells of {what}, an estimated {_duration(seconds[worst])} "
        f"for this pair alone, beyond the limit of {_duration(limit)}. {HOW}"
    )
    error.seconds = float(seconds[worst])
    raise error


def check_items(
    metric: str, kernel: str, predictions: Sequence[Any], references: Sequence[Any], starts: Any = None
) -> None:
    """:func:`check_pairs` on the lengths of the items (strings or token lists) of each pair, ``predictions[k]``
    against ``references[k]``; ``starts`` (as from :func:`nlgmetrics.algorithms.edit.expand_pairs`, ``None`` for one
    pair per segment) maps pairs to segments for the message. Costs a ``len`` per item and no numpy unless it
    raises, so a small call pays next to nothing for the guard."""
    limit = limit_seconds()
    if limit is None or not len(predictions):
        return
    per_cell = RATES[kernel][2]
    if len(predictions) == 1 and len(predictions[0]) * len(references[0]) * per_cell <= limit:
        return
    pred_lengths = list(map(len, predictions))
    ref_lengths = list(map(len, references))
    if max(map(operator.mul, pred_lengths, ref_lengths)) * per_cell <= limit:
        return
    segment_of_pair = None
    if starts is not None:
        import numpy as np

        segment_of_pair = np.searchsorted(starts, np.arange(len(pred_lengths)), side="right") - 1
    check_pairs(metric, kernel, pred_lengths, ref_lengths, segment_of_pair)


def check_pair(metric: str, kernel: str, prediction: Sequence[Any], reference: Sequence[Any]) -> None:
    """:func:`check_items` on one pair (segment 0): the check of a one-pair call, one product and no list."""
    limit = limit_seconds()
    if limit is not None and len(prediction) * len(reference) * RATES[kernel][2] > limit:
        check_pairs(metric, kernel, [len(prediction)], [len(reference)])


class Deadline:
    """For a search whose cost the lengths do not bound (CharacTER's greedy shifts: on repetitive text every
    round checks more candidates, and the rounds go on while one helps): it stops a pair that has run beyond the
    limit, after the estimate from the lengths has let it start. ``check()`` costs a clock read."""

    __slots__ = ("end", "limit")

    def __init__(self) -> None:
        self.limit = limit_seconds()
        self.end = math.inf if self.limit is None else time.monotonic() + self.limit

    def check(self, metric: str, segment: int, what: str) -> None:
        if time.monotonic() > self.end:
            raise InputTooLongError(
                f"predictions[{segment}] is too long for {metric}: {what} ran beyond the limit of "
                f"{_duration(self.limit or 0.0)} for this pair and was stopped. {HOW}"
            )


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
