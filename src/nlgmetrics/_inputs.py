"""The one place that normalises and checks predictions and references.

Every public entry point (functions, stateful metrics, the torch adapter, the CLI) calls into this module, so
the same input gets the same error everywhere. Errors name the index of the offending segment (and, for
references, the index inside the segment's list).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeAlias

from .errors import InvalidInputError

References: TypeAlias = tuple[str, ...]
"""The references of one segment, after normalisation: a non-empty tuple of strings."""

__all__ = ["References", "check_predictions", "check_references", "check_pairs", "describe"]


def describe(value: object) -> str:
    """A short human description of a value's type, for error messages."""
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} item(s)"
    if isinstance(value, bytes):
        return "bytes (decode them to str first)"
    return f"a value of type {type(value).__name__} ({value!r:.40})"


def _as_list(values: Any, name: str) -> list[Any]:
    if values is None:
        raise InvalidInputError(f"{name} is None; expected a sequence of strings")
    if isinstance(values, str):
        # A single string is one segment, as in torchmetrics; never iterate its characters.
        return [values]
    if isinstance(values, (bytes, bytearray)):
        raise InvalidInputError(f"{name} is bytes; decode it to str (UTF-8) first")
    if isinstance(values, dict):
        raise InvalidInputError(f"{name} is a dict; expected a sequence of strings")
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
    if not all(type(v) is str for v in values):
        for i, v in enumerate(values):
            if not isinstance(v, str):
                hint = ""
                if isinstance(v, (list, tuple)):
                    hint = " (a nested list where a string belongs: each prediction is one string)"
                raise InvalidInputError(f"{name}[{i}] is {describe(v)}; expected str{hint}")
        values = [str(v) for v in values]  # str subclasses: plain str from here on
    if not values and not allow_empty:
        raise InvalidInputError(f"{name} is empty: there is nothing to score (an empty corpus)")
    return values


def check_references(
    references: Any,
    *,
    name: str = "references",
    allow_empty: bool = False,
    single: bool = False,
) -> list[References]:
    """Return references as a list with one non-empty tuple of strings per segment.

    Each segment's references may be a string (one reference) or a list/tuple of strings (several). With
    ``single=True`` a segment with more than one reference is an error, for metrics that define no
    multi-reference convention.
    """
    values = _as_list(references, name)
    out: list[References] = []
    append = out.append
    for i, r in enumerate(values):
        if type(r) is str:
            append((r,))
            continue
        if isinstance(r, str):
            append((str(r),))
            continue
        if isinstance(r, (list, tuple)):
            if not r:
                raise InvalidInputError(f"{name}[{i}] is an empty list: every segment needs at least one reference")
            for j, x in enumerate(r):
                if not isinstance(x, str):
                    nested = " (nested too deeply: references are a string or a list of strings)" if isinstance(
                        x, (list, tuple)
                    ) else ""
                    raise InvalidInputError(f"{name}[{i}][{j}] is {describe(x)}; expected str{nested}")
            if single and len(r) > 1:
                raise InvalidInputError(
                    f"{name}[{i}] has {len(r)} references, but this metric takes exactly one reference per segment"
                )
            append(tuple(str(x) for x in r))
            continue
        raise InvalidInputError(f"{name}[{i}] is {describe(r)}; expected str or a list of str")
    if not out and not allow_empty:
        raise InvalidInputError(f"{name} is empty: there is nothing to score (an empty corpus)")
    return out


def check_pairs(
    predictions: Any,
    references: Any,
    *,
    allow_empty: bool = False,
    single_reference: bool = False,
) -> tuple[list[str], list[References]]:
    """Check predictions and references together: types, emptiness, and equal lengths."""
    preds = check_predictions(predictions, allow_empty=allow_empty)
    refs = check_references(references, allow_empty=allow_empty, single=single_reference)
    if len(preds) != len(refs):
        raise InvalidInputError(
            f"predictions and references differ in length: {len(preds)} predictions but {len(refs)} references "
            "(references are per segment: a string or a list of strings for each prediction)"
        )
    return preds, refs


def flatten_references(refs: Sequence[References]) -> tuple[list[str], list[int]]:
    """Flatten per-segment references; return the flat list and each segment's start offset."""
    flat: list[str] = []
    starts: list[int] = []
    for r in refs:
        starts.append(len(flat))
        flat.extend(r)
    return flat, starts
