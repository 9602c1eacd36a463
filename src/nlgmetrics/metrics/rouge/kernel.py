"""The ROUGE batch kernel: texts in, per-segment precision, recall and F of every requested type out.

The work is done by the compiled kernel (``csrc/rouge_kernel.cpp``): it tokenizes and stems each distinct text
once, pairs each prediction with each of its references, counts the matches of every type (clipped n-gram and
skip-bigram overlaps, LCS, union LCS, weighted LCS), keeps each segment's best reference or pools them, and turns
the counts into precision, recall and F with the chosen reference tool's arithmetic. This module prepares its
input (sentence splitting, separators, ROUGE-1.5.5's length limits, tokens of the tokenizers that are not
compiled) and declares the ROUGE types; :mod:`nlgmetrics.metrics.rouge` declares the family
around it. It imports nothing from the family's module, so the two never import each other.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...algorithms.guard import limit_seconds
from ...algorithms.native import native
from ...text.rouge_tokenize import kernel_text, rouge155_truncate, rouge_encoder
from .config import RougeType, parse_rouge_type

# numpy and the sentence splitter are imported where they are used: a fresh process scoring a few segments of the
# common types needs neither (the cost guard's module is small and asked on every call: imported here)
if TYPE_CHECKING:
    import numpy as np

    from ..._inputs import ReferenceSets
    from .config import RougeConfig

__all__ = ["RougeType", "parse_rouge_type", "rouge_columns", "round5"]


# ---------------------------------------------------------------------------------------------------- arithmetic
def round5(x: Any) -> np.ndarray:
    """``sprintf("%7.5f", x)`` read back as a number, element-wise: the nearest double to ``x`` rounded to five
    decimals (ties as the exact binary value of ``x`` decides, as C's printf does). The compiled kernel's."""
    import numpy as np

    return native().round5(np.asarray(x, dtype=np.float64))  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------------- the kernel
_KINDS = {"n": 0, "L": 1, "Lsum": 2, "W": 3, "S": 4}
# multi_ref modes of the compiled kernel (under ROUGE-1.5.5's arithmetic, all but "best" pool the references: -f A)
_MULTI = {"average": 0, "best": 1, "max-pr": 2}


@functools.lru_cache(maxsize=64)
def _type_specs(types: tuple[str, ...], perl: bool) -> tuple[list[tuple[int, int, int, bool]], bool]:
    """The kernel's description of each type, and whether any needs sentences. ROUGE-1.5.5's ROUGE-L is its
    summary-level LCS, the computation of ROUGE-Lsum."""
    specs = []
    sentences = False
    for name in types:
        t = parse_rouge_type(name)
        kind = "Lsum" if (perl and t.kind == "L") else t.kind
        sentences |= kind in ("Lsum", "W")
        specs.append((_KINDS[kind], t.n, -1 if t.skip is None else t.skip, t.unigrams))
    return specs, sentences


def _sentence_texts(texts: list[str], mode: str) -> list[str]:
    if mode == "newline":
        return texts
    from ...text.sentences import split_sentences

    if mode == "rules":
        return ["\n".join(split_sentences(t)) for t in texts]
    return [t if "\n" in t else "\n".join(split_sentences(t)) for t in texts]  # auto


def _tokenizer_of(cfg: RougeConfig) -> str | Callable[[str], list[str]]:
    if not isinstance(cfg.tokenizer, str):  # a callable (text.registry.CallableTokenizer): its tokens as they come
        return cfg.tokenizer  # type: ignore[no-any-return]
    if cfg.tokenizer in ("unicode", "rouge-score", "rouge155"):
        return cfg.tokenizer
    from ...text.tokenizers import tokenizer

    return tokenizer(cfg.tokenizer)


class _Prepared:
    """What the kernel needs of a config, resolved once per config object and grid: the compiled plan and encoder,
    the tokenizer, whether the texts need sentences, and whether they go to the kernel as given (``direct``: no
    separator to replace, no splitting rules, no length limits) and past the cost guard unchecked (no ROUGE-W, no
    unlimited skip bigrams)."""

    __slots__ = (
        "direct",
        "encoder",
        "guard_rates",
        "guards",
        "need_sentences",
        "plan",
        "sentences",
        "split",
        "tokenizer",
    )

    def __init__(self, cfg: RougeConfig, grid: float) -> None:
        perl = cfg.scoring == "rouge155"
        specs, self.need_sentences = _type_specs(cfg.rouge_types, perl)
        self.split = bool(cfg.length_limit or cfg.byte_limit)
        self.sentences = self.need_sentences or self.split
        multi = _MULTI[cfg.multi_ref]
        self.plan = native().RougePlan(
            specs, perl, multi, float(cfg.beta), cfg.alpha, float(cfg.weight), self.sentences, grid
        )
        self.tokenizer = _tokenizer_of(cfg)
        self.encoder = rouge_encoder(
            cfg.stemmer if cfg.use_stemmer else None, cfg.remove_stopwords, cfg.tokenizer == "rouge-score"
        )
        self.guards = _guards(cfg, perl)
        self.guard_rates = _guard_rates(self.guards)
        self.direct = (
            not cfg.sentence_separator
            and not self.split
            and (not self.need_sentences or cfg.sentence_split == "newline")
        )


class _PreparedCache(dict):  # type: ignore[type-arg]
    """The :class:`_Prepared` of a config by grid, kept on the config; it pickles empty (a config sent to a worker
    process prepares itself there: the compiled encoder does not pickle)."""

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (_PreparedCache, ())


def _prepared(cfg: RougeConfig, grid: float) -> _Prepared:
    """The :class:`_Prepared` of a config, built once per config object and grid."""
    cached: _PreparedCache | None = cfg.__dict__.get("_nlgm_rouge_prepared")
    if cached is None:
        cached = _PreparedCache()
        object.__setattr__(cfg, "_nlgm_rouge_prepared", cached)
    prep = cached.get(grid)
    if prep is None:
        prep = cached[grid] = _Prepared(cfg, grid)
    return prep


def _items(texts: list[str], tokenizer: str | Callable[[str], list[str]], sentences: bool) -> list[Any]:
    if isinstance(tokenizer, str) and all(map(str.isascii, texts)):
        return texts  # the compiled tokenizer reads them as they are
    return [kernel_text(t, tokenizer, sentences) for t in texts]


#: An upper bound on the tokens of a text, for the cost guard: ASCII letter and digit runs plus every other
#: non-space character (no tokenizer makes more tokens than this); counted only for texts whose length in
#: characters already suggests a long run.
_TOKEN_BOUND = re.compile(r"[0-9A-Za-z]+|[^\x00-\x7f\s]|[^0-9A-Za-z\s]")


def _token_bound(texts: list[str]) -> np.ndarray:
    import numpy as np

    return np.fromiter((len(_TOKEN_BOUND.findall(t)) for t in texts), dtype=np.float64, count=len(texts))


def _guards(cfg: RougeConfig, perl: bool) -> tuple[tuple[str, str], ...]:
    """``(guard kernel, type name)`` of each quadratic computation the types need (ROUGE-N needs none): the LCS
    of ROUGE-L, the union LCS of ROUGE-Lsum (and of ROUGE-L under ``rouge155`` scoring, summary-level there), the
    weighted LCS of ROUGE-W and the skip bigrams at any distance of ROUGE-S*/SU*."""
    out: dict[str, str] = {}
    for name in cfg.rouge_types:
        t = parse_rouge_type(name)
        if t.kind == "L":
            out.setdefault("compiled-union-lcs" if perl else "compiled-lcs", name)
        elif t.kind == "Lsum":
            out.setdefault("compiled-union-lcs", name)
        elif t.kind == "W":
            out.setdefault("compiled-weighted-lcs", name)
        elif t.kind == "S" and t.skip is None:
            out.setdefault("compiled-skip-bigrams", name)
    return tuple(out.items())


def _guard_rates(guards: tuple[tuple[str, str], ...]) -> tuple[float, float]:
    """The largest rate per cell of the guards on a pair (LCS kinds) and of the guard on one text with itself
    (the skip bigrams), 0 where there is none."""
    from ...algorithms.guard import RATES

    pair = max((RATES[k][2] for k, _ in guards if k != "compiled-skip-bigrams"), default=0.0)
    alone = max((RATES[k][2] for k, _ in guards if k == "compiled-skip-bigrams"), default=0.0)
    return pair, alone


def _guard(prep: _Prepared, preds: list[str], refs: ReferenceSets) -> None:
    """Refuse, before the compiled kernel runs, a pair whose LCS (ROUGE-L, -Lsum, -W) or unlimited skip bigrams
    would run beyond the limit of :mod:`nlgmetrics.algorithms.guard`. Lengths in characters bound the tokens from
    above: the longest texts answer for a call of ordinary texts, without numpy; only texts long enough to matter
    are counted closer."""
    limit = limit_seconds()
    flat = refs.flat
    if limit is None or not preds or not flat:
        return
    if len(preds) == 1 and len(flat) == 1:  # one pair: the common small call
        longest_pred, longest_ref = len(preds[0]), len(flat[0])
    else:
        longest_pred, longest_ref = max(map(len, preds)), max(map(len, flat))
    pair_rate, alone_rate = prep.guard_rates
    longest = longest_pred if longest_pred > longest_ref else longest_ref
    if longest_pred * longest_ref * pair_rate <= limit and longest * longest * alone_rate <= limit:
        return
    guards = prep.guards
    import numpy as np

    from ...algorithms.guard import RATES, check_pairs

    seg = np.repeat(np.arange(len(preds)), refs.counts()) if refs.starts is not None else np.arange(len(preds))
    pred_of_pair = [preds[i] for i in seg.tolist()]

    def sides(lengths: Callable[[list[str]], np.ndarray], skip: bool) -> tuple[np.ndarray, np.ndarray]:
        a, b = lengths(pred_of_pair), lengths(flat)
        return (np.maximum(a, b),) * 2 if skip else (a, b)  # skip bigrams: the longer text with itself

    def characters(texts: list[str]) -> np.ndarray:
        return np.fromiter(map(len, texts), dtype=np.float64, count=len(texts))

    for kernel, metric in guards:
        skip = kernel == "compiled-skip-bigrams"
        a, b = sides(characters, skip)
        if a.size and float((a * b).max()) * RATES[kernel][2] > limit:
            check_pairs(metric, kernel, *sides(_token_bound, skip), seg)


def rouge_columns(
    preds: list[str], refs: ReferenceSets, cfg: RougeConfig, grid: float = 0.0, rows: bool = False
) -> Any:
    """Per-segment precision, recall and F of every type of a batch: a ``(segments, types, 3)`` array.

    With a ``grid``, ``(segments, types, 6)``: each value ``v`` as ``hi`` (``v`` rounded to a multiple of
    ``1 / grid``) in the first three, and ``v - hi`` in the last three (both exact: ``hi + lo == v``). With ``rows``,
    a list with one tuple per segment instead, holding for each of those measures a tuple over the types."""
    if cfg.multi_ref == "mean":
        return _mean_over_references(preds, refs, cfg, grid, rows)
    prep = _prepared(cfg, grid)
    if prep.guards:
        _guard(prep, preds, refs)
    starts = refs.offsets or []
    tokenizer, sentences = prep.tokenizer, prep.sentences
    flat = refs.flat
    lcs_preds: list[Any] | None = None
    lcs_refs: list[Any] | None = None
    if not prep.direct:  # else the texts go as given (the common case: a call on a few pairs pays for nothing else)
        if cfg.sentence_separator:
            preds = [t.replace(cfg.sentence_separator, "\n") for t in preds]
            flat = [t.replace(cfg.sentence_separator, "\n") for t in flat]
        if prep.split:
            cut_p = [rouge155_truncate(t, cfg.length_limit, cfg.byte_limit) for t in preds]
            cut_r = [rouge155_truncate(t, cfg.length_limit, cfg.byte_limit) for t in flat]
            preds, flat = [c[0] for c in cut_p], [c[0] for c in cut_r]
            lcs_preds, lcs_refs = ["\n".join(c[1]) for c in cut_p], ["\n".join(c[1]) for c in cut_r]
            lcs_preds, lcs_refs = _items(lcs_preds, tokenizer, sentences), _items(lcs_refs, tokenizer, sentences)
        elif prep.need_sentences:
            preds, flat = _sentence_texts(preds, cfg.sentence_split), _sentence_texts(flat, cfg.sentence_split)
    return prep.plan.scores(
        prep.encoder,
        _items(preds, tokenizer, sentences),
        _items(flat, tokenizer, sentences),
        starts,
        lcs_preds,
        lcs_refs,
        rows,
    )


def _mean_over_references(preds: list[str], refs: ReferenceSets, cfg: RougeConfig, grid: float, rows: bool) -> Any:
    """``multi_ref="mean"`` (torchmetrics' ``accumulate="avg"``): each reference scored on its own, then the mean of
    the per-reference precisions, recalls and F (each averaged on its own; F is not recomputed from the means)."""
    import numpy as np

    from ..._inputs import ReferenceSets

    counts = refs.count_list()
    pair_preds = [p for p, k in zip(preds, counts, strict=True) for _ in range(k)]
    single = dataclasses.replace(cfg, multi_ref="best")  # one reference per pair: its own scores
    values = np.asarray(rouge_columns(pair_preds, ReferenceSets(list(refs.flat)), single), dtype=np.float64)
    starts = np.cumsum([0, *counts[:-1]], dtype=np.int64)
    means = np.add.reduceat(values, starts, axis=0) / np.asarray(counts, dtype=np.float64)[:, None, None]
    if not grid:
        return means
    hi = np.rint(means * grid) / grid
    out = np.concatenate([hi, means - hi], axis=2)  # both exact: hi + low == value
    if not rows:
        return out
    return [tuple(tuple(out[i, :, j].tolist()) for j in range(6)) for i in range(len(preds))]
