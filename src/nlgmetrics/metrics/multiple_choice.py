"""Multiple-choice accuracy from per-choice log-likelihoods: ``acc``, ``acc_norm``, ``acc_bytes`` and
``acc_mutual_info``, lm-evaluation-harness's numbers.

This is how C-Eval, CMMLU, JGLUE, MMLU and the Open LLM Leaderboard report multiple choice: the model scores each
choice's continuation, and the prediction is the choice of the highest log-likelihood. The preset ``lm-eval``
reproduces ``ConfigurableTask.process_results`` of lm-eval 0.4 for ``output_type: multiple_choice``
(``lm_eval/api/task.py``):

* ``acc``: ``argmax(lls)`` (numpy's: on a tie the first choice wins) is the gold, or one of the golds;
* ``acc_norm``: ``argmax(lls / len(choice))``, the length in characters of each choice's text (``len(str)``:
  code points, so a CJK choice of 2 characters is 2, as in lm-eval);
* ``acc_bytes``: ``argmax(lls / len(choice.encode("utf-8")))``;
* ``acc_mutual_info``: ``argmax(lls - unconditional)``, the unconditional log-likelihoods being each choice's
  continuation scored without the question.

``acc_norm`` and ``acc_bytes`` need the ``choices`` (their texts, without the ``target_delimiter`` lm-eval puts
before each continuation); ``acc_mutual_info`` the ``unconditional`` log-likelihoods. Gold is an index, or a list
of indices (lm-eval's ``multiple_target``: correct when the prediction is any of them; with a list lm-eval's own
``acc_mutual_info`` compares the index to the list and is always 0, here it is ``in`` as for ``acc``).

Where lm-eval warns and scores 0 (a gold index out of range) or divides by zero (an empty choice), this is an error
naming the document: so are NaN or +inf log-likelihoods, and log-likelihoods, choices and unconditional
log-likelihoods of different lengths. ``-inf`` is a log-likelihood (an impossible continuation).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._np import is_numpy_number
from ..errors import InvalidInputError
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from .base import Family, Result

__all__ = ["MULTIPLE_CHOICE", "MultipleChoiceConfig", "MultipleChoiceResult", "MultipleChoiceStats", "multiple_choice"]


@dataclasses.dataclass(frozen=True)
class MultipleChoiceConfig:
    """No option changes the numbers: the preset names the convention (lm-eval's ``process_results``)."""

    preset: str | None = sig_field("preset", None)


@dataclasses.dataclass(frozen=True)
class MultipleChoiceStats(Stats):
    """Correct documents under each rule, the documents that had choices (``acc_norm``, ``acc_bytes``) and
    unconditional log-likelihoods (``acc_mutual_info``), and all documents."""

    acc: int
    acc_norm: int
    acc_bytes: int
    acc_mutual_info: int
    with_choices: int
    with_unconditional: int
    count: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class MultipleChoiceResult(Result):
    """``score``: ``acc``; ``acc_norm``, ``acc_bytes`` (``None`` without choices) and ``acc_mutual_info``
    (``None`` without unconditional log-likelihoods), each over the documents that had them; ``count``."""

    acc: Any = 0.0
    acc_norm: Any = None
    acc_bytes: Any = None
    acc_mutual_info: Any = None
    count: Any = 0


def _share(hits: Any, n: Any) -> Any:
    if isinstance(n, np.ndarray):
        return np.divide(hits, n, out=np.full(n.shape, np.nan), where=n != 0)
    return hits / n if n else None


def multiple_choice_from_stats(stats: MultipleChoiceStats, cfg: MultipleChoiceConfig) -> MultipleChoiceResult:
    acc = _share(stats.acc, stats.count)
    return MultipleChoiceResult(
        score=acc if acc is not None else 0.0,
        acc=acc if acc is not None else 0.0,
        acc_norm=_share(stats.acc_norm, stats.with_choices),
        acc_bytes=_share(stats.acc_bytes, stats.with_choices),
        acc_mutual_info=_share(stats.acc_mutual_info, stats.with_unconditional),
        count=stats.count,
    )


# ---------------------------------------------------------------------------------------------------- inputs
def _rows(values: Any, name: str) -> list[Any]:
    if isinstance(values, np.ndarray):
        if values.ndim != 2:
            raise InvalidInputError(f"{name} is a {values.ndim}-d array; expected one row per document")
        return list(values)
    if values is None or isinstance(values, (str, bytes, dict, set, frozenset)) or not isinstance(values, Sequence):
        raise InvalidInputError(f"{name} is {type(values).__name__}; expected one list per document")
    return list(values)


def _floats(row: Any, name: str, i: int) -> np.ndarray:
    if isinstance(row, np.ndarray):
        arr = row.astype(np.float64, copy=False) if row.dtype.kind in "fiu" else None
    else:
        if isinstance(row, (str, bytes)) or not isinstance(row, Sequence):
            raise InvalidInputError(f"{name}[{i}] is {row!r:.40}; expected a list of log-likelihoods (one per choice)")
        for j, v in enumerate(row):
            if isinstance(v, bool) or not (isinstance(v, (int, float)) or is_numpy_number(v)):
                raise InvalidInputError(f"{name}[{i}][{j}] is {v!r:.40}; expected a log-likelihood (a number)")
        arr = np.asarray(row, dtype=np.float64)
    if arr is None or arr.ndim != 1:
        raise InvalidInputError(f"{name}[{i}] is not a list of numbers")
    return arr


def _check_finite(flat: np.ndarray, offsets: np.ndarray, name: str) -> None:
    bad = np.flatnonzero(np.isnan(flat) | (flat == np.inf))
    if len(bad):
        pos = int(bad[0])
        i = int(np.searchsorted(offsets, pos, side="right") - 1)
        value = "NaN" if math.isnan(float(flat[pos])) else "+inf"
        raise InvalidInputError(
            f"{name}[{i}][{pos - int(offsets[i])}] is {value}; a log-likelihood is a finite number at most 0, or -inf"
        )


def _golds(references: Any, sizes: np.ndarray) -> tuple[np.ndarray, list[list[int]] | None]:
    """The gold of each document: one index each (an int64 array), or with some lists, ``-1`` there and the
    lists aside."""
    rows = references.tolist() if isinstance(references, np.ndarray) else _rows(references, "gold")
    if len(rows) != len(sizes):
        raise InvalidInputError(
            f"loglikelihoods and gold differ in length: {len(sizes)} documents but {len(rows)} gold answers"
        )
    if set(map(type, rows)) == {int}:  # one index each: checked in one pass, the first bad one named below
        single = np.asarray(rows, dtype=np.int64)
        bad = np.flatnonzero((single < 0) | (single >= sizes))
        if len(bad) == 0:
            return single, None
        i = int(bad[0])
        _index(rows[i], int(sizes[i]), f"gold[{i}]")
    single = np.empty(len(rows), dtype=np.int64)
    lists: list[list[int]] | None = None
    for i, g in enumerate(rows):
        if isinstance(g, np.ndarray):
            g = g.tolist()
        if isinstance(g, (list, tuple)):
            if not g:
                raise InvalidInputError(f"gold[{i}] is an empty list; expected a choice index or a list of them")
            for j, x in enumerate(g):
                _index(x, int(sizes[i]), f"gold[{i}][{j}]")
            if lists is None:
                lists = [[] for _ in rows]
            lists[i] = [int(x) for x in g]
            single[i] = -1
        else:
            single[i] = _index(g, int(sizes[i]), f"gold[{i}]")
    return single, lists


def _index(value: Any, size: int, where: str) -> int:
    if isinstance(value, bool) or not (isinstance(value, int) or is_numpy_number(value, "iu")):
        raise InvalidInputError(f"{where} is {value!r:.40}; expected a choice index (an integer)")
    if not 0 <= value < size:
        raise InvalidInputError(
            f"{where} is {value} but the document has {size} choices (indices 0 to {size - 1}): lm-eval would warn "
            "and score it 0"
        )
    return int(value)


def _first_argmax(values: np.ndarray, offsets: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Per document, the index of its first largest value (``np.argmax`` of each row: ties to the first)."""
    if len(offsets) and (sizes == sizes[0]).all():  # rectangular: one numpy argmax over the rows
        return np.argmax(values.reshape(len(offsets), int(sizes[0])), axis=1).astype(np.int64)
    best = np.maximum.reduceat(values, offsets)
    hits = np.flatnonzero(values == np.repeat(best, sizes))
    first = hits[np.searchsorted(hits, offsets)]
    return (first - offsets).astype(np.int64)


def _correct(pred: np.ndarray, single: np.ndarray, lists: list[list[int]] | None) -> np.ndarray:
    hit = pred == single
    if lists is not None:
        for i in np.flatnonzero(single < 0).tolist():
            hit[i] = int(pred[i]) in lists[i]
    return hit.astype(np.int64)


def _choice_lengths(texts: list[Any], sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Each choice's length in characters and in UTF-8 bytes, when the choices are lists of non-empty strings as
    long as the log-likelihoods' rows (checked in one pass); ``None`` otherwise (the checked path then names the
    problem)."""
    if set(map(type, texts)) != {list} or not np.array_equal(
        np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)), sizes
    ):
        return None
    flat = list(itertools.chain.from_iterable(texts))
    if set(map(type, flat)) != {str}:
        return None
    lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
    if not lengths.all():
        return None
    joined = "\x00".join(flat)
    if joined.isascii():
        nbytes = lengths
    elif joined.count("\x00") == len(flat) - 1:  # UTF-8 bytes between the separators, one encoding of all
        data = np.frombuffer(joined.encode("utf-8", "surrogatepass"), dtype=np.uint8)
        ends = np.append(np.flatnonzero(data == 0), len(data))
        nbytes = np.diff(ends, prepend=-1) - 1
    else:
        nbytes = np.fromiter((len(t.encode("utf-8", "surrogatepass")) for t in flat), np.int64, len(flat))
    return lengths.astype(np.float64), nbytes.astype(np.float64)


def _checked_choice_lengths(
    texts: list[Any], sizes: np.ndarray, offsets: np.ndarray, total: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_choice_lengths` one choice at a time, naming the first that is not a non-empty string."""
    chars = np.empty(total, dtype=np.float64)
    nbytes = np.empty(total, dtype=np.float64)
    for i, row in enumerate(texts):
        if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
            raise InvalidInputError(f"choices[{i}] is {row!r:.40}; expected the texts of the document's choices")
        if len(row) != sizes[i]:
            raise InvalidInputError(
                f"choices[{i}] has {len(row)} choices but loglikelihoods[{i}] has {sizes[i]} log-likelihoods "
                "(ragged choices: one log-likelihood per choice)"
            )
        start = int(offsets[i])
        for j, text in enumerate(row):
            if not isinstance(text, str):
                raise InvalidInputError(f"choices[{i}][{j}] is {text!r:.40}; expected the choice's text")
            if not text:
                raise InvalidInputError(
                    f"choices[{i}][{j}] is empty: acc_norm divides the log-likelihood by the choice's length"
                )
            chars[start + j] = len(text)
            nbytes[start + j] = len(text.encode("utf-8", "surrogatepass"))
    return chars, nbytes


_NUMBER_TYPES = frozenset((float, int))


def _rectangular(values: Any) -> np.ndarray | None:
    """The log-likelihoods as one 2-d float64 array when they are a list of equally long lists of plain numbers
    (their types checked in one pass: no string or bool is converted), else ``None`` (the general path then checks
    each row and names the bad one)."""
    if isinstance(values, np.ndarray):
        return values.astype(np.float64, copy=False) if values.ndim == 2 and values.dtype.kind in "fiu" else None
    if type(values) is not list or not values or type(values[0]) is not list:
        return None
    width = len(values[0])
    if not width or set(map(type, values)) != {list} or set(map(len, values)) != {width}:
        return None
    if not set(map(type, itertools.chain.from_iterable(values))) <= _NUMBER_TYPES:
        return None
    flat = np.fromiter(itertools.chain.from_iterable(values), dtype=np.float64, count=len(values) * width)
    return flat.reshape(len(values), width)


def _mc_kernel(
    loglikelihoods: Any,
    gold: Any,
    cfg: MultipleChoiceConfig,
    *,
    choices: Any = None,
    unconditional: Any = None,
) -> StatsBatch[MultipleChoiceStats]:
    grid = _rectangular(loglikelihoods)
    if grid is not None:  # the common case: as many choices in every document, one numpy array
        n = grid.shape[0]
        sizes = np.full(n, grid.shape[1], dtype=np.int64)
        flat = grid.reshape(-1)
    else:
        rows = _rows(loglikelihoods, "loglikelihoods")
        n = len(rows)
        arrays = [_floats(r, "loglikelihoods", i) for i, r in enumerate(rows)]
        sizes = np.fromiter((len(a) for a in arrays), dtype=np.int64, count=n)
        flat = np.concatenate(arrays) if arrays else np.zeros(0)
    for i in np.flatnonzero(sizes == 0).tolist()[:1]:
        raise InvalidInputError(f"loglikelihoods[{i}] is empty; a document needs at least one choice")
    offsets = np.zeros(n, dtype=np.int64)
    np.cumsum(sizes[:-1], out=offsets[1:])
    _check_finite(flat, offsets, "loglikelihoods")
    single, lists = _golds(gold, sizes)
    acc = _correct(_first_argmax(flat, offsets, sizes), single, lists)
    zeros = np.zeros(n, dtype=np.int64)
    columns: dict[str, Any] = {
        "acc": acc,
        "acc_norm": zeros,
        "acc_bytes": zeros,
        "acc_mutual_info": zeros,
        "with_choices": zeros,
        "with_unconditional": zeros,
        "count": np.ones(n, dtype=np.int64),
    }
    if choices is not None:
        texts = _rows(choices, "choices")
        if len(texts) != n:
            raise InvalidInputError(f"choices has {len(texts)} documents but loglikelihoods has {n}")
        lengths = _choice_lengths(texts, sizes)
        chars, nbytes = lengths if lengths is not None else _checked_choice_lengths(texts, sizes, offsets, len(flat))
        columns["acc_norm"] = _correct(_first_argmax(flat / chars, offsets, sizes), single, lists)
        columns["acc_bytes"] = _correct(_first_argmax(flat / nbytes, offsets, sizes), single, lists)
        columns["with_choices"] = np.ones(n, dtype=np.int64)
    if unconditional is not None:
        urows = _rows(unconditional, "unconditional")
        if len(urows) != n:
            raise InvalidInputError(f"unconditional has {len(urows)} documents but loglikelihoods has {n}")
        uarrays = [_floats(r, "unconditional", i) for i, r in enumerate(urows)]
        for i, u in enumerate(uarrays):
            if len(u) != sizes[i]:
                raise InvalidInputError(
                    f"unconditional[{i}] has {len(u)} log-likelihoods but loglikelihoods[{i}] has {sizes[i]}"
                )
        uflat = np.concatenate(uarrays)
        _check_finite(uflat, offsets, "unconditional")
        with np.errstate(invalid="ignore"):
            mutual = flat - uflat  # -inf - -inf is NaN: numpy's argmax takes the first NaN, as lm-eval's would
        columns["acc_mutual_info"] = _correct(_first_nan_or_max(mutual, offsets, sizes), single, lists)
        columns["with_unconditional"] = np.ones(n, dtype=np.int64)
    return StatsBatch(MultipleChoiceStats, columns)


def _first_nan_or_max(values: np.ndarray, offsets: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``np.argmax`` per row when a row may hold NaN (numpy returns the first NaN's index)."""
    nan = np.isnan(values)
    if not nan.any():
        return _first_argmax(values, offsets, sizes)
    out = _first_argmax(np.where(nan, -np.inf, values), offsets, sizes)
    for i in np.unique(np.searchsorted(offsets, np.flatnonzero(nan), side="right") - 1).tolist():
        row = values[int(offsets[i]) : int(offsets[i]) + int(sizes[i])]
        out[i] = int(np.argmax(row))
    return out


class _ChoiceFamily(Family[MultipleChoiceConfig, MultipleChoiceStats, MultipleChoiceResult]):
    """Log-likelihoods and gold indices, not text: the family checks its own inputs."""

    def prepare(
        self,
        predictions: Any,
        references: Any,
        config: MultipleChoiceConfig,
        allow_empty: bool,
        sources: Any,
        inputs: Mapping[str, Any],
    ) -> tuple[Any, Any, dict[str, Any]] | None:
        extra = self.check_inputs(inputs)
        self.check_sources(sources, 0)
        if isinstance(predictions, str) or (
            isinstance(predictions, (list, tuple)) and predictions and isinstance(predictions[0], str)
        ):
            raise InvalidInputError(
                "multiple_choice scores each choice's log-likelihood, not text: pass one list of log-likelihoods "
                "per document (an lm-eval samples log of a multiple-choice task gives them: read_lm_eval)"
            )
        if len(_rows(predictions, "loglikelihoods")) == 0:
            if not allow_empty:
                raise InvalidInputError("loglikelihoods is empty: there are no documents to score")
            return None
        return predictions, references, extra


MULTIPLE_CHOICE = _ChoiceFamily(
    name="multiple_choice",
    bounds=(0.0, 1.0),
    config_cls=MultipleChoiceConfig,
    stats_cls=MultipleChoiceStats,
    kernel=_mc_kernel,  # type: ignore[arg-type]  # log-likelihoods, not text
    formula=multiple_choice_from_stats,
    presets={"lm-eval": {}},
    default_preset="lm-eval",
    vectorized=True,
    inputs=("choices", "unconditional"),
    cache_configs=True,
    example={"predictions": [[-1.5, -0.5, -3.0], [-2.0, -2.0]], "references": [1, [0, 1]]},
)


def multiple_choice(
    loglikelihoods: Any,
    gold: Any,
    *,
    choices: Any = None,
    unconditional: Any = None,
    preset: str | None = None,
    segments: bool = False,
) -> MultipleChoiceResult:
    """``acc`` (the ``score``), ``acc_norm``, ``acc_bytes`` and ``acc_mutual_info`` of multiple-choice documents,
    lm-eval's ``process_results`` (see :mod:`nlgmetrics.metrics.multiple_choice`): one list of per-choice
    log-likelihoods per document, the gold index (or a list of indices), the choices' texts for ``acc_norm`` and
    ``acc_bytes``, the unconditional log-likelihoods for ``acc_mutual_info``.

    >>> r = multiple_choice([[-6.0, -4.0], [-2.0, -2.0]], [0, 0], choices=[["a long answer", "yes"], ["x", "y"]])
    >>> r.acc, r.acc_norm
    (0.5, 1.0)
    >>> multiple_choice([[-1.0, -2.0]], [0], unconditional=[[-0.5, -4.0]]).acc_mutual_info
    0.0
    """
    cfg = MULTIPLE_CHOICE.make_config(preset)
    if getattr(loglikelihoods, "logged", None):  # an lm-eval log: say where this disagrees with what it logged
        from ..errors import warn
        from ..eval_logs import logged_disagreement

        batch = MULTIPLE_CHOICE.batch_stats(loglikelihoods, gold, cfg, choices=choices, unconditional=unconditional)
        message = logged_disagreement(MULTIPLE_CHOICE.name, batch.columns, loglikelihoods)
        if message is not None:
            warn(f"{message}. The choices' texts give acc_norm: check read_lm_eval's target_delimiter")
        return MULTIPLE_CHOICE.finalize(batch.total(), cfg, batch if segments else None)
    return MULTIPLE_CHOICE.compute(
        loglikelihoods, gold, cfg, segments=segments, choices=choices, unconditional=unconditional
    )
