"""A ``torchmetrics.Metric`` built from any nlgmetrics family.

The adapter holds no formula. ``update()`` runs the family's kernel and adds the batch's summed statistics into
one float64 state per statistics field (the layout of :meth:`~nlgmetrics.metrics.base.Family.schema`), each
declared with ``dist_reduce_fx="sum"``: under DDP, torchmetrics just sums them. Kept fields (BLEU's last segment)
are not summed: they hold the latest batch's, and after a sync the last rank's that holds one. ``compute()``
turns the summed states back into the family's :class:`~nlgmetrics.stats.Stats` (integer fields as ``int``) and
applies the family's formula, so the numbers are those of the functional API.

Per-segment statistics are kept only when they are needed: for ``reduction=None`` (one score per segment) or
when ``keep_segments=True`` is passed. They live in list states with ``dist_reduce_fx="cat"``; after a sync they
are ordered rank by rank (all of rank 0's segments, then rank 1's, …), as torchmetrics gathers them.

A new family needs one line::

    BLEU = torch_metric(BLEU_FAMILY, "BLEU", higher_is_better=True)
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np
import torch
from torchmetrics import Metric as _TorchmetricsMetric

from ..errors import InvalidInputError
from ..metrics.base import Family, Result
from ..signature import build_signature
from ..stats import Stats, StatsBatch
from ._layout import StatsLayout

__all__ = ["TorchMetric", "torch_metric"]

#: Keyword arguments that belong to ``torchmetrics.Metric`` rather than to the family's configuration.
TORCHMETRICS_KWARGS = frozenset(
    {
        "compute_on_cpu",
        "dist_sync_on_step",
        "process_group",
        "dist_sync_fn",
        "distributed_available_fn",
        "sync_on_compute",
        "compute_with_cache",
    }
)

_SEGMENT_PREFIX = "segment_"


class TorchMetric(_TorchmetricsMetric):
    """Base class of the torchmetrics adapters; a subclass only sets ``family`` (see :func:`torch_metric`).

    ``__init__(preset=None, *, keep_segments=False, **options)``: ``preset`` and ``options`` build the family's
    configuration exactly as the functional API does; the torchmetrics keyword arguments (``dist_sync_on_step``,
    ``process_group``, ``sync_on_compute``, …) are passed on to ``torchmetrics.Metric``.

    ``compute()`` returns the headline score as a float64 tensor: 0-d, or 1-D (one value per segment, empty when
    there were no samples) for ``reduction=None``; a family with several headline values (ROUGE, SQuAD, BERTScore)
    returns torchmetrics' dict of them. ``compute_result()`` returns the full nlgmetrics result, with
    its signature and every derived field.
    """

    family: ClassVar[Family[Any, Any, Any]]
    # ``torch.jit.script(metric)`` (torchmetrics' own tests ask it of every metric) compiles a module's properties;
    # ``stats`` builds a Python dataclass, which TorchScript cannot, so it is left out as torchmetrics leaves out its
    # own. As with torchmetrics' text metrics, the scripted module exists but cannot update: strings are not tensors
    __jit_unused_properties__: ClassVar[list[str]] = [*_TorchmetricsMetric.__jit_unused_properties__, "stats"]
    full_state_update: bool | None = False
    is_differentiable: bool | None = False
    higher_is_better: bool | None = None

    def __init__(self, preset: str | None = None, *, keep_segments: bool = False, **options: Any) -> None:
        tm_kwargs = {k: options.pop(k) for k in list(options) if k in TORCHMETRICS_KWARGS}
        super().__init__(**tm_kwargs)
        family = type(self).family
        self.config = family.make_config(preset, **options)
        self.per_segment_output = family.needs_segments(self.config)
        self.keep_segments = bool(keep_segments) or self.per_segment_output
        self._layout = StatsLayout(family.schema(self.config))
        choice: dict[str, Any] = {}  # which part's kept fields a reduction keeps: the flag's reducer says
        for field in self._layout.fields:
            if field.carried is not None:  # a table (NIST's reference n-grams): records concatenated, not summed
                self.add_state(field.name, default=[], dist_reduce_fx="cat")
                continue
            default = torch.zeros(() if field.size is None else (field.size,), dtype=torch.float64)
            reduce: Any = "sum"
            if field.kind == "kept":  # BLEU's last segment: the later part's (the last rank's) that holds one
                reduce = _LastHeld(choice, field.name == self._layout.schema.kept_flag)
            self.add_state(field.name, default=default, dist_reduce_fx=reduce)
        if self.keep_segments:
            for field in self._layout.fields:
                self.add_state(_SEGMENT_PREFIX + field.name, default=[], dist_reduce_fx="cat")
        # A state whose *name* identifies the configuration. torchmetrics' MetricCollection puts metrics whose
        # states have the same names and values into one compute group and then updates only one of them; two
        # metrics whose kernels differ (CER and WER, or two substitution costs) must never share states.
        # (It also makes ``merge_state`` refuse a metric of another configuration.) It stays 0.
        self._config_state = (
            "config_"
            + hashlib.sha1(build_signature(family.name, self.config).encode(), usedforsecurity=False).hexdigest()[:12]
        )
        self.add_state(self._config_state, default=torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")

    # ------------------------------------------------------------------ torchmetrics API
    def update(self, preds: Any, target: Any = None, *, sources: Any = None, **inputs: Any) -> None:
        """Add a batch: ``preds`` is a string or a sequence of strings, ``target`` one reference (string) or a
        list of references per prediction; ``sources`` only for a family that has them (SARI), further keyword
        inputs only for a family that declares them (perplexity's ``num_bytes``, SQuAD's ``na_probs``;
        perplexity's ``preds`` and ``target`` are logits and target ids). An empty batch is allowed and changes
        nothing."""
        batch = type(self).family.batch_stats(preds, target, self.config, allow_empty=True, sources=sources, **inputs)
        if len(batch) == 0:
            return
        total = batch.total()
        holds_kept = self._layout.schema.holds_kept(total)
        for field in self._layout.fields:
            value = getattr(total, field.name)
            current = getattr(self, field.name)
            if field.carried is not None:
                current.append(self._layout.carried_to_tensor(value, device=self.device))
                continue
            # in place: the states are torchmetrics' own clones (``reset`` and ``forward`` copy them), and an
            # attribute assignment on a torch Module costs more than the addition
            if field.kind == "kept":
                if holds_kept:  # not added: the later data's last segment
                    current.fill_(float(value))
            elif field.size is None:
                if value:  # adding 0 changes no state (none is ever -0.0): a torch call saved per zero field
                    current.add_(float(value))
            else:
                current.add_(torch.as_tensor(value, dtype=torch.float64, device=current.device))
        if self.keep_segments:
            for field in self._layout.fields:
                column = self._layout.column_to_tensor(batch.column(field.name), device=self.device)
                getattr(self, _SEGMENT_PREFIX + field.name).append(column)

    def compute(self) -> torch.Tensor | dict[str, torch.Tensor]:
        """The headline score over everything seen (synced across processes under DDP); a dict of 0-d tensors for
        a family with several headline values (``Result.headline_values``)."""
        return self._score_tensor(self._result())

    def compute_result(self) -> Result:
        """The full nlgmetrics result (every field and the signature), synced across processes like ``compute``."""
        with self.sync_context(
            dist_sync_fn=self.dist_sync_fn, should_sync=self._to_sync, should_unsync=self._should_unsync
        ):
            return self._result()

    # ------------------------------------------------------------------ checked states
    def merge_state(self, incoming_state: dict[str, Any] | _TorchmetricsMetric) -> None:
        """torchmetrics' ``merge_state``, after checking that the incoming state is one this metric could have
        produced: a metric of the same class and configuration, or a dict of every state, whose statistics are
        finite, whole where they count, non-negative where they must be and consistent with each other (see
        :meth:`~nlgmetrics.stats.Stats.inconsistency`). A bad state raises
        :class:`~nlgmetrics.errors.InvalidInputError` and changes nothing."""
        if isinstance(incoming_state, TorchMetric):
            if type(incoming_state) is not type(self) or incoming_state.config != self.config:
                raise InvalidInputError(
                    f"cannot merge {type(incoming_state).__name__}({incoming_state.config}) into "
                    f"{type(self).__name__}({self.config}): merge takes a metric of the same class and configuration"
                )
            states: Any = incoming_state.metric_state
        elif isinstance(incoming_state, dict):
            states = incoming_state
            missing = [n for n in self._defaults if n not in states]
            unknown = [str(n) for n in states if n not in self._defaults]
            if missing or unknown:
                hint = " (a state of another configuration)" if any(n.startswith("config_") for n in unknown) else ""
                parts = [f"missing {', '.join(missing)}"] if missing else []
                parts += [f"unknown {', '.join(unknown)}"] if unknown else []
                raise InvalidInputError(f"cannot merge the state into {type(self).__name__}{hint}: {'; '.join(parts)}")
        else:
            name = type(incoming_state).__name__
            raise InvalidInputError(f"merge_state takes a {type(self).__name__} or a dict of its states, got {name}")
        self._check_states(states, "the merged state")
        super().merge_state(incoming_state)

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any, **kwargs: Any) -> None:
        before = {name: getattr(self, name) for name in self._defaults}
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
        try:
            self._check_states({name: getattr(self, name) for name in self._defaults}, "the loaded state")
        except InvalidInputError:
            for name, value in before.items():
                setattr(self, name, value)
            raise

    def _check_states(self, states: Mapping[str, Any], where: str) -> None:
        """Raise naming what makes ``states`` (this metric's states by name) impossible."""
        family = type(self).family
        signed = family.stats_cls.signed_fields
        values: dict[str, Any] = {}
        for field in self._layout.fields:
            if field.carried is not None:
                values[field.name] = None
                continue
            state = states[field.name]
            try:
                array = torch.as_tensor(state).detach().to("cpu", torch.float64).reshape(-1).numpy()
            except (TypeError, ValueError, RuntimeError):
                raise InvalidInputError(f"{where}: {field.name} is not a tensor of numbers") from None
            if array.shape != (field.width,):
                raise InvalidInputError(f"{where}: {field.name} holds {array.size} values, expected {field.width}")
            if not np.isfinite(array).all():
                raise InvalidInputError(f"{where}: {field.name} holds a value that is not a finite number")
            if field.name not in signed and (array < 0).any():
                raise InvalidInputError(f"{where}: {field.name} holds a negative value")
            if field.integer and (array != np.round(array)).any():
                raise InvalidInputError(f"{where}: {field.name} must hold whole numbers (counts)")
            values[field.name] = array[0] if field.size is None else array
        found = family.inconsistency(values, None, self.config)
        if found is not None:
            raise InvalidInputError(f"{where} is not a sum of {family.name} statistics: {found}")

    # ------------------------------------------------------------------ helpers
    @property
    def stats(self) -> Stats:
        """The summed statistics held in the states (of this process only, unless synced)."""
        return self._layout.stats_cls(
            **{
                f.name: self._layout.carried_from_tensors(f, getattr(self, f.name))
                if f.carried is not None
                else self._layout.value_from_tensor(f, getattr(self, f.name))
                for f in self._layout.fields
            }
        )

    def _segment_batch(self) -> StatsBatch[Any]:
        family = type(self).family
        columns: dict[str, torch.Tensor] = {}
        for field in self._layout.fields:
            state = getattr(self, _SEGMENT_PREFIX + field.name)
            if isinstance(state, list):  # not synced: the per-batch tensors
                if not state:
                    return family.empty_batch(self.config)
                state = torch.cat(state, dim=0)
            columns[field.name] = state
        return self._layout.batch_from_columns(columns)

    def _result(self) -> Result:
        family = type(self).family
        batch = self._segment_batch() if self.keep_segments else None
        return family.finalize(self.stats, self.config, batch)

    def _score_tensor(self, result: Result) -> torch.Tensor | dict[str, torch.Tensor]:
        # a family with several headline values (ROUGE: P/R/F per type) offers them flat, as torchmetrics'
        # own multi-valued metrics return them: a dict of 0-d tensors
        # (BERTScore: P/R/F, one value per segment each with ``reduction=None``)
        headline_values = getattr(result, "headline_values", None)
        if headline_values is not None:
            return {k: self._value_tensor(v) for k, v in headline_values().items()}
        if self.per_segment_output:
            return torch.tensor(list(result.score), dtype=torch.float64, device=self.device).reshape(-1)
        return torch.tensor(float(result.score), dtype=torch.float64, device=self.device)

    def _value_tensor(self, value: Any) -> torch.Tensor:
        if isinstance(value, (tuple, list)):
            return torch.tensor(list(value), dtype=torch.float64, device=self.device).reshape(-1)
        return torch.tensor(float(value), dtype=torch.float64, device=self.device)

    def _wrap_compute(self, compute: Callable[..., Any]) -> Callable[..., Any]:
        # torchmetrics squeezes every one-element result to 0-d; per-segment scores stay 1-D here, also for a
        # single segment, so that ``reduction=None`` always gives one value per segment. (This runs inside
        # ``torchmetrics.Metric.__init__``, before the config exists, hence the check at call time.)
        wrapped = super()._wrap_compute(compute)

        def compute_1d(*args: Any, **kwargs: Any) -> Any:
            value = wrapped(*args, **kwargs)
            if self.per_segment_output and isinstance(value, torch.Tensor) and value.ndim == 0:
                return value.reshape(-1)
            return value

        compute_1d.__doc__ = compute.__doc__
        return compute_1d

    def _sync_dist(self, dist_sync_fn: Callable[..., Any] | None = None, process_group: Any | None = None) -> None:
        # A process that saw no segment would offer torchmetrics an empty list, which it replaces by a 1-D
        # tensor of the default dtype (float32): gathered against float64 columns (or 2-D columns for tuple
        # fields) that fails. Offer a correctly typed and shaped empty column instead.
        for field in self._layout.fields:
            if field.carried is not None:
                state = getattr(self, field.name)
                if isinstance(state, list) and not state:
                    state.append(self._layout.empty_column(field, device=self.device))
        if self.keep_segments:
            for field in self._layout.fields:
                state = getattr(self, _SEGMENT_PREFIX + field.name)
                if isinstance(state, list) and not state:
                    state.append(self._layout.empty_column(field, device=self.device))
        kwargs: dict[str, Any] = {"process_group": process_group}
        if dist_sync_fn is not None:
            kwargs["dist_sync_fn"] = dist_sync_fn
        super()._sync_dist(**kwargs)

    def extra_repr(self) -> str:
        return repr(self.config)


def torch_metric(
    family: Family[Any, Any, Any],
    name: str,
    *,
    higher_is_better: bool | None,
    doc: str | None = None,
    plot_bounds: tuple[float | None, float | None] = (None, None),
    module: str | None = None,
) -> type[TorchMetric]:
    """Build the ``torchmetrics.Metric`` subclass of ``family``, named ``name``.

    ``module`` defaults to the caller's module, so the class pickles (DDP spawn, ``copy.deepcopy``) as long as
    it is bound to ``name`` there.
    """
    if module is None:
        module = sys._getframe(1).f_globals.get("__name__", __name__)
    clashes = [
        n
        for n in family.stats_cls.field_names()
        if hasattr(TorchMetric, n) or hasattr(TorchMetric, _SEGMENT_PREFIX + n)
    ]
    if clashes:
        raise ValueError(f"{family.name}: statistics fields {clashes} clash with torchmetrics.Metric attributes")
    summary = doc or f"torchmetrics adapter of the nlgmetrics ``{family.name}`` family."
    namespace: dict[str, Any] = {
        "family": family,
        "higher_is_better": higher_is_better,
        "plot_lower_bound": plot_bounds[0],
        "plot_upper_bound": plot_bounds[1],
        "__module__": module,
        "__qualname__": name,
        "__doc__": f"{summary}\n\n{TorchMetric.__doc__}",
    }
    return type(name, (TorchMetric,), namespace)


class _LastHeld:
    """The reduction of a kept field's states, stacked in order (earlier part first, or rank by rank): the last
    part's value whose flag field is set (zero when none is). The flag's reducer runs first (torchmetrics reduces
    states in the order they were added, and the schema puts the flag first) and leaves its choice in ``choice``
    for the other kept fields of the same reduction."""

    def __init__(self, choice: dict[str, Any], flag: bool) -> None:
        self.choice = choice
        self.flag = flag

    def __call__(self, stacked: torch.Tensor) -> torch.Tensor:
        if self.flag:
            held = torch.nonzero(stacked.reshape(stacked.shape[0], -1).ne(0).any(dim=1)).reshape(-1)
            self.choice["row"] = int(held[-1]) if held.numel() else None
        row = self.choice.get("row")
        return torch.zeros_like(stacked[0]) if row is None else stacked[row].clone()
