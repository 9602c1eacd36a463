"""Edit-distance metrics: ``edit_distance``, ``nls`` (normalised Levenshtein similarity), ``cer`` and ``wer``.

All four use the exact (weighted) Levenshtein distance. ``substitution_cost`` has the meaning of torchmetrics'
``EditDistance``: insertions and deletions cost 1, a substitution costs ``substitution_cost``. Unlike
torchmetrics, whose ``EditDistance`` is a beam search that can over-count (``'hello world'*4`` against
``'x'*60 + 'hello world'*4`` gives 78 there; the true distance is 60), the distance here is exact.

Reference behaviours reproduced:

* ``nls``: ``1 - lev(p, t) / max(len p, len t)``, 1.0 when both are empty, with torchmetrics-style
  ``reduction`` (``"mean"``, ``"sum"``, ``"none"``/``None``; no samples gives 0).
* ``cer`` / ``wer``, preset ``"jiwer"`` (the default): ``jiwer.cer(reference, hypothesis)`` and
  ``jiwer.wer(reference, hypothesis)`` of jiwer 4.0 with their default transforms — corpus rate
  ``(S + D + I) / (H + S + D)``, and when the references hold no token at all, the number of insertions.
* ``mer`` / ``wil`` / ``wip``, preset ``"jiwer"`` (the default): ``jiwer.mer``, ``jiwer.wil`` and ``jiwer.wip``
  ``(reference, hypothesis)`` of jiwer 4.0 (torchmetrics' ``MatchErrorRate``, ``WordInfoLost``,
  ``WordInfoPreserved``): the WER family's kernel, statistics and formula, with another of the formula's values
  as the headline — ``MER = (S + D + I) / (H + S + D + I)``, ``WIP = H/N_ref · H/N_pred``, ``WIL = 1 - WIP``
  (with no reference token: MER 0 and WIP 1 for an empty prediction, MER 1 and WIP 0 otherwise).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._inputs import ReferenceSets
from .._np import is_array, is_numpy_number, loaded
from ..algorithms.edit import (
    expand_pairs,
    lengths,
    levenshtein_many,
    normalized_similarity_many,
    operation_counts,
    reduce_segments,
)
from ..algorithms.guard import check_items
from ..errors import InvalidInputError, unknown_option
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from ..text import get_tokenizer
from ..text.registry import check_tokenizer_name, resolve_ja_mecab
from .base import Family, Result, check_reduction, safe_div

if TYPE_CHECKING:
    import numpy as np

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


#: The largest substitution cost (above 2 a substitution is never cheaper than a deletion and an insertion; the
#: cap keeps every distance within 64-bit integers).
MAX_SUBSTITUTION_COST = 2**31 - 1


def _check_substitution_cost(value: Any) -> None:
    if isinstance(value, bool) or not (isinstance(value, int) or is_numpy_number(value, "i")) or value < 0:
        raise InvalidInputError(
            f"substitution_cost must be a non-negative integer (as in torchmetrics' EditDistance), got {value!r}"
        )
    if value > MAX_SUBSTITUTION_COST:
        raise InvalidInputError(f"substitution_cost must be <= {MAX_SUBSTITUTION_COST:,}, got {value!r}")


# ====================================================================== edit distance
@dataclasses.dataclass(frozen=True)
class EditDistanceConfig:
    substitution_cost: int = sig_field("sub", 1)
    reduction: str | None = sig_field("red", "mean")

    def __post_init__(self) -> None:
        _check_substitution_cost(self.substitution_cost)
        object.__setattr__(self, "reduction", check_reduction(self.reduction))


@dataclasses.dataclass(frozen=True)
class EditDistanceStats(Stats):
    """Sum of per-segment distances (the closest reference's) and the number of segments."""

    distance: int
    count: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class EditDistanceResult(Result):
    distance_sum: int = 0
    count: int = 0


def _guard(metric: str, flat_p: Sequence[Any], flat_r: Sequence[Any], starts: np.ndarray | None, kernel: str) -> None:
    """Refuse, before it runs, a pair whose edit distance would take longer than the limit
    (:mod:`nlgmetrics.algorithms.guard`)."""
    check_items(metric, kernel, flat_p, flat_r, starts)


def _edit_kernel(preds: list[str], refs: ReferenceSets, cfg: EditDistanceConfig) -> StatsBatch[EditDistanceStats]:
    flat_p, flat_r, starts = expand_pairs(preds, refs)
    _guard("edit_distance", flat_p, flat_r, starts, "levenshtein")
    dist = reduce_segments(levenshtein_many(flat_p, flat_r, cfg.substitution_cost), starts, "min")
    return StatsBatch.from_lists(EditDistanceStats, {"distance": dist.tolist(), "count": [1] * len(preds)})


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
    formula=edit_distance_from_stats,
    vectorized=True,
)


# ====================================================================== NLS
@dataclasses.dataclass(frozen=True)
class NLSConfig:
    substitution_cost: int = sig_field("sub", 1)
    reduction: str | None = sig_field("red", "mean")

    def __post_init__(self) -> None:
        _check_substitution_cost(self.substitution_cost)
        object.__setattr__(self, "reduction", check_reduction(self.reduction))


@dataclasses.dataclass(frozen=True)
class NLSStats(Stats):
    """Sum of per-segment similarities and the number of segments."""

    score_sum: float
    count: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class NLSResult(Result):
    count: int = 0


def normalized_distances(
    flat_preds: list[str], flat_refs: list[str], substitution_cost: int, denominators: np.ndarray | None = None
) -> np.ndarray:
    """``lev / max(len)`` per pair; 0.0 where both strings are empty. ``denominators`` overrides the lengths
    (the official DocVQA script divides by the lengths of the raw, unnormalised strings)."""
    import numpy as np

    dist = levenshtein_many(flat_preds, flat_refs, substitution_cost)
    if denominators is None:
        denominators = np.maximum(lengths(flat_preds), lengths(flat_refs))
    return safe_div(dist, denominators, default=0.0)


def _nls_kernel(preds: list[str], refs: ReferenceSets, cfg: NLSConfig) -> StatsBatch[NLSStats]:
    flat_p, flat_r, starts = expand_pairs(preds, refs)
    _guard("nls", flat_p, flat_r, starts, "levenshtein")
    if cfg.substitution_cost == 1:
        sim = normalized_similarity_many(flat_p, flat_r)
    else:
        sim = 1.0 - normalized_distances(flat_p, flat_r, cfg.substitution_cost)
    return segment_score_batch(reduce_segments(sim, starts, "max"))


def segment_score_batch(scores: np.ndarray) -> StatsBatch[NLSStats]:
    """Per-segment scores as :class:`NLSStats` (a score and a count each): for every metric whose corpus score is
    the mean (or the sum) of its segment scores."""
    if isinstance(scores, list) and scores:  # see algorithms.edit.SMALL: Python lists, no numpy
        return StatsBatch.from_lists(NLSStats, {"score_sum": scores, "count": [1] * len(scores)})
    import numpy as np

    return StatsBatch(NLSStats, {"score_sum": np.asarray(scores), "count": np.ones(len(scores), dtype=np.int64)})


def reduce_segment_scores(stats: NLSStats, reduction: str | None) -> Any:
    """The mean of the segment scores, or their sum with ``reduction="sum"`` (0 with no segment)."""
    return stats.score_sum if reduction == "sum" else safe_div(stats.score_sum, stats.count)


def nls_from_stats(stats: NLSStats, cfg: NLSConfig) -> NLSResult:
    return NLSResult(score=reduce_segment_scores(stats, cfg.reduction), count=stats.count)


NLS: Family[NLSConfig, NLSStats, NLSResult] = Family(
    cache_configs=True,
    name="nls",
    bounds=(0.0, 1.0),
    config_cls=NLSConfig,
    stats_cls=NLSStats,
    kernel=_nls_kernel,
    formula=nls_from_stats,
    vectorized=True,
)


# ====================================================================== CER / WER
_UNITS = {"char": "jiwer-chars", "word": "jiwer-words"}


@dataclasses.dataclass(frozen=True)
class ErrorRateConfig:
    """``unit`` is ``"char"`` (CER) or ``"word"`` (WER); ``tokenizer`` defaults to jiwer's transform for it."""

    unit: str = sig_field("unit", "word")
    tokenizer: str | None = sig_field("tok", None)
    substitution_cost: int = sig_field("sub", 1)
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        if self.unit not in _UNITS:
            raise unknown_option("unit", self.unit, list(_UNITS))
        _check_substitution_cost(self.substitution_cost)
        if self.tokenizer is None or self.tokenizer == _UNITS[self.unit]:  # the internal name of the default
            object.__setattr__(self, "tokenizer", _UNITS[self.unit])
        else:
            check_tokenizer_name(self.tokenizer)
            # "ja-mecab" is the registry's: fugashi with UniDic-lite; the signature names the dictionary
            object.__setattr__(self, "tokenizer", resolve_ja_mecab(self.tokenizer, "ja-mecab-unidic-lite"))
        get_tokenizer(self.tokenizer or _UNITS[self.unit])  # fail early on an unknown name


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
    mer: float = 0.0
    wil: float = 0.0
    wip: float = 0.0


def _error_rate_kernel(preds: list[str], refs: ReferenceSets, cfg: ErrorRateConfig) -> StatsBatch[ErrorRateStats]:
    tok = get_tokenizer(cfg.tokenizer or _UNITS[cfg.unit])
    ptoks = [tok(p) for p in preds]
    rtoks = [tok(r) for r in refs.first()]
    if cfg.unit == "char":
        _guard("cer", ptoks, rtoks, None, "levenshtein")
    else:
        _guard("wer", ptoks, rtoks, None, "token-levenshtein")
    hits, subs, dels, ins = (list(c) for c in zip(*map(operation_counts, rtoks, ptoks), strict=True))
    errors = (
        list(map(_sum3, subs, dels, ins))
        if cfg.substitution_cost == 1
        else levenshtein_many(ptoks, rtoks, cfg.substitution_cost).tolist()
    )
    return StatsBatch.from_lists(
        ErrorRateStats,
        {
            "errors": errors,
            "hits": hits,
            "substitutions": subs,
            "deletions": dels,
            "insertions": ins,
            "reference_length": list(map(len, rtoks)),
            "prediction_length": list(map(len, ptoks)),
        },
    )


def _sum3(a: int, b: int, c: int) -> int:
    return a + b + c


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
    unit_errors = s + d + i
    mer = safe_div(unit_errors, h + s + d + i)
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
        mer=mer,
        wil=1.0 - wip,
        wip=wip,
    )


CER: Family[ErrorRateConfig, ErrorRateStats, ErrorRateResult] = Family(
    cache_configs=True,
    name="cer",
    higher_is_better=False,
    bounds=(0.0, None),
    config_cls=ErrorRateConfig,
    stats_cls=ErrorRateStats,
    kernel=_error_rate_kernel,
    formula=error_rate_from_stats,
    presets={"jiwer": {"unit": "char"}},
    default_preset="jiwer",
    single_reference=True,
    vectorized=True,
)

WER: Family[ErrorRateConfig, ErrorRateStats, ErrorRateResult] = Family(
    cache_configs=True,
    name="wer",
    higher_is_better=False,
    bounds=(0.0, None),
    config_cls=ErrorRateConfig,
    stats_cls=ErrorRateStats,
    kernel=_error_rate_kernel,
    formula=error_rate_from_stats,
    presets={"jiwer": {"unit": "word"}},
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
    return Family(
        name=name,
        higher_is_better=higher_is_better,
        bounds=(0.0, 1.0),
        config_cls=ErrorRateConfig,
        stats_cls=ErrorRateStats,
        kernel=_error_rate_kernel,
        formula=_headline(name),
        presets={"jiwer": {"unit": "word"}},
        default_preset="jiwer",
        single_reference=True,
        vectorized=True,
    )


MER = _word_measure("mer", higher_is_better=False)
WIL = _word_measure("wil", higher_is_better=False)
WIP = _word_measure("wip", higher_is_better=True)


# ====================================================================== the functional API
Refs = Sequence[str | Sequence[str]] | str


def _error_rate_call(
    family: Family[ErrorRateConfig, ErrorRateStats, ErrorRateResult],
    predictions: Sequence[str] | str,
    references: Refs,
    preset: str | None,
    tokenizer: str | None,
    substitution_cost: int,
    segments: bool,
) -> ErrorRateResult:
    options: dict[str, Any] = {"substitution_cost": substitution_cost}
    if tokenizer is not None:
        options["tokenizer"] = tokenizer
    return family.compute(predictions, references, family.make_config(preset, **options), segments=segments)


def nls(
    predictions: Sequence[str] | str,
    references: Refs,
    *,
    substitution_cost: int = 1,
    reduction: str | None = "mean",
    segments: bool = False,
) -> NLSResult:
    """Normalized Levenshtein similarity, ``1 - lev(p, t) / max(len p, len t)`` (1.0 when both are empty).

    With several references per segment, the most similar one counts. ``reduction`` is ``"mean"``, ``"sum"``
    or ``"none"``/``None`` (then ``score`` holds one value per segment).

    >>> nls(["rain", "lnaguaeg"], ["shine", "language"]).score
    0.45
    >>> nls(["rain", "lnaguaeg"], ["shine", "language"], reduction=None).score
    (0.4, 0.5)
    """
    cfg = NLS.make_config(substitution_cost=substitution_cost, reduction=reduction)
    return NLS.compute(predictions, references, cfg, segments=segments)


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


def cer(
    predictions: Sequence[str] | str,
    references: Refs,
    *,
    preset: str | None = None,
    tokenizer: str | None = None,
    substitution_cost: int = 1,
    segments: bool = False,
) -> ErrorRateResult:
    """Character error rate over the corpus, ``(S + D + I) / (H + S + D)``, identical to ``jiwer.cer``.

    Note the argument order: ``(predictions, references)``, the reverse of jiwer's.

    >>> cer(["this is the prediction"], ["this is the reference"]).score  # doctest: +ELLIPSIS
    0.3809...
    """
    return _error_rate_call(CER, predictions, references, preset, tokenizer, substitution_cost, segments)


def wer(
    predictions: Sequence[str] | str,
    references: Refs,
    *,
    preset: str | None = None,
    tokenizer: str | None = None,
    substitution_cost: int = 1,
    segments: bool = False,
) -> ErrorRateResult:
    """Word error rate over the corpus, identical to ``jiwer.wer`` (and ``mer``, ``wil``, ``wip`` alongside).

    >>> r = wer(["hello duck", "i like python"], ["hello world", "i like monty python"])
    >>> r.substitutions, r.deletions, r.insertions, r.reference_length
    (1, 1, 0, 6)
    >>> round(r.score, 4)
    0.3333
    """
    return _error_rate_call(WER, predictions, references, preset, tokenizer, substitution_cost, segments)


def mer(
    predictions: Sequence[str] | str,
    references: Refs,
    *,
    preset: str | None = None,
    tokenizer: str | None = None,
    substitution_cost: int = 1,
    segments: bool = False,
) -> ErrorRateResult:
    """Match error rate over the corpus, ``(S + D + I) / (H + S + D + I)``, identical to ``jiwer.mer``
    (torchmetrics' ``MatchErrorRate``). The counts, WER, WIL and WIP come alongside.

    >>> r = mer(["hello duck", "i like python"], ["hello world", "i like monty python"])
    >>> round(r.score, 4), r.hits, r.substitutions, r.deletions
    (0.3333, 4, 1, 1)
    """
    return _error_rate_call(MER, predictions, references, preset, tokenizer, substitution_cost, segments)


def wil(
    predictions: Sequence[str] | str,
    references: Refs,
    *,
    preset: str | None = None,
    tokenizer: str | None = None,
    substitution_cost: int = 1,
    segments: bool = False,
) -> ErrorRateResult:
    """Word information lost over the corpus, ``1 - H/N_ref · H/N_pred``, identical to ``jiwer.wil``
    (torchmetrics' ``WordInfoLost``).

    >>> round(wil(["hello duck", "i like python"], ["hello world", "i like monty python"]).score, 4)
    0.4667
    """
    return _error_rate_call(WIL, predictions, references, preset, tokenizer, substitution_cost, segments)


def wip(
    predictions: Sequence[str] | str,
    references: Refs,
    *,
    preset: str | None = None,
    tokenizer: str | None = None,
    substitution_cost: int = 1,
    segments: bool = False,
) -> ErrorRateResult:
    """Word information preserved over the corpus, ``H/N_ref · H/N_pred``, identical to ``jiwer.wip``
    (torchmetrics' ``WordInfoPreserved``).

    >>> round(wip(["hello duck", "i like python"], ["hello world", "i like monty python"]).score, 4)
    0.5333
    """
    return _error_rate_call(WIP, predictions, references, preset, tokenizer, substitution_cost, segments)
