"""RIBES: rank correlation of the word order (normalised Kendall's tau) times unigram precision and brevity terms.

RIBES (Isozaki et al., EMNLP 2010) is the official word-order metric of WAT's Japanese<->English tasks. Per
segment: align hypothesis words to reference positions, count the ascending pairs of the aligned positions
(normalised Kendall's tau, ``nkt``), and score ``nkt · P^α · BP^β`` with ``P`` the share of hypothesis words
aligned and ``BP = min(1, exp(1 - |ref|/|hyp|))``; with several references the best; the corpus score is the
mean over segments. Two presets:

``ribes-1.03.1`` (the reference)
    The official ``RIBES.py`` 1.03.1 (NTT, 2014) with its defaults, ``python RIBES.py -r REF [-r REF2 ...] HYP``
    (``-a 0.25 -b 0.10``): words lowercased (``lowercase``; ``-c`` keeps case), split on whitespace; a word
    occurring once in both sentences aligns directly, another one by the shortest context that occurs once in
    both, trying for each length the left context before the right one; one aligned word against a one-word
    reference scores ``nkt = 1``; fewer than two aligned words score 0; an empty reference stops the script
    (here: an error naming the segment) unless ``-z`` (``ignore_empty_references=True``), which leaves it out,
    and a segment without any non-empty reference out of the mean.
``nltk``
    NLTK 3.10's ``nltk.translate.ribes_score``: ``sentence_ribes(references, hypothesis, alpha=0.25, beta=0.10)``
    per segment and ``corpus_ribes(list_of_references, hypotheses)`` for the corpus, on the tokens as given (no
    lowercasing). It differs from the script: the right context is tried before the left, the context grows
    only up to ``max(i, n - i + 1) - 1`` words, and one aligned word always scores 0. (NLTK also refuses
    sentences longer than 2,000 tokens; they are scored here.)

Words come from ``tokenizer``: ``"whitespace"`` (``str.split()``, what the script does with a pre-tokenised
line) by default, ``"ja-mecab"`` for raw Japanese (MeCab with UniDic-lite, extra ``[ja]``), any registered
tokenizer, or ``"none"`` for pre-tokenised token lists. ``docs/ribes.md`` explains RIBES's use for Japanese.

Statistics per segment (best reference): the score, 1 if the segment counts in the mean (0 for a segment left
out with ``-z``), 1, and its ``nkt``, ``P`` and ``BP``; all add, and the result reports their means.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
import operator
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ..errors import InvalidInputError, unknown_option
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from ..text.tokenizers import tokenizer_help
from ._tokenised import TokenFamily, as_segment, check_tokenizer, words
from .base import Result, check_number, safe_div

__all__ = ["RIBES", "RIBESConfig", "RIBESResult", "RIBESStats", "ribes", "ribes_from_stats", "sentence_ribes"]

CONVENTIONS = ("ribes-1.03.1", "nltk")


@dataclasses.dataclass(frozen=True)
class RIBESConfig:
    """Options of RIBES (the script's defaults)."""

    convention: str = sig_field(
        "conv",
        "ribes-1.03.1",
        help="whose alignment and averaging rules: the official script or NLTK",
        choices=CONVENTIONS,
        role="convention",
    )
    alpha: float = sig_field("alpha", 0.25, help="exponent of the unigram precision (-a)")
    beta: float = sig_field("beta", 0.10, help="exponent of the brevity penalty (-b)")
    lowercase: bool = sig_field("lc", True, help="lowercase the words first (RIBES.py without -c)")
    tokenizer: str = sig_field(
        "tok",
        "whitespace",
        help=tokenizer_help("ribes", "how strings become words (ja-mecab for raw Japanese); 'none' for token lists"),
    )
    ignore_empty_references: bool = sig_field(
        "z", False, help="leave empty references out instead of stopping (RIBES.py -z; ribes-1.03.1 only)"
    )
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise unknown_option("RIBES convention", self.convention, CONVENTIONS)
        check_number("alpha", self.alpha, minimum=0.0, maximum=1e6)
        check_number("beta", self.beta, minimum=0.0, maximum=1e6)
        for name in ("alpha", "beta"):  # 1 and 1.0 give the same numbers: one signature
            object.__setattr__(self, name, float(getattr(self, name)))
        for flag in ("lowercase", "ignore_empty_references"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidInputError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.ignore_empty_references and self.convention == "nltk":
            raise InvalidInputError(
                "ignore_empty_references is RIBES.py's -z and applies to convention 'ribes-1.03.1' only (NLTK "
                "scores an empty reference as 0)"
            )
        check_tokenizer(self, "ribes")


@dataclasses.dataclass(frozen=True)
class RIBESStats(Stats):
    """Sum of the segment scores, number of segments counted in the mean, number of segments, and the sums of
    the best reference's normalised Kendall's tau, unigram precision and brevity penalty."""

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (("n_scored", "n_segments"), ("score", "n_scored"))
    per_segment_max: ClassVar[Mapping[str, float]] = {"nkt": 1.0, "precision": 1.0, "bp": 1.0}

    score: float
    n_scored: int
    n_segments: int
    nkt: float
    precision: float
    bp: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class RIBESResult(Result):
    """RIBES in [0, 1] (the mean over the segments counted); ``nkt``, ``precision`` and ``bp`` are the means of
    the best references' normalised Kendall's tau, unigram precision and brevity penalty; ``n_scored`` the
    segments counted (fewer than ``n_segments`` only with ``ignore_empty_references``). A segment left out
    scores NaN in ``segments``."""

    n_segments: Any = 0
    n_scored: Any = 0
    nkt: Any = 0.0
    precision: Any = 0.0
    bp: Any = 0.0


def ribes_from_stats(stats: RIBESStats, cfg: RIBESConfig) -> RIBESResult:
    """The mean of the segment scores over the segments counted (per segment: its own score, NaN if left out)."""
    per_segment = isinstance(stats.n_scored, np.ndarray)
    if not per_segment and stats.n_segments and not stats.n_scored:
        raise InvalidInputError(
            "no segment has a non-empty reference: there is nothing to average (RIBES.py stops with a division by zero)"
        )
    missing = math.nan if per_segment else 0.0
    return RIBESResult(
        score=safe_div(stats.score, stats.n_scored, missing),
        n_segments=stats.n_segments,
        n_scored=stats.n_scored,
        nkt=safe_div(stats.nkt, stats.n_scored, missing),
        precision=safe_div(stats.precision, stats.n_scored, missing),
        bp=safe_div(stats.bp, stats.n_scored, missing),
    )


# ---------------------------------------------------------------------------------------------- kernel
def _alignment(ref: list[int], hyp: list[int], official: bool) -> list[int]:
    """The reference position aligned to each alignable hypothesis word, in hypothesis order.

    A word that occurs once in both sentences aligns to its reference position. Otherwise contexts grow one word
    at a time, on the left (``hyp[i-w..i]``) and on the right (``hyp[i..i+w]``): the first context that occurs
    exactly once in the reference and once in the hypothesis aligns the word to where it sits in that reference
    occurrence. The candidate occurrences are kept as position lists and narrowed as the context grows, which
    counts the same overlapping occurrences as the script's substring search and NLTK's n-gram count.
    """
    n_hyp, n_ref = len(hyp), len(ref)
    if n_hyp * (n_ref + n_hyp) > DENSE_CELLS:
        return _dense_alignment(ref, hyp, official)
    in_ref: dict[int, list[int]] = {}
    for j, w in enumerate(ref):
        in_ref.setdefault(w, []).append(j)
    in_hyp: dict[int, list[int]] = {}
    for k, w in enumerate(hyp):
        in_hyp.setdefault(w, []).append(k)
    out: list[int] = []
    for i, w in enumerate(hyp):
        ref_at = in_ref.get(w)
        if ref_at is None:
            continue
        hyp_at = in_hyp[w]
        if len(ref_at) == 1 and len(hyp_at) == 1:
            out.append(ref_at[0])
            continue
        # RIBES.py: range(1, max(i + 1, len(hyp) - i + 1)), left before right;
        # NLTK: range(1, min(max(i, hyp_len - i + 1), len(reference))), right before left
        windows = max(i + 1, n_hyp - i + 1) if official else min(max(i, n_hyp - i + 1), n_ref)
        left_ref, left_hyp = ref_at, hyp_at
        right_ref, right_hyp = ref_at, hyp_at
        for window in range(1, windows):
            left = window <= i
            right = i + window < n_hyp
            if not left and not right:
                break
            if right:
                t = hyp[i + window]
                right_ref = [j for j in right_ref if j + window < n_ref and ref[j + window] == t]
                right_hyp = [k for k in right_hyp if k + window < n_hyp and hyp[k + window] == t]
                if not official and len(right_ref) == 1 and len(right_hyp) == 1:
                    out.append(right_ref[0])
                    break
            if left:
                t = hyp[i - window]
                left_ref = [j for j in left_ref if j >= window and ref[j - window] == t]
                left_hyp = [k for k in left_hyp if k >= window and hyp[k - window] == t]
                if len(left_ref) == 1 and len(left_hyp) == 1:
                    out.append(left_ref[0])
                    break
            if official and right and len(right_ref) == 1 and len(right_hyp) == 1:
                out.append(right_ref[0])
                break
            if not (left and left_ref) and not (right and right_ref):
                break  # no longer context can occur in the reference: no alignment for this word
    return out


#: Above this many cells (hypothesis x (reference + hypothesis) words), contexts are found from common-suffix and
#: common-prefix lengths (:func:`_dense_alignment`) instead of growing them one word at a time, whose cost grows
#: with the cube of the length on repetitive text (a word repeated a thousand times).
DENSE_CELLS = 40_000


def _column_tops(seq: np.ndarray, hyp: np.ndarray, prefix: bool, diagonal: bool) -> tuple[np.ndarray, ...]:
    """For every hypothesis position ``i``: the largest and second-largest common-suffix (or, with ``prefix``,
    common-prefix) length of ``seq`` ending (starting) at some ``j`` and ``hyp`` ending (starting) at ``i``, and
    the ``j`` of the largest; with ``diagonal`` (``seq`` is ``hyp``) the pair ``j == i`` is left out."""
    n = len(hyp)
    top1 = np.zeros(n, dtype=np.int64)
    top2 = np.zeros(n, dtype=np.int64)
    arg1 = np.full(n, -1, dtype=np.int64)
    prev = np.zeros(n, dtype=np.int64)
    order = range(len(seq) - 1, -1, -1) if prefix else range(len(seq))
    for j in order:
        eq = hyp == seq[j]
        cur = np.zeros(n, dtype=np.int64)
        if prefix:
            cur[-1] = eq[-1]
            cur[:-1] = (prev[1:] + 1) * eq[:-1]
        else:
            cur[0] = eq[0]
            cur[1:] = (prev[:-1] + 1) * eq[1:]
        prev = cur
        if diagonal:
            cur = cur.copy()
            cur[j] = 0
        better = cur > top1
        top2 = np.where(better, top1, np.maximum(top2, cur))
        arg1 = np.where(better, j, arg1)
        top1 = np.where(better, cur, top1)
    return top1, top2, arg1


def _dense_alignment(ref: list[int], hyp: list[int], official: bool) -> list[int]:
    """:func:`_alignment` from common-suffix/prefix lengths, in O(|hyp| x (|ref| + |hyp|)) vector steps.

    The left context of length ``w + 1`` of word ``i`` occurs once in the reference iff the largest common-suffix
    length over reference positions is ``>= w + 1`` and the second largest is not, and once in the hypothesis iff
    no other hypothesis position has a common suffix ``>= w + 1``; so the first window that succeeds on the left
    is ``max(1, second, other)`` if that is below the largest, likewise on the right with prefixes. The earlier
    side wins, the side the convention tries first on a tie."""
    if not hyp:
        return []
    h = np.asarray(hyp, dtype=np.int64)
    r = np.asarray(ref, dtype=np.int64)
    n_hyp, n_ref = len(hyp), len(ref)
    left_top, left_second, left_at = _column_tops(r, h, prefix=False, diagonal=False)
    left_other = _column_tops(h, h, prefix=False, diagonal=True)[0]
    right_top, right_second, right_at = _column_tops(r, h, prefix=True, diagonal=False)
    right_other = _column_tops(h, h, prefix=True, diagonal=True)[0]
    count_ref: dict[int, int] = {}
    for w in ref:
        count_ref[w] = count_ref.get(w, 0) + 1
    count_hyp: dict[int, int] = {}
    for w in hyp:
        count_hyp[w] = count_hyp.get(w, 0) + 1
    first_in_ref: dict[int, int] = {}
    for j, w in enumerate(ref):
        first_in_ref.setdefault(w, j)
    out: list[int] = []
    for i, w in enumerate(hyp):
        if w not in count_ref:
            continue
        if count_ref[w] == 1 and count_hyp[w] == 1:
            out.append(first_in_ref[w])
            continue
        # the last window tried: RIBES.py's range never cuts a side short; NLTK's range(1, W) may
        last = max(i, n_hyp - i) if official else min(max(i, n_hyp - i + 1), n_ref) - 1
        wl = max(1, int(left_second[i]), int(left_other[i]))
        left_ok = wl + 1 <= left_top[i] and wl <= i and wl <= last
        wr = max(1, int(right_second[i]), int(right_other[i]))
        right_ok = wr + 1 <= right_top[i] and i + wr < n_hyp and wr <= last
        # both possible: the earlier window, on a tie the side tried first (left in RIBES.py, right in NLTK)
        use_left = left_ok and (not right_ok or wl < wr or (wl == wr and official))
        if use_left:
            out.append(int(left_at[i]))
        elif right_ok:
            out.append(int(right_at[i]))
    return out


def _ascending_pairs(positions: list[int]) -> int:
    """The pairs ``k < l`` with ``positions[k] < positions[l]``."""
    seen: list[int] = []
    count = 0
    for x in positions:
        k = bisect.bisect_left(seen, x)
        count += k
        seen.insert(k, x)
    return count


def _official(ref: list[int], hyp: list[int], alpha: float, beta: float) -> tuple[float, float, float, float]:
    """RIBES.py 1.03.1 ``kendall()`` and its score, operation by operation: (ribes, nkt, precision, bp)."""
    if not hyp:
        return 0.0, 0.0, 0.0, 0.0
    bp = min(1.0, math.exp(1.0 - 1.0 * len(ref) / len(hyp)))
    aligned = _alignment(ref, hyp, official=True)
    n = len(aligned)
    if n == 1 and len(ref) == 1:
        nkt, precision = 1.0, 1.0 / len(hyp)
    elif n < 2:
        nkt, precision = 0.0, 0.0
    else:
        nkt = float(_ascending_pairs(aligned)) / ((n * (n - 1)) / 2)
        precision = 1.0 * n / len(hyp)
    return nkt * (precision**alpha) * (bp**beta), nkt, precision, bp


def _nltk(ref: list[int], hyp: list[int], alpha: float, beta: float) -> tuple[float, float, float, float]:
    """NLTK 3.10 ``sentence_ribes`` for one reference, operation by operation: (ribes, nkt, precision, bp)."""
    aligned = _alignment(ref, hyp, official=False)
    n = len(aligned)
    if n < 2:
        nkt = 0.0  # (tau + 1) / 2 with tau = -1
    else:
        tau = 2 * _ascending_pairs(aligned) / (n * (n - 1) // 2) - 1
        nkt = (tau + 1) / 2
    bp = min(1.0, math.exp(1.0 - len(ref) / len(hyp)))
    p1 = n / len(hyp)
    return nkt * (p1**alpha) * (bp**beta), nkt, p1, bp


def _guard(hyps: list[list[int]], refs: list[list[list[int]]]) -> None:
    """Refuse, before any alignment, a pair whose alignment would run beyond the limit of
    :mod:`nlgmetrics.algorithms.guard`: above :data:`DENSE_CELLS` the alignment takes vector steps over
    hypothesis x (reference + hypothesis) words (below, a few milliseconds at most)."""
    from ..algorithms.guard import RATES, check_pairs, limit_seconds

    limit = limit_seconds()
    if limit is None:
        return
    rate = RATES["ribes"][2]
    hyp_len: list[int] = []
    both: list[int] = []
    ref_len: list[int] = []
    segment: list[int] = []
    for k, hyp in enumerate(hyps):
        for ref in refs[k]:
            hyp_len.append(len(hyp))
            both.append(len(ref) + len(hyp))
            ref_len.append(len(ref))
            segment.append(k)
    if hyp_len and max(map(operator.mul, hyp_len, both)) * rate > limit:
        check_pairs("ribes", "ribes", hyp_len, both, segment, references=ref_len)


def _ribes_kernel(hyps: list[list[str]], refs: list[list[list[str]]], cfg: RIBESConfig) -> StatsBatch[RIBESStats]:
    official = cfg.convention == "ribes-1.03.1"
    n = len(hyps)
    cols = {k: np.zeros(n, dtype=np.float64) for k in ("score", "nkt", "precision", "bp")}
    scored = np.ones(n, dtype=np.int64)
    ids: dict[str, int] = {}

    def encode(tokens: list[str]) -> list[int]:
        if official:  # the script splits its (tokenised) lines on whitespace
            tokens = words(tokens)
        if cfg.lowercase:
            tokens = [t.lower() for t in tokens]
        return [ids.setdefault(t, len(ids)) for t in tokens]

    hyp_ids = [encode(h) for h in hyps]
    ref_ids = [[encode(r) for r in refs[k]] for k in range(n)]
    _guard(hyp_ids, ref_ids)
    for k in range(n):
        hyp = hyp_ids[k]
        best: tuple[float, float, float, float] | None = None
        for r, ref in enumerate(ref_ids[k]):
            if official:
                if not ref:
                    if cfg.ignore_empty_references:
                        continue
                    which = f"references[{k}]" if len(refs[k]) == 1 else f"references[{k}][{r}]"
                    raise InvalidInputError(
                        f"{which} has no words: RIBES.py 1.03.1 stops on an empty reference ('Reference has no "
                        "words'); pass ignore_empty_references=True (its -z) to leave empty references out"
                    )
                result = _official(ref, hyp, cfg.alpha, cfg.beta)
            elif not hyp:
                result = (0.0, 0.0, 0.0, 0.0)  # sentence_ribes: "if not references or not hypothesis: return 0.0"
            else:
                result = _nltk(ref, hyp, cfg.alpha, cfg.beta)
            if best is None or result[0] > best[0]:  # the first of equal scores
                best = result
        if best is None:  # every reference empty, left out (-z)
            scored[k] = 0
            continue
        cols["score"][k], cols["nkt"][k], cols["precision"][k], cols["bp"][k] = best
    return StatsBatch(RIBESStats, {**cols, "n_scored": scored, "n_segments": np.ones(n, dtype=np.int64)})


RIBES = TokenFamily(
    name="ribes",
    bounds=(0.0, 1.0),
    config_cls=RIBESConfig,
    stats_cls=RIBESStats,
    kernel=_ribes_kernel,  # type: ignore[arg-type]  # token lists (TokenFamily)
    formula=ribes_from_stats,
    presets={"ribes-1.03.1": {}, "nltk": {"convention": "nltk", "lowercase": False}},
    default_preset="ribes-1.03.1",
    vectorized=True,
)


ribes = RIBES.function(
    "ribes",
    __name__,
    """RIBES of a corpus: the official script's number by default, NLTK's with ``preset="nltk"``.

    >>> ribes(["he read the book because he was interested in world history"],
    ...       ["he was interested in world history because he read the book"]).score  # doctest: +ELLIPSIS
    0.309...
    """,
    tokens=True,
)


def sentence_ribes(
    prediction: str | Sequence[str], references: str | Sequence[Any], *, preset: str | None = None, **options: Any
) -> RIBESResult:
    """RIBES of one segment against its reference(s) (the best of them): RIBES.py's sentence score (``-s``) or,
    with ``preset="nltk"``, NLTK's ``sentence_ribes``.

    >>> sentence_ribes("Bob hit John yesterday", "John hit Bob yesterday", preset="nltk").score
    0.5
    """
    cfg = RIBES.make_config(preset, **options)
    return RIBES.finalize(RIBES.batch_stats([prediction], as_segment(references), cfg).total(), cfg)
