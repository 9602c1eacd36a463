"""NIST (Doddington 2002): n-gram co-occurrence weighted by each n-gram's information in the reference corpus.

``info(w1..wn) = log2(count(w1..wn-1) / count(w1..wn))`` over all references of the corpus scored (the count of
all reference words for unigrams); the score is ``Σ_n (Σ info of matched n-grams / #hypothesis n-grams) ×
length penalty``, the penalty ``exp(β log²(min(1, hyp/ref)))`` with β such that a ratio of 2/3 gives 0.5.

Two conventions, each a preset:

``nltk`` (default)
    NLTK 3.10 ``nltk.translate.nist_score.corpus_nist(list_of_references, hypotheses, n=5)`` on whitespace-split
    text (``str.split``); :func:`sentence_nist` and the per-segment scores are its ``sentence_nist`` (the
    information of one segment's own references). With several references, NLTK picks, per segment *and per
    order*, the reference with the largest weighted match (ties: the longer reference), and that reference's
    length enters the length penalty once per order; reproduced. Where NLTK raises ``ZeroDivisionError`` (no
    hypothesis n-gram of some order in the whole input, or no reference word), the order adds 0 and the score
    is 0 respectively; ``undefined_orders`` and ``reason`` say so.
``mteval-13a``
    The NIST score that ``mteval-v13a.pl -r REF -s SRC -t TST`` prints beside BLEU ("NIST score = …", the
    cumulative 5-gram; ``--metricsMATR`` files for full precision): its tokenization (13a rules, ASCII lowercasing
    unless ``-c``: ``lowercase=False``), the clipping count of an n-gram as its largest count in one reference,
    the reference length as the average over the reference sets, and its information of a bigram whose first
    word is ``0`` (a false string in Perl: the unigram formula is used). Per-segment scores are the script's
    ``-d 2`` segment scores (corpus information, segment counts). ``max_order`` picks the cumulative order
    (1-9).

Why the statistics carry a table: the information of an n-gram depends on every reference of the corpus, so a
segment's share of the score is not known until all references are in. The statistics hold, besides the usual
counts, an :class:`~nlgmetrics.algorithms.ngram_table.NgramTable`: the reference n-gram counts and each segment's
matched n-grams, keyed by their tokens. Tables merge by ``+`` exactly (by token text), so batching, ``merge`` and
DDP give the one-call number; the cost is memory in proportion to the distinct reference n-grams and the matched
n-grams seen (see the table's docstring), and bootstrap resampling is not offered.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from .._inputs import ReferenceSets
from ..algorithms.ngram_table import NgramTable, locate
from ..algorithms.ngrams import ReferenceCache, build_index, clipped_counts, vocabulary_streams
from ..errors import InvalidInputError, unknown_option
from ..signature import sig_field
from ..stats import Carried, CarriedColumn, Stats, StatsBatch
from ..text.mt_tokenize import mteval_tokenize
from ..text.tokenizers import resolve, tokenizer_help
from ..text.tokenizers import tokenizer as tokenizer_of
from .base import MAX_ORDER, Family, Result, check_integer, signature_of

__all__ = ["NIST", "NISTConfig", "NISTResult", "NISTStats", "nist", "nist_from_stats", "sentence_nist"]

CONVENTIONS = ("nltk", "mteval")
_TOKENIZER = {"nltk": "whitespace", "mteval": "mteval-13a"}


@dataclasses.dataclass(frozen=True)
class NISTConfig:
    convention: str = sig_field(
        "conv", "nltk", help="nltk (NLTK 3.10) or mteval (mteval-v13a.pl)", choices=CONVENTIONS, role="convention"
    )
    max_order: int = sig_field("n", 5, help="the largest n-gram order (NLTK's n; mteval's cumulative order)")
    tokenizer: str | None = sig_field(
        "tok", None, help=tokenizer_help("nist", "how text becomes tokens (default: whitespace for NLTK, mteval-13a)")
    )
    lowercase: bool | None = sig_field("lc", None, help="lowercase ASCII letters (mteval's default; its -c: no)")
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise unknown_option("NIST convention", self.convention, list(CONVENTIONS))
        limit = 9 if self.convention == "mteval" else None
        n = self.max_order
        if not (isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1):
            check_integer("max_order", n, minimum=1, maximum=MAX_ORDER)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1 or (limit and n > limit):
            raise InvalidInputError(
                f"max_order must be a positive integer{' up to 9 (mteval counts 9-grams at most)' if limit else ''}, "
                f"got {n!r}"
            )
        if self.tokenizer is None:
            object.__setattr__(self, "tokenizer", _TOKENIZER[self.convention])
        if self.lowercase is None:
            object.__setattr__(self, "lowercase", self.convention == "mteval")
        if not isinstance(self.lowercase, bool):
            raise InvalidInputError(f"lowercase must be True or False, got {self.lowercase!r}")
        object.__setattr__(self, "tokenizer", resolve(self.tokenizer, "nist"))
        if self.tokenizer != "mteval-13a":
            tokenizer_of(str(self.tokenizer))  # fail early on a missing extra


@dataclasses.dataclass(frozen=True)
class NISTStats(Stats):
    """``hyp_ngrams``: hypothesis n-grams per order; ``hyp_len``; ``ref_words``: words of all references;
    ``n_refs``, ``n_segments``; ``table``: reference n-gram counts and matched n-grams (see the module docstring)."""

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (("hyp_ngrams", "hyp_len"), ("n_segments", "n_refs"))

    tuple_fields: ClassVar[Mapping[str, int]] = {"hyp_ngrams": 5}
    carried_fields: ClassVar[Mapping[str, type[Carried]]] = {"table": NgramTable}

    hyp_ngrams: tuple[int, ...]
    hyp_len: int
    ref_words: int
    n_refs: int
    n_segments: int
    table: NgramTable


@dataclasses.dataclass(frozen=True, kw_only=True)
class NISTResult(Result):
    """``precisions``: per order, the information of the matched n-grams per hypothesis n-gram; ``penalty`` the
    length penalty of ``hyp_len`` against ``ref_len``; ``reason`` says why a score is 0 when it is."""

    precisions: tuple[float, ...] = ()
    penalty: float = 0.0
    hyp_len: float = 0
    ref_len: float = 0
    undefined_orders: tuple[int, ...] = ()
    convention: str = ""
    reason: str | None = None


# ====================================================================== kernel
def _tokenize(lines: list[str], cfg: NISTConfig) -> list[list[str]]:
    if cfg.tokenizer == "mteval-13a":
        return [mteval_tokenize(line, bool(cfg.lowercase)) for line in lines]
    if cfg.lowercase:
        lines = [line.lower() for line in lines]
    if cfg.tokenizer == "whitespace":
        return [line.split() for line in lines]
    tok: Any = tokenizer_of(str(cfg.tokenizer))
    return list(tok.batch(lines)) if hasattr(tok, "batch") else [list(tok(line)) for line in lines]


def _tokens_of(index: Any, order: int, rows: np.ndarray, alphabet: int) -> np.ndarray:
    """The token ids of the given n-grams of level ``order`` (rows padded with -1 to the index's order): the last
    token and the prefix rank are the two digits of each index key, so the prefix chain is walked back."""
    out = np.full((len(rows), index.max_order), -1, dtype=np.int64)
    for k in range(order, 0, -1):
        keys = index.levels[k - 1].keys[rows]
        out[:, k - 1] = keys % alphabet
        rows = keys // alphabet
    return out


def _cat(parts: list[np.ndarray], width: int | None = None) -> np.ndarray:
    if parts:
        return np.concatenate(parts)
    return np.zeros((0, width) if width is not None else 0, dtype=np.int64)


@dataclasses.dataclass(frozen=True)
class _ReferenceSide:
    """Everything NIST derives from the references alone (cached: several systems share it)."""

    vocabulary: dict[Any, int]
    vocab: tuple[str, ...]
    alphabet: int
    seg: np.ndarray
    ref_lengths: np.ndarray
    index: Any
    level_start: np.ndarray
    corpus_keys: np.ndarray
    corpus_counts: np.ndarray
    corpus_prefix: np.ndarray
    corpus_row: np.ndarray  # the corpus row of each per-segment row


_CACHE = ReferenceCache(maxsize=4)


def _reference_side(refs: ReferenceSets, cfg: NISTConfig) -> _ReferenceSide:
    n_seg, n = len(refs), cfg.max_order
    seg, col = refs.segments_and_columns()
    vocabulary: dict[Any, int] = {}
    ref_streams = vocabulary_streams(_tokenize(refs.flat, cfg), seg, vocabulary, grow=True)
    alphabet = max(len(vocabulary), 1)
    # per segment and reference: the reference n-grams
    index = build_index(ref_streams, n_seg, n, alphabet, column=col)
    # the reference n-grams of every segment together: per order, the distinct (prefix row, last token)
    level_start = np.cumsum([0] + [len(level.keys) for level in index.levels])
    c_keys, c_counts, c_prefix, c_row = [], [], [], []
    offset, previous, rank = 0, 0, np.zeros(0, dtype=np.int64)
    for order, level in enumerate(index.levels, 1):
        last = level.keys % alphabet
        key = last if order == 1 else rank[level.keys // alphabet] * alphabet + last
        uniq, inverse = np.unique(key, return_inverse=True)
        first = np.empty(len(uniq), dtype=np.int64)
        first[inverse] = np.arange(len(key), dtype=np.int64)
        c_keys.append(_tokens_of(index, order, first, alphabet))
        c_counts.append(np.bincount(inverse, weights=level.counts.sum(axis=1), minlength=len(uniq)))
        # the prefix of an n-gram is the (n-1)-gram of rank ``uniq // alphabet``, stored from ``previous`` on
        c_prefix.append(np.full(len(uniq), -1, dtype=np.int64) if order == 1 else previous + uniq // alphabet)
        c_row.append(offset + inverse)
        previous, offset, rank = offset, offset + len(uniq), inverse
    return _ReferenceSide(
        vocabulary,
        tuple(vocabulary),
        alphabet,
        seg,
        ref_streams.lengths,
        index,
        level_start,
        _cat(c_keys, n),
        np.rint(_cat(c_counts)).astype(np.int64),
        _cat(c_prefix),
        _cat(c_row),
    )


def _nist_kernel(preds: list[str], refs: ReferenceSets, cfg: NISTConfig) -> StatsBatch[NISTStats]:
    n_seg, n = len(preds), cfg.max_order
    layout = None if refs.starts is None else refs.starts.tobytes()
    key = ("nist", cfg.tokenizer, cfg.lowercase, n, tuple(refs.flat), layout)
    side: _ReferenceSide = _CACHE.get(key, lambda: _reference_side(refs, cfg))
    index, alphabet, level_start = side.index, side.alphabet, side.level_start
    seg, vocab = side.seg, side.vocab
    hyp = vocabulary_streams(_tokenize(preds, cfg), np.arange(n_seg, dtype=np.int64), side.vocabulary, grow=False)
    held: list[np.ndarray] = []
    first: list[np.ndarray] = []
    clipped_counts(index, hyp, n, held_out=held, first_out=first)
    units, options, rows, keys, counts, firsts = [], [], [], [], [], []
    for order, level in enumerate(index.levels, 1):
        if cfg.convention == "mteval":  # clipped by the largest count in one reference
            count = np.minimum(held[order - 1], level.counts.max(axis=1))
            row = np.flatnonzero(count)
            option = np.zeros(len(row), dtype=np.int64)
            count = count[row]
        else:  # each reference apart: NLTK chooses among them after weighting
            both = np.minimum(held[order - 1][:, None], level.counts)
            row, option = np.nonzero(both)
            count = both[row, option]
        units.append(level.unit[row])
        options.append(option)
        rows.append(level_start[order - 1] + row)  # the per-segment row matched
        keys.append(_tokens_of(index, order, row, alphabet))
        counts.append(count)
        firsts.append(first[order - 1][row] - hyp.offsets[level.unit[row]])  # the position within its hypothesis
    m_unit = _cat(units)
    m_sort = np.argsort(m_unit, kind="stable")
    m_unit, m_option, m_row = m_unit[m_sort], _cat(options)[m_sort], _cat(rows)[m_sort]
    m_keys, m_counts, m_first = _cat(keys, n)[m_sort], _cat(counts)[m_sort], _cat(firsts)[m_sort]
    if cfg.convention == "mteval":
        o_group, o_len = np.arange(n_seg, dtype=np.int64), np.zeros(n_seg, dtype=np.int64)
    else:
        o_group, o_len = seg, side.ref_lengths
    total = NgramTable(
        vocab,
        side.corpus_keys,
        side.corpus_counts,
        m_unit,
        m_option,
        m_keys,
        m_counts,
        o_group,
        o_len,
        n_seg,
        side.corpus_prefix,
        side.corpus_row[m_row],
        m_first,
    )

    def per_segment() -> list[NgramTable]:
        r_unit = _cat([level.unit for level in index.levels])
        r_counts = _cat([level.counts.sum(axis=1) for level in index.levels])
        r_prefix = _cat(
            [np.full(len(index.levels[0].keys), -1, dtype=np.int64)]
            + [level_start[k - 1] + level.keys // alphabet for k, level in enumerate(index.levels[1:], 1)]
        )
        r_keys = _cat(
            [_tokens_of(index, k, np.arange(len(lv.keys)), alphabet) for k, lv in enumerate(index.levels, 1)], n
        )
        r_sort = np.argsort(r_unit, kind="stable")
        position = np.empty(len(r_sort), dtype=np.int64)
        position[r_sort] = np.arange(len(r_sort), dtype=np.int64)
        r_bounds = np.searchsorted(r_unit[r_sort], np.arange(n_seg + 1))
        m_bounds = np.searchsorted(m_unit, np.arange(n_seg + 1))
        o_bounds = np.searchsorted(o_group, np.arange(n_seg + 1))
        keys_s, counts_s = r_keys[r_sort], r_counts[r_sort]
        prefix_s = np.where(r_prefix[r_sort] >= 0, position[np.maximum(r_prefix[r_sort], 0)], -1)
        match_s = position[m_row]
        out = []
        for s in range(n_seg):
            a, b, c, d, e, f = r_bounds[s], r_bounds[s + 1], m_bounds[s], m_bounds[s + 1], o_bounds[s], o_bounds[s + 1]
            out.append(
                NgramTable(
                    vocab, keys_s[a:b], counts_s[a:b], np.zeros(d - c, dtype=np.int64), m_option[c:d],
                    m_keys[c:d], m_counts[c:d], np.zeros(f - e, dtype=np.int64), o_len[e:f], 1,
                    np.where(prefix_s[a:b] >= 0, prefix_s[a:b] - a, -1), match_s[c:d] - a, m_first[c:d],
                )
            )  # fmt: skip
        return out

    hyp_lens = hyp.lengths
    orders = np.arange(1, n + 1, dtype=np.int64)
    return StatsBatch(
        NISTStats,
        {
            "hyp_ngrams": np.maximum(hyp_lens[:, None] - orders[None, :] + 1, 0),
            "hyp_len": hyp_lens,
            "ref_words": np.bincount(seg, weights=side.ref_lengths, minlength=n_seg).astype(np.int64),
            "n_refs": refs.counts().astype(np.int64),
            "n_segments": np.ones(n_seg, dtype=np.int64),
            "table": CarriedColumn(NgramTable, total=total, build=per_segment, length=n_seg),
        },
    )


# ====================================================================== formula
def _weights(table: NgramTable, total_words: int, cfg: NISTConfig) -> np.ndarray:
    """The information of each reference row of ``table``: ``log2(count of its prefix / its count)``, the count
    of all reference words standing for the prefix of a single word."""
    keys = table.ref_keys
    count = table.ref_counts.astype(np.float64)
    prefix = table.ref_prefix
    prefix_count = np.where(prefix >= 0, count[np.maximum(prefix, 0)], float(total_words))
    if cfg.convention == "mteval":
        if "0" in table.vocabulary and keys.shape[1] > 1:
            # mteval tests `$mgram ? ... : ...`: the one-word prefix "0" is false in Perl
            quirk = (keys[:, 0] == table.vocabulary.index("0")) & ((keys >= 0).sum(axis=1) == 2)
            prefix_count = np.where(quirk, float(total_words), prefix_count)
        return -np.log(count / prefix_count) / math.log(2)  # - log(c/p) / log 2
    return np.log(prefix_count / count) / math.log(2)  # math.log(p / c, 2)


def _nltk_penalty(ref_len: float, hyp_len: float) -> float:
    ratio = hyp_len / ref_len
    if 0 < ratio < 1:
        beta = math.log(0.5) / math.log(1.5) ** 2
        return math.exp(beta * math.log(ratio) ** 2)
    return max(min(ratio, 1.0), 0.0)


def _mteval_penalty(ratio: float) -> float:
    if ratio >= 1:
        return 1.0
    if ratio <= 0:
        return 0.0
    beta = -math.log(0.5) / math.log(1.5) / math.log(1.5)
    return math.exp(-beta * math.log(ratio) * math.log(ratio))


@dataclasses.dataclass
class _Matched:
    """The information of the matched n-grams per (option row, order), and per match row its option row, order
    and weighted count."""

    values: np.ndarray
    option_row: np.ndarray
    order: np.ndarray
    weighted: np.ndarray


def _group_info(table: NgramTable, weights: np.ndarray, n_max: int) -> _Matched:
    info = weights[table.match_ref] if len(table.match_ref) else np.zeros(0)
    order = (table.match_keys >= 0).sum(axis=1) if len(table.match_keys) else np.zeros(0, dtype=np.int64)
    # options are stored group by group, in reference order: their row is found from (group, option)
    starts = np.searchsorted(table.option_group, np.arange(table.n_groups))
    option_row = starts[table.match_group] + table.match_option
    values = np.zeros((len(table.option_len), n_max), dtype=np.float64)
    weighted = info * table.match_counts
    keep = np.flatnonzero((order >= 1) & (order <= n_max))
    # each option's sum runs over its n-grams in the order they first occur in the hypothesis (as NLTK adds
    # them), not in the table's row order, which depends on how the tables of batches or partitions were merged
    keep = keep[np.lexsort((table.match_first[keep], option_row[keep]))]
    np.add.at(values, (option_row[keep], order[keep] - 1), weighted[keep])
    return _Matched(values, option_row, order, weighted)


def _exact_ties(table: NgramTable, matched: _Matched, i: int) -> np.ndarray:
    """The order-``i + 1`` column of ``matched.values``, recomputed as NLTK adds it where the two best options of
    a group come within rounding of each other (NLTK then picks by the last bits of its sums, which add the
    weights in the order the n-grams first occur in the hypothesis). Options without any match are exact zeros
    and need nothing."""
    column = matched.values[:, i].copy()
    group = table.option_group
    perm = np.lexsort((-column, group))
    first = np.searchsorted(group[perm], np.arange(table.n_groups))
    has_two = np.diff(np.append(first, len(perm))) >= 2
    best, second = column[perm[first[has_two]]], column[perm[first[has_two] + 1]]
    close = (np.abs(best - second) <= 1e-9 * np.maximum(1.0, np.abs(best))) & (best != 0)
    tied_groups = np.arange(table.n_groups)[has_two][close]
    if not len(tied_groups):
        return column
    rows = np.flatnonzero(np.isin(group, tied_groups) & (column != 0))
    sel = np.flatnonzero(np.isin(matched.option_row, rows) & (matched.order == i + 1))
    sel = sel[np.lexsort((table.match_first[sel], matched.option_row[sel]))]
    bounds = np.searchsorted(matched.option_row[sel], rows)
    ends = np.append(bounds[1:], len(sel))
    weighted = matched.weighted[sel].tolist()
    for row, a, b in zip(rows.tolist(), bounds.tolist(), ends.tolist(), strict=True):
        column[row] = sum(weighted[a:b])  # sum() from 0, left to right, as NLTK
    return column


def _nist_parts(stats: NISTStats, cfg: NISTConfig, values: np.ndarray | None = None) -> dict[str, Any]:
    n_max = cfg.max_order
    table = stats.table
    hyp_ngrams = [int(x) for x in stats.hyp_ngrams]
    matched = None
    if values is None:
        matched = _group_info(table, _weights(table, int(stats.ref_words), cfg), n_max)
        values = matched.values
    if cfg.convention == "mteval":
        info = [math.fsum(column) for column in values.T.tolist()]  # exact: independent of the merge order
        precisions = [float(info[i]) / max(hyp_ngrams[i], 1) for i in range(n_max)]
        nsys = stats.n_refs // stats.n_segments if stats.n_refs % max(stats.n_segments, 1) == 0 else None
        nsys_value = nsys if nsys is not None else stats.n_refs / stats.n_segments
        ref_len = stats.ref_words / nsys_value if stats.n_segments else 0.0
        hyp_len = float(hyp_ngrams[0])
        return {"precisions": precisions, "ref_len": ref_len, "hyp_len": hyp_len, "undefined": []}
    # NLTK: per group and order, the option with the largest information (ties: the longest reference)
    lengths = table.option_len
    group = table.option_group
    chosen_num = np.zeros(n_max)
    ref_total = 0
    for i in range(n_max):
        column = values[:, i] if matched is None else _exact_ties(table, matched, i)
        perm = np.lexsort((-lengths, -column, group))
        first = perm[np.searchsorted(group[perm], np.arange(table.n_groups))]
        # segment after segment from 0, as NLTK's ``nist_precision_numerator_per_ngram[i] += numerator`` (an exactly
        # rounded sum is 1 ulp off NLTK's on its own wmt15_eval data); groups are in corpus order
        chosen_num[i] = sum(column[first].tolist())
        ref_total += int(lengths[first].sum())
    precisions, undefined = [], []
    for i in range(n_max):
        if hyp_ngrams[i] == 0:
            undefined.append(i + 1)
            precisions.append(0.0)
        else:
            precisions.append(float(chosen_num[i]) / hyp_ngrams[i])
    return {
        "precisions": precisions,
        "ref_len": ref_total,
        "hyp_len": n_max * int(stats.hyp_len),
        "undefined": undefined,
    }


def nist_from_stats(stats: NISTStats, cfg: NISTConfig, values: np.ndarray | None = None) -> NISTResult:
    """The NIST formula of ``cfg.convention`` on summed statistics (``values``: the information of the matched
    n-grams per option and order, when already known)."""
    if int(stats.n_segments) == 0:
        return NISTResult(score=0.0, convention=cfg.convention, reason="no segment was scored")
    parts = _nist_parts(stats, cfg, values)
    precisions, ref_len, hyp_len = parts["precisions"], parts["ref_len"], parts["hyp_len"]
    reason = None
    if ref_len == 0:
        penalty = 0.0
        reason = "the references hold no word: the information of an n-gram is undefined"
    elif cfg.convention == "mteval":
        penalty = _mteval_penalty(hyp_len / ref_len)
    else:
        penalty = _nltk_penalty(ref_len, hyp_len)
    total = 0.0
    for p in precisions:
        total += p
    if parts["undefined"] and reason is None:
        orders = ", ".join(map(str, parts["undefined"]))
        reason = f"no prediction has an n-gram of order {orders} (NLTK raises ZeroDivisionError; counted as 0 here)"
    score = total * penalty
    if score == 0 and reason is None:
        reason = "no n-gram of the predictions appears in the references" if hyp_len else "the predictions are empty"
    return NISTResult(
        score=score,
        precisions=tuple(precisions),
        penalty=penalty,
        hyp_len=hyp_len,
        ref_len=ref_len,
        undefined_orders=tuple(parts["undefined"]),
        convention=cfg.convention,
        reason=reason,
    )


class _NISTFamily(Family[NISTConfig, NISTStats, NISTResult]):
    """NIST's per-segment scores: NLTK's ``sentence_nist`` (the segment's own information, the formula on its
    own statistics) or mteval's segment scores (the corpus information, the segment's counts)."""

    def finalize(self, total: NISTStats, config: NISTConfig, batch: StatsBatch[NISTStats] | None = None) -> NISTResult:
        if batch is None or config.convention != "mteval" or len(batch) == 0:
            return super().finalize(total, config, batch)
        weights = _weights(total.table, int(total.ref_words), config)
        result = nist_from_stats(total, config, _group_info(total.table, weights, config.max_order).values)
        # the segments' matched n-grams (one option per segment), weighed by the corpus information
        segments_table = batch.column("table").total()
        rows = _rows_in(total.table, segments_table)
        values = _group_info(segments_table, weights[rows], config.max_order).values
        cols = batch.columns
        segments = []
        for i in range(len(batch)):
            one = NISTStats(
                hyp_ngrams=tuple(int(x) for x in cols["hyp_ngrams"][i]),
                hyp_len=int(cols["hyp_len"][i]),
                ref_words=int(cols["ref_words"][i]),
                n_refs=int(cols["n_refs"][i]),
                n_segments=1,
                table=NgramTable.empty(),
            )
            segments.append(float(nist_from_stats(one, config, values[i : i + 1]).score))
        return dataclasses.replace(result, segments=tuple(segments), signature=signature_of(self, config))


def _rows_in(table: NgramTable, other: NgramTable) -> np.ndarray:
    """The row of ``table``'s reference n-grams that each reference n-gram of ``other`` is."""
    if other is table:
        return np.arange(len(table.ref_counts), dtype=np.int64)
    if other.vocabulary is not table.vocabulary:
        ids = dict(zip(table.vocabulary, range(len(table.vocabulary)), strict=True))
        remap = np.fromiter(map(ids.get, other.vocabulary, [-2] * len(other.vocabulary)), dtype=np.int64)
        keys = np.where(other.ref_keys >= 0, remap[np.maximum(other.ref_keys, 0)], -1)
    else:
        keys = other.ref_keys
    found, _ = locate(table.ref_keys, keys)
    return found


def _sizes(cfg: NISTConfig) -> dict[str, int]:
    return {"hyp_ngrams": cfg.max_order}


NIST = _NISTFamily(
    name="nist",
    bounds=(0.0, None),
    config_cls=NISTConfig,
    stats_cls=NISTStats,
    kernel=_nist_kernel,
    formula=nist_from_stats,
    presets={"nltk": {"convention": "nltk"}, "mteval-13a": {"convention": "mteval"}},
    default_preset="nltk",
    stats_sizes=_sizes,
)


nist = NIST.function(
    "nist",
    __name__,
    """Corpus NIST: NLTK's ``corpus_nist`` (preset ``"nltk"``) or mteval-v13a.pl's NIST (``"mteval-13a"``).
    ``options``: ``max_order``, ``tokenizer``, ``lowercase``. ``segments=True`` adds the per-segment scores.

    >>> round(nist(["the cat sat on the mat"], ["the cat is on the mat"]).score, 4)
    2.2208
    """,
)


def sentence_nist(
    prediction: str, references: str | Sequence[str], *, preset: str | None = None, **options: Any
) -> NISTResult:
    """NLTK's ``sentence_nist``: the NIST of one sentence, with the information of its own references."""
    if not isinstance(prediction, str):
        raise InvalidInputError(f"sentence_nist takes one prediction (a string), got {type(prediction).__name__}")
    refs = [references] if isinstance(references, str) else [list(references)]
    return nist([prediction], refs, preset=preset, **options)
