"""nlgmetrics: scores generated text against references, reproducing the reference tools exactly.

The public API is imported lazily, so ``import nlgmetrics`` is cheap and optional dependencies are imported
only by the metrics that need them. Every metric function and class comes from the catalogue
(:mod:`nlgmetrics.metrics.catalog`): a family's functions from its module, its stateful class from
:mod:`nlgmetrics.stateful`.
"""

from __future__ import annotations

from ._version import __version__ as __version__
from .metrics.catalog import CATALOG, lazy_module

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


# a name not in _EXPORTS may be a family added to the catalogue after import
__getattr__, __dir__ = lazy_module("nlgmetrics", lambda n: _EXPORTS.get(n) or _exports().get(n), globals(), __all__)
