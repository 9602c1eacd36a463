"""BLEU: corpus and sentence BLEU under every common convention, each reproduced exactly.

The statistics of a segment are its clipped n-gram matches and n-gram totals per order, its length and the
length of its closest reference; the corpus score comes from their sum. Four *conventions* turn summed statistics
into a score; the presets pick one together with the tokenizer and smoothing of its reference tool:

``sacrebleu`` (default; scale 0-100)
    ``sacrebleu.BLEU(...).corpus_score(hyps, [refs])`` of sacrebleu 2.6.0 (``sacrebleu -tok 13a``), and with
    :func:`sentence_bleu` its ``sentence_score`` / ``sacrebleu.sentence_bleu`` (effective order on). Tokenizers
    ``13a`` (default), ``intl``, ``zh``, ``char``, ``ja-mecab``, ``ko-mecab``, ``none``; smoothing ``exp``
    (default), ``floor``, ``add-k``, ``none``; ``effective_order``; ``lowercase``. The result also carries the
    signature sacrebleu prints (``sacrebleu_signature``).
``nltk`` (scale 0-1)
    ``nltk.translate.bleu_score.corpus_bleu(list_of_references, hypotheses, weights, smoothing_function,
    auto_reweigh)`` of NLTK 3.10 on whitespace-split text, and :func:`sentence_bleu` its ``sentence_bleu``.
    Smoothing ``method0`` (default) ... ``method7`` of ``SmoothingFunction(epsilon, alpha, k)``, any weights,
    ``auto_reweigh``. NLTK counts ``max(1, #n-grams)`` in each segment's denominator, replaces a zero precision
    by ``sys.float_info.min`` without smoothing (hence scores like 1.4e-231), and smooths a corpus with the
    length and 5-gram precision of its *last* sentence (methods 5-7); all of this is reproduced.
``nltk-3.2`` (scale 0-1)
    NLTK 3.2's ``corpus_bleu`` without smoothing, which stopped the geometric mean at the first order without a
    match (``sentence_bleu([["a", "b", "c"]], ["a", "d", "a"])`` gave ``exp(log(1/3) / 4) = 0.7598``).
``moses`` (scale 0-100)
    ``multi-bleu.perl [-lc] reference < hypothesis`` of Moses: text split on ASCII whitespace as Perl splits,
    ``-lc`` lowercasing ASCII letters only, no smoothing (any precision of 0 makes BLEU 0), and the script's
    closest-reference rule (a reference more than 9999 tokens away is never the closest).
``nmt`` (scale 0-1)
    tensorflow/nmt's ``compute_bleu(reference_corpus, translation_corpus, max_order, smooth)``
    (``nmt/scripts/bleu.py`` on its ``master``, 0be8642), which Hugging Face ``evaluate``'s ``bleu`` fetches as
    ``nmt_bleu.py`` and runs after its copy of sacrebleu's 13a tokenizer
    (``evaluate.load("bleu").compute(predictions, references, max_order, smooth)``): the *shortest* reference
    length, precisions ``matches / possible`` (0 for an order without n-grams), BLEU 0 when any precision is 0,
    ``smoothing="add-one"`` for its ``smooth=True`` (``(m + 1) / (p + 1)`` for every order, unigrams included),
    and ``BP = exp(1 - 1 / ratio)``.
``torchmetrics`` (scale 0-1)
    torchmetrics' ``bleu_score`` / ``BLEUScore(n_gram, smooth, weights)`` (whitespace tokens) and, with a sacrebleu
    tokenizer, ``SacreBLEUScore(tokenize, lowercase)``: BLEU 0 as soon as one order has no match,
    ``smoothing="add-k"`` for its ``smooth=True`` (``(m + 1) / (p + 1)`` from bigrams on), weights, and the
    closest reference length with ties going to the *first* reference (not the shorter one). torchmetrics sums in
    float32; these numbers are the float64 ones (they agree to float32 precision).
``coco`` (scale 0-1)
    pycocoevalcap 1.2 ``Bleu(4).compute_score(gts, res)`` (the COCO caption evaluation) on captions tokenized by
    its ``PTBTokenizer`` (tokenizer ``coco``): the closest reference length (ties to the shorter), and its
    arithmetic ``prod_k (matches_k + 1e-15) / (total_k + 1e-9)`` to the power ``1/n``, times
    ``exp(1 - 1/ratio)`` when ``ratio = (hyp_len + 1e-15) / (ref_len + 1e-9)`` is below 1. BLEU-1 ... BLEU-3
    are the same arithmetic with ``max_order`` 1 ... 3 (what :func:`nlgmetrics.coco` reports); the per-segment
    scores are pycocoevalcap's per-image scores.

Why the conventions disagree on the same input, with a table, is in ``docs/bleu.md``.

Additivity of the statistics: every count adds. NLTK's ``corpus_bleu`` also reads the *last* sentence of the
corpus (smoothing methods 5-7); that information travels in four ``tail_*`` fields that do not add: ``+`` keeps
the right operand's tail (the later data), and a batch's total keeps its last segment's. So the statistics of a
corpus are still the ordered sum of its segments', batching changes nothing, and the stateful metric reproduces
NLTK exactly; a sum that cannot know the last sentence (a torch/DDP all-reduce) is detected (``tail`` > 1) and
refused by those three methods only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..._inputs import one_segment
from ...text.mt_tokenize import SACREBLEU_VERSION
from ..base import Family
from .arith import BLEUResult, bleu_from_stats
from .config import CONVENTIONS, BLEUConfig
from .kernel import _bleu_kernel
from .stats import BLEUStats

__all__ = [
    "BLEU",
    "CONVENTIONS",
    "SACREBLEU_VERSION",
    "BLEUConfig",
    "BLEUResult",
    "BLEUStats",
    "bleu",
    "bleu_from_stats",
    "sentence_bleu",
]


# ====================================================================== family and presets
def _sizes(cfg: BLEUConfig) -> dict[str, int]:
    return {"matches": cfg.order, "totals": cfg.order, "short": cfg.order}


def _bounds(cfg: BLEUConfig) -> tuple[float | None, float | None]:
    return (0.0, float(cfg.scale or 1))


def _segment_config(cfg: BLEUConfig) -> BLEUConfig:
    """Per-segment BLEU: sacrebleu's ``sentence_bleu`` arithmetic (effective order on; exp smoothing unless the
    config chose sacrebleu's floor or add-k) on the corpus run's own counts, tokens and scale. Under every corpus
    convention, a segment shorter than 4 tokens would otherwise score 0 even when it equals its reference (a
    4-gram precision of 0/0), and NLTK's unsmoothed ``sys.float_info.min`` gives 1e-231-like numbers."""
    keep = cfg.convention == "sacrebleu" and cfg.smoothing in ("exp", "floor", "add-k")
    return dataclasses.replace(
        cfg,
        convention="sacrebleu",
        smoothing=cfg.smoothing if keep else "exp",
        smooth_value=cfg.smooth_value if keep else None,
        effective_order=True,
        auto_reweigh=False,
    )


BLEU: Family[BLEUConfig, BLEUStats, BLEUResult] = Family(
    cache_configs=True,
    name="bleu",
    bounds=(0.0, None),
    config_bounds=_bounds,
    segment_config_of=_segment_config,
    config_cls=BLEUConfig,
    stats_cls=BLEUStats,
    kernel=_bleu_kernel,
    formula=bleu_from_stats,
    presets={
        "sacrebleu": {"convention": "sacrebleu"},
        "nltk": {"convention": "nltk"},
        "nltk-3.2": {"convention": "nltk-3.2"},
        "moses": {"convention": "moses"},
        "nmt": {"convention": "nmt", "ref_length": "shortest"},
        "torchmetrics": {"convention": "torchmetrics"},
        "coco": {"convention": "coco"},
        "llamafactory": {
            "convention": "nltk",
            "tokenizer": "char-list",
            "smoothing": "method3",
            "scale": 100,
            "average": "sentence",
            "sentence_round": 4,
        },
    },
    default_preset="sacrebleu",
    option_aliases={"tokenize": "tokenizer"},  # sacrebleu's name of the option
    stats_sizes=_sizes,
)


#: The configs of sentence-level calls without options, by preset: a one-pair call resolves none again.
_PLAIN_CONFIGS: dict[str | None, BLEUConfig] = {}


def _sentence_config(preset: str | None, options: dict[str, Any]) -> BLEUConfig:
    """The config of a sentence-level call: sacrebleu's ``sentence_bleu`` turns ``effective_order`` on."""
    plain = not options and (preset is None or type(preset) is str)
    if plain:
        hit = _PLAIN_CONFIGS.get(preset)
        if hit is not None:
            return hit
    cfg = BLEU.make_config(preset, **options)
    if cfg.convention == "sacrebleu" and "effective_order" not in options:
        cfg = BLEU.make_config(preset, **options, effective_order=True)  # sacrebleu.sentence_bleu's default
    if plain and len(_PLAIN_CONFIGS) < 64:
        _PLAIN_CONFIGS[preset] = cfg
    return cfg


bleu = BLEU.function(
    "bleu",
    __name__,
    """Corpus BLEU of ``predictions`` against ``references`` (one string or a list of strings per segment).

    ``preset`` picks the convention: ``"sacrebleu"`` (default, 0-100), ``"nltk"`` (0-1), ``"nltk-3.2"`` (0-1),
    ``"moses"`` (0-100); ``options`` are :class:`BLEUConfig` fields and win over the preset. ``segments=True``
    adds each segment's score (the same formula on the segment's statistics).

    >>> r = bleu(["the cat sat on the mat"], [["the cat is on the mat", "a cat sat on the mat"]])
    >>> round(r.score, 4), r.matches, r.totals
    (84.0896, (6, 5, 3, 2), (6, 5, 4, 3))
    >>> bleu(["a d a"], ["a b c"], preset="nltk").score  # NLTK 3.10's 1.38e-231
    1.384292958842266e-231
    >>> bleu(["a d a"], ["a b c"], preset="moses").score
    0.0
    """,
)


def sentence_bleu(
    prediction: str | Sequence[str],
    references: str | Sequence[str] | Sequence[str | Sequence[str]],
    *,
    preset: str | None = None,
    **options: Any,
) -> BLEUResult | tuple[BLEUResult, ...]:
    """Sentence BLEU with the sentence-level defaults of the preset's tool (sacrebleu: ``effective_order=True``,
    as ``sacrebleu.sentence_bleu``; NLTK's ``sentence_bleu`` is its ``corpus_bleu`` of one sentence).

    With one prediction (a string), ``references`` are that sentence's references (a string or a list) and one
    result is returned; with a list of predictions, ``references`` hold one entry per prediction and a tuple of
    results comes back, one per sentence.

    >>> round(sentence_bleu("the cat sat on the mat", ["the cat is on the mat"]).score, 4)
    37.9918
    >>> sentence_bleu("a d a", "a b c", preset="nltk-3.2").score  # exp(log(1/3) / 4)
    0.7598356856515925
    """
    cfg = _sentence_config(preset, options)
    if isinstance(prediction, str):
        batch = BLEU.batch_stats(*one_segment(prediction, references), cfg)
        return BLEU.finalize(batch.total(), cfg)
    batch = BLEU.batch_stats(prediction, references, cfg)
    return tuple(BLEU.finalize(s, cfg) for s in batch)
