"""What the learned MT metrics (COMET, CometKiwi, XCOMET, MetricX) share: statistics, results, the family class
that lets references be absent (quality estimation), and the config checks.

Statistics are additive: the sum of the segment scores and their count (the system score is their mean, as
``predict()``'s ``system_score`` is), plus, for the word-level models, every segment's error spans as records.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from .._inputs import ReferenceSets, check_predictions, check_references
from ..errors import InvalidInputError, unknown_option
from ..stats import Carried, Records, Stats, StatsBatch
from .base import Family, Result, safe_div

__all__ = [
    "DTYPES",
    "LearnedFamily",
    "LearnedResult",
    "LearnedStats",
    "SpanStats",
    "check_common",
    "learned_formula",
    "resolve_device",
]

DTYPES = ("float32", "bfloat16", "float16")


@dataclasses.dataclass(frozen=True)
class LearnedStats(Stats):
    """The sum of the segment scores and the number of segments."""

    score: float
    count: int

    signed_fields: ClassVar[frozenset[str]] = frozenset({"score"})  # COMET's scores may be negative


@dataclasses.dataclass(frozen=True)
class SpanStats(Stats):
    """:class:`LearnedStats` plus each segment's error spans (one record per segment: a tuple of
    ``(text, start, end, severity, confidence)``)."""

    score: float
    count: int
    spans: Records

    carried_fields: ClassVar[Mapping[str, type[Carried]]] = {"spans": Records}
    signed_fields: ClassVar[frozenset[str]] = frozenset({"score"})


@dataclasses.dataclass(frozen=True, kw_only=True)
class LearnedResult(Result):
    """``score`` is the mean of the segment scores (``system_score`` of ``predict()``), ``scores`` the segment
    scores when asked for (``segments=True``; also in ``segments``), ``error_spans`` each segment's error spans
    (XCOMET and word-level CometKiwi; each a dict with ``text``, ``confidence``, ``severity``, ``start``,
    ``end`` as unbabel-comet gives them)."""

    count: int = 0
    scores: tuple[float, ...] | None = None
    error_spans: tuple[tuple[dict[str, Any], ...], ...] | None = None

    @property
    def mean_score(self) -> Any:
        """Hugging Face ``evaluate``'s name of the system score."""
        return self.score


def learned_formula(stats: Any, cfg: Any) -> LearnedResult:
    """The mean over segments; per segment, each segment's own score."""
    return LearnedResult(score=safe_div(stats.score, stats.count), count=stats.count)


def resolve_device(device: str | None) -> str:
    """``device``, or ``cuda`` when torch sees a GPU, else ``cpu`` (torch is imported only to ask)."""
    if device is not None:
        if not isinstance(device, str) or not device:
            raise InvalidInputError(f"device must be a torch device name such as 'cpu' or 'cuda', got {device!r}")
        return device
    try:
        from ..engine.device import resolve_device as engine_device
    except ImportError:  # no torch: nothing but the CPU
        return "cpu"
    return engine_device(None)


def check_common(cfg: Any) -> None:
    """Checks every learned-metric config shares (model given, dtype, batch size, flags)."""
    if cfg.model is None or not isinstance(cfg.model, str) or not cfg.model:
        raise InvalidInputError(
            "model= is required: a checkpoint folder or file, or a Hub id in the local Hugging Face cache "
            "(see docs/learned.md for the download commands)"
        )
    if cfg.dtype not in DTYPES:
        raise unknown_option("dtype", cfg.dtype, DTYPES)
    for name in ("allow_download", "cache"):
        if not isinstance(getattr(cfg, name, False), bool):
            raise InvalidInputError(f"{name} must be True or False, got {getattr(cfg, name)!r}")
    size = getattr(cfg, "batch_size", None)
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        raise InvalidInputError(f"batch_size must be a positive integer or None, got {size!r}")


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class LearnedFamily(Family[Any, Any, LearnedResult]):
    """A learned metric: per-segment scores from a model, summed. ``needs_references`` is ``True`` (references
    required), ``False`` (none taken) or ``None`` (optional: quality estimation without them); likewise
    ``needs_sources``. The config's ``check_inputs_given(sources, references)`` may refine both (a checkpoint
    that reads no references)."""

    needs_references: bool | None = True
    needs_sources: bool | None = True

    def prepare(
        self, predictions: Any, references: Any, config: Any, allow_empty: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> tuple[Any, Any, dict[str, Any]] | None:
        if inputs:
            self.check_inputs(inputs)
        preds = check_predictions(predictions, allow_empty=allow_empty)
        n = len(preds)
        refs: ReferenceSets | None = None
        if references is not None:
            if self.needs_references is False:
                raise InvalidInputError(f"{self.name} takes no references (it scores translations against sources)")
            refs = check_references(references, allow_empty=allow_empty, single=True)
            if len(refs.flat) != n:
                raise InvalidInputError(
                    f"predictions and references differ in length: {n} predictions but {len(refs.flat)} references"
                )
        elif self.needs_references:
            raise InvalidInputError(f"{self.name} needs references: pass one reference per prediction")
        srcs: list[str] | None = None
        if sources is not None:
            if self.needs_sources is False:
                raise InvalidInputError(f"{self.name} takes no sources")
            srcs = check_predictions(sources, name="sources", allow_empty=True)
            if len(srcs) != n:
                raise InvalidInputError(
                    f"sources and predictions differ in length: {len(srcs)} sources but {n} predictions"
                )
        elif self.needs_sources:
            raise InvalidInputError(f"{self.name} needs sources: pass sources= (one source text per prediction)")
        check = getattr(config, "check_inputs_given", None)
        if check is not None:
            check(srcs is not None, refs is not None)
        return (preds, refs, {"sources": srcs}) if n else None

    def finalize(self, total: Any, config: Any, batch: StatsBatch[Any] | None = None) -> LearnedResult:
        result = super().finalize(total, config, batch)
        changes: dict[str, Any] = {"signature": config.signature()}
        if batch is not None:
            changes["scores"] = result.segments
            if "spans" in batch.columns:
                column = batch.columns["spans"]
                changes["error_spans"] = tuple(
                    tuple(_span_dict(s) for s in (rec[0] if rec else ())) for rec in column.values
                )
        return dataclasses.replace(result, **changes)


def _span_dict(span: Any) -> dict[str, Any]:
    text, start, end, severity, confidence = span
    return {"text": text, "confidence": confidence, "severity": severity, "start": start, "end": end}


def span_records(spans: list[Any]) -> list[Records]:
    """One :class:`Records` per segment, holding that segment's spans as a tuple of tuples."""
    return [
        Records(((tuple((s.text, s.start, s.end, s.severity, s.confidence) for s in segment)),)) for segment in spans
    ]
