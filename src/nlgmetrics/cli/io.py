"""Reading the CLI's input files: plain text, JSON Lines and the DocVQA JSON layout.

Rules, the same for every subcommand:

* A path must name a readable file, a pipe or ``-`` (standard input); anything else (a typo, a directory,
  ``/dev/null``) is an error naming it. The resolution and the decoding are :mod:`nlgmetrics._files`', shared
  with ``evaluate``.
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

import argparse
import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .._files import (
    STDIN,
    InputFileError,
    decode_utf8,
    display_name,
    iter_lines,
    parse_json,
    read_bytes,
    read_text,
)

__all__ = [
    "DOCVQA_FIELDS",
    "PRED_FIELD",
    "REF_FIELDS",
    "SRC_FIELD",
    "STDIN",
    "CLIInputError",
    "Column",
    "add_references_option",
    "decode_utf8",
    "display_name",
    "input_options",
    "json_kind",
    "jsonl_objects",
    "looks_like_docvqa",
    "read_bytes",
    "read_docvqa",
    "read_jsonl",
    "read_lines",
    "read_text",
    "split_lines",
]

#: The DocVQA layout's prediction and reference fields.
DOCVQA_FIELDS = ("answer", "gt_answers")
#: The JSON Lines fields read by default: the prediction, the source, the references (the first present).
PRED_FIELD = "prediction"
SRC_FIELD = "source"
REF_FIELDS = ("references", "reference")

#: Every problem with an input file (the same class as the library's, so ``evaluate`` and the single-metric
#: commands report a file in the same words).
CLIInputError = InputFileError


@dataclasses.dataclass(frozen=True)
class Column:
    """The values one file contributes: one per segment, plus how to name segment ``i`` in a message."""

    label: str  # e.g. "--pred a.txt"
    values: list[Any]
    locate: Callable[[int], str]  # segment index -> "a.txt:3" or "a.json: item 3"

    def __len__(self) -> int:
        return len(self.values)


def _line_locator(name: str) -> Callable[[int], str]:
    return lambda i: f"{name}:{i + 1}"


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
    return Column(f"{option} {name}", list(iter_lines(path, option)), _line_locator(name))


# ---------------------------------------------------------------------------------------------------- JSON
def json_kind(value: Any) -> str:
    """How a message names the kind of a JSON value (``"an object"``, ``"a number"``, ``"null"``, ...)."""
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
        raise CLIInputError(f"{where}: field {field!r} is {json_kind(value)}; expected a string")
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
                    f"{where}: field {field!r} item {j} is {json_kind(item)}; expected a string or a list of strings"
                )
        return list(value)
    raise CLIInputError(f"{where}: field {field!r} is {json_kind(value)}; expected a string or a list of strings")


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
    columns: list[list[Any]] = [[] for _ in fields]
    for where, obj in jsonl_objects(path, option):
        for col, (names, field_option), conv in zip(columns, fields, convert, strict=True):
            key, value = _pick(obj, names, where, field_option)
            col.append(conv(value, where, key) if conv is not None else value)
    return [Column(f"{option} {name}", col, _line_locator(name)) for col in columns]


def jsonl_objects(path: str, option: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The JSON object on each line of a JSON Lines file, with its ``file:line`` for messages; an empty line, a
    line that is not JSON (or is nested too deeply to read) and a value that is not an object are errors."""
    name = display_name(path)
    for i, line in enumerate(iter_lines(path, option)):
        where = f"{name}:{i + 1}"
        if not line.strip():
            raise CLIInputError(f"{where}: empty line; JSON Lines needs one JSON object on every line")
        obj = parse_json(line, where)
        if not isinstance(obj, dict):
            raise CLIInputError(f"{where}: expected a JSON object, got {json_kind(obj)}")
        yield where, obj


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
    data = parse_json(text, name, at_line=name)
    if not isinstance(data, list):
        raise CLIInputError(
            f"{name}: expected the DocVQA layout, a JSON list of objects with {pred_field!r} and {ref_field!r}; "
            f"got {json_kind(data)}"
        )

    def locate(i: int) -> str:
        return f"{name}: item {i + 1}"

    preds: list[str] = []
    refs: list[list[str]] = []
    for i, obj in enumerate(data):
        where = locate(i)
        if not isinstance(obj, dict):
            raise CLIInputError(f"{where}: expected a JSON object, got {json_kind(obj)}")
        _, p = _pick(obj, [pred_field], where, "--pred-field")
        _, r = _pick(obj, [ref_field], where, "--ref-field")
        preds.append(check_text(p, where, pred_field))
        refs.append(check_references(r, where, ref_field))
    label = f"{option} {name}"
    return Column(label, preds, locate), Column(label, refs, locate)


def add_references_option(group: Any, help: str, aliases: Sequence[str] = ()) -> None:
    """``--ref FILE [FILE ...]`` on an argument group: the reference files, several at once or the option
    repeated, one file per reference of each segment."""
    group.add_argument("--ref", *aliases, action="extend", nargs="+", default=[], metavar="FILE", help=help)


def input_options(args: argparse.Namespace) -> list[tuple[str, Any]]:
    """The input files named on a command line, as ``(option, path)`` pairs (an output must be none of them)."""
    named: list[tuple[str, Any]] = []
    for option in ("pred", "ref", "src", "corpus", "config"):
        value = getattr(args, option, None)
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, str):
                named.append((f"--{option}", path))
    return named
