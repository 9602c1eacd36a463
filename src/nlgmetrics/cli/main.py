"""``nlgmetrics <metric> --pred FILE --ref FILE [--ref FILE ...] [options] [--json] [--per-segment]``.

The command line only parses arguments, reads files, builds the config through the metric's family (the same
``make_config`` the Python API uses) and prints. Each subcommand is one declaration in
:mod:`nlgmetrics.cli.registry`.

Exit status: 0 on success, 2 on any user error (bad arguments, unreadable or malformed input, an unknown preset,
any :class:`~nlgmetrics.errors.NlgMetricsError`), with a one-line ``nlgmetrics: error: ...`` message on stderr.

>>> main(["nls", "--help"])  # doctest: +ELLIPSIS
usage: nlgmetrics nls...
0
"""

from __future__ import annotations

import argparse
import os
import sys
import typing
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .._files import check_output, write_output_file
from .._inputs import relocate
from .._version import __version__
from ..errors import InvalidInputError, MissingDependencyError, NlgMetricsError
from .io import (
    DOCVQA_FIELDS,
    PRED_FIELD,
    REF_FIELDS,
    SRC_FIELD,
    CLIInputError,
    Column,
    add_references_option,
    check_references,
    check_text,
    input_options,
    looks_like_docvqa,
    read_docvqa,
    read_jsonl,
    read_lines,
    read_text,
)
from .output import format_human, format_json
from .registry import COMMANDS, Command
from .stream import stream_run, streamable

__all__ = ["build_parser", "main"]

FORMATS = ("auto", "text", "jsonl", "parquet", "csv", "lm-eval", "lighteval", "docvqa")

_EPILOG = """\
input: plain text has one segment per line (UTF-8; empty lines are empty segments, never skipped). Files ending
in .jsonl (or --format jsonl) are JSON Lines: --pred-field and --ref-field pick the fields (defaults: "prediction";
"references" or "reference"), and a reference may be a list of strings. Give --ref several times for several
references per segment. Tables (.parquet, .csv, .tsv) are read the same way, by column; lm-eval samples_*.jsonl and
lighteval details_*.parquet files are recognised by their content. Exit status 2 on bad input.
"""


# ------------------------------------------------------------------------------------------------------ parser
class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors in the same one-line shape as every other error (still status 2)."""

    help_hint = ""  # the command whose --help the message points to; default: this parser's own

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"nlgmetrics: error: {message} (see '{self.help_hint or self.prog} --help')\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser. With ``only``, just that subcommand gets its options (and imports its metric);
    the others are listed by name, so ``nlgmetrics --help`` imports no metric at all."""
    parser = _Parser(
        prog="nlgmetrics",
        description="Score generated text against references, with the numbers of the reference tools.",
        epilog="Run 'nlgmetrics <metric> --help' for a metric's options.",
        allow_abbrev=False,  # `--subst 2` must not silently mean --substitution-cost 2
    )
    parser.help_hint = f"nlgmetrics {only}" if only else ""
    parser.add_argument("--version", action="version", version=f"nlgmetrics {__version__}")
    sub = parser.add_subparsers(dest="metric", metavar="<metric>", title="metrics", required=True)
    for name, command in COMMANDS.items():
        sp = sub.add_parser(
            name,
            help=command.help,
            description=command.help,
            epilog=getattr(command, "epilog", None) or _EPILOG,
            allow_abbrev=False,
        )
        if only is None or only == name:
            if getattr(command, "standalone", False):  # a subcommand with its own arguments (evaluate)
                command.add_all_arguments(sp)  # type: ignore[attr-defined]
                sp.set_defaults(command=command)
            else:
                _add_arguments(sp, command)
    return parser


def _add_arguments(parser: argparse.ArgumentParser, command: Command) -> None:
    inp = parser.add_argument_group("input")
    aliases: dict[str, tuple[str, ...]] = getattr(command, "flag_aliases", {})
    inp.add_argument(
        "--pred",
        *aliases.get("pred", ()),
        required=True,
        metavar="FILE",
        help="predictions: one per line, or JSON ('-': stdin)",
    )
    add_references_option(
        inp,
        "references; repeat for several references per segment (optional when --pred holds them)",
        aliases.get("ref", ()),
    )
    if command.uses_sources:
        inp.add_argument(
            "--src",
            metavar="FILE",
            help="sources: the input each prediction was made from, one per line (or --src-field in JSON Lines)",
        )
        inp.add_argument("--src-field", metavar="NAME", help=f"JSON field of the source (default: {SRC_FIELD})")
    formats = FORMATS if command.docvqa else FORMATS[:-1]
    inp.add_argument(
        "--format",
        choices=formats,
        default="auto",
        help="input format (default: by suffix: .jsonl is JSON Lines, anything else plain text"
        + ("; a JSON list given as --pred alone is the DocVQA layout)" if command.docvqa else ")"),
    )
    inp.add_argument("--pred-field", metavar="NAME", help=f"JSON field of the prediction (default: {PRED_FIELD})")
    inp.add_argument(
        "--ref-field", metavar="NAME", help=f"JSON field of the references (default: {' or '.join(REF_FIELDS)})"
    )
    from .command import add_metric_options

    add_metric_options(command, parser)
    out = parser.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    out.add_argument("--per-segment", action="store_true", help="also print the score of every segment")
    from .tables import add_output_argument

    add_output_argument(parser, out)
    parser.set_defaults(command=command)


def _selected(argv: Sequence[str]) -> str:
    """The subcommand named on the command line ('' if none): the first argument that is not an option."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else ""
    return ""


# ------------------------------------------------------------------------------------------------------ inputs
def _format_of(path: str, chosen: str) -> str:
    if chosen != "auto":
        return chosen
    return "jsonl" if path.lower().endswith(".jsonl") else "text"


def _read_column(path: str, option: str, fmt: str, names: Sequence[str], field_option: str, conv: Any) -> Column:
    if fmt == "jsonl":
        return read_jsonl(path, option, [(names, field_option)], [conv])[0]
    return read_lines(path, option)


def load_sources(args: argparse.Namespace, command: Command, n: int) -> list[str] | None:
    """The sources of a command that has them: from ``--src``, or from the ``--src-field`` of a JSON Lines
    ``--pred`` file."""
    if not command.uses_sources:
        return None
    from .tables import table_sources

    table = table_sources(args, n)  # from a table's column
    if table is not None:
        return table
    names = [args.src_field] if args.src_field else [SRC_FIELD]
    if args.src:
        column = _read_column(args.src, "--src", _format_of(args.src, args.format), names, "--src-field", check_text)
    elif _format_of(args.pred, args.format) == "jsonl":
        column = read_jsonl(args.pred, "--pred", [(names, "--src-field")], [check_text])[0]
    else:
        raise CLIInputError(f"{command.name} needs sources: give --src FILE (one source per line)")
    if len(column) != n:
        raise CLIInputError(f"--pred {args.pred} has {n} lines but {column.label} has {len(column)}")
    return list(column.values)


def load_inputs(args: argparse.Namespace, command: Command) -> tuple[list[Any], list[Any]]:
    """Predictions and per-segment references, read from the files named on the command line."""
    pred, refs = load_columns(args, command)
    return pred.values, _combine(command, refs)


def load_columns(args: argparse.Namespace, command: Command) -> tuple[Column, list[Column]]:
    """The predictions column and the reference columns (one per file), each able to name segment ``i``'s file
    and line."""
    pred_conv = None if command.structured else check_text
    ref_conv = None if command.structured else check_references
    pred_names = [args.pred_field] if args.pred_field else [PRED_FIELD]
    ref_names = [args.ref_field] if args.ref_field else list(REF_FIELDS)
    fmt = _format_of(args.pred, args.format)
    from .tables import table_inputs

    table = table_inputs(  # Parquet, CSV, lm-eval samples, lighteval details
        args, lambda r: _read_column(r, "--ref", _format_of(r, args.format), ref_names, "--ref-field", ref_conv)
    )
    if table is not None:
        return table
    pred_option = command.input_option

    if command.coco_json:
        from .coco import coco_columns

        coco = coco_columns(args)  # COCO results and annotations JSON: read as such, or refused; never as text
        if coco is not None:
            return coco
    if args.ref:
        if fmt == "docvqa":
            raise CLIInputError("the DocVQA layout holds the predictions and the references; drop --ref")
        pred = _read_column(args.pred, pred_option, fmt, pred_names, "--pred-field", pred_conv)

        refs = [
            _read_column(r, "--ref", _format_of(r, args.format), ref_names, "--ref-field", ref_conv) for r in args.ref
        ]
    elif fmt == "jsonl":
        pred, ref = read_jsonl(
            args.pred, "--pred", [(pred_names, "--pred-field"), (ref_names, "--ref-field")], [pred_conv, ref_conv]
        )
        refs = [ref]
    else:
        text = read_text(args.pred, "--pred") if command.docvqa else ""
        if not (fmt == "docvqa" or (command.docvqa and looks_like_docvqa(text))):
            also = " or a DocVQA JSON list" if command.docvqa else ""
            raise CLIInputError(
                f"--ref is required with --pred {args.pred}: only a JSON Lines file{also} holds both the predictions "
                "and the references"
            )
        pred, ref = read_docvqa(
            args.pred, "--pred", text, args.pred_field or DOCVQA_FIELDS[0], args.ref_field or DOCVQA_FIELDS[1]
        )
        refs = [ref]

    n = len(pred)
    for column in refs:
        if len(column) != n:
            raise CLIInputError(f"{pred.label} has {n} lines but {column.label} has {len(column)}")
    if n == 0:
        raise CLIInputError(f"{pred.label} is empty: there is nothing to score")
    return pred, refs


def _combine(command: Command, columns: list[Column]) -> list[Any]:
    """Per-segment references from one or more columns (files)."""
    if command.structured:
        # one JSON value per segment; several files are alternatives, which ANLS* spells as a tuple
        if len(columns) == 1:
            return columns[0].values
        return [tuple(values) for values in zip(*(c.values for c in columns), strict=True)]
    per_file = [[[v] if isinstance(v, str) else v for v in c.values] for c in columns]
    combined = [[r for part in parts for r in part] for parts in zip(*per_file, strict=True)]
    if command.single_reference:
        if len(columns) > 1:
            raise CLIInputError(
                f"{command.name} takes exactly one reference per segment, but {len(columns)} --ref files were given"
            )
        for i, r in enumerate(combined):
            if len(r) > 1:
                raise CLIInputError(
                    f"{columns[0].locate(i)}: {len(r)} references, but {command.name} takes exactly one per segment"
                )
    return combined


# ------------------------------------------------------------------------------------------------------ output
# ------------------------------------------------------------------------------------------------------ main
def run(args: argparse.Namespace) -> int:
    command: Command = args.command
    if getattr(command, "standalone", False):
        return int(command.run(args))  # type: ignore[attr-defined]
    options: dict[str, Any] = {}
    for opt in command.all_options():
        value = getattr(args, f"opt_{opt.name}")
        if value is not None:
            options[opt.name] = tuple(value) if isinstance(value, list) else value
    # what this installation lacks comes first: a core install's `bertscore --lang ja` names the extra to install,
    # not a model it could not load anyway
    _check_requirements(command)
    # the config first: a bad option fails before any file is read
    config = command.configure(getattr(args, "preset", None), options)
    output = getattr(args, "table_output", None)
    # before anything is read or scored: a directory, a missing folder or one of the inputs (a command's own
    # --output too: bertscore-plot's PNG)
    for target in (output, getattr(args, "opt_output", None)):
        if target:
            check_output(target, "--output", input_options(args))
    # a command with input files of its own layout (SQuAD's dataset + predictions JSON) reads them itself
    reader = getattr(command, "read_inputs", None)
    loaded = reader(args) if reader is not None else None
    where: dict[str, Callable[[int], str] | None] = {}
    segments = args.per_segment or bool(output)
    if loaded is None and streamable(args, command):
        # plain text or JSON Lines: read and scored chunk by chunk (memory flat in the input's length)
        out = stream_run(args, command, config, segments)
        _write_out(args, command, out, output)
        return 0
    if loaded is not None:
        predictions, references = loaded
    else:
        pred, ref_columns = load_columns(args, command)
        predictions, references = pred.values, _combine(command, ref_columns)
        where = {"predictions": pred.locate, "references": ref_columns[0].locate if len(ref_columns) == 1 else None}
    sources = load_sources(args, command, len(predictions))
    extra: dict[str, Any] = {} if sources is None else {"sources": sources}
    if hasattr(predictions, "keywords"):  # an eval log (or inputs with further fields): options and inputs it carries
        from .tables import log_inputs

        config, logged = log_inputs(args, command, options, config, predictions)
        extra.update(logged)
    try:
        out = command.compute(predictions, references, config, segments, **extra)
        if hasattr(predictions, "logged"):
            from .tables import check_against_log

            check_against_log(args, command, predictions, references, config, extra)
    except InvalidInputError as err:
        # the kernel names predictions[i]: name the file and the line instead
        raise InvalidInputError(relocate(str(err), where)) from None
    _write_out(args, command, out, output)
    return 0


def _write_out(args: argparse.Namespace, command: Command, out: Any, output: str | None) -> None:
    """``--output``'s table, then the text or JSON on standard output."""
    if output:
        from .tables import write_output

        write_output_file(output, "--output", lambda path: write_output(out, path))
    text = (format_json if args.json else format_human)(command, out, args.per_segment)
    sys.stdout.write(text)
    sys.stdout.flush()


def _check_requirements(command: Command) -> None:
    """Raise :class:`MissingDependencyError` naming the extra when a package the command needs is not installed
    (``Command.requires``: ``(extra, packages)``)."""
    requires = getattr(command, "requires", None)
    if not requires:
        return
    import importlib.util

    extra, packages = requires
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    if missing:
        raise MissingDependencyError(
            f"{command.name} ({', '.join(missing)} not installed)", f"pip install 'nlgmetrics[{extra}]'"
        )


def _error(message: str) -> int:
    sys.stderr.write(f"nlgmetrics: error: {' '.join(message.splitlines())}\n")
    return 2


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: typing.TextIO | None = None,
    line: str | None = None,
) -> None:
    """A warning as one line, ``nlgmetrics: warning: ...``: on the command line there is no caller's line to
    point at (Python would name the console script and print ``sys.exit(main())``)."""
    kind = "" if category is UserWarning else f"{category.__name__}: "
    text = " ".join(str(message).split("\n"))
    (file or sys.stderr).write(f"nlgmetrics: warning: {kind}{text}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _main(argv)


def _main(argv: list[str]) -> int:
    try:
        parser = build_parser(only=_selected(argv))
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # argparse: --help, --version, or a usage error (status 2)
            return e.code if isinstance(e.code, int) else (0 if e.code is None else _error(str(e.code)))
        args.argv = argv  # the command line as typed (evaluate's report records it)
        return run(args)
    except (CLIInputError, NlgMetricsError) as e:
        return _error(str(e))
    except BrokenPipeError:  # e.g. `nlgmetrics ... --per-segment | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
