"""Google-BLEU (GLEU, Wu et al. 2016): ``min(precision, recall)`` over all n-grams of orders ``min_len..max_len``.

A segment's statistics are those of its best reference: ``matches`` (the clipped n-gram matches, every order
together) and ``total = max(#hypothesis n-grams, #reference n-grams)``, the reference being the one with the
highest ``matches / total`` (the first on ties; a reference with ``total == 0`` is skipped, and a segment whose
references are all skipped adds nothing). The corpus GLEU is ``Σ matches / Σ total`` (0 when ``Σ total`` is 0):
the statistics add, and a segment's own score, from the same formula, is the sentence GLEU.

Presets:

``nltk`` (default)
    NLTK 3.10 ``nltk.translate.gleu_score.corpus_gleu(list_of_references, hypotheses, min_len, max_len)`` on
    whitespace-split text (``str.split``); :func:`sentence_gleu` is its ``sentence_gleu(references, hypothesis,
    min_len, max_len)`` (= ``corpus_gleu`` of one segment).
``hf-google-bleu``
    HF evaluate's ``google_bleu`` metric (``evaluate.load("google_bleu").compute(predictions, references,
    min_len=1, max_len=4)``): the same ``corpus_gleu`` after its ``Tokenizer13a``, a copy of sacrebleu's 13a
    tokenizer, without the right strip that sacrebleu's BLEU applies to each line first: ``tokenizer="13a"`` (the
    old name ``sacrebleu-13a`` is still taken, and signed ``13a``). Its keyword ``tokenizer=`` (any
    callable) maps to ``tokenizer=`` here (a tokenizer name).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from .._inputs import ReferenceSets
from .._np import is_numpy_number
from ..algorithms import fastpath
from ..algorithms.native import native
from ..algorithms.refcache import ReferenceCache
from ..errors import InvalidInputError
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from ..text.tokenizers import resolve, tokenizer_help
from ..text.tokenizers import tokenizer as tokenizer_of
from .base import MAX_ORDER, Family, Result, check_integer, safe_div

if TYPE_CHECKING:
    import numpy as np

__all__ = ["GLEU", "GLEUConfig", "GLEUResult", "GLEUStats", "gleu", "gleu_from_stats", "sentence_gleu"]


@dataclasses.dataclass(frozen=True)
class GLEUConfig:
    min_len: int = sig_field("min", 1, help="the smallest n-gram order counted")
    max_len: int = sig_field("max", 4, help="the largest n-gram order counted")
    tokenizer: str = sig_field(
        "tok",
        "whitespace",
        help=tokenizer_help("gleu", "how text becomes tokens: whitespace (str.split, NLTK), 13a (HF)"),
    )
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        for name in ("min_len", "max_len"):
            value = getattr(self, name)
            if isinstance(value, bool) or not (isinstance(value, int) or is_numpy_number(value, "i")) or value < 1:
                raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
            check_integer(name, value, minimum=1, maximum=MAX_ORDER)
        if self.min_len > self.max_len:
            raise InvalidInputError(
                f"min_len ({self.min_len}) is larger than max_len ({self.max_len}): no n-gram order is left "
                "(NLTK would silently score 0)"
            )
        if not isinstance(self.tokenizer, str):
            raise InvalidInputError(f"tokenizer must be a registered tokenizer's name, got {self.tokenizer!r}")
        object.__setattr__(self, "tokenizer", resolve(self.tokenizer, "gleu"))
        tokenizer_of(self.tokenizer)  # fail early on a missing extra


@dataclasses.dataclass(frozen=True)
class GLEUStats(Stats):
    """``matches`` and ``total`` (max of the hypothesis and reference n-gram counts) of each segment's best
    reference; ``hyp_ngrams`` and ``ref_ngrams`` are its two sides (precision = matches / hyp_ngrams, recall =
    matches / ref_ngrams); ``segments`` counts the segments that entered the sums."""

    segment_field: ClassVar[str | None] = ""
    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (
        ("matches", "hyp_ngrams"),
        ("matches", "ref_ngrams"),
        ("hyp_ngrams", "total"),
        ("ref_ngrams", "total"),
    )

    matches: int
    total: int
    hyp_ngrams: int
    ref_ngrams: int
    segments: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class GLEUResult(Result):
    """``score`` is GLEU (0-1); ``precision`` and ``recall`` are those of the summed best references."""

    matches: int = 0
    total: int = 0
    precision: float = 0.0
    recall: float = 0.0


_CACHE = ReferenceCache(maxsize=4)


def _tokenize(lines: list[str], cfg: GLEUConfig) -> list[list[str]]:
    if cfg.tokenizer == "whitespace":
        return [line.split() for line in lines]
    tok: Any = tokenizer_of(cfg.tokenizer)
    if hasattr(tok, "batch"):
        return list(tok.batch(lines))
    return [list(tok(line)) for line in lines]


def _ngram_count(lengths: np.ndarray, cfg: GLEUConfig) -> np.ndarray:
    """The number of n-grams of orders ``min_len..max_len`` of sequences of the given lengths."""
    import numpy as np

    n = np.arange(cfg.min_len, cfg.max_len + 1, dtype=np.int64)
    return np.maximum(lengths[..., None] - n + 1, 0).sum(axis=-1)


def _reference_side(refs: ReferenceSets, cfg: GLEUConfig) -> tuple[Any, dict[Any, int]]:
    from ..algorithms.ngrams import build_index, vocabulary_streams

    seg, col = refs.segments_and_columns()
    vocabulary: dict[Any, int] = {}
    streams = vocabulary_streams(_tokenize(refs.flat, cfg), seg, vocabulary, grow=True)
    return build_index(streams, len(refs), cfg.max_len, max(len(vocabulary), 1), column=col), vocabulary


#: The size of the fast-path rule (read-only: :mod:`nlgmetrics.algorithms.fastpath` decides; tests use ``forced``).
SMALL = fastpath.RULES["gleu"].rows_up_to


def _small_batch(preds: list[str], refs: ReferenceSets, cfg: GLEUConfig) -> StatsBatch[GLEUStats]:
    """The corpus path's statistics, segment by segment: clipped matches against each reference apart, the best
    reference by ``matches / max(hypothesis n-grams, reference n-grams)`` (the first of equals, as NLTK's max())."""
    hyp, ref = _tokenize(preds, cfg), _tokenize(refs.flat, cfg)
    per_segment = native().clipped_matches(hyp, ref, refs.offsets or [], cfg.max_len, True)
    lo, hi = cfg.min_len, cfg.max_len

    def grams(length: int) -> int:
        return sum(max(length - n + 1, 0) for n in range(lo, hi + 1))

    rows = []
    at = 0
    for h, per_ref in zip(hyp, per_segment, strict=True):
        tpfp = grams(len(h))
        best: tuple[float, int, int, int] | None = None
        for j, orders in enumerate(per_ref):
            tpfn = grams(len(ref[at + j]))
            n_all = max(tpfp, tpfn)
            if n_all > 0:
                tp = sum(orders[lo - 1 :])
                if best is None or tp / n_all > best[0]:
                    best = (tp / n_all, tp, n_all, tpfn)
        at += len(per_ref)
        if best is None:
            rows.append(GLEUStats(0, 0, 0, 0, 0))
        else:
            rows.append(GLEUStats(best[1], best[2], tpfp, best[3], 1))
    return StatsBatch.from_rows(GLEUStats, rows)


def _gleu_kernel(preds: list[str], refs: ReferenceSets, cfg: GLEUConfig) -> StatsBatch[GLEUStats]:
    if fastpath.rows("gleu", len(preds)) and fastpath.use_native("gleu"):
        try:
            return _small_batch(preds, refs, cfg)
        except UnicodeEncodeError:
            pass  # a lone surrogate has no UTF-8 form for the compiled counter: the path below counts any str
    import numpy as np

    from ..algorithms.ngrams import clipped_counts, vocabulary_streams

    layout = None if refs.starts is None else refs.starts.tobytes()
    key = ("gleu", cfg.tokenizer, cfg.max_len, tuple(refs.flat), layout)
    index, vocabulary = _CACHE.get(key, lambda: _reference_side(refs, cfg))
    n_seg = len(preds)
    hyp = vocabulary_streams(_tokenize(preds, cfg), np.arange(n_seg, dtype=np.int64), vocabulary, grow=False)
    # clipped matches per (segment, order, reference column), summed over the orders counted
    tp = clipped_counts(index, hyp, cfg.max_len)[:, cfg.min_len - 1 :, :].sum(axis=1)
    tpfp = _ngram_count(hyp.lengths, cfg)
    ref_len = np.zeros((n_seg, index.columns), dtype=np.int64)
    ref_len[index.stream_unit, index.stream_column] = index.stream_lengths
    tpfn = _ngram_count(ref_len, cfg)
    n_all = np.maximum(tpfp[:, None], tpfn)
    exists = np.arange(index.columns)[None, :] < refs.counts()[:, None]
    usable = exists & (n_all > 0)
    ratio = np.where(usable, safe_div(tp, n_all), -np.inf)  # the same float division as NLTK's key
    best = np.argmax(ratio, axis=1)  # the first of equal ratios, as Python's max()
    rows = np.arange(n_seg)
    keep = usable[rows, best].astype(np.int64)
    return StatsBatch(
        GLEUStats,
        {
            "matches": tp[rows, best] * keep,
            "total": n_all[rows, best] * keep,
            "hyp_ngrams": tpfp * keep,
            "ref_ngrams": tpfn[rows, best] * keep,
            "segments": keep,
        },
    )


def gleu_from_stats(stats: GLEUStats, cfg: GLEUConfig) -> GLEUResult:
    """``matches / total`` (0 when nothing was counted)."""
    return GLEUResult(
        score=safe_div(stats.matches, stats.total),
        matches=stats.matches,
        total=stats.total,
        precision=safe_div(stats.matches, stats.hyp_ngrams),
        recall=safe_div(stats.matches, stats.ref_ngrams),
    )


GLEU: Family[GLEUConfig, GLEUStats, GLEUResult] = Family(
    name="gleu",
    bounds=(0.0, 1.0),
    config_cls=GLEUConfig,
    stats_cls=GLEUStats,
    kernel=_gleu_kernel,
    formula=gleu_from_stats,
    presets={"nltk": {"tokenizer": "whitespace"}, "hf-google-bleu": {"tokenizer": "13a"}},
    default_preset="nltk",
    vectorized=True,
)


gleu = GLEU.function(
    "gleu",
    __name__,
    """Corpus GLEU (Google-BLEU), NLTK's ``corpus_gleu`` (preset ``"nltk"``) or HF evaluate's ``google_bleu``
    (preset ``"hf-google-bleu"``). ``options``: ``min_len``, ``max_len``, ``tokenizer``. ``segments=True`` adds
    each segment's sentence GLEU.

    >>> round(gleu(["the the the the the the the"], ["the cat is on the mat"]).score, 4)
    0.0909
    >>> gleu(["he read the book because he was interested in world history"],
    ...      ["he was interested in world history because he read the book"], preset="hf-google-bleu").matches
    30
    """,
)


def sentence_gleu(
    prediction: str,
    references: str | Sequence[str],
    *,
    preset: str | None = None,
    **options: Any,
) -> GLEUResult:
    """The GLEU of one sentence against its references (NLTK's ``sentence_gleu``).

    >>> round(sentence_gleu("the the the the the the the", ["the cat is on the mat"]).score, 4)
    0.0909
    """
    if not isinstance(prediction, str):
        raise InvalidInputError(f"sentence_gleu takes one prediction (a string), got {type(prediction).__name__}")
    refs = [references] if isinstance(references, str) else [list(references)]
    return gleu([prediction], refs, preset=preset, **options)
