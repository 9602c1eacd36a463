"""The functional API: one call scores a whole corpus.

Every function here is a thin layer: it builds the family's config, sums the per-segment statistics and applies
the family's formula. Argument order is always ``(predictions, references)``; references are per segment, a
string or a list of strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .metrics.anls import ANLS, ANLSResult
from .metrics.edit import CER, EDIT_DISTANCE, NLS, WER, EditDistanceResult, ErrorRateResult, NLSResult

__all__ = ["anls", "cer", "edit_distance", "nls", "wer"]

Refs = Sequence[str | Sequence[str]] | str


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
    options: dict[str, Any] = {"substitution_cost": substitution_cost}
    if tokenizer is not None:
        options["tokenizer"] = tokenizer
    cfg = CER.make_config(preset, **options)
    return CER.compute(predictions, references, cfg, segments=segments)


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
    options: dict[str, Any] = {"substitution_cost": substitution_cost}
    if tokenizer is not None:
        options["tokenizer"] = tokenizer
    cfg = WER.make_config(preset, **options)
    return WER.compute(predictions, references, cfg, segments=segments)


def anls(
    predictions: Sequence[str] | str,
    references: Refs,
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
