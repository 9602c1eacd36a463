"""The compiled kernels, ``nlgmetrics._native`` (C++, built by ``pip install``), loaded on first use.

The build treats them as optional: where no C++ compiler is at hand, ``pip install`` still installs the package.
Such a copy (or one whose kernels were built for another Python) then works without them wherever a kernel is only a
shortcut (the small-batch BLEU and chrF counters: their batches take the numpy path of large batches instead), and
raises :class:`~nlgmetrics.errors.MissingExtensionError`, which says how to build them, where the kernel is the only
implementation (ROUGE), instead of failing deep inside a metric.
"""

from __future__ import annotations

from types import ModuleType

from ..errors import MissingExtensionError

__all__ = ["has_native", "native"]

_MODULE: ModuleType | None = None
_MISSING: str | None = None


def native() -> ModuleType:
    """The ``nlgmetrics._native`` module."""
    global _MODULE, _MISSING
    if _MODULE is None:
        try:
            from .. import _native  # type: ignore[attr-defined]  # the compiled module has no stub
        except ImportError as err:
            _MISSING = str(err)
            raise MissingExtensionError(_MISSING) from err
        _MODULE = _native
    return _MODULE


def has_native() -> bool:
    """Whether the compiled kernels can be loaded (tried once)."""
    if _MODULE is not None:
        return True
    if _MISSING is not None:
        return False
    try:
        native()
    except MissingExtensionError:
        return False
    return True
