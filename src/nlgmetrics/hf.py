"""``nlgmetrics.load(name)``: the call shape of Hugging Face ``evaluate``, offline, over the catalogued families.

>>> import nlgmetrics
>>> bleu = nlgmetrics.load("bleu")
>>> r = bleu.compute(predictions=["the cat sat on the mat"], references=[["the cat sat on a mat"]])
>>> round(r["bleu"], 4), r["translation_length"], r["reference_length"]
(0.5373, 6, 6)
>>> rouge = nlgmetrics.load("rouge")
>>> rouge.add_batch(predictions=["hello there"], references=["hello there general kenobi"])
>>> rouge.add(prediction="foo bar", reference="foo bar")
>>> [round(v, 4) for v in rouge.compute(use_aggregator=False)["rouge1"]]
[0.6667, 1.0]

Nothing here computes a score. Each HF metric name is one row of :data:`HF_METRICS`: the catalogue family that
computes it, the preset that reproduces HF's script, how HF's ``compute`` keywords map onto the family's options,
and which fields of the family's result become HF's keys (the same numbers, picked and renamed; never a second
formula). A name whose family is not in this build's catalogue is refused with the list of those that are.

Keyword arguments of ``load(name, **config)`` and of ``compute(**kwargs)`` are HF's keywords (mapped) or the
family's own options (passed as they are); anything else is an error that names the nearest supported keyword.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .errors import InvalidInputError, UnknownOptionError, warn
from .metrics.catalog import CATALOG, get_family

__all__ = ["HF_METRICS", "CombinedEvaluations", "HFMetric", "HFSpec", "combine", "load", "supported"]

Pick = Callable[[Any, dict[str, Any]], Any]


def _same(option: str) -> tuple[str, Callable[[Any], Any]]:
    return option, lambda v: v


def _refused(keyword: str, why: str) -> tuple[str, Callable[[Any], Any]]:
    def check(value: Any) -> Any:
        raise InvalidInputError(f"{keyword}={value!r} is not supported: {why}")

    return "", check


def _tokenizer(keyword: str, default: str) -> tuple[str, Callable[[Any], Any]]:
    """HF passes a tokenizer *callable*; nlgmetrics takes a registered tokenizer name (the callable's work must be
    inside the signature, so it is refused with the names to use instead)."""

    def convert(value: Any) -> Any:
        if value is None:
            return default
        if isinstance(value, str):
            return value
        raise InvalidInputError(
            f"{keyword}: a tokenizer callable is not supported (its tokens would not be in the signature); pass a "
            f"registered tokenizer name such as {default!r} (the script's default), 'intl', 'zh', 'char' or "
            "'whitespace'"
        )

    return "tokenizer", convert


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


def _bleu_out(r: Any, hf: dict[str, Any]) -> dict[str, Any]:
    return {
        "bleu": r.score,
        "precisions": list(r.precisions),
        "brevity_penalty": r.bp,
        "length_ratio": r.ratio,
        "translation_length": r.hyp_len,
        "reference_length": r.ref_len,
    }


def _sacrebleu_out(r: Any, hf: dict[str, Any]) -> dict[str, Any]:
    return {
        "score": r.score,
        "counts": list(r.matches),
        "totals": list(r.totals),
        "precisions": list(r.precisions),
        "bp": r.bp,
        "sys_len": r.hyp_len,
        "ref_len": r.ref_len,
    }


def _rouge_out(r: Any, hf: dict[str, Any]) -> dict[str, Any]:
    if hf.get("use_aggregator", True):
        return {t: agg.mid.fmeasure for t, agg in r.bootstrap.items()}
    return {t: [seg[t].fmeasure for seg in r.segments] for t in r.f1}


def _character_out(r: Any, hf: dict[str, Any]) -> dict[str, Any]:
    scores = [float(s) for s in r.segments]
    how = hf.get("aggregate", "mean")
    value = {"mean": r.score, "sum": float(np.sum(scores)), "median": float(np.median(scores))}[how]
    out: dict[str, Any] = {"cer_score": value}
    if hf.get("return_all_scores", False):
        out["cer_scores"] = scores
    return out


def _check_aggregate(value: Any) -> Any:
    if value not in ("mean", "sum", "median"):
        raise InvalidInputError("'aggregate' must be one of 'sum', 'mean', 'median'")
    return value


def _bertscore_out(r: Any, hf: dict[str, Any]) -> dict[str, Any]:
    return {
        "precision": [float(v) for v in r.precision],
        "recall": [float(v) for v in r.recall],
        "f1": [float(v) for v in r.f1],
        "hashcode": r.hash,
    }


def _smooth(value: Any) -> str:
    return "add-one" if value else "none"


#: HF ``evaluate`` metric name -> how a catalogued family reproduces it (see :class:`HFSpec`).
HF_METRICS: dict[str, HFSpec] = {
    "bleu": HFSpec(
        "bleu",
        "nmt",
        _bleu_out,
        {
            "max_order": _same("max_order"),
            "smooth": ("smoothing", _smooth),
            "tokenizer": _tokenizer("tokenizer", "13a"),
        },
        scale="0-1",
    ),
    "sacrebleu": HFSpec(
        "bleu",
        "sacrebleu",
        _sacrebleu_out,
        {
            "smooth_method": _same("smoothing"),
            "smooth_value": _same("smooth_value"),
            "lowercase": _same("lowercase"),
            "tokenize": _tokenizer("tokenize", "13a"),
            "use_effective_order": _same("effective_order"),
            **_ignored("force"),
        },
        scale="0-100",
    ),
    "chrf": HFSpec(
        "chrf",
        "sacrebleu",
        lambda r, hf: {
            "score": r.score,
            "char_order": hf.get("char_order", 6),
            "word_order": hf.get("word_order", 0),
            "beta": hf.get("beta", 2),
        },
        {k: _same(k) for k in ("char_order", "word_order", "beta", "lowercase", "whitespace", "eps_smoothing")},
        scale="0-100",
    ),
    "ter": HFSpec(
        "ter",
        "sacrebleu",
        lambda r, hf: {"score": r.score, "num_edits": r.num_edits, "ref_length": r.ref_length},
        {
            "normalized": _same("normalized"),
            "ignore_punct": _same("no_punct"),
            "support_zh_ja_chars": _same("asian_support"),
            "case_sensitive": _same("case_sensitive"),
        },
        scale="0-100",
    ),
    "rouge": HFSpec(
        "rouge",
        "rouge-score",
        _rouge_out,
        {
            "rouge_types": (
                "rouge_types",
                lambda v: tuple(v) if v is not None else ("rouge1", "rouge2", "rougeL", "rougeLsum"),
            ),
            "use_stemmer": _same("use_stemmer"),
            "tokenizer": _tokenizer("tokenizer", "rouge-score"),
            "use_aggregator": ("bootstrap_samples", lambda v: 1000 if v else 0),
        },
        # rouge-score's BootstrapAggregator (mid = median of 1000 resampled means), drawn as rouge-score draws
        # after ``numpy.random.seed(seed)``: HF's script draws from the unseeded global generator instead
        defaults={"bootstrap_samples": 1000, "bootstrap_rng": "legacy", "seed": 0},
        segments=lambda hf: not hf.get("use_aggregator", True),
        scale="0-1",
    ),
    "bertscore": HFSpec(
        "bertscore",
        "bert-score",
        _bertscore_out,
        {
            "lang": _same("lang"),
            "model_type": _same("model"),
            "num_layers": _same("num_layers"),
            "idf": _same("idf"),
            "device": _same("device"),
            "batch_size": _same("batch_size"),
            "rescale_with_baseline": _same("rescale_with_baseline"),
            "baseline_path": _same("baseline_path"),
            "all_layers": ("", lambda v: v if not v else _refused("all_layers", "one layer is scored")[1](v)),
            **_ignored("verbose", "nthreads", "use_fast_tokenizer"),
        },
        defaults={"reduction": None},
        scale="0-1",
    ),
    "wer": HFSpec("wer", "jiwer", lambda r, hf: r.score, _ignored("concatenate_texts"), scale="0-1"),
    "cer": HFSpec("cer", "jiwer", lambda r, hf: r.score, _ignored("concatenate_texts"), scale="0-1"),
    "exact_match": HFSpec(
        "exact_match",
        "hf-evaluate",
        lambda r, hf: {"exact_match": r.score},
        {k: _same(k) for k in ("regexes_to_ignore", "ignore_case", "ignore_punctuation", "ignore_numbers")},
        scale="0-1",
    ),
    "squad": HFSpec(
        "squad", "squad-v1", lambda r, hf: {"exact_match": r.exact_match, "f1": r.f1}, inputs="squad", scale="0-100"
    ),
    "squad_v2": HFSpec(
        "squad",
        "squad-v2",
        lambda r, hf: r.official(),
        {"no_answer_threshold": _same("na_prob_thresh")},
        inputs="squad",
        scale="0-100",
    ),
    "meteor": HFSpec(
        "meteor",
        "nltk",
        lambda r, hf: {"meteor": r.score},
        {k: _same(k) for k in ("alpha", "beta", "gamma")},
        scale="0-1",
        note="HF's meteor splits words with NLTK's word_tokenize (punctuation split off); nlgmetrics' METEOR splits "
        "on whitespace: the numbers are HF's on pre-tokenised text only",
    ),
    "google_bleu": HFSpec(
        "gleu",
        "hf-google-bleu",
        lambda r, hf: {"google_bleu": r.score},
        {
            "min_len": _same("min_len"),
            "max_len": _same("max_len"),
            "tokenizer": _tokenizer("tokenizer", "sacrebleu-13a"),
        },
        scale="0-1",
    ),
    "character": HFSpec(
        "character",
        "cer",
        _character_out,
        {"aggregate": ("", _check_aggregate), "return_all_scores": ("", lambda v: v)},
        segments=lambda hf: True,
        scale="0-1 (can exceed 1)",
    ),
    "sari": HFSpec("sari", "evaluate", lambda r, hf: {"sari": r.score}, inputs="sources", scale="0-100"),
    # HF's comet script: load("comet", model) then compute(predictions, references, sources, gpus, progress_bar)
    "comet": HFSpec(
        "comet",
        "unbabel-comet",
        lambda r, hf: {"mean_score": r.score, "scores": list(r.scores or ())},
        {"gpus": ("", lambda v: v), "progress_bar": ("", lambda v: v), "config_name": _same("model")},
        segments=lambda hf: True,
        inputs="sources",
    ),
}


def supported() -> list[str]:
    """The HF metric names this build serves (those whose family is in the catalogue)."""
    return sorted(name for name, spec in HF_METRICS.items() if spec.family in CATALOG)


def _nearest(word: str, candidates: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.0)
    return close[0] if close else ""


class HFMetric:
    """One loaded metric: ``compute``, ``add``, ``add_batch``, as an ``evaluate.EvaluationModule``."""

    def __init__(self, name: str, **config: Any) -> None:
        self.name = name
        self.spec = HF_METRICS[name]
        self.family = get_family(self.spec.family)
        self._load_kwargs = self._check(config)
        if self.spec.note:
            warn(f"nlgmetrics.load({name!r}): {self.spec.note}")
        self._predictions: list[Any] = []
        self._references: list[Any] = []
        self._sources: list[Any] = []

    def __repr__(self) -> str:
        return f"nlgmetrics.load({self.name!r}): {self.family.name} preset {self.spec.preset!r}"

    def _check(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        known = [*self.spec.keywords, *self.family.option_names()]
        for key in kwargs:
            if key not in known:
                raise UnknownOptionError(
                    f"{self.name}: keyword {key!r} is not supported (nearest supported: {_nearest(key, known)!r}); "
                    f"supported keywords: {', '.join(sorted(self.spec.keywords)) or 'none'}; nlgmetrics options "
                    f"of {self.family.name}: {', '.join(self.family.option_names())}"
                )
        return dict(kwargs)

    def config_for(self, kwargs: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The family config of one call, and the HF keywords it was given (``load`` ones, then ``compute``)."""
        given = {**self._load_kwargs, **self._check(kwargs)}
        options: dict[str, Any] = dict(self.spec.defaults)
        hf: dict[str, Any] = {}
        for key, value in given.items():
            if key in self.spec.keywords:
                option, convert = self.spec.keywords[key]
                converted = convert(value)
                hf[key] = value
                if option:
                    options[option] = converted
            else:
                options[key] = value
        # one call scores one whole corpus: a family's corpus config (BERTScore's idf over the call's references)
        build = getattr(self.family, "corpus_config", self.family.make_config)
        return build(self.spec.preset, **options), hf

    def add(self, *, prediction: Any = None, reference: Any = None, source: Any = None) -> None:
        self.add_batch(predictions=[prediction], references=[reference], sources=None if source is None else [source])

    def add_batch(self, *, predictions: Any = None, references: Any = None, sources: Any = None) -> None:
        if predictions is None or references is None:
            raise InvalidInputError(f"{self.name}.add_batch needs predictions= and references=")
        self._predictions.extend(predictions)
        self._references.extend(references)
        if sources is not None:
            self._sources.extend(sources)

    def compute(self, *, predictions: Any = None, references: Any = None, sources: Any = None, **kwargs: Any) -> Any:
        """HF's ``compute``: with no inputs, those given to ``add``/``add_batch`` (then cleared)."""
        if predictions is None and references is None and self._predictions:
            predictions, references = self._predictions, self._references
            sources = self._sources or sources
            self._predictions, self._references, self._sources = [], [], []
        if predictions is None or references is None:
            raise InvalidInputError(
                f"{self.name}.compute needs both predictions= and references= (or inputs given to add/add_batch)"
            )
        config, hf = self.config_for(kwargs)
        predictions, references = list(predictions), list(references)
        if self.spec.inputs == "squad":
            predictions, references = _align_squad(predictions, references)
        if self.spec.inputs == "sources" and sources is None:
            raise InvalidInputError(f"{self.name}.compute needs sources= (one source sentence per prediction)")
        extra = {"sources": list(sources)} if sources is not None else {}
        if self.spec.inputs == "squad":
            na = [p.get("no_answer_probability") if isinstance(p, Mapping) else None for p in predictions]
            if any(v is not None for v in na):
                # HF evaluate's features store no_answer_probability as float32: its thresholds are those values
                extra["na_probs"] = [0.0 if v is None else float(np.float32(v)) for v in na]
        result = self.family.compute(predictions, references, config, segments=self.spec.segments(hf), **extra)
        return self.spec.output(result, hf)


def _align_squad(predictions: list[Any], references: list[Any]) -> tuple[list[Any], list[Any]]:
    """HF's squad scripts match predictions to references by ``id``; the family takes them in order."""
    ids = [r.get("id") if isinstance(r, Mapping) else None for r in references]
    pids = [p.get("id") if isinstance(p, Mapping) else None for p in predictions]
    if None in ids or None in pids or ids == pids:
        return predictions, references
    by_id = {pid: p for pid, p in zip(pids, predictions, strict=False)}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise InvalidInputError(f"no prediction has the id of references {missing[:5]!r}")
    return [by_id[i] for i in ids], references


def load(name: str, **config: Any) -> HFMetric:
    """``evaluate.load(name)`` for the names of :func:`supported`; ``config`` as in :meth:`HFMetric.compute`."""
    if not isinstance(name, str) or name not in HF_METRICS or HF_METRICS[name].family not in CATALOG:
        pending = sorted(n for n, s in HF_METRICS.items() if s.family not in CATALOG)
        extra = f" ({', '.join(pending)}: not in this build yet)" if pending else ""
        raise UnknownOptionError(f"unknown HF evaluate metric {name!r}; supported: {', '.join(supported())}{extra}")
    return HFMetric(name, **config)


class CombinedEvaluations:
    """``evaluate.combine([...])``: every metric on the same inputs, one flat dict (keys prefixed by the metric's
    name when two metrics share a key, as HF does)."""

    def __init__(self, metrics: Sequence[str | HFMetric]) -> None:
        self.metrics = [load(m) if isinstance(m, str) else m for m in metrics]
        self._predictions: list[Any] = []
        self._references: list[Any] = []

    def add(self, *, prediction: Any = None, reference: Any = None) -> None:
        self.add_batch(predictions=[prediction], references=[reference])

    def add_batch(self, *, predictions: Any = None, references: Any = None) -> None:
        if predictions is None or references is None:
            raise InvalidInputError("combine(...).add_batch needs predictions= and references=")
        self._predictions.extend(predictions)
        self._references.extend(references)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any]:
        if predictions is None and references is None and self._predictions:
            predictions, references = self._predictions, self._references
            self._predictions, self._references = [], []
        outs = [(m.name, m.compute(predictions=predictions, references=references, **kwargs)) for m in self.metrics]
        outs = [(n, o if isinstance(o, dict) else {n: o}) for n, o in outs]
        counts: dict[str, int] = {}
        for _, o in outs:
            for k in o:
                counts[k] = counts.get(k, 0) + 1
        return {(f"{n}_{k}" if counts[k] > 1 else k): v for n, o in outs for k, v in o.items()}


def combine(metrics: Sequence[str | HFMetric]) -> CombinedEvaluations:
    """``evaluate.combine``: several metrics computed on the same inputs."""
    return CombinedEvaluations(metrics)
