"""ROUGE: rouge-score and ROUGE-1.5.5 numbers exactly, with a Unicode default that keeps every script.

Types: ``rouge1`` ... ``rouge9`` (n-gram overlap), ``rougeL`` (longest common subsequence of the whole texts),
``rougeLsum`` (summary-level: the union LCS of each reference sentence with the prediction's sentences),
``rougeW`` (weighted LCS), ``rougeS<d>``/``rougeS*`` and ``rougeSU<d>``/``rougeSU*`` (skip bigrams, with unigrams).
Each segment gets precision, recall and F per type; the corpus score is their mean over segments.

Presets and the exact commands they reproduce:

``rouge-score``
    rouge-score 0.1.2: ``rouge_scorer.RougeScorer(rouge_types, use_stemmer=...)`` and, per segment,
    ``scorer.score_multi(references, prediction)`` (the reference with the best F, per type; ``score`` when
    there is one reference); the corpus score is the mean over segments. This is what Hugging Face ``evaluate``'s
    ``rouge`` reports with ``use_aggregator=False`` (then averaged). Its ``BootstrapAggregator`` (low/mid/high,
    mid = the median of 1000 resampled means) is reproduced, seeded, with ``bootstrap_samples=1000``.
``rouge155``
    ``ROUGE-1.5.5.pl -e data -a -n 2 [-m] [-s] [-f A|B] [-p alpha] [-l N | -b N] [-2 d -u] [-w 1.2]`` with
    each summary given one sentence per line (SPL): the per-summary numbers of ``-d``, rounded to five
    decimals as the script prints them; the corpus score is their exact mean, and with ``bootstrap_samples``
    the script's resampled average and confidence interval (``-c``/``-r``).
``coco``
    pycocoevalcap 1.2 ``Rouge().compute_score(gts, res)`` (the COCO caption evaluation's ROUGE-L) on captions
    tokenized by its ``PTBTokenizer`` (tokenizer ``coco-rouge``): ROUGE-L with beta 1.2 from the highest
    precision and the highest recall over the references (``multi_ref="max-pr"``), mean over the images.
``rouge155-empty-db``
    The same script after the ``buildExeptionDB.pl`` repair command copied into many pyrouge install guides,
    which rebuilds its WordNet exception database empty, so that ``-m`` is Porter stemming alone. The
    ROUGE-1.5.5 outputs on SummEval that the parity tests compare with were made this way.
``pltrdy``
    The ``rouge`` package 1.0.1 (pltrdy): ``Rouge().get_scores(hyps, refs, avg=True)`` (per segment: ``avg=False``),
    set-based n-gram counting, sentences split at ``.``, summary-level ROUGE-L; one reference per segment.
``llamafactory``
    LLaMA-Factory 0.9.5's ``ComputeSimilarity``: ``rouge-chinese`` 1.0.3 on jieba words, each value
    ``round(v * 100, 4)`` (0-100), the mean over segments. Both: :mod:`nlgmetrics.metrics.rouge.sets`.

With no preset, the configuration is the ``rouge-score`` one with the ``unicode`` tokenizer: identical numbers
on ASCII text, while letters of other scripts are kept (rouge-score deletes them, so two identical Japanese
strings score 0 there) and Chinese and Japanese are split into characters. ``tokenizer="ja-mecab"`` and
``"zh-jieba"`` segment words instead (extras ``[ja]``, ``[zh]``).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import add
from typing import TYPE_CHECKING, Any

from ..._inputs import ReferenceSets, check_pairs
from ...algorithms import fastpath
from ...stats import StatsBatch
from ...text.coverage import flagged, warn_flagged
from ...text.rouge_tokenize import ascii_kept_fraction
from ..base import Family, Result
from .config import (  # noqa: F401  (the names that lived here stay importable)
    _MEASURES,
    BOOTSTRAP_RNGS,
    DEFAULT_TYPES,
    MULTI_REF,
    SCORINGS,
    SENTENCE_SPLITS,
    RougeConfig,
    RougeStats,
)
from .kernel import rouge_columns
from .scores import AggregateScore, RougeScore

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ROUGE",
    "AggregateScore",
    "RougeConfig",
    "RougeFamily",
    "RougeResult",
    "RougeScore",
    "RougeStats",
    "rouge",
]


#: Batches with at least this many segments are spread over ``workers`` processes.
PARALLEL_MIN_SEGMENTS = 2000


#: The high part of a per-segment value is a multiple of this: sums of up to 2**22 of them are exact in float64.
_GRID = 2.0**30


@dataclasses.dataclass(frozen=True, kw_only=True)
class RougeResult(Result):
    """``score`` maps each type to its mean F (the shape of Hugging Face ``evaluate``'s ``rouge``);
    ``precision``, ``recall`` and ``f1`` (alias ``fmeasure``) map each type to its mean.

    ``result["rouge1"]`` is a :class:`RougeScore`. With ``segments=True``, ``segments`` holds one dict per
    segment, type -> :class:`RougeScore` (rouge-score's per-pair output). With a bootstrap, ``bootstrap`` maps
    each type to an :class:`AggregateScore`.
    """

    precision: dict[str, float] = dataclasses.field(default_factory=dict)
    recall: dict[str, float] = dataclasses.field(default_factory=dict)
    f1: dict[str, float] = dataclasses.field(default_factory=dict)
    count: int = 0
    segments: tuple[dict[str, RougeScore], ...] | None = None  # type: ignore[assignment]
    bootstrap: dict[str, AggregateScore] | None = None

    @property
    def fmeasure(self) -> dict[str, float]:
        return self.f1

    @property
    def rouge_types(self) -> tuple[str, ...]:
        return tuple(self.f1)

    def __getitem__(self, rouge_type: str) -> RougeScore:
        if rouge_type not in self.f1:
            raise KeyError(f"{rouge_type!r} was not computed; this result has {list(self.f1)}")
        return RougeScore(self.precision[rouge_type], self.recall[rouge_type], self.f1[rouge_type])

    def __float__(self) -> float:
        if len(self.f1) == 1:
            return float(next(iter(self.f1.values())))
        raise TypeError(f"this result holds {len(self.f1)} ROUGE types; use result.score[type] or result[type]")

    def headline_values(self) -> dict[str, float]:
        """Flat ``{"<type>_precision"|"_recall"|"_fmeasure": value}``, the keys of torchmetrics' ``ROUGEScore``."""
        out: dict[str, float] = {}
        for t in self.f1:
            out[f"{t}_precision"] = self.precision[t]
            out[f"{t}_recall"] = self.recall[t]
            out[f"{t}_fmeasure"] = self.f1[t]
        return out

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.segments is not None:
            out["segments"] = [{t: s._asdict() for t, s in seg.items()} for seg in self.segments]
        if self.bootstrap is not None:
            out["bootstrap"] = {
                t: {k: v._asdict() for k, v in agg._asdict().items()} for t, agg in self.bootstrap.items()
            }
        return out


# ---------------------------------------------------------------------------------------------------- kernel
def _warn_dropped(preds: list[str], refs: ReferenceSets, cfg: RougeConfig) -> None:
    """Warn once per batch when an ASCII-only tokenizer drops most of the letters of a segment."""
    if cfg.tokenizer not in ("rouge-score", "rouge155"):
        return
    lower_first = cfg.tokenizer == "rouge-score"
    bad = flagged(preds, refs, lambda t: ascii_kept_fraction(t, lower_first=lower_first) < 0.5)
    if not bad:
        return
    texts = [*preds, *refs.flat]
    kept = ascii_kept_fraction(texts[bad[0]], lower_first=lower_first)
    warn_flagged(
        preds,
        refs,
        bad,
        lambda first, more: (
            f"rouge: the {cfg.tokenizer!r} tokenizer keeps only ASCII letters and digits; it drops "
            f"{100 * (1 - kept):.0f}% of the letters and digits of {first}"
            f"{f'; {more} more segment(s) lose most of their text too' if more else ''}. Scores of such text are "
            "meaningless (identical non-English texts score 0); use tokenizer='unicode' (the default), 'ja-mecab' or "
            "'zh-jieba'."
        ),
    )


def _chunk_columns(args: tuple[list[str], ReferenceSets, RougeConfig]) -> np.ndarray:
    return rouge_columns(*args, grid=_GRID)


def _split(preds: list[str], refs: ReferenceSets, parts: int) -> list[tuple[list[str], ReferenceSets]]:
    import numpy as np

    n = len(preds)
    bounds = np.linspace(0, n, parts + 1).astype(int)
    out = []
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if refs.starts is None:
            out.append((preds[lo:hi], ReferenceSets(refs.flat[lo:hi])))
        else:
            a = int(refs.starts[lo])
            b = int(refs.starts[hi]) if hi < n else len(refs.flat)
            out.append((preds[lo:hi], ReferenceSets(refs.flat[a:b], refs.starts[lo:hi] - a)))
    return out


def _parallel_columns(preds: list[str], refs: ReferenceSets, cfg: RougeConfig) -> np.ndarray:
    """The scores of a large batch over ``workers`` processes (segments are independent: no number changes)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    import numpy as np

    method = "fork" if "fork" in mp.get_all_start_methods() and os.name == "posix" else "spawn"
    with ProcessPoolExecutor(max_workers=cfg.workers, mp_context=mp.get_context(method)) as pool:
        results = list(pool.map(_chunk_columns, [(p, r, cfg) for p, r in _split(preds, refs, cfg.workers)]))
    return np.concatenate(results, axis=0)


#: The size of the fast-path rule ``rouge.kernel`` (read-only: :mod:`nlgmetrics.algorithms.fastpath` decides).
_SMALL = fastpath.RULES["rouge.kernel"].rows_up_to


def _rouge_kernel(preds: list[str], refs: ReferenceSets, cfg: RougeConfig) -> StatsBatch[RougeStats]:
    _warn_dropped(preds, refs, cfg)
    set_based = cfg.scoring in ("pltrdy", "llamafactory")  # set-based counting of those packages: rouge/sets.py
    if not set_based and fastpath.rows("rouge.kernel", len(preds)):
        # per segment: hi P, R, F then low P, R, F, each a tuple over the types (no numpy: a one-pair update)
        rows = [RougeStats(*row, 1) for row in rouge_columns(preds, refs, cfg, grid=_GRID, rows=True)]  # type: ignore[call-arg]
        return StatsBatch.from_rows(RougeStats, rows)
    import numpy as np

    if set_based:
        from .sets import set_rouge_columns

        cols = set_rouge_columns(preds, refs, cfg)
        scores = np.empty((len(preds), len(cfg.rouge_types), 6), dtype=np.float64)
        for j, m in enumerate(_MEASURES):
            hi = np.rint(cols[m] * _GRID) / _GRID
            scores[:, :, j], scores[:, :, 3 + j] = hi, cols[m] - hi  # both exact: hi + low == value
    elif cfg.workers > 1 and len(preds) >= PARALLEL_MIN_SEGMENTS:
        scores = _parallel_columns(preds, refs, cfg)
    else:
        scores = rouge_columns(preds, refs, cfg, grid=_GRID)
    # (segments, types, hi P/R/F then low P/R/F)
    out: dict[str, np.ndarray] = {}
    for j, m in enumerate(_MEASURES):
        out[m], out[f"{m}_low"] = scores[:, :, j], scores[:, :, 3 + j]
    out["count"] = np.ones(len(preds), dtype=np.int64)
    return StatsBatch(RougeStats, out)


# ---------------------------------------------------------------------------------------------------- formula
def _means(stats: RougeStats, types: Sequence[str]) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Per type, the mean precision, recall and F: ``(hi + low) / count`` of each (0 without segments)."""
    return _means_of(
        stats.precision, stats.precision_low, stats.recall, stats.recall_low, stats.fmeasure, stats.fmeasure_low,
        int(stats.count), types,
    )  # fmt: skip


def _means_of(
    p_hi: Sequence[float], p_lo: Sequence[float], r_hi: Sequence[float], r_lo: Sequence[float],
    f_hi: Sequence[float], f_lo: Sequence[float], n: int, types: Sequence[str],
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:  # fmt: skip
    if not n:
        zero = dict.fromkeys(types, 0.0)
        return zero, dict(zero), dict(zero)
    if n == 1:  # (hi + lo) / 1 is hi + lo: the sums alone, at C speed (a one-pair call, each segment's scores)
        return (
            dict(zip(types, map(add, p_hi, p_lo), strict=True)),
            dict(zip(types, map(add, r_hi, r_lo), strict=True)),
            dict(zip(types, map(add, f_hi, f_lo), strict=True)),
        )
    return (
        dict(zip(types, [x / n for x in map(add, p_hi, p_lo)], strict=True)),
        dict(zip(types, [x / n for x in map(add, r_hi, r_lo)], strict=True)),
        dict(zip(types, [x / n for x in map(add, f_hi, f_lo)], strict=True)),
    )


def rouge_from_stats(stats: RougeStats, cfg: RougeConfig) -> RougeResult:
    """Mean precision, recall and F per type: the sums of the per-segment values over the number of segments."""
    prec, rec, f1 = _means(stats, cfg.rouge_types)
    return _new_result(dict(f1), prec, rec, f1, int(stats.count))


#: Whether :func:`_new_result` knows every field of the result (else it calls the constructor).
_RESULT_FIELDS_KNOWN = {f.name for f in dataclasses.fields(RougeResult)} == {
    "score", "signature", "segments", "precision", "recall", "f1", "count", "bootstrap"
}  # fmt: skip


def _new_result(
    score: dict[str, float], precision: dict[str, float], recall: dict[str, float], f1: dict[str, float], count: int
) -> RougeResult:
    """``RougeResult(score=..., precision=..., recall=..., f1=..., count=...)`` with every other field at its
    default, filled in directly: a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``,
    which costs a one-pair call more than its formula."""
    if not _RESULT_FIELDS_KNOWN:
        return RougeResult(score=score, precision=precision, recall=recall, f1=f1, count=count)
    result = object.__new__(RougeResult)
    result.__dict__.update(
        score=score, signature="", segments=None, precision=precision, recall=recall, f1=f1, count=count, bootstrap=None
    )
    return result


def _segment_rows(batch: StatsBatch[RougeStats]) -> Iterator[tuple[Any, ...]]:
    """Each segment's statistics as plain values, in field order (from Python lists, not numpy scalars)."""
    if fastpath.rows("rouge.kernel", len(batch)):  # the kernel's rows
        for seg in batch:
            yield tuple(getattr(seg, name) for name in RougeStats.field_names())
        return
    yield from zip(*(batch.column(name).tolist() for name in RougeStats.field_names()), strict=True)


def _segment_dicts(rows: Iterable[Sequence[Any]], types: Sequence[str]) -> tuple[dict[str, RougeScore], ...]:
    """Each segment's ``{type: RougeScore}`` from its statistics (in field order): the corpus formula, applied to
    each segment."""
    out = []
    for ph, rh, fh, pl, rl, fl, n in rows:
        p, r, f = _means_of(ph, pl, rh, rl, fh, fl, n, types)
        out.append({t: RougeScore(p[t], r[t], f[t]) for t in types})
    return tuple(out)


#: The compiled scorings (the set-based ones are in metrics/rouge/sets.py).
_COMPILED = frozenset(("rouge-score", "rouge155"))
#: Calls on at most this many segments take the small-batch path of :meth:`RougeFamily.shortcut` (read-only: the
#: rule ``rouge.call`` of :mod:`nlgmetrics.algorithms.fastpath` decides).
SMALL_CALL = fastpath.RULES["rouge.call"].rows_up_to


def _row_path(n: int, config: RougeConfig) -> bool:
    """Whether a call on ``n`` segments goes from the kernel's rows to the formula: small calls always; larger ones
    only while numpy is not loaded (importing it would cost a fresh process more than the rows cost a corpus) and
    the batch is not spread over worker processes. Both paths sum the same values with ``math.fsum``."""
    if not fastpath.rows("rouge.call", n):
        return False
    return n <= SMALL_CALL or config.workers == 1 or n < PARALLEL_MIN_SEGMENTS


class RougeFamily(Family[RougeConfig, RougeStats, RougeResult]):
    """The ROUGE family: several headline values per result, per-segment dicts, and the bootstrap."""

    def segment_scores(self, batch: StatsBatch[RougeStats], config: RougeConfig) -> tuple[Any, ...]:  # type: ignore[override]
        if len(batch) == 0:
            return ()
        return _segment_dicts(_segment_rows(batch), config.rouge_types)

    def shortcut(
        self, predictions: Any, references: Any, config: Any, segments: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> RougeResult | None:
        """A call on a few segments (one pair as a reward, a training batch) goes from the compiled kernel's
        per-segment rows straight to the formula: the same statistics and the same sums as the general path
        (``StatsBatch.total``'s ``math.fsum``), without the batch of statistics objects around them."""
        kind = type(predictions)
        if (
            not (kind is str or (kind is list and _row_path(len(predictions), config)))
            or sources is not None
            or inputs
            or config.scoring not in _COMPILED
            or config.bootstrap_samples
        ):
            return None
        preds, refs = check_pairs(predictions, references)
        _warn_dropped(preds, refs, config)
        rows = rouge_columns(preds, refs, config, grid=_GRID, rows=True)
        n = len(rows)
        if n == 1:
            total = RougeStats(*rows[0], 1)  # type: ignore[call-arg]
        else:  # as StatsBatch.total sums rows: math.fsum per type
            sums = [tuple([math.fsum(c) for c in zip(*m, strict=True)]) for m in zip(*rows, strict=True)]
            total = RougeStats(*sums, n)  # type: ignore[call-arg,arg-type]
        result = self.finalize(total, config)
        if segments:
            object.__setattr__(result, "segments", _segment_dicts([(*row, 1) for row in rows], config.rouge_types))
        return result

    def needs_segments(self, config: RougeConfig) -> bool:
        return config.bootstrap_samples > 0

    def finalize(
        self, total: RougeStats, config: RougeConfig, batch: StatsBatch[RougeStats] | None = None
    ) -> RougeResult:
        result = super().finalize(total, config, batch)
        if config.bootstrap_samples > 0 and batch is not None:
            from .bootstrap import bootstrap

            return dataclasses.replace(result, bootstrap=bootstrap(batch, config))
        return result


PRESETS: dict[str, dict[str, Any]] = {
    "coco": {
        "rouge_types": ("rougeL",),
        "tokenizer": "coco-rouge",
        "scoring": "rouge-score",
        "multi_ref": "max-pr",
        "beta": 1.2,
        "stemmer": "porter",
    },
    "rouge-score": {"tokenizer": "rouge-score", "scoring": "rouge-score", "multi_ref": "best", "stemmer": "porter"},
    "rouge155": {
        "rouge_types": ("rouge1", "rouge2", "rougeL"),
        "tokenizer": "rouge155",
        "scoring": "rouge155",
        "multi_ref": "average",
        "alpha": 0.5,
        "stemmer": "rouge155",
    },
    "rouge155-empty-db": {
        "rouge_types": ("rouge1", "rouge2", "rougeL"),
        "tokenizer": "rouge155",
        "scoring": "rouge155",
        "multi_ref": "average",
        "alpha": 0.5,
        "stemmer": "rouge155-porter",
    },
    "pltrdy": {"rouge_types": ("rouge1", "rouge2", "rougeL"), "tokenizer": "whitespace", "scoring": "pltrdy"},
    "llamafactory": {"rouge_types": ("rouge1", "rouge2", "rougeL"), "tokenizer": "zh-jieba", "scoring": "llamafactory"},
}


def _rouge_check(values: Mapping[str, Any], cfg: RougeConfig) -> str | None:
    """Each segment's P, R and F is at most 1 (100 in LLaMA-Factory's scale): ``Family.stats_check``."""
    import numpy as np

    top = 100.0 if cfg.scoring == "llamafactory" else 1.0
    count = np.asarray(values["count"], dtype=np.float64)
    for name in _MEASURES:
        sums = np.asarray(values[name], dtype=np.float64)
        limit = (count[..., None] if sums.ndim > count.ndim else count) * top
        if np.any(sums > limit * (1 + 1e-6) + 1e-9):
            return f"{name} exceeds {top:g} per segment for {count.tolist()} segment(s)"
    return None


ROUGE = RougeFamily(
    cache_configs=True,
    name="rouge",
    bounds=(0.0, 1.0),
    config_cls=RougeConfig,
    stats_cls=RougeStats,
    kernel=_rouge_kernel,
    formula=rouge_from_stats,
    presets=PRESETS,
    default_preset=None,
    vectorized=False,
    stats_sizes=lambda cfg: dict.fromkeys(RougeStats.tuple_fields, len(cfg.rouge_types)),
    stats_check=_rouge_check,
)


def rouge(
    predictions: Sequence[str] | str,
    references: Sequence[str | Sequence[str]] | str,
    *,
    rouge_types: Sequence[str] | None = None,
    use_stemmer: bool | None = None,
    tokenizer: str | None = None,
    preset: str | None = None,
    segments: bool = False,
    **options: Any,
) -> RougeResult:
    """ROUGE of a corpus: mean precision, recall and F per type over the segments.

    References are per segment, a string or a list of strings. ``preset="rouge-score"`` reproduces rouge-score
    0.1.2 bit for bit, ``preset="rouge155"`` the ROUGE-1.5.5 Perl script; with no preset the tokenizer keeps
    letters of every script (rouge-score's numbers on ASCII text). ``segments=True`` adds the per-segment
    scores. Other options: see :class:`RougeConfig`.

    >>> predictions = ["Transformers Transformers are fast plus efficient", "Good Morning",
    ...                "I am waiting for new Transformers"]
    >>> references = [["HuggingFace Transformers are fast efficient plus awesome",
    ...                "Transformers are awesome because they are fast to execute"],
    ...               ["Good Morning Transformers", "Morning Transformers"],
    ...               ["People are eagerly waiting for new Transformer models",
    ...                "People are very excited about new Transformers"]]
    >>> result = rouge(predictions, references, preset="rouge-score")
    >>> result.score  # doctest: +NORMALIZE_WHITESPACE
    {'rouge1': 0.6659340659340659, 'rouge2': 0.45454545454545453,
     'rougeL': 0.6146520146520146, 'rougeLsum': 0.6146520146520146}
    >>> result["rouge1"]
    RougeScore(precision=0.7777777777777778, recall=0.5853174603174603, fmeasure=0.6659340659340659)
    >>> rouge(["今日は良い天気"], ["今日は良い天気"]).score["rouge1"]  # rouge-score gives 0.0
    1.0
    """
    key = _call_key(preset, rouge_types, use_stemmer, tokenizer) if not options else None
    cfg = _CALL_CONFIGS.get(key) if key is not None else None
    if cfg is None:
        if rouge_types is not None:
            options["rouge_types"] = tuple([rouge_types] if isinstance(rouge_types, str) else rouge_types)
        if use_stemmer is not None:
            options["use_stemmer"] = use_stemmer
        if tokenizer is not None:
            options["tokenizer"] = tokenizer
        cfg = ROUGE.make_config(preset, **options)
        if key is not None:
            if len(_CALL_CONFIGS) >= 256:
                _CALL_CONFIGS.clear()
            _CALL_CONFIGS[key] = cfg
    return ROUGE.compute(predictions, references, cfg, segments=segments)


#: The configs of :func:`rouge` calls by their arguments, so that a stream of one-pair calls builds none.
_CALL_CONFIGS: dict[Any, RougeConfig] = {}
_KEY_TYPES = frozenset((str, bool, type(None)))


def _call_key(preset: Any, rouge_types: Any, use_stemmer: Any, tokenizer: Any) -> Any:
    """A key of :func:`rouge`'s arguments that tells apart every argument its config tells apart (``True`` and
    ``1`` give different configs, one of them an error), or ``None`` where a value is not plain."""
    kind = type(rouge_types)
    if kind is list or kind is tuple:
        if not set(map(type, rouge_types)) <= {str}:
            return None
        rouge_types = (kind, *rouge_types)
    elif kind not in _KEY_TYPES:
        return None
    if not {type(preset), type(use_stemmer), type(tokenizer)} <= _KEY_TYPES:
        return None
    return (preset, rouge_types, type(use_stemmer), use_stemmer, tokenizer)
