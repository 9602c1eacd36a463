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
formula). Every catalogue family that no HF name maps to is served by its own name (``load("nist")``,
``load("edit-distance")``) with nothing kept here: :class:`FamilyMetric` derives it from the family's declaration
(its default preset, its config fields as options, its inputs) and :func:`family_output` gives its headline and
numbers. Any other name is refused with the names served and the closest ones.

Keyword arguments of ``load(name, **config)`` and of ``compute(**kwargs)`` are HF's keywords (mapped) or the
family's own options (passed as they are); anything else is an error that names the nearest supported keyword.
"""

from __future__ import annotations

import difflib
import struct
from collections.abc import Callable, ItemsView, KeysView, Mapping, Sequence, ValuesView
from typing import Any

from ._facade import (
    FamilyMetric,
    HFSpec,
    _ignored,
    _nearest,
    _ordered,
    _refused,
    _same,
    family_output,
    family_spec,
)
from ._inputs import describe
from .errors import InvalidInputError, UnknownOptionError, warn
from .metrics.catalog import CATALOG, get_family

__all__ = [
    "CATALOGUE_REFUSED",
    "HF_METRICS",
    "CombinedEvaluations",
    "FamilyMetric",
    "HFMetric",
    "HFSpec",
    "combine",
    "family_output",
    "family_spec",
    "load",
    "supported",
]


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
    if how == "mean":
        value = r.score
    else:  # HF's script sums with numpy (pairwise summation): the same call gives the same float
        import numpy as np

        value = float(np.sum(scores)) if how == "sum" else float(np.median(scores))
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


#: ``tokenizer_name`` of HF evaluate's pull request #698 (not merged: ``main``'s ``bleu`` has no such keyword) ->
#: the tokenizer that splits as it proposes (``str.split``; pycocoevalcap's PTBTokenizer)
_TOKENIZER_NAMES = {"whitespace": "whitespace", "coco": "coco", "ptb": "coco", "coco-ptb": "coco"}


def _tokenizer_name(value: Any) -> str:
    if value not in _TOKENIZER_NAMES:
        raise InvalidInputError(f"Unsupported tokenizer_name: {value!r}; one of {', '.join(_TOKENIZER_NAMES)}")
    return _TOKENIZER_NAMES[value]


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
            "tokenizer_name": ("tokenizer", _tokenizer_name),
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
    "squad": HFSpec("squad", "squad-v1", lambda r, hf: r.official(), inputs="squad", scale="0-100"),
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
        # HF's default config: unbabel-comet >= 2's Unbabel/wmt22-comet-da (found in the local cache, or a named error)
        defaults={"model": "Unbabel/wmt22-comet-da"},
        segments=lambda hf: True,
        inputs="sources",
    ),
}


#: Keywords that HF ``evaluate``'s metric of the same name takes with another meaning than the family's, refused with
#: the reason (HF's ``perplexity`` runs a model over texts; the family scores log-probabilities).
CATALOGUE_REFUSED: dict[str, dict[str, str]] = {
    "perplexity": {
        keyword: "nlgmetrics' perplexity runs no model: it takes the model's per-token log-probabilities (or "
        "logits and targets) as predictions; see docs/sari_perplexity.md"
        for keyword in ("model_id", "add_start_token", "max_length")
    },
}


def supported(*, families: bool = False) -> list[str]:
    """The HF metric names this build serves (those whose family is in the catalogue), with HF's keys and scales;
    with ``families=True``, every name :func:`load` serves: those and every catalogue family by its own name."""
    names = {name for name, spec in HF_METRICS.items() if spec.family in CATALOG}
    return sorted(names | set(CATALOG) if families else names)


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
        """HF's ``add``: one prediction and its reference (and source, for SARI) join the pending inputs. A set
        (or, except for SQuAD's items, a dict) is refused here, as HF refuses it, rather than at ``compute``."""
        kinds: tuple[type, ...] = (set, frozenset, KeysView, ValuesView, ItemsView)
        if self.spec.inputs != "squad":
            kinds += (Mapping,)
        for name, value in (("prediction", prediction), ("reference", reference), ("source", source)):
            if isinstance(value, kinds):
                raise InvalidInputError(f"{self.name}.add: {name} is a {type(value).__name__}; expected a string")
        self.add_batch(predictions=[prediction], references=[reference], sources=None if source is None else [source])

    def add_batch(self, *, predictions: Any = None, references: Any = None, sources: Any = None) -> None:
        """HF's ``add_batch``: a batch joins the pending inputs. As in HF ``evaluate``, both are required, sets
        and dicts are refused (their order, and so the pairing, would depend on the hash seed) and a batch whose
        columns differ in length is an error (it is never re-paired with the next one); a refused batch adds
        nothing."""
        if predictions is None or references is None:
            raise InvalidInputError(f"{self.name}.add_batch needs predictions= and references=")
        batch = {"predictions": _ordered(predictions, "predictions"), "references": _ordered(references, "references")}
        if self.spec.inputs == "sources":
            if sources is None:
                raise InvalidInputError(f"{self.name} needs sources= (one source sentence per prediction)")
            batch["sources"] = _ordered(sources, "sources")
        elif sources is not None:
            raise InvalidInputError(f"{self.name} takes no sources= (only sari does)")
        first, n = "predictions", len(batch["predictions"])
        for key, column in batch.items():
            if len(column) != n:  # HF evaluate's message
                raise InvalidInputError(f"Mismatch in the number of {first} ({n}) and {key} ({len(column)})")
        self._predictions.extend(batch["predictions"])
        self._references.extend(batch["references"])
        self._sources.extend(batch.get("sources", ()))

    def compute(self, *, predictions: Any = None, references: Any = None, sources: Any = None, **kwargs: Any) -> Any:
        """HF's ``compute``: the inputs given here join those given to ``add``/``add_batch``, and all of them are
        scored (then cleared), as HF ``evaluate`` does."""
        given = predictions is not None or references is not None or sources is not None
        if given:
            if predictions is None or references is None:
                raise InvalidInputError(f"{self.name}.compute needs both predictions= and references=")
            self.add_batch(predictions=predictions, references=references, sources=sources)
        if not self._predictions and not given:
            raise InvalidInputError(
                f"{self.name}.compute needs both predictions= and references= (or inputs given to add/add_batch)"
            )
        predictions, references, sources = self._predictions, self._references, self._sources
        self._predictions, self._references, self._sources = [], [], []
        config, hf = self.config_for(kwargs)
        if self.spec.inputs == "squad":
            predictions, references = _align_squad(predictions, references, by_last_id=self.name == "squad_v2")
        extra = {"sources": sources} if self.spec.inputs == "sources" else {}
        if self.spec.inputs == "squad":
            na = [p.get("no_answer_probability") if isinstance(p, Mapping) else None for p in predictions]
            if any(v is not None for v in na):
                # HF evaluate's features store no_answer_probability as float32: its thresholds are those values
                extra["na_probs"] = [0.0 if v is None else _float32(v) for v in na]
        result = self.family.compute(predictions, references, config, segments=self.spec.segments(hf), **extra)
        return self.spec.output(result, hf)


def _float32(value: Any) -> float:
    """``float(numpy.float32(value))`` (HF evaluate's features store ``no_answer_probability`` as float32), without
    importing numpy for a plain number."""
    if type(value) in (int, float):
        try:
            return float(struct.unpack("f", struct.pack("f", value))[0])
        except OverflowError:  # numpy's float32 gives inf (and warns)
            pass
    import numpy as np

    return float(np.float32(value))


def _squad_id(item: Any, i: int, side: str) -> str | None:
    if not isinstance(item, Mapping) or "id" not in item:
        return None
    value = item["id"]
    if not isinstance(value, str):
        raise InvalidInputError(f"{side}[{i}]['id'] is {describe(value)}; expected a string (HF's squad features)")
    return value


def _align_squad(predictions: list[Any], references: list[Any], *, by_last_id: bool) -> tuple[list[Any], list[Any]]:
    """HF's squad scripts match predictions to references by ``id``: the prediction of each reference's id (the
    last prediction with that id, as the scripts' ``{id: prediction}`` dict keeps it). Without any id on either
    side the two are paired in order (an nlgmetrics convenience: HF requires ids); with ids on some items only,
    the missing one is an error (pairing by position would be a guess). ``by_last_id`` (squad_v2): a question
    id that occurs twice is scored once, with its last occurrence, at the place of its first, as the official
    v2.0 script's ``{id: score}`` dicts do."""
    given_rids = [_squad_id(r, i, "references") for i, r in enumerate(references)]
    given_pids = [_squad_id(p, i, "predictions") for i, p in enumerate(predictions)]
    if all(r is None for r in given_rids) and all(p is None for p in given_pids):
        return predictions, references
    for side, ids in (("references", given_rids), ("predictions", given_pids)):
        if None in ids:
            k = ids.index(None)
            raise InvalidInputError(
                f"{side}[{k}] has no 'id', but other predictions or references have one: squad pairs each "
                "prediction with the reference of its id; give every prediction and reference its 'id' (or none "
                "at all, to pair them in order)"
            )
    rids = [r for r in given_rids if r is not None]
    pids = [p for p in given_pids if p is not None]
    if by_last_id:
        from .metrics.squad import first_repeated, last_occurrences

        keep = last_occurrences(rids)
        if keep is not None:
            warn(
                f"squad_v2: {len(rids) - len(keep)} reference(s) repeat a question id (the first: "
                f"{first_repeated(rids)!r}); as the official SQuAD v2.0 script, each id is scored once, with its "
                "last occurrence"
            )
            references = [references[k] for k in keep]
            rids = [rids[k] for k in keep]
    if rids == pids:
        return predictions, references
    by_id = dict(zip(pids, predictions, strict=True))
    if len(by_id) < len(pids):
        warn(
            f"{len(pids) - len(by_id)} prediction(s) repeat an id; as HF's script, the last prediction of each id is "
            "scored"
        )
    missing = [i for i in rids if i not in by_id]
    if missing:
        raise InvalidInputError(f"no prediction has the id of references {missing[:5]!r}")
    extra = len(set(by_id) - set(rids))
    if extra:
        warn(f"{extra} prediction(s) have an id that no reference has; ignored, as HF's script does")
    return [by_id[i] for i in rids], references


def load(name: str, **config: Any) -> HFMetric | FamilyMetric:
    """``evaluate.load(name)``: an HF metric name (HF's keys, scales and numbers; see :data:`HF_METRICS`), else a
    catalogue family by its own name (``"nist"``, ``"edit-distance"``: :class:`FamilyMetric`); ``config`` as in
    :meth:`HFMetric.compute`. An unknown name is an error that lists the names served and the closest ones."""
    if name == "code_eval":  # HF's code_eval runs the candidate programs: nothing is ever executed here
        raise UnknownOptionError(
            "'code_eval' executes the candidate programs; nlgmetrics never executes code. Run the candidates in "
            "your own sandbox, count the passing ones, and nlgmetrics.pass_at_k(num_samples, num_correct, "
            "k=[1, 10, 100]) gives code_eval's pass@k (its estimator, bit for bit)"
        )
    key = name.replace("-", "_") if isinstance(name, str) else None
    if key is not None and key in HF_METRICS and HF_METRICS[key].family in CATALOG:
        return HFMetric(key, **config)
    if key is not None and key in CATALOG:
        return FamilyMetric.with_spec(family_spec(key, CATALOGUE_REFUSED.get(key)), **config)
    pending = sorted(n for n, s in HF_METRICS.items() if s.family not in CATALOG)
    extra = f" ({', '.join(pending)}: not in this build yet)" if pending else ""
    close = difflib.get_close_matches(name, supported(families=True), n=3) if isinstance(name, str) else []
    hint = f". Did you mean {' or '.join(map(repr, close))}?" if close else ""
    raise UnknownOptionError(
        f"unknown HF evaluate metric {name!r}; supported: {', '.join(supported())}{extra}; and every catalogue family "
        f"by its own name: {', '.join(sorted(CATALOG))}{hint}"
    )


class CombinedEvaluations:
    """``evaluate.combine([...])``: every metric on the same inputs, one flat dict (keys prefixed by the metric's
    name when two metrics share a key, as HF does)."""

    def __init__(self, metrics: Sequence[str | HFMetric | FamilyMetric]) -> None:
        self.metrics = [load(m) if isinstance(m, str) else m for m in metrics]
        self._predictions: list[Any] = []
        self._references: list[Any] = []

    def add(self, *, prediction: Any = None, reference: Any = None) -> None:
        self.add_batch(predictions=[prediction], references=[reference])

    def add_batch(self, *, predictions: Any = None, references: Any = None) -> None:
        """As :meth:`HFMetric.add_batch`: both required, sets and dicts refused, the lengths checked."""
        if predictions is None or references is None:
            raise InvalidInputError("combine(...).add_batch needs predictions= and references=")
        preds, refs = _ordered(predictions, "predictions"), _ordered(references, "references")
        if len(preds) != len(refs):
            raise InvalidInputError(
                f"Mismatch in the number of predictions ({len(preds)}) and references ({len(refs)})"
            )
        self._predictions.extend(preds)
        self._references.extend(refs)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any]:
        """Every metric on the pending inputs and those given here, as HF's ``combine`` does."""
        if predictions is not None or references is not None:
            self.add_batch(predictions=predictions, references=references)
        predictions, references = self._predictions, self._references
        self._predictions, self._references = [], []
        outs = [(m.name, m.compute(predictions=predictions, references=references, **kwargs)) for m in self.metrics]
        outs = [(n, o if isinstance(o, dict) else {n: o}) for n, o in outs]
        counts: dict[str, int] = {}
        for _, o in outs:
            for k in o:
                counts[k] = counts.get(k, 0) + 1
        return {(f"{n}_{k}" if counts[k] > 1 else k): v for n, o in outs for k, v in o.items()}


def combine(metrics: Sequence[str | HFMetric | FamilyMetric]) -> CombinedEvaluations:
    """``evaluate.combine``: several metrics computed on the same inputs."""
    return CombinedEvaluations(metrics)
