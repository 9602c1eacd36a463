"""nlgmetrics: scores generated text against references, reproducing the reference tools exactly.

The public API is imported lazily, so ``import nlgmetrics`` is cheap and optional dependencies are imported
only by the metrics that need them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    # functional API
    "anls": "nlgmetrics.functional",
    "cer": "nlgmetrics.functional",
    "edit_distance": "nlgmetrics.functional",
    "nls": "nlgmetrics.functional",
    "wer": "nlgmetrics.functional",
    "anls_star": "nlgmetrics.metrics.anls_star",
    "bertscore": "nlgmetrics.metrics.bertscore",
    "bertscore_idf": "nlgmetrics.metrics.bertscore",
    "bertscore_heatmap": "nlgmetrics.plot",
    "bleu": "nlgmetrics.metrics.bleu",
    "sentence_bleu": "nlgmetrics.metrics.bleu",
    "chrf": "nlgmetrics.metrics.chrf",
    "sentence_chrf": "nlgmetrics.metrics.chrf",
    "ter": "nlgmetrics.metrics.ter",
    "sentence_ter": "nlgmetrics.metrics.ter",
    "rouge": "nlgmetrics.metrics.rouge",
    "bootstrap_ci": "nlgmetrics.metrics.significance",
    "paired_bootstrap": "nlgmetrics.metrics.significance",
    "paired_approximate_randomization": "nlgmetrics.metrics.significance",
    # stateful metrics
    "ANLS": "nlgmetrics.stateful",
    "ANLSStar": "nlgmetrics.stateful",
    "BERTScore": "nlgmetrics.stateful",
    "BLEU": "nlgmetrics.stateful",
    "CHRF": "nlgmetrics.stateful",
    "ROUGE": "nlgmetrics.stateful",
    "TER": "nlgmetrics.stateful",
    "CharErrorRate": "nlgmetrics.stateful",
    "EditDistance": "nlgmetrics.stateful",
    "Metric": "nlgmetrics.stateful",
    "NormalizedLevenshteinSimilarity": "nlgmetrics.stateful",
    "WordErrorRate": "nlgmetrics.stateful",
    # errors
    "InvalidInputError": "nlgmetrics.errors",
    "MissingDependencyError": "nlgmetrics.errors",
    "NlgMetricsError": "nlgmetrics.errors",
    "UnknownOptionError": "nlgmetrics.errors",
    # plumbing
    "Stats": "nlgmetrics.stats",
    "StatsBatch": "nlgmetrics.stats",
}

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
    "InvalidInputError",
    "Metric",
    "MissingDependencyError",
    "NlgMetricsError",
    "NormalizedLevenshteinSimilarity",
    "Stats",
    "StatsBatch",
    "UnknownOptionError",
    "WordErrorRate",
    "__version__",
    "anls",
    "anls_star",
    "bertscore",
    "bertscore_heatmap",
    "bertscore_idf",
    "bleu",
    "bootstrap_ci",
    "cer",
    "chrf",
    "edit_distance",
    "nls",
    "paired_approximate_randomization",
    "paired_bootstrap",
    "rouge",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_ter",
    "ter",
    "wer",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nlgmetrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover
    from .errors import InvalidInputError, MissingDependencyError, NlgMetricsError, UnknownOptionError
    from .functional import anls, cer, edit_distance, nls, wer
    from .metrics.anls_star import anls_star
    from .metrics.bertscore import bertscore, bertscore_idf
    from .metrics.bleu import bleu, sentence_bleu
    from .metrics.chrf import chrf, sentence_chrf
    from .metrics.rouge import rouge
    from .metrics.significance import bootstrap_ci, paired_approximate_randomization, paired_bootstrap
    from .metrics.ter import sentence_ter, ter
    from .plot import bertscore_heatmap
    from .stateful import (
        ANLS,
        BLEU,
        CHRF,
        ROUGE,
        TER,
        ANLSStar,
        BERTScore,
        CharErrorRate,
        EditDistance,
        Metric,
        NormalizedLevenshteinSimilarity,
        WordErrorRate,
    )
    from .stats import Stats, StatsBatch
