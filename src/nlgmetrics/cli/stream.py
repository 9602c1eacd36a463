"""Single-metric commands on long inputs: the files are read and scored chunk by chunk, never held whole.

A plain-text or JSON Lines input of at most :data:`CHUNK` segments is scored exactly as before, in one call. A
longer one is read :data:`CHUNK` segments at a time; each chunk's statistics come from the family's kernel and
are summed exactly (float fields as exact fractions, a reference script's running sum in order:
:meth:`~nlgmetrics.stats.StatsBatch.exact_total`, as ``evaluate`` sums them), so the corpus statistics, rounded
once at the end, are bit for bit those of one call on the whole input (``math.fsum`` is correctly rounded too),
and the formula gives the same numbers. What is kept besides the running sums: the
per-segment statistics (a few numbers per segment, never text) when per-segment scores, ``--output`` or a
bootstrap ask for them. Every check of the inputs names the same file and line, with the same message, as the
whole-file readers of :mod:`nlgmetrics.cli.main`; a kernel's message about ``predictions[i]`` of a chunk names
the file and line of the whole input.
"""

from __future__ import annotations

import argparse
import itertools
import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .._files import iter_lines
from .._inputs import _INDEX, relocate
from ..errors import InvalidInputError, warn
from .command import FamilyCommand, Outcome
from .io import (
    PRED_FIELD,
    REF_FIELDS,
    SRC_FIELD,
    CLIInputError,
    _pick,
    check_references,
    check_text,
    display_name,
    jsonl_objects,
)

__all__ = ["CHUNK", "stream_run", "streamable"]

#: Segments per chunk: a chunk of text is read, scored and dropped.
CHUNK = 10_000

_Locate = Callable[[int], str]


def _format_of(path: str, chosen: str) -> str:
    if chosen != "auto":
        return chosen
    return "jsonl" if path.lower().endswith(".jsonl") else "text"


def streamable(args: argparse.Namespace, command: Any) -> bool:
    """Whether this command line reads plain text or JSON Lines the chunked path can read: a family command that
    streams, no table, no DocVQA or COCO layout, no structured values."""
    from ..metrics.catalog import IN_PROCESS
    from .tables import table_format

    if not isinstance(command, FamilyCommand) or not command.streams or command.structured:
        return False
    if getattr(command, "read_inputs", None) is not None or command.coco_json:
        return False
    if command.metric().name in IN_PROCESS:
        return False
    if table_format(args.pred, args.format, args.pred_field) is not None:
        return False
    fmt = _format_of(args.pred, args.format)
    if fmt not in ("text", "jsonl") or (fmt == "text" and not args.ref):
        return False  # the DocVQA layout, or the error that --ref is required: the whole-file reader says it
    for path in [*(args.ref or []), *([args.src] if getattr(args, "src", None) else [])]:
        if table_format(path, args.format, None) is not None or _format_of(path, args.format) not in ("text", "jsonl"):
            return False
    return True


# ---------------------------------------------------------------------------------------------- readers
class _File:
    """One input file, read lazily: its values one per segment, its label and locator as :class:`Column` has."""

    def __init__(self, label: str, name: str, values: Iterator[Any]) -> None:
        self.label = label
        self.values = values
        self.locate: _Locate = lambda i: f"{name}:{i + 1}"


def _column_file(path: str, option: str, fmt: str, names: Sequence[str], field_option: str, conv: Any) -> _File:
    """What ``main._read_column`` reads, lazily."""
    name = display_name(path)
    values: Iterator[Any]
    if fmt == "jsonl":
        values = _jsonl_fields(path, option, [(names, field_option, conv)])
        values = (row[0] for row in values)
    else:
        values = iter_lines(path, option)
    return _File(f"{option} {name}", name, values)


def _jsonl_fields(path: str, option: str, fields: Sequence[tuple[Sequence[str], str, Any]]) -> Iterator[list[Any]]:
    """What ``read_jsonl`` reads, one line at a time."""
    for where, obj in jsonl_objects(path, option):
        row = []
        for names, field_option, conv in fields:
            key, value = _pick(obj, names, where, field_option)
            row.append(conv(value, where, key) if conv is not None else value)
        yield row


def _rows(args: argparse.Namespace, command: Any) -> tuple[_File, list[_File], _File | None, Iterator[tuple[Any, ...]]]:
    """The predictions file, the reference files, the sources file (or ``None``) and an iterator of their rows
    ``(prediction, reference per file..., source?)``, which raises the whole-file readers' errors."""

    pred_names = [args.pred_field] if args.pred_field else [PRED_FIELD]
    ref_names = [args.ref_field] if args.ref_field else list(REF_FIELDS)
    src_names = [args.src_field] if getattr(args, "src_field", None) else [SRC_FIELD]
    fmt = _format_of(args.pred, args.format)
    uses_sources = command.uses_sources
    src_arg = getattr(args, "src", None)
    src_in_pred = uses_sources and not src_arg and fmt == "jsonl"
    if uses_sources and not src_arg and not src_in_pred:
        raise CLIInputError(f"{command.name} needs sources: give --src FILE (one source per line)")
    if args.ref:
        pred = _column_file(args.pred, command.input_option, fmt, pred_names, "--pred-field", check_text)
        refs = [
            _column_file(r, "--ref", _format_of(r, args.format), ref_names, "--ref-field", check_references)
            for r in args.ref
        ]
        if src_in_pred:  # a second reader of the --pred file, for its sources
            src_values = (
                row[0] for row in _jsonl_fields(args.pred, "--pred", [(src_names, "--src-field", check_text)])
            )
    else:  # JSON Lines holding both; its sources too, from the same lines
        name = display_name(args.pred)
        fields = [(pred_names, "--pred-field", check_text), (ref_names, "--ref-field", check_references)]
        if src_in_pred:
            fields.append((src_names, "--src-field", check_text))
        # one reader, its rows shared (read in step, so tee holds one row at a time)
        copies = itertools.tee(_jsonl_fields(args.pred, "--pred", fields), len(fields))
        pred = _File(f"--pred {name}", name, (row[0] for row in copies[0]))
        refs = [_File(f"--pred {name}", name, (row[1] for row in copies[1]))]
        if src_in_pred:
            src_values = (row[2] for row in copies[2])
    src: _File | None = None
    if src_arg:
        src = _column_file(src_arg, "--src", _format_of(src_arg, args.format), src_names, "--src-field", check_text)
    elif src_in_pred:
        name = display_name(args.pred)
        src = _File(f"--pred {name}", name, src_values)
    return pred, refs, src, _zip(args, pred, refs, src)


def _zip(args: argparse.Namespace, pred: _File, refs: list[_File], src: _File | None) -> Iterator[tuple[Any, ...]]:
    """The rows of the files; at the end, the whole-file readers' length errors (with every file's count)."""
    files = [pred, *refs, *([src] if src is not None else [])]
    sentinel = object()
    n = 0
    while True:
        row = tuple(next(f.values, sentinel) for f in files)
        ended = [v is sentinel for v in row]
        if all(ended):
            return
        if any(ended):
            counts = [n + (0 if e else 1 + sum(1 for _ in f.values)) for e, f in zip(ended, files, strict=True)]
            for f, c in zip(refs, counts[1 : 1 + len(refs)], strict=True):
                if c != counts[0]:
                    raise CLIInputError(f"{pred.label} has {counts[0]} lines but {f.label} has {c}")
            if src is not None:
                raise CLIInputError(f"--pred {args.pred} has {counts[0]} lines but {src.label} has {counts[-1]}")
        yield row
        n += 1


# ---------------------------------------------------------------------------------------------- the run
def stream_run(args: argparse.Namespace, command: Any, config: Any, segments: bool) -> Outcome:
    """The outcome of ``command`` on the files of ``args``, read and scored chunk by chunk (see the module)."""
    pred, refs, src, rows = _rows(args, command)
    single = command.single_reference
    if single and len(refs) > 1:
        raise CLIInputError(
            f"{command.name} takes exactly one reference per segment, but {len(refs)} --ref files were given"
        )
    where: dict[str, _Locate | None] = {
        "predictions": pred.locate,
        "references": refs[0].locate if len(refs) == 1 else None,
    }
    family = command.metric()
    cfg = command.family_config(config)
    keep = command.keeps_batch(config, segments)
    total: Any = None  # the exact running total, from the second chunk on (an input of one chunk is one call)
    batches: list[Any] = []
    said: set[str] = set()
    offset = 0
    n_refs = len(refs)
    while True:
        chunk = list(itertools.islice(rows, CHUNK))
        if offset == 0 and not chunk:
            raise CLIInputError(f"{pred.label} is empty: there is nothing to score")
        predictions = [row[0] for row in chunk]
        references = _combine(chunk, n_refs, refs[0], single, command.name, offset)
        sources = [row[1 + n_refs] for row in chunk] if src is not None else None
        extra = {} if sources is None else {"sources": sources}
        if offset == 0 and len(chunk) < CHUNK:  # all of it in one chunk: the one call it always was
            try:
                return command.compute(predictions, references, config, segments, **extra)  # type: ignore[no-any-return]
            except InvalidInputError as err:
                raise InvalidInputError(relocate(str(err), where)) from None
        if not chunk:
            break
        if total is None:  # numpy and the exact sums: only for an input of more than one chunk
            from ..evaluate.runner import _add_exact, _exact_zero, _settle

            total = _exact_zero(family, cfg)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                batch = family.batch_stats(predictions, references, cfg, **extra)
            except InvalidInputError as err:
                raise InvalidInputError(_relocated(str(err), where, offset)) from None
        _warn_once(caught, where, offset, said)
        total = _add_exact(total, batch.exact_total())
        if keep:
            batches.append(batch)
        offset += len(chunk)
        if len(chunk) < CHUNK:
            break
    from ..stats import StatsBatch

    batch = StatsBatch.concat(batches) if keep else None
    return command.compute_stats(_settle(total).rounded(), batch, config, segments)  # type: ignore[no-any-return]


def _combine(
    chunk: list[tuple[Any, ...]], n_refs: int, first: _File, single: bool, name: str, offset: int
) -> list[Any]:
    """``main._combine`` on a chunk's rows: per-segment lists of references (a string is one reference)."""
    out = []
    for k, row in enumerate(chunk):
        combined = [r for part in row[1 : 1 + n_refs] for r in ([part] if isinstance(part, str) else part)]
        if single and len(combined) > 1:
            raise CLIInputError(
                f"{first.locate(offset + k)}: {len(combined)} references, but {name} takes exactly one per segment"
            )
        out.append(combined)
    return out


def _relocated(message: str, where: dict[str, _Locate | None], offset: int) -> str:
    """:func:`relocate` for a chunk starting at ``offset``; with no locator, the indices shifted all the same."""
    m = re.match(_INDEX, message)
    if m is not None and where.get(m.group(1)) is not None:
        return relocate(message, where, offset)
    return re.sub(_INDEX, lambda x: f"{x.group(1)}[{offset + int(x.group(2))}]", message)


def _warn_once(
    caught: list[warnings.WarningMessage], where: dict[str, _Locate | None], offset: int, said: set[str]
) -> None:
    """Raise a chunk's warnings again, their segment indices made the whole input's; a warning that an earlier
    chunk raised already (the same words, other segments or counts) is not repeated."""
    for w in caught:
        text = _relocated(str(w.message), where, offset)
        kind = re.sub(r"\[\d+\]|'[^']*'|\d+", "#", text)
        if kind in said:
            continue
        said.add(kind)
        if w.category is UserWarning:
            warn(text)
        else:
            warnings.warn(text, w.category, stacklevel=2)
