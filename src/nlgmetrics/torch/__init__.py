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
from ..metrics.bertscore import BERTSCORE as _BERTSCORE
from ..metrics.bleu import BLEU as _BLEU
from ..metrics.chrf import CHRF as _CHRF
from ..metrics.edit import CER as _CER
from ..metrics.edit import EDIT_DISTANCE as _EDIT_DISTANCE
from ..metrics.edit import NLS as _NLS
from ..metrics.edit import WER as _WER
from ..metrics.rouge import ROUGE as _ROUGE
from ..metrics.ter import TER as _TER
from .adapter import TorchMetric, torch_metric
from .distributed import all_reduce_stats, sync_metric

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
BERTScore = torch_metric(
    _BERTSCORE,
    "BERTScore",
    higher_is_better=True,
    doc="torchmetrics :func:`nlgmetrics.bertscore` (bert-score's numbers). With ``idf=True``, give "
    "``idf_references=`` or ``idf_weights=`` up front.",
)
BLEU = torch_metric(
    _BLEU,
    "BLEU",
    higher_is_better=True,
    plot_bounds=(0.0, None),
    doc='torchmetrics :func:`nlgmetrics.bleu`. Presets ``"sacrebleu"`` (default, 0-100), ``"nltk"`` (0-1), '
    '``"nltk-3.2"``, ``"moses"``.',
)
CHRF = torch_metric(
    _CHRF,
    "CHRF",
    higher_is_better=True,
    plot_bounds=(0.0, 100.0),
    doc="torchmetrics :func:`nlgmetrics.chrf` (chrF / chrF++), sacrebleu's numbers.",
)
TER = torch_metric(
    _TER,
    "TER",
    higher_is_better=False,
    plot_bounds=(0.0, None),
    doc="torchmetrics :func:`nlgmetrics.ter`, sacrebleu's numbers.",
)
ROUGE = torch_metric(
    _ROUGE,
    "ROUGE",
    higher_is_better=True,
    plot_bounds=(0.0, 1.0),
    doc="torchmetrics :func:`nlgmetrics.rouge`: ``compute()`` returns ``{'rouge1_fmeasure': ..., 'rouge1_precision': "
    "..., 'rouge1_recall': ..., ...}`` (torchmetrics' ``ROUGEScore`` keys). Presets ``\"rouge-score\"``, "
    '``"rouge155"``, ``"rouge155-empty-db"``.',
)
