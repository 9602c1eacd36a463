"""NLS, the normalised Levenshtein similarity: ``nls``.

Reference behaviour reproduced: ``1 - lev(p, t) / max(len p, len t)`` with the exact (weighted) Levenshtein
distance, 1.0 when both are empty, with torchmetrics-style ``reduction`` (``"mean"``, ``"sum"``,
``"none"``/``None``; no samples gives 0). ``substitution_cost`` has the meaning of torchmetrics' ``EditDistance``:
insertions and deletions cost 1, a substitution costs ``substitution_cost``. With several references per segment
the most similar one counts.

NLS has a module of its own, apart from the other edit-distance families (:mod:`nlgmetrics.metrics.edit`, which
re-exports every name here): a fresh process that scores NLS, a reward computed thousands of times, imports this
family only. Its :attr:`~nlgmetrics.metrics.base.Family.pair_kernel` scores one pair without a batch around it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from .._inputs import ReferenceSets
from .._np import is_numpy_number
from ..algorithms.edit import expand_pairs, normalized_similarity, normalized_similarity_many, reduce_segments
from ..algorithms.guard import check_items, check_pair
from ..errors import InvalidInputError
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from .base import Family, Result, check_reduction, safe_div

__all__ = ["NLS", "NLSConfig", "NLSResult", "NLSStats", "nls"]

C = TypeVar("C")
R = TypeVar("R", bound=Result)

#: The largest substitution cost (above 2 a substitution is never cheaper than a deletion and an insertion; the
#: cap keeps every distance within 64-bit integers).
MAX_SUBSTITUTION_COST = 2**31 - 1


def check_substitution_cost(value: Any) -> None:
    """Raise :class:`InvalidInputError` unless ``value`` is a non-negative integer within the cap."""
    if isinstance(value, bool) or not (isinstance(value, int) or is_numpy_number(value, "i")) or value < 0:
        raise InvalidInputError(
            f"substitution_cost must be a non-negative integer (as in torchmetrics' EditDistance), got {value!r}"
        )
    if value > MAX_SUBSTITUTION_COST:
        raise InvalidInputError(f"substitution_cost must be <= {MAX_SUBSTITUTION_COST:,}, got {value!r}")


# (every dataclass here has a docstring: without one, the dataclass decorator computes a signature for it with
# inspect, a cost paid at import)
@dataclasses.dataclass(frozen=True)
class NLSConfig:
    """Options of NLS: the cost of a substitution and the torchmetrics-style reduction."""

    substitution_cost: int = sig_field("sub", 1, help="cost of a substitution; insertions and deletions cost 1")
    reduction: str | None = sig_field(
        "red", "mean", help="how to reduce the per-segment values", choices=("mean", "sum", "none")
    )

    def __post_init__(self) -> None:
        check_substitution_cost(self.substitution_cost)
        object.__setattr__(self, "reduction", check_reduction(self.reduction))


@dataclasses.dataclass(frozen=True)
class NLSStats(Stats):
    """Sum of per-segment similarities and the number of segments."""

    per_segment_max: ClassVar[Mapping[str, float]] = {"score_sum": 1.0}

    score_sum: float
    count: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class NLSResult(Result):
    """The mean (or sum, or per-segment) similarity over ``count`` segments."""

    count: int = 0


def _nls_kernel(preds: list[str], refs: ReferenceSets, cfg: NLSConfig) -> StatsBatch[NLSStats]:
    flat_p, flat_r, starts = expand_pairs(preds, refs)
    check_items("nls", "levenshtein", flat_p, flat_r, starts)
    sim = normalized_similarity_many(flat_p, flat_r, cfg.substitution_cost)
    return segment_score_batch(reduce_segments(sim, starts, "max"))


def _nls_pair(prediction: str, reference: str, cfg: NLSConfig) -> tuple[float, int]:
    # the kernel's guard and per-pair function on one pair
    check_pair("nls", "levenshtein", prediction, reference)
    return normalized_similarity(prediction, reference, cfg.substitution_cost), 1


def segment_score_batch(scores: Any) -> StatsBatch[NLSStats]:
    """Per-segment scores as :class:`NLSStats` (a score and a count each): for every metric whose corpus score is
    the mean (or the sum) of its segment scores."""
    if isinstance(scores, list) and scores:  # see algorithms.edit.SMALL: Python lists, no numpy
        return StatsBatch.from_lists(NLSStats, {"score_sum": scores, "count": [1] * len(scores)})
    import numpy as np

    return StatsBatch(NLSStats, {"score_sum": np.asarray(scores), "count": np.ones(len(scores), dtype=np.int64)})


def lowest_per_segment(segments: Iterable[Iterable[float]]) -> StatsBatch[NLSStats]:
    """Each segment's lowest score over its references (``segments``: per segment, the score against each
    reference), as :class:`NLSStats`: for the distances whose closest reference counts (CharacTER, EED)."""
    import numpy as np

    scores = []
    for per_reference in segments:
        best = float("inf")
        for score in per_reference:
            best = min(best, score)
        scores.append(best)
    return segment_score_batch(np.asarray(scores, dtype=np.float64))


def reduce_segment_scores(stats: NLSStats, reduction: str | None) -> Any:
    """The mean of the segment scores, or their sum with ``reduction="sum"`` (0 with no segment)."""
    return stats.score_sum if reduction == "sum" else safe_div(stats.score_sum, stats.count)


def closest_reference_family(
    name: str,
    config_cls: type[C],
    formula: Callable[[NLSStats, C], R],
    kernel: Callable[[list[str], ReferenceSets, C], StatsBatch[NLSStats]],
    preset: str,
) -> Family[C, NLSStats, R]:
    """A distance family (0-1, lower is better) whose segment score is the closest reference's
    (:func:`lowest_per_segment`) and whose corpus score is the mean (or with ``reduction="sum"`` the sum) of the
    segment scores (:func:`reduce_segment_scores`): CharacTER, EED. ``preset`` names the one reference tool."""
    return Family(
        name=name,
        higher_is_better=False,
        bounds=(0.0, 1.0),
        config_cls=config_cls,
        stats_cls=NLSStats,
        kernel=kernel,
        formula=formula,
        presets={preset: {}},
        default_preset=preset,
        vectorized=True,
    )


def nls_from_stats(stats: NLSStats, cfg: NLSConfig) -> NLSResult:
    return NLSResult(score=reduce_segment_scores(stats, cfg.reduction), count=stats.count)


NLS: Family[NLSConfig, NLSStats, NLSResult] = Family(
    cache_configs=True,
    name="nls",
    bounds=(0.0, 1.0),
    config_cls=NLSConfig,
    stats_cls=NLSStats,
    kernel=_nls_kernel,
    pair_kernel=_nls_pair,
    formula=nls_from_stats,
    vectorized=True,
)


def nls(
    predictions: Sequence[str] | str,
    references: Sequence[str | Sequence[str]] | str,
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
    >>> nls("kitten", "sitting").score  # one pair
    0.5714285714285714
    """
    cfg = NLS.make_config(substitution_cost=substitution_cost, reduction=reduction)
    return NLS.compute(predictions, references, cfg, segments=segments)
