"""nlgmetrics: scores generated text against references, reproducing the reference tools exactly.

The public API is imported lazily, so ``import nlgmetrics`` is cheap and optional dependencies are imported
only by the metrics that need them. Every metric function and class comes from the catalogue
(:mod:`nlgmetrics.metrics.catalog`): a family's functions from its module, its stateful class from
:mod:`nlgmetrics.stateful`.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._version import __version__ as __version__
from .metrics.catalog import CATALOG

#: Public names that are not a catalogued metric's function or class.
_OTHER_EXPORTS = {
    "bertscore_heatmap": "nlgmetrics.plot",
    "bootstrap_ci": "nlgmetrics.metrics.significance",
    "load": "nlgmetrics.hf",
    "combine": "nlgmetrics.hf",
    "paired_bootstrap": "nlgmetrics.metrics.significance",
    "paired_approximate_randomization": "nlgmetrics.metrics.significance",
    "Metric": "nlgmetrics.stateful",
    "InvalidInputError": "nlgmetrics.errors",
    "MissingDependencyError": "nlgmetrics.errors",
    "ExternalToolError": "nlgmetrics.errors",
    "NlgMetricsError": "nlgmetrics.errors",
    "UnknownOptionError": "nlgmetrics.errors",
    "Stats": "nlgmetrics.stats",
    "Inputs": "nlgmetrics.tables",
    "read_table": "nlgmetrics.tables",
    "read_lm_eval": "nlgmetrics.eval_logs",
    "read_lighteval": "nlgmetrics.eval_logs",
    "LoggedAnswers": "nlgmetrics.eval_logs",
    "write_table": "nlgmetrics.tables",
    "StatsBatch": "nlgmetrics.stats",
}


def _exports() -> dict[str, str]:
    out = dict(_OTHER_EXPORTS)
    for entry in CATALOG.values():
        for fn in entry.functions:
            out[fn] = entry.module
        if entry.cls:
            out[entry.cls] = "nlgmetrics.stateful"
    return out


_EXPORTS = _exports()

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name) or _exports().get(name)  # or a family added to the catalogue after import
    if module is None:
        raise AttributeError(f"module 'nlgmetrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
