"""METEOR as NLTK computes it: exact, stem and WordNet-synonym matching, F-mean and fragmentation penalty.

Preset ``nltk`` (the default) reproduces NLTK 3.10's ``nltk.translate.meteor_score``:
``meteor_score(references, hypothesis, alpha=0.9, beta=3.0, gamma=0.5)`` for a segment with several references
(the best of the references) and ``single_meteor_score(reference, hypothesis, ...)`` for one, with NLTK's defaults
(``preprocess=str.lower``, ``PorterStemmer()``, ``nltk.corpus.wordnet`` = WordNet 3.0). It is also what HF
evaluate's ``meteor`` computes per segment. Options: ``alpha``, ``beta``, ``gamma`` (HF's too), ``lowercase``
(NLTK's ``preprocess``), ``stemmer`` (``"porter"`` or ``"none"`` to skip the stem stage), ``wordnet``
(``"3.0"`` or ``"none"`` to skip the synonym stage) and ``tokenizer``.

Input: strings, split into tokens by ``tokenizer`` (``"whitespace"``, i.e. ``str.split()``, by default, or any
registered tokenizer), or, with ``tokenizer="none"``, pre-tokenised token lists as NLTK takes them.

Per segment, as NLTK does it, word for word: the words are lowercased; hypothesis words are matched, from the
last to the first, to the last still unmatched reference word that is equal, then (on what is left) whose Porter
stem is equal, then (on the stems left) that is a WordNet synonym of the hypothesis word's stem; the matches are
sorted by hypothesis position and counted in chunks (runs adjacent in both). With ``m`` matches, ``t`` hypothesis
and ``r`` reference words: ``P = m/t``, ``R = m/r``, ``F = P·R / (α·P + (1-α)·R)``,
``penalty = γ·(chunks/m)^β``, METEOR ``= (1 - penalty)·F``, and 0 when there is no match (or no word). With
several references the segment's score is the best one (the first on ties).

The corpus score is the **mean of the segment scores** (NLTK has no corpus METEOR; HF evaluate reports this
mean). It is *not* the corpus-level METEOR of the Java tool (Meteor 1.5), which pools the matches and chunks of
all segments before the formula; see ``docs/meteor.md`` for why NLTK's numbers are not Meteor 1.5's, and how they
changed across NLTK versions. The statistics are the sum of segment scores and the count, plus the matches of
each stage, the chunks and the words, which add up and explain a score (a 0 with no match at all, say).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InvalidInputError, unknown_option
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from ..text.porter import porter_stem
from ..text.wordnet import WORDNET_VERSION, synonyms
from ._tokenised import TokenFamily, as_segment, check_tokenizer
from .base import Result, check_number, safe_div

__all__ = ["METEOR", "METEORConfig", "METEORResult", "METEORStats", "meteor", "meteor_from_stats", "sentence_meteor"]

_STEMMERS = ("porter", "none")
_WORDNETS = (WORDNET_VERSION, "none")


@dataclasses.dataclass(frozen=True)
class METEORConfig:
    """Options of METEOR (NLTK's names and defaults)."""

    alpha: float = sig_field("alpha", 0.9, help="weight of precision against recall in the F-mean, in [0, 1]")
    beta: float = sig_field("beta", 3.0, help="exponent of the fragmentation penalty, >= 0")
    gamma: float = sig_field("gamma", 0.5, help="weight of the fragmentation penalty, in [0, 1]")
    lowercase: bool = sig_field("lc", True, help="lowercase the words first (NLTK's preprocess=str.lower)")
    stemmer: str = sig_field("stem", "porter", help="stem stage: NLTK's Porter stemmer, or none", choices=_STEMMERS)
    wordnet: str = sig_field("wn", WORDNET_VERSION, help="synonym stage: WordNet 3.0, or none", choices=_WORDNETS)
    tokenizer: str = sig_field(
        "tok", "whitespace", help="how strings become words; 'none' for pre-tokenised input (lists of tokens)"
    )
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        check_number("alpha", self.alpha, minimum=0.0, maximum=1.0)
        check_number("beta", self.beta, minimum=0.0)
        check_number("gamma", self.gamma, minimum=0.0, maximum=1.0)
        for name in ("alpha", "beta", "gamma"):  # 1 and 1.0 give the same numbers: one signature
            object.__setattr__(self, name, float(getattr(self, name)))
        if not isinstance(self.lowercase, bool):
            raise InvalidInputError(f"lowercase must be True or False, got {self.lowercase!r}")
        if self.stemmer not in _STEMMERS:
            raise unknown_option("stemmer", self.stemmer, _STEMMERS)
        if self.wordnet not in _WORDNETS:
            raise unknown_option("wordnet", self.wordnet, _WORDNETS)
        check_tokenizer(self.tokenizer)


@dataclasses.dataclass(frozen=True)
class METEORStats(Stats):
    """Sum of segment scores and number of segments; for the best reference of each segment, the matches of
    each stage (exact, stem, synonym), the chunks, and the hypothesis and reference words."""

    score: float
    n_segments: int
    exact: int
    stem: int
    synonym: int
    chunks: int
    hyp_len: int
    ref_len: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class METEORResult(Result):
    """METEOR in [0, 1]: the mean of the segment scores. ``exact``/``stem``/``synonym`` count the matches of each
    stage, ``chunks`` the chunks, ``hyp_len``/``ref_len`` the words (of the best reference of each segment), all
    summed over the corpus."""

    n_segments: Any = 0
    exact: Any = 0
    stem: Any = 0
    synonym: Any = 0
    chunks: Any = 0
    hyp_len: Any = 0
    ref_len: Any = 0


def meteor_from_stats(stats: METEORStats, cfg: METEORConfig) -> METEORResult:
    """The corpus score: the mean of the segment scores (per segment: the segment's own score)."""
    return METEORResult(
        score=safe_div(stats.score, stats.n_segments),
        n_segments=stats.n_segments,
        exact=stats.exact,
        stem=stats.stem,
        synonym=stats.synonym,
        chunks=stats.chunks,
        hyp_len=stats.hyp_len,
        ref_len=stats.ref_len,
    )


# ---------------------------------------------------------------------------------------------- kernel
def _positions(words: Sequence[str], keep: Sequence[int]) -> dict[str, list[int]]:
    """word -> its positions among ``keep`` (ascending)."""
    out: dict[str, list[int]] = {}
    for j in keep:
        out.setdefault(words[j], []).append(j)
    return out


def _exact(hyp: Sequence[str], ref: Sequence[str], pairs: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """:func:`_match` on whole sentences (the exact stage), without the bookkeeping of a partial match."""
    where: dict[str, list[int]] = {}
    for j, w in enumerate(ref):
        positions = where.get(w)
        if positions is None:
            where[w] = [j]
        else:
            positions.append(j)
    hyp_left: list[int] = []
    for i in range(len(hyp) - 1, -1, -1):
        positions = where.get(hyp[i])
        if positions:
            pairs.append((i, positions.pop()))
        else:
            hyp_left.append(i)
    if not hyp_left:
        return hyp_left, []
    hyp_left.reverse()
    return hyp_left, sorted(j for positions in where.values() for j in positions)


def _match(
    hyp: Sequence[str], ref: Sequence[str], hyp_left: list[int], ref_left: list[int], pairs: list[tuple[int, int]]
) -> tuple[list[int], list[int]]:
    """NLTK's ``_match_enums``: from the last hypothesis word to the first, match the *last* unmatched reference
    word equal to it. Returns the hypothesis and reference positions left unmatched (in order)."""
    where = _positions(ref, ref_left)
    matched_ref: set[int] = set()
    unmatched_hyp: list[int] = []
    for i in reversed(hyp_left):
        positions = where.get(hyp[i])
        if positions:
            j = positions.pop()
            matched_ref.add(j)
            pairs.append((i, j))
        else:
            unmatched_hyp.append(i)
    unmatched_hyp.reverse()
    return unmatched_hyp, [j for j in ref_left if j not in matched_ref]


def _synonym_match(
    hyp: Sequence[str],
    ref: Sequence[str],
    hyp_left: list[int],
    ref_left: list[int],
    pairs: list[tuple[int, int]],
    lookup: Callable[[str], frozenset[str]],
) -> None:
    """NLTK's ``_enum_wordnetsyn_match``: from the last hypothesis word to the first, match the last unmatched
    reference word that is one of its synonyms (WordNet lemma names without ``_``, and the word itself)."""
    where = _positions(ref, ref_left)
    for i in reversed(hyp_left):
        if not where:
            return
        names = lookup(hyp[i])
        best_j = -1
        best: list[int] | None = None
        if len(names) <= len(where):
            for name in names:
                positions = where.get(name)
                if positions and positions[-1] > best_j:
                    best_j, best = positions[-1], positions
        else:
            for word, positions in where.items():
                if positions and positions[-1] > best_j and word in names:
                    best_j, best = positions[-1], positions
        if best is not None:
            best.pop()
            pairs.append((i, best_j))


def _chunks(pairs: list[tuple[int, int]]) -> int:
    """NLTK's ``_count_chunks`` on the matches sorted by hypothesis position."""
    pairs.sort()
    chunks = 1
    for k in range(len(pairs) - 1):
        if not (pairs[k + 1][0] == pairs[k][0] + 1 and pairs[k + 1][1] == pairs[k][1] + 1):
            chunks += 1
    return chunks


def _score(matches: int, chunks: int, t: int, r: int, cfg: METEORConfig) -> float:
    """NLTK's ``single_meteor_score`` formula, operation by operation (so the float is the same)."""
    alpha, beta, gamma = cfg.alpha, cfg.beta, cfg.gamma
    if t == 0 or r == 0 or matches == 0:
        return 0.0
    precision = float(matches) / t
    recall = float(matches) / r
    denominator = alpha * precision + (1 - alpha) * recall
    if denominator == 0:
        return 0.0
    fmean = (precision * recall) / denominator
    frag_frac = float(chunks) / matches
    penalty = gamma * frag_frac**beta
    return (1 - penalty) * fmean


def _segment(
    hyp: list[str],
    ref: list[str],
    cfg: METEORConfig,
    stem: Callable[[str], str] | None,
    lookup: Callable[[str], frozenset[str]] | None,
) -> tuple[float, int, int, int, int]:
    """(score, exact, stem, synonym, chunks) of one hypothesis against one reference (words preprocessed)."""
    pairs: list[tuple[int, int]] = []
    hyp_left, ref_left = _exact(hyp, ref, pairs)
    n_exact = len(pairs)
    n_stem = n_syn = 0
    if hyp_left and ref_left and (stem is not None or lookup is not None):
        # NLTK runs the later stages on the stems (the synonym stage too): stemmed once here
        hyp_w: list[str] = [""] * len(hyp)
        ref_w: list[str] = [""] * len(ref)
        if stem is not None:
            for i in hyp_left:
                hyp_w[i] = stem(hyp[i])
            for j in ref_left:
                ref_w[j] = stem(ref[j])
            hyp_left, ref_left = _match(hyp_w, ref_w, hyp_left, ref_left, pairs)
            n_stem = len(pairs) - n_exact
        else:
            hyp_w, ref_w = hyp, ref
        if lookup is not None and hyp_left and ref_left:
            _synonym_match(hyp_w, ref_w, hyp_left, ref_left, pairs, lookup)
            n_syn = len(pairs) - n_exact - n_stem
    matches = len(pairs)
    chunks = _chunks(pairs) if matches else 0
    return _score(matches, chunks, len(hyp), len(ref), cfg), n_exact, n_stem, n_syn, chunks


def _meteor_kernel(hyps: list[list[str]], refs: list[list[list[str]]], cfg: METEORConfig) -> StatsBatch[METEORStats]:
    stem = porter_stem if cfg.stemmer == "porter" else None
    lookup = synonyms if cfg.wordnet != "none" else None
    n = len(hyps)
    rows: list[tuple[float, int, int, int, int, int, int]] = []
    prepared: dict[int, tuple[list[str], list[str]]] = {}  # id(token list) -> (the list, its words)

    def prep(tokens: list[str]) -> list[str]:
        if not cfg.lowercase:
            return tokens
        # a reference repeated across the batch (several systems, one reference) is one list: lowercased once
        hit = prepared.get(id(tokens))
        if hit is not None and hit[0] is tokens:
            return hit[1]
        words = [t.lower() for t in tokens]
        prepared[id(tokens)] = (tokens, words)
        return words

    for k in range(n):
        hyp = [t.lower() for t in hyps[k]] if cfg.lowercase else hyps[k]
        best: tuple[float, int, int, int, int] | None = None
        best_len = 0
        for ref_tokens in refs[k]:
            ref = prep(ref_tokens)
            result = _segment(hyp, ref, cfg, stem, lookup)
            if best is None or result[0] > best[0]:  # max(): the first of equal scores
                best, best_len = result, len(ref)
        assert best is not None
        rows.append((*best, len(hyp), best_len))
    table = list(zip(*rows, strict=True))
    names = ("exact", "stem", "synonym", "chunks", "hyp_len", "ref_len")
    columns = {name: np.asarray(table[c + 1], dtype=np.int64) for c, name in enumerate(names)}
    columns["score"] = np.asarray(table[0], dtype=np.float64)
    columns["n_segments"] = np.ones(n, dtype=np.int64)
    return StatsBatch(METEORStats, columns)


METEOR = TokenFamily(
    name="meteor",
    bounds=(0.0, 1.0),
    config_cls=METEORConfig,
    stats_cls=METEORStats,
    kernel=_meteor_kernel,  # type: ignore[arg-type]  # token lists (TokenFamily)
    formula=meteor_from_stats,
    presets={"nltk": {}},
    default_preset="nltk",
    vectorized=True,
)


def meteor(
    predictions: Sequence[Any] | str,
    references: Sequence[Any] | str,
    *,
    preset: str | None = None,
    segments: bool = False,
    **options: Any,
) -> METEORResult:
    """METEOR of a corpus: the mean of NLTK 3.10's ``meteor_score`` over the segments (``segments=True`` keeps
    each segment's score in ``.segments``).

    >>> r = meteor(["It is a guide to action which ensures that the military always obeys the commands of the party"],
    ...            ["It is a guide to action that ensures that the military will forever heed Party commands"])
    >>> round(r.score, 4), r.exact, r.stem, r.synonym, r.chunks
    (0.6944, 12, 0, 0, 4)
    >>> meteor([["a", "cat"]], [[["the", "cat"], ["a", "cat"]]], tokenizer="none").score
    0.9375
    """
    cfg = METEOR.make_config(preset, **options)
    return METEOR.compute(predictions, references, cfg, segments=segments)


def sentence_meteor(
    prediction: str | Sequence[str], references: str | Sequence[Any], *, preset: str | None = None, **options: Any
) -> METEORResult:
    """METEOR of one segment against its reference(s): NLTK's ``meteor_score`` (``single_meteor_score`` for one
    reference).

    >>> round(sentence_meteor("the cat sat on the mat", ["the cat is on the mat", "a cat sat on a mat"]).score, 4)
    0.8066
    """
    cfg = METEOR.make_config(preset, **options)
    return METEOR.finalize(METEOR.batch_stats([prediction], as_segment(references), cfg).total(), cfg)
