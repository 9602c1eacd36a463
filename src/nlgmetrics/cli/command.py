"""The building blocks of subcommands: :class:`Opt` (a flag), :class:`Command` and :class:`FamilyCommand`.

A :class:`FamilyCommand` drives a :class:`~nlgmetrics.metrics.base.Family` (``make_config`` then ``compute``, as
the functional API does). Its flags are the fields of the family's config dataclass (:func:`derived_options`):
type, default, help, choices, further spellings and role come from the field's metadata
(:func:`~nlgmetrics.signature.sig_field`), presets from the family, so a family needs no command of its own. A
field whose role is ``"convention"`` (set by the presets) is a flag listed apart, under "conventions (normally set
by --preset)"; a field that holds an object, is resolved from other fields or is set by the family is no flag. A
subcommand with another shape (``evaluate``, several metrics at once, extra flags, its own input format)
subclasses :class:`Command` or :class:`FamilyCommand` and is named in the family's catalogue entry (``cli=``) or
registered in :mod:`nlgmetrics.cli.registry`; its ``options`` only add flags (or spellings) to the derived ones.

This module imports no metric and no other subcommand module.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import NlgMetricsError
from ..signature import NOT_FLAGS, field_role

__all__ = [
    "CONVENTIONS_TITLE",
    "Command",
    "CommandError",
    "FamilyCommand",
    "Opt",
    "Outcome",
    "add_metric_options",
    "derived_options",
    "load",
    "outcome_of",
]

#: The title of the argparse group that lists the fields of role ``"convention"``.
CONVENTIONS_TITLE = "conventions (normally set by --preset)"


@dataclasses.dataclass(frozen=True)
class Opt:
    """A config option exposed as a flag. ``flag`` defaults to ``--name-with-dashes``; ``type`` and the help
    text's default come from the config field when not given."""

    name: str
    help: str = ""
    choices: Sequence[Any] | None = None
    type: Callable[[str], Any] | None = None
    flag: str | None = None
    #: Other spellings of the flag (``("--tokenize", "-tok")``: sacrebleu's names of ``--tokenizer``).
    aliases: tuple[str, ...] = ()
    #: The field's role (:data:`nlgmetrics.signature.ROLES`): ``"convention"`` flags are listed apart.
    role: str = "option"
    #: A flag that sets a boolean option to false (``--quiet`` for ``progress``), besides ``--no-<flag>``.
    negative: str | None = None

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
    #: The option that names the predictions file in messages (``--corpus`` for a command that reads one file).
    input_option: str = "--pred"
    #: Also read a COCO results JSON list as --pred with the COCO annotations JSON as --ref (captioning).
    coco_json: bool = False

    # ---------------------------------------------------------------------------------------- overridable
    def metric(self) -> Any:
        try:
            return load(self.target)
        except ImportError as e:
            raise CommandError(f"{self.name} is not available in this installation: {e}") from None

    @property
    def single_reference(self) -> bool:
        return False

    @property
    def uses_sources(self) -> bool:
        """Whether the command reads ``--src`` (one source text per segment)."""
        return False

    def _argument(self, opt: Opt) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"help": opt.help, "choices": opt.choices}
        if opt.type is not None:
            kwargs["type"] = opt.type
        return kwargs

    def all_options(self) -> tuple[Opt, ...]:
        """The config options this command exposes as flags."""
        return self.options

    def add_arguments(
        self, parser: argparse._ActionsContainer, conventions: argparse._ActionsContainer | None = None
    ) -> None:
        """The flags of :meth:`all_options` on ``parser``; those of role ``"convention"`` on ``conventions`` when
        given (a group of their own)."""
        for opt in self.all_options():
            target = conventions if conventions is not None and opt.role == "convention" else parser
            kwargs = self._argument(opt)
            if kwargs.get("choices") is None and "action" not in kwargs:
                kind = kwargs.get("type")
                kwargs.setdefault("metavar", "INT" if kind is int else "FLOAT" if kind is float else "VALUE")
            target.add_argument(opt.option, *opt.aliases, dest=f"opt_{opt.name}", default=None, **kwargs)
            if opt.negative:
                target.add_argument(
                    opt.negative,
                    dest=f"opt_{opt.name}",
                    action="store_const",
                    const=False,
                    default=None,
                    help=f"the same as --no-{opt.option.lstrip('-')}",
                )

    def presets(self) -> tuple[Sequence[str], str | None]:
        return (), None

    def headlines(self, out: Outcome) -> list[tuple[str, str, Any]]:
        """``(json key, label, value)`` of each headline value: the score, or each value of a score that holds
        several by name (ROUGE's rouge1/rouge2/rougeL, the COCO suite's, pass@k's per k)."""
        if isinstance(out.score, Mapping):
            return [(name, name, value) for name, value in out.score.items()]
        return [(self.key, self.label, out.score)]

    def configure(self, preset: str | None, options: dict[str, Any]) -> Any:
        raise NotImplementedError

    def compute(
        self, predictions: list[Any], references: list[Any], config: Any, segments: bool, sources: Any = None
    ) -> Outcome:
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class FamilyCommand(Command):
    """A subcommand over a :class:`~nlgmetrics.metrics.base.Family`: the config comes from ``make_config``,
    the result from ``compute`` — exactly what the functional API does. Every field of the config is a flag
    (see :func:`derived_options`); ``options`` add flags that are no field (``--explain``) and spellings or help
    to those that are. With ``derive_options=False`` the flags are ``options`` alone (a command that takes a few
    of the family's options, ``bertscore-plot``); their help still comes from the fields."""

    derive_options: bool = True
    #: Whether a long plain-text or JSON Lines input may be scored chunk by chunk, the statistics summed as they
    #: come (:mod:`nlgmetrics.cli.stream`): a family whose statistics add and whose kernel sees one segment at a
    #: time. Off for the model families (a batch's padding changes the last bits) and the custom readers.
    streams: bool = True
    #: Diagnostics that repeat what the output shows already (the headline values again), left out of it.
    repeated: tuple[str, ...] = ()

    def all_options(self) -> tuple[Opt, ...]:
        family = self.metric()
        if self.derive_options:
            return derived_options(family.config_cls, self.options, getattr(family, "option_aliases", None))
        return self.options

    @property
    def uses_sources(self) -> bool:
        return bool(getattr(self.metric(), "uses_sources", False))

    @property
    def single_reference(self) -> bool:
        return bool(self.metric().single_reference)

    def _argument(self, opt: Opt) -> dict[str, Any]:
        kwargs = super()._argument(opt)
        field = {f.name: f for f in dataclasses.fields(self.metric().config_cls)}.get(opt.name)
        if field is None:
            raise RuntimeError(f"registry bug: {opt.name!r} is not an option of {self.target}")
        if not kwargs["help"]:
            kwargs["help"] = _escaped(field.metadata.get("help", ""))
        if kwargs.get("choices") is None and field.metadata.get("choices") is not None:
            kwargs["choices"] = field.metadata["choices"]
        hint = _field_types(self.metric().config_cls).get(opt.name)
        if opt.type is None:
            kwargs.update(_argparse_type(hint))
        default = _default(self.metric(), field)
        if default is not None and "(default:" not in kwargs["help"]:
            shown = kwargs["help"] + " " if kwargs["help"] else ""
            kwargs["help"] = f"{shown}(default: {default})"
        return kwargs

    def presets(self) -> tuple[Sequence[str], str | None]:
        family = self.metric()
        return tuple(family.presets), family.default_preset

    def configure(self, preset: str | None, options: dict[str, Any]) -> Any:
        """The family's config for a whole corpus: ``corpus_config`` where the family has one (BERTScore's ``idf``
        takes the weights from the references given), else ``make_config``."""
        family = self.metric()
        build = getattr(family, "corpus_config", family.make_config)
        return build(preset, **options)

    def compute(
        self, predictions: list[Any], references: list[Any], config: Any, segments: bool, sources: Any = None
    ) -> Outcome:
        kwargs = {} if sources is None else {"sources": sources}
        family = self.metric()
        if segments and _several_headlines(family):
            return _with_segment_headlines(family, predictions, references, config, kwargs)
        result = family.compute(predictions, references, config, segments=segments, **kwargs)
        return self.outcome(result, config, None)

    # ------------------------------------------------------------------ from summed statistics (a streamed input)
    def family_config(self, config: Any) -> Any:
        """The family's config inside what :meth:`configure` returned."""
        return config

    def keeps_batch(self, config: Any, segments: bool) -> bool:
        """Whether :meth:`compute_stats` needs the per-segment statistics (per-segment scores, a bootstrap)."""
        return segments or bool(self.metric().needs_segments(self.family_config(config)))

    def compute_stats(self, total: Any, batch: Any, config: Any, segments: bool) -> Outcome:
        """What :meth:`compute` gives, from the corpus statistics ``total`` and (when :meth:`keeps_batch`) the
        per-segment ``batch``: the formula on the sum, as the functional API applies it."""
        cfg = self.family_config(config)
        keep = segments or self.metric().needs_segments(cfg)
        return self.outcome(self.metric().finalize(total, cfg, batch if keep else None), config, batch)

    def outcome(self, result: Any, config: Any, batch: Any) -> Outcome:
        """The printed outcome of a family's result (a subcommand adds or drops what it shows)."""
        out = outcome_of(result, dataclasses.asdict(self.family_config(config)))
        for key in self.repeated:
            out.diagnostics.pop(key, None)
        return out


def add_metric_options(command: Command, parser: argparse.ArgumentParser, *, strict: bool = False) -> None:
    """The "metric options" group of a command's arguments: ``--preset`` (where there are presets; ``strict``:
    argparse refuses another name, else the family does) and the command's flags, the conventions in a group of
    their own (an empty group is not shown)."""
    opts = parser.add_argument_group("metric options")
    presets, default = command.presets()
    if presets:
        spelled: dict[str, Any] = {"choices": presets} if strict else {"metavar": "{" + ",".join(presets) + "}"}
        opts.add_argument(
            "--preset",
            **spelled,
            default=None,
            help=f"named settings that reproduce a reference tool (default: {default})",
        )
    command.add_arguments(opts, parser.add_argument_group(CONVENTIONS_TITLE))


def _several_headlines(family: Any) -> bool:
    """A family whose result has several headline values (BERTScore's P, R, F), whose formula gives them per
    segment (vectorized) and whose ``compute`` is the generic one (statistics, then the formula)."""
    from ..metrics.base import Family

    if not family.vectorized or type(family).compute is not Family.compute:
        return False
    try:
        result_cls = typing.get_type_hints(family.formula).get("return")
    except Exception:  # an annotation that does not resolve: not one of these
        return False
    return isinstance(result_cls, type) and "headline_values" in vars(result_cls)


def _with_segment_headlines(
    family: Any, predictions: list[Any], references: list[Any], config: Any, kwargs: dict[str, Any]
) -> Outcome:
    """``compute`` with the per-segment scores as each segment's headline values (P, R and F), from the same
    statistics and the family's own formula applied to the per-segment columns."""
    batch = family.batch_stats(predictions, references, config, **kwargs)
    result = family.finalize(batch.total(), config, batch)
    per = family.formula(family.stats_cls(**batch.columns), config)
    values = per.headline_values()
    names = list(values)
    rows = [dict(zip(names, map(float, seg), strict=True)) for seg in zip(*values.values(), strict=True)]
    outcome = outcome_of(result, dataclasses.asdict(config))
    return dataclasses.replace(outcome, segments=rows)


def _default(family: Any, field: dataclasses.Field[Any]) -> Any:
    """What a field is when its flag is not given: the default preset's value, else the field's default."""
    presets = getattr(family, "presets", None) or {}
    chosen = presets.get(getattr(family, "default_preset", None) or "", {})
    if field.name in chosen:
        return chosen[field.name]
    return None if field.default is dataclasses.MISSING else field.default


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


#: The help of a ``tokenizer`` field that declares none of its own (and of no command that gives one).
_TOKENIZER_HELP = "how the texts are split into tokens: a registered tokenizer name (default: the metric's own)"


def _escaped(text: str) -> str:
    """A field's help text as argparse help (which formats ``%``)."""
    return text.replace("%", "%%")


def derived_options(
    config_cls: type, extra: Sequence[Opt] = (), option_aliases: typing.Mapping[str, str] | None = None
) -> tuple[Opt, ...]:
    """One flag per field of a config dataclass (``preset`` aside, and the fields whose role is ``"object"``,
    ``"resolved"`` or ``"internal"``), with the help text, choices, role, further spellings (``flags``) and
    negative flag that the field's metadata declares (``sig_field(..., help=..., choices=..., role=...)``).

    ``extra``: a command's own :class:`Opt` rows. One named after a field adds to that field's flag (spellings;
    the help or choices the field lacks; a type); the others are flags of their own, listed after the fields.
    ``option_aliases``: the family's other names of an option (``{"tokenize": "tokenizer"}``), each a further
    spelling of its flag."""
    by_name = {opt.name: opt for opt in extra}
    spellings: dict[str, list[str]] = {}
    for alias, name in (option_aliases or {}).items():
        spellings.setdefault(name, []).append("--" + alias.replace("_", "-"))
    out = []
    for f in dataclasses.fields(config_cls):
        hand = by_name.pop(f.name, None)
        if f.name == "preset" or field_role(f) in NOT_FLAGS:
            continue
        meta = f.metadata
        help = _escaped(meta.get("help", "")) or (hand.help if hand else "")
        if not help and f.name == "tokenizer":
            help = _TOKENIZER_HELP
        option = (hand.flag if hand else None) or "--" + f.name.replace("_", "-")
        aliases = [*meta.get("flags", ()), *spellings.get(f.name, ()), *(hand.aliases if hand else ())]
        out.append(
            Opt(
                f.name,
                help=help,
                choices=meta.get("choices") or (hand.choices if hand else None),
                type=hand.type if hand else None,
                flag=hand.flag if hand else None,
                aliases=tuple(a for a in dict.fromkeys(aliases) if a != option),
                role=field_role(f),
                negative=meta.get("negative"),
            )
        )
    out.extend(by_name.values())
    return tuple(out)
