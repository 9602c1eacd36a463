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


def _command_line(args: argparse.Namespace) -> str:
    """The command line as typed (for the report's provenance block)."""
    import shlex

    return shlex.join(["nlgmetrics", *getattr(args, "argv", sys.argv[1:])])


@dataclasses.dataclass(frozen=True)
class EvaluateCommand(Command):
    """The ``evaluate`` subcommand: it has its own arguments and its own output."""

    standalone: bool = True

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
        out = parser.add_argument_group("output")
        out.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
        out.add_argument(
            "--output",
            metavar="FILE",
            help="also write the result to FILE: a table (one row per system and metric) for .parquet, .csv or "
            ".jsonl, the JSON result otherwise",
        )
        out.add_argument("--report", metavar="FILE", help="write a self-contained HTML report")
        out.add_argument("--worst", type=int, default=5, metavar="K", help="worst segments per system in the report")
        out.add_argument("--quiet", action="store_true", help="no progress bar")

    def run(self, args: argparse.Namespace) -> int:
        from ..evaluate import evaluate, load_config
        from ..evaluate.report import write_report

        conf: dict[str, Any] = load_config(args.config) if args.config else {}
        references = args.ref or conf.get("references")
        if not references:
            raise InvalidInputError("no references: pass --ref FILE (or 'references' in --config)")
        systems: dict[str, Any] = dict(conf.get("systems", {}))
        for value in args.sys:
            name, path = _system(value)
            if name in systems and args.sys.count(value) == 1 and systems[name] != path:
                raise InvalidInputError(f"two systems are named {name!r}: give each --sys a NAME=FILE")
            systems[name] = path
        metrics = args.metric or conf.get("metrics") or []

        def pick(flag: Any, key: str, default: Any) -> Any:
            return flag if flag is not None else conf.get(key, default)

        test = pick(args.test, "test", "bs")
        report = args.report or conf.get("report")
        ref_field = pick(args.ref_field, "ref_field", None)
        pred_field = pick(args.pred_field, "pred_field", None)
        ev = evaluate(
            references if isinstance(references, list) else [references],
            systems,
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
            sources=pick(args.src, "sources", None),
            src_field=pick(args.src_field, "src_field", None),
            progress=not args.quiet and sys.stderr.isatty(),
        )
        text = ev.to_json()
        from ..tables import is_table_path, write_table

        if args.output and is_table_path(args.output):
            write_table(ev, args.output)
        elif args.output:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        if report:
            refs = references if isinstance(references, list) else [references]
            write_report(
                ev,
                report,
                refs,
                systems,
                worst=args.worst,
                ref_field=ref_field,
                pred_field=pred_field,
                command=_command_line(args),
            )
        sys.stdout.write(text + "\n" if args.json else ev.table() + "\n")
        return 0
