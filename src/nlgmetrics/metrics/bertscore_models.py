"""Moved to :mod:`nlgmetrics.metrics.bertscore.models` (BERTScore's tables and baselines) and
:mod:`nlgmetrics.engine.hub` (finding and loading a model, offline first); the names stay importable here."""

from __future__ import annotations

from .bertscore.models import *  # noqa: F403
from .bertscore.models import __all__ as __all__
