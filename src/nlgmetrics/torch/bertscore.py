"""Moved to :mod:`nlgmetrics.metrics.bertscore.head` (BERTScore's head: the cut model and greedy matching on the
device) and :mod:`nlgmetrics.engine` (tokenising, batching, devices); the names stay importable here."""

from __future__ import annotations

from ..metrics.bertscore.head import *  # noqa: F403
from ..metrics.bertscore.head import __all__ as __all__
