"""``nlgmetrics evaluate``: many systems × many metrics in one run.

``nlgmetrics evaluate --ref ref.txt --sys A=a.txt --sys B=b.txt --metric bleu --metric chrf --baseline A``
prints a table (systems × metrics, ± half the bootstrap interval, paired p-values against the baseline),
``--json`` prints the whole result as JSON, ``--output FILE`` writes it, and ``--report out.html`` writes a
self-contained HTML report. ``--config run.toml`` (or ``.yaml``) gives the same settings in a file; flags win.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import Any

from ..errors import InvalidInputError
from .command import Command
from .io import add_references_option

__all__ = ["EvaluateCommand"]


def _system(value: str) -> tuple[str, str]:
    name, sep, path = value.partition("=")
    if sep and name and not os.path.exists(value):
        return name, path
    base = os.path.basename(value)
    return (base.rsplit(".", 1)[0] if "." in base else base), value


def _command_line(args: argparse.Namespace) -> str:
    """The command line as typed (for the report's provenance block)."""
    import shlex

    return shlex.join(["nlgmetrics", *getattr(args, "argv", sys.argv[1:])])


@dataclasses.dataclass(frozen=True)
class EvaluateCommand(Command):
    """The ``evaluate`` subcommand: it has its own arguments and its own output."""

    standalone: bool = True
    #: the end of ``evaluate --help`` (the other subcommands' input notes name options evaluate does not have)
    epilog: str = (
        "input: plain text has one segment per line (UTF-8; empty lines are empty segments, never skipped); files "
        "ending in .jsonl are JSON Lines, whose fields --pred-field, --ref-field and --src-field pick (a reference "
        "may be a list of strings). Give --ref several times for several references per segment, --sys once per "
        "system. Exit status 2 on bad input."
    )

    def add_all_arguments(self, parser: argparse.ArgumentParser) -> None:
        # the flags of the run settings, their help and types are declared by RunConfig (imported here: the
        # registry imports this module for every command)
        from ..evaluate.config import RunConfig

        inp = parser.add_argument_group("input")
        add_references_option(inp, "references (text or JSON Lines); repeat for several references per segment")
        inp.add_argument(
            "--sys",
            action="append",
            default=[],
            metavar="NAME=FILE",
            help="a system output; repeat for each system (NAME defaults to the file name)",
        )
        inp.add_argument(
            "--src", metavar="FILE", help="sources, one per segment (for the metrics that use them, e.g. SARI)"
        )
        RunConfig.add_arguments(inp, "input")
        inp.add_argument("--config", metavar="FILE", help="a run configuration (.toml, .yaml); flags win over it")
        run = parser.add_argument_group("run")
        run.add_argument(
            "--metric",
            action="append",
            default=[],
            metavar="SPEC",
            help="a metric, e.g. bleu, 'chrf:word_order=2', 'bleu:label=bleu-char,tokenize=char'; repeat for several",
        )
        RunConfig.add_arguments(run, "run")
        out = parser.add_argument_group("output")
        out.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
        RunConfig.add_arguments(out, "output")
        out.add_argument("--quiet", action="store_true", help="no progress bar")

    def run(self, args: argparse.Namespace) -> int:
        from .._files import STDIN, check_output, utf8_safe, write_output_file, write_text
        from ..evaluate import evaluate, load_config, open_source
        from ..evaluate.config import RunConfig
        from ..evaluate.report import write_report

        conf: dict[str, Any] = load_config(args.config) if args.config else {}
        references = args.ref or conf.get("references")
        if not references:
            raise InvalidInputError("no references: pass --ref FILE (or 'references' in --config)")
        references = references if isinstance(references, list) else [references]
        systems: dict[str, Any] = dict(conf.get("systems", {}))
        from_flags: set[str] = set()
        for value in args.sys:
            name, path = _system(value)
            if name in from_flags:
                raise InvalidInputError(
                    f"two --sys are named {name!r}: give each system its own name (--sys NAME=FILE)"
                )
            from_flags.add(name)
            systems[name] = path  # a flag wins over the config's system of the same name
        metrics = args.metric or conf.get("metrics") or []

        src = args.src or conf.get("sources")
        run = RunConfig.from_args(args, conf, progress=not args.quiet and sys.stderr.isatty())
        run = dataclasses.replace(run, keep_segments=bool(run.report))  # the report shows per-segment scores
        report, output = run.report, run.output
        ref_field, pred_field = run.ref_field, run.pred_field
        # every path is checked before any work: a typo fails now, not after the scoring; an output is never one
        # of the inputs (a config file may name any path for its outputs)
        named = [
            *(("--ref", r) for r in references),
            *((f"--sys {n}", p) for n, p in systems.items()),
            *([("--src", src)] if src else []),
            *([("--config", args.config)] if args.config else []),
        ]
        if output:
            check_output(output, "--output", named)
        if report:
            check_output(report, "--report", named, [output] if output else [])
        if output and str(output).lower().endswith(".parquet"):
            from ..tables import _pyarrow

            _pyarrow()  # without pyarrow: the extra to install, now rather than after the scoring
        inputs = [*references, *systems.values(), *([src] if src else [])]
        if sum(1 for p in inputs if p == STDIN) > 1:
            raise InvalidInputError("standard input ('-') can be read only once: give it to one --ref or --sys")
        # each input is opened once: a pipe or standard input is copied, so the report can read it again
        ref_sources = [open_source(r, field=ref_field, allow_list=True, option="--ref") for r in references]
        sys_sources = {
            name: open_source(path, field=pred_field, option=f"--sys {name}") for name, path in systems.items()
        }
        src_source = None
        if src:
            default = "source" if str(src).endswith(".jsonl") else None
            src_source = open_source(src, field=run.src_field or default, option="--src")
        ev = evaluate(ref_sources, sys_sources, metrics, **run.keywords(), sources=src_source)
        text = ev.to_json()
        from ..tables import is_table_path, write_table

        if output and is_table_path(output):
            write_output_file(output, "--output", lambda path: write_table(ev, path))
        elif output:
            write_text(output, text + "\n", "--output")
        if report:
            write_report(
                ev,
                report,
                ref_sources,
                sys_sources,
                worst=run.worst,
                ref_field=ref_field,
                pred_field=pred_field,
                command=_command_line(args),
            )
        sys.stdout.write(utf8_safe(text + "\n" if args.json else ev.table() + "\n"))
        return 0
