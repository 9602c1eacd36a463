"""METEOR, two families with a module each, loaded on first use:

* :mod:`nlgmetrics.metrics.meteor.nltk`: ``meteor`` and ``sentence_meteor``, NLTK 3.10's METEOR;
* :mod:`nlgmetrics.metrics.meteor.v15`: ``meteor15``, METEOR 1.5 as pycocoevalcap 1.2 runs it, through its jar
  (:mod:`nlgmetrics.metrics.meteor.jar`).

This path was the NLTK family's module, and its names are still served from here (``METEOR``, ``meteor``, ...):
looked up on first use, so that the METEOR 1.5 family, and COCO with it, loads neither NLTK METEOR's stemmer nor
its WordNet.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .nltk import *  # noqa: F403  (the names, for type checkers and editors)


def __getattr__(name: str) -> Any:
    """A name of the NLTK family's module (its ``__all__`` included), imported on first use."""
    try:
        return getattr(importlib.import_module(".nltk", __name__), name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
