"""The one place that normalises and checks predictions and references.

Every public entry point (functions, stateful metrics, the torch adapter, the CLI) calls into this module, so
the same input gets the same error everywhere. Errors name the index of the offending segment (and, for
references, the index inside the segment's list).
"""

from __future__ import annotations

import re
from collections.abc import Callable, ItemsView, Iterable, KeysView, Mapping, Sequence, ValuesView
from typing import TYPE_CHECKING, Any, TypeAlias

from ._np import is_array
from .errors import InvalidInputError

if TYPE_CHECKING:
    import numpy as np

References: TypeAlias = tuple[str, ...]
"""The references of one segment, after normalisation: a non-empty tuple of strings."""

__all__ = [
    "ReferenceSets",
    "References",
    "check_paired",
    "check_pairs",
    "check_predictions",
    "check_references",
    "describe",
    "one_segment",
    "relocate",
]


def describe(value: object) -> str:
    """A short human description of a value's type, for error messages."""
    if value is None:
        return "None"
    if isinstance(value, float) and value != value:
        return "NaN (a missing value, e.g. an empty cell of a table)"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} item(s)"
    if isinstance(value, bytes):
        return "bytes (decode them to str first)"
    return f"a value of type {type(value).__name__} ({value!r:.40})"


def _as_list(values: Any, name: str) -> list[Any]:
    if type(values) is list:  # the common case first: the checks below cost more than a small call's scoring
        return values
    if values is None:
        raise InvalidInputError(f"{name} is None; expected a sequence of strings")
    if isinstance(values, str):
        # A single string is one segment, as in torchmetrics; never iterate its characters.
        return [values]
    if isinstance(values, (bytes, bytearray)):
        raise InvalidInputError(f"{name} is bytes; decode it to str (UTF-8) first")
    if isinstance(values, dict):
        raise InvalidInputError(f"{name} is a dict; expected a sequence of strings")
    if isinstance(values, (set, frozenset, KeysView, ValuesView, ItemsView)):
        # their order depends on hashing (PYTHONHASHSEED): predictions would be paired with references at random
        raise InvalidInputError(
            f"{name} is {type(values).__name__}, an unordered container: its order is arbitrary, so segments would "
            "be paired at random; pass a list (e.g. sorted(...)) instead"
        )
    if hasattr(values, "tolist") and not isinstance(values, (list, tuple)):
        values = values.tolist()  # numpy arrays, pandas Series
    if not isinstance(values, (list, tuple)):
        if isinstance(values, Iterable):
            values = list(values)
        else:
            raise InvalidInputError(f"{name} is {describe(values)}; expected a sequence of strings")
    return values if isinstance(values, list) else list(values)


def check_predictions(predictions: Any, *, name: str = "predictions", allow_empty: bool = False) -> list[str]:
    """Return the predictions as a list of ``str``, or raise :class:`InvalidInputError` naming the index."""
    values = _as_list(predictions, name)
    # Fast path: one C-level pass over the list; only on failure do we look for the culprit.
    if not set(map(type, values)) <= {str}:
        for i, v in enumerate(values):
            if not isinstance(v, str):
                hint = ""
                if isinstance(v, (list, tuple)):
                    hint = " (a nested list where a string belongs: each prediction is one string)"
                    if v and all(_looks_like_token(t) for t in v):
                        hint = (
                            " (a nested list where a string belongs, which looks like one tokenised sentence: "
                            f"{_TOKENS_HINT}; each prediction is one string, ' '.join(tokens))"
                        )
                raise InvalidInputError(f"{name}[{i}] is {describe(v)}; expected str{hint}")
        values = [str(v) for v in values]  # str subclasses: plain str from here on
    if not values and not allow_empty:
        raise InvalidInputError(f"{name} is empty: there is nothing to score (an empty corpus)")
    return values


class ReferenceSets(Sequence[References]):
    """Per-segment references, stored flat: ``flat`` holds every reference string and ``offsets`` the offset of
    each segment's first reference as a Python list (``None`` when every segment has exactly one, the common fast
    path; ``multi`` tells which). ``starts`` is the same offsets as an int64 numpy array, made on first use: the
    paths that need no numpy (a fresh process scoring a corpus) read ``offsets`` and never import it.

    Indexing gives a segment's references as a tuple, so it reads like ``list[tuple[str, ...]]``.
    """

    __slots__ = ("_starts", "flat", "offsets")

    def __init__(self, flat: list[str], starts: np.ndarray | list[int] | None = None) -> None:
        self.flat = flat
        self._starts: np.ndarray | None = None
        if starts is None:
            self.offsets: list[int] | None = None
        elif isinstance(starts, list):
            self.offsets = starts
        else:
            self._starts = starts
            self.offsets = [int(x) for x in starts.tolist()]

    @property
    def multi(self) -> bool:
        """Whether the segments' references are laid out by offsets (some segment may have several)."""
        return self.offsets is not None

    @property
    def starts(self) -> np.ndarray | None:
        """``offsets`` as an int64 numpy array (``None`` with one reference per segment), made once."""
        if self.offsets is None:
            return None
        if self._starts is None:
            import numpy as np

            self._starts = np.asarray(self.offsets, dtype=np.int64)
        return self._starts

    def __len__(self) -> int:
        return len(self.flat) if self.offsets is None else len(self.offsets)

    def _bounds(self, i: int) -> tuple[int, int]:
        offsets = self.offsets
        assert offsets is not None
        n = len(offsets)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        end = offsets[i + 1] if i + 1 < n else len(self.flat)
        return offsets[i], end

    def __getitem__(self, i: int) -> References:  # type: ignore[override]
        if self.offsets is None:
            return (self.flat[i],)
        lo, hi = self._bounds(i)
        return tuple(self.flat[lo:hi])

    def counts(self) -> np.ndarray:
        """Number of references of each segment."""
        import numpy as np

        if self.offsets is None:
            return np.ones(len(self.flat), dtype=np.int64)
        return np.asarray(self.count_list(), dtype=np.int64)

    def segments_and_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """The segment of each reference in ``flat`` and its position among that segment's references."""
        import numpy as np

        if self.starts is None:
            return np.arange(len(self.flat), dtype=np.int64), np.zeros(len(self.flat), dtype=np.int64)
        counts = self.counts()
        seg = np.repeat(np.arange(len(self), dtype=np.int64), counts)
        col = np.arange(len(self.flat), dtype=np.int64) - np.repeat(self.starts, counts)
        return seg, col

    def count_list(self) -> list[int]:
        """Number of references of each segment, as a Python list (no numpy)."""
        offsets = self.offsets
        if offsets is None:
            return [1] * len(self.flat)
        return [b - a for a, b in zip(offsets, [*offsets[1:], len(self.flat)], strict=True)]

    def first(self) -> list[str]:
        """The first reference of each segment."""
        if self.offsets is None:
            return self.flat
        return [self.flat[i] for i in self.offsets]

    def __repr__(self) -> str:
        return f"ReferenceSets({[list(r) for r in self]!r})"


def check_references(
    references: Any,
    *,
    name: str = "references",
    allow_empty: bool = False,
    single: bool = False,
) -> ReferenceSets:
    """Return per-segment references as :class:`ReferenceSets`, or raise naming the index.

    Each segment's references may be a string (one reference) or a list/tuple of strings (several). With
    ``single=True`` a segment with more than one reference is an error, for metrics that define no
    multi-reference convention.
    """
    values = _as_list(references, name)
    if not values and not allow_empty:
        raise InvalidInputError(f"{name} is empty: there is nothing to score (an empty corpus)")
    if set(map(type, values)) <= {str}:  # fast path: one plain string per segment
        return ReferenceSets(values)
    flat: list[str] = []
    starts: list[int] = []
    for i, r in enumerate(values):
        starts.append(len(flat))
        if is_array(r):
            r = r.tolist()  # a list cell of a DataFrame read from Parquet
        if isinstance(r, str):
            flat.append(str(r))
            continue
        if isinstance(r, (list, tuple)):
            if not r:
                raise InvalidInputError(f"{name}[{i}] is an empty list: every segment needs at least one reference")
            for j, x in enumerate(r):
                if not isinstance(x, str):
                    nested = (
                        " (nested too deeply: references are a string or a list of strings)"
                        if isinstance(x, (list, tuple))
                        else ""
                    )
                    raise InvalidInputError(f"{name}[{i}][{j}] is {describe(x)}; expected str{nested}")
            if single and len(r) > 1:
                raise InvalidInputError(
                    f"{name}[{i}] has {len(r)} references, but this metric takes exactly one reference per segment"
                )
            flat.extend(str(x) for x in r)
            continue
        raise InvalidInputError(f"{name}[{i}] is {describe(r)}; expected str or a list of str")
    if len(flat) == len(values):
        return ReferenceSets(flat)
    return ReferenceSets(flat, starts)


_STR = {str}


def check_pairs(
    predictions: Any,
    references: Any,
    *,
    allow_empty: bool = False,
    single_reference: bool = False,
) -> tuple[list[str], ReferenceSets]:
    """Check predictions and references together: types, emptiness, and equal lengths."""
    if type(predictions) is str and type(references) is str:  # one pair: nothing else to check
        return [predictions], ReferenceSets([references])
    if (  # the common case: two lists of plain strings of one length, checked in a few C-level passes
        type(predictions) is list
        and type(references) is list
        and len(predictions) == len(references)
        and predictions
        and set(map(type, predictions)) == _STR
        and set(map(type, references)) == _STR
    ):
        return predictions, ReferenceSets(references)
    preds = check_predictions(predictions, allow_empty=allow_empty)
    refs = check_references(references, allow_empty=allow_empty, single=single_reference)
    if len(preds) != len(refs):
        raise InvalidInputError(
            f"predictions and references differ in length: {len(preds)} predictions but {len(refs)} references "
            "(references are per segment: a string or a list of strings for each prediction)"
            + _token_list_hint(preds, refs)
        )
    return preds, refs


def check_paired(preds: Sequence[Any], refs: Sequence[Any], per_prediction: str, *, allow_empty: bool) -> None:
    """Raise :class:`InvalidInputError` unless there is one reference item per prediction (``per_prediction``
    says what one is, for the message) and, unless ``allow_empty``, at least one prediction."""
    if len(preds) != len(refs):
        raise InvalidInputError(
            f"predictions and references differ in length: {len(preds)} predictions but {len(refs)} references "
            f"({per_prediction})"
        )
    if not preds and not allow_empty:
        raise InvalidInputError("predictions is empty: there is nothing to score (an empty corpus)")


def one_segment(prediction: str, references: str | Sequence[Any]) -> tuple[str | list[str], Any]:
    """One sentence and its references as the inputs of a one-segment batch, in the layout checked fastest: two
    strings when there is one reference (the inputs' fast path), else a list of one segment."""
    if isinstance(references, str):
        return prediction, references
    if len(references) == 1 and type(references[0]) is str:
        return prediction, references[0]  # one reference: the plain layout
    return [prediction], [list(references)]


#: how NLTK's translation metrics take their input, which other tools do not
_TOKENS_HINT = "NLTK takes a sentence as a list of tokens, nlgmetrics as a string"


def _looks_like_token(value: Any) -> bool:
    return isinstance(value, str) and bool(value) and not any(c.isspace() for c in value)


def _token_list_hint(preds: list[str], refs: ReferenceSets) -> str:
    """When the lengths differ because the predictions are the tokens of one sentence (NLTK's ``hypothesis``) and
    the references one segment's token lists, say so."""
    if len(preds) < 2 or not all(map(_looks_like_token, preds)):
        return ""
    seg = refs.count_list()
    if len(refs) == 1 or (seg and seg[0] > 1 and all(map(_looks_like_token, refs.flat))):
        return (
            f". The {len(preds)} predictions look like the tokens of one sentence and the references like token "
            f"lists ({_TOKENS_HINT}): pass [' '.join(tokens)] and, per segment, the references as strings"
        )
    return ""


# compiled on first use (re caches it), not at import: a call that raises nothing never needs it
_INDEX = r"\b(predictions|references|sources)\[(\d+)\]"


def relocate(message: str, where: Mapping[str, Callable[[int], str] | None], offset: int = 0) -> str:
    """A message that starts with ``predictions[i]`` (or ``references[i]``, ``sources[i]``) of a batch, prefixed
    with where that segment came from (``where["predictions"](offset + i)``, say ``"refs.jsonl:1500"``), and
    with every index of the batch made an index of the whole input (``offset + i``). A message that starts with
    no index, or whose kind has no locator, is returned unchanged."""
    m = re.match(_INDEX, message)
    if m is None:
        return message
    locate = where.get(m.group(1))
    if locate is None:
        return message
    body = re.sub(_INDEX, lambda x: f"{x.group(1)}[{offset + int(x.group(2))}]", message)
    return f"{locate(offset + int(m.group(2)))}: {body}"
