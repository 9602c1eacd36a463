"""CharacTER (Wang et al. 2016): a character-level translation edit rate with word shifts.

Preset ``cer`` (the default) reproduces the PyPI package ``cer`` 1.2.0 as HF evaluate's ``character`` metric calls
it: ``evaluate.load("character").compute(predictions, references, aggregate="mean")``, i.e. each text split on
whitespace (``str.split``), then ``cer.calculate_cer(hyp_words, ref_words)`` per segment:

1. the word-level Levenshtein distance normalised by the number of reference words;
2. greedily, while it lowers that distance: of all shifts of a hypothesis phrase that also occurs in the reference
   at another position (to that position), the one with the largest gain (ties go to the largest shifted word
   list, as the package sorts ``(gain, words)`` tuples);
3. the shift cost: for each shifted phrase, its average word length in characters (the package's own walk);
4. ``min(1, (character Levenshtein distance of the space-joined shifted hypothesis and reference + shift cost) /
   number of characters of the joined shifted hypothesis)``; 0 when step 1 gives 0, 1 for an empty hypothesis.

The corpus score is the mean of the segment scores (``aggregate="mean"``), or their sum with ``reduction="sum"``
(``aggregate="sum"``); HF's ``aggregate="median"`` is not additive: take the median of ``segments``. The package
divides by the number of reference words, so an empty reference (no word) has no score: it is refused, with its
index. With several references per segment the lowest score counts, as HF evaluate's ``character`` takes the
minimum over a list of references.

Why not the package itself: it keeps every candidate shift's word list and recomputes each Levenshtein distance
in Python objects; here the words become integer ids (in sorted order, so that ties break as the package's list
comparison breaks them) and the distances come from rapidfuzz's C++ kernel, with the same arithmetic.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein

from .._inputs import ReferenceSets
from ..algorithms.guard import Deadline, check_pairs
from ..errors import InvalidInputError
from ..signature import sig_field
from ..stats import StatsBatch
from .base import Result, check_reduction
from .nls import NLSStats, closest_reference_family, lowest_per_segment, reduce_segment_scores

__all__ = ["CHARACTER", "CharacTERConfig", "CharacTERResult", "character", "character_score"]


@dataclasses.dataclass(frozen=True)
class CharacTERConfig:
    reduction: str | None = sig_field(
        "red", "mean", help="mean (HF aggregate='mean'), sum, or none (one score per segment)"
    )
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reduction", check_reduction(self.reduction))


@dataclasses.dataclass(frozen=True, kw_only=True)
class CharacTERResult(Result):
    """``score`` is the mean CharacTER (or the sum, or per-segment values); lower is better."""

    count: int = 0


def _shift_cost(shifted: list[str], original: list[str]) -> float:
    """The package's shift cost: a walk over the shifted hypothesis that charges, for each position holding
    another word than the original, the average length of the longest phrase found shifted there."""
    cost = 0.0
    start = 0
    n = len(shifted)
    while start < n:
        average = 0.0
        index = start
        if original[start] == shifted[start]:
            start += 1
            continue
        for shift_start in range(start + 1, n):
            if original[start] == shifted[shift_start]:
                length = 1
                for pos in range(1, len(original) - index):
                    end_o, end_s = index + pos, shift_start + pos
                    if end_s < n and original[end_o] == shifted[end_s]:
                        length += 1
                        if start + 1 < len(original):
                            start += 1  # the package skips the matched words here (and still walks on below)
                    else:
                        break
                average = float(sum(len(original[index + k]) for k in range(length))) / length
                break
        cost += average
        start += 1
    return cost


def _phrases(hyp: list[int], ref: list[int]):
    """``(hypothesis start, reference start, length)`` of every word the two share at different positions, with
    the length of the common phrase from there (the package's ``couple_discoverer``)."""
    n_h, n_r = len(hyp), len(ref)
    positions: dict[int, list[int]] = {}
    for j, word in enumerate(ref):
        positions.setdefault(word, []).append(j)
    for i in range(n_h):
        for j in positions.get(hyp[i], ()):
            if i == j:
                continue
            length = 1
            for step in range(1, n_h - i):
                if j + step < n_r and hyp[i + step] == ref[j + step]:
                    length += 1
                else:
                    break
            yield i, j, length


def character_score(
    hyp_words: Sequence[str], ref_words: Sequence[str], *, check: Callable[[], None] | None = None
) -> float:
    """CharacTER of one tokenised segment, ``cer.calculate_cer(hyp_words, ref_words)`` of ``cer`` 1.2.0.
    ``check`` is called every few shift candidates (the cost guard's deadline: it raises to stop the search)."""
    if not ref_words:
        raise InvalidInputError("CharacTER needs at least one reference word (the cer package divides by their number)")
    vocabulary = {w: i for i, w in enumerate(sorted(set(hyp_words) | set(ref_words)))}
    words = [vocabulary[w] for w in hyp_words]
    ref = [vocabulary[w] for w in ref_words]
    n_ref = len(ref)
    pre_score = Levenshtein.distance(words, ref) / n_ref
    if pre_score == 0:
        return 0.0
    tried = 0
    while True:
        best: tuple[float, list[int]] | None = None
        for i, j, length in _phrases(words, ref):
            tried += 1
            if check is not None and not tried & 63:
                check()
            shifted = words[:i] + words[i + length :]
            shifted[j:j] = words[i : i + length]
            candidate = (pre_score - Levenshtein.distance(shifted, ref) / n_ref, shifted)
            if best is None or candidate > best:
                best = candidate
        if best is None or best[0] <= 0:
            break
        words = best[1]
        pre_score = pre_score - best[0]
    inverse = sorted(vocabulary)
    shifted_words = [inverse[k] for k in words]
    cost = _shift_cost(shifted_words, list(hyp_words))
    shifted_chars = " ".join(shifted_words)
    if not shifted_chars:
        return 1.0
    edit_cost = Levenshtein.distance(shifted_chars, " ".join(ref_words)) + cost
    return min(1.0, edit_cost / len(shifted_chars))


def _character_kernel(preds: list[str], refs: ReferenceSets, cfg: CharacTERConfig) -> StatsBatch[NLSStats]:
    seg, _ = refs.segments_and_columns()
    hyp_len = np.fromiter((len(p.split()) for p in preds), dtype=np.int64, count=len(preds))
    ref_len = np.fromiter((len(r.split()) for r in refs.flat), dtype=np.int64, count=len(seg))
    check_pairs("character", "character", hyp_len[seg], ref_len, seg)

    def scores(i: int, pred: str) -> Iterator[float]:
        hyp_words = pred.split()
        deadline = Deadline()
        check = functools.partial(deadline.check, "character", i, "CharacTER's shift search")
        for ref in refs[i]:
            ref_words = ref.split()
            if not ref_words:
                raise InvalidInputError(
                    f"references[{i}] has no word: CharacTER divides by the number of reference words (the cer "
                    "package fails with ZeroDivisionError there)"
                )
            yield character_score(hyp_words, ref_words, check=check)

    return lowest_per_segment(scores(i, pred) for i, pred in enumerate(preds))


def character_from_stats(stats: NLSStats, cfg: CharacTERConfig) -> CharacTERResult:
    """The mean (or sum) of the segment scores."""
    return CharacTERResult(score=reduce_segment_scores(stats, cfg.reduction), count=stats.count)


CHARACTER = closest_reference_family(
    "character", CharacTERConfig, character_from_stats, _character_kernel, preset="cer"
)


def character(
    predictions: Sequence[str] | str,
    references: Sequence[str | Sequence[str]] | str,
    *,
    preset: str | None = None,
    reduction: str | None = "mean",
    segments: bool = False,
    **options: Any,
) -> CharacTERResult:
    """CharacTER, as HF evaluate's ``character`` metric (the ``cer`` package 1.2.0): the mean over segments
    (``reduction="sum"``: the sum, ``None``: one score per segment). With several references the lowest counts.

    >>> pred = "this week the saudis denied information published in the new york times"
    >>> ref = "saudi arabia denied this week information published in the american new york times"
    >>> round(character([pred], [ref]).score, 6)
    0.366197
    """
    cfg = CHARACTER.make_config(preset, reduction=reduction, **options)
    return CHARACTER.compute(predictions, references, cfg, segments=segments)
