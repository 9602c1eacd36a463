"""HF ``evaluate``'s call shape over any catalogue family, derived from its declaration alone.

:class:`FamilyMetric` is ``nlgmetrics.load(name)`` for a family that no HF name maps to: ``add``, ``add_batch`` and
``compute`` over the family's own options (its config fields, ``preset=``) and inputs (``sources=``, the family's
further inputs), with :func:`family_output` as its output. Nothing here is kept per family, so a family added to
the catalogue is served with no edit here. :mod:`nlgmetrics.hf` holds what is HF's own (its names, keywords, keys
and scales) and builds on the pieces here (:class:`HFSpec`, the keyword converters, the column checks).
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
from collections.abc import Callable, ItemsView, KeysView, Mapping, Sequence, ValuesView
from typing import Any

from ._inputs import describe
from ._np import is_array, is_numpy_number
from .errors import InvalidInputError, UnknownOptionError
from .metrics.catalog import CATALOG, get_family

__all__ = ["FamilyMetric", "HFSpec", "Pick", "family_output", "family_spec"]

#: ``output(result, hf_keywords)``: the dict (or number) that ``compute`` returns.
Pick = Callable[[Any, dict[str, Any]], Any]


def _same(option: str) -> tuple[str, Callable[[Any], Any]]:
    return option, lambda v: v


def _refused(keyword: str, why: str) -> tuple[str, Callable[[Any], Any]]:
    def check(value: Any) -> Any:
        raise InvalidInputError(f"{keyword}={value!r} is not supported: {why}")

    return "", check


@dataclasses.dataclass(frozen=True)
class HFSpec:
    """One HF ``evaluate`` metric: ``family`` (catalogue name) with ``preset``; ``keywords`` maps each HF
    ``compute``/``load`` keyword to ``(family option, value conversion)`` (an empty option: accepted, changes
    nothing); ``output`` builds HF's dict (or float) from the family's result and the call's HF keywords;
    ``segments``: whether the output needs per-segment values; ``inputs``: ``"text"``, ``"sources"`` (SARI) or
    ``"squad"`` (HF's dicts with ids)."""

    family: str
    preset: str | None
    output: Pick
    keywords: Mapping[str, tuple[str, Callable[[Any], Any]]] = dataclasses.field(default_factory=dict)
    defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    segments: Callable[[dict[str, Any]], bool] = lambda hf: False
    inputs: str = "text"
    scale: str = ""
    #: a known difference from HF's script, warned about when the metric is loaded
    note: str = ""


def _ignored(*names: str) -> dict[str, tuple[str, Callable[[Any], Any]]]:
    return {n: ("", lambda v: v) for n in names}


def _nearest(word: str, candidates: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.0)
    return close[0] if close else ""


def _ordered(values: Any, name: str) -> list[Any]:
    """A column of ``add_batch``/``compute`` as a list; sets, dicts and dict views are refused, as HF
    ``evaluate`` refuses them (their order depends on the hash seed, so predictions would meet the wrong
    references). A string is a column of characters, as in HF."""
    if isinstance(values, (set, frozenset, KeysView, ValuesView, ItemsView)):
        raise InvalidInputError(
            f"{name} is a {type(values).__name__}: its order is arbitrary (it depends on the hash seed), so "
            "predictions would be paired with the wrong references; pass a list"
        )
    if isinstance(values, Mapping):
        raise InvalidInputError(f"{name} is a {type(values).__name__}; pass a list (HF evaluate refuses a dict too)")
    if isinstance(values, (bytes, bytearray)):
        raise InvalidInputError(f"{name} is bytes; pass a list of str")
    try:
        return list(values)
    except TypeError:
        raise InvalidInputError(f"{name} is {describe(values)}; expected a list") from None


#: Result fields that are never among a family's output keys (the headline is under its own key, the signature and
#: per-segment scores are not HF-style numbers).
_NOT_OUTPUT = frozenset({"score", "signature", "segments"})


def _number(value: Any) -> int | float | None:
    """``value`` as a plain Python number; ``None`` for anything else (a bool, ``None``, text, a tuple)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if is_numpy_number(value):
        return value.item()  # type: ignore[no-any-return]
    return None


def _plain(value: Any) -> Any:
    """A headline value with numpy scalars and arrays made Python numbers and lists (tuples become lists)."""
    number = _number(value)
    if number is not None:
        return number
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if is_array(value):
        return value.tolist()
    return value


def family_output(name: str) -> Pick:
    """The output of ``load(name).compute`` for a catalogue family without an HF counterpart: a dict with the
    headline first, then every field of the result that is a plain number (counts, lengths, sub-scores).

    The headline is ``{name: result.score}`` (a list, one score per segment, with ``reduction="none"``), or the
    result's own ``headline_values()`` (COCO's ``Bleu_1``..``CIDEr``), or the items of a dict-valued score (pass@k's
    ``pass@1``, ``pass@10``)."""

    def out(result: Any, hf: dict[str, Any]) -> dict[str, Any]:
        headline = getattr(result, "headline_values", None)
        if headline is not None:
            values = {k: _plain(v) for k, v in headline().items()}
        elif isinstance(result.score, Mapping):
            values = {k: _plain(v) for k, v in result.score.items()}
        else:
            values = {name: _plain(result.score)}
        for field in dataclasses.fields(result):
            if field.name not in _NOT_OUTPUT and field.name not in values:
                number = _number(getattr(result, field.name))
                if number is not None:
                    values[field.name] = number
        return values

    return out


def family_spec(name: str, refused: Mapping[str, str] | None = None) -> HFSpec:
    """The spec of ``load(name)`` for the catalogue family ``name`` that no HF name maps to: the family's default
    preset (``preset=`` picks another), its options and further inputs as they are, :func:`family_output`;
    ``refused``: keywords refused with the reason given (another tool's keywords under the same metric name)."""
    family = get_family(name)
    return HFSpec(
        name,
        family.default_preset,
        family_output(name),
        {k: _refused(k, why) for k, why in (refused or {}).items()},
        inputs="sources" if family.uses_sources else "text",
    )


class FamilyMetric:
    """``load(name)`` of a catalogue family that no HF name maps to (``"nist"``, ``"nls"``, ``"comet"``'s
    siblings): HF's ``add``/``add_batch``/``compute`` over the family's own options (its config fields, and
    ``preset=``) and its inputs (``sources=`` for a family with sources; ``num_bytes=``, ``na_probs=``, ... as the
    family declares them). ``compute`` returns :func:`family_output`'s dict, the family's own scale; the numbers
    are those of the family's function with the same options."""

    def __init__(self, name: str, /, **config: Any) -> None:
        self._setup(family_spec(name), config)

    @classmethod
    def with_spec(cls, spec: HFSpec, /, **config: Any) -> FamilyMetric:
        """The metric of ``spec.family`` under ``spec`` (:func:`family_spec` with the keywords it refuses)."""
        metric = cls.__new__(cls)
        metric._setup(spec, config)
        return metric

    def _setup(self, spec: HFSpec, config: Mapping[str, Any]) -> None:
        self.name = spec.family
        self.family = get_family(spec.family)
        self.spec = spec
        self._load_kwargs = self._check(config)
        for key in self._load_kwargs.keys() & self.spec.keywords.keys():
            self.spec.keywords[key][1](self._load_kwargs[key])  # a refused keyword: raises now, not at compute
        self._batches: list[dict[str, Any]] = []

    def __repr__(self) -> str:
        return f"nlgmetrics.load({self.name!r}): {self.family.name} preset {self.spec.preset!r}"

    def _check(self, kwargs: Mapping[str, Any], inputs: bool = False) -> dict[str, Any]:
        family = self.family
        known = [*self.spec.keywords, *family.option_names(), *family.option_aliases]
        if family.presets and "preset" not in known:
            known.append("preset")
        if inputs:
            known += family.inputs
        for key in kwargs:
            if key not in known:
                further = f"; its further inputs: {', '.join(family.inputs)}" if family.inputs else ""
                raise UnknownOptionError(
                    f"{self.name}: keyword {key!r} is not supported (nearest supported: {_nearest(key, known)!r}); "
                    f"options of {family.name}: {', '.join(sorted(set(known) - set(family.inputs)))}{further}"
                )
        return dict(kwargs)

    def config_for(self, kwargs: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The family config of one call (``load`` options, then ``compute`` ones; ``preset=`` names the preset)."""
        options = {**self._load_kwargs, **self._check(kwargs)}
        for key in [k for k in options if k in self.spec.keywords]:
            self.spec.keywords[key][1](options.pop(key))  # a refused keyword: raises
        preset = options.pop("preset", self.spec.preset) if self.family.presets else None
        build = getattr(self.family, "corpus_config", self.family.make_config)
        return build(preset, **options), {}

    def _references_optional(self) -> bool:
        """Whether the family scores predictions without references: its function's second parameter defaults to
        ``None`` (perplexity over log-probabilities, quality estimation with CometKiwi, XCOMET or MetricX)."""
        entry = CATALOG[self.name]
        if not entry.functions:
            return False
        import inspect

        function = getattr(importlib.import_module(entry.module), entry.functions[0])
        params = list(inspect.signature(function).parameters.values())
        return len(params) > 1 and params[1].default is None

    def add(self, *, prediction: Any = None, reference: Any = None, source: Any = None, **inputs: Any) -> None:
        """One prediction, its reference (and source, and one value of each further input) join the pending
        inputs. A set is refused here, as HF refuses it."""
        kinds: tuple[type, ...] = (set, frozenset, KeysView, ValuesView, ItemsView)
        for name, value in (("prediction", prediction), ("reference", reference), ("source", source)):
            if isinstance(value, kinds):
                raise InvalidInputError(f"{self.name}.add: {name} is a {type(value).__name__}")
        self.add_batch(
            predictions=[prediction],
            references=None if reference is None and self._references_optional() else [reference],
            sources=None if source is None else [source],
            **{k: [v] for k, v in inputs.items()},
        )

    def add_batch(self, *, predictions: Any = None, references: Any = None, sources: Any = None, **inputs: Any) -> None:
        """A batch joins the pending inputs: as :meth:`HFMetric.add_batch` (sets and dicts refused as columns, the
        columns of one batch of one length), plus the family's further inputs by keyword. A column given with one
        batch must be given with every batch."""
        self._check(inputs, inputs=True)
        unknown = sorted(set(inputs) - set(self.family.inputs))
        if unknown:
            raise InvalidInputError(f"{self.name}.add_batch: {', '.join(unknown)} are options; pass them to compute")
        if predictions is None:
            raise InvalidInputError(f"{self.name}.add_batch needs predictions=")
        if references is None and not self._references_optional():
            raise InvalidInputError(f"{self.name}.add_batch needs predictions= and references=")
        if sources is not None and not self.family.uses_sources:
            raise InvalidInputError(f"{self.name} takes no sources=")
        batch: dict[str, Any] = {"predictions": _column(predictions, "predictions")}
        for key, column in (("references", references), ("sources", sources), *inputs.items()):
            if column is not None:
                batch[key] = _column(column, key)
        n = _length(batch["predictions"], "predictions")
        for key, column in batch.items():
            if _length(column, key) != n:  # HF evaluate's message
                raise InvalidInputError(f"Mismatch in the number of predictions ({n}) and {key} ({len(column)})")
        self._batches.append(batch)

    def compute(self, *, predictions: Any = None, references: Any = None, sources: Any = None, **kwargs: Any) -> Any:
        """The inputs given here join those given to ``add``/``add_batch``, and all of them are scored (then
        cleared). A further input given here without ``predictions=`` covers every pending prediction."""
        inputs = {k: kwargs.pop(k) for k in list(kwargs) if k in self.family.inputs}
        if predictions is not None or references is not None or sources is not None:
            if predictions is None:
                raise InvalidInputError(f"{self.name}.compute needs predictions= with references= or sources=")
            self.add_batch(predictions=predictions, references=references, sources=sources, **inputs)
            inputs = {}
        if not self._batches:
            raise InvalidInputError(
                f"{self.name}.compute needs predictions= and references= (or inputs given to add/add_batch)"
            )
        batches, self._batches = self._batches, []
        config, hf = self.config_for(kwargs)
        columns = _columns(self.name, batches)
        for key, value in inputs.items():
            if key in columns:
                raise InvalidInputError(f"{key} was given to add_batch already; give it there with every batch")
            columns[key] = value
        predictions = columns.pop("predictions")
        references = columns.pop("references", None)
        result = self.family.compute(predictions, references, config, **columns)
        return self.spec.output(result, hf)


def _column(values: Any, name: str) -> Any:
    """A column of :meth:`FamilyMetric.add_batch`: an array or a tensor as it is (the family reads it whole: a
    batch of logits stays one), anything else as :func:`_ordered` makes it."""
    if hasattr(values, "shape") and hasattr(values, "__len__"):
        return values
    return _ordered(values, name)


def _length(column: Any, name: str) -> int:
    try:
        return len(column)
    except TypeError:  # a 0-d array
        raise InvalidInputError(f"{name} is {describe(column)}; expected one value per prediction") from None


def _columns(name: str, batches: list[dict[str, Any]]) -> dict[str, Any]:
    """The pending batches as one set of columns; a column that some batches have and others lack is an error (a
    single batch's further input is passed as it was given: an array or a tensor stays one)."""
    keys = {k for b in batches for k in b}
    out: dict[str, Any] = {}
    for key in keys:
        have = [b[key] for b in batches if key in b]
        if key == "references" and all(r is None for column in have for r in column):
            continue  # no reference anywhere (``add(reference=None)`` of a family that takes none)
        if len(have) < len(batches):
            raise InvalidInputError(
                f"{name}: {key}= was given with {len(have)} of the {len(batches)} batches; give it with every batch "
                "(or with none)"
            )
        out[key] = have[0] if len(have) == 1 else [v for column in have for v in column]
    return out
