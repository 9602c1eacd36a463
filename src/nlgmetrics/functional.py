"""The functional API: one call scores a whole corpus.

Each function lives in its family's module (``nlgmetrics.metrics.<family>``) and is listed in the catalogue; this
module re-exports every one of them, so ``from nlgmetrics.functional import bleu`` works as ``nlgmetrics.bleu``
does. Argument order is always ``(predictions, references)``; references are per segment, a string or a list of
strings.
"""

from __future__ import annotations

from .metrics.catalog import CATALOG, lazy_module


def _functions() -> dict[str, str]:
    return {fn: entry.module for entry in CATALOG.values() for fn in entry.functions}


__all__ = sorted(_functions())


__getattr__, __dir__ = lazy_module("nlgmetrics.functional", lambda n: _functions().get(n), globals(), __all__)
