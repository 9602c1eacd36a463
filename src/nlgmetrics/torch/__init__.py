"""torchmetrics adapters and distributed helpers (extra ``[torch]``): the only part of nlgmetrics that imports torch.

Every class here is the generic :class:`TorchMetric` bound to one family; the numbers are those of the functional
API. States are float64 sums with ``dist_reduce_fx="sum"``, so DDP just adds them.

>>> from nlgmetrics.torch import NormalizedLevenshteinSimilarity
>>> m = NormalizedLevenshteinSimilarity(reduction=None)
>>> m(["rain", "lnaguaeg"], ["shine", "language"])
tensor([0.4000, 0.5000], dtype=torch.float64)
>>> NormalizedLevenshteinSimilarity()(["rain", "lnaguaeg"], ["shine", "language"])
tensor(0.4500, dtype=torch.float64)
"""

from __future__ import annotations

from ..errors import MissingDependencyError

try:
    import torch  # noqa: F401
    import torchmetrics  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised in a subprocess by the tests
    raise MissingDependencyError("nlgmetrics.torch", "pip install 'nlgmetrics[torch]'") from err

from ..metrics.anls import ANLS as _ANLS
from ..metrics.anls_star import ANLS_STAR as _ANLS_STAR
from ..metrics.edit import CER as _CER
from ..metrics.edit import EDIT_DISTANCE as _EDIT_DISTANCE
from ..metrics.edit import NLS as _NLS
from ..metrics.edit import WER as _WER
from .adapter import TorchMetric, torch_metric
from .distributed import all_reduce_stats, sync_metric

__all__ = [
    "ANLS",
    "ANLSStar",
    "CharErrorRate",
    "EditDistance",
    "NormalizedLevenshteinSimilarity",
    "TorchMetric",
    "WordErrorRate",
    "all_reduce_stats",
    "sync_metric",
    "torch_metric",
]

NormalizedLevenshteinSimilarity = torch_metric(
    _NLS,
    "NormalizedLevenshteinSimilarity",
    higher_is_better=True,
    plot_bounds=(0.0, 1.0),
    doc="torchmetrics :func:`nlgmetrics.nls`. Options: ``substitution_cost``, ``reduction``.",
)
EditDistance = torch_metric(
    _EDIT_DISTANCE,
    "EditDistance",
    higher_is_better=False,
    plot_bounds=(0.0, None),
    doc="torchmetrics :func:`nlgmetrics.edit_distance` (exact Levenshtein). Options: ``substitution_cost``, "
    "``reduction``.",
)
CharErrorRate = torch_metric(
    _CER,
    "CharErrorRate",
    higher_is_better=False,
    plot_bounds=(0.0, None),
    doc="torchmetrics :func:`nlgmetrics.cer` (identical to ``jiwer.cer``).",
)
WordErrorRate = torch_metric(
    _WER,
    "WordErrorRate",
    higher_is_better=False,
    plot_bounds=(0.0, None),
    doc="torchmetrics :func:`nlgmetrics.wer` (identical to ``jiwer.wer``).",
)
ANLS = torch_metric(
    _ANLS,
    "ANLS",
    higher_is_better=True,
    plot_bounds=(0.0, 1.0),
    doc='torchmetrics :func:`nlgmetrics.anls`. Presets ``"docvqa"`` (default) and ``"anls-pkg"``.',
)
ANLSStar = torch_metric(
    _ANLS_STAR,
    "ANLSStar",
    higher_is_better=True,
    plot_bounds=(0.0, 1.0),
    doc="torchmetrics :func:`nlgmetrics.anls_star` (structured predictions and ground truths).",
)
