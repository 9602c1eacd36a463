"""numpy on demand: the modules a small call goes through import numpy only where a path needs it.

A value can be a numpy object only once numpy has been imported, so a type check against numpy's types asks
:func:`loaded` first and never imports numpy itself. A call that scores a few short pairs (or a whole corpus of
edit-distance pairs) then runs without numpy, whose import costs more than the call (tens of milliseconds).
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["is_array", "is_numpy_bool", "is_numpy_number", "loaded"]


def loaded() -> Any:
    """The numpy module if something has imported it already, else ``None``."""
    return sys.modules.get("numpy")


def is_array(value: Any) -> bool:
    """Whether ``value`` is a ``numpy.ndarray`` (without importing numpy)."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.ndarray)


def is_numpy_bool(value: Any) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.bool_)


def is_numpy_number(value: Any, kinds: str = "if") -> bool:
    """Whether ``value`` is a numpy scalar integer (``"i"`` in ``kinds``) or floating (``"f"``) value."""
    np = sys.modules.get("numpy")
    if np is None:
        return False
    return ("i" in kinds and isinstance(value, np.integer)) or ("f" in kinds and isinstance(value, np.floating))
