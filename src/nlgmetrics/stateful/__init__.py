"""Stateful metrics: ``update`` / ``compute`` / ``reset`` / ``merge`` / ``state_dict``, no torch needed.

Each class is the generic :class:`Metric` bound to one family; none of them holds a formula of its own.

>>> from nlgmetrics import NormalizedLevenshteinSimilarity
>>> m = NormalizedLevenshteinSimilarity(reduction=None)
>>> m.update(["rain", "lnaguaeg"], ["shine", "language"])
>>> m.compute().score
(0.4, 0.5)
"""

from __future__ import annotations

from typing import Any

from ..metrics.anls import ANLS as _ANLS
from ..metrics.anls_star import ANLS_STAR as _ANLS_STAR
from ..metrics.bertscore import BERTSCORE as _BERTSCORE
from ..metrics.bleu import BLEU as _BLEU
from ..metrics.chrf import CHRF as _CHRF
from ..metrics.edit import CER as _CER
from ..metrics.edit import EDIT_DISTANCE as _EDIT
from ..metrics.edit import NLS as _NLS
from ..metrics.edit import WER as _WER
from ..metrics.rouge import ROUGE as _ROUGE
from ..metrics.ter import TER as _TER
from .metric import Metric

__all__ = [
    "ANLS",
    "BLEU",
    "CHRF",
    "ROUGE",
    "TER",
    "ANLSStar",
    "BERTScore",
    "CharErrorRate",
    "EditDistance",
    "Metric",
    "NormalizedLevenshteinSimilarity",
    "WordErrorRate",
]


class NormalizedLevenshteinSimilarity(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.nls`. Options: ``substitution_cost``, ``reduction``."""

    family = _NLS


class EditDistance(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.edit_distance`. Options: ``substitution_cost``, ``reduction``."""

    family = _EDIT


class CharErrorRate(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.cer`."""

    family = _CER


class WordErrorRate(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.wer`."""

    family = _WER


class ANLS(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.anls`. Presets ``"docvqa"`` (default) and ``"anls-pkg"``."""

    family = _ANLS


class ANLSStar(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.anls_star` (structured predictions and ground truths)."""

    family = _ANLS_STAR


class BERTScore(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.bertscore`. With ``idf=True``, give the weights up front: ``idf_references=``
    (the reference corpus) or ``idf_weights=`` (:func:`nlgmetrics.bertscore_idf`)."""

    family = _BERTSCORE


class BLEU(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.bleu`. Presets ``"sacrebleu"`` (default), ``"nltk"``, ``"nltk-3.2"``,
    ``"moses"``; NLTK's last-sentence smoothing (methods 5-7) follows the order of ``update`` calls."""

    family = _BLEU


class CHRF(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.chrf` (chrF, or chrF++ with ``word_order=2``), sacrebleu's numbers."""

    family = _CHRF


class TER(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.ter`, sacrebleu's numbers (lower is better)."""

    family = _TER


class ROUGE(Metric[Any, Any, Any]):
    """Stateful :func:`nlgmetrics.rouge`. Presets ``"rouge-score"``, ``"rouge155"``, ``"rouge155-empty-db"``;
    ``compute().score`` maps each type to its mean F."""

    family = _ROUGE
