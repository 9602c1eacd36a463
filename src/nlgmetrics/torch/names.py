"""torchmetrics' class names over the catalogued families: ``BLEUScore``, ``SacreBLEUScore``, ``CHRFScore``,
``TranslationEditRate``, ``ROUGEScore``, ``CharErrorRate``, ``WordErrorRate``, ``MatchErrorRate``, ``WordInfoLost``
and ``WordInfoPreserved``, with torchmetrics' constructor arguments and numbers (0-1 scales).

Each is a row of :data:`TORCHMETRICS_NAMES`: the family, the preset that reproduces torchmetrics, and how each
torchmetrics argument maps onto a family option. The class is the generic adapter (:func:`torch_metric`) bound
to that family; nothing here computes a score. The catalogue's own adapters (``BLEU``, ``CHRF``, ``TER``,
``ROUGE``) keep sacrebleu's and rouge-score's numbers and scales. Every class here also takes ``preset=`` (another
preset of its family: ``MatchErrorRate(preset="jiwer")`` gives jiwer's numbers) and the family's own options. The
catalogue names that torchmetrics also uses and that give torchmetrics' numbers without a table row
(``ExtendedEditDistance``, ``EditDistance``, ``SQuAD``, ``BERTScore``) stay the catalogue's classes; the
catalogue's adapter of a family named here is :func:`nlgmetrics.torch.torch_class`.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import InvalidInputError, UnknownOptionError
from ..metrics.catalog import get_family
from .adapter import TORCHMETRICS_KWARGS, TorchMetric, torch_metric

__all__ = ["TORCHMETRICS_NAMES", "TorchmetricsName", "torchmetrics_class"]


def _same(option: str) -> tuple[str, Callable[[Any], Any]]:
    return option, lambda v: v


def _refuse(keyword: str, allowed: Any, why: str) -> tuple[str, Callable[[Any], Any]]:
    def check(value: Any) -> Any:
        if value != allowed:
            raise InvalidInputError(f"{keyword}={value!r} is not supported: {why}")
        return value

    return "", check


def _rouge_keys(value: Any) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@dataclasses.dataclass(frozen=True)
class TorchmetricsName:
    family: str
    preset: str
    arguments: Mapping[str, tuple[str, Callable[[Any], Any]]]
    defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)


#: torchmetrics class name -> (family, preset, torchmetrics argument -> (family option, conversion)).
TORCHMETRICS_NAMES: dict[str, TorchmetricsName] = {
    "BLEUScore": TorchmetricsName(
        "bleu",
        "torchmetrics",
        {
            "n_gram": _same("max_order"),
            "smooth": ("smoothing", lambda v: "add-k" if v else "none"),
            "weights": ("weights", lambda v: None if v is None else tuple(float(w) for w in v)),
        },
    ),
    "SacreBLEUScore": TorchmetricsName(
        "bleu",
        "torchmetrics",
        {
            "n_gram": _same("max_order"),
            "smooth": ("smoothing", lambda v: "add-k" if v else "none"),
            "tokenize": _same("tokenizer"),
            "lowercase": _same("lowercase"),
            "weights": ("weights", lambda v: None if v is None else tuple(float(w) for w in v)),
        },
        defaults={"tokenizer": "13a"},
    ),
    "CHRFScore": TorchmetricsName(
        "chrf",
        "torchmetrics",
        {
            "n_char_order": _same("char_order"),
            "n_word_order": _same("word_order"),
            "beta": _same("beta"),
            "lowercase": _same("lowercase"),
            "whitespace": _same("whitespace"),
            "return_sentence_level_score": _refuse(
                "return_sentence_level_score", False, "use nlgmetrics.torch.CHRF(reduction=None) for segment scores"
            ),
        },
    ),
    "TranslationEditRate": TorchmetricsName(
        "ter",
        "torchmetrics",
        {
            "normalize": _same("normalized"),
            "no_punctuation": _same("no_punct"),
            "lowercase": ("case_sensitive", lambda v: not v),
            "asian_support": _same("asian_support"),
            "return_sentence_level_score": _refuse(
                "return_sentence_level_score", False, "use nlgmetrics.torch.TER(reduction=None) for segment scores"
            ),
        },
    ),
    # torchmetrics' speech measures: its tokens (str.split(), every character) and its MER/WIL/WIP sums
    **{
        name: TorchmetricsName(family, "torchmetrics", {})
        for name, family in (
            ("CharErrorRate", "cer"),
            ("WordErrorRate", "wer"),
            ("MatchErrorRate", "mer"),
            ("WordInfoLost", "wil"),
            ("WordInfoPreserved", "wip"),
        )
    },
    "ROUGEScore": TorchmetricsName(
        "rouge",
        "rouge-score",
        {
            "use_stemmer": _same("use_stemmer"),
            "rouge_keys": ("rouge_types", _rouge_keys),
            "accumulate": _refuse(
                "accumulate",
                "best",
                "only 'best' (rouge-score's score_multi); torchmetrics' 'avg' averages P/R/F over the references, "
                "nlgmetrics' multi_ref='average' pools their counts instead",
            ),
        },
        defaults={"rouge_types": ("rouge1", "rouge2", "rougeL", "rougeLsum")},
    ),
}


def torchmetrics_class(name: str) -> type[TorchMetric]:
    """The class ``nlgmetrics.torch.<name>`` for a torchmetrics name of :data:`TORCHMETRICS_NAMES`."""
    row = TORCHMETRICS_NAMES[name]
    family = get_family(row.family)
    base = torch_metric(
        family,
        name,
        higher_is_better=family.higher_is_better,
        plot_bounds=family.bounds,
        doc=f"torchmetrics' ``{name}`` arguments and numbers, computed by the {family.name} family "
        f"(preset {row.preset!r}).",
        module="nlgmetrics.torch",
    )

    def __init__(self: TorchMetric, *args: Any, **kwargs: Any) -> None:
        names = list(row.arguments)
        if len(args) > len(names):
            raise InvalidInputError(f"{name} takes at most {len(names)} positional arguments ({', '.join(names)})")
        kwargs.update(zip(names, args, strict=False))
        options: dict[str, Any] = dict(row.defaults)
        passed = {k: kwargs.pop(k) for k in list(kwargs) if k in TORCHMETRICS_KWARGS or k == "keep_segments"}
        # another preset of the family (``MatchErrorRate(preset="jiwer")``) and the family's own options are taken
        # as they are, after torchmetrics' arguments
        preset = kwargs.pop("preset", row.preset)
        own = {k: kwargs.pop(k) for k in list(kwargs) if k not in row.arguments and k in family.option_names()}
        for key, value in kwargs.items():
            if key not in row.arguments:
                nearest = difflib.get_close_matches(key, names, n=1, cutoff=0.0)
                raise UnknownOptionError(
                    f"{name}: argument {key!r} is not supported (nearest supported: "
                    f"{nearest[0] if nearest else ''!r}); supported: {', '.join(names) or 'none'}, or the "
                    f"{family.name} family's preset= and options: {', '.join(family.option_names())}"
                )
            option, convert = row.arguments[key]
            converted = convert(value)
            if option:
                options[option] = converted
        options.update(own)
        base.__init__(self, preset, **passed, **options)  # type: ignore[arg-type]

    return type(name, (base,), {"__init__": __init__, "__module__": "nlgmetrics.torch", "__doc__": base.__doc__})
