"""The BERTScore subcommands: ``bertscore``, ``bertscore-plot`` and ``bertscore-baseline``.

* ``nlgmetrics bertscore --pred cands.txt --ref refs.txt --lang ja`` is ``bert-score -c cands.txt -r refs.txt
  --lang ja``; ``--idf`` takes the idf weights from the references given, as bert-score does.
* ``nlgmetrics bertscore-plot --pred cands.txt --ref refs.txt --output heat.png [--segment N]`` draws the token
  similarity heatmap of segment ``N`` (default 1) against its first reference, as bert-score's ``plot_example``.
* ``nlgmetrics bertscore-baseline --model PATH --corpus FILE --output FILE.tsv`` computes a rescaling baseline
  the way bert-score computed its own.

``--quiet`` turns the progress bar off (it shows on long runs in a terminal). Nothing heavy is imported until a
subcommand runs.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, ClassVar

from ..errors import InvalidInputError
from ..signature import build_signature
from .command import Command, FamilyCommand, Opt, Outcome, outcome_of

__all__ = [
    "BASELINE_OPTIONS",
    "BERTSCORE_COMMAND",
    "BERTSCORE_OPTIONS",
    "PLOT_OPTIONS",
    "BERTScoreBaselineCommand",
    "BERTScoreCommand",
    "BERTScorePlotCommand",
]

_QUIET = "do not show the progress bar (shown on long runs in a terminal)"
_DOWNLOAD = (
    "download the model if it is neither a local folder nor in the Hugging Face cache (default: never; "
    "nothing is downloaded and no connection is made without this flag)"
)

#: ``bertscore``'s flags are the config fields (FamilyCommand derives them, help included); it adds none.
BERTSCORE_OPTIONS: tuple[Opt, ...] = ()
#: ``bertscore-plot`` takes the options that change the picture (their help comes from the config fields), and
#: its own.
PLOT_OPTIONS = (
    *(
        Opt(name)
        for name in (
            "model",
            "num_layers",
            "lang",
            "rescale_with_baseline",
            "baseline_path",
            "long_inputs",
            "dtype",
            "device",
            "allow_download",
        )
    ),
    Opt("output", help="PNG file to write (required)"),
    Opt("segment", type=int, help="which segment to draw, counting from 1 (default: 1)"),
)
BASELINE_OPTIONS = (
    Opt("model", help="Hugging Face model name or local folder"),
    Opt("lang", help="language, for the default model when --model is not given"),
    Opt("output", help="baseline file to write, in bert-score's format LAYER,P,R,F (required)"),
    Opt("seed", type=int, help="seed of the random pairing (default: 1)"),
    Opt("max_lines", type=int, help="read at most this many lines of the corpus (default: 1000000, as bert-score)"),
    Opt("max_words", type=int, help="keep lines of fewer words than this (default: 32, as bert-score)"),
    Opt("batch_size", type=int, help="at most this many texts per forward pass (default: as many as fit)"),
    Opt("device", help="torch device, e.g. cpu or cuda"),
    Opt("dtype", choices=("float32", "bfloat16", "float16"), help="model precision (default: float32)"),
    Opt("progress", flag="--quiet", help=_QUIET),
    Opt("allow_download", help=_DOWNLOAD),
)


def _quiet() -> dict[str, Any]:
    return {"action": "store_const", "const": False, "help": _QUIET}


@dataclasses.dataclass(frozen=True)
class BERTScoreCommand(FamilyCommand):
    """``nlgmetrics bertscore``: bert-score's spellings of the input flags, and the packages it needs (its config is
    the family's corpus config, so ``--idf`` means idf over the references given)."""

    #: bert-score's own flags for the candidates and references (``bert-score -c cands.txt -r refs.txt``)
    flag_aliases: ClassVar[dict[str, tuple[str, ...]]] = {"pred": ("-c", "--cand"), "ref": ("-r",)}
    #: the extra and the packages without which nothing here runs (checked before the model is looked for)
    requires: ClassVar[tuple[str, tuple[str, ...]]] = ("bertscore", ("torch", "transformers"))
    streams: bool = False  # read whole: see FamilyCommand.streams


@dataclasses.dataclass(frozen=True)
class _PlotConfig:
    preset: str | None
    options: dict[str, Any]
    output: str
    segment: int


@dataclasses.dataclass(frozen=True)
class BERTScorePlotCommand(BERTScoreCommand):
    """``nlgmetrics bertscore-plot``: the heatmap of one segment against its first reference."""

    def _argument(self, opt: Opt) -> dict[str, Any]:
        if opt.name == "output":
            return {"help": opt.help, "required": True, "metavar": "FILE.png"}
        if opt.name == "segment":
            return {"help": opt.help, "type": int, "metavar": "N"}
        return super()._argument(opt)

    def configure(self, preset: str | None, options: dict[str, Any]) -> Any:
        # Only what is cheap to check here: the model's config is resolved once the segment is known to exist, so
        # a wrong --segment is reported at once, not after torch has been imported.
        options = dict(options)
        output = options.pop("output")
        segment = options.pop("segment", None)
        if segment is None:
            segment = 1
        if segment < 1:
            raise InvalidInputError(f"--segment {segment}: segments are counted from 1 (the first line is --segment 1)")
        return _PlotConfig(preset, options, output, segment)

    def compute(
        self, predictions: list[Any], references: list[Any], config: Any, segments: bool, sources: Any = None
    ) -> Outcome:
        if not 1 <= config.segment <= len(predictions):
            raise InvalidInputError(
                f"--segment {config.segment}: the input has {len(predictions)} segment(s), counted from 1"
            )
        from ..metrics.bertscore import BERTSCORE
        from ..plot import bertscore_heatmap

        cfg = super().configure(config.preset, config.options)
        i = config.segment - 1
        candidate, reference = predictions[i], references[i][0]
        heat = bertscore_heatmap(
            candidate,
            reference,
            config.output,
            model=cfg.model,
            num_layers=cfg.num_layers,
            lang=cfg.lang,
            rescale_with_baseline=cfg.rescale_with_baseline,
            baseline_path=cfg.baseline_path,
            device=cfg.device,
            dtype=cfg.dtype,
            long_inputs=cfg.long_inputs,
            allow_download=cfg.allow_download,
        )
        result = BERTSCORE.compute([candidate], [reference], cfg)
        out = outcome_of(result, dataclasses.asdict(cfg))
        out.diagnostics.update(
            output=str(heat.path),
            segment=config.segment,
            candidate_tokens=heat.candidate_tokens,
            reference_tokens=heat.reference_tokens,
            fonts=list(heat.fonts),
        )
        return out


@dataclasses.dataclass(frozen=True)
class BERTScoreBaselineCommand(Command):
    """``nlgmetrics bertscore-baseline``: a baseline file for any model, from a monolingual corpus. It reads one
    file, ``--corpus``, instead of the predictions and references of the other subcommands, so it has its own
    arguments (and its errors name ``--corpus``)."""

    standalone: bool = True

    def add_all_arguments(self, parser: argparse.ArgumentParser) -> None:
        inp = parser.add_argument_group("input")
        inp.add_argument(
            "--corpus",
            required=True,
            metavar="FILE",
            help="monolingual text, one sentence per line ('-': stdin; bert-score used news or web text)",
        )
        self.add_arguments(parser.add_argument_group("options"))
        out = parser.add_argument_group("output")
        out.add_argument("--json", action="store_true", help="print one JSON object instead of text")

    def add_arguments(
        self, parser: argparse._ActionsContainer, conventions: argparse._ActionsContainer | None = None
    ) -> None:
        for opt in self.options:
            if opt.name == "progress":
                kwargs = _quiet()
            elif opt.name == "allow_download":
                kwargs = {"action": "store_true", "help": opt.help}
            else:
                kwargs = {"help": opt.help, "choices": opt.choices, "type": opt.type or str}
                if opt.name == "output":
                    kwargs.update(required=True, metavar="FILE.tsv")
                elif opt.choices is None:
                    kwargs["metavar"] = "INT" if opt.type is int else "VALUE"
            parser.add_argument(opt.option, dest=f"opt_{opt.name}", default=None, **kwargs)

    def run(self, args: argparse.Namespace) -> int:
        import sys

        from .._files import check_output
        from .io import CLIInputError, input_options, read_lines
        from .output import format_human, format_json

        options = {opt.name: getattr(args, f"opt_{opt.name}") for opt in self.options}
        config = self.configure(None, options)  # a bad option fails before the corpus is read
        check_output(config[0], "--output", input_options(args))  # and a bad --output before anything is done
        corpus = read_lines(args.corpus, "--corpus")
        if len(corpus) == 0:
            raise CLIInputError(f"{corpus.label} is empty: a baseline needs a few thousand sentences")
        out = self.compute(list(corpus.values), [], config, False)
        sys.stdout.write((format_json if args.json else format_human)(self, out, False))
        sys.stdout.flush()
        return 0

    def configure(self, preset: str | None, options: dict[str, Any]) -> Any:
        options = {k: v for k, v in options.items() if v is not None}
        output = options.pop("output")
        if options.get("model") is None and options.get("lang") is None:
            raise InvalidInputError("bertscore-baseline needs --model (or --lang for its default model)")
        return output, options

    def compute(
        self, predictions: list[Any], references: list[Any], config: Any, segments: bool, sources: Any = None
    ) -> Outcome:
        from .._files import write_text
        from ..metrics.bertscore_baseline import compute_baseline
        from ..metrics.bertscore_models import model_label

        output, options = config
        table = compute_baseline(predictions, **options)
        write_text(output, table.to_tsv(), "--output")
        settings = {"model": table.model, "seed": table.seed, **{k: v for k, v in options.items() if k != "model"}}
        signature = build_signature(
            "bertscore-baseline", extra={"model": model_label(table.model), "seed": table.seed, "pairs": table.pairs}
        )
        diagnostics = {
            "model": table.model,
            "layers": len(table.rows),
            "pairs": table.pairs,
            "lines": table.lines,
            "rows": [list(row) for row in table.rows],
        }
        return Outcome(str(output), signature, settings, diagnostics, None)


BERTSCORE_COMMAND = BERTScoreCommand(
    "bertscore",
    "nlgmetrics.metrics.bertscore:BERTSCORE",
    key="f1",
    label="BERTScore F1",
    options=BERTSCORE_OPTIONS,
    help="BERTScore P/R/F, bert-score 0.3.13's numbers (--lang ja: bert-base-multilingual-cased, layer 9); "
    "offline first",
)
