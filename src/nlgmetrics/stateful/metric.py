"""The generic stateful metric: a running sum of a family's statistics. No torch needed.

``update()`` adds a batch's statistics, ``compute()`` applies the family's formula to the sum, ``merge()`` adds
the state of other instances (of the same configuration), and ``state_dict()``/``load_state_dict()`` make the
state portable. Because statistics add, ``merge`` is the only reduction needed: batching, the order of merges
and the number of workers do not change the result.
"""

from __future__ import annotations

import dataclasses
import math
import os
import threading
import weakref
from typing import Any, ClassVar, Generic, TypeVar

from ..errors import InvalidInputError, warn
from ..metrics.base import Family, Result
from ..signature import same_settings
from ..stats import Stats, StatsBatch

__all__ = ["Metric"]

C = TypeVar("C")
S = TypeVar("S", bound=Stats)
R = TypeVar("R", bound=Result)


class Metric(Generic[C, S, R]):
    """Stateful metric over a :class:`~nlgmetrics.metrics.base.Family`.

    Subclasses only set ``family``. ``keep_segments=True`` keeps per-segment statistics so that
    ``compute()`` also returns per-segment scores; it is switched on automatically for ``reduction=None``.

    One instance may be shared between threads: ``update``, ``merge``, ``compute``, ``reset`` and the state
    methods take the instance's lock around the state (the statistics of a batch are computed outside it, so
    threads still score in parallel where the kernel releases the GIL), and no update is ever lost. A process
    forked while another thread holds that lock (inside ``update``) gets a fresh lock in the child
    (``os.register_at_fork``), so the child never waits for a thread it does not have; it has the state as the
    fork found it.

    ``compute()`` before any segment was added (after construction or ``reset()``) warns and returns the
    formula on empty statistics (a score of 0; WIP's formula gives 1), for every metric alike.
    """

    family: ClassVar[Family[Any, Any, Any]]

    def __init__(self, preset: str | None = None, *, keep_segments: bool = False, **options: Any) -> None:
        self.config: C = self.family.make_config(preset, **options)
        self.keep_segments = keep_segments or self.family.needs_segments(self.config)
        self._lock = threading.RLock()
        _INSTANCES.add(self)
        self.reset()

    # ------------------------------------------------------------------ pickling (the lock stays behind)
    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()
        _INSTANCES.add(self)

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        with self._lock:
            self._total: S = self.family.zero(self.config)
            # the totals of updates not yet added in (families with carried tables: they are merged at once when
            # the total is read, so that many updates cost what one does)
            self._pending: list[S] = []
            self._segments: list[StatsBatch[S]] = []
            self._count = 0

    def _add_total(self, total: S) -> None:
        """Add ``total`` to the running sum (under the lock)."""
        if self.family.stats_cls.carried_fields:
            self._pending.append(total)
        else:
            self._total = self._total + total

    def _settled(self) -> S:
        """The running sum with every pending update added in (under the lock)."""
        if self._pending:
            self._total = self.family.stats_cls.sum_of([self._total, *self._pending])
            self._pending = []
        return self._total

    def update(self, predictions: Any, references: Any = None, *, sources: Any = None, **inputs: Any) -> None:
        """Add the statistics of a batch. An empty batch is allowed and changes nothing. ``sources`` only for a
        family that has them (SARI), further keyword inputs only for a family that declares them (perplexity's
        ``num_bytes``, SQuAD's ``na_probs``)."""
        batch = self.family.batch_stats(
            predictions, references, self.config, allow_empty=True, sources=sources, **inputs
        )
        self._add_batch(batch)

    def _add_batch(self, batch: StatsBatch[S]) -> None:
        if len(batch) == 0:
            return
        total = batch.total()
        with self._lock:
            self._add_total(total)
            self._count += len(batch)
            if self.keep_segments:
                self._segments.append(batch)

    def forward(self, predictions: Any, references: Any = None, *, sources: Any = None, **inputs: Any) -> R:
        """Update with a batch and return that batch's own result (torchmetrics' ``forward`` semantics)."""
        batch = self.family.batch_stats(
            predictions, references, self.config, allow_empty=True, sources=sources, **inputs
        )
        self._add_batch(batch)
        return self.family.finalize(batch.total(), self.config, batch if self.keep_segments else None)

    __call__ = forward

    def compute(self) -> R:
        """The result over everything seen since the last ``reset()``. With no segment seen, a warning and the
        score of empty statistics (0)."""
        with self._lock:
            total, parts, count = self._settled(), list(self._segments), self._count
        if count == 0:
            warn(
                f"{type(self).__name__}.compute() was called before any segment was added (no update() since "
                "construction or reset()): the score is that of empty statistics"
            )
        batch = None
        if self.keep_segments:
            batch = StatsBatch.concat(parts, self.family.stats_cls) if parts else self.family.empty_batch(self.config)
        return self.family.finalize(total, self.config, batch)

    @property
    def stats(self) -> S:
        """The summed statistics so far."""
        with self._lock:
            return self._settled()

    @property
    def count(self) -> int:
        """How many segments were added since the last ``reset()``."""
        with self._lock:
            return self._count

    def merge(self, *others: Metric[C, S, R]) -> Metric[C, S, R]:
        """Add the states of ``others`` (of the same class and configuration, each a possible sum of its
        segments) into this metric, in place, and return it."""
        for other in others:
            if not isinstance(other, Metric) or type(other) is not type(self):
                raise InvalidInputError(
                    f"cannot merge {type(other).__name__} into {type(self).__name__}: merge takes metrics of the same "
                    f"class ({type(self).__name__}) and configuration"
                )
            if other.config != self.config:
                raise InvalidInputError(
                    f"cannot merge {type(other).__name__}({other.config}) into {type(self).__name__}({self.config}): "
                    "the configurations differ"
                )
            if self.keep_segments and not other.keep_segments:
                raise InvalidInputError("cannot merge a metric without per-segment state into one that keeps it")
            with other._lock:  # a snapshot of the other; never both locks at once (no lock-order deadlock)
                total, parts, count = other._settled(), list(other._segments), other._count
            self._check_total(total, count, f"the state of the merged {type(other).__name__}")
            with self._lock:
                self._add_total(total)
                self._count += count
                if self.keep_segments:
                    self._segments.extend(parts)
        return self

    # ------------------------------------------------------------------ portability
    def state_dict(self) -> dict[str, Any]:
        """The state as plain Python data: config, summed statistics, the number of segments and (if kept)
        per-segment columns."""
        with self._lock:
            total, parts, count = self._settled(), list(self._segments), self._count
        schema = self.family.schema(self.config)
        state: dict[str, Any] = {
            "family": self.family.name,
            "config": dataclasses.asdict(self.config),  # type: ignore[call-overload]
            "signature": self.family.config_signature(self.config),
            "stats": schema.to_json(total),
            "count": count,
        }
        if self.keep_segments:
            batch = StatsBatch.concat(parts, self.family.stats_cls) if parts else schema.empty_batch()
            state["segments"] = schema.columns_to_json(batch)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Replace the state with one from :meth:`state_dict`. Everything is checked first (family, config and
        signature, field names, types, lengths, shapes, signs, finiteness, and that the statistics are a possible
        sum of ``count`` segments: :meth:`~nlgmetrics.stats.Stats.inconsistency`, per segment too, and that the
        segments add up to the total); a bad state raises :class:`~nlgmetrics.errors.InvalidInputError` naming
        what is wrong and leaves this metric unchanged."""
        if not isinstance(state, dict):
            raise InvalidInputError(f"a state must be a dict from state_dict(), got {type(state).__name__}")
        if state.get("family") != self.family.name:
            raise InvalidInputError(f"state of {state.get('family')!r} cannot be loaded into {self.family.name!r}")
        if not isinstance(state.get("config"), dict):
            raise InvalidInputError("state['config'] must be a dict of the metric's options")
        # JSON turns tuples into lists; configs compare with tuples
        options = {k: tuple(v) if isinstance(v, list) else v for k, v in state["config"].items()}
        tokenizer = options.get("tokenizer")
        if isinstance(tokenizer, str):  # a state saved before its tokenisation's name changed
            from ..text.tokenizers import canonical

            options["tokenizer"] = canonical(tokenizer, self.family.name)
        try:
            config = self.family.config_cls(**options)
        except TypeError as err:
            raise InvalidInputError(f"state['config'] does not fit {self.family.name}: {err}") from None
        if config != self.config:
            raise InvalidInputError(f"state was saved with {config}, this metric has {self.config}")
        saved = state.get("signature")
        if saved is not None:
            ours = self.family.config_signature(self.config)
            if not isinstance(saved, str) or not same_settings(saved, ours):
                raise InvalidInputError(
                    f"state was saved with the signature {saved!r}, this metric's is {ours!r} (the same options, "
                    "but something they name has changed, such as a model folder's weights)"
                )
        if self.keep_segments and "segments" not in state:
            raise InvalidInputError(
                "this metric keeps per-segment statistics, but the state was saved without them "
                "(save it from a metric with keep_segments=True or reduction=None)"
            )
        schema = self.family.schema(self.config)
        zero = schema.zero()
        total = schema.from_json(state.get("stats"), where="state['stats']")
        count = state.get("count")
        if count is None:  # a state saved before the count was kept: the statistics' own count, if any
            counting = self.family.stats_cls.counting_field()
            count = getattr(total, counting) if counting is not None else (0 if total == zero else None)
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
            raise InvalidInputError(f"state['count'] must be a whole number >= 0, got {count!r}")
        self._check_total(total, count, "state['stats']")
        segments: list[StatsBatch[S]] = []
        if self.keep_segments:
            batch = schema.columns_from_json(state["segments"], where="state['segments']")
            found = self.family.inconsistency(batch.columns, 1, self.config)  # one segment per row
            if found is not None:
                raise InvalidInputError(f"state['segments'] holds a segment that is not possible: {found}")
            if count is not None and len(batch) != count:
                raise InvalidInputError(
                    f"state['segments'] holds {len(batch)} segments but state['count'] says {count}"
                )
            self._check_segments_total(batch, total)
            if len(batch):
                segments.append(batch)
        if count is None:
            count = len(segments[0]) if segments else 1
        with self._lock:
            self._total, self._pending, self._segments, self._count = total, [], segments, count

    def _check_total(self, total: S, count: int | None, where: str) -> None:
        """Raise naming what is impossible in ``total`` as the sum of ``count`` segments (``None``: unknown)."""
        values = {name: getattr(total, name) for name in self.family.stats_cls.field_names()}
        found = self.family.inconsistency(values, count, self.config)
        if found is not None:
            raise InvalidInputError(f"{where} is not a sum of {self.family.name} statistics: {found}")

    def _check_segments_total(self, batch: StatsBatch[S], total: S) -> None:
        """The per-segment columns add up to the summed statistics (floats up to rounding)."""
        if not len(batch):
            return
        summed = batch.total()
        for name in self.family.stats_cls.field_names():
            if name in self.family.stats_cls.carried_fields or name in self.family.stats_cls.kept_fields:
                continue
            mine, theirs = getattr(summed, name), getattr(total, name)
            pairs = zip(mine, theirs, strict=True) if isinstance(mine, tuple) else [(mine, theirs)]
            if not all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in pairs):
                raise InvalidInputError(
                    f"state['segments'][{name!r}] adds up to {mine!r}, but state['stats'][{name!r}] is {theirs!r}"
                )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config})"


#: Every live instance, so that a forked child can give each a fresh lock.
_INSTANCES: weakref.WeakSet[Metric[Any, Any, Any]] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    """In a forked child only the forking thread runs: a lock another thread held at the fork would never be
    released, and the child's next ``update`` would wait forever. Every instance gets a new lock."""
    for metric in list(_INSTANCES):
        metric._lock = threading.RLock()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)
