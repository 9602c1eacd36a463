"""The in-memory cache of reference indexes, kept apart from :mod:`nlgmetrics.algorithms.ngrams` (which imports
numpy) so that a metric module can hold its cache without importing numpy: a fresh process scoring a corpus on the
compiled counters never needs it."""

from __future__ import annotations

import collections
import sys
from _thread import allocate_lock  # threading.Lock itself, without importing threading (a few ms)
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["ReferenceCache", "disk_cache_set"]


class ReferenceCache:
    """A small least-recently-used cache of reference indexes, keyed by everything they depend on (the
    references themselves and the settings that change their tokens). Scoring several systems against the same
    references then extracts the references' n-grams once, as sacrebleu's ``references=`` argument does.

    Only memory: the index is rebuilt from the tokens, which
    :func:`~nlgmetrics.algorithms.ngrams.stored_vocabulary_streams` can keep on disk."""

    def __init__(self, maxsize: int = 4) -> None:
        self.maxsize = maxsize
        self._items: collections.OrderedDict[Hashable, Any] = collections.OrderedDict()
        self._lock = allocate_lock()

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = build()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


def disk_cache_set() -> bool:
    """Whether a cache directory for tokenised references is set
    (:func:`~nlgmetrics.algorithms.ngrams.persist_reference_indexes`). It is set through that module, so while the
    module is not imported none is, and asking does not import it (nor numpy)."""
    ngrams = sys.modules.get(f"{__package__}.ngrams")
    return ngrams is not None and ngrams._DISK_DIR is not None
