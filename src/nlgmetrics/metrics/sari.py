"""SARI (Xu et al. 2016), the text-simplification metric, exactly as HF evaluate's ``sari`` computes it.

Preset ``evaluate`` (the default) reproduces ``evaluate.load("sari").compute(sources=..., predictions=...,
references=...)["sari"]`` of the HF ``evaluate`` metric script ``metrics/sari/sari.py`` (tensor2tensor's SARI as
adapted by EASSE), with sacrebleu 2.6's ``13a`` tokenizer: number for number, per segment bit for bit (see
``tests/fixtures/sari``). Each segment has a source (the complex sentence), a prediction (the system's
simplification) and one or more references.

What the script does, and so what this module does:

* **Normalisation**: each sentence is lowercased with ``str.lower`` and tokenized with sacrebleu's ``13a``
  tokenizer, then split on single spaces — so an empty sentence is one empty token, ``[""]``, not none.
* **Per order** ``n = 1..4``, with the source n-grams ``S``, the prediction's ``C`` and the references' ``R``
  (the counts summed over the references; ``S`` and ``C`` multiplied by the number of references ``k``):

  - *keep*: ``K = min(kS, kC)``; precision ``Σ min(K, R) / K`` over the kept n-grams divided by their number;
    recall ``Σ min(K, R) / Σ min(kS, R)``; F1 of the two;
  - *delete*: ``D = kS - kC`` (positive part); precision ``Σ (D - R)⁺ / D`` divided by the number of deleted
    n-grams (only the precision counts);
  - *add*: sets, not counts: precision ``|C∖S ∩ R| / |C∖S|``, recall ``|C∖S ∩ R| / |R∖S|``, F1;
  - an empty denominator gives 1 (the script's "0/0 = 1"), and F1 is 0 when both parts are 0.
* The segment's SARI is ``(keep + delete + add) / 3``, each the mean over the four orders; the corpus score is
  ``100 ×`` the mean of the segment scores.

So SARI is additive the simple way: the statistics are the sum of the segment scores (and of their keep, delete
and add parts, for reporting) and the number of segments; the corpus score is their mean. The sum of a batch is
the script's running sum, segment after segment (not ``math.fsum``: on real corpora of 2,000 segments the two
differ by up to 2e-12 in the score), so a corpus scored in one call is the script's number to the last bit.
``evaluate``, the chunked command line and the Dask, Spark and Ray engines keep that running sum across their
chunks and partitions (``Stats.running_fields``, exact partial sums that merge in input order), so they give the
one-call number to the last bit too. The stateful classes' updates, merges and DDP ranks add their sums: the same
number up to the rounding of those few additions.

The float sums inside a segment (the keep and delete precisions) are added in the script's order — the order in
which the n-grams first occur in the source — so per-segment scores are the script's to the last bit.

Three implementations of the kernel give the same numbers (the parity tests run each on the recorded outputs of the
script): the compiled one (``csrc/sari.cpp``, a hash table of n-grams per segment, fed the tokenized text), used
whenever the extension is built (as Python lists while numpy is not loaded, so that a fresh process scoring a few
segments never imports numpy); without it, a plain-Python one for batches of up to :data:`SMALL` segments and a
vectorised numpy one for larger batches.

Other options: ``lowercase=False`` keeps the case, and ``tokenizer`` takes any sacrebleu tokenizer (``intl``,
``zh``, ``char``, ``ja-mecab``, signed ``ja-mecab-ipadic``, ``ko-mecab``; the script's ``normalize`` knows ``13a``
and ``intl``) or
``none`` (the sentence split on single spaces, as the script's ``normalize`` leaves it for a tokenizer it does
not know). EASSE's own ``corpus_sari`` averages the n-gram counts over the corpus before the formula (and
tokenizes no source): a different number, not reproduced here.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any, ClassVar

from .._inputs import ReferenceSets
from ..algorithms import fastpath
from ..algorithms.native import native
from ..algorithms.refcache import ReferenceCache
from ..errors import InvalidInputError
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from ..text.mt_tokenize import sacrebleu_tokenizer
from ..text.tokenizers import choices, resolve, tokenizer_help
from .base import Family, Result, safe_div

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SARI", "SARIConfig", "SARIResult", "SARIStats", "sari"]

_ORDERS = 4
_TOKENIZERS = choices("sari")


# ====================================================================== configuration, statistics, result
@dataclasses.dataclass(frozen=True)
class SARIConfig:
    """Options of SARI: ``tokenizer`` (sacrebleu's ``13a`` by default; ``none`` splits on single spaces) and
    ``lowercase`` (``str.lower`` first, as the script does)."""

    tokenizer: str = sig_field(
        "tok",
        "13a",
        help=tokenizer_help("sari", "sacrebleu tokenizer applied before the split on spaces"),
        choices=_TOKENIZERS,
    )
    lowercase: bool = sig_field("lc", True, help="lowercase every sentence first (str.lower), as the script does")
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        if not isinstance(self.lowercase, bool):
            raise InvalidInputError(f"lowercase must be True or False, got {self.lowercase!r}")
        if not isinstance(self.tokenizer, str):
            raise InvalidInputError(f"tokenizer must be a name, got {self.tokenizer!r}")
        # "ja-mecab" is sacrebleu's: MeCab with the IPA dictionary; the signature names the dictionary
        object.__setattr__(self, "tokenizer", resolve(self.tokenizer, "sari"))
        sacrebleu_tokenizer(self.tokenizer)  # fail early: MeCab missing


@dataclasses.dataclass(frozen=True)
class SARIStats(Stats):
    """Sums over segments of the segment SARI (0-1) and of its keep, delete and add parts (each the mean over
    the four orders), and the number of segments."""

    per_segment_max: ClassVar[Mapping[str, float]] = {"sari": 1.0, "keep": 1.0, "delete": 1.0, "add": 1.0}
    # the script's running sum, segment after segment (see the module docstring): exact partial sums are running
    # sums too, so evaluate, Dask, Spark and Ray give the one-call number to the last bit
    running_fields: ClassVar[frozenset[str]] = frozenset({"sari", "keep", "delete", "add"})

    sari: float
    keep: float
    delete: float
    add: float
    n_segments: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class SARIResult(Result):
    """SARI (0-100): the mean segment score ×100. ``keep`` (F1), ``delete`` (precision) and ``add`` (F1) are the
    means of the three parts (0-100), whose mean is the score; ``n_segments`` the number of segments."""

    keep: Any = 0.0
    delete: Any = 0.0
    add: Any = 0.0
    n_segments: Any = 0


def sari_from_stats(stats: SARIStats, cfg: SARIConfig) -> SARIResult:
    """The mean segment SARI ×100 (the script's ``100 * (sum / n)``), on sums or, vectorised, per segment."""
    n = stats.n_segments
    return SARIResult(
        score=100 * safe_div(stats.sari, n),
        keep=100 * safe_div(stats.keep, n),
        delete=100 * safe_div(stats.delete, n),
        add=100 * safe_div(stats.add, n),
        n_segments=n,
    )


# ====================================================================== kernel
_MARK = "\x00"  # stands for a line break among the tokens of a corpus (see _encode)
_EMPTY_ID, _MARK_ID = 0, 1  # the ids of the empty token and of the mark in every vocabulary
_CACHE = ReferenceCache(maxsize=4)


def _new_vocabulary() -> dict[str, int]:
    return {"": _EMPTY_ID, _MARK: _MARK_ID}


def _encode(lines: list[str], cfg: SARIConfig, vocabulary: dict[str, int], *, grow: bool) -> tuple[Any, Any]:
    """Every sentence's tokens as the script splits them, ``normalize(sentence).split(" ")`` (an empty sentence
    is one empty token), as integer ids from ``vocabulary`` (equal tokens, equal ids), flat, with each sentence's
    number of tokens. With ``grow`` new tokens are added to ``vocabulary``; without it they get ids of their own
    after the vocabulary's, and ``vocabulary`` is left as it is."""
    import numpy as np

    if cfg.lowercase:
        lines = [line.lower() for line in lines]
    marked = False
    if cfg.tokenizer == "none":
        lists = [line.split(" ") for line in lines]
    else:
        # The tokenizers separate tokens by single spaces, so split(" ") is split() except on an empty sentence.
        text = sacrebleu_tokenizer(cfg.tokenizer).joined(lines)
        if _MARK in text:  # the mark would be mistaken for a line break: one list per sentence
            lists = [tokens or [""] for tokens in (line.split() for line in text.split("\n"))]
        else:  # every token from one split, the line breaks marked by a token of their own (faster)
            marked = True
            flat = text.replace("\n", f" {_MARK} ").split()
    if not marked:
        flat = list(itertools.chain.from_iterable(lists))
    if grow:
        for token in dict.fromkeys(flat):
            vocabulary.setdefault(token, len(vocabulary))
        ids = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64, count=len(flat))
    else:
        ids = np.fromiter(map(vocabulary.get, flat, itertools.repeat(-1)), dtype=np.int64, count=len(flat))
        unknown: dict[str, int] = {}
        for i in np.flatnonzero(ids < 0).tolist():
            ids[i] = unknown.setdefault(flat[i], len(vocabulary) + len(unknown))
    if not marked:
        return ids, np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    is_mark = ids == _MARK_ID
    lengths = np.diff(np.flatnonzero(is_mark), prepend=-1, append=len(ids)) - 1
    ids = ids[~is_mark]
    empty = np.flatnonzero(lengths == 0)
    if len(empty):  # an empty sentence: its empty token
        ids = np.insert(ids, (np.cumsum(lengths) - lengths)[empty], _EMPTY_ID)
        lengths[empty] = 1
    return ids, lengths


def _encode_all(
    sources: list[str], preds: list[str], refs: ReferenceSets, cfg: SARIConfig, fresh: dict[str, Any]
) -> tuple[Any, ...]:
    """The token ids of the sources and of the references, and their vocabulary: what every system scored
    against the same data shares (kept in a small cache, as sacrebleu's ``references=`` keeps its references).
    The predictions of the call that builds it are encoded in the same pass; their ids go to ``fresh``."""
    vocabulary = _new_vocabulary()
    ids, lengths = _encode([*sources, *preds, *refs.flat], cfg, vocabulary, grow=True)
    n = len(sources)
    cut_src, cut_pred = int(lengths[:n].sum()), int(lengths[: 2 * n].sum())
    fresh["preds"] = ids[cut_src:cut_pred], lengths[n : 2 * n]
    return vocabulary, ids[:cut_src], lengths[:n], ids[cut_pred:], lengths[2 * n :]


class _RunningSumBatch(StatsBatch[SARIStats]):
    """Per-segment SARI statistics whose total adds the float columns one segment after the other, as the
    script's ``sari_score += ...`` does (``numpy.cumsum`` is that sequential sum)."""

    def total(self) -> SARIStats:
        if len(self) == 0:
            return super().total()
        out: dict[str, Any] = {}
        if self._lists is not None:  # the compiled kernel's columns as lists (numpy not loaded)
            for name, values in self._lists.items():
                if name == "n_segments":
                    out[name] = sum(values)
                    continue
                running = 0.0
                for v in values:  # one addition after the other, as numpy.cumsum and the script add
                    running += v
                out[name] = running
            return SARIStats(**out)
        import numpy as np

        for name, column in self.columns.items():
            out[name] = float(np.cumsum(column)[-1]) if column.dtype.kind == "f" else int(column.sum())
        return SARIStats(**out)


def _sequential_sums(group: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """``Σ values`` per group, adding one value at a time in array order, as the script's running ``+=`` does
    (numpy's sums add pairwise, which can change the last bit). ``group`` is sorted. The groups become the rows of
    padded matrices, one per power-of-two size class (padding with zeros changes no sum), summed by
    ``numpy.cumsum`` along the rows: a sequential sum, whatever the row count."""
    import numpy as np

    out = np.zeros(n_groups, dtype=np.float64)
    if len(group) == 0:
        return out
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    sizes = np.diff(np.r_[starts, len(group)])
    width = np.maximum(8, 1 << np.ceil(np.log2(sizes)).astype(np.int64))
    for w in sorted(set(width.tolist())):
        rows = np.flatnonzero(width == w)
        n = sizes[rows]
        row = np.repeat(np.arange(len(rows)), n)
        col = np.arange(len(row)) - np.repeat(np.cumsum(n) - n, n)
        matrix = np.zeros((len(rows), w), dtype=np.float64)
        matrix[row, col] = values[np.repeat(starts[rows], n) + col]
        out[group[starts[rows]]] = np.cumsum(matrix, axis=1)[:, -1]
    return out


def _f1(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The script's ``2 * p * r / (p + r)``, 0 where both are 0."""
    import numpy as np

    den = p + r
    return np.divide(2 * p * r, den, out=np.zeros_like(den), where=den > 0)


def _ratio_or_one(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den``, 1 where ``den`` is 0 (the script's "0/0 = 1")."""
    import numpy as np

    return np.divide(num, den, out=np.ones(len(den), dtype=np.float64), where=den > 0)


def _ngram_table(ids: np.ndarray, lengths: np.ndarray, seg: np.ndarray, n_seg: int, blocks: tuple[int, int]) -> Any:
    """The n-gram counts SARI needs, per order, from the token ids of every source, every prediction and every
    reference, in that order (``blocks``: where the predictions and the references start in ``ids``).

    Returns, for the n-grams the source has (those that keep and delete look at), their counts in the source
    (``s``), the prediction (``c``) and all references together (``r``) and their group ``(order - 1) * n_seg +
    segment``, by order, then by segment, then in the order in which they first occur in the source: the order
    of the script's sums. For the n-grams the source lacks, the add counts per group: how many the prediction
    has (``added``), how many of those the references have too (``add_good``), and how many the references have
    (``add_all``).

    An n-gram is named by an exact integer, ``rank of its first n - 1 tokens × V + last token`` (the unigram's
    "rank" being its segment), as in :mod:`nlgmetrics.algorithms.ngrams`. Each order's stable sort starts from
    the previous order's, which already sorts the keys by their prefix, and keeps equal keys in position order:
    the first of each run of equal keys is the n-gram's first occurrence, in the source when the source has it."""
    import numpy as np

    n_tokens = len(ids)
    n_groups = _ORDERS * n_seg
    # per token: tokens left in its stream (itself included), its segment, its side (source, prediction, refs)
    room = np.repeat(np.cumsum(lengths), lengths)
    room -= np.arange(n_tokens, dtype=np.int64)
    occ_seg = np.repeat(seg, lengths)
    occ_side = np.repeat(np.arange(3, dtype=np.int8), [blocks[0], blocks[1] - blocks[0], n_tokens - blocks[1]])
    vocab = int(ids.max()) + 1 if n_tokens else 1
    keys = occ_seg * vocab
    keys += ids
    if vocab <= 1 << 16 and n_seg <= 1 << 16:
        # the same stable order from two stable sorts of 16-bit integers, which numpy does by radix: by token,
        # then by segment (several times faster than sorting the 64-bit keys)
        perm = np.argsort(ids.astype(np.uint16), kind="stable")
        perm = perm[np.argsort(occ_seg.astype(np.uint16)[perm], kind="stable")]
    else:
        perm = np.argsort(keys, kind="stable")
    ordered = keys[perm]
    rank = np.empty(n_tokens, dtype=np.int64)
    is_first = np.zeros(n_tokens, dtype=bool)
    first = np.zeros(0, dtype=np.int64)
    source_grams: list[np.ndarray] = []
    source_group: list[np.ndarray] = []
    added = np.zeros((_ORDERS, n_seg), dtype=np.int64)
    add_good = np.zeros((_ORDERS, n_seg), dtype=np.int64)
    add_all = np.zeros((_ORDERS, n_seg), dtype=np.int64)
    for n in range(1, _ORDERS + 1):
        if n > 1:
            perm = perm[room[perm] >= n]  # the positions that start an n-gram, still sorted by their prefix
            keys = rank[perm]
            keys *= vocab
            keys += ids[perm + (n - 1)]
            by_key = np.argsort(keys, kind="stable")
            perm = perm[by_key]
            ordered = keys[by_key]
        new = np.empty(len(ordered), dtype=bool)
        new[:1] = True
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        gram = np.cumsum(new)  # 1-based
        rank[perm] = gram
        n_grams = int(gram[-1]) if len(gram) else 0
        gram *= 3
        gram += occ_side[perm]
        counts = np.bincount(gram, minlength=3 * (n_grams + 1)).reshape(-1, 3)
        # the n-grams in the order of their first occurrences: mark those positions, read them in order; those
        # first seen in the source, then in a prediction (the source lacks them), then in a reference (only)
        is_first[first] = False
        first = perm[new]
        is_first[first] = True
        at = np.flatnonzero(is_first)
        b1, b2 = np.searchsorted(at, blocks).tolist()
        source_grams.append(counts[rank[at[:b1]]])
        source_group.append(occ_seg[at[:b1]] + (n - 1) * n_seg)
        in_pred = at[b1:b2]
        with_ref = in_pred[counts[rank[in_pred], 2] > 0]
        added[n - 1] = np.bincount(occ_seg[in_pred], minlength=n_seg)
        add_good[n - 1] = np.bincount(occ_seg[with_ref], minlength=n_seg)
        add_all[n - 1] = add_good[n - 1] + np.bincount(occ_seg[at[b2:]], minlength=n_seg)
    grams = np.concatenate(source_grams)
    return grams, np.concatenate(source_group), *(x.reshape(n_groups) for x in (added, add_good, add_all))


#: Without the compiled kernel, batches of at most this many segments are scored segment by segment in plain
#: Python (read-only: the rule ``sari.python`` of :mod:`nlgmetrics.algorithms.fastpath` decides; tests use ``forced``).
SMALL = fastpath.RULES["sari.python"].rows_up_to


def _tokens(lines: list[str], cfg: SARIConfig) -> list[list[str]]:
    """Each sentence's tokens as the script splits them, ``normalize(sentence).split(" ")`` (an empty sentence is
    one empty token), for this call only."""
    if cfg.lowercase:
        lines = [line.lower() for line in lines]
    if cfg.tokenizer == "none":
        return [line.split(" ") for line in lines]
    # joined() keeps one line per sentence (the tokenizers turn a "\n" inside a sentence into a space), and the
    # tokenizers separate tokens by single spaces, so split() is split(" ") except on an empty sentence
    text = sacrebleu_tokenizer(cfg.tokenizer).joined(lines)
    return [tokens or [""] for tokens in (line.split() for line in text.split("\n"))]


def _segment_parts(src: list[str], pred: list[str], refs: list[list[str]]) -> tuple[float, float, float, float]:
    """One segment's (SARI, keep, delete, add), each part the mean over the four orders: the script's
    ``SARIsent``/``SARIngram`` arithmetic, operation for operation. The script's n-grams are its tokens joined
    by spaces; tokens hold no space, so tuples of tokens tell the same n-grams apart. Its float sums run over
    the source's n-grams in the order of their first occurrence, which is the order of ``S`` here."""
    k = len(refs)
    keep_total = del_total = add_total = 0.0
    for n in range(1, _ORDERS + 1):
        s_counts: Counter[Any]
        c_counts: Counter[Any]
        r_counts: Counter[Any]
        if n == 1:
            s_counts, c_counts = Counter(src), Counter(pred)
            r_counts = Counter(chain.from_iterable(refs))
        else:
            s_counts = Counter(zip(*[src[i:] for i in range(n)], strict=False))
            c_counts = Counter(zip(*[pred[i:] for i in range(n)], strict=False))
            r_counts = Counter(chain.from_iterable(zip(*[ref[i:] for i in range(n)], strict=False) for ref in refs))
        c_get, r_get = c_counts.get, r_counts.get
        n_kept = keep_good = keep_all = n_deleted = 0
        keep_sum: float = 0
        del_sum: float = 0
        for gram, s in s_counts.items():
            ks = s * k
            kc = c_get(gram, 0) * k
            r = r_get(gram, 0)
            if kc:  # kept: min(kS, kC) > 0
                kept = ks if ks < kc else kc
                n_kept += 1
                good = kept if kept < r else r
                if good > 0:
                    keep_sum += good / kept
                    keep_good += good
            keep_all += ks if ks < r else r
            if ks > kc:  # deleted: kS - kC > 0
                deleted = ks - kc
                n_deleted += 1
                if deleted > r:
                    del_sum += (deleted - r) / deleted
        keep_p: float = keep_sum / n_kept if n_kept else 1
        keep_r: float = keep_good / keep_all if keep_all else 1
        keep = 2 * keep_p * keep_r / (keep_p + keep_r) if keep_p > 0 or keep_r > 0 else 0
        delete: float = del_sum / n_deleted if n_deleted else 1
        s_keys = s_counts.keys()
        added = c_counts.keys() - s_keys
        add_good = len(added & r_counts.keys())
        add_all = len(r_counts.keys() - s_keys)
        add_p: float = add_good / len(added) if added else 1
        add_r: float = add_good / add_all if add_all else 1
        add = 2 * add_p * add_r / (add_p + add_r) if add_p > 0 or add_r > 0 else 0
        keep_total += keep
        del_total += delete
        add_total += add
    keep_m, del_m, add_m = keep_total / _ORDERS, del_total / _ORDERS, add_total / _ORDERS
    return (keep_m + del_m + add_m) / 3, keep_m, del_m, add_m


def _list_batch(sari_: list[float], keep: list[float], delete: list[float], add: list[float]) -> StatsBatch[SARIStats]:
    """Per-segment statistics given as Python lists, one per part (no numpy until something asks for columns)."""
    ones = [1] * len(sari_)
    columns: dict[str, list[Any]] = {"sari": sari_, "keep": keep, "delete": delete, "add": add, "n_segments": ones}
    return _RunningSumBatch.from_lists(SARIStats, columns)  # type: ignore[return-value]


def _small_batch(preds: list[str], refs: ReferenceSets, cfg: SARIConfig, sources: list[str]) -> StatsBatch[SARIStats]:
    """The statistics of a few segments, one segment at a time (see :data:`SMALL`), as Python lists."""
    n_seg = len(preds)
    tokens = _tokens([*sources, *preds, *refs.flat], cfg)
    ref_tokens = tokens[2 * n_seg :]
    rows = []
    lo = 0
    for i, k in enumerate(refs.count_list()):
        rows.append(_segment_parts(tokens[i], tokens[n_seg + i], ref_tokens[lo : lo + k]))
        lo += k
    return _list_batch(*(list(col) for col in zip(*rows, strict=True)))


def _sari_kernel(
    preds: list[str], refs: ReferenceSets, cfg: SARIConfig, *, sources: list[str]
) -> StatsBatch[SARIStats]:
    n_seg = len(preds)
    if fastpath.use_native("sari"):
        batch = _native_batch(preds, refs, cfg, sources)
        if batch is not None:
            return batch
    if fastpath.rows("sari.python", n_seg):
        return _small_batch(preds, refs, cfg, sources)
    return _numpy_batch(preds, refs, cfg, sources)


def _native_batch(
    preds: list[str], refs: ReferenceSets, cfg: SARIConfig, sources: list[str]
) -> StatsBatch[SARIStats] | None:
    """The statistics from the compiled kernel (``csrc/sari.cpp``), which reads the tokens from the tokenized
    text; ``None`` where it cannot take the text (a sentence that holds a line break under ``tokenizer="none"``,
    or a lone surrogate, which has no UTF-8 form), and the Python paths do."""
    n_src_refs = len(sources) + len(refs.flat)
    if cfg.tokenizer == "none":
        lines = [*sources, *preds, *refs.flat]
        if any("\n" in line for line in lines):
            return None
        text = "\n".join(line.lower() for line in lines) if cfg.lowercase else "\n".join(lines)
    else:
        tokenizer = sacrebleu_tokenizer(cfg.tokenizer)

        def tokenized(lines: list[str]) -> str:
            return tokenizer.joined([line.lower() for line in lines] if cfg.lowercase else lines)

        # the tokenized sources and references, which every system scored on the same data shares (kept in a small
        # cache, as sacrebleu's ``references=`` keeps its references)
        layout = None if refs.offsets is None else tuple(refs.offsets)
        key = ("sari-text", cfg.lowercase, cfg.tokenizer, tuple(sources), tuple(refs.flat), layout)
        src_text, ref_text = _CACHE.get(key, lambda: (tokenized(sources), tokenized(refs.flat)))
        text = f"{src_text}\n{tokenized(preds)}\n{ref_text}"
    if text.count("\n") != n_src_refs + len(preds) - 1:  # never, as the tokenizers keep one line per sentence
        return None
    # numpy not loaded: Python lists, which a fresh process scoring a few segments keeps
    lists = not fastpath.numpy_loaded()
    try:
        parts = native().sari_segments(text, refs.count_list(), cfg.tokenizer == "none", lists)
    except (TypeError, UnicodeError):  # a lone surrogate: the str has no UTF-8 form
        return None
    if lists:
        return _list_batch(*parts)
    import numpy as np

    columns = {
        "sari": parts[:, 0].copy(),
        "keep": parts[:, 1].copy(),
        "delete": parts[:, 2].copy(),
        "add": parts[:, 3].copy(),
        "n_segments": np.ones(len(preds), dtype=np.int64),
    }
    return _RunningSumBatch(SARIStats, columns)


def _numpy_batch(preds: list[str], refs: ReferenceSets, cfg: SARIConfig, sources: list[str]) -> StatsBatch[SARIStats]:
    """The statistics of a batch from the vectorised kernel (no compiled kernel at hand)."""
    import numpy as np

    n_seg = len(preds)
    n_refs = refs.counts().astype(np.int64)
    layout = None if refs.starts is None else refs.starts.tobytes()
    key = ("sari", cfg.lowercase, cfg.tokenizer, tuple(sources), tuple(refs.flat), layout)
    fresh: dict[str, Any] = {}
    vocabulary, src_ids, src_len, ref_ids, ref_len = _CACHE.get(
        key, lambda: _encode_all(sources, preds, refs, cfg, fresh)
    )
    pred_ids, pred_len = fresh["preds"] if fresh else _encode(preds, cfg, vocabulary, grow=False)
    # every source (segment by segment: a source position orders by segment, then by place in the source), every
    # prediction, every reference
    ids = np.concatenate([src_ids, pred_ids, ref_ids])
    lengths = np.concatenate([src_len, pred_len, ref_len])
    seg_range = np.arange(n_seg, dtype=np.int64)
    seg = np.concatenate([seg_range, seg_range, np.repeat(seg_range, n_refs)])
    blocks = (len(src_ids), len(src_ids) + len(pred_ids))
    grams, group, added, add_good, add_all = _ngram_table(ids, lengths, seg, n_seg, blocks)
    s, c, r = grams[:, 0], grams[:, 1], grams[:, 2]
    k = np.tile(n_refs, _ORDERS)[group]
    n_groups = n_seg * _ORDERS

    def count_per_group(mask: np.ndarray) -> np.ndarray:
        return np.bincount(group[mask], minlength=n_groups)

    def sum_per_group(values: np.ndarray) -> np.ndarray:
        return np.bincount(group, weights=values, minlength=n_groups)

    ks = k * s
    kc = k * c
    kept = np.minimum(ks, kc)  # min(kS, kC)
    kept_good = np.minimum(kept, r)
    deleted = np.maximum(ks - kc, 0)  # (kS - kC)+
    deleted_good = np.maximum(deleted - r, 0)
    # the two float sums, in the script's order (the table's)
    on = np.flatnonzero(kept_good)
    keep_sum = _sequential_sums(group[on], kept_good[on] / kept[on], n_groups)
    on = np.flatnonzero(deleted_good)
    del_sum = _sequential_sums(group[on], deleted_good[on] / deleted[on], n_groups)

    keep = _f1(
        _ratio_or_one(keep_sum, count_per_group(kept > 0)),
        _ratio_or_one(sum_per_group(kept_good), sum_per_group(np.minimum(ks, r))),
    )
    delete = _ratio_or_one(del_sum, count_per_group(deleted > 0))
    add = _f1(_ratio_or_one(add_good, added), _ratio_or_one(add_good, add_all))

    def mean_over_orders(x: np.ndarray) -> np.ndarray:
        x = x.reshape(_ORDERS, n_seg)
        total = x[0]
        for i in range(1, _ORDERS):  # the script's sum([...]): left to right
            total = total + x[i]
        return total / _ORDERS

    keep_m, del_m, add_m = mean_over_orders(keep), mean_over_orders(delete), mean_over_orders(add)
    return _RunningSumBatch(
        SARIStats,
        {
            "sari": (keep_m + del_m + add_m) / 3,
            "keep": keep_m,
            "delete": del_m,
            "add": add_m,
            "n_segments": np.ones(n_seg, dtype=np.int64),
        },
    )


SARI: Family[SARIConfig, SARIStats, SARIResult] = Family(
    name="sari",
    bounds=(0.0, 100.0),
    config_cls=SARIConfig,
    stats_cls=SARIStats,
    kernel=_sari_kernel,  # type: ignore[arg-type]  # takes sources=
    formula=sari_from_stats,
    presets={"evaluate": {}},
    default_preset="evaluate",
    vectorized=True,
    uses_sources=True,
    cache_configs=True,
    example={
        "sources": ["About 95 species are currently accepted .", "The cat perched on the mat."],
        "predictions": ["About 95 you now get in .", "The cat sat on the mat."],
        "references": [
            [
                "About 95 species are currently known .",
                "About 95 species are now accepted .",
                "95 species are now accepted .",
            ],
            ["The cat sat on the mat.", "A cat sat on the mat."],
        ],
    },
)


# ====================================================================== the functional API
def sari(
    predictions: Sequence[str] | str,
    references: Sequence[str | Sequence[str]] | str,
    sources: Sequence[str] | str,
    *,
    preset: str | None = None,
    segments: bool = False,
    **options: Any,
) -> SARIResult:
    """SARI of a corpus: ``evaluate.load("sari").compute(sources=, predictions=, references=)["sari"]``.

    Arguments are ``(predictions, references, sources)``, as everywhere in nlgmetrics (the keyword names are HF
    evaluate's, so ``sari(sources=..., predictions=..., references=...)`` reads as there); references are per
    segment, a string or a list of strings. ``segments=True`` adds each segment's score.

    >>> src = ["About 95 species are currently accepted ."]
    >>> refs = [["About 95 species are currently known .", "About 95 species are now accepted .",
    ...          "95 species are now accepted ."]]
    >>> sari(["About 95 you now get in ."], refs, src).score
    26.953601953601954
    """
    cfg = SARI.make_config(preset, **options)
    return SARI.compute(predictions, references, cfg, segments=segments, sources=sources)
