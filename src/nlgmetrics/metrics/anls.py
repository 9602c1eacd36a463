"""ANLS: Average Normalized Levenshtein Similarity, the DocVQA / ST-VQA / InfographicVQA answer metric.

Each question has one or more accepted answers. Prediction and answers are normalised (lowercase, strip,
whitespace runs collapsed to one space); the question scores the best similarity over its answers,
``1 - lev / len``, and 0 when that similarity falls under the threshold τ (0.5 by default). ANLS is the mean
over questions.

Two presets reproduce the two reference implementations in use. They differ in two details:

``docvqa`` (the default)
    The official Robust Reading Competition evaluation script for DocVQA, InfographicVQA and ST-VQA
    (``anls_compute`` in the RRC scripts): the distance is taken between the *normalised* strings but divided by
    ``max(len(raw_answer.upper()), len(raw_prediction.upper()))``, the lengths of the *raw* strings; a question
    scores 0 when ``similarity < τ``, so a similarity of exactly τ is kept.

``anls-pkg``
    The PyPI ``anls`` package 0.0.2 (``anls.anls_score``): the distance is divided by the lengths of the
    *normalised* strings, and an answer counts only when its normalised distance is strictly below τ
    (``distance < τ``), so a similarity of exactly ``1 - τ`` is dropped.

They disagree when the raw strings carry leading, trailing or repeated spaces (the raw length is then larger, so
the official similarity is higher), and when a similarity lands exactly on 0.5. See ``docs/anls.md`` for the
cases in the real DocVQA data.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from rapidfuzz.distance import Levenshtein

from .._inputs import ReferenceSets
from ..algorithms.edit import expand_pairs, reduce_segments
from ..algorithms.guard import check_items, check_pair
from ..errors import unknown_option
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from ..text import get_normalizer
from .base import Family, Result, check_number, safe_div

__all__ = ["ANLS", "ANLSConfig", "ANLSResult", "ANLSStats", "anls"]

_LENGTH_BASES = ("raw", "normalized")
_THRESHOLD_RULES = ("similarity", "distance")


@dataclasses.dataclass(frozen=True)
class ANLSConfig:
    """Options of ANLS.

    * ``threshold``: τ.
    * ``threshold_on``: ``"similarity"`` keeps an answer when ``similarity >= τ`` (official script);
      ``"distance"`` keeps it when ``normalised distance < τ`` (the ``anls`` package).
    * ``length_basis``: divide the distance by the lengths of the ``"raw"`` strings (official script) or of
      the ``"normalized"`` strings (the ``anls`` package). Lengths are those of ``s.upper()``, as in both.
    * ``normalizer``: ``"vqa"`` (lowercase, strip, collapse whitespace) or ``"none"``.
    """

    threshold: float = sig_field("tau", 0.5, help="the threshold tau under which a question scores 0")
    threshold_on: str = sig_field(
        "cut",
        "similarity",
        help="similarity: keep an answer when similarity >= tau (official script); distance: when the normalised "
        "distance < tau (the anls package)",
        choices=_THRESHOLD_RULES,
        role="convention",
    )
    length_basis: str = sig_field(
        "len",
        "raw",
        help="divide the distance by the lengths of the raw strings (official script) or of the normalized ones "
        "(the anls package)",
        choices=_LENGTH_BASES,
        role="convention",
    )
    normalizer: str = sig_field(
        "norm",
        "vqa",
        help="a named normaliser applied to both sides: vqa (lowercase, strip, collapse whitespace), none",
    )
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        check_number("threshold", self.threshold, minimum=0.0, maximum=1.0)
        if self.threshold_on not in _THRESHOLD_RULES:
            raise unknown_option("threshold_on", self.threshold_on, list(_THRESHOLD_RULES))
        if self.length_basis not in _LENGTH_BASES:
            raise unknown_option("length_basis", self.length_basis, list(_LENGTH_BASES))
        get_normalizer(self.normalizer)


@dataclasses.dataclass(frozen=True)
class ANLSStats(Stats):
    """``score_sum`` over ``count`` questions; ``exact`` questions matched an answer exactly after
    normalisation; ``cut`` questions had a non-zero best similarity that the threshold set to 0."""

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (("exact", "count"), ("cut", "count"))
    per_segment_max: ClassVar[Mapping[str, float]] = {"score_sum": 1.0}

    score_sum: float
    count: int
    exact: int
    cut: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class ANLSResult(Result):
    """The mean score over ``count`` questions; ``exact`` and ``cut`` as in :class:`ANLSStats`."""

    count: int = 0
    exact: int = 0
    cut: int = 0


def _upper_length(s: str) -> int:
    # Both reference scripts measure len(s.upper()), which differs from len(s) for a few characters (ß -> SS).
    return len(s) if s.isascii() else len(s.upper())


def _longest(basis_p: Sequence[str], basis_r: Sequence[str]) -> Iterator[int]:
    """The denominator of each pair: the larger ``len(s.upper())`` of the two strings the length basis names."""
    return map(max, map(_upper_length, basis_p), map(_upper_length, basis_r))


def _similarities(
    norm_preds: Sequence[str], norm_refs: Sequence[str], longest: Iterable[int], threshold: float, on_similarity: bool
) -> tuple[list[float], list[float]]:
    """Per pair of normalised strings: the similarity ``1 - lev / longest`` (1.0 where ``longest`` is 0), and the
    score: the similarity where the threshold keeps it, else 0.0. The kernel's scoring loop, one pair at a time
    (a one-pair call runs it on its pair)."""
    sims: list[float] = []
    scored: list[float] = []
    for lev, den in zip(map(Levenshtein.distance, norm_preds, norm_refs), longest, strict=True):
        dist = lev / den if den else 0.0
        sim = 1.0 - dist
        sims.append(sim)
        # compare exactly the quantity each reference script compares, to reproduce its ties at the threshold
        kept = sim >= threshold if on_similarity else dist < threshold
        scored.append(sim if kept else 0.0)
    return sims, scored


def _anls_kernel(preds: list[str], refs: ReferenceSets, cfg: ANLSConfig) -> StatsBatch[ANLSStats]:
    # Python lists throughout, no numpy: normalising the strings costs more than this loop, and a small call (or a
    # fresh process) does not pay for numpy's import or arrays.
    norm = get_normalizer(cfg.normalizer)
    flat_p, flat_r, starts = expand_pairs(preds, refs)
    flat_np, _, _ = expand_pairs([norm(p) for p in preds], refs)
    flat_nr = [norm(r) for r in flat_r]
    check_items("anls", "levenshtein", flat_np, flat_nr, starts)
    basis_p, basis_r = (flat_p, flat_r) if cfg.length_basis == "raw" else (flat_np, flat_nr)
    longest = _longest(basis_p, basis_r)
    sims, scored = _similarities(flat_np, flat_nr, longest, cfg.threshold, cfg.threshold_on == "similarity")
    exact_pair = [int(a == b) for a, b in zip(flat_np, flat_nr, strict=True)]
    best = reduce_segments(scored, starts, "max")
    raw_best = reduce_segments(sims, starts, "max")
    exact = reduce_segments(exact_pair, starts, "max")
    cut = [int(b == 0.0 and r > 0.0) for b, r in zip(best, raw_best, strict=True)]
    return StatsBatch.from_lists(
        ANLSStats, {"score_sum": list(best), "count": [1] * len(preds), "exact": list(exact), "cut": cut}
    )


def _anls_pair(prediction: str, reference: str, cfg: ANLSConfig) -> tuple[float, int, int, int]:
    # the kernel's normalisation, guard and scoring loop on one pair
    norm = get_normalizer(cfg.normalizer)
    norm_pred, norm_ref = norm(prediction), norm(reference)
    check_pair("anls", "levenshtein", norm_pred, norm_ref)
    basis = (prediction, reference) if cfg.length_basis == "raw" else (norm_pred, norm_ref)
    on_similarity = cfg.threshold_on == "similarity"
    (sim,), (score,) = _similarities((norm_pred,), (norm_ref,), _longest(*zip(basis)), cfg.threshold, on_similarity)
    return score, 1, int(norm_pred == norm_ref), int(score == 0.0 and sim > 0.0)


def anls_from_stats(stats: ANLSStats, cfg: ANLSConfig) -> ANLSResult:
    return ANLSResult(score=safe_div(stats.score_sum, stats.count), count=stats.count, exact=stats.exact, cut=stats.cut)


ANLS: Family[ANLSConfig, ANLSStats, ANLSResult] = Family(
    cache_configs=True,
    name="anls",
    bounds=(0.0, 1.0),
    config_cls=ANLSConfig,
    stats_cls=ANLSStats,
    kernel=_anls_kernel,
    pair_kernel=_anls_pair,
    formula=anls_from_stats,
    presets={
        "docvqa": {"threshold_on": "similarity", "length_basis": "raw", "normalizer": "vqa"},
        "anls-pkg": {"threshold_on": "distance", "length_basis": "normalized", "normalizer": "vqa"},
    },
    default_preset="docvqa",
    vectorized=True,
)


# ====================================================================== the functional API
def anls(
    predictions: Sequence[str] | str,
    references: Sequence[str | Sequence[str]] | str,
    *,
    preset: str | None = None,
    threshold: float | None = None,
    segments: bool = False,
    **options: Any,
) -> ANLSResult:
    """ANLS over questions: for each question the best normalised Levenshtein similarity over its accepted
    answers, set to 0 under the threshold τ; then the mean.

    ``preset="docvqa"`` (default) reproduces the official RRC evaluation script; ``preset="anls-pkg"`` the PyPI
    ``anls`` package. ``segments=True`` adds the per-question scores.

    >>> anls(["Denver Broncos", "12/15/89"], [["denver broncos", "Denver R. Broncos"], ["12/15/88"]]).score
    0.9375
    """
    if threshold is not None:
        options["threshold"] = threshold
    cfg = ANLS.make_config(preset, **options)
    return ANLS.compute(predictions, references, cfg, segments=segments)
