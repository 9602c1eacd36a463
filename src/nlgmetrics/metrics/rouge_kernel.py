"""The ROUGE batch kernel: texts in, per-segment precision, recall and F of every requested type out.

The work is done by the compiled kernel (``csrc/rouge_kernel.cpp``): it tokenizes and stems each distinct text
once, pairs each prediction with each of its references, counts the matches of every type (clipped n-gram and
skip-bigram overlaps, LCS, union LCS, weighted LCS), keeps each segment's best reference or pools them, and turns
the counts into precision, recall and F with the chosen reference tool's arithmetic. This module prepares its
input (sentence splitting, separators, ROUGE-1.5.5's length limits, tokens of the tokenizers that are not
compiled) and declares the ROUGE types and score tuples; :mod:`nlgmetrics.metrics.rouge` declares the family
around it. It imports nothing from the family's module, so the two never import each other.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._inputs import ReferenceSets
from ..algorithms.native import native
from ..errors import UnknownOptionError
from ..text.rouge_tokenize import kernel_text, rouge155_truncate, rouge_encoder
from ..text.sentences import split_sentences

if TYPE_CHECKING:
    from .rouge import RougeConfig

__all__ = ["AggregateScore", "RougeScore", "RougeType", "parse_rouge_type", "rouge_columns", "round5"]


class RougeScore(NamedTuple):
    """Precision, recall and F of one type (rouge-score's ``Score``)."""

    precision: float
    recall: float
    fmeasure: float


class AggregateScore(NamedTuple):
    """A bootstrap confidence interval: ``low`` and ``high`` bounds around ``mid`` (rouge-score's
    ``AggregateScore``)."""

    low: RougeScore
    mid: RougeScore
    high: RougeScore


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


@functools.lru_cache(maxsize=256)
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
def round5(x: Any) -> np.ndarray:
    """``sprintf("%7.5f", x)`` read back as a number, element-wise: the nearest double to ``x`` rounded to five
    decimals (ties as the exact binary value of ``x`` decides, as C's printf does). The compiled kernel's."""
    return native().round5(np.asarray(x, dtype=np.float64))  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------------- the kernel
_KINDS = {"n": 0, "L": 1, "Lsum": 2, "W": 3, "S": 4}


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


def rouge_columns(preds: list[str], refs: ReferenceSets, cfg: RougeConfig) -> np.ndarray:
    """Per-segment precision, recall and F of every type of a batch: a ``(segments, types, 3)`` array."""
    perl = cfg.scoring == "rouge155"
    specs, need_sentences = _type_specs(cfg.rouge_types, perl)
    n = len(preds)
    flat = refs.flat
    n_pairs = len(flat)
    texts = [*preds, *flat]
    if cfg.sentence_separator:
        texts = [t.replace(cfg.sentence_separator, "\n") for t in texts]
    split = bool(cfg.length_limit or cfg.byte_limit)
    if split:
        cut = [rouge155_truncate(t, cfg.length_limit, cfg.byte_limit) for t in texts]
        texts = [c[0] for c in cut] + ["\n".join(c[1]) for c in cut]
    elif need_sentences:
        texts = _sentence_texts(texts, cfg.sentence_split)
    sentences = need_sentences or split
    # each distinct text is tokenized once (the references of a benchmark repeat for every system)
    index: dict[str, int] = {}
    where = [index.setdefault(t, len(index)) for t in texts]
    tokenizer = _tokenizer_of(cfg)
    items = [kernel_text(t, tokenizer, sentences) for t in index]
    encoder = rouge_encoder(
        cfg.stemmer if cfg.use_stemmer else None, cfg.remove_stopwords, cfg.tokenizer == "rouge-score"
    )
    if refs.starts is None:
        seg_of_pair = range(n)
        starts: list[int] = []
    else:
        starts = refs.starts.tolist()
        seg_of_pair = [s for s, k in enumerate(refs.counts().tolist()) for _ in range(k)]  # type: ignore[assignment]
    pred_text = [where[s] for s in seg_of_pair]
    ref_text = where[n : n + n_pairs]
    if split:
        m = n + n_pairs
        pred_lcs = [where[m + s] for s in seg_of_pair]
        ref_lcs = where[m + n : m + n + n_pairs]
    else:
        pred_lcs, ref_lcs = pred_text, ref_text
    return native().rouge_scores(  # type: ignore[no-any-return]
        encoder, items, sentences, pred_text, ref_text, pred_lcs, ref_lcs, starts, specs,
        perl, cfg.multi_ref == "best", float(cfg.beta), cfg.alpha, float(cfg.weight), split,
    )  # fmt: skip
