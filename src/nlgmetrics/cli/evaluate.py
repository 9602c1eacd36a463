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

__all__ = ["EvaluateCommand"]


def _system(value: str) -> tuple[str, str]:
    name, sep, path = value.partition("=")
    if sep and name and not os.path.exists(value):
        return name, path
    base = os.path.basename(value)
    return (base.rsplit(".", 1)[0] if "." in base else base), value


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {value}")
    return value


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
        inp = parser.add_argument_group("input")
        inp.add_argument(
            "--ref",
            action="extend",
            nargs="+",
            default=[],
            metavar="FILE",
            help="references (text or JSON Lines); repeat for several references per segment",
        )
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
        inp.add_argument("--src-field", metavar="NAME", help="JSON Lines field of the sources (default: source)")
        inp.add_argument("--ref-field", metavar="NAME", help="JSON Lines field of the references")
        inp.add_argument("--pred-field", metavar="NAME", help="JSON Lines field of the predictions")
        inp.add_argument("--config", metavar="FILE", help="a run configuration (.toml, .yaml); flags win over it")
        run = parser.add_argument_group("run")
        run.add_argument(
            "--metric",
            action="append",
            default=[],
            metavar="SPEC",
            help="a metric, e.g. bleu, 'chrf:word_order=2', 'bleu:label=bleu-char,tokenize=char'; repeat for several",
        )
        run.add_argument("--baseline", metavar="NAME", help="system the others are tested against")
        run.add_argument("--bootstrap", type=int, metavar="N", help="resamples for confidence intervals (0: none)")
        run.add_argument("--confidence", type=float, metavar="LEVEL", help="confidence level (default: 0.95)")
        run.add_argument("--test", choices=("bs", "ar", "none"), help="paired test against the baseline")
        run.add_argument("--paired-samples", type=int, metavar="N", help="resamples of the paired test")
        run.add_argument("--seed", type=int, metavar="N", help="seed of all resampling (default: 12345)")
        run.add_argument("--jobs", type=int, metavar="N", help="worker processes (the result does not depend on it)")
        run.add_argument("--chunk-size", type=int, metavar="N", help="segments per unit of work (default: 1000)")
        run.add_argument(
            "--cache",
            metavar="DIR",
            help="keep per-segment statistics here; a re-run reuses those whose signature and inputs are unchanged",
        )
        run.add_argument(
            "--cache-max-size",
            metavar="SIZE",
            help="size budget of the --cache directory, e.g. 500M or 20G (default: 8G); least recently used "
            "entries are removed beyond it",
        )
        out = parser.add_argument_group("output")
        out.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
        out.add_argument(
            "--output",
            metavar="FILE",
            help="also write the result to FILE: a table (one row per system and metric) for .parquet, .csv or "
            ".jsonl, the JSON result otherwise",
        )
        out.add_argument("--report", metavar="FILE", help="write a self-contained HTML report")
        out.add_argument(
            "--worst", type=_non_negative, metavar="K", help="worst segments per system in the report (default: 5)"
        )
        out.add_argument("--quiet", action="store_true", help="no progress bar")

    def run(self, args: argparse.Namespace) -> int:
        from .._files import STDIN, check_output, utf8_safe, write_output_file, write_text
        from ..evaluate import evaluate, load_config, open_source
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

        def pick(flag: Any, key: str, default: Any) -> Any:
            return flag if flag is not None else conf.get(key, default)

        test = pick(args.test, "test", "bs")
        report = args.report or conf.get("report")
        output = args.output or conf.get("output")
        worst = pick(args.worst, "worst", 5)
        ref_field = pick(args.ref_field, "ref_field", None)
        pred_field = pick(args.pred_field, "pred_field", None)
        src = pick(args.src, "sources", None)
        src_field = pick(args.src_field, "src_field", None)
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
            src_source = open_source(src, field=src_field or default, option="--src")
        ev = evaluate(
            ref_sources,
            sys_sources,
            metrics,
            baseline=pick(args.baseline, "baseline", None),
            bootstrap=pick(args.bootstrap, "bootstrap", 1000),
            confidence=pick(args.confidence, "confidence", 0.95),
            test=None if test == "none" else test,
            paired_samples=pick(args.paired_samples, "paired_samples", None),
            seed=pick(args.seed, "seed", 12345),
            jobs=pick(args.jobs, "jobs", 1),
            chunk_size=pick(args.chunk_size, "chunk_size", 1000),
            ref_field=ref_field,
            pred_field=pred_field,
            keep_segments=bool(report),
            cache_dir=pick(args.cache, "cache", None),
            cache_max_size=pick(args.cache_max_size, "cache_max_size", None),
            sources=src_source,
            src_field=src_field,
            progress=not args.quiet and sys.stderr.isatty(),
        )
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
                worst=worst,
                ref_field=ref_field,
                pred_field=pred_field,
                command=_command_line(args),
            )
        sys.stdout.write(utf8_safe(text + "\n" if args.json else ev.table() + "\n"))
        return 0
