"""The ROUGE batch kernel: texts in, per-segment precision, recall and F of every requested type out.

The kernel works on the whole batch at once. Every text is encoded into one column of integer token ids
(:func:`~nlgmetrics.text.rouge_tokenize.encode_texts`); each prediction is paired with each of its references;
the matches of every pair come from a few vectorised passes (clipped n-gram overlaps from sorting each pair's
n-grams, LCS lengths from rapidfuzz, union LCS from the bit-parallel kernel of :mod:`nlgmetrics.algorithms.lcs`);
then each segment keeps its best reference or pools them, and the pair counts become precision, recall and F
with the chosen reference tool's arithmetic. Identical texts are encoded once.

This module holds no public API; :mod:`nlgmetrics.metrics.rouge` declares the family around it.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import ReferenceSets
from ..algorithms.lcs import ID_STRING_LIMIT, id_strings, lcs_lengths, union_lcs_marks, weighted_lcs_marks
from ..algorithms.rouge_counts import GroupedKeys, clipped_overlap, group_rows, ngram_ids, ragged_arange
from ..algorithms.rouge_counts import skip_bigram_ids as _skip_bigram_ids
from ..errors import UnknownOptionError
from ..text.rouge_tokenize import EncodedTexts, encode_texts, rouge155_truncate, smart_stopwords
from ..text.sentences import split_sentences

if TYPE_CHECKING:
    from .rouge import RougeConfig

__all__ = ["RougeType", "pair_scores", "parse_rouge_type", "rouge_columns", "round5"]


# ---------------------------------------------------------------------------------------------------- types
@dataclasses.dataclass(frozen=True)
class RougeType:
    """One ROUGE type: ``kind`` is ``"n"`` (n-grams), ``"L"`` (LCS of whole texts), ``"Lsum"`` (union LCS over
    sentences), ``"W"`` (weighted LCS) or ``"S"`` (skip bigrams; ``skip`` None means any distance,
    ``unigrams`` adds the unigrams of ROUGE-SU)."""

    name: str
    kind: str
    n: int = 0
    skip: int | None = None
    unigrams: bool = False


_TYPE_NAME = re.compile(r"rouge(?:([1-9])|(L)|(Lsum)|(W)|(SU|S)(\d+|\*))")
TYPE_FORMS = "rouge1 ... rouge9, rougeL, rougeLsum, rougeW, rougeS<d>/rougeS* and rougeSU<d>/rougeSU* (skip distance d)"


def parse_rouge_type(name: str) -> RougeType:
    """Parse a type name such as ``"rouge2"``, ``"rougeLsum"`` or ``"rougeSU4"``."""
    m = _TYPE_NAME.fullmatch(name) if isinstance(name, str) else None
    if m is None:
        raise UnknownOptionError(f"unknown ROUGE type {name!r}; valid types are {TYPE_FORMS}")
    if m.group(1):
        return RougeType(name, "n", n=int(m.group(1)))
    if m.group(2):
        return RougeType(name, "L")
    if m.group(3):
        return RougeType(name, "Lsum")
    if m.group(4):
        return RougeType(name, "W")
    skip = None if m.group(6) == "*" else int(m.group(6))
    return RougeType(name, "S", skip=skip, unigrams=m.group(5) == "SU")


# ---------------------------------------------------------------------------------------------------- arithmetic
def round5(x: np.ndarray) -> np.ndarray:
    """``sprintf("%7.5f", x)`` read back as a number, element-wise: the nearest double to ``x`` rounded to five
    decimals (ties as the exact binary value of ``x`` decides, as C's printf does)."""
    x = np.asarray(x, dtype=np.float64)
    scaled = x * 1e5
    out = np.rint(scaled) / 1e5  # k / 1e5 is the double nearest to the decimal 0.kkkkk
    near = np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6  # too close to a tie for the float product
    if near.any():
        idx = np.flatnonzero(near)
        out[idx] = [float(f"{v:.5f}") for v in x[idx].tolist()]
    return out


def _fmeasure(p: np.ndarray, r: np.ndarray, beta: float, alpha: float | None) -> np.ndarray:
    if alpha is not None:  # ROUGE-1.5.5: F = P R / ((1 - alpha) P + alpha R)
        den = (1 - alpha) * p + alpha * r
        return np.divide(p * r, den, out=np.zeros_like(p), where=den > 0)
    b2 = beta * beta
    den = b2 * p + r
    # with beta = 1 this is rouge-score's 2 * p * r / (p + r), operation for operation
    return np.divide((1 + b2) * p * r, den, out=np.zeros_like(p), where=den > 0)


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros_like(num), where=den != 0)


# ---------------------------------------------------------------------------------------------------- pair counts
@dataclasses.dataclass
class PairCounts:
    """Per text pair: matches and the two denominators (weighted for ROUGE-W)."""

    hits: np.ndarray
    pred_total: np.ndarray
    ref_total: np.ndarray


@dataclasses.dataclass
class _Batch:
    """Everything the per-type functions need about one batch of text pairs.

    ``pred_text``/``ref_text`` index the texts scored by n-grams, ``pred_lcs``/``ref_lcs`` those scored by the
    sentence-level LCS; they differ only under ROUGE-1.5.5's length limits (``split``).
    """

    enc: EncodedTexts
    n_pairs: int
    pred_text: np.ndarray
    ref_text: np.ndarray
    pred_lcs: np.ndarray
    ref_lcs: np.ndarray
    split: bool
    weight: float
    want_uid: bool = False
    _unigrams: GroupedKeys | None = None
    _with_uid: bool = False
    _strings: list[str] | None = None
    _lcs: np.ndarray | None = None

    def unigrams(self, with_uid: bool) -> GroupedKeys:
        """Unigram groups of every pair: sides 0/1 are the prediction/reference tokens (n-gram texts), and under
        length limits 2/3 those of the LCS texts. ``with_uid``: also the group of every token."""
        with_uid = with_uid or self.want_uid
        if self._unigrams is None or (with_uid and not self._with_uid):
            enc = self.enc
            texts = [self.pred_text, self.ref_text] + ([self.pred_lcs, self.ref_lcs] if self.split else [])
            sides = [(enc.text_start[t], enc.text_len[t]) for t in texts]
            self._unigrams = group_rows(enc.tokens, sides, self.n_pairs, with_uid=with_uid)
            self._with_uid = with_uid
        return self._unigrams

    def strings(self) -> list[Any]:
        """Every text as a string of one code point per token (rapidfuzz's fastest input), or as a list of ids
        when there are more distinct tokens than code points."""
        if self._strings is None:
            enc = self.enc
            if enc.vocab_size <= ID_STRING_LIMIT:
                self._strings = id_strings(enc.tokens, enc.text_start[:-1], enc.text_start[1:])
            else:
                ids = enc.tokens.tolist()
                bounds = enc.text_start.tolist()
                self._strings = [ids[a:b] for a, b in itertools.pairwise(bounds)]
        return self._strings

    def text_lcs(self) -> np.ndarray:
        """LCS length of the whole texts of every pair (rapidfuzz)."""
        if self._lcs is None:
            s = self.strings()
            self._lcs = lcs_lengths([s[i] for i in self.pred_text.tolist()], [s[i] for i in self.ref_text.tolist()])
        return self._lcs


def _ngram_counts(b: _Batch, n: int) -> PairCounts:
    lens = b.enc.text_len
    pred_total = np.maximum(lens[b.pred_text] - n + 1, 0)
    ref_total = np.maximum(lens[b.ref_text] - n + 1, 0)
    if n == 1:
        groups = b.unigrams(with_uid=False)
        hits = clipped_overlap(groups, groups.counts[0], groups.counts[1])
    else:
        grams, _ = ngram_ids(b.enc.tokens, b.enc.vocab_size, n)
        start = b.enc.text_start
        sides = [(start[b.pred_text], pred_total), (start[b.ref_text], ref_total)]
        hits = clipped_overlap(group_rows(grams, sides, b.n_pairs))
    return PairCounts(hits, pred_total, ref_total)


def _skip_counts(b: _Batch, t: RougeType) -> PairCounts:
    enc = b.enc
    text_of, ids, _ = _skip_bigram_ids(
        enc.tokens, enc.text_start[:-1], enc.text_len, enc.vocab_size, t.skip, t.unigrams
    )
    per_text = np.bincount(text_of, minlength=len(enc.text_len))
    # items come ordered by skip distance; lay them out text by text
    ids = ids[np.argsort(text_of, kind="stable")]
    start = np.concatenate([[0], np.cumsum(per_text)])
    pred_total, ref_total = per_text[b.pred_text], per_text[b.ref_text]
    sides = [(start[b.pred_text], pred_total), (start[b.ref_text], ref_total)]
    hits = clipped_overlap(group_rows(ids, sides, b.n_pairs))
    return PairCounts(hits, pred_total, ref_total)


def _lcs_counts(b: _Batch) -> PairCounts:
    lens = b.enc.text_len
    return PairCounts(b.text_lcs(), lens[b.pred_text], lens[b.ref_text])


def _sentence_counts(b: _Batch) -> tuple[np.ndarray, np.ndarray]:
    ts = b.enc.text_sent
    assert ts is not None
    return ts[b.ref_lcs + 1] - ts[b.ref_lcs], ts[b.pred_lcs + 1] - ts[b.pred_lcs]


def _sentence_pairs(b: _Batch, only: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All (reference sentence, prediction sentence) pairs of every text pair (of the pairs in ``only``)."""
    enc = b.enc
    assert enc.text_sent is not None
    n_ref, n_pred = _sentence_counts(b)
    per = n_ref * n_pred if only is None else np.where(only, n_ref * n_pred, 0)
    pair = np.repeat(np.arange(b.n_pairs), per)
    local = ragged_arange(np.zeros(b.n_pairs, dtype=np.int64), per)
    npred = np.maximum(n_pred[pair], 1)
    ref_sent = enc.text_sent[b.ref_lcs][pair] + local // npred
    pred_sent = enc.text_sent[b.pred_lcs][pair] + local % npred
    return pair, ref_sent, pred_sent


def _union_marks(
    b: _Batch, weighted: bool, only: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, GroupedKeys]:
    """Union-LCS marks over the reference tokens of every pair (LCS texts, pair by pair), the group of each of
    those tokens, and the unigram groups."""
    enc = b.enc
    groups = b.unigrams(with_uid=True)
    assert enc.sent_start is not None
    assert enc.sent_len is not None
    pair, ref_sent, pred_sent = _sentence_pairs(b, only)
    uid_pred, uid_ref = (groups.uid[2], groups.uid[3]) if b.split else (groups.uid[0], groups.uid[1])
    # offsets of each pair's prediction and reference tokens in the stacked group column
    lens = enc.text_len
    pred_off = np.concatenate([[0], np.cumsum(lens[b.pred_lcs])])[:-1]
    ref_off = len(uid_pred) + np.concatenate([[0], np.cumsum(lens[b.ref_lcs])])[:-1]
    stacked = np.concatenate([uid_pred, uid_ref])
    rs = ref_off[pair] + enc.sent_start[ref_sent] - enc.text_start[b.ref_lcs][pair]
    cs = pred_off[pair] + enc.sent_start[pred_sent] - enc.text_start[b.pred_lcs][pair]
    rl, cl = enc.sent_len[ref_sent], enc.sent_len[pred_sent]
    if weighted:
        marks = weighted_lcs_marks(stacked, rs, rl, cs, cl, b.weight)
    else:
        lo = groups.group_lo[pair]
        marks = union_lcs_marks(stacked, rs, rl, cs, cl, lo, groups.group_hi[pair] - lo)
    return marks[len(uid_pred) :], uid_ref, groups


def _union_lcs_counts(b: _Batch) -> PairCounts:
    lens = b.enc.text_len
    pred_total = lens[b.pred_text]  # the prediction's tokens (ROUGE-1.5.5: its unigram count, n-gram text)
    ref_total = lens[b.ref_lcs]  # the reference's sentence tokens
    n_ref, n_pred = _sentence_counts(b)
    # one sentence on each side: the union LCS is the LCS of the texts (rapidfuzz)
    single = (n_ref == 1) & (n_pred == 1) & (not b.split)
    hits = np.zeros(b.n_pairs, dtype=np.int64)
    if single.any():
        hits = np.where(single, b.text_lcs(), 0)
    if not single.all():
        ref_marks, uid_ref, groups = _union_marks(b, weighted=False, only=~single)
        marked = np.bincount(uid_ref[ref_marks], minlength=groups.n_groups)
        # rouge-score and ROUGE-1.5.5 clip the hits by the unigram counts of both texts
        clip = [marked, groups.counts[0]] + ([groups.counts[1]] if b.split else [])
        hits = np.where(single, hits, clipped_overlap(groups, *clip))
    return PairCounts(hits, pred_total, ref_total)


def _weighted_counts(b: _Batch) -> PairCounts:
    """ROUGE-1.5.5's ROUGE-W (``wlcs``): per reference sentence, runs of consecutive union-LCS hits weigh
    ``len ** w``; hits are clipped by the unigram counts in reading order, as the script's loop does."""
    enc = b.enc
    w = b.weight
    ref_marks, uid_ref, groups = _union_marks(b, weighted=True)
    assert enc.text_sent is not None
    assert enc.sent_len is not None
    assert enc.sent_start is not None
    # budget of each (pair, token) group: both unigram counts, decremented by every hit
    budget = np.minimum(groups.counts[0], groups.counts[1]).tolist()
    marks = ref_marks.tolist()
    uids = uid_ref.tolist()
    lens = enc.text_len
    ref_off = np.concatenate([[0], np.cumsum(lens[b.ref_lcs])]).tolist()
    hits = np.zeros(b.n_pairs, dtype=np.float64)
    base = np.zeros(b.n_pairs, dtype=np.float64)
    sent_start, sent_len = enc.sent_start.tolist(), enc.sent_len.tolist()
    text_sent, text_start = enc.text_sent.tolist(), enc.text_start.tolist()
    for p, t in enumerate(b.ref_lcs.tolist()):
        hit = 0.0
        b_sum = 0.0
        for s in range(text_sent[t], text_sent[t + 1]):
            length = sent_len[s]
            b_sum += length**w
            at = ref_off[p] + sent_start[s] - text_start[t]
            run = 0
            for j in range(length):
                if not marks[at + j]:
                    continue
                u = uids[at + j]
                if budget[u] <= 0:
                    continue
                budget[u] -= 1
                run += 1
                if j + 1 == length or not marks[at + j + 1]:
                    hit += run**w
                    run = 0
        hits[p] = hit
        base[p] = b_sum
    return PairCounts(hits, lens[b.pred_text].astype(np.float64), base)


# ---------------------------------------------------------------------------------------------------- per segment
def pair_scores(t: RougeType, c: PairCounts, cfg: RougeConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and F of each pair (ROUGE-W: the script's per-pair recall, used to pick the best)."""
    w = cfg.weight
    if t.kind == "W":
        rec = _div(c.hits, c.ref_total) ** (1 / w)
        prec = _div(c.hits, c.pred_total**w) ** (1 / w)
    else:
        rec = _div(c.hits, c.ref_total)
        prec = _div(c.hits, c.pred_total)
    return prec, rec, _fmeasure(prec, rec, cfg.beta, cfg.alpha)


def _first_max(values: np.ndarray, starts: np.ndarray | None) -> np.ndarray:
    """Index of the first maximum of ``values`` in each segment (``np.argmax`` per segment)."""
    if starts is None:
        return np.arange(len(values))
    best = np.maximum.reduceat(values, starts)
    counts = np.diff(np.append(starts, len(values)))
    hit = np.flatnonzero(values == np.repeat(best, counts))
    seg = np.searchsorted(starts, hit, side="right") - 1
    first = np.ones(len(hit), dtype=bool)
    first[1:] = seg[1:] != seg[:-1]
    return hit[first]


def _sum_segments(values: np.ndarray, starts: np.ndarray | None) -> np.ndarray:
    if starts is None:
        return np.asarray(values, dtype=np.float64)
    return np.add.reduceat(np.asarray(values, dtype=np.float64), starts)


def _segment_scores(
    t: RougeType, c: PairCounts, refs: ReferenceSets, cfg: RougeConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    starts = refs.starts
    w = cfg.weight
    if cfg.scoring == "rouge155":
        return _perl_scores(t, c, starts, cfg)
    if cfg.multi_ref == "best":
        prec, rec, f = pair_scores(t, c, cfg)
        pick = _first_max(f, starts)
        return prec[pick], rec[pick], f[pick]
    if cfg.multi_ref == "max-pr":  # pycocoevalcap: the best precision and the best recall, each on its own
        prec, rec, _ = pair_scores(t, c, cfg)
        if starts is not None:
            prec, rec = np.maximum.reduceat(prec, starts), np.maximum.reduceat(rec, starts)
        return prec, rec, _fmeasure(prec, rec, cfg.beta, cfg.alpha)
    hits = _sum_segments(c.hits, starts)
    if t.kind == "W":
        rec = _div(hits, _sum_segments(c.ref_total, starts)) ** (1 / w)
        prec = _div(hits, _sum_segments(c.pred_total**w, starts)) ** (1 / w)
    else:
        rec = _div(hits, _sum_segments(c.ref_total, starts))
        prec = _div(hits, _sum_segments(c.pred_total, starts))
    return prec, rec, _fmeasure(prec, rec, cfg.beta, cfg.alpha)


def _perl_scores(
    t: RougeType, c: PairCounts, starts: np.ndarray | None, cfg: RougeConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ROUGE-1.5.5's per-summary numbers: ``-f A`` pools hits and counts over the references, ``-f B`` keeps the
    reference with the best recall (the first of equals; n-gram and skip-bigram recalls compared after rounding
    to five decimals, as the script compares them); R and P are rounded to five decimals, and F is computed
    from the rounded values, then rounded."""
    w = cfg.weight
    ref_den = c.ref_total.astype(np.float64)
    pred_den = c.pred_total.astype(np.float64)
    if t.kind == "W":  # the script weights the reference base a second time
        ref_den = ref_den**w
        pred_den = pred_den**w
    if cfg.multi_ref == "best":
        if t.kind in ("n", "S"):
            score = np.where(c.ref_total != 0, round5(_div(c.hits, c.ref_total)), 0.0)
        elif t.kind == "W":
            score = _div(c.hits, c.ref_total) ** (1 / w)
        else:
            score = _div(c.hits, c.ref_total)
        pick = _first_max(score, starts)
        hits, ref_sum, pred_sum = c.hits[pick].astype(np.float64), ref_den[pick], pred_den[pick]
    else:
        hits = _sum_segments(c.hits, starts)
        ref_sum, pred_sum = _sum_segments(ref_den, starts), _sum_segments(pred_den, starts)
    rec, prec = _div(hits, ref_sum), _div(hits, pred_sum)
    if t.kind == "W":
        rec, prec = rec ** (1 / w), prec ** (1 / w)
    rec, prec = round5(rec), round5(prec)
    return prec, rec, round5(_fmeasure(prec, rec, cfg.beta, cfg.alpha))


# ---------------------------------------------------------------------------------------------------- the kernel
def _sentence_texts(texts: Sequence[str], mode: str) -> list[str]:
    if mode == "newline":
        return list(texts)
    if mode == "rules":
        return ["\n".join(split_sentences(t)) for t in texts]
    return [t if "\n" in t else "\n".join(split_sentences(t)) for t in texts]  # auto


def _tokenizer_of(cfg: RougeConfig) -> str | Callable[[str], list[str]]:
    if cfg.tokenizer in ("unicode", "rouge-score", "rouge155"):
        return cfg.tokenizer
    from ..text import get_tokenizer

    return get_tokenizer(cfg.tokenizer)


def rouge_columns(preds: list[str], refs: ReferenceSets, cfg: RougeConfig) -> dict[str, np.ndarray]:
    """Per-segment ``precision``, ``recall`` and ``fmeasure`` columns (segments x types) of a batch."""
    types = [parse_rouge_type(name) for name in cfg.rouge_types]
    n = len(preds)
    n_pairs = len(refs.flat)
    perl = cfg.scoring == "rouge155"
    sentence_kinds = {"Lsum", "W"} | ({"L"} if perl else set())
    need_sentences = any(t.kind in sentence_kinds for t in types)
    texts = [*preds, *refs.flat]
    if cfg.sentence_separator:
        texts = [t.replace(cfg.sentence_separator, "\n") for t in texts]
    split = bool(cfg.length_limit or cfg.byte_limit)
    if split:
        cut = [rouge155_truncate(t, cfg.length_limit, cfg.byte_limit) for t in texts]
        texts = [c[0] for c in cut] + ["\n".join(c[1]) for c in cut]
    elif need_sentences:
        texts = _sentence_texts(texts, cfg.sentence_split)
    # each distinct text is tokenized once (the references of a benchmark repeat for every system)
    index: dict[str, int] = {}
    where = np.fromiter((index.setdefault(t, len(index)) for t in texts), dtype=np.int64, count=len(texts))
    enc = encode_texts(
        list(index),
        _tokenizer_of(cfg),
        stemmer=cfg.stemmer if cfg.use_stemmer else None,
        stopwords=smart_stopwords() if cfg.remove_stopwords else (),
        sentences=need_sentences or split,
    )
    seg_of_pair = np.repeat(np.arange(n), refs.counts()) if refs.starts is not None else np.arange(n)
    pred_text, ref_text = where[seg_of_pair], where[n + np.arange(n_pairs)]
    if split:
        m = n + n_pairs
        pred_lcs, ref_lcs = where[m + seg_of_pair], where[m + n + np.arange(n_pairs)]
    else:
        pred_lcs, ref_lcs = pred_text, ref_text
    batch = _Batch(enc, n_pairs, pred_text, ref_text, pred_lcs, ref_lcs, split, cfg.weight)
    if any(t.kind in sentence_kinds for t in types):
        n_ref, n_pred = _sentence_counts(batch)
        # the union LCS will need the group of every token: sort once, with the unigrams
        batch.want_uid = split or any(t.kind == "W" for t in types) or bool(((n_ref > 1) | (n_pred > 1)).any())
    k = len(types)
    cols = {name: np.zeros((n, k), dtype=np.float64) for name in ("precision", "recall", "fmeasure")}
    cache: dict[Any, PairCounts] = {}
    for j, t in enumerate(types):
        kind = "Lsum" if (perl and t.kind == "L") else t.kind
        key = (kind, t.n, t.skip, t.unigrams)
        if key not in cache:
            if kind == "n":
                cache[key] = _ngram_counts(batch, t.n)
            elif kind == "S":
                cache[key] = _skip_counts(batch, t)
            elif kind == "L":
                cache[key] = _lcs_counts(batch)
            elif kind == "Lsum":
                cache[key] = _union_lcs_counts(batch)
            else:
                cache[key] = _weighted_counts(batch)
        p, r, f = _segment_scores(t, cache[key], refs, cfg)
        cols["precision"][:, j], cols["recall"][:, j], cols["fmeasure"][:, j] = p, r, f
    return cols
