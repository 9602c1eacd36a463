"""One fast-path policy: which path a batch of a given size takes, asked by every family.

A kernel has two ways to build its statistics: Python rows (lists, one segment at a time, no numpy arrays) and
numpy columns (vectorised, with a fixed cost of a few dozen numpy calls and, in a fresh process, numpy's import:
tens of milliseconds). Which one is cheaper depends on the batch size, on whether numpy is imported already, and on
whether the compiled kernels (``nlgmetrics._native``) are built. Each rule of :data:`RULES` holds the sizes its
kernel measured; every decision site asks :func:`rows` (and :func:`use_native` for a compiled kernel), so the
policy and the measurements behind it live here, once.

Both paths give the same numbers, bit for bit (``tests/properties/test_numpy_free_paths.py``). Tests and ``bench/``
steer the paths with :func:`forced` instead of patching module constants.

This module imports only the standard library and :mod:`.native`, which loads the compiled kernels on first use.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Collection, Iterator

from .native import has_native as loadable

__all__ = ["NATIVE", "RULES", "Rule", "forced", "has_native", "numpy_loaded", "rows", "use_native"]


@dataclasses.dataclass(frozen=True)
class Rule:
    """Up to ``rows_up_to`` items, Python rows; while numpy is not imported, rows up to ``rows_while_unloaded``
    items (``None``: at any size). ``why`` is the measurement behind the numbers."""

    rows_up_to: int
    rows_while_unloaded: int | None
    why: str

    def rows(self, n: int, numpy_loaded: bool) -> bool:
        if n <= self.rows_up_to:
            return True
        if numpy_loaded:
            return False
        return self.rows_while_unloaded is None or n <= self.rows_while_unloaded


_FRESH = (
    " While numpy is not imported, a batch of any size takes the rows: importing numpy would cost a fresh process "
    "more than the columns save it (the counts are the same)."
)

#: The size rules, by kernel. Items are segments unless a rule says otherwise.
RULES: dict[str, Rule] = {
    "bleu": Rule(
        32,
        None,
        "Batches of at most this many segments are counted segment by segment by the compiled kernel, their "
        "statistics kept as Python rows: indexing their references with numpy would cost more than it saves. On "
        "fresh text rows cost less up to ~128-256 segments, but larger batches keep the reference caches." + _FRESH,
    ),
    "bleu.13a-rows": Rule(
        256,
        None,
        "Under the 13a tokenizer (the compiled one-pass kernel), batches of at most this many segments keep their "
        "statistics as Python rows (their per-segment results come from rows cheaper than from numpy columns); "
        "larger ones get numpy columns." + _FRESH,
    ),
    "chrf": Rule(
        32,
        None,
        "As BLEU's: batches of at most this many segments are counted segment by segment by the compiled kernel "
        "and kept as Python rows; on fresh text rows cost less up to ~128-256 segments, but larger batches keep "
        "the reference caches." + _FRESH,
    ),
    "gleu": Rule(
        128,
        128,
        "Batches of at most this many segments are counted segment by segment by the compiled n-gram counter "
        "(BLEU's and chrF's), kept as Python rows: the numpy reference index costs more than it saves there. On "
        "fresh text the rows cost less per segment up to between 128 and 256 segments.",
    ),
    "sari.python": Rule(
        4,
        4,
        "Without the compiled kernel: batches of at most this many segments are scored segment by segment in plain "
        "Python (dicts of n-grams, as the script does, without its string joins and Counter copies); below it the "
        "vectorised kernel's fixed cost (a few dozen numpy calls) is more than the work, above it the vectorised "
        "kernel is faster per segment.",
    ),
    "rouge.kernel": Rule(
        8,
        8,
        "Batches of at most this many segments keep their statistics as Python rows. Functional calls on small "
        "batches skip this kernel (rouge.call); for the update() of a training batch (16-64 pairs) summing numpy "
        "columns costs less than summing rows.",
    ),
    "rouge.call": Rule(
        1024,
        None,
        "Calls on at most this many segments go from the compiled kernel's rows straight to the formula. Larger "
        "ones too while numpy is not imported (importing it would cost a fresh process more than the rows cost a "
        "corpus), unless the batch is spread over worker processes. Both paths sum with math.fsum.",
    ),
    "squad.pairs": Rule(
        32,
        32,
        "Up to this many (prediction, answer) pairs, Python's Counter is faster than the numpy passes.",
    ),
    "squad.questions": Rule(
        8,
        8,
        "Up to this many questions, the kernel goes question by question in Python (without the batch passes' "
        "fixed numpy costs).",
    ),
    "perplexity": Rule(
        2,
        2,
        "Batches of at most this many sequences keep their statistics as rows (summed in Python), larger ones as "
        "columns.",
    ),
    "edit": Rule(
        32,
        None,
        "Up to this many pairs, scores are computed one call per pair and kept in a Python list: a numpy array and "
        "rapidfuzz's column call cost more than they save on a handful of pairs. Beyond it too while numpy is not "
        "yet imported: a call per pair costs 0.2 us more per pair than the column call, importing numpy tens of ms.",
    ),
    "mt13a.chars": Rule(
        4095,
        (1 << 20) - 1,
        "Characters of text: from 4096 on, the 13a tokenizer's steps 2-4 run vectorised with numpy; below, numpy's "
        "fixed costs outweigh the loops. While numpy is not imported, the loops run up to a million characters "
        "(2**20): importing numpy costs a fresh process about what they take on a million characters of English "
        "text (Chinese text, with few ASCII periods and commas, far less).",
    ),
}

#: The compiled kernels the families may use, each with what it replaces; :func:`use_native` asks for one by name.
NATIVE: dict[str, str] = {
    "bleu": "the small-batch n-gram counter (rows): without it, BLEU's batches take the numpy path",
    "bleu.13a": "13a tokens and clipped counts in one pass, at every batch size (off with a cache directory)",
    "chrf": "the small-batch character n-gram counter (rows, sacrebleu's convention)",
    "chrf.corpus": "the counter for batches beyond the rows (off with a cache directory: the index path keeps it)",
    "gleu": "the small-batch n-gram counter (rows)",
    "sari": "the whole kernel from the tokenized text; without it, plain Python or numpy",
}


@dataclasses.dataclass(frozen=True)
class _Forced:
    rows: bool | None
    numpy: bool | None
    native: bool | None
    kernels: frozenset[str] | None


_FORCED: list[_Forced] = []


def _override(kernel: str | None, field: str) -> bool | None:
    for entry in reversed(_FORCED):
        value = getattr(entry, field)
        if value is not None and (entry.kernels is None or kernel in entry.kernels):
            return value  # type: ignore[no-any-return]
    return None


def numpy_loaded() -> bool:
    """Whether numpy is imported already (never imports it)."""
    for entry in reversed(_FORCED):
        if entry.numpy is not None:
            return entry.numpy
    return "numpy" in sys.modules


def rows(kernel: str, n: int) -> bool:
    """Whether ``kernel`` keeps a batch of ``n`` items as Python rows (else numpy columns), by its rule."""
    rule = RULES[kernel]
    if _FORCED:
        value = _override(kernel, "rows")
        return rule.rows(n, numpy_loaded()) if value is None else value
    # Rule.rows inline: this runs on every call, a one-pair call included
    if n <= rule.rows_up_to:
        return True
    return "numpy" not in sys.modules and (rule.rows_while_unloaded is None or n <= rule.rows_while_unloaded)


def has_native() -> bool:
    """Whether the compiled kernels can be loaded (tried once), unless :func:`forced` turns them off."""
    if _FORCED and _override(None, "native") is False:
        return False
    return loadable()


def use_native(kernel: str) -> bool:
    """Whether ``kernel`` (a name of :data:`NATIVE`) runs on the compiled kernels: built, and not turned off."""
    if _FORCED and _override(kernel, "native") is False:
        return False
    return loadable()


@contextlib.contextmanager
def forced(
    *,
    rows: bool | None = None,
    numpy: bool | None = None,
    native: bool | None = None,
    kernels: Collection[str] | None = None,
) -> Iterator[None]:
    """Hold the policy's answers (for tests and benchmarks): ``rows=True`` rows at every size, ``False`` numpy
    columns at every size; ``numpy=False`` the paths a process without numpy takes, for every kernel (numpy is
    still imported where a path needs it); ``native=False`` no compiled kernel (only where another path exists).
    ``kernels`` limits ``rows`` and ``native`` to those names of :data:`RULES` and :data:`NATIVE` (default: all
    of them)."""
    names = None if kernels is None else frozenset(kernels)
    if names is not None:
        unknown = sorted(names - set(RULES) - set(NATIVE))
        if unknown:
            raise ValueError(f"unknown fast-path kernel(s) {', '.join(unknown)}; known: {', '.join(sorted(RULES))}")
    entry = _Forced(rows, numpy, native, names)
    _FORCED.append(entry)
    try:
        yield
    finally:
        _FORCED.remove(entry)
