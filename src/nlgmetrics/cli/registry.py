"""The subcommand table: one declaration per metric.

A subcommand names where its metric lives (``"module:attribute"``, imported only when the subcommand runs or
its help is shown), the config options it exposes as flags, and the key of its headline value. Flag types and
defaults are read from the family's config dataclass, presets from the family, so a declaration stays one
statement::

    register(FamilyCommand("chrf", "nlgmetrics.metrics.chrf:CHRF", key="chrf", label="chrF",
                           help="chrF / chrF++", options=(Opt("char_order"), Opt("word_order"))))

:class:`FamilyCommand` drives a :class:`~nlgmetrics.metrics.base.Family` (``make_config`` then ``compute``, as the
functional API does); a subcommand with another shape (``evaluate``, several metrics at once) subclasses
:class:`Command` and overrides ``configure``/``compute``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import NlgMetricsError

__all__ = ["COMMANDS", "Command", "FamilyCommand", "Opt", "Outcome", "register"]


@dataclasses.dataclass(frozen=True)
class Opt:
    """A config option exposed as a flag. ``flag`` defaults to ``--name-with-dashes``; ``type`` and the help
    text's default come from the config field when not given."""

    name: str
    help: str = ""
    choices: Sequence[Any] | None = None
    type: Callable[[str], Any] | None = None
    flag: str | None = None

    @property
    def option(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a subcommand computed, in the shape the printer needs."""

    score: Any
    signature: str
    settings: dict[str, Any]
    diagnostics: dict[str, Any]
    segments: list[Any] | None


class CommandError(NlgMetricsError):
    """A subcommand that cannot run in this installation (its module does not import)."""


def load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def outcome_of(result: Any, settings: dict[str, Any]) -> Outcome:
    """Put a :class:`~nlgmetrics.metrics.base.Result` in the shape the printer needs."""
    d = dict(result.to_dict())
    score = d.pop("score")
    signature = d.pop("signature", "")
    segments = d.pop("segments", None)
    return Outcome(score, signature, settings, d, list(segments) if segments is not None else None)


@dataclasses.dataclass(frozen=True)
class Command:
    """A subcommand. ``key`` is the headline's JSON key, ``label`` its name in the human-readable output."""

    name: str
    target: str
    key: str
    label: str
    help: str = ""
    options: tuple[Opt, ...] = ()
    #: Also read the DocVQA JSON layout (a JSON list of ``{question, answer, gt_answers}``) given as --pred alone.
    docvqa: bool = False
    #: Predictions and references are JSON values (objects, lists, ...), not strings.
    structured: bool = False

    # ---------------------------------------------------------------------------------------- overridable
    def metric(self) -> Any:
        try:
            return load(self.target)
        except ImportError as e:
            raise CommandError(f"{self.name} is not available in this installation: {e}") from None

    @property
    def single_reference(self) -> bool:
        return False

    def _argument(self, opt: Opt) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"help": opt.help, "choices": opt.choices}
        if opt.type is not None:
            kwargs["type"] = opt.type
        return kwargs

    def add_arguments(self, parser: argparse._ActionsContainer) -> None:
        for opt in self.options:
            kwargs = self._argument(opt)
            if kwargs.get("choices") is None and "action" not in kwargs:
                kind = kwargs.get("type")
                kwargs["metavar"] = "INT" if kind is int else "FLOAT" if kind is float else "VALUE"
            parser.add_argument(opt.option, dest=f"opt_{opt.name}", default=None, **kwargs)

    def presets(self) -> tuple[Sequence[str], str | None]:
        return (), None

    def headlines(self, out: Outcome) -> list[tuple[str, str, Any]]:
        """``(json key, label, value)`` of each headline value; one by default, several for e.g. ROUGE-1/2/L."""
        return [(self.key, self.label, out.score)]

    def configure(self, preset: str | None, options: dict[str, Any]) -> Any:
        raise NotImplementedError

    def compute(self, predictions: list[Any], references: list[Any], config: Any, segments: bool) -> Outcome:
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class FamilyCommand(Command):
    """A subcommand over a :class:`~nlgmetrics.metrics.base.Family`: the config comes from ``make_config``,
    the result from ``compute`` — exactly what the functional API does."""

    @property
    def single_reference(self) -> bool:
        return bool(self.metric().single_reference)

    def _argument(self, opt: Opt) -> dict[str, Any]:
        kwargs = super()._argument(opt)
        field = {f.name: f for f in dataclasses.fields(self.metric().config_cls)}.get(opt.name)
        if field is None:
            raise RuntimeError(f"registry bug: {opt.name!r} is not an option of {self.target}")
        hint = _field_types(self.metric().config_cls).get(opt.name)
        if opt.type is None:
            kwargs.update(_argparse_type(hint))
        if field.default is not dataclasses.MISSING and field.default is not None:
            shown = kwargs["help"] + " " if kwargs["help"] else ""
            kwargs["help"] = f"{shown}(default: {field.default})"
        return kwargs

    def presets(self) -> tuple[Sequence[str], str | None]:
        family = self.metric()
        return tuple(family.presets), family.default_preset

    def configure(self, preset: str | None, options: dict[str, Any]) -> Any:
        return self.metric().make_config(preset, **options)

    def compute(self, predictions: list[Any], references: list[Any], config: Any, segments: bool) -> Outcome:
        result = self.metric().compute(predictions, references, config, segments=segments)
        return outcome_of(result, dataclasses.asdict(config))


def _field_types(config_cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(config_cls)
    except Exception:  # an annotation this Python cannot evaluate: fall back to plain strings
        return {}


def _argparse_type(hint: Any) -> dict[str, Any]:
    """argparse keywords for a config field's annotation: numbers, booleans, strings, tuples of them."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1:
        hint = args[0]  # Optional[X] -> X
    if hint is bool:
        return {"action": argparse.BooleanOptionalAction}
    if hint in (int, float):
        return {"type": hint}
    if typing.get_origin(hint) is tuple:
        inner = typing.get_args(hint)[0] if typing.get_args(hint) else str
        return {"nargs": "+", "type": inner if inner in (int, float) else str}
    return {"type": str}


COMMANDS: dict[str, Command] = {}


def register(command: Command) -> Command:
    COMMANDS[command.name] = command
    return command


_EDIT = "nlgmetrics.metrics.edit"
SUBSTITUTION_COST = Opt("substitution_cost", help="cost of a substitution; insertions and deletions cost 1")
REDUCTION = Opt("reduction", choices=("mean", "sum", "none"), help="how to reduce the per-segment values")

register(
    FamilyCommand(
        "nls",
        f"{_EDIT}:NLS",
        key="nls",
        label="NLS",
        options=(SUBSTITUTION_COST, REDUCTION),
        help="normalised Levenshtein similarity, 1 - lev / max(len); the best of several references counts",
    )
)
register(
    FamilyCommand(
        "edit-distance",
        f"{_EDIT}:EDIT_DISTANCE",
        key="edit_distance",
        label="Edit distance",
        options=(SUBSTITUTION_COST, REDUCTION),
        help="exact character Levenshtein distance (torchmetrics' EditDistance); the closest reference counts",
    )
)
register(
    FamilyCommand(
        "cer",
        f"{_EDIT}:CER",
        key="cer",
        label="CER",
        options=(SUBSTITUTION_COST,),
        help="character error rate over the corpus, as jiwer.cer; one reference per segment",
    )
)
register(
    FamilyCommand(
        "wer",
        f"{_EDIT}:WER",
        key="wer",
        label="WER",
        options=(SUBSTITUTION_COST,),
        help="word error rate over the corpus, as jiwer.wer; one reference per segment",
    )
)
register(
    FamilyCommand(
        "anls",
        "nlgmetrics.metrics.anls:ANLS",
        key="anls",
        label="ANLS",
        docvqa=True,
        options=(Opt("threshold", help="the threshold tau under which a question scores 0"),),
        help="Average Normalized Levenshtein Similarity (DocVQA, ST-VQA, InfographicVQA); reads the DocVQA JSON "
        "layout too",
    )
)
register(
    FamilyCommand(
        "anls-star",
        "nlgmetrics.metrics.anls_star:ANLS_STAR",
        key="anls_star",
        label="ANLS*",
        structured=True,
        options=(
            Opt("threshold", help="the threshold tau under which a leaf similarity counts 0"),
            Opt("list_as_alternatives", help="read a list-of-strings reference of a string prediction as alternatives"),
        ),
        help="ANLS* over structured answers: one JSON value per line of JSON Lines (objects, lists, strings, "
        "numbers, null); several --ref files are alternatives",
    )
)

# BERTScore: its commands live in cli/bertscore.py (which imports this module, hence the late import)
from .bertscore import (  # noqa: E402
    BASELINE_OPTIONS,
    BERTSCORE_OPTIONS,
    PLOT_OPTIONS,
    BERTScoreBaselineCommand,
    BERTScoreCommand,
    BERTScorePlotCommand,
)

register(
    BERTScoreCommand(
        "bertscore",
        "nlgmetrics.metrics.bertscore:BERTSCORE",
        key="f1",
        label="BERTScore F1",
        options=BERTSCORE_OPTIONS,
        help="BERTScore P/R/F, bert-score 0.3.13's numbers (--lang ja: bert-base-multilingual-cased, layer 9); "
        "offline first",
    )
)
register(
    BERTScorePlotCommand(
        "bertscore-plot",
        "nlgmetrics.metrics.bertscore:BERTSCORE",
        key="f1",
        label="BERTScore F1",
        options=PLOT_OPTIONS,
        help="PNG heatmap of the token similarities of one segment (CJK tokens drawn with a CJK font)",
    )
)
register(
    BERTScoreBaselineCommand(
        "bertscore-baseline",
        "nlgmetrics.metrics.bertscore_baseline:compute_baseline",
        key="baseline",
        label="BERTScore baseline written to",
        options=BASELINE_OPTIONS,
        help="rescaling baseline (LAYER,P,R,F) of any model from a monolingual corpus, as bert-score made its own",
    )
)

# BLEU, chrF, TER and paired significance tests: their command classes live in cli/mt.py
from .mt import BLEU_OPTIONS, CHRF_OPTIONS, COMPARE_OPTIONS, TER_OPTIONS, CompareCommand, MTCommand  # noqa: E402

register(
    MTCommand(
        "bleu",
        "nlgmetrics.metrics.bleu:BLEU",
        key="bleu",
        label="BLEU",
        options=BLEU_OPTIONS,
        help="BLEU as sacrebleu 2.6 (default), NLTK 3.10 (--preset nltk), NLTK 3.2 or multi-bleu.perl "
        "(--preset moses); --explain says how the score came about",
    )
)
register(
    MTCommand(
        "chrf",
        "nlgmetrics.metrics.chrf:CHRF",
        key="chrf",
        label="chrF",
        options=CHRF_OPTIONS,
        help="chrF (and chrF++ with --word-order 2 or --preset chrf++), sacrebleu 2.6's numbers",
    )
)
register(
    MTCommand(
        "ter",
        "nlgmetrics.metrics.ter:TER",
        key="ter",
        label="TER",
        options=TER_OPTIONS,
        help="translation edit rate with Tercom shifts, sacrebleu 2.6's numbers (lower is better)",
    )
)
register(
    CompareCommand(
        "compare",
        "nlgmetrics.metrics.significance:paired_test_from_stats",
        key="p_value",
        label="p-value",
        options=COMPARE_OPTIONS,
        help="paired significance test of --pred against --baseline (bootstrap or approximate randomization), "
        "sacrebleu's p-values for the same seed",
    )
)

# ROUGE: its command class lives in cli/rouge.py
from .rouge import ROUGE_OPTIONS, RougeCommand  # noqa: E402

register(
    RougeCommand(
        "rouge",
        "nlgmetrics.metrics.rouge:ROUGE",
        key="rouge",
        label="ROUGE",
        options=ROUGE_OPTIONS,
        help="ROUGE-N/L/Lsum/W/S/SU P/R/F: rouge-score 0.1.2 (--preset rouge-score) or ROUGE-1.5.5 (--preset "
        "rouge155); by default letters of every script are kept and CJK split into characters",
    )
)

# evaluate: many systems × many metrics; its command class lives in cli/evaluate.py
from .evaluate import EvaluateCommand  # noqa: E402

register(
    EvaluateCommand(
        "evaluate",
        "nlgmetrics.evaluate:evaluate",
        key="evaluate",
        label="evaluate",
        help="score several systems on several metrics at once, with bootstrap intervals, paired significance "
        "against a baseline, JSON and an HTML report",
    )
)
