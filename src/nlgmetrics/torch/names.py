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
import re
from collections.abc import Callable, Mapping
from typing import Any

import torch

from ..errors import InvalidInputError, UnknownOptionError, warn
from ..metrics.catalog import get_family
from .adapter import TORCHMETRICS_KWARGS, TorchMetric, torch_metric

__all__ = ["TORCHMETRICS_NAMES", "TorchmetricsName", "torchmetrics_class", "torchmetrics_inputs"]


def _same(option: str) -> tuple[str, Callable[[Any], Any]]:
    return option, lambda v: v


def _rouge_keys(value: Any) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _accumulate(value: Any) -> str:
    if value not in ("best", "avg"):
        raise InvalidInputError(f"accumulate must be 'best' or 'avg', got {value!r}")
    # best: rouge-score's score_multi (the reference with the best F); avg: the mean of the per-reference P, R, F
    return "best" if value == "best" else "mean"


def _callable(keyword: str) -> tuple[str, Callable[[Any], Any]]:
    """An argument that is ``None`` or a callable, gathered under ``@keyword`` for :func:`_rouge_tokenizer`."""

    def check(value: Any) -> Any:
        if value is not None and not callable(value):
            raise InvalidInputError(f"{keyword} must be None or a callable, got {value!r}")
        return value

    return f"@{keyword}", check


#: ``return_sentence_level_score``: ``compute()`` then returns ``(score, per-sentence scores)``, as torchmetrics'
_SENTENCES = ("@sentences", lambda v: bool(v))


def _rouge_tokenizer(gathered: dict[str, Any]) -> dict[str, Any]:
    """torchmetrics' ``normalizer`` and ``tokenizer`` callables as one tokenizer: its ``_normalize_and_tokenize_text``
    (the normalizer, else lowercase and every run of characters other than ``[a-z0-9]`` a space; the tokenizer,
    else a split on whitespace runs; empty tokens dropped); the family stems the tokens with ``use_stemmer``."""
    normalizer, tokenizer = gathered.get("@normalizer"), gathered.get("@tokenizer")
    if normalizer is None and tokenizer is None:
        return {}
    from ..text.registry import CallableTokenizer

    def tokenize(text: str) -> list[str]:
        text = normalizer(text) if normalizer is not None else _NON_ALNUM.sub(" ", text.lower())
        tokens = tokenizer(text) if tokenizer is not None else _SPACES.split(text)
        return [t for t in tokens if isinstance(t, str) and len(t) > 0]

    names = [_qualname(f) for f in (normalizer, tokenizer) if f is not None]
    return {"tokenizer": CallableTokenizer(tokenize, "+".join(names))}


def _qualname(function: Any) -> str:
    module = getattr(function, "__module__", None) or type(function).__module__
    return f"{module}.{getattr(function, '__qualname__', None) or type(function).__qualname__}"


_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_SPACES = re.compile(r"\s+")


def torchmetrics_inputs(name: str, preds: Any, target: Any) -> tuple[Any, Any]:
    """The input forms torchmetrics' text metrics accept, as the family's: its ``_validate_inputs``
    (``functional/text/helper.py``) reads a string prediction as one segment and a list of strings as the
    references of a single prediction (else one reference each); an empty list where a text belongs is an empty
    text (its BLEU's ``[[]]``); a segment whose reference list is empty is left out, with a warning. torchmetrics
    scores an input whose every reference list is empty 0 (``preds=[], target=[[]]``), which leaving them out gives
    too; among other segments its own number is not defined (TER adds 2e16 edits over a NaN length)."""
    if isinstance(preds, str):
        preds = [preds]
    if isinstance(target, str):
        target = [target]
    if not isinstance(preds, (list, tuple)) or not isinstance(target, (list, tuple)):
        return preds, target
    preds = ["" if isinstance(p, (list, tuple)) and not p else p for p in preds]
    if target and all(isinstance(t, str) for t in target):
        return preds, ([list(target)] if len(preds) == 1 else [[t] for t in target])
    target = [
        ["" if isinstance(r, (list, tuple)) and not r else r for r in t] if isinstance(t, (list, tuple)) else t
        for t in target
    ]
    empty = [i for i, t in enumerate(target) if isinstance(t, (list, tuple)) and not t]
    if not empty:
        return preds, target
    warn(
        f"{name}: {len(empty)} segment(s) have no reference (target {', '.join(map(str, empty[:5]))}"
        f"{', ...' if len(empty) > 5 else ''}): left out, as torchmetrics scores an input of empty reference lists 0"
    )
    if len(preds) == len(target):
        keep = [i for i in range(len(target)) if i not in set(empty)]
        return [preds[i] for i in keep], [target[i] for i in keep]
    if not preds:
        return preds, [t for i, t in enumerate(target) if i not in set(empty)]
    return preds, target  # the lengths differ: the family's check names them


@dataclasses.dataclass(frozen=True)
class TorchmetricsName:
    family: str
    preset: str
    #: torchmetrics' arguments in its positional order -> (family option, conversion); an option ``""`` changes
    #: nothing, ``"@..."`` is gathered for ``gather`` (or ``"@sentences"``: ``return_sentence_level_score``)
    arguments: Mapping[str, tuple[str, Callable[[Any], Any]]]
    defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: the family options made of the gathered ``"@..."`` arguments together
    gather: Callable[[dict[str, Any]], dict[str, Any]] | None = None


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
            "return_sentence_level_score": _SENTENCES,
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
            "return_sentence_level_score": _SENTENCES,
        },
    ),
    "ExtendedEditDistance": TorchmetricsName(
        "eed",
        "torchmetrics",
        {
            "language": _same("language"),
            "return_sentence_level_score": _SENTENCES,
            "alpha": _same("alpha"),
            "rho": _same("rho"),
            "deletion": _same("deletion"),
            "insertion": _same("insertion"),
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
            "normalizer": _callable("normalizer"),
            "tokenizer": _callable("tokenizer"),
            "accumulate": ("multi_ref", _accumulate),
            "rouge_keys": ("rouge_types", _rouge_keys),
        },
        defaults={"rouge_types": ("rouge1", "rouge2", "rougeL", "rougeLsum")},
        gather=_rouge_tokenizer,
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
        gathered: dict[str, Any] = {}
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
            if option.startswith("@"):
                gathered[option] = converted
            elif option:
                options[option] = converted
        if row.gather is not None:
            options.update(row.gather(gathered))
        options.update(own)
        sentences = bool(gathered.get("@sentences"))
        if sentences:
            passed["keep_segments"] = True
        base.__init__(self, preset, **passed, **options)  # type: ignore[arg-type]
        self.sentence_level = sentences

    def update(self: TorchMetric, preds: Any, target: Any = None, **inputs: Any) -> None:
        preds, target = torchmetrics_inputs(name, preds, target)
        base.update(self, preds, target, **inputs)

    def compute(self: TorchMetric) -> Any:
        result = self._result()
        score = self._score_tensor(result)
        if not getattr(self, "sentence_level", False):
            return score
        segments = torch.tensor([float(v) for v in result.segments or ()], dtype=torch.float64, device=self.device)
        return score, segments

    compute.__doc__ = base.compute.__doc__
    namespace = {
        "__init__": __init__,
        "update": update,
        "compute": compute,
        "__module__": "nlgmetrics.torch",
        "__doc__": base.__doc__,
    }
    return type(name, (base,), namespace)
