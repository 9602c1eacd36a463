"""Every metric family by name, imported on first use (the table the evaluation runner and tests look up)."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from ..errors import unknown_option
from .base import Family

__all__ = ["FAMILIES", "IN_PROCESS", "get_family"]

FAMILIES: dict[str, str] = {
    "anls": "nlgmetrics.metrics.anls:ANLS",
    "anls_star": "nlgmetrics.metrics.anls_star:ANLS_STAR",
    "bertscore": "nlgmetrics.metrics.bertscore:BERTSCORE",
    "bleu": "nlgmetrics.metrics.bleu:BLEU",
    "cer": "nlgmetrics.metrics.edit:CER",
    "chrf": "nlgmetrics.metrics.chrf:CHRF",
    "edit_distance": "nlgmetrics.metrics.edit:EDIT_DISTANCE",
    "nls": "nlgmetrics.metrics.edit:NLS",
    "rouge": "nlgmetrics.metrics.rouge:ROUGE",
    "ter": "nlgmetrics.metrics.ter:TER",
    "wer": "nlgmetrics.metrics.edit:WER",
}

#: Families whose kernel holds a large model: the runner keeps them in the main process (one model load)
#: instead of shipping them to worker processes.
IN_PROCESS = frozenset({"bertscore"})


@cache
def get_family(name: str) -> Family[Any, Any, Any]:
    """The family registered under ``name`` (``"bleu"``, ``"rouge"``, ``"anls"``, …)."""
    key = name.replace("-", "_").lower()
    if key not in FAMILIES:
        raise unknown_option("metric", name, list(FAMILIES))
    module, _, attr = FAMILIES[key].partition(":")
    family: Family[Any, Any, Any] = getattr(importlib.import_module(module), attr)
    return family
