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

from typing import Any

from ..metrics.catalog import CATALOG, get_family
from .adapter import TorchMetric, torch_metric
from .distributed import all_reduce_stats, sync_metric
from .names import TORCHMETRICS_NAMES, torchmetrics_class

__all__ = [
    "TorchMetric",
    "all_reduce_stats",
    "sync_metric",
    "torch_metric",
    *sorted(e.cls for e in CATALOG.values() if e.cls),
    *sorted(TORCHMETRICS_NAMES),
]


def torch_class(name: str) -> type[TorchMetric]:
    """The torchmetrics adapter of catalogue family ``name`` (one class object per family, built once)."""
    entry = CATALOG[name]
    if entry.cls is None:
        raise AttributeError(f"the {name} family has no torchmetrics adapter")
    existing = globals().get(entry.cls)
    if existing is not None:
        return existing  # type: ignore[no-any-return]
    family = get_family(name)
    function = entry.functions[0] if entry.functions else name
    cls = torch_metric(
        family,
        entry.cls,
        higher_is_better=family.higher_is_better,
        plot_bounds=family.bounds,
        doc=f"torchmetrics :func:`nlgmetrics.{function}`: {entry.help}.",
        module=__name__,
    )
    globals()[entry.cls] = cls
    return cls


def __getattr__(attr: str) -> Any:
    if attr in TORCHMETRICS_NAMES:  # torchmetrics' names, arguments and numbers (see nlgmetrics.torch.names)
        cls = torchmetrics_class(attr)
        globals()[attr] = cls
        return cls
    for name, entry in CATALOG.items():
        if entry.cls == attr:
            return torch_class(name)
    raise AttributeError(f"module 'nlgmetrics.torch' has no attribute {attr!r}")


def __dir__() -> list[str]:
    return __all__
