"""The compiled kernels, ``nlgmetrics._native`` (C++, built by ``pip install``), loaded on first use.

A copy of nlgmetrics whose kernels were not built (or were built for another Python) raises
:class:`~nlgmetrics.errors.MissingExtensionError`, which says how to rebuild them, instead of failing deep inside a
metric.
"""

from __future__ import annotations

from types import ModuleType

from ..errors import MissingExtensionError

__all__ = ["native"]

_MODULE: ModuleType | None = None


def native() -> ModuleType:
    """The ``nlgmetrics._native`` module."""
    global _MODULE
    if _MODULE is None:
        try:
            from .. import _native
        except ImportError as err:
            raise MissingExtensionError(str(err)) from err
        _MODULE = _native
    return _MODULE
