"""The command line's tables: ``--pred`` from Parquet, CSV/TSV, lm-eval samples or lighteval details, and
``--output FILE.parquet|.csv|.jsonl`` (per-segment rows plus the signature). The readers and writers themselves
live in :mod:`nlgmetrics.tables`; this module only maps the command line's options onto them.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from ..tables import (
    PREDICTION_COLUMNS,
    REFERENCE_COLUMNS,
    SOURCE_COLUMNS,
    TABLE_SUFFIXES,
    Inputs,
    _names,
    _open_table,
    _reference,
    _text,
    corpus_metadata,
    read_lighteval,
    read_lm_eval,
    segment_columns,
    sniff,
    write_columns,
)
from .io import CLIInputError, Column

__all__ = ["TABLE_FORMATS", "add_output_argument", "table_format", "table_inputs", "table_sources", "write_output"]

#: The ``--format`` values of tables and eval logs.
TABLE_FORMATS = ("parquet", "csv", "lm-eval", "lighteval")


def add_output_argument(parser: argparse.ArgumentParser, group: argparse._ArgumentGroup) -> None:
    """``--output`` and ``--lm-eval-filter``, unless the command has an ``--output`` of its own (a plot)."""
    if "--output" in parser._option_string_actions:
        return
    group.add_argument(
        "--output",
        dest="table_output",
        metavar="FILE",
        type=output_path,
        help="also write one row per segment (and the signature) to FILE: .parquet, .csv or .jsonl",
    )
    group.add_argument(
        "--lm-eval-filter",
        metavar="NAME",
        help="with lm-eval samples holding several filters (e.g. strict-match, flexible-extract): the one to score",
    )
    group.add_argument(
        "--no-logged-check",
        dest="logged_check",
        action="store_false",
        help="score an eval log as asked even where the numbers differ from those the harness logged "
        "(by default that is an error naming the documents)",
    )


def output_path(path: str) -> str:
    """``--output``'s value, checked before anything is read or scored."""
    if os.path.splitext(path)[1].lower() not in TABLE_SUFFIXES:
        raise argparse.ArgumentTypeError(f"{path!r}: the file name must end in {', '.join(TABLE_SUFFIXES)}")
    return path


def table_format(path: str, chosen: str, pred_field: str | None = None) -> str | None:
    """The table format of an input file, or ``None`` for text and plain JSON Lines."""
    if chosen in TABLE_FORMATS:
        return chosen
    if chosen != "auto" or path == "-":
        return None
    suffix = os.path.splitext(path)[1].lower()
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix == ".parquet":
        return (sniff(path) if pred_field is None else None) or "parquet"
    if suffix == ".jsonl" and pred_field is None:
        return sniff(path)
    return None


def _read_log(path: str, fmt: str, args: argparse.Namespace) -> Inputs:
    if fmt == "lm-eval":
        return read_lm_eval(path, filter=getattr(args, "lm_eval_filter", None))
    return read_lighteval(path)


def _table_column(path: str, fmt: str, names: list[str], option: str, field_option: str, reference: bool) -> Column:
    if fmt in ("lm-eval", "lighteval"):
        raise CLIInputError(f"{option} {path}: an eval log is read whole: give it as --pred alone")
    table = _open_table(path)
    col, raw = table.column(names, "references" if reference else "predictions", field_option)
    convert = _reference if reference else _text
    return Column(f"{option} {path}", [convert(v, table, i, col) for i, v in enumerate(raw)], table.locate)


def table_inputs(args: argparse.Namespace, read_other: Callable[[str], Column]) -> tuple[Column, list[Column]] | None:
    """Predictions and the reference columns when ``--pred`` is a table or an eval log; ``None`` otherwise.
    ``read_other`` reads a ``--ref`` that is not a table (text or JSON Lines) the usual way."""
    fmt = table_format(args.pred, args.format, args.pred_field)
    if fmt is None:
        return None
    if fmt in ("lm-eval", "lighteval"):
        if args.ref:
            raise CLIInputError(f"--pred {args.pred} ({fmt}) holds the references too; drop --ref")
        inputs = _read_log(args.pred, fmt, args)
        where = lambda i: f"{args.pred}: row {i}"  # noqa: E731
        return Column(f"--pred {args.pred}", inputs.predictions, where), [
            Column(f"--pred {args.pred}", inputs.references, where)
        ]
    pred_names = _names(args.pred_field, PREDICTION_COLUMNS)
    ref_names = _names(args.ref_field, REFERENCE_COLUMNS)
    pred = _table_column(args.pred, fmt, pred_names, "--pred", "--pred-field", reference=False)
    columns = []
    for ref in args.ref or [args.pred]:
        ref_fmt = table_format(ref, args.format, args.ref_field) if ref != args.pred else fmt
        if ref_fmt is None:  # a text or JSON Lines file of references beside a table of predictions
            column = read_other(ref)
        else:
            option = "--ref" if args.ref else "--pred"
            column = _table_column(ref, ref_fmt, ref_names, option, "--ref-field", reference=True)
        if len(column) != len(pred):
            raise CLIInputError(f"{pred.label} has {len(pred)} rows but {column.label} has {len(column)}")
        columns.append(column)
    if not pred.values:
        raise CLIInputError(f"{pred.label} is empty: there is nothing to score")
    return pred, columns


def log_inputs(
    args: argparse.Namespace, command: Any, options: dict[str, Any], config: Any, predictions: Any
) -> tuple[Any, dict[str, Any]]:
    """The config and the further inputs for predictions read from an eval log: the options the log carries (the
    lm-eval filter the answers went through) join those of the command line, which win; the log's per-segment
    inputs (a multiple-choice log's choices) go to the metric when it takes them."""
    import dataclasses

    from ..eval_logs import carried_options

    names = [f.name for f in dataclasses.fields(config)] if dataclasses.is_dataclass(config) else []
    carried = carried_options(predictions, names)
    if carried and not carried.keys() <= options.keys():
        config = command.configure(getattr(args, "preset", None), {**carried, **options})
    takes = set(getattr(command.metric(), "inputs", ()))
    keywords = {k: v for k, v in getattr(predictions, "keywords", {}).items() if k in takes}
    return config, keywords


def check_against_log(
    args: argparse.Namespace, command: Any, predictions: Any, references: Any, config: Any, inputs: dict[str, Any]
) -> None:
    """Refuse a score that disagrees with what the harness logged for the same documents (an lm-eval gsm8k log
    scored without its metric settings gives 0 where lm-eval logged 0.8), naming the documents and the preset
    that reproduces the harness; ``--no-logged-check`` lets it through."""
    from ..eval_logs import LOGGED_FIELDS, harness_hint, logged_disagreement

    family = command.metric()
    name = getattr(family, "name", "")
    if not getattr(args, "logged_check", True) or name not in LOGGED_FIELDS:
        return
    kwargs = {k: v for k, v in inputs.items() if k != "sources"}
    batch = family.batch_stats(predictions, references, config, **kwargs)
    message = logged_disagreement(name, batch.columns, predictions)
    if message is not None:
        raise CLIInputError(
            f"--pred {args.pred}: {message}. {harness_hint(predictions, references)}; or pass --no-logged-check "
            "to score them as asked"
        )


def table_sources(args: argparse.Namespace, n: int) -> list[str] | None:
    """The sources from the ``--src-field`` column (default ``source``) of a table ``--pred``, when there is no
    ``--src``; ``None`` otherwise."""
    if args.src:
        fmt = table_format(args.src, args.format, args.src_field)
        path = args.src
    else:
        fmt = table_format(args.pred, args.format, args.pred_field)
        path = args.pred
    if fmt is None:
        return None
    names = _names(args.src_field, SOURCE_COLUMNS)
    table = _open_table(path)
    col, raw = table.column(names, "sources", "--src-field")
    if len(raw) != n:
        raise CLIInputError(f"--pred {args.pred} has {n} rows but {path} has {len(raw)} sources")
    return [_text(v, table, i, col) for i, v in enumerate(raw)]


def write_output(out: Any, path: str) -> None:
    """Write a command's per-segment scores, with the signature, to ``path`` (.parquet, .csv or .jsonl)."""
    if os.path.splitext(path)[1].lower() not in TABLE_SUFFIXES:
        raise CLIInputError(f"--output {path}: the file name must end in {', '.join(TABLE_SUFFIXES)}")
    segments = out.segments
    if segments is None and isinstance(out.score, (list, tuple)):
        segments = out.score
    if segments is None:
        raise CLIInputError("--output: this command gives no per-segment scores to write")
    meta = corpus_metadata({"score": out.score, "signature": out.signature, **out.diagnostics})
    columns = segment_columns(segments)
    columns.setdefault("signature", [out.signature] * len(columns["segment"]))
    write_columns(columns, meta, path)
