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
from ..metrics.edit import CER as _CER
from ..metrics.edit import EDIT_DISTANCE as _EDIT
from ..metrics.edit import NLS as _NLS
from ..metrics.edit import WER as _WER
from .metric import Metric

__all__ = [
    "ANLS",
    "ANLSStar",
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
