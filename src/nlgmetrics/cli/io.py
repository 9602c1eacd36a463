"""Reading the CLI's input files: plain text, JSON Lines and the DocVQA JSON layout.

Rules, the same for every subcommand:

* Files are UTF-8 (a leading byte-order mark is ignored). Invalid UTF-8 is an error that names the file, the
  line and the byte offset.
* Plain text holds one segment per line. Lines are split on ``"\\n"`` only; a ``"\\r"`` right before a ``"\\n"``
  is dropped (CRLF files); a final newline does not start an extra segment. Empty lines are real, empty
  segments: no line is ever dropped or filtered, so segment ``i`` is always line ``i + 1``.
* JSON Lines holds one JSON object per line; fields are selected by name. An empty line there is an error (it is
  not a JSON object), never skipped.
* The DocVQA layout is one JSON list of objects ``{"question", "answer", "gt_answers", ...}``.

Every problem raises :class:`CLIInputError` with a one-line message naming the file and the line.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "DOCVQA_FIELDS",
    "CLIInputError",
    "Column",
    "looks_like_docvqa",
    "read_docvqa",
    "read_jsonl",
    "read_lines",
    "read_text",
    "split_lines",
]

STDIN = "-"
#: The DocVQA layout's prediction and reference fields.
DOCVQA_FIELDS = ("answer", "gt_answers")


class CLIInputError(Exception):
    """A problem with the command line's input; the message is one line, naming the file and the line."""


@dataclasses.dataclass(frozen=True)
class Column:
    """The values one file contributes: one per segment, plus how to name segment ``i`` in a message."""

    label: str  # e.g. "--pred a.txt"
    values: list[Any]
    locate: Callable[[int], str]  # segment index -> "a.txt:3" or "a.json: item 3"

    def __len__(self) -> int:
        return len(self.values)


def display_name(path: str) -> str:
    return "<stdin>" if path == STDIN else path


def _line_locator(name: str) -> Callable[[int], str]:
    return lambda i: f"{name}:{i + 1}"


def read_bytes(path: str, option: str) -> bytes:
    if path == STDIN:
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as e:
        reason = e.strerror or e.__class__.__name__
        raise CLIInputError(f"cannot read {option} {path}: {reason}") from None


def decode_utf8(data: bytes, name: str) -> str:
    """Decode strictly; on failure name the line, the byte offset and the offending byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        line_start = data.rfind(b"\n", 0, e.start) + 1
        raise CLIInputError(
            f"{name}:{line}: invalid UTF-8 at byte offset {e.start} (byte {e.start - line_start} of the line, "
            f"0x{data[e.start]:02x}): the file must be UTF-8 encoded"
        ) from None


def read_text(path: str, option: str) -> str:
    """The whole file as ``str`` (strict UTF-8)."""
    return decode_utf8(read_bytes(path, option), display_name(path))


def split_lines(text: str) -> list[str]:
    """Split on ``"\\n"`` only, drop the ``"\\r"`` of CRLF endings, keep empty lines, ignore one final newline.

    >>> split_lines("a\\n\\nb\\n")
    ['a', '', 'b']
    >>> split_lines("a\\r\\nb\\r\\n")
    ['a', 'b']
    >>> split_lines("a\\u2028b\\x0bc")  # only "\\n" separates lines; other separators stay in the segment
    ['a\\u2028b\\x0bc']
    >>> split_lines(""), split_lines("\\n")
    ([], [''])
    """
    parts = text.split("\n")
    last = parts.pop()
    lines = [p[:-1] if p.endswith("\r") else p for p in parts]
    if last:
        lines.append(last)
    return lines


def read_lines(path: str, option: str) -> Column:
    """A plain-text file: one segment per line, every line kept."""
    name = display_name(path)
    return Column(f"{option} {name}", split_lines(read_text(path, option)), _line_locator(name))


# ---------------------------------------------------------------------------------------------------- JSON
def _type_name(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def check_text(value: Any, where: str, field: str) -> str:
    if not isinstance(value, str):
        raise CLIInputError(f"{where}: field {field!r} is {_type_name(value)}; expected a string")
    return value


def check_references(value: Any, where: str, field: str) -> list[str]:
    """A reference field: a string (one reference) or a non-empty list of strings (several)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        if not value:
            raise CLIInputError(f"{where}: field {field!r} is an empty list; every segment needs a reference")
        for j, item in enumerate(value):
            if not isinstance(item, str):
                raise CLIInputError(
                    f"{where}: field {field!r} item {j} is {_type_name(item)}; expected a string or a list of strings"
                )
        return list(value)
    raise CLIInputError(f"{where}: field {field!r} is {_type_name(value)}; expected a string or a list of strings")


def _pick(obj: dict[str, Any], names: Sequence[str], where: str, option: str) -> tuple[str, Any]:
    for name in names:
        if name in obj:
            return name, obj[name]
    wanted = " or ".join(repr(n) for n in names)
    present = ", ".join(repr(k) for k in obj) or "none"
    raise CLIInputError(f"{where}: no field {wanted} (fields present: {present}; choose one with {option})")


def read_jsonl(
    path: str,
    option: str,
    fields: Sequence[tuple[Sequence[str], str]],
    convert: Sequence[Callable[[Any, str, str], Any] | None],
) -> list[Column]:
    """Read a JSON Lines file; return one column per requested field.

    ``fields`` holds, per column, the candidate field names (the first present is taken) and the option that
    chooses the name (for the error message); ``convert`` checks and converts each value (``None``: as is).
    """
    name = display_name(path)
    lines = split_lines(read_text(path, option))
    columns: list[list[Any]] = [[] for _ in fields]
    for i, line in enumerate(lines):
        where = f"{name}:{i + 1}"
        if not line.strip():
            raise CLIInputError(f"{where}: empty line; JSON Lines needs one JSON object on every line")
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise CLIInputError(f"{where}: invalid JSON at column {e.colno}: {e.msg}") from None
        if not isinstance(obj, dict):
            raise CLIInputError(f"{where}: expected a JSON object, got {_type_name(obj)}")
        for col, (names, field_option), conv in zip(columns, fields, convert, strict=True):
            key, value = _pick(obj, names, where, field_option)
            col.append(conv(value, where, key) if conv is not None else value)
    return [Column(f"{option} {name}", col, _line_locator(name)) for col in columns]


def looks_like_docvqa(text: str) -> bool:
    """Whether a file's content is (meant to be) a JSON list: the DocVQA layout starts with ``[``."""
    return text.lstrip().startswith("[")


def read_docvqa(
    path: str,
    option: str,
    text: str | None = None,
    pred_field: str = DOCVQA_FIELDS[0],
    ref_field: str = DOCVQA_FIELDS[1],
) -> tuple[Column, Column]:
    """The DocVQA layout: a JSON list of objects; ``answer`` is the prediction, ``gt_answers`` the references."""
    name = display_name(path)
    if text is None:
        text = read_text(path, option)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CLIInputError(f"{name}:{e.lineno}: invalid JSON at column {e.colno}: {e.msg}") from None
    if not isinstance(data, list):
        raise CLIInputError(
            f"{name}: expected the DocVQA layout, a JSON list of objects with {pred_field!r} and {ref_field!r}; "
            f"got {_type_name(data)}"
        )

    def locate(i: int) -> str:
        return f"{name}: item {i + 1}"

    preds: list[str] = []
    refs: list[list[str]] = []
    for i, obj in enumerate(data):
        where = locate(i)
        if not isinstance(obj, dict):
            raise CLIInputError(f"{where}: expected a JSON object, got {_type_name(obj)}")
        _, p = _pick(obj, [pred_field], where, "--pred-field")
        _, r = _pick(obj, [ref_field], where, "--ref-field")
        preds.append(check_text(p, where, pred_field))
        refs.append(check_references(r, where, ref_field))
    label = f"{option} {name}"
    return Column(label, preds, locate), Column(label, refs, locate)
