"""A guard on the cost of the quadratic kernels: refuse, before it starts, a pair that would run for minutes.

TER's and CharacTER's shift search, the edit distances (WER, CER, MER/WIL/WIP, NLS, ANLS, EED, edit distance), the
LCS of ROUGE-L/Lsum/W and ROUGE-S's unlimited skip bigrams take time in proportion to the product of the two lengths
(the *cells* of the alignment table). Before a kernel runs, :func:`check_pairs` estimates the seconds of its most
expensive pair from that product and a pessimistic rate per cell (:data:`RATES`, measured on one core of a busy
2-core machine) and, beyond the limit, raises :class:`InputTooLongError` with the estimate, instead of running for
minutes or hours.

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
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .._np import is_array
from ..errors import InvalidInputError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DEFAULT_SECONDS",
    "ENV",
    "RATES",
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
#: kernel -> (what a cell is, what is done, pessimistic seconds per cell).
RATES: dict[str, tuple[str, str, float]] = {
    "ter": ("word", "TER's shift search", 1e-5),  # 1,700 × 1,700 words: 30 s
    "levenshtein": ("character", "edit distance", 1e-9),  # 173,000 × 173,000 characters: 30 s
    "token-levenshtein": ("token", "edit distance", 2e-9),
    "lcs": ("token", "longest common subsequence", 2e-9),
    "union-lcs": ("token", "union LCS over sentence pairs", 3e-8),
    # ROUGE-W: per sentence pair, the rate grows with the shorter sentence (see weighted_rate)
    "weighted-lcs": ("token", "weighted LCS of one sentence pair", 2.5e-6),
    "skip-bigrams": ("token", "skip bigrams at any distance", 1e-6),
    # ROUGE's compiled kernel: ROUGE-W over the whole texts (an upper bound of its sentence pairs), and the skip
    # bigrams of the longer text with itself (1.25e-7 s per cell measured on 8,000 words)
    "compiled-weighted-lcs": ("token", "weighted LCS", 2e-8),
    "compiled-skip-bigrams": ("token", "skip bigrams at any distance", 1.5e-7),
    "eed": ("character", "extended edit distance", 1e-7),  # 17,000 × 17,000 characters: 30 s
    "eed-python": ("character", "extended edit distance (pure Python, no compiled kernel)", 2e-6),
    "character": ("word", "CharacTER's shift search", 3e-5),  # 1,000 × 1,000 words: 30 s
}


class InputTooLongError(InvalidInputError):
    """A pair whose quadratic kernel would run beyond the limit (see :mod:`nlgmetrics.algorithms.guard`)."""


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
) -> None:
    """Raise :class:`InputTooLongError` if one pair (``pred_lengths[k]``, ``ref_lengths[k]``) would take longer
    than the limit with ``kernel`` (a key of :data:`RATES`). ``segment_of_pair`` maps pairs to segments (for
    the message); ``rate`` overrides the rate per cell (a column, for rates that depend on the pair)."""
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
    raise InputTooLongError(
        f"predictions[{segment}] is too long for {metric}: {int(a[worst]):,} {unit}s against a reference of "
        f"{int(b[worst]):,} make {int(cells[worst]):,} cells of {what}, an estimated {_duration(seconds[worst])} "
        f"for this pair alone, beyond the limit of {_duration(limit)}. To go ahead, set {ENV}=off (or a number of "
        "seconds) in the environment, or in Python wrap the call in "
        "`with nlgmetrics.algorithms.guard.pair_limit(None):`"
    )


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


def weighted_rate(shorter: Any) -> np.ndarray:
    """ROUGE-W's seconds per cell of a sentence pair whose shorter sentence has ``shorter`` tokens."""
    import numpy as np

    return RATES["weighted-lcs"][2] + 2.4e-8 * np.asarray(shorter, dtype=np.float64)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
