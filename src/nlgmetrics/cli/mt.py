"""The machine-translation subcommands: ``bleu``, ``chrf``, ``ter`` and ``compare``.

* ``nlgmetrics bleu --pred hyp.txt --ref ref.txt [--preset sacrebleu|nltk|nltk-3.2|moses] [--explain]`` is
  ``sacrebleu ref.txt -i hyp.txt -m bleu`` (or NLTK's ``corpus_bleu``, or ``multi-bleu.perl``); ``--explain`` adds
  the per-order matches, precisions, brevity penalty, smoothing and, for a score of 0 or a tiny one, why.
* ``nlgmetrics chrf ...`` and ``nlgmetrics ter ...`` are ``sacrebleu -m chrf`` and ``sacrebleu -m ter``.
* ``--confidence N`` on these three adds a bootstrap confidence interval over N resamples (``sacrebleu
  --confidence --confidence-n N``).
* ``nlgmetrics compare --baseline base.txt --pred system.txt --ref ref.txt [--metric bleu] [--test bs|ar]`` is
  ``sacrebleu ref.txt -i base.txt system.txt --paired-bs`` (or ``--paired-ar``) for one system. ``--metric`` takes
  any family of the catalogue whose inputs are text (``--score`` picks the value of one whose score holds several:
  ``--metric rouge --score rougeL``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from ..errors import InvalidInputError
from ..metrics.catalog import CATALOG
from .command import Command, FamilyCommand, Opt, Outcome, outcome_of
from .io import read_lines

__all__ = [
    "BLEU_COMMAND",
    "BLEU_OPTIONS",
    "CHRF_COMMAND",
    "CHRF_OPTIONS",
    "COMPARE_OPTIONS",
    "TER_COMMAND",
    "TER_OPTIONS",
    "CompareCommand",
    "MTCommand",
]

_CONFIDENCE = Opt("confidence", type=int, help="add a bootstrap 95%% confidence interval over N resamples")
_SEED = Opt("seed", type=int, help="seed of the resampling (default: 12345, sacrebleu's)")

# The flags of the three commands are the config fields of their families (FamilyCommand), their help the fields'
# own; these add the flags that are no field, and sacrebleu's spellings of the tokenizer's.
BLEU_OPTIONS = (
    Opt("tokenizer", aliases=("--tokenize", "-tok")),
    Opt("explain", help="also print per-order matches, precisions, brevity penalty, smoothing and why"),
    _CONFIDENCE,
    _SEED,
)
CHRF_OPTIONS = (_CONFIDENCE, _SEED)
TER_OPTIONS = (_CONFIDENCE, _SEED)
COMPARE_OPTIONS = (
    Opt("baseline", help="the baseline system's output, one segment per line (required)"),
    Opt(
        "metric",
        choices=tuple(sorted(CATALOG)),
        help="the metric to compare on (default: bleu): a family of the catalogue whose inputs are text (bleu, chrf, "
        "ter, wer, cer, nls, anls, meteor, rouge with --score, ...)",
    ),
    Opt("score", help="the value to compare when the metric's score holds several (rouge: rougeL; coco: CIDEr)"),
    Opt("test", choices=("bs", "ar"), help="bs: paired bootstrap (default), ar: approximate randomization"),
    Opt("n_samples", type=int, help="resamples (bs, default 1000) or trials (ar, default 10000)"),
    Opt("n_confidence", type=int, help="ar: also bootstrap the system's 95%% interval over N resamples"),
    _SEED,
    Opt("option", help="a metric option as KEY=VALUE (repeatable), e.g. --option tokenizer=zh"),
)
_EXTRA = ("explain", "confidence", "seed")


@dataclasses.dataclass(frozen=True)
class _Settings:
    config: Any
    explain: bool = False
    confidence: int | None = None
    seed: int = 12345


@dataclasses.dataclass(frozen=True)
class MTCommand(FamilyCommand):
    """A family subcommand with ``--confidence N`` (and, for BLEU, ``--explain``)."""

    def _argument(self, opt: Opt) -> dict[str, Any]:
        if opt.name == "explain":
            return {"help": opt.help, "action": "store_const", "const": True}
        if opt.name in ("confidence", "seed"):
            return {"help": opt.help, "type": int, "metavar": "N"}
        return super()._argument(opt)

    def configure(self, preset: str | None, options: dict[str, Any]) -> Any:
        options = dict(options)
        extra = {k: options.pop(k) for k in _EXTRA if k in options}
        config = super().configure(preset, options)
        confidence = extra.get("confidence")
        if confidence is not None and confidence < 1:
            raise InvalidInputError(f"--confidence must be a positive number of resamples, got {confidence}")
        return _Settings(config, bool(extra.get("explain")), confidence, extra.get("seed", 12345))

    def compute(
        self, predictions: list[Any], references: list[Any], config: Any, segments: bool, sources: Any = None
    ) -> Outcome:
        batch = self.metric().batch_stats(predictions, references, config.config)
        return self.compute_stats(batch.total(), batch, config, segments)

    def family_config(self, config: Any) -> Any:
        return config.config

    def keeps_batch(self, config: Any, segments: bool) -> bool:
        return segments or bool(config.confidence)

    def compute_stats(self, total: Any, batch: Any, config: Any, segments: bool) -> Outcome:
        family = self.metric()
        cfg = config.config
        result = family.finalize(total, cfg, batch if segments else None)
        out = outcome_of(result, dataclasses.asdict(cfg))
        if config.confidence:
            from ..metrics.significance import bootstrap_ci_from_stats  # numpy: imported only for the resampling

            ci = bootstrap_ci_from_stats(family, cfg, batch, n_samples=config.confidence, seed=config.seed)
            out.diagnostics.update(
                confidence_mean=float(ci.mean),
                confidence_ci=float(ci.ci),
                confidence_lower=float(ci.lower),
                confidence_upper=float(ci.upper),
                confidence_signature=ci.sacrebleu_signature or ci.signature,
            )
        if config.explain:
            out.diagnostics["explanation"] = "\n" + result.explain()
        return out


def _parse_option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise InvalidInputError(f"--option {text!r}: expected KEY=VALUE, e.g. --option tokenizer=zh")
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    if isinstance(parsed, list):
        parsed = tuple(parsed)
    return key.replace("-", "_"), parsed


@dataclasses.dataclass(frozen=True)
class _Comparison:
    baseline: list[str]
    metric: str
    preset: str | None
    options: dict[str, Any]
    test: str
    n_samples: int | None
    n_confidence: int
    seed: int
    score: str | None = None


@dataclasses.dataclass(frozen=True)
class CompareCommand(Command):
    """``nlgmetrics compare``: a paired significance test of ``--pred`` against ``--baseline``."""

    def add_arguments(
        self, parser: argparse._ActionsContainer, conventions: argparse._ActionsContainer | None = None
    ) -> None:
        for opt in self.options:
            kwargs: dict[str, Any] = {"help": opt.help}
            if opt.name == "baseline":
                kwargs.update(required=True, metavar="FILE")
            elif opt.name == "option":
                kwargs.update(action="append", metavar="KEY=VALUE")
            elif opt.choices is not None:
                kwargs.update(choices=opt.choices, metavar="NAME" if opt.name == "metric" else None)
            elif opt.name == "score":
                kwargs["metavar"] = "NAME"
            else:
                kwargs.update(type=opt.type or str, metavar="N")
            parser.add_argument(opt.option, dest=f"opt_{opt.name}", default=None, **kwargs)
        parser.add_argument("--preset", default=None, metavar="NAME", help="the metric's preset (e.g. nltk, chrf++)")

    def presets(self) -> tuple[Any, str | None]:
        return (), None

    def configure(self, preset: str | None, options: dict[str, Any]) -> Any:
        from ..metrics.significance import _family

        metric = options.get("metric") or "bleu"
        metric_options = dict(_parse_option(o) for o in options.get("option") or ())
        family = _family(metric)
        family.make_config(preset, **metric_options)  # a bad option fails before any file is read
        if family.uses_sources:
            raise InvalidInputError(f"compare reads no sources, which {metric} needs: compare it with `evaluate`")
        test = options.get("test") or "bs"
        n_confidence = options.get("n_confidence")
        if n_confidence is not None and test != "ar":
            raise InvalidInputError("--n-confidence belongs to --test ar (the bootstrap test always reports intervals)")
        baseline = read_lines(options["baseline"], "--baseline").values
        return _Comparison(
            baseline,
            metric,
            preset,
            metric_options,
            test,
            options.get("n_samples"),
            n_confidence if n_confidence is not None else -1,
            int(options["seed"]) if options.get("seed") is not None else 12345,
            options.get("score"),
        )

    def compute(
        self, predictions: list[Any], references: list[Any], config: Any, segments: bool, sources: Any = None
    ) -> Outcome:
        from ..metrics.significance import _family, paired_test_from_stats

        if len(config.baseline) != len(predictions):
            raise InvalidInputError(
                f"--baseline has {len(config.baseline)} lines but --pred has {len(predictions)}: a paired test "
                "compares the two systems on the same segments"
            )
        family = _family(config.metric)
        cfg = family.make_config(config.preset, **config.options)
        bl = family.batch_stats(config.baseline, references, cfg)
        sy = family.batch_stats(predictions, references, cfg)
        result = paired_test_from_stats(
            family,
            cfg,
            bl,
            sy,
            test=config.test,
            n_samples=config.n_samples,
            n_confidence=config.n_confidence,
            seed=config.seed,
            score=config.score,
        )
        details = result.to_dict()
        signature = details.pop("signature")
        settings = {"metric": config.metric, "preset": config.preset, **dataclasses.asdict(cfg)}
        if config.score is not None:
            settings["score"] = config.score
        return Outcome(details.pop("p_value"), signature, settings, details, None)

    def headlines(self, out: Outcome) -> list[tuple[str, str, Any]]:
        metric = out.settings.get("metric", "")
        if out.settings.get("score") is not None:
            metric = f"{metric} {out.settings['score']}"
        return [
            ("baseline", f"Baseline {metric}", out.diagnostics.get("baseline")),
            ("system", f"System {metric}", out.diagnostics.get("system")),
            ("p_value", f"p-value ({out.diagnostics.get('test')})", out.score),
        ]


BLEU_COMMAND = MTCommand(
    "bleu",
    "nlgmetrics.metrics.bleu:BLEU",
    key="bleu",
    label="BLEU",
    options=BLEU_OPTIONS,
    help="BLEU as sacrebleu 2.6 (default), NLTK 3.10 (--preset nltk), NLTK 3.2 or multi-bleu.perl "
    "(--preset moses); --explain says how the score came about",
)
CHRF_COMMAND = MTCommand(
    "chrf",
    "nlgmetrics.metrics.chrf:CHRF",
    key="chrf",
    label="chrF",
    options=CHRF_OPTIONS,
    help="chrF (and chrF++ with --word-order 2 or --preset chrf++), sacrebleu 2.6's numbers",
)
TER_COMMAND = MTCommand(
    "ter",
    "nlgmetrics.metrics.ter:TER",
    key="ter",
    label="TER",
    options=TER_OPTIONS,
    help="translation edit rate with Tercom shifts, sacrebleu 2.6's numbers (lower is better)",
)
