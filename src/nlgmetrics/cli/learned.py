"""The learned-metric subcommands: ``comet``, ``cometkiwi``, ``xcomet`` and ``metricx``.

``nlgmetrics comet --src S --pred P --ref R --model PATH`` prints what unbabel-comet's ``comet-score -s S -t P -r R
--model PATH`` prints: one line per segment, ``P\\tSegment i\\tscore: 0.8412``, then ``P\\tscore: 0.8392`` (four
decimals); ``--only-system`` prints the last line alone, ``--to-json FILE`` writes comet-score's JSON (each
segment's ``src``, ``mt``, ``ref``, ``COMET`` and XCOMET's ``errors``). Lines are read as comet-score reads them
(``readlines()``, each stripped). The signature goes to standard error; ``--json`` prints one JSON object with
everything instead. Unlike comet-score (which calls ``model.half()``), the model runs in float32 unless
``--dtype`` says otherwise.

``nlgmetrics metricx`` prints the same shape with MetricX's score (lower is better); without ``--ref`` it scores
quality estimation. A JSON Lines ``--pred`` may hold everything (``prediction``, ``reference``, ``source``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from .command import FamilyCommand, add_metric_options
from .io import CLIInputError

__all__ = ["COMETKIWI_COMMAND", "COMET_COMMAND", "METRICX_COMMAND", "XCOMET_COMMAND", "LearnedCommand"]

_PRED_FIELDS = ("prediction", "hypothesis", "mt")
_REF_FIELDS = ("reference", "references", "ref")
_SRC_FIELDS = ("source", "src")


def _read_lines(path: str, option: str) -> list[str]:
    """``open(path).readlines()`` with each line stripped, as comet-score reads its files."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except FileNotFoundError:
        raise CLIInputError(f"{option} {path}: no such file") from None
    except UnicodeDecodeError as err:
        raise CLIInputError(f"{option} {path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise CLIInputError(f"{option} {path}: {err.strerror}") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.strip() for line in lines]


def _field(row: dict[str, Any], names: tuple[str, ...], where: str, *, required: bool) -> str | None:
    for name in names:
        if name in row:
            value = row[name]
            if isinstance(value, list) and len(value) == 1:
                value = value[0]
            if not isinstance(value, str):
                raise CLIInputError(f"{where}: field {name!r} must be a string (one per segment)")
            return value
    if required:
        raise CLIInputError(f"{where}: no field {' or '.join(repr(n) for n in names)}")
    return None


def _read_jsonl(path: str) -> tuple[list[str], list[str] | None, list[str] | None]:
    preds: list[str] = []
    refs: list[str | None] = []
    srcs: list[str | None] = []
    text = Path(path).read_text(encoding="utf-8") if path != "-" else sys.stdin.read()
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"--pred {path}:{n}"
        try:
            row = json.loads(line)
        except ValueError as err:
            raise CLIInputError(f"{where}: not JSON ({err})") from None
        if not isinstance(row, dict):
            raise CLIInputError(f"{where}: a JSON object per line was expected")
        preds.append(_field(row, _PRED_FIELDS, where, required=True) or "")
        refs.append(_field(row, _REF_FIELDS, where, required=False))
        srcs.append(_field(row, _SRC_FIELDS, where, required=False))

    def column(values: list[str | None], name: str) -> list[str] | None:
        given = [v is not None for v in values]
        if not any(given):
            return None
        if not all(given):
            raise CLIInputError(f"--pred {path}:{given.index(False) + 1}: no {name} field (other lines have one)")
        return [v for v in values if v is not None]

    return preds, column(refs, "reference"), column(srcs, "source")


@dataclasses.dataclass(frozen=True)
class LearnedCommand(FamilyCommand):
    """A learned metric's subcommand (its own arguments: references are optional for quality estimation)."""

    standalone: bool = True

    def add_all_arguments(self, parser: argparse.ArgumentParser) -> None:
        inp = parser.add_argument_group("input")
        inp.add_argument("--pred", "-t", required=True, metavar="FILE", help="translations, one per line (or .jsonl)")
        inp.add_argument("--src", "-s", metavar="FILE", help="sources, one per line")
        inp.add_argument("--ref", "-r", metavar="FILE", help="references, one per line")
        add_metric_options(self, parser, strict=True)
        out = parser.add_argument_group("output")
        out.add_argument("--json", action="store_true", help="print one JSON object instead of comet-score's lines")
        out.add_argument("--only-system", action="store_true", help="print only the system score")
        out.add_argument("--to-json", metavar="FILE", help="also write comet-score's JSON of every segment")
        out.add_argument("--per-segment", action="store_true", help="(segments are always printed; kept for symmetry)")
        parser.set_defaults(command=self)

    def read(self, args: argparse.Namespace) -> tuple[list[str], list[str] | None, list[str] | None]:
        if args.pred.endswith(".jsonl"):
            preds, refs, srcs = _read_jsonl(args.pred)
        else:
            preds, refs, srcs = _read_lines(args.pred, "--pred"), None, None
        if args.ref:
            refs = _read_lines(args.ref, "--ref")
            if len(refs) != len(preds):
                raise CLIInputError(f"--pred {args.pred} has {len(preds)} lines but --ref {args.ref} has {len(refs)}")
        if args.src:
            srcs = _read_lines(args.src, "--src")
            if len(srcs) != len(preds):
                raise CLIInputError(f"--pred {args.pred} has {len(preds)} lines but --src {args.src} has {len(srcs)}")
        if not preds:
            raise CLIInputError(f"--pred {args.pred} is empty: there is nothing to score")
        return preds, refs, srcs

    def run(self, args: argparse.Namespace) -> int:
        options: dict[str, Any] = {}
        for opt in self.all_options():
            value = getattr(args, f"opt_{opt.name}", None)
            if value is not None:
                options[opt.name] = tuple(value) if isinstance(value, list) else value
        family = self.metric()
        config = family.make_config(args.preset, **options)  # a bad option or model fails before files are read
        preds, refs, srcs = self.read(args)
        try:
            result = family.compute(preds, refs, config, segments=True, sources=srcs)
        except InvalidInputError as err:
            raise InvalidInputError(f"--pred {args.pred}: {err}") from None
        scores = list(result.scores or ())
        spans = result.error_spans
        if args.to_json:
            rows = []
            for i, p in enumerate(preds):
                row: dict[str, Any] = {}
                if srcs is not None:
                    row["src"] = srcs[i]
                row["mt"] = p
                if refs is not None:
                    row["ref"] = refs[i]
                row[self.label] = scores[i]
                if spans and spans[i]:
                    row["errors"] = list(spans[i])
                rows.append(row)
            Path(args.to_json).write_text(json.dumps({args.pred: rows}, ensure_ascii=False, indent=4), encoding="utf-8")
        if args.json:
            obj: dict[str, Any] = {self.key: result.score, "scores": scores, "signature": result.signature}
            obj["settings"] = {k: v for k, v in dataclasses.asdict(config).items() if k != "family"}
            if spans is not None:
                obj["error_spans"] = [list(s) for s in spans]
            sys.stdout.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")
            return 0
        lines = []
        if not args.only_system:
            lines += [f"{args.pred}\tSegment {i}\tscore: {s:.4f}" for i, s in enumerate(scores)]
        lines.append(f"{args.pred}\tscore: {result.score:.4f}")
        if args.to_json:
            lines.append(f"Predictions saved in: {args.to_json}.")
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stderr.write(f"signature: {result.signature}\n")
        return 0


def _command(name: str, label: str, help: str) -> LearnedCommand:
    target = {
        "comet": "nlgmetrics.metrics.comet:COMET",
        "cometkiwi": "nlgmetrics.metrics.comet:COMETKIWI",
        "xcomet": "nlgmetrics.metrics.comet:XCOMET",
        "metricx": "nlgmetrics.metrics.metricx:METRICX",
    }[name]
    return LearnedCommand(name=name, target=target, key=name, label=label, help=help)


COMET_COMMAND = _command("comet", "COMET", "COMET-22 scores from a local checkpoint, as comet-score prints them")
COMETKIWI_COMMAND = _command("cometkiwi", "COMET", "CometKiwi quality estimation (no references)")
XCOMET_COMMAND = _command("xcomet", "COMET", "XCOMET scores and error spans")
METRICX_COMMAND = _command("metricx", "MetricX", "MetricX-24 error scores (lower is better; QE without --ref)")
