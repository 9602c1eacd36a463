"""The generic stateful metric: a running sum of a family's statistics. No torch needed.

``update()`` adds a batch's statistics, ``compute()`` applies the family's formula to the sum, ``merge()`` adds
the state of other instances (of the same configuration), and ``state_dict()``/``load_state_dict()`` make the
state portable. Because statistics add, ``merge`` is the only reduction needed: batching, the order of merges
and the number of workers do not change the result.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from ..errors import InvalidInputError
from ..metrics.base import Family, Result
from ..stats import CarriedColumn, Stats, StatsBatch

__all__ = ["Metric"]

C = TypeVar("C")
S = TypeVar("S", bound=Stats)
R = TypeVar("R", bound=Result)


class Metric(Generic[C, S, R]):
    """Stateful metric over a :class:`~nlgmetrics.metrics.base.Family`.

    Subclasses only set ``family``. ``keep_segments=True`` keeps per-segment statistics so that
    ``compute()`` also returns per-segment scores; it is switched on automatically for ``reduction=None``.
    """

    family: ClassVar[Family[Any, Any, Any]]

    def __init__(self, preset: str | None = None, *, keep_segments: bool = False, **options: Any) -> None:
        self.config: C = self.family.make_config(preset, **options)
        self.keep_segments = keep_segments or self.family.needs_segments(self.config)
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        self._total: S = self.family.zero(self.config)
        self._segments: list[StatsBatch[S]] = []

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
        self._total = self._total + batch.total()
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
        """The result over everything seen since the last ``reset()``. With no samples the score is 0."""
        batch = None
        if self.keep_segments:
            batch = (
                StatsBatch.concat(self._segments, self.family.stats_cls)
                if self._segments
                else (self.family.empty_batch(self.config))
            )
        return self.family.finalize(self._total, self.config, batch)

    @property
    def stats(self) -> S:
        """The summed statistics so far."""
        return self._total

    def merge(self, *others: Metric[C, S, R]) -> Metric[C, S, R]:
        """Add the states of ``others`` into this metric, in place, and return it."""
        for other in others:
            if type(other) is not type(self) or other.config != self.config:
                raise InvalidInputError(
                    f"cannot merge {type(other).__name__}({other.config}) into {type(self).__name__}({self.config}): "
                    "the configurations differ"
                )
            self._total = self._total + other._total
            if self.keep_segments:
                if not other.keep_segments:
                    raise InvalidInputError("cannot merge a metric without per-segment state into one that keeps it")
                self._segments.extend(other._segments)
        return self

    # ------------------------------------------------------------------ portability
    def state_dict(self) -> dict[str, Any]:
        """The state as plain Python data: config, summed statistics and (if kept) per-segment columns."""
        state: dict[str, Any] = {
            "family": self.family.name,
            "config": dataclasses.asdict(self.config),  # type: ignore[call-overload]
            "stats": self._total.to_dict(),
        }
        if self.keep_segments:
            batch = (
                StatsBatch.concat(self._segments, self.family.stats_cls)
                if self._segments
                else (self.family.empty_batch(self.config))
            )
            state["segments"] = {k: v.tolist() for k, v in batch.columns.items()}
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("family") != self.family.name:
            raise InvalidInputError(f"state of {state.get('family')!r} cannot be loaded into {self.family.name!r}")
        # JSON turns tuples into lists; configs compare with tuples
        options = {k: tuple(v) if isinstance(v, list) else v for k, v in state["config"].items()}
        config = self.family.config_cls(**options)
        if config != self.config:
            raise InvalidInputError(f"state was saved with {config}, this metric has {self.config}")
        if self.keep_segments and "segments" not in state:
            raise InvalidInputError(
                "this metric keeps per-segment statistics, but the state was saved without them "
                "(save it from a metric with keep_segments=True or reduction=None)"
            )
        self._total = self.family.stats_cls.from_dict(state["stats"])
        self._segments = []
        if self.keep_segments:
            template = self.family.empty_batch(self.config).columns
            cols: dict[str, Any] = {}
            for k, v in state["segments"].items():
                empty = template[k]
                if isinstance(empty, CarriedColumn):
                    cols[k] = CarriedColumn(empty.kind, [empty.kind.from_json(x) for x in v])
                else:
                    cols[k] = np.asarray(v, dtype=empty.dtype).reshape((-1, *empty.shape[1:]))
            batch = StatsBatch(self.family.stats_cls, cols)
            if len(batch):
                self._segments.append(batch)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config})"
