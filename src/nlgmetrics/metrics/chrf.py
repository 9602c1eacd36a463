"""chrF and chrF++: character (and word) n-gram F-score, exactly as sacrebleu 2.6 computes it.

Preset ``sacrebleu`` (default) reproduces ``sacrebleu.metrics.CHRF(char_order=6, word_order=0, beta=2)``'s
``corpus_score`` (``sacrebleu -m chrf``); preset ``chrf++`` sets ``word_order=2`` (``sacrebleu -m chrf
--chrf-word-order 2``). Options: ``char_order``, ``word_order``, ``beta``, ``lowercase``, ``whitespace`` (keep
spaces in character n-grams) and ``eps_smoothing`` (the epsilon smoothing of chrF++.py, NLTK and Moses instead of
sacrebleu's effective-order averaging).

Per segment the statistics are, for every character order and then every word order, the number of hypothesis
n-grams, of reference n-grams and of clipped matches. With several references, sacrebleu keeps the reference
whose segment-level chrF is highest (the first one on ties); so does the kernel here, with the same formula. The
corpus score is the formula on the summed statistics. Scores are on the 0-100 scale.

Preset ``torchmetrics`` (``convention="torchmetrics"``, ``word_order=2``) reproduces torchmetrics' ``chrf_score`` /
``CHRFScore(n_char_order, n_word_order, beta, lowercase, whitespace)`` (there on 0-1): the F of each order is
computed on its own and the F values are averaged over all orders (sacrebleu averages precision and recall over the
orders both sides reach, then takes one F) and is on 0-1; hypothesis n-grams are counted whatever the reference
holds; characters are the text stripped, with spaces (only ``" "``) removed; the reference kept is the first one
with the highest torchmetrics F, and when every reference scores 0 none is counted (its n-grams do not enter the
corpus recall), as torchmetrics does. torchmetrics sums in float32; these numbers are the float64 ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from .._inputs import ReferenceSets, one_segment
from .._np import is_array
from ..algorithms import fastpath
from ..algorithms.native import native
from ..algorithms.refcache import ReferenceCache, disk_cache_set
from ..errors import InvalidInputError, unknown_option
from ..signature import sacrebleu_nrefs, sig_field
from ..stats import Stats, StatsBatch
from ..text.coverage import warn_unsplit_cjk
from ..text.mt_tokenize import SACREBLEU_VERSION
from .base import MAX_ORDER, Family, Result, check_integer, check_number

# numpy (and the n-gram index built on it) is imported where a path needs it: a fresh process scoring a corpus on
# the compiled counters takes the row path and never imports it; the formula tells arrays from numbers without it
if TYPE_CHECKING:
    import numpy as np

__all__ = ["CHRF", "CHRFConfig", "CHRFResult", "CHRFStats", "chrf", "chrf_from_stats", "sentence_chrf"]

_EPS = 1e-16
CONVENTIONS = ("sacrebleu", "torchmetrics")
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


@dataclasses.dataclass(frozen=True)
class CHRFConfig:
    """Options of chrF: ``char_order`` (6), ``word_order`` (0; 2 is chrF++), ``beta`` (2), ``lowercase``,
    ``whitespace`` (keep whitespace in character n-grams), ``eps_smoothing``, and ``convention`` (``"sacrebleu"``
    or ``"torchmetrics"``: how the orders are averaged and the best reference chosen)."""

    char_order: int = sig_field("nc", 6, help="character n-gram order")
    word_order: int = sig_field("nw", 0, help="word n-gram order (2: chrF++)")
    beta: int = sig_field("beta", 2, help="weight of recall against precision")
    lowercase: bool = sig_field("lc", False, help="lowercase first")
    whitespace: bool = sig_field("space", False, help="keep whitespace in character n-grams")
    eps_smoothing: bool = sig_field(
        "eps", False, help="epsilon smoothing (chrF++.py, NLTK, Moses) instead of effective-order averaging"
    )
    convention: str = sig_field(
        "conv",
        "sacrebleu",
        help="sacrebleu (2.6) or torchmetrics (CHRFScore's averaging)",
        choices=CONVENTIONS,
        role="convention",
    )
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        for name in ("char_order", "word_order"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidInputError(f"{name} must be a non-negative integer, got {value!r}")
            check_integer(name, value, minimum=0, maximum=MAX_ORDER)
        if self.char_order + self.word_order == 0:
            raise InvalidInputError("char_order and word_order cannot both be 0: there would be no n-gram to count")
        check_number("beta", self.beta, minimum=0.0, maximum=1e6)
        for flag in ("lowercase", "whitespace", "eps_smoothing"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidInputError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.convention not in CONVENTIONS:
            raise unknown_option("chrF convention", self.convention, list(CONVENTIONS))
        if self.eps_smoothing and self.convention == "torchmetrics":
            raise InvalidInputError("eps_smoothing is sacrebleu's option; the torchmetrics convention has none")

    @property
    def order(self) -> int:
        return self.char_order + self.word_order


@dataclasses.dataclass(frozen=True)
class CHRFStats(Stats):
    """Per order (characters first, then words): hypothesis n-grams (0 when the reference has none of that
    order, as sacrebleu counts them), reference n-grams and clipped matches; and the number of segments and of
    references (with their sum of squares, for sacrebleu's ``nrefs``)."""

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (
        ("match", "hyp"),
        ("match", "ref"),
        ("n_segments", "n_refs"),
        ("n_refs", "n_refs_sq"),
    )

    tuple_fields: ClassVar[Mapping[str, int]] = {"hyp": 6, "ref": 6, "match": 6}

    hyp: tuple[int, ...]
    ref: tuple[int, ...]
    match: tuple[int, ...]
    n_segments: int
    n_refs: int
    n_refs_sq: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class CHRFResult(Result):
    """chrF (0-100). ``name`` is sacrebleu's (``chrF2``, ``chrF2++``); ``precision`` and ``recall`` the n-gram
    precision and recall averaged over the orders both sides reach (0-100); ``hyp``/``ref``/``match`` the
    counts per order; ``sacrebleu_signature`` the signature sacrebleu prints."""

    name: str = ""
    precision: Any = 0.0
    recall: Any = 0.0
    hyp: tuple[int, ...] = ()
    ref: tuple[int, ...] = ()
    match: tuple[int, ...] = ()
    sacrebleu_signature: str | None = None


# ---------------------------------------------------------------------------------------------- formula
def _at(values: Any, i: int) -> Any:
    return values[:, i] if is_array(values) else values[i]


def _ratio(num: Any, den: Any, default: float) -> Any:
    """``num / den if den > 0 else default`` for numbers (any numeric type, kept as is) and arrays alike."""
    if is_array(den):
        import numpy as np

        out = np.full(den.shape, default, dtype=np.float64)
        return np.divide(num, den, out=out, where=den > 0)
    return num / den if den > 0 else default


def _f_parts(stats: CHRFStats, cfg: CHRFConfig) -> tuple[Any, Any, Any, Any]:
    """sacrebleu 2.6 ``CHRF._compute_f_score``, operation by operation: the per-order F sum (eps smoothing),
    the averaged precision and recall, and the number of orders averaged. Arrays (one row per segment) give
    exactly the numbers of the scalar path, element by element."""
    eps = _EPS
    factor = cfg.beta**2
    score: Any = 0.0
    effective_order: Any = 0
    avg_prec: Any = 0.0
    avg_rec: Any = 0.0
    if not is_array(stats.hyp):  # numbers: the same operations as the columns' loop below, inline (one pair's cost)
        hyp, ref, match = stats.hyp, stats.ref, stats.match
        for i in range(cfg.order):
            n_hyp, n_ref, n_match = hyp[i], ref[i], match[i]
            prec = n_match / n_hyp if n_hyp > 0 else eps
            rec = n_match / n_ref if n_ref > 0 else eps
            denom = factor * prec + rec
            score += (1 + factor) * prec * rec / denom if denom > 0 else eps
            if n_hyp > 0 and n_ref > 0:
                avg_prec += prec
                avg_rec += rec
                effective_order += 1
        return score, avg_prec, avg_rec, effective_order
    import numpy as np  # columns, one row per segment: numbers took the path above

    for i in range(cfg.order):
        n_hyp, n_ref, n_match = _at(stats.hyp, i), _at(stats.ref, i), _at(stats.match, i)
        prec = _ratio(n_match, n_hyp, eps)
        rec = _ratio(n_match, n_ref, eps)
        denom = factor * prec + rec
        score += _ratio((1 + factor) * prec * rec, denom, eps)
        both = (n_hyp > 0) & (n_ref > 0)
        avg_prec = avg_prec + np.where(both, prec, 0.0)
        avg_rec = avg_rec + np.where(both, rec, 0.0)
        effective_order = effective_order + both.astype(np.int64)
    return score, avg_prec, avg_rec, effective_order


def _torchmetrics_f(stats: CHRFStats, cfg: CHRFConfig) -> tuple[Any, Any, Any]:
    """torchmetrics ``_calculate_fscore``: the F of each order (precision or recall 0 without n-grams, the
    denominator at least 1e-16), averaged over every order; the precision and recall averaged alike."""
    factor = cfg.beta**2
    f_sum: Any = 0.0
    p_sum: Any = 0.0
    r_sum: Any = 0.0
    for i in range(cfg.order):
        n_hyp, n_ref, n_match = _at(stats.hyp, i), _at(stats.ref, i), _at(stats.match, i)
        prec = _ratio(n_match, n_hyp, 0.0)
        rec = _ratio(n_match, n_ref, 0.0)
        denom = max(factor * prec + rec, _EPS) if not is_array(prec) else _array_max(factor * prec + rec, _EPS)
        f_sum = f_sum + (1 + factor) * prec * rec / denom
        p_sum = p_sum + prec
        r_sum = r_sum + rec
    return f_sum / cfg.order, p_sum / cfg.order, r_sum / cfg.order  # on 0-1, as torchmetrics


def _array_max(values: np.ndarray, floor: float) -> np.ndarray:
    import numpy as np

    return np.maximum(values, floor)


def _f_score(stats: CHRFStats, cfg: CHRFConfig) -> tuple[Any, Any, Any]:
    if cfg.convention == "torchmetrics":
        return _torchmetrics_f(stats, cfg)
    score, avg_prec, avg_rec, effective_order = _f_parts(stats, cfg)
    factor = cfg.beta**2
    if is_array(effective_order):
        avg_prec = _ratio(avg_prec, effective_order, 0.0)
        avg_rec = _ratio(avg_rec, effective_order, 0.0)
    elif effective_order == 0:
        avg_prec = avg_rec = 0.0
    else:
        avg_prec /= effective_order
        avg_rec /= effective_order
    if cfg.eps_smoothing:
        return 100 * score / cfg.order, avg_prec, avg_rec
    if is_array(avg_prec):
        import numpy as np

        top = (1 + factor) * avg_prec * avg_rec
        f = _ratio(top, np.where(avg_prec + avg_rec != 0, (factor * avg_prec) + avg_rec, 0.0), 0.0)
        return 100 * f, avg_prec, avg_rec
    if avg_prec + avg_rec:
        f = (1 + factor) * avg_prec * avg_rec
        f /= (factor * avg_prec) + avg_rec
        return 100 * f, avg_prec, avg_rec
    return 0.0, avg_prec, avg_rec


def chrf_from_stats(stats: CHRFStats, cfg: CHRFConfig) -> CHRFResult:
    """The chrF formula on summed statistics (or, vectorised, on per-segment columns)."""
    score, avg_prec, avg_rec = _f_score(stats, cfg)
    name = f"chrF{cfg.beta}" + "+" * cfg.word_order
    if is_array(score):
        return CHRFResult(score=score, name=name, precision=100 * avg_prec, recall=100 * avg_rec)
    signature = None if cfg.convention != "sacrebleu" else _sacrebleu_signature(stats, cfg)
    return CHRFResult(
        score=score,
        name=name,
        precision=100 * avg_prec,
        recall=100 * avg_rec,
        hyp=tuple(int(x) for x in stats.hyp),
        ref=tuple(int(x) for x in stats.ref),
        match=tuple(int(x) for x in stats.match),
        sacrebleu_signature=signature,
    )


def _sacrebleu_signature(stats: CHRFStats, cfg: CHRFConfig) -> str:
    space = "yes" if cfg.whitespace else "no"
    return (
        f"nrefs:{sacrebleu_nrefs(stats)}|case:{'lc' if cfg.lowercase else 'mixed'}"
        f"|eff:{'no' if cfg.eps_smoothing else 'yes'}"
        f"|nc:{cfg.char_order}|nw:{cfg.word_order}|space:{space}|version:{SACREBLEU_VERSION}"
    )


# ---------------------------------------------------------------------------------------------- kernel
def split_punctuation(sentence: str) -> list[str]:
    """chrF++'s words: whitespace-split, one leading or trailing ASCII punctuation mark split off a word
    (the trailing one first; ``"(hi)"`` gives ``"(hi"`` and ``")"``, as in sacrebleu).

    >>> split_punctuation("Hello, (world)!")
    ['Hello', ',', '(world)', '!']
    """
    words: list[str] = []
    for w in sentence.split():
        if len(w) == 1:
            words.append(w)
        elif w[-1] in _PUNCTUATION:
            words += [w[:-1], w[-1]]
        elif w[0] in _PUNCTUATION:
            words += [w[0], w[1:]]
        else:
            words.append(w)
    return words


_CACHE = ReferenceCache(maxsize=4)


def _char_texts(lines: Sequence[str], cfg: CHRFConfig) -> list[str]:
    if cfg.whitespace:
        return list(lines)
    if cfg.convention == "torchmetrics":  # torchmetrics removes the space character only
        return [line.strip().replace(" ", "") for line in lines]
    return ["".join(line.split()) for line in lines]


def _reference_side(refs: ReferenceSets, cfg: CHRFConfig) -> tuple[Any, ...]:
    from ..algorithms.ngrams import build_index, codepoint_streams, vocabulary_streams

    flat = [r.lower() for r in refs.flat] if cfg.lowercase else refs.flat
    seg, col = refs.segments_and_columns()
    char_index = None
    if cfg.char_order:
        streams = codepoint_streams(_char_texts(flat, cfg), seg)
        char_index = build_index(streams, len(refs), cfg.char_order, 0x110000, column=col)
    word_index = None
    vocabulary: dict[Any, int] | None = None
    if cfg.word_order:
        vocabulary = {}
        words = vocabulary_streams([split_punctuation(r) for r in flat], seg, vocabulary, grow=True)
        word_index = build_index(words, len(refs), cfg.word_order, max(len(vocabulary), 1), column=col)
    return char_index, word_index, vocabulary


def _side_counts(index: Any, hyp_len: np.ndarray, orders: int, cfg: CHRFConfig) -> tuple[np.ndarray, ...]:
    """Hypothesis and reference n-gram counts per (segment, reference column, order); under sacrebleu the
    hypothesis counts 0 for an order the reference does not reach (sacrebleu counts no hypothesis n-gram then)."""
    import numpy as np

    ref_len = np.zeros((index.n_units, index.columns), dtype=np.int64)
    ref_len[index.stream_unit, index.stream_column] = index.stream_lengths
    return _counts_of(ref_len, hyp_len, orders, cfg)


def _counts_of(ref_len: np.ndarray, hyp_len: np.ndarray, orders: int, cfg: CHRFConfig) -> tuple[np.ndarray, ...]:
    """Hypothesis and reference n-gram counts per (segment, reference column, order) from the lengths."""
    import numpy as np

    n = np.arange(1, orders + 1, dtype=np.int64)[None, None, :]
    ref_count = np.maximum(ref_len[:, :, None] - n + 1, 0)
    hyp_count = np.maximum(hyp_len[:, None, None] - n + 1, 0)
    if cfg.convention == "torchmetrics":
        return np.broadcast_to(hyp_count, ref_count.shape).copy(), ref_count
    return np.where(ref_count > 0, hyp_count, 0), ref_count


#: The size of the fast-path rule (read-only: :mod:`nlgmetrics.algorithms.fastpath` decides; tests use ``forced``).
SMALL = fastpath.RULES["chrf"].rows_up_to


def _small_batch(preds: list[str], refs: ReferenceSets, cfg: CHRFConfig) -> StatsBatch[CHRFStats]:
    """The statistics of a batch from the compiled counter, as Python lists (no numpy): the same counts as the
    corpus path (``algorithms.ngrams``); the best reference is chosen by the same formula."""
    starts = refs.offsets or []
    counts = refs.count_list()
    # each (segment, reference) pair: its hypothesis, reference and matched n-grams, orders of every side in turn
    seg_of_pair = None if refs.offsets is None else [seg for seg, k in enumerate(counts) for _ in range(k)]
    hyp_p: list[tuple[int, ...]] = []
    ref_p: list[tuple[int, ...]] = []
    match_p: list[tuple[int, ...]] = []
    for h, r, orders in _sides(preds, refs, cfg):
        per_seg = native().clipped_matches(h, r, starts, orders, True)
        hyp_lens = list(map(len, h)) if seg_of_pair is None else [len(h[seg]) for seg in seg_of_pair]
        ref_lens = list(map(len, r))
        # the n-gram counts of orders 1..orders of a sequence depend on its length only: once per distinct length
        table = {n: tuple([n - i if n > i else 0 for i in range(orders)]) for n in {*hyp_lens, *ref_lens}}
        refs_c = [table[rl] for rl in ref_lens]
        # sacrebleu counts no hypothesis n-gram of an order the reference does not reach
        hyps_c = [
            table[hl] if rl >= hl or rl >= orders else table[hl][:rl] + (0,) * (orders - rl)
            for hl, rl in zip(hyp_lens, ref_lens, strict=True)
        ]
        matches_c = [tuple(m) for ms in per_seg for m in ms]
        if not hyp_p:
            hyp_p, ref_p, match_p = hyps_c, refs_c, matches_c
        else:  # the word orders after the character orders
            hyp_p = [a + b for a, b in zip(hyp_p, hyps_c, strict=True)]
            ref_p = [a + b for a, b in zip(ref_p, refs_c, strict=True)]
            match_p = [a + b for a, b in zip(match_p, matches_c, strict=True)]
    if seg_of_pair is not None:  # keep each segment's best reference (the first of equals, as sacrebleu)
        keep = []
        at = 0
        for k in counts:
            best, best_f = at, 0.0
            if k > 1:
                for j in range(at, at + k):
                    f = _f_score(CHRFStats(hyp_p[j], ref_p[j], match_p[j], 1, k, k * k), cfg)[0]
                    if j == at or f > best_f:
                        best, best_f = j, f
            keep.append(best)
            at += k
        hyp_p, ref_p, match_p = [hyp_p[j] for j in keep], [ref_p[j] for j in keep], [match_p[j] for j in keep]
    if len(counts) == 1:  # one segment (a one-pair call): its row
        k = counts[0]
        return StatsBatch.from_rows(CHRFStats, [CHRFStats(hyp_p[0], ref_p[0], match_p[0], 1, k, k * k)])
    lists: dict[str, list[Any]] = {
        "hyp": hyp_p,
        "ref": ref_p,
        "match": match_p,
        "n_segments": [1] * len(counts),
        "n_refs": counts,
        "n_refs_sq": counts if seg_of_pair is None else [k * k for k in counts],
    }
    return StatsBatch.from_lists(CHRFStats, lists)


def _sides(preds: list[str], refs: ReferenceSets, cfg: CHRFConfig) -> list[tuple[list[Any], list[Any], int]]:
    """(hypothesis sequences, reference sequences, orders) for the characters and then the words."""
    lines = [p.lower() for p in preds] if cfg.lowercase else preds
    flat = [r.lower() for r in refs.flat] if cfg.lowercase else refs.flat
    sides: list[tuple[list[Any], list[Any], int]] = []
    if cfg.char_order:
        sides.append((_char_texts(lines, cfg), _char_texts(flat, cfg), cfg.char_order))
    if cfg.word_order:
        sides.append(([split_punctuation(x) for x in lines], [split_punctuation(x) for x in flat], cfg.word_order))
    return sides


def _native_counts(preds: list[str], refs: ReferenceSets, cfg: CHRFConfig) -> tuple[np.ndarray, ...]:
    """Hypothesis, reference and matched n-grams per (segment, reference column, order), from the compiled
    counter: the numbers of the index path (``_index_counts``), without an index."""
    import numpy as np

    seg, col = refs.segments_and_columns()
    n_seg, n_flat = len(preds), len(refs.flat)
    columns = int(col.max()) + 1
    starts = refs.offsets or []
    hyp_parts, ref_parts, match_parts = [], [], []
    for h, r, orders in _sides(preds, refs, cfg):
        per = native().clipped_matches(h, r, starts, orders, True)
        flat_matches = np.array([row for rows in per for row in rows], dtype=np.int64).reshape(n_flat, orders)
        match = np.zeros((n_seg, columns, orders), dtype=np.int64)
        match[seg, col] = flat_matches
        ref_len = np.zeros((n_seg, columns), dtype=np.int64)
        ref_len[seg, col] = np.fromiter(map(len, r), dtype=np.int64, count=n_flat)
        hyp_len = np.fromiter(map(len, h), dtype=np.int64, count=n_seg)
        hyp_c, ref_c = _counts_of(ref_len, hyp_len, orders, cfg)
        hyp_parts.append(hyp_c)
        ref_parts.append(ref_c)
        match_parts.append(match)
    return tuple(np.concatenate(x, axis=2) for x in (hyp_parts, ref_parts, match_parts))


def _index_counts(preds: list[str], refs: ReferenceSets, cfg: CHRFConfig) -> tuple[np.ndarray, ...]:
    """The same counts from the references' n-gram index (``algorithms.ngrams``), kept in the reference cache."""
    import numpy as np

    from ..algorithms.ngrams import clipped_counts, codepoint_streams, vocabulary_streams

    layout = None if refs.starts is None else refs.starts.tobytes()
    key = (
        "chrf",
        cfg.convention,
        cfg.lowercase,
        cfg.whitespace,
        cfg.char_order,
        cfg.word_order,
        tuple(refs.flat),
        layout,
    )
    char_index, word_index, vocabulary = _CACHE.get(key, lambda: _reference_side(refs, cfg))
    n_seg = len(preds)
    seg = np.arange(n_seg, dtype=np.int64)
    lines = [p.lower() for p in preds] if cfg.lowercase else preds
    hyp_parts, ref_parts, match_parts = [], [], []
    if char_index is not None:
        hyp = codepoint_streams(_char_texts(lines, cfg), seg)
        match_parts.append(clipped_counts(char_index, hyp).transpose(0, 2, 1))
        h, r = _side_counts(char_index, hyp.lengths, cfg.char_order, cfg)
        hyp_parts.append(h)
        ref_parts.append(r)
    if word_index is not None:
        words = vocabulary_streams([split_punctuation(p) for p in lines], seg, vocabulary, grow=False)
        match_parts.append(clipped_counts(word_index, words).transpose(0, 2, 1))
        h, r = _side_counts(word_index, words.lengths, cfg.word_order, cfg)
        hyp_parts.append(h)
        ref_parts.append(r)
    return tuple(np.concatenate(x, axis=2) for x in (hyp_parts, ref_parts, match_parts))


def _chrf_cjk_fix(japanese: bool) -> str:
    return "its character n-grams are fine: use word_order=0 (chrF) for such text, or segment it into words first"


def _chrf_kernel(preds: list[str], refs: ReferenceSets, cfg: CHRFConfig) -> StatsBatch[CHRFStats]:
    if cfg.word_order:
        warn_unsplit_cjk("chrf", "chrF++ word", preds, refs, _chrf_cjk_fix)
    # the small-batch rows count as sacrebleu does; the torchmetrics convention takes the general path
    if cfg.convention == "sacrebleu" and fastpath.rows("chrf", len(preds)) and fastpath.use_native("chrf"):
        return _small_batch(preds, refs, cfg)
    import numpy as np

    # batches beyond the rows are counted by the compiled counter; with a cache directory (evaluate's reruns) the
    # index path keeps the references' index instead
    if not disk_cache_set() and fastpath.use_native("chrf.corpus"):
        hyp_c, ref_c, match_c = _native_counts(preds, refs, cfg)
    else:
        hyp_c, ref_c, match_c = _index_counts(preds, refs, cfg)
    n_seg = len(preds)
    counts = refs.counts().astype(np.int64)
    if hyp_c.shape[1] == 1:
        hyp_c, ref_c, match_c = hyp_c[:, 0], ref_c[:, 0], match_c[:, 0]
        if cfg.convention == "torchmetrics":
            # torchmetrics keeps a reference only when its F beats 0 (the F it starts from)
            ones = np.ones(n_seg, dtype=np.int64)
            unit = CHRFStats(hyp=hyp_c, ref=ref_c, match=match_c, n_segments=ones, n_refs=ones, n_refs_sq=ones)  # type: ignore[arg-type]
            kept = (np.asarray(_f_score(unit, cfg)[0]) > 0)[:, None]
            ref_c, match_c = np.where(kept, ref_c, 0), np.where(kept, match_c, 0)
    else:
        # keep, per segment, the reference with the highest chrF (the first one on ties), as sacrebleu does
        valid = np.arange(hyp_c.shape[1])[None, :] < counts[:, None]
        seg_of, col_of = np.nonzero(valid)  # row-major: segment by segment, references in order
        ones = np.ones(len(seg_of), dtype=np.int64)
        columns: dict[str, Any] = {
            "hyp": hyp_c[seg_of, col_of],
            "ref": ref_c[seg_of, col_of],
            "match": match_c[seg_of, col_of],
            "n_segments": ones,
            "n_refs": ones,
            "n_refs_sq": ones,
        }
        unit_stats = CHRFStats(**columns)
        f = np.asarray(_f_score(unit_stats, cfg)[0], dtype=np.float64)
        starts = np.flatnonzero(np.r_[True, seg_of[1:] != seg_of[:-1]])
        best = np.maximum.reduceat(f, starts)
        candidate = np.flatnonzero(f == best[seg_of])
        first_of_segment = np.r_[True, seg_of[candidate[1:]] != seg_of[candidate[:-1]]]
        chosen = candidate[first_of_segment]
        hyp_c, ref_c, match_c = (x[seg_of[chosen], col_of[chosen]] for x in (hyp_c, ref_c, match_c))
        if cfg.convention == "torchmetrics":  # no reference is kept when every one scores 0
            kept = (best > 0)[:, None]
            ref_c, match_c = np.where(kept, ref_c, 0), np.where(kept, match_c, 0)
    ones = np.ones(n_seg, dtype=np.int64)
    return StatsBatch(
        CHRFStats,
        {"hyp": hyp_c, "ref": ref_c, "match": match_c, "n_segments": ones, "n_refs": counts, "n_refs_sq": counts**2},
    )


def _sizes(cfg: CHRFConfig) -> dict[str, int]:
    return {"hyp": cfg.order, "ref": cfg.order, "match": cfg.order}


CHRF: Family[CHRFConfig, CHRFStats, CHRFResult] = Family(
    cache_configs=True,
    name="chrf",
    bounds=(0.0, 100.0),
    config_cls=CHRFConfig,
    stats_cls=CHRFStats,
    kernel=_chrf_kernel,
    formula=chrf_from_stats,
    presets={
        "sacrebleu": {},
        "chrf++": {"word_order": 2},
        "torchmetrics": {"convention": "torchmetrics", "word_order": 2},
    },
    default_preset="sacrebleu",
    vectorized=True,
    stats_sizes=_sizes,
)


chrf = CHRF.function(
    "chrf",
    __name__,
    """Corpus chrF (chrF++ with ``word_order=2`` or ``preset="chrf++"``), identical to sacrebleu 2.6.

    >>> round(chrf(["the cat sat on the mat"], ["the cat is on the mat"]).score, 4)
    64.5779
    >>> chrf(["the cat sat on the mat"], ["the cat is on the mat"], preset="chrf++").name
    'chrF2++'
    """,
)


def sentence_chrf(
    prediction: str, references: str | Sequence[str], *, preset: str | None = None, **options: Any
) -> CHRFResult:
    """chrF of one sentence against its reference(s) (sacrebleu's ``sentence_chrf``)."""
    cfg = CHRF.make_config(preset, **options)
    batch = CHRF.batch_stats(*one_segment(prediction, references), cfg)
    return CHRF.finalize(batch.total(), cfg)
