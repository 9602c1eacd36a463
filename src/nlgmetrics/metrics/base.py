"""The plumbing every metric family shares.

A family is declared once, as a :class:`Family`: a config dataclass, a statistics dataclass, a batch kernel that
turns ``(predictions, references, config)`` into per-segment statistics, and a formula that turns summed
statistics into a result. Everything user-facing — the functions, the stateful :class:`~nlgmetrics.Metric`
classes, the torch adapter and the CLI — is built from those pieces, so no formula is written twice.

Data flows one way::

    text ──kernel──▶ StatsBatch (per segment) ──total()──▶ Stats ──formula──▶ Result (+ signature)
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from .._inputs import ReferenceSets, check_pairs, check_predictions
from .._np import is_numpy_bool, is_numpy_number, loaded
from ..errors import InvalidInputError, UnknownOptionError, unknown_option
from ..stats import Schema, Stats, StatsBatch

__all__ = [
    "MAX_ORDER",
    "MAX_WORKERS",
    "REDUCTIONS",
    "Family",
    "Result",
    "check_integer",
    "check_number",
    "check_reduction",
    "safe_div",
]

C = TypeVar("C")
S = TypeVar("S", bound=Stats)
R = TypeVar("R", bound="Result")

REDUCTIONS = ("mean", "sum", "none")
_NUMBERS = frozenset((int, float))


def check_reduction(reduction: str | None) -> str:
    """Normalise a torchmetrics-style reduction: ``"mean"``, ``"sum"``, ``"none"`` or ``None``."""
    if reduction is None:
        return "none"
    if reduction not in REDUCTIONS:
        raise unknown_option("reduction", reduction, [*list(REDUCTIONS), "None"])
    return reduction


def safe_div(num: Any, den: Any, default: float = 0.0) -> Any:
    """``num / den``, or ``default`` where ``den`` is 0. Works on numbers and on numpy arrays alike, so a
    formula written once serves corpus statistics and per-segment columns."""
    if type(den) in _NUMBERS and type(num) in _NUMBERS:  # the common case, asked first: plain numbers
        return num / den if den else default
    np = loaded()  # no numpy imported: neither is an array
    if np is not None and (isinstance(den, np.ndarray) or isinstance(num, np.ndarray)):
        num_a = np.asarray(num, dtype=np.float64)
        den_a = np.asarray(den, dtype=np.float64)
        out = np.full(np.broadcast(num_a, den_a).shape, default, dtype=np.float64)
        return np.divide(num_a, den_a, out=out, where=den_a != 0)
    return num / den if den else default


@dataclasses.dataclass(frozen=True, kw_only=True)
class Result:
    """Base of every result: the headline ``score``, the ``signature`` and optional per-segment scores."""

    score: Any
    signature: str = ""
    segments: tuple[float, ...] | None = None

    def __float__(self) -> float:
        if isinstance(self.score, (tuple, list)):
            raise TypeError("this result holds one score per segment (reduction='none'); use .score")
        return float(self.score)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field."""
        out: dict[str, Any] = {}
        np = loaded()
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if np is not None and isinstance(v, np.ndarray):
                v = v.tolist()
            elif isinstance(v, tuple):
                v = list(v)
            elif isinstance(v, Stats):
                v = v.to_dict()
            out[f.name] = v
        return out

    def to_pandas(self) -> Any:
        """A pandas DataFrame with one row per segment (compute with ``segments=True``): a ``segment`` column and
        the per-segment scores; the signature, the settings it spells out and the corpus result in ``df.attrs``.
        Needs the ``tables`` extra (see :mod:`nlgmetrics.tables`)."""
        from ..tables import result_to_pandas

        return result_to_pandas(self)

    def to_arrow(self) -> Any:
        """A pyarrow Table with one row per segment, the signature and settings in the schema metadata (see
        :meth:`to_pandas`)."""
        from ..tables import result_to_arrow

        return result_to_arrow(self)


# eq=False: a family is itself (equal to no other, hashable by identity); repr=False: see __repr__. Neither method
# is then generated, which keeps the import cheaper.
@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class Family(Generic[C, S, R]):
    """One metric family: config, statistics, kernel and formula.

    ``kernel(predictions, references, config) -> StatsBatch`` must be pure; ``formula(stats, config) -> Result``
    is the formula and nothing else. When ``vectorized`` is true, the formula also accepts statistics whose
    fields are numpy columns and then returns per-segment scores in ``score`` — this is how per-segment scores
    come from the very same formula without a Python loop.
    """

    name: str
    config_cls: type[C]
    stats_cls: type[S]
    kernel: Callable[[list[str], ReferenceSets, C], StatsBatch[S]]
    formula: Callable[[S, C], R]
    presets: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    default_preset: str | None = None
    single_reference: bool = False
    vectorized: bool = False
    #: Sizes of tuple fields of the statistics, derived from a config (e.g. the maximum n-gram order).
    stats_sizes: Callable[[C], dict[str, int]] | None = None
    #: Whether a higher score is better (``False`` for error rates and distances; ``None`` when it depends).
    higher_is_better: bool | None = True
    #: The range of the headline score, ``None`` for an open end (plots, reports, torchmetrics' plot bounds).
    bounds: tuple[float | None, float | None] = (None, None)
    #: The range under a given config, when a setting changes it (BLEU's ``scale``: 0-100 or 0-1); see
    #: :meth:`bounds_for`. Default: ``bounds`` whatever the config.
    config_bounds: Callable[[C], tuple[float | None, float | None]] | None = None
    #: The config whose formula gives meaningful *per-segment* scores, from the corpus config (see
    #: :meth:`segment_config`). It may change only what the formula does with the statistics (smoothing, effective
    #: order, ...), never what the kernel counts, so per-segment scores come from the corpus run's statistics.
    #: Default: the corpus config itself (chrF, TER, ROUGE, ... score one segment as the corpus).
    segment_config_of: Callable[[C], C] | None = None
    #: Whether each segment also has a *source* (the input the prediction was made from; SARI needs it). The
    #: kernel is then called as ``kernel(predictions, references, config, sources=[...])``.
    uses_sources: bool = False
    #: Names of further per-segment inputs, given by keyword to every interface and passed to the kernel as
    #: keywords when given (perplexity's ``num_bytes``, SQuAD's ``na_probs``); any other keyword is an error
    #: naming these.
    inputs: tuple[str, ...] = ()
    #: A small valid input, ``{"predictions": ..., "references": ..., "sources": ..., "options": {...}}``: the
    #: catalogue's interface tests run every interface on it (default: two short English segments).
    example: Mapping[str, Any] | None = None
    #: Other names an option is accepted under, ``{alias: option}`` (BLEU takes sacrebleu's ``tokenize`` for its
    #: ``tokenizer``): ``make_config`` and so every interface (functions, ``evaluate`` specs) resolve them.
    option_aliases: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: Whether a config may be reused for the same preset and options (``make_config`` then validates them once).
    #: Leave it off for a config whose construction reads the environment (files, devices).
    cache_configs: bool = False
    #: The statistics of one segment with one reference, ``pair_kernel(prediction, reference, config)``: the values
    #: of the statistics' fields, in order. It runs the batch kernel's own per-pair function behind the same cost
    #: guard, so it gives what ``kernel`` gives on that pair (a property test pins the two together). With it, a
    #: call on one pair (two strings: a reward computed thousands of times) goes from the kernel straight to the
    #: formula, without a batch around one segment. Only for a family whose ``batch_stats`` is this class's.
    pair_kernel: Callable[[str, str, C], tuple[Any, ...]] | None = None
    #: Relations of the statistics that depend on the config, beyond those the statistics declare
    #: (:meth:`Stats.inconsistency`): ``stats_check(values, config)`` gets what :meth:`Stats.inconsistency` gets
    #: and returns what is impossible, or ``None`` (the error rates: ``errors`` is the substitution-cost-weighted
    #: sum of the alignment's edits).
    stats_check: Callable[[Mapping[str, Any], C], str | None] | None = None

    def __post_init__(self) -> None:
        params = getattr(self.stats_cls, "__dataclass_params__", None)
        if params is None or not params.frozen or not issubclass(self.stats_cls, Stats):
            raise TypeError(f"{self.name}: the statistics must be a frozen dataclass deriving from Stats")
        if self.pair_kernel is not None and (self.uses_sources or self.inputs):
            raise ValueError(f"{self.name}: a pair_kernel takes a prediction and a reference, no sources or inputs")
        # configurations built so far, by (preset, options): a frozen config is resolved and validated once
        object.__setattr__(self, "_configs", {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    # ----------------------------------------------------------------- configuration
    def option_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self.config_cls))  # type: ignore[arg-type]

    def make_config(self, preset: str | None = None, **options: Any) -> C:
        """Build a config from a named preset plus explicit options (which win over the preset).

        Configs are frozen, so the same preset and options give the same (cached) config object: a call scoring one
        pair does not validate its options again."""
        key = None
        configs: dict[Any, C] = self._configs  # type: ignore[attr-defined]
        if self.cache_configs:
            # the key _config_key gives plain values, tried first as it is: a repeated call is one dict lookup
            # (a key of other types, or of unhashable values, cannot match it, and is built properly below)
            values = options.values()
            try:
                hit = configs.get((preset, *options, *values, *map(type, values)))
            except TypeError:
                hit = None
            if hit is not None:
                return hit
            key = _config_key(preset, options)
            if key is not None:
                hit = configs.get(key)
                if hit is not None:
                    return hit
        config = self._build_config(preset, options)
        if key is not None:
            if len(configs) >= _CONFIG_CACHE_SIZE:
                configs.clear()
            configs[key] = config
        return config

    def _build_config(self, preset: str | None, options: dict[str, Any]) -> C:
        valid = self.option_names()
        for alias, canonical in self.option_aliases.items():
            if alias in options:
                if canonical in options:
                    raise InvalidInputError(f"{self.name}: give {canonical!r} or its alias {alias!r}, not both")
                options = {(canonical if k == alias else k): v for k, v in options.items()}
        for key in options:
            if key not in valid:
                raise UnknownOptionError(
                    f"{self.name}: unknown option {key!r}; valid options are: {', '.join(sorted(valid))}"
                )
        values: dict[str, Any] = {}
        name = preset if preset is not None else self.default_preset
        if name is not None:
            if name not in self.presets:
                raise unknown_option(f"{self.name} preset", name, list(self.presets))
            values.update(self.presets[name])
            if "preset" in valid:
                values["preset"] = name
        values.update(options)
        return self.config_cls(**values)

    def zero(self, config: C) -> S:
        return self.schema(config).zero()

    def empty_batch(self, config: C) -> StatsBatch[S]:
        return self.schema(config).empty_batch()

    def bounds_for(self, config: C) -> tuple[float | None, float | None]:
        """The range of the headline score under ``config`` (``bounds`` unless a setting changes it)."""
        return self.config_bounds(config) if self.config_bounds is not None else self.bounds

    def segment_config(self, config: C) -> C:
        """The config of meaningful per-segment scores for the corpus ``config``: BLEU's corpus settings score
        a short segment 0 even when it equals its reference, so its per-segment scores use sacrebleu's
        ``sentence_bleu`` settings (exp smoothing, effective order); most families return ``config`` itself."""
        return self.segment_config_of(config) if self.segment_config_of is not None else config

    # ----------------------------------------------------------------- statistics
    def batch_stats(
        self,
        predictions: Any,
        references: Any,
        config: C,
        *,
        allow_empty: bool = False,
        sources: Any = None,
        **inputs: Any,
    ) -> StatsBatch[S]:
        """Check the input (:meth:`prepare`), then run the kernel: per-segment statistics of a batch."""
        prepared = self.prepare(predictions, references, config, allow_empty, sources, inputs)
        if prepared is None:
            return self.empty_batch(config)
        preds, refs, keywords = prepared
        return self.kernel(preds, refs, config, **keywords)

    def prepare(
        self, predictions: Any, references: Any, config: C, allow_empty: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> tuple[Any, Any, dict[str, Any]] | None:
        """The hook every interface's input goes through: check a batch and put it in the kernel's form,
        ``(predictions, references, keywords)`` for ``kernel(predictions, references, config, **keywords)``, or
        ``None`` for an empty batch (where ``allow_empty`` allows one; else raise). This default takes strings
        (:func:`~nlgmetrics._inputs.check_pairs`), the sources and the declared further inputs; a family whose
        input is something else (tokens, numbers, structured objects, a model's inputs) overrides it."""
        extra = self.check_inputs(inputs) if inputs else {}
        preds, refs = check_pairs(
            predictions, references, allow_empty=allow_empty, single_reference=self.single_reference
        )
        if sources is not None or self.uses_sources:
            srcs = self.check_sources(sources, len(preds))
            if srcs is not None:
                extra["sources"] = srcs
        return (preds, refs, extra) if preds else None

    def check_inputs(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """The further inputs that were given (``None`` is not given); raise naming the valid ones for others."""
        unknown = sorted(set(inputs) - set(self.inputs))
        if unknown:
            valid = ", ".join(self.inputs) if self.inputs else "none (only predictions and references)"
            raise InvalidInputError(f"{self.name} takes no {', '.join(unknown)}; its further inputs are: {valid}")
        return {k: v for k, v in inputs.items() if v is not None}

    def check_sources(self, sources: Any, n: int) -> list[str] | None:
        """The sources as a list of strings (one per prediction), or ``None`` for a family without sources."""
        if not self.uses_sources:
            if sources is not None:
                raise InvalidInputError(f"{self.name} takes no sources (only predictions and references)")
            return None
        if sources is None:
            raise InvalidInputError(f"{self.name} needs sources: pass sources= (one source text per prediction)")
        srcs = check_predictions(sources, name="sources", allow_empty=True)
        if len(srcs) != n:
            raise InvalidInputError(
                f"sources and predictions differ in length: {len(srcs)} sources but {n} predictions"
            )
        return srcs

    def segment_stats(self, prediction: str, references: str | list[str], config: C, *, source: Any = None) -> S:
        """The statistics of one segment."""
        sources = None if source is None else [source]
        return self.batch_stats([prediction], [references], config, sources=sources)[0]

    # ----------------------------------------------------------------- scores
    def segment_scores(self, batch: StatsBatch[S], config: C) -> tuple[float, ...]:
        """Per-segment headline scores, from the same formula as the corpus score."""
        if len(batch) == 0:
            return ()
        if self.vectorized:
            import numpy as np

            per = self.formula(self.stats_cls(**batch.columns), config)  # type: ignore[arg-type]
            return tuple(np.asarray(per.score, dtype=np.float64).tolist())
        return tuple(float(self.formula(s, config).score) for s in batch)

    def finalize(self, total: S, config: C, batch: StatsBatch[S] | None = None) -> R:
        """Apply the formula to summed statistics; attach per-segment scores and the signature."""
        result = self.formula(total, config)
        # the formula's result is new and ours alone: fill it in place rather than copy it field by field
        if batch is not None:
            seg = self.segment_scores(batch, config)
            object.__setattr__(result, "segments", seg)
            if getattr(config, "reduction", None) == "none":
                object.__setattr__(result, "score", seg)
        if not result.signature:
            object.__setattr__(result, "signature", signature_of(self, config))
        return result

    def pair(self, prediction: str, reference: str, config: C, *, segments: bool = False) -> R:
        """:meth:`compute` on one pair through :attr:`pair_kernel`: the same statistics, the same formula and the
        same signature as the batch path (:meth:`compute` takes it for two strings, with its common case inline)."""
        assert self.pair_kernel is not None
        values = self.pair_kernel(prediction, reference, config)
        total = self.stats_cls(*values)
        if not segments and not self.needs_segments(config):
            return self.finalize(total, config)
        names = self.stats_cls.field_names()
        batch = StatsBatch.from_lists(self.stats_cls, {name: [v] for name, v in zip(names, values, strict=True)})
        return self.finalize(total, config, batch)

    def needs_segments(self, config: C) -> bool:
        return getattr(config, "reduction", None) == "none"

    def inconsistency(self, values: Mapping[str, Any], segments: Any, config: C) -> str | None:
        """What makes ``values`` (a sum of ``segments`` segments' statistics, or per-segment columns with
        ``segments=1``) impossible for this family and config, or ``None``: see :meth:`Stats.inconsistency`."""
        found = self.stats_cls.inconsistency(values, segments)
        if found is None and self.stats_check is not None:
            found = self.stats_check(values, config)
        return found

    def function(
        self, name: str, module: str, doc: str, *, segments: bool = False, tokens: bool = False
    ) -> Callable[..., R]:
        """The family's public function ``name(predictions, references, *, preset=None, segments=..., **options)``:
        the config from ``preset`` and ``options`` (:meth:`make_config`), then :meth:`compute`. A family module
        declares it in one statement, ``chrf = CHRF.function("chrf", __name__, doc)``, and it belongs to that
        module (``__module__``): its doctests run there, it pickles under that name, and the typed stubs give it
        the family's options. ``segments`` is the default of ``segments=``; ``tokens`` says that a segment may
        also come as a list of tokens (METEOR, RIBES); the return type is the formula's."""
        family = self
        default = segments

        def function(
            predictions: Sequence[str] | str,
            references: Sequence[str | Sequence[str]] | str,
            *,
            preset: str | None = None,
            segments: bool = default,
            **options: Any,
        ) -> R:
            return family.compute(predictions, references, family.make_config(preset, **options), segments=segments)

        function.__name__ = function.__qualname__ = name
        function.__module__ = module
        function.__doc__ = doc
        function.__annotations__["return"] = getattr(self.formula, "__annotations__", {}).get("return", "Any")
        if tokens:  # strings, or pre-tokenised segments
            function.__annotations__.update(predictions="Sequence[Any] | str", references="Sequence[Any] | str")
        return function

    def config_signature(self, config: C) -> str:
        """The signature of ``config`` as results show it: every setting that changes a number, a local model
        named by the digest of its content (never by its path). The evaluate cache keys its entries by it, so
        anything that changes the signature, a model's weights included, changes the key. A family that names
        something by content (BERTScore's model folder) overrides it, and its results carry the same string."""
        return signature_of(self, config)

    def compute(
        self,
        predictions: Any,
        references: Any,
        config: C,
        *,
        segments: bool = False,
        sources: Any = None,
        **inputs: Any,
    ) -> R:
        """The functional API: statistics of the whole corpus, then the formula (:meth:`shortcut` first, and
        :meth:`complete` last)."""
        # one pair (two strings, nothing else: else the checks below name what is wrong): see pair_kernel
        if type(predictions) is str and type(references) is str and self.pair_kernel and sources is None and not inputs:
            if segments or self.needs_segments(config):
                return self.pair(predictions, references, config, segments=True)
            return self.finalize(self.stats_cls(*self.pair_kernel(predictions, references, config)), config)
        quick = self.shortcut(predictions, references, config, segments, sources, inputs)
        if quick is not None:
            return quick
        batch = self.batch_stats(predictions, references, config, sources=sources, **inputs)
        keep = segments or self.needs_segments(config)
        return self.complete(self.finalize(batch.total(), config, batch if keep else None), batch, config, segments)

    def shortcut(
        self, predictions: Any, references: Any, config: C, segments: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> R | None:
        """A family's fast path of :meth:`compute`: the result of a call it can score without a batch of statistics
        (the same statistics and sums as the general path), or ``None`` for the general path (the default)."""
        return None

    def complete(self, result: R, batch: StatsBatch[S], config: C, segments: bool) -> R:
        """What :meth:`compute` adds to a call's result beyond :meth:`finalize` (which the stateful class shares):
        ``batch`` is the call's statistics. The default adds nothing."""
        return result

    def schema(self, config: C) -> Schema[S]:
        """The layout of the statistics under ``config``: a :class:`~nlgmetrics.stats.Schema`."""
        return self.stats_cls.schema(**(self.stats_sizes(config) if self.stats_sizes else {}))


#: The most configurations a family keeps (a program that builds configs from many values does not grow forever).
_CONFIG_CACHE_SIZE = 512
_PLAIN = (str, int, bool, type(None))
_PLAIN_SET = frozenset(_PLAIN)


def _freeze(value: Any) -> Any:
    """A hashable key that tells apart values a config keeps apart (``1``, ``1.0`` and ``True`` are equal in
    Python but give different configs: another signature, or a validation error); ``None`` when ``value`` is not
    a plain value (the config is then built afresh)."""
    kind = type(value)
    if kind in _PLAIN:
        return (kind, value)
    if kind is float:
        return (kind, value.hex())
    if kind is tuple and set(map(type, value)) <= {str}:
        return (kind, value)
    if kind is tuple or kind is list:
        parts = tuple(_freeze(v) for v in value)
        return None if None in parts else (kind, parts)
    return None


def _config_key(preset: Any, options: dict[str, Any]) -> Any:
    if preset is not None and type(preset) is not str:
        return None
    kinds = tuple(map(type, options.values()))
    if set(kinds) <= _PLAIN_SET:  # plain values: equal and of the same type means the same option
        # flat: the names, the values, their types (as many of each, so two keys of one length line up)
        return (preset, *options, *options.values(), *kinds)
    key: list[Any] = [preset]
    for name, value in options.items():
        frozen = _freeze(value)
        if frozen is None:
            return None
        key.append((name, frozen))
    return tuple(key)


def signature_of(family: Family[Any, Any, Any], config: Any) -> str:
    """The signature of ``config``, built once per config object (configs are frozen)."""
    cached = getattr(config, "_nlgm_signature", None)
    if cached is not None and cached[0] == family.name:
        return cached[1]  # type: ignore[no-any-return]
    # a config built afresh for every call (a family that does not cache its configs) with the values of an earlier
    # one has its signature: looked up by the values (of plain types only, told apart by type) instead of rebuilt
    values = getattr(config, "__dict__", None)
    key = None if values is None else _config_key(None, values)
    if key is not None:
        key = (family.name, type(config), key)
        signature = _SIGNATURES.get(key)
    if key is None or signature is None:
        from ..signature import build_signature

        signature = build_signature(family.name, config)
        if key is not None:
            if len(_SIGNATURES) >= _CONFIG_CACHE_SIZE:
                _SIGNATURES.clear()
            _SIGNATURES[key] = signature
    with contextlib.suppress(AttributeError, TypeError):  # a config with __slots__ keeps none
        object.__setattr__(config, "_nlgm_signature", (family.name, signature))
    return signature


_SIGNATURES: dict[Any, str] = {}


#: The largest n-gram order any family accepts (sacrebleu's orders are 4 and 6; beyond this only memory grows).
MAX_ORDER = 100
#: The largest number of worker processes a family's option may ask for.
MAX_WORKERS = 256


def check_integer(name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> None:
    """Raise :class:`InvalidInputError` naming ``name`` unless ``value`` is an integer (never a bool or a float)
    within the bounds."""
    if isinstance(value, bool) or is_numpy_bool(value) or not (isinstance(value, int) or is_numpy_number(value, "i")):
        raise InvalidInputError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise InvalidInputError(f"{name} must be >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise InvalidInputError(f"{name} must be <= {maximum:,}, got {value!r}")


def check_number(name: str, value: Any, *, minimum: float | None = None, maximum: float | None = None) -> None:
    """Raise :class:`InvalidInputError` naming ``name`` unless ``value`` is a finite number within the bounds."""
    if isinstance(value, bool) or not (isinstance(value, (int, float)) or is_numpy_number(value)):
        raise InvalidInputError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value):  # NaN fails every comparison below, so it must be caught first
        raise InvalidInputError(f"{name} must be a finite number, got {value!r}")
    if minimum is not None and value < minimum:
        raise InvalidInputError(f"{name} must be >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise InvalidInputError(f"{name} must be <= {maximum}, got {value!r}")
