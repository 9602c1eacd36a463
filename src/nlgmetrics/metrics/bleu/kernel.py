"""BLEU's kernel: tokens, the reference index and the per-segment statistics (compiled counters, numpy columns
or Python rows)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..._inputs import ReferenceSets
from ...algorithms import fastpath
from ...algorithms.native import native
from ...algorithms.refcache import ReferenceCache, disk_cache_set
from ...errors import InvalidInputError
from ...stats import StatsBatch
from ...text.coverage import warn_unsplit_cjk
from ...text.mt_tokenize import (
    perl_lowercase,
    perl_split,
    sacrebleu_tokenizer,
)
from ...text.spm import SPM_MODELS, spm_tokenizer
from ...text.tokenizers import tokenizer as tokenizer_of
from .arith import bleu_from_stats
from .config import BLEUConfig, sacrebleu_name
from .stats import _TAIL_ORDER, BLEUStats, _BLEUBatch

# numpy (and the n-gram index built on it) is imported where a path needs it: a fresh process scoring a corpus on
# the compiled counters takes the row path and never imports it
if TYPE_CHECKING:
    import numpy as np


# ====================================================================== kernel
_CACHE = ReferenceCache(maxsize=4)


def _lower(lines: list[str], cfg: BLEUConfig) -> list[str]:
    if not cfg.lowercase:
        return lines
    if cfg.convention == "moses":
        return [perl_lowercase(line) for line in lines]
    return [line.lower() for line in lines]


def tokenize(lines: list[str], cfg: BLEUConfig) -> list[list[str]]:
    """The tokens of each line as the config's convention and tokenizer produce them (lowercasing included)."""
    lines = _lower(lines, cfg)
    name = cfg.tokenizer
    assert name is not None
    if name in SPM_MODELS:
        return _spm(cfg).batch([line.rstrip() for line in lines])  # sacrebleu strips right first
    sacre = sacrebleu_name(name)
    if sacre is not None:
        return sacrebleu_tokenizer(sacre).batch([line.rstrip() for line in lines])  # sacrebleu strips right first
    if name == "whitespace":
        return [line.split() for line in lines]
    if name == "perl-whitespace":
        return [perl_split(line) for line in lines]
    tok = tokenizer_of(name)
    return [list(tok(line)) for line in lines]


def _spm(cfg: BLEUConfig) -> Any:
    """The SentencePiece tokenizer of ``cfg``, checked to be the model its signature names."""
    tok = spm_tokenizer(str(cfg.tokenizer), cfg.spm_model)
    if tok.digest != cfg.spm:
        raise InvalidInputError(
            f"the SentencePiece model of the {cfg.tokenizer} tokenizer changed since this configuration was made "
            f"(digest {tok.digest}, the signature says {cfg.spm}); make the configuration again"
        )
    return tok


def _uses_codepoints(cfg: BLEUConfig) -> bool:
    # one token per non-space character: code points serve as token ids, no vocabulary needed
    return cfg.tokenizer == "char"


def _char_texts(lines: list[str], cfg: BLEUConfig) -> list[str]:
    return ["".join(line.rstrip().split()) for line in _lower(lines, cfg)]


def _reference_index(refs: ReferenceSets, cfg: BLEUConfig, orders: int) -> tuple[Any, dict[Any, int] | None]:
    import numpy as np

    from ...algorithms.ngrams import TokenStreams, build_index, codepoint_streams, stored_vocabulary_streams

    if refs.starts is None:
        unit = np.arange(len(refs.flat), dtype=np.int64)
    else:
        unit = np.repeat(np.arange(len(refs), dtype=np.int64), refs.counts())
    if _uses_codepoints(cfg):
        streams = codepoint_streams(_char_texts(refs.flat, cfg), unit)
        return build_index(streams, len(refs), orders, 0x110000), None
    ids, lengths, vocabulary = stored_vocabulary_streams(
        _tokens_namespace(cfg), refs.flat, lambda texts: tokenize(list(texts), cfg)
    )
    streams = TokenStreams(ids, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64), unit)
    return build_index(streams, len(refs), orders, max(len(vocabulary), 1)), vocabulary


def _tokens_namespace(cfg: BLEUConfig) -> str:
    """Everything besides the text that changes BLEU's tokens, for the on-disk token cache: the settings and the
    tokenizer's own identity (a MeCab dictionary's version)."""
    name = cfg.tokenizer or ""
    if name in SPM_MODELS:
        return f"bleu|{_token_settings(cfg)!r}|{name}:{cfg.spm}"
    sacre = sacrebleu_name(name)
    tok: Any = sacrebleu_tokenizer(sacre) if sacre is not None else None
    if tok is None and name not in ("whitespace", "perl-whitespace"):
        tok = tokenizer_of(name)
    identity = getattr(tok, "signature", None) or getattr(tok, "version", None) or ""
    return f"bleu|{_token_settings(cfg)!r}|{identity}"


def _token_settings(cfg: BLEUConfig) -> tuple[Any, ...]:
    return (cfg.convention == "moses" and cfg.lowercase, cfg.lowercase, cfg.tokenizer)


#: The sizes of the fast-path rules (read-only: :mod:`nlgmetrics.algorithms.fastpath` decides; tests use ``forced``).
SMALL = fastpath.RULES["bleu"].rows_up_to
ROWS_13A = fastpath.RULES["bleu.13a-rows"].rows_up_to


def _uses_native_13a(cfg: BLEUConfig) -> bool:
    # the 13a tokenizer's batches go to the compiled one-pass kernel (``_native.bleu_13a``: tokens and clipped counts
    # at once, at every batch size); with a cache directory (evaluate's reruns) the references' tokens come from
    # disk: the numpy path reads them
    return cfg.tokenizer == "13a" and not disk_cache_set() and fastpath.use_native("bleu.13a")


def _closest_lengths(
    ref_lens: list[int], hyp_lens: list[int], refs: ReferenceSets, cfg: BLEUConfig
) -> tuple[list[int], list[int]]:
    """Each segment's reference length by the ``ref_length`` rule (``closest``: ties to the shorter; torchmetrics'
    multi-reference rule: the first closest), and its number of references, on Python integers (no numpy). The one
    implementation of the rule: the numpy paths turn its result into a column."""
    moses = cfg.convention == "moses" and cfg.ref_length == "closest"
    offsets = refs.offsets
    if offsets is None and not moses:
        return ref_lens, [1] * len(hyp_lens)  # one reference: its length, whatever the rule
    counts = refs.count_list()
    rule = cfg.ref_length
    first_tie = cfg.convention == "torchmetrics" and offsets is not None
    out = []
    at = 0
    for h, k in zip(hyp_lens, counts, strict=True):
        lens = ref_lens[at : at + k]
        at += k
        if k == 1 and not moses:
            out.append(lens[0])
        elif rule == "shortest":
            out.append(min(lens))
        elif rule == "longest":
            out.append(max(lens))
        elif first_tie:  # torchmetrics: list.index(min(differences)), the first closest reference wins a tie
            diffs = [abs(r - h) for r in lens]
            out.append(lens[diffs.index(min(diffs))])
        else:  # the closest, ties to the shorter; multi-bleu.perl starts from (diff, length) = (9999, 9999)
            best = min([(abs(r - h), r) for r in lens])
            out.append(9999 if moses and best > (9999, 9999) else best[1])
    return out, counts


def _length_row(h: int, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The n-gram totals of orders 1..n of a hypothesis of ``h`` tokens, and whether it is too short for each."""
    return tuple([h - k if h > k else 0 for k in range(n)]), tuple([int(h <= k) for k in range(n)])


def _rows(
    matches: list[Any], hyp_lens: list[int], ref_lens: list[int], refs: ReferenceSets, cfg: BLEUConfig, orders: int
) -> StatsBatch[BLEUStats]:
    """Per-segment statistics as Python lists, one per field (no numpy); ``matches[seg]`` are the clipped matches of
    orders 1..orders (a tuple or a list)."""
    closest, counts = _closest_lengths(ref_lens, hyp_lens, refs, cfg)
    n = cfg.order
    tail = cfg.needs_tail5
    if len(hyp_lens) == 1:  # one segment (a one-pair call): its row, without the lists around it
        h, m, k = hyp_lens[0], matches[0], counts[0]
        totals, short = _length_row(h, n)
        tail5 = (m[_TAIL_ORDER - 1], max(h - _TAIL_ORDER + 1, 0)) if tail else (0, 0)
        row = BLEUStats(tuple(m[:n]), totals, short, h, closest[0], 1, k, k * k, 1, h, *tail5)
        return _BLEUBatch.from_rows(BLEUStats, [row])
    n_seg = len(hyp_lens)
    by_length = {h: _length_row(h, n) for h in set(hyp_lens)}  # the totals depend on the length only
    ones = [1] * n_seg
    if tail:
        tail_matches = [m[_TAIL_ORDER - 1] for m in matches]
        tail_totals = [max(h - _TAIL_ORDER + 1, 0) for h in hyp_lens]
    else:
        tail_matches = tail_totals = [0] * n_seg
    lists: dict[str, list[Any]] = {  # in field order
        "matches": [tuple(m[:n]) for m in matches] if orders != n or type(matches[0]) is not tuple else matches,
        "totals": [by_length[h][0] for h in hyp_lens],
        "short": [by_length[h][1] for h in hyp_lens],
        "hyp_len": hyp_lens,
        "ref_len": closest,
        "n_segments": ones,
        "n_refs": counts,
        "n_refs_sq": counts if refs.offsets is None else [k * k for k in counts],
        "tail": ones,
        "tail_hyp_len": hyp_lens,
        "tail_matches5": tail_matches,
        "tail_total5": tail_totals,
        "sentence_sum": [0.0] * n_seg,
    }
    return _BLEUBatch.from_lists(BLEUStats, lists)


def _small_batch(preds: list[str], refs: ReferenceSets, cfg: BLEUConfig, orders: int) -> StatsBatch[BLEUStats]:
    """The statistics of a few segments: the same counts as the corpus path (``algorithms.ngrams``), from the
    compiled small-batch counter, without numpy arrays (the reference-length rule is the corpus path's)."""
    if _uses_codepoints(cfg):
        hyp: list[Any] = _char_texts(preds, cfg)
        ref: list[Any] = _char_texts(refs.flat, cfg)
    else:  # one tokenizer call for both sides (lines are tokenized independently): half its fixed cost
        both = tokenize(preds + refs.flat, cfg)
        hyp, ref = both[: len(preds)], both[len(preds) :]
    matches = [m[0] for m in native().clipped_matches(hyp, ref, refs.offsets or [], orders, False)]
    return _rows(matches, [len(h) for h in hyp], [len(r) for r in ref], refs, cfg, orders)


def _native_13a(preds: list[str], refs: ReferenceSets, cfg: BLEUConfig, orders: int) -> StatsBatch[BLEUStats]:
    """13a tokens and clipped counts from the compiled one-pass kernel (lowercasing done here, as ``tokenize``):
    Python rows for small batches, and at any size while numpy is not loaded; numpy columns otherwise."""
    flat, hyp_lens, ref_lens = native().bleu_13a(_lower(preds, cfg), _lower(refs.flat, cfg), refs.offsets or [], orders)
    n_seg = len(preds)
    if fastpath.rows("bleu.13a-rows", n_seg) and cfg.average != "sentence":
        n = cfg.order  # the orders the statistics keep (the kernel may count a 5th for NLTK's tail)
        if orders == n:
            matches = [tuple(flat[i : i + n]) for i in range(0, n_seg * n, n)]
        else:
            matches = [flat[i : i + orders] for i in range(0, n_seg * orders, orders)]
        return _rows(matches, hyp_lens, ref_lens, refs, cfg, orders)
    import numpy as np

    hyp = np.asarray(hyp_lens, dtype=np.int64)
    ref_len = np.asarray(_closest_lengths(ref_lens, hyp_lens, refs, cfg)[0], dtype=np.int64)
    return _columns(np.asarray(flat, dtype=np.int64).reshape(n_seg, orders), hyp, ref_len, refs, cfg, orders)


#: tokenizers that split on spaces and punctuation only: Chinese and Japanese stay whole phrases
_UNSPLIT_CJK = frozenset(("13a", "intl", "none", "whitespace", "perl-whitespace", "coco"))


def _cjk_fix(japanese: bool) -> str:
    if japanese:
        return "use tokenizer='ja-mecab' (sacrebleu -tok ja-mecab, WMT's en-ja) or 'char'"
    return "use tokenizer='zh' (sacrebleu -tok zh, WMT's en-zh) or 'char'"


def _bleu_kernel(preds: list[str], refs: ReferenceSets, cfg: BLEUConfig) -> StatsBatch[BLEUStats]:
    if cfg.tokenizer in _UNSPLIT_CJK:
        warn_unsplit_cjk("bleu", cfg.tokenizer, preds, refs, _cjk_fix)
    n_seg = len(preds)
    orders = max(cfg.order, _TAIL_ORDER) if cfg.needs_tail5 else cfg.order
    if _uses_native_13a(cfg):
        return _native_13a(preds, refs, cfg, orders)
    # average="sentence" also needs each segment's own BLEU (sentence_sum), which the corpus path computes
    if cfg.average != "sentence" and fastpath.rows("bleu", n_seg) and fastpath.use_native("bleu"):
        return _small_batch(preds, refs, cfg, orders)
    import numpy as np

    from ...algorithms.ngrams import clipped_counts, codepoint_streams, vocabulary_streams

    key = (
        "bleu",
        _token_settings(cfg),
        orders,
        tuple(refs.flat),
        None if refs.starts is None else refs.starts.tobytes(),
    )
    index, vocabulary = _CACHE.get(key, lambda: _reference_index(refs, cfg, orders))
    seg = np.arange(n_seg, dtype=np.int64)
    if vocabulary is None:
        hyp = codepoint_streams(_char_texts(preds, cfg), seg)
    else:
        hyp = vocabulary_streams(tokenize(preds, cfg), seg, vocabulary, grow=False)
    hyp_lens = hyp.lengths
    matches = clipped_counts(index, hyp, orders)[:, :, 0]
    closest = _closest_lengths(index.stream_lengths.tolist(), hyp_lens.tolist(), refs, cfg)[0]
    return _columns(matches, hyp_lens, np.asarray(closest, dtype=np.int64), refs, cfg, orders)


def _columns(
    matches: np.ndarray, hyp_lens: np.ndarray, ref_len: np.ndarray, refs: ReferenceSets, cfg: BLEUConfig, orders: int
) -> StatsBatch[BLEUStats]:
    """Per-segment statistics as numpy columns (and each segment's own BLEU under ``average="sentence"``)."""
    import numpy as np

    n_seg = len(hyp_lens)
    order_range = np.arange(1, orders + 1, dtype=np.int64)
    totals = np.maximum(hyp_lens[:, None] - order_range[None, :] + 1, 0)
    counts = refs.counts()
    n = cfg.order
    ones = np.ones(n_seg, dtype=np.int64)
    zeros = np.zeros(n_seg, dtype=np.int64)
    columns = {
        "matches": matches[:, :n],
        "totals": totals[:, :n],
        "short": (totals[:, :n] == 0).astype(np.int64),
        "hyp_len": hyp_lens,
        "ref_len": ref_len.astype(np.int64),
        "n_segments": ones,
        "n_refs": counts.astype(np.int64),
        "n_refs_sq": (counts * counts).astype(np.int64),
        "tail": ones,
        "tail_hyp_len": hyp_lens,
        "tail_matches5": matches[:, _TAIL_ORDER - 1] if cfg.needs_tail5 else zeros,
        "tail_total5": totals[:, _TAIL_ORDER - 1] if cfg.needs_tail5 else zeros,
    }
    from .sentence import sentence_scores

    columns["sentence_sum"] = sentence_scores(columns, cfg, BLEUStats, bleu_from_stats)
    return _BLEUBatch(BLEUStats, columns)
