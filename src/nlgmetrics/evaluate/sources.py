"""Streaming readers for the inputs of an evaluation run.

Files are read in blocks, never whole, so memory does not grow with the corpus. Paths are resolved, and lines
split and decoded, by :mod:`nlgmetrics._files`, exactly as in every single-metric command: a path that does not
name a readable file is an error naming it (it is never taken for text), a byte-order mark is dropped, CRLF
endings are read as LF, strict UTF-8, no line ever dropped or filtered; an error names the file and the line.

Text in memory is passed explicitly: a list of per-segment values for a system, and for references
:class:`Texts` (one string, or one list of strings, per segment) or a list of per-segment lists. Standard input
(``-``), pipes and FIFOs are copied once to a temporary file (removed with the :class:`Source`), so they can be
read as often as a run needs (digests for the cache, the scores, the report's worst segments).
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import ItemsView, Iterator, KeysView, Mapping, Sequence, ValuesView
from dataclasses import dataclass
from typing import Any

from .._files import check_input, display_name, is_stream, iter_lines, parse_json, spool
from ..errors import InvalidInputError

__all__ = ["JsonlField", "Lines", "Memory", "Source", "Texts", "as_source", "chunked_rows", "open_source"]


class Source:
    """An iterable of segment values (a string, or for references possibly a list of strings)."""

    name: str = "<input>"

    def __iter__(self) -> Iterator[Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def locate(self, index: int) -> str:
        """Where segment ``index`` (0-based) comes from, for error messages."""
        return f"{self.name}[{index}]"


@dataclass
class Memory(Source):
    """Values already in memory (a list of strings, or of reference lists)."""

    values: Sequence[Any]
    name: str = "<list>"

    def __post_init__(self) -> None:
        values: Any = self.values
        if isinstance(values, (set, frozenset, Mapping, KeysView, ValuesView, ItemsView)):
            # a set's order depends on the hash seed: segments would meet other segments' references
            raise InvalidInputError(
                f"{type(self).__name__}(...) got a {type(values).__name__}; segments must be in order: pass a list "
                "(a set's order depends on the hash seed, so predictions would meet the wrong references)"
            )
        if isinstance(values, (str, bytes)):
            raise InvalidInputError(
                f"{type(self).__name__}(...) got one {type(values).__name__}; pass a list of segments"
            )

    def __iter__(self) -> Iterator[Any]:
        return iter(self.values)


@dataclass
class Texts(Memory):
    """Segments given as text, in memory: one string (or, for references, one string or list of strings) per
    segment. ``evaluate(Texts(refs), ...)`` says explicitly that ``refs`` holds the reference texts, not file
    names."""

    name: str = "<texts>"


class _FileSource(Source):
    """Segments read from a file, one per line: messages name the file and the line."""

    path: str
    display: str | None  # how messages name the file (default: the path)

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.display or os.fspath(self.path)

    def locate(self, index: int) -> str:
        return f"{self.name}:{index + 1}"


@dataclass
class Lines(_FileSource):
    """A plain-text file, one segment per line. ``display`` is how messages name it (default: the path)."""

    path: str
    display: str | None = None

    def __iter__(self) -> Iterator[str]:
        return iter_lines(self.path, "", self.name)


@dataclass
class JsonlField(_FileSource):
    """One field of a JSON Lines file (a string, or for references a string or a list of strings)."""

    path: str
    field: str
    allow_list: bool = False
    display: str | None = None

    def __iter__(self) -> Iterator[Any]:
        for i, line in enumerate(iter_lines(self.path, "", self.name)):
            where = self.locate(i)
            obj = parse_json(line, where, error=InvalidInputError, invalid="not valid JSON ({msg})")
            if not isinstance(obj, dict) or self.field not in obj:
                raise InvalidInputError(f"{where}: no field {self.field!r}")
            value = obj[self.field]
            if isinstance(value, str) or (self.allow_list and isinstance(value, list)):
                yield value
            else:
                raise InvalidInputError(f"{where}: field {self.field!r} is {type(value).__name__}, expected a string")


def open_source(
    value: Any, *, field: str | None = None, allow_list: bool = False, option: str = "", spool_dir: str | None = None
) -> Source:
    """A :class:`Source` from a path (text, or JSON Lines with ``field`` or a ``.jsonl`` name), a list of
    segments, :class:`Texts` or a Source. The path must name a readable file, a pipe or ``-``; a stream is copied
    to a temporary file once, here. ``option`` names the input in messages (``--ref``, ``--sys NAME``)."""
    if isinstance(value, Source):
        return value
    # tables (Parquet, CSV, DataFrames, datasets, lm-eval and lighteval logs): nlgmetrics.tables
    from ..tables import evaluate_source

    table = evaluate_source(value, field=field, allow_list=allow_list)
    if table is not None:
        return table  # type: ignore[no-any-return]
    if isinstance(value, (str, os.PathLike)):
        given = os.fspath(value)
        path = check_input(given, option or "input")
        display = display_name(given)
        cleanup = None
        if is_stream(path):
            path = spool(path, option or "input", spool_dir)
            cleanup = path
        source: Source
        if field is not None or given.endswith(".jsonl"):
            default = "references" if allow_list else "prediction"
            source = JsonlField(path, field or default, allow_list=allow_list, display=display)
        else:
            source = Lines(path, display=display)
        if cleanup is not None:
            weakref.finalize(source, _remove, cleanup)
        return source
    if isinstance(value, (list, tuple)):
        return Memory(value)
    raise InvalidInputError(
        f"{option or 'input'}: expected a file path or a list of segments, got {type(value).__name__}"
    )


#: The name older code used.
as_source = open_source


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def chunked_rows(sources: Sequence[Source], size: int) -> Iterator[list[tuple[Any, ...]]]:
    """Zip the sources segment by segment and yield lists of at most ``size`` rows.

    Raises :class:`InvalidInputError` naming every source and its segment count when they differ in length.
    """
    iters = [iter(s) for s in sources]
    sentinel = object()
    count = 0
    chunk: list[tuple[Any, ...]] = []
    while True:
        row = tuple(next(it, sentinel) for it in iters)
        ended = [v is sentinel for v in row]
        if all(ended):
            break
        if any(ended):
            counts = [count + (0 if e else 1 + sum(1 for _ in it)) for e, it in zip(ended, iters, strict=False)]
            detail = ", ".join(f"{s.name} has {c}" for s, c in zip(sources, counts, strict=False))
            raise InvalidInputError(f"the inputs differ in length: {detail} segments")
        chunk.append(row)
        count += 1
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
