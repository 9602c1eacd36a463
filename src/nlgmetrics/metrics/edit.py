"""Edit-distance metrics: ``edit_distance``, ``cer``, ``wer``, ``mer``, ``wil`` and ``wip``; ``nls`` (normalised
Levenshtein similarity) is declared in :mod:`nlgmetrics.metrics.nls` and re-exported here.

All use the exact (weighted) Levenshtein distance. ``substitution_cost`` has the meaning of torchmetrics'
``EditDistance``: insertions and deletions cost 1, a substitution costs ``substitution_cost``. Unlike
torchmetrics, whose ``EditDistance`` is a beam search that can over-count (``'hello world'*4`` against
``'x'*60 + 'hello world'*4`` gives 78 there; the true distance is 60), the distance here is exact.

Reference behaviours reproduced:

* ``nls``: see :mod:`nlgmetrics.metrics.nls`.
* ``cer`` / ``wer``, preset ``"jiwer"`` (the default): ``jiwer.cer(reference, hypothesis)`` and
  ``jiwer.wer(reference, hypothesis)`` of jiwer 4.0 with their default transforms — corpus rate
  ``(S + D + I) / (H + S + D)``, and when the references hold no token at all, the number of insertions.
* ``mer`` / ``wil`` / ``wip``, preset ``"jiwer"`` (the default): ``jiwer.mer``, ``jiwer.wil`` and ``jiwer.wip``
  ``(reference, hypothesis)`` of jiwer 4.0: the WER family's kernel, statistics and formula, with another of the
  formula's values as the headline — ``MER = (S + D + I) / (H + S + D + I)``, ``WIP = H/N_ref · H/N_pred``,
  ``WIL = 1 - WIP`` (with no reference token: MER 0 and WIP 1 for an empty prediction, MER 1 and WIP 0 otherwise).
* preset ``"torchmetrics"`` of all five: torchmetrics 1.9's ``CharErrorRate``, ``WordErrorRate``,
  ``MatchErrorRate``, ``WordInfoLost`` and ``WordInfoPreserved`` (``nlgmetrics.torch``'s classes of those names):
  words are ``str.split()`` tokens and characters every character, spaces included (jiwer removes leading,
  trailing and repeated spaces first); CER and WER are ``Σ distance / Σ N_ref`` as jiwer's. MER, WIL and WIP
  count another way: torchmetrics divides the summed distances by the summed *longer* lengths,
  ``MER = Σ d / Σ max(N_ref, N_pred)``, and takes ``H' = Σ max(N_ref, N_pred) - Σ d`` for the hits,
  ``WIP = H'/ΣN_ref · H'/ΣN_pred``. That is jiwer's ``H + S + D + I`` and ``H`` only in a segment that has no
  deletion or no insertion; with both, ``max`` is ``H + S + D + I - min(D, I)`` (on 300 WMT22 de-en segments
  torchmetrics' MER is 0.528 where jiwer's is 0.509). The statistics carry ``Σ max(N_ref, N_pred)``
  (``longer_length``), so both presets come from one kernel. torchmetrics gives NaN where a sum it divides by is
  0; these keep jiwer's conventions there.

``normalizer="whisper-english"`` or ``"whisper-basic"`` applies OpenAI Whisper's ``EnglishTextNormalizer`` or
``BasicTextNormalizer`` to predictions and references before tokenising (:mod:`nlgmetrics.text.whisper`; the
signature records it as ``norm:``), as ASR leaderboards report WER.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .._inputs import ReferenceSets
from .._np import is_array, loaded
from ..algorithms.edit import expand_pairs, levenshtein, levenshtein_many, operation_counts, reduce_segments
from ..algorithms.guard import check_items, check_pair
from ..errors import UnknownOptionError, unknown_option
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from ..text.tokenizers import choices, resolve, tokenizer_help
from ..text.tokenizers import tokenizer as tokenizer_of
from .base import Family, Result, safe_div
from .nls import NLS, NLSConfig, NLSResult, NLSStats, check_substitution_cost, nls
from .nls import reduce_segment_scores as reduce_segment_scores  # (EED's and CharacTER's statistics are NLS's)
from .nls import segment_score_batch as segment_score_batch

__all__ = [
    "CER",
    "EDIT_DISTANCE",
    "MER",
    "NLS",
    "WER",
    "WIL",
    "WIP",
    "EditDistanceConfig",
    "EditDistanceResult",
    "EditDistanceStats",
    "ErrorRateConfig",
    "ErrorRateResult",
    "ErrorRateStats",
    "NLSConfig",
    "NLSResult",
    "NLSStats",
    "cer",
    "edit_distance",
    "mer",
    "nls",
    "wer",
    "wil",
    "wip",
]


# ====================================================================== edit distance
@dataclasses.dataclass(frozen=True)
class EditDistanceConfig(NLSConfig):
    """Options of the edit distance: the cost of a substitution and the torchmetrics-style reduction (NLS's options,
    declared once in :class:`~nlgmetrics.metrics.nls.NLSConfig`)."""


@dataclasses.dataclass(frozen=True)
class EditDistanceStats(Stats):
    """Sum of per-segment distances (the closest reference's) and the number of segments."""

    distance: int
    count: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class EditDistanceResult(Result):
    """The mean (or sum, or per-segment) distance; ``distance_sum`` over ``count`` segments."""

    distance_sum: int = 0
    count: int = 0


def _edit_kernel(preds: list[str], refs: ReferenceSets, cfg: EditDistanceConfig) -> StatsBatch[EditDistanceStats]:
    flat_p, flat_r, starts = expand_pairs(preds, refs)
    check_items("edit_distance", "levenshtein", flat_p, flat_r, starts)
    dist = reduce_segments(levenshtein_many(flat_p, flat_r, cfg.substitution_cost), starts, "min")
    return StatsBatch.from_lists(EditDistanceStats, {"distance": dist.tolist(), "count": [1] * len(preds)})


def _edit_pair(prediction: str, reference: str, cfg: EditDistanceConfig) -> tuple[int, int]:
    # the kernel's guard and per-pair distance (levenshtein_many runs the same rapidfuzz scorer over columns)
    check_pair("edit_distance", "levenshtein", prediction, reference)
    return levenshtein(prediction, reference, cfg.substitution_cost), 1


def edit_distance_from_stats(stats: EditDistanceStats, cfg: EditDistanceConfig) -> EditDistanceResult:
    score = stats.distance if cfg.reduction == "sum" else safe_div(stats.distance, stats.count)
    return EditDistanceResult(score=score, distance_sum=stats.distance, count=stats.count)


EDIT_DISTANCE: Family[EditDistanceConfig, EditDistanceStats, EditDistanceResult] = Family(
    cache_configs=True,
    name="edit_distance",
    higher_is_better=False,
    bounds=(0.0, None),
    config_cls=EditDistanceConfig,
    stats_cls=EditDistanceStats,
    kernel=_edit_kernel,
    pair_kernel=_edit_pair,
    formula=edit_distance_from_stats,
    vectorized=True,
)


# ====================================================================== CER / WER
_UNITS = {"char": "jiwer-chars", "word": "jiwer-words"}
#: The named normalisers of the error rates (:mod:`nlgmetrics.text.whisper`).
TEXT_NORMALIZERS = ("whisper-basic", "whisper-english")


def _normalized(texts: list[str], cfg: ErrorRateConfig) -> list[str]:
    if cfg.normalizer is None:
        return texts
    from ..text.whisper import normalize_many

    return normalize_many(cfg.normalizer, texts)


@dataclasses.dataclass(frozen=True)
class ErrorRateConfig:
    """``unit`` is ``"char"`` (CER) or ``"word"`` (WER); ``tokenizer`` defaults to jiwer's transform for it."""

    unit: str = sig_field(
        "unit",
        "word",
        help="what an error is counted in: char (cer) or word (wer, mer, wil, wip); set by the metric",
        choices=("char", "word"),
        role="convention",
    )
    tokenizer: str | None = sig_field(
        "tok", None, help=tokenizer_help("wer", "how texts become tokens (default: jiwer's for the unit)")
    )
    substitution_cost: int = sig_field("sub", 1, help="cost of a substitution; insertions and deletions cost 1")
    preset: str | None = sig_field("preset", None)
    normalizer: str | None = sig_field(
        "norm",
        None,
        help="a named normaliser applied to predictions and references first (Whisper's: whisper-english, "
        "whisper-basic)",
        choices=TEXT_NORMALIZERS,
        metadata={"omit_none": True},  # added later: signatures without a normaliser stay as they were
    )

    def __post_init__(self) -> None:
        if self.unit not in _UNITS:
            raise unknown_option("unit", self.unit, list(_UNITS))
        if self.normalizer is not None and self.normalizer not in TEXT_NORMALIZERS:
            raise unknown_option("normalizer", self.normalizer, list(TEXT_NORMALIZERS))
        check_substitution_cost(self.substitution_cost)
        if self.tokenizer is None:
            object.__setattr__(self, "tokenizer", _UNITS[self.unit])
        family = "cer" if self.unit == "char" else "wer"
        # "ja-mecab" is the registry's: fugashi with UniDic-lite; "char" is list(text), spaces included: the
        # signature names them char-list and ja-mecab-unidic-lite
        tokenizer = resolve(self.tokenizer, family)
        other = {v: k for k, v in _UNITS.items()}.get(tokenizer)
        if other is not None and other != self.unit:
            raise UnknownOptionError(
                f"tokenizer {tokenizer!r} is the tokenisation of unit={other!r}, not an option of unit={self.unit!r} "
                f"(choose unit={other!r}); valid values are: "
                + ", ".join(repr(v) for v in choices(family) if v != tokenizer)
            )
        object.__setattr__(self, "tokenizer", tokenizer)
        tokenizer_of(tokenizer)  # fail early on a missing extra


@dataclasses.dataclass(frozen=True)
class ErrorRateStats(Stats):
    """Alignment counts. ``errors`` is the weighted edit cost (``S + D + I`` when substitutions cost 1)."""

    errors: int
    hits: int
    substitutions: int
    deletions: int
    insertions: int
    reference_length: int
    prediction_length: int
    #: ``Σ max(reference_length, prediction_length)`` per segment: torchmetrics' MER denominator
    longer_length: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class ErrorRateResult(Result):
    """``score`` is the error rate (CER or WER). ``mer``, ``wil`` and ``wip`` follow jiwer's definitions."""

    errors: int = 0
    hits: int = 0
    substitutions: int = 0
    deletions: int = 0
    insertions: int = 0
    reference_length: int = 0
    prediction_length: int = 0
    longer_length: int = 0
    mer: float = 0.0
    wil: float = 0.0
    wip: float = 0.0


def _error_counts(ptoks: Sequence[Any], rtoks: Sequence[Any], substitution_cost: int) -> tuple[int, ...]:
    """The statistics of one tokenised pair, in :class:`ErrorRateStats`' field order: the kernel's per-pair
    function."""
    hits, subs, dels, ins = operation_counts(rtoks, ptoks)
    errors = subs + dels + ins if substitution_cost == 1 else levenshtein(ptoks, rtoks, substitution_cost)
    return errors, hits, subs, dels, ins, len(rtoks), len(ptoks), max(len(rtoks), len(ptoks))


def _error_rate_check(values: Mapping[str, Any], cfg: ErrorRateConfig) -> str | None:
    """The alignment's counts add up (``Family.stats_check``): hits, substitutions and deletions make the
    reference, hits, substitutions and insertions the prediction, and ``errors`` is their cost."""
    import numpy as np

    h, s, d, i, n_ref, n_pred, errors = (
        np.asarray(values[k], dtype=object)
        for k in ("hits", "substitutions", "deletions", "insertions", "reference_length", "prediction_length", "errors")
    )
    if np.any(h + s + d != n_ref):
        return "hits + substitutions + deletions is not reference_length"
    if np.any(h + s + i != n_pred):
        return "hits + substitutions + insertions is not prediction_length"
    longer = np.asarray(values["longer_length"], dtype=object)
    # per segment the longer of the two lengths; summed, between the longer and the sum of the summed lengths
    if np.any(longer < np.maximum(n_ref, n_pred)) or np.any(longer > n_ref + n_pred):
        return "longer_length is not a sum of the longer of reference_length and prediction_length"
    if cfg.substitution_cost == 1:
        if np.any(errors != s + d + i):
            return "errors is not substitutions + deletions + insertions"
    elif np.any(errors > cfg.substitution_cost * s + d + i) or np.any(errors < abs(n_ref - n_pred)):
        return f"errors is not a cost of this alignment (substitution cost {cfg.substitution_cost})"
    return None


def _cost_guard(cfg: ErrorRateConfig) -> tuple[str, str]:
    """The metric and the kernel the cost guard names: characters for CER, tokens otherwise."""
    return ("cer", "levenshtein") if cfg.unit == "char" else ("wer", "token-levenshtein")


def _error_rate_kernel(preds: list[str], refs: ReferenceSets, cfg: ErrorRateConfig) -> StatsBatch[ErrorRateStats]:
    tok = tokenizer_of(cfg.tokenizer or _UNITS[cfg.unit])
    ptoks = [tok(p) for p in _normalized(preds, cfg)]
    rtoks = [tok(r) for r in _normalized(list(refs.first()), cfg)]
    check_items(*_cost_guard(cfg), ptoks, rtoks, None)
    cost = cfg.substitution_cost
    columns = zip(*[_error_counts(p, r, cost) for p, r in zip(ptoks, rtoks, strict=True)], strict=True)
    names = ErrorRateStats.field_names()
    return StatsBatch.from_lists(ErrorRateStats, dict(zip(names, map(list, columns), strict=True)))


def _error_rate_pair(prediction: str, reference: str, cfg: ErrorRateConfig) -> tuple[int, ...]:
    # the kernel's tokenizer, guard and per-pair function on one pair
    tok = tokenizer_of(cfg.tokenizer or _UNITS[cfg.unit])
    if cfg.normalizer is not None:
        prediction, reference = _normalized([prediction, reference], cfg)
    ptoks, rtoks = tok(prediction), tok(reference)
    check_pair(*_cost_guard(cfg), ptoks, rtoks)
    return _error_counts(ptoks, rtoks, cfg.substitution_cost)


def error_rate_from_stats(stats: ErrorRateStats, cfg: ErrorRateConfig) -> ErrorRateResult:
    h, s, d, i = stats.hits, stats.substitutions, stats.deletions, stats.insertions
    n_ref, n_pred = stats.reference_length, stats.prediction_length
    # jiwer: with no reference token at all, the "rate" is the number of insertions
    np = loaded() if is_array(n_ref) else None  # numpy for per-segment columns; corpus numbers need none
    rate = (
        np.where(n_ref == 0, i, safe_div(stats.errors, n_ref))
        if np is not None
        else (float(i) if n_ref == 0 else stats.errors / n_ref)
    )
    if cfg.preset == "torchmetrics":  # the distance over the longer side, and that side's length less it as hits
        longer = stats.longer_length
        mer = safe_div(stats.errors, longer)
        kept = longer - stats.errors
        wip = safe_div(kept, n_ref) * safe_div(kept, n_pred)
    else:
        mer = safe_div(s + d + i, h + s + d + i)
        wip = safe_div(h, n_ref) * safe_div(h, n_pred)
    if np is not None:
        mer = np.where(n_ref == 0, np.asarray(n_pred != 0, dtype=np.float64), mer)
        wip = np.where(n_ref == 0, np.asarray(n_pred == 0, dtype=np.float64), wip)
    elif n_ref == 0:
        mer, wip = (0.0, 1.0) if n_pred == 0 else (1.0, 0.0)
    return ErrorRateResult(
        score=rate,
        errors=stats.errors,
        hits=h,
        substitutions=s,
        deletions=d,
        insertions=i,
        reference_length=n_ref,
        prediction_length=n_pred,
        longer_length=stats.longer_length,
        mer=mer,
        wil=1.0 - wip,
        wip=wip,
    )


#: torchmetrics' tokenisation of each unit (its classes split on characters or on single spaces)
_TORCHMETRICS_TOKENIZERS = {"char": "char", "word": "whitespace"}


def _error_rate_family(
    name: str,
    unit: str,
    formula: Any = error_rate_from_stats,
    *,
    higher_is_better: bool = False,
    bounds: tuple[float, float | None] = (0.0, None),
) -> Family[ErrorRateConfig, ErrorRateStats, ErrorRateResult]:
    """One of the five families over the alignment counts: they differ in the unit and the headline only."""
    return Family(
        cache_configs=True,
        name=name,
        higher_is_better=higher_is_better,
        bounds=bounds,
        config_cls=ErrorRateConfig,
        stats_cls=ErrorRateStats,
        kernel=_error_rate_kernel,
        pair_kernel=_error_rate_pair,
        formula=formula,
        stats_check=_error_rate_check,
        presets={
            "jiwer": {"unit": unit},
            "torchmetrics": {"unit": unit, "tokenizer": _TORCHMETRICS_TOKENIZERS[unit]},
        },
        default_preset="jiwer",
        single_reference=True,
        vectorized=True,
    )


def _headline(measure: str) -> Any:
    """The error-rate formula with ``measure`` (``"mer"``, ``"wil"`` or ``"wip"``) as the headline score."""

    def formula(stats: ErrorRateStats, cfg: ErrorRateConfig) -> ErrorRateResult:
        result = error_rate_from_stats(stats, cfg)
        return dataclasses.replace(result, score=getattr(result, measure))

    formula.__name__ = f"{measure}_from_stats"
    formula.__doc__ = f"``error_rate_from_stats`` with ``{measure}`` as the score."
    return formula


def _word_measure(name: str, higher_is_better: bool) -> Family[ErrorRateConfig, ErrorRateStats, ErrorRateResult]:
    return _error_rate_family(name, "word", _headline(name), higher_is_better=higher_is_better, bounds=(0.0, 1.0))


CER = _error_rate_family("cer", "char")
WER = _error_rate_family("wer", "word")
MER = _word_measure("mer", higher_is_better=False)
WIL = _word_measure("wil", higher_is_better=False)
WIP = _word_measure("wip", higher_is_better=True)


# ====================================================================== the functional API
Refs = Sequence[str | Sequence[str]] | str


class ErrorRateFunction(Protocol):
    """The call of ``cer``, ``wer``, ``mer``, ``wil`` and ``wip`` (mypy checks it against the one definition)."""

    def __call__(
        self,
        predictions: Sequence[str] | str,
        references: Refs,
        *,
        preset: str | None = None,
        tokenizer: str | None = None,
        substitution_cost: int = 1,
        segments: bool = False,
        normalizer: str | None = None,
    ) -> ErrorRateResult: ...


def _error_rate_function(
    family: Family[ErrorRateConfig, ErrorRateStats, ErrorRateResult], doc: str
) -> ErrorRateFunction:
    """The functional API of the error-rate ``family``: a function named after it, with ``doc`` as its docstring.
    It is built in this module, so its doctests run (``--doctest-modules`` collects the functions whose globals
    are the module's), and Python's own messages for a wrong call name it."""

    def function(
        predictions: Sequence[str] | str,
        references: Refs,
        *,
        preset: str | None = None,
        tokenizer: str | None = None,
        substitution_cost: int = 1,
        segments: bool = False,
        normalizer: str | None = None,
    ) -> ErrorRateResult:
        options: dict[str, Any] = {"substitution_cost": substitution_cost}
        if tokenizer is not None:
            options["tokenizer"] = tokenizer
        if normalizer is not None:
            options["normalizer"] = normalizer
        return family.compute(predictions, references, family.make_config(preset, **options), segments=segments)

    function.__name__ = function.__qualname__ = family.name
    function.__doc__ = doc
    return function


def edit_distance(
    predictions: Sequence[str] | str,
    references: Refs,
    *,
    substitution_cost: int = 1,
    reduction: str | None = "mean",
    segments: bool = False,
) -> EditDistanceResult:
    """Exact character-level Levenshtein distance, as torchmetrics' ``EditDistance`` means it (but exact).

    With several references per segment, the closest one counts.

    >>> edit_distance(["hello world" * 4], ["x" * 60 + "hello world" * 4]).score
    60.0
    >>> edit_distance(["rain", "lnaguaeg"], ["shine", "language"], reduction="sum").score
    7
    """
    cfg = EDIT_DISTANCE.make_config(substitution_cost=substitution_cost, reduction=reduction)
    return EDIT_DISTANCE.compute(predictions, references, cfg, segments=segments)


cer = _error_rate_function(
    CER,
    """Character error rate over the corpus, ``(S + D + I) / (H + S + D)``, identical to ``jiwer.cer``.

    Note the argument order: ``(predictions, references)``, the reverse of jiwer's.

    >>> cer(["this is the prediction"], ["this is the reference"]).score  # doctest: +ELLIPSIS
    0.3809...
    """,
)


wer = _error_rate_function(
    WER,
    """Word error rate over the corpus, identical to ``jiwer.wer`` (and ``mer``, ``wil``, ``wip`` alongside).

    >>> r = wer(["hello duck", "i like python"], ["hello world", "i like monty python"])
    >>> r.substitutions, r.deletions, r.insertions, r.reference_length
    (1, 1, 0, 6)
    >>> round(r.score, 4)
    0.3333
    >>> wer(["Mr Smith paid twenty five dollars"], ["Mister Smith paid $25."], normalizer="whisper-english").score
    0.0
    """,
)


mer = _error_rate_function(
    MER,
    """Match error rate over the corpus, ``(S + D + I) / (H + S + D + I)``, identical to ``jiwer.mer``;
    ``preset="torchmetrics"``: torchmetrics' ``MatchErrorRate``, ``Σ distance / Σ max(N_ref, N_pred)`` (see the
    module's docstring). The counts, WER, WIL and WIP come alongside.

    >>> r = mer(["hello duck", "i like python"], ["hello world", "i like monty python"])
    >>> round(r.score, 4), r.hits, r.substitutions, r.deletions
    (0.3333, 4, 1, 1)
    """,
)


wil = _error_rate_function(
    WIL,
    """Word information lost over the corpus, ``1 - H/N_ref · H/N_pred``, identical to ``jiwer.wil``;
    ``preset="torchmetrics"``: torchmetrics' ``WordInfoLost``.

    >>> round(wil(["hello duck", "i like python"], ["hello world", "i like monty python"]).score, 4)
    0.4667
    """,
)


wip = _error_rate_function(
    WIP,
    """Word information preserved over the corpus, ``H/N_ref · H/N_pred``, identical to ``jiwer.wip``;
    ``preset="torchmetrics"``: torchmetrics' ``WordInfoPreserved``.

    >>> round(wip(["hello duck", "i like python"], ["hello world", "i like monty python"]).score, 4)
    0.5333
    """,
)
