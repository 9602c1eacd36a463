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
from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from typing import Any, ClassVar

import numpy as np

from ...errors import InvalidInputError, unknown_option
from ...signature import sig_field
from ...stats import Stats, StatsBatch
from ...text.porter import porter_stem
from ...text.tokenizers import tokenizer_help
from ...text.wordnet import WORDNET_VERSION, synonyms
from .._tokenised import TokenFamily, as_segment, check_tokenizer
from ..base import Result, check_number, safe_div

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
        "tok",
        "whitespace",
        help=tokenizer_help("meteor", "how strings become words; 'none' for pre-tokenised input (lists of tokens)"),
    )
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        check_number("alpha", self.alpha, minimum=0.0, maximum=1.0)
        check_number("beta", self.beta, minimum=0.0, maximum=1e6)
        check_number("gamma", self.gamma, minimum=0.0, maximum=1.0)
        for name in ("alpha", "beta", "gamma"):  # 1 and 1.0 give the same numbers: one signature
            object.__setattr__(self, name, float(getattr(self, name)))
        if not isinstance(self.lowercase, bool):
            raise InvalidInputError(f"lowercase must be True or False, got {self.lowercase!r}")
        if self.stemmer not in _STEMMERS:
            raise unknown_option("stemmer", self.stemmer, _STEMMERS)
        if self.wordnet not in _WORDNETS:
            raise unknown_option("wordnet", self.wordnet, _WORDNETS)
        check_tokenizer(self, "meteor")


@dataclasses.dataclass(frozen=True)
class METEORStats(Stats):
    """Sum of segment scores and number of segments; for the best reference of each segment, the matches of
    each stage (exact, stem, synonym), the chunks, and the hypothesis and reference words."""

    per_segment_max: ClassVar[Mapping[str, float]] = {"score": 1.0}

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
        **stats.shared_with(METEORResult, "score"),
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


# ---------------------------------------------------------------------------------------------- batch kernel
#: Batches with at least this many (segment, reference) pairs go through the vectorised kernel.
VECTOR_UNITS = 16


def _ranked(unit: np.ndarray, word: np.ndarray, pos: np.ndarray, size: int, length: int) -> np.ndarray:
    """A key per token: its (unit, word) group and its rank from the *end* of the sentence within that group.

    NLTK matches hypothesis words from the last to the first, each to the last free reference word of the same
    form; so within a (sentence pair, word) group, the k-th last hypothesis occurrence takes the k-th last
    reference occurrence, and equal keys on the two sides are exactly NLTK's matches."""
    group = unit * size + word
    order = np.argsort(group * length + (length - 1 - pos))  # by group, then from the end of the sentence
    grouped = group[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = grouped[1:] != grouped[:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order)) - start
    return group * length + rank


def _distinct(values: np.ndarray, size: int) -> np.ndarray:
    """The distinct values of an array of ids in ``range(size)``, ascending (a mask: no sort, no hash)."""
    seen = np.zeros(size, dtype=bool)
    seen[values] = True
    return np.flatnonzero(seen)


def _member(values: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """Whether each value is in ``pool`` (``numpy.isin`` by one sort and a binary search)."""
    if not len(pool):
        return np.zeros(len(values), dtype=bool)
    ordered = np.sort(pool)
    at = np.minimum(np.searchsorted(ordered, values), len(ordered) - 1)
    return ordered[at] == values


def _stage(
    h_unit: np.ndarray,
    h_word: np.ndarray,
    h_pos: np.ndarray,
    r_unit: np.ndarray,
    r_word: np.ndarray,
    r_pos: np.ndarray,
    size: int,
    length: int,
) -> tuple[np.ndarray, np.ndarray]:
    """One matching stage on the tokens still free: for each hypothesis token, the index of the reference token
    it matches (-1 for none); and which reference tokens were matched."""
    h_key = _ranked(h_unit, h_word, h_pos, size, length)
    r_key = _ranked(r_unit, r_word, r_pos, size, length)
    order = np.argsort(r_key, kind="stable")
    sorted_keys = r_key[order]
    at = np.searchsorted(sorted_keys, h_key)
    at_clipped = np.minimum(at, max(len(sorted_keys) - 1, 0))
    hit = (
        (at < len(sorted_keys)) & (sorted_keys[at_clipped] == h_key) if len(sorted_keys) else np.zeros(len(h_key), bool)
    )
    match = np.where(hit, order[at_clipped] if len(sorted_keys) else -1, -1)
    taken = np.zeros(len(r_key), dtype=bool)
    taken[match[hit]] = True
    return match, taken


def _vector_kernel(
    hyp_words: list[list[str]], ref_words: list[list[str]], cfg: METEORConfig
) -> list[tuple[float, int, int, int, int]]:
    """:func:`_segment` for many (hypothesis, reference) pairs at once: the exact and stem stages and the chunk
    count as array operations, the synonym stage in Python only for the pairs that have a synonym candidate."""
    n_units = len(hyp_words)
    distinct_refs = list({id(r): r for r in ref_words}.values())  # a reference repeated across systems: once
    vocab = {w: i for i, w in enumerate(set(chain.from_iterable(hyp_words)).union(*distinct_refs))}
    h_len = np.fromiter(map(len, hyp_words), dtype=np.int64, count=n_units)
    r_len = np.fromiter(map(len, ref_words), dtype=np.int64, count=n_units)
    h_word = np.fromiter(map(vocab.__getitem__, chain.from_iterable(hyp_words)), dtype=np.int64)
    ref_ids = {id(r): np.fromiter(map(vocab.__getitem__, r), np.int64, len(r)) for r in distinct_refs}
    r_word = np.concatenate([ref_ids[id(r)] for r in ref_words]) if ref_words else np.zeros(0, np.int64)
    if cfg.lowercase:  # NLTK's preprocess=str.lower, once per distinct token
        lowered: dict[str, int] = {}
        remap = np.fromiter((lowered.setdefault(w.lower(), len(lowered)) for w in vocab), np.int64, len(vocab))
        h_word, r_word = remap[h_word], remap[r_word]
        words = list(lowered)  # id -> word
    else:
        words = list(vocab)
    h_unit = np.repeat(np.arange(n_units, dtype=np.int64), h_len)
    r_unit = np.repeat(np.arange(n_units, dtype=np.int64), r_len)
    h_pos = np.arange(len(h_word), dtype=np.int64) - np.repeat(np.cumsum(h_len) - h_len, h_len)
    r_pos = np.arange(len(r_word), dtype=np.int64) - np.repeat(np.cumsum(r_len) - r_len, r_len)
    length = int(max(h_len.max(initial=0), r_len.max(initial=0))) + 1
    size = len(words) + 1
    if n_units * size * length >= 1 << 62:  # keys would overflow: one pair at a time
        stem = porter_stem if cfg.stemmer == "porter" else None
        lookup = synonyms if cfg.wordnet != "none" else None
        lower = (lambda ws: [w.lower() for w in ws]) if cfg.lowercase else (lambda ws: ws)
        return [_segment(lower(h), lower(r), cfg, stem, lookup) for h, r in zip(hyp_words, ref_words, strict=True)]
    # stage 1: exact
    match, taken = _stage(h_unit, h_word, h_pos, r_unit, r_word, r_pos, size, length)
    h_ref = np.append(r_pos, -1)[match]  # the matched reference position of each hypothesis token, or -1
    stage = np.where(match >= 0, 0, -1)
    h_free = np.flatnonzero(match < 0)
    r_free = np.flatnonzero(~taken)
    # stage 2: Porter stems of the words still free on both sides
    stem_id: np.ndarray | None = None
    if cfg.stemmer == "porter" and len(h_free) and len(r_free):
        stems: dict[str, int] = {}
        stem_id = np.full(len(words), -1, dtype=np.int64)  # stemmed: only the words still free somewhere
        needed = _distinct(np.concatenate([h_word[h_free], r_word[r_free]]), len(words))
        stem_id[needed] = [stems.setdefault(porter_stem(words[w]), len(stems)) for w in needed.tolist()]
        m2, t2 = _stage(
            h_unit[h_free], stem_id[h_word[h_free]], h_pos[h_free],
            r_unit[r_free], stem_id[r_word[r_free]], r_pos[r_free],
            len(stems) + 1, length,
        )  # fmt: skip
        hit = m2 >= 0
        h_ref[h_free[hit]] = r_pos[r_free[m2[hit]]]
        stage[h_free[hit]] = 1
        h_free = h_free[~hit]
        r_free = r_free[~t2]
        stem_words = list(stems)
    else:
        stem_words = words
    # stage 3: WordNet synonyms of the hypothesis word's stem, sequential (NLTK's order) in the pairs that need it
    if cfg.wordnet != "none" and len(h_free) and len(r_free):
        form = stem_id if stem_id is not None else np.arange(len(words), dtype=np.int64)
        h_form, r_form = form[h_word[h_free]], form[r_word[r_free]]
        present = {w: i for i, w in enumerate(stem_words)}
        present_set = set(present)
        # per distinct free hypothesis form, the forms of the batch among its synonyms, as one flat array: the
        # candidate (pair, form) keys of the reference words a free hypothesis word could take
        forms = _distinct(h_form, len(stem_words))
        lists = [[present[x] for x in synonyms(stem_words[f]) & present_set if present[x] != f] for f in forms.tolist()]
        n_forms = len(stem_words) + 1
        count_of = np.zeros(n_forms, dtype=np.int64)
        count_of[forms] = [len(x) for x in lists]
        start_of = np.zeros(n_forms, dtype=np.int64)
        start_of[forms] = np.cumsum(count_of[forms]) - count_of[forms]
        flat_all = np.fromiter(chain.from_iterable(lists), dtype=np.int64)
        counts = count_of[h_form]
        if counts.any():
            within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
            flat = flat_all[np.repeat(start_of[h_form], counts) + within]
            cand = np.repeat(h_unit[h_free], counts) * n_forms + flat
            r_key = r_unit[r_free] * n_forms + r_form
            have = _member(cand, r_key)
            if have.any():
                # only hypothesis words with a synonym among their pair's free reference words can match, and only
                # such reference words can be taken: the others are left out of the sequential pass
                h_sel = _distinct(np.repeat(np.arange(len(h_free)), counts)[have], len(h_free))
                r_sel = _member(r_key, cand[have])
                hu, hf = h_unit[h_free][h_sel].tolist(), h_form[h_sel].tolist()
                ru, rp, rf = r_unit[r_free][r_sel].tolist(), r_pos[r_free][r_sel].tolist(), r_form[r_sel].tolist()
                index_of = h_free[h_sel].tolist()
                by_unit_ref: dict[int, dict[str, list[int]]] = {}
                for u, p, f in zip(ru, rp, rf, strict=True):
                    by_unit_ref.setdefault(u, {}).setdefault(stem_words[f], []).append(p)
                for k in range(len(hu) - 1, -1, -1):  # from the last hypothesis word to the first, per pair
                    where = by_unit_ref.get(hu[k])
                    if not where:
                        continue
                    names = synonyms(stem_words[hf[k]])
                    best_j, best = -1, None
                    for name in names if len(names) <= len(where) else list(where):
                        positions = where.get(name)
                        if positions and positions[-1] > best_j and (name in names):
                            best_j, best = positions[-1], positions
                    if best is not None:
                        best.pop()
                        h_ref[index_of[k]] = best_j
                        stage[index_of[k]] = 2
    # chunks: matches in hypothesis order, a new chunk unless both positions follow the previous match's
    matched = np.flatnonzero(h_ref >= 0)
    m_unit, m_pos, m_ref = h_unit[matched], h_pos[matched], h_ref[matched]
    cont = np.zeros(len(matched), dtype=bool)
    cont[1:] = (m_unit[1:] == m_unit[:-1]) & (m_pos[1:] == m_pos[:-1] + 1) & (m_ref[1:] == m_ref[:-1] + 1)
    n_match = np.bincount(m_unit, minlength=n_units)
    chunks = n_match - np.bincount(m_unit, weights=cont, minlength=n_units).astype(np.int64)
    per_stage = [np.bincount(h_unit, weights=stage == s, minlength=n_units).astype(np.int64) for s in range(3)]
    columns = (n_match, chunks, h_len, r_len, *per_stage)
    out = []
    for m, c, t, r, e, st, sy in zip(*(col.tolist() for col in columns), strict=True):
        out.append((_score(m, c, t, r, cfg), e, st, sy, c if m else 0))
    return out


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

    if sum(len(r) for r in refs) >= VECTOR_UNITS:
        unit_h = [h for h, rs in zip(hyps, refs, strict=True) for _ in rs]
        results = iter(_vector_kernel(unit_h, [r for rs in refs for r in rs], cfg))
        hyp_words = hyps
    else:
        hyp_words = [[t.lower() for t in h] for h in hyps] if cfg.lowercase else hyps
        results = iter(
            [_segment(h, prep(r), cfg, stem, lookup) for h, rs in zip(hyp_words, refs, strict=True) for r in rs]
        )
    for k in range(n):
        best: tuple[float, int, int, int, int] | None = None
        best_len = 0
        for ref_tokens in refs[k]:
            result = next(results)
            if best is None or result[0] > best[0]:  # max(): the first of equal scores
                best, best_len = result, len(ref_tokens)
        assert best is not None
        rows.append((*best, len(hyp_words[k]), best_len))
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


meteor = METEOR.function(
    "meteor",
    __name__,
    """METEOR of a corpus: the mean of NLTK 3.10's ``meteor_score`` over the segments (``segments=True`` keeps
    each segment's score in ``.segments``).

    >>> r = meteor(["It is a guide to action which ensures that the military always obeys the commands of the party"],
    ...            ["It is a guide to action that ensures that the military will forever heed Party commands"])
    >>> round(r.score, 4), r.exact, r.stem, r.synonym, r.chunks
    (0.6944, 12, 0, 0, 6)
    >>> meteor([["a", "cat"]], [[["the", "cat"], ["a", "cat"]]], tokenizer="none").score
    0.9375
    """,
    tokens=True,
)


def sentence_meteor(
    prediction: str | Sequence[str], references: str | Sequence[Any], *, preset: str | None = None, **options: Any
) -> METEORResult:
    """METEOR of one segment against its reference(s): NLTK's ``meteor_score`` (``single_meteor_score`` for one
    reference).

    >>> round(sentence_meteor("the cat sat on the mat", ["the cat is on the mat", "a cat sat on a mat"]).score, 4)
    0.8067
    """
    cfg = METEOR.make_config(preset, **options)
    return METEOR.finalize(METEOR.batch_stats([prediction], as_segment(references), cfg).total(), cfg)
