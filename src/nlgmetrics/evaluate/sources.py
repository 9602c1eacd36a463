"""Streaming readers for the inputs of an evaluation run.

Files are read line by line, never whole, so memory does not grow with the corpus. Lines are split on ``"\\n"``
only (a ``"\\r"`` before it is dropped), decoded as strict UTF-8, and never dropped or filtered: an error names
the file and the line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInputError

__all__ = ["JsonlField", "Lines", "Memory", "Source", "as_source", "chunked_rows"]


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

    def __iter__(self) -> Iterator[Any]:
        return iter(self.values)


@dataclass
class Lines(Source):
    """A plain-text file, one segment per line."""

    path: str

    @property
    def name(self) -> str:  # type: ignore[override]
        return os.fspath(self.path)

    def locate(self, index: int) -> str:
        return f"{self.name}:{index + 1}"

    def __iter__(self) -> Iterator[str]:
        try:
            fh = open(self.path, "rb")  # noqa: SIM115 - closed in the finally below
        except OSError as err:
            raise InvalidInputError(f"cannot read {self.name}: {err.strerror or err}") from err
        try:
            for lineno, raw in enumerate(fh, 1):
                if raw.endswith(b"\n"):
                    raw = raw[:-1]
                    if raw.endswith(b"\r"):
                        raw = raw[:-1]
                try:
                    yield raw.decode("utf-8")
                except UnicodeDecodeError as err:
                    raise InvalidInputError(
                        f"{self.name}:{lineno}: invalid UTF-8 at byte {err.start} of the line"
                    ) from None
        finally:
            fh.close()


@dataclass
class JsonlField(Source):
    """One field of a JSON Lines file (a string, or for references a string or a list of strings)."""

    path: str
    field: str
    allow_list: bool = False

    @property
    def name(self) -> str:  # type: ignore[override]
        return os.fspath(self.path)

    def locate(self, index: int) -> str:
        return f"{self.name}:{index + 1}"

    def __iter__(self) -> Iterator[Any]:
        for i, line in enumerate(Lines(self.path)):
            where = f"{self.name}:{i + 1}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise InvalidInputError(f"{where}: not valid JSON ({err.msg})") from None
            if not isinstance(obj, dict) or self.field not in obj:
                raise InvalidInputError(f"{where}: no field {self.field!r}")
            value = obj[self.field]
            if isinstance(value, str) or (self.allow_list and isinstance(value, list)):
                yield value
            else:
                raise InvalidInputError(f"{where}: field {self.field!r} is {type(value).__name__}, expected a string")


def as_source(value: Any, *, field: str | None = None, allow_list: bool = False) -> Source:
    """A :class:`Source` from a path (text, JSON Lines with ``field``, or a table), a list, a table, or a Source."""
    if isinstance(value, Source):
        return value
    # tables (Parquet, CSV, DataFrames, datasets, lm-eval and lighteval logs): nlgmetrics.tables
    from ..tables import evaluate_source

    table = evaluate_source(value, field=field, allow_list=allow_list)
    if table is not None:
        return table  # type: ignore[no-any-return]
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if field is not None or path.endswith(".jsonl"):
            default = "references" if allow_list else "prediction"
            return JsonlField(path, field or default, allow_list=allow_list)
        return Lines(path)
    if isinstance(value, (list, tuple)):
        return Memory(value)
    raise InvalidInputError(f"expected a file path or a list of segments, got {type(value).__name__}")


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
