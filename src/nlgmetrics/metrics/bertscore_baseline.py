"""Moved to :mod:`nlgmetrics.metrics.bertscore.baseline`; the names stay importable here."""

from __future__ import annotations

from .bertscore.baseline import *  # noqa: F403
from .bertscore.baseline import __all__ as __all__
