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
    # stateful metrics
    "ANLS": "nlgmetrics.stateful",
    "ANLSStar": "nlgmetrics.stateful",
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
    "ANLSStar",
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
    "cer",
    "edit_distance",
    "nls",
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
    from .stateful import (
        ANLS,
        ANLSStar,
        CharErrorRate,
        EditDistance,
        Metric,
        NormalizedLevenshteinSimilarity,
        WordErrorRate,
    )
    from .stats import Stats, StatsBatch
