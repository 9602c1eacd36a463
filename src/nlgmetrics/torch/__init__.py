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

import importlib
from typing import TYPE_CHECKING, Any

from ..errors import MissingDependencyError

try:
    import torch  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised in a subprocess by the tests
    raise MissingDependencyError("nlgmetrics.torch", "pip install 'nlgmetrics[torch]'") from err

from ..metrics.catalog import CATALOG, get_family

if TYPE_CHECKING:
    from .adapter import TorchMetric, torch_metric
    from .distributed import all_reduce_stats, sync_metric

#: Imported on first use: the BERTScore kernel (``nlgmetrics.torch.bertscore``) needs torch but not torchmetrics,
#: whose import costs as much as torch's own, so ``nlgmetrics.bertscore`` neither pays for it nor needs it installed.
_LAZY = {
    "TorchMetric": ".adapter",
    "torch_metric": ".adapter",
    "all_reduce_stats": ".distributed",
    "sync_metric": ".distributed",
}


def _submodule(name: str) -> Any:
    try:
        return importlib.import_module(name, __name__)
    except ImportError as err:
        if isinstance(err, MissingDependencyError):
            raise
        raise MissingDependencyError("nlgmetrics.torch", "pip install 'nlgmetrics[torch]'") from err


#: Families whose adapter is a class of its own: BERTScore takes torchmetrics' arguments and returns its dict of
#: one value per sentence (:mod:`nlgmetrics.torch._bertscore`).
_OWN_CLASSES = {"bertscore": ("._bertscore", "bertscore_class")}

#: torchmetrics' own class names, served with its arguments, output types and numbers by
#: :mod:`nlgmetrics.torch.names` (imported on first use; a test checks that both list the same names).
TORCHMETRICS_NAMES = (
    "BLEUScore",
    "CHRFScore",
    "CharErrorRate",
    "ExtendedEditDistance",
    "MatchErrorRate",
    "ROUGEScore",
    "SacreBLEUScore",
    "TranslationEditRate",
    "WordErrorRate",
    "WordInfoLost",
    "WordInfoPreserved",
)
#: the catalogue's adapters, by family (a family whose class name torchmetrics also uses keeps its own adapter here:
#: ``nlgmetrics.torch.MatchErrorRate`` is torchmetrics' numbers, ``torch_class("mer")`` the family's default preset)
_ADAPTERS: dict[str, Any] = {}

__all__ = [
    "TorchMetric",
    "all_reduce_stats",
    "sync_metric",
    "torch_metric",
    "torch_class",
    *sorted({*(e.cls for e in CATALOG.values() if e.cls), *TORCHMETRICS_NAMES}),
]


def torch_class(name: str) -> type[TorchMetric]:
    """The torchmetrics adapter of catalogue family ``name`` (one class object per family, built once)."""
    entry = CATALOG[name]
    if entry.cls is None:
        raise AttributeError(f"the {name} family has no torchmetrics adapter")
    existing = _ADAPTERS.get(name)
    if existing is not None:
        return existing  # type: ignore[no-any-return]
    if name in _OWN_CLASSES:  # torchmetrics' arguments and output on top of the adapter
        module, builder = _OWN_CLASSES[name]
        cls = getattr(_submodule(module), builder)()
        globals()[entry.cls] = cls
        return cls  # type: ignore[no-any-return]
    family = get_family(name)
    function = entry.functions[0] if entry.functions else name
    # a name torchmetrics' table also serves is bound here under another one (``MatchErrorRate_mer``): the class
    # pickles (DDP spawn, deepcopy) by the name it is found under in this module
    qualname = entry.cls if entry.cls not in TORCHMETRICS_NAMES else f"{entry.cls}_{name}"
    cls = _submodule(".adapter").torch_metric(
        family,
        qualname,
        higher_is_better=family.higher_is_better,
        plot_bounds=family.bounds,
        doc=f"torchmetrics :func:`nlgmetrics.{function}`: {entry.help}.",
        module=__name__,
    )
    _ADAPTERS[name] = cls
    globals()[qualname] = cls
    return cls


def __getattr__(attr: str) -> Any:
    if attr in TORCHMETRICS_NAMES:  # torchmetrics' names, arguments and numbers (see nlgmetrics.torch.names)
        cls = _submodule(".names").torchmetrics_class(attr)
        globals()[attr] = cls
        return cls
    if attr in _LAZY:
        value = getattr(_submodule(_LAZY[attr]), attr)
        globals()[attr] = value
        return value
    for name, entry in CATALOG.items():
        if entry.cls == attr or (entry.cls in TORCHMETRICS_NAMES and attr == f"{entry.cls}_{name}"):
            return torch_class(name)
    raise AttributeError(f"module 'nlgmetrics.torch' has no attribute {attr!r}")


def __dir__() -> list[str]:
    return __all__
