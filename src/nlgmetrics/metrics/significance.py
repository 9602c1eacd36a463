"""Significance and confidence: paired bootstrap resampling, paired approximate randomization, bootstrap CIs.

Everything here works on the per-segment statistics of *any* family whose statistics add (BLEU, chrF, TER,
ANLS, NLS, CER/WER, and any family added later, ROUGE included): a resampled corpus is a sum of segment
statistics, and its score is the family's own formula on that sum. No metric is recomputed from text.

The three tests reproduce sacrebleu 2.6 (``sacrebleu/significance.py``) for the same seed:

* :func:`bootstrap_ci`: ``metric.corpus_score(hyps, refs, n_bootstrap=N)``'s ``μ ± CI`` (``sacrebleu
  --confidence``): ``N`` resamples drawn at once with ``numpy.random.default_rng(seed).choice(n, (N, n))``; the
  interval runs from the ``N // 40``-th smallest score to the ``N // 40``-th largest (95%), ``ci`` is half its
  width and ``mean`` the mean of the resampled scores (``statistics.mean``).
* :func:`paired_bootstrap`: ``sacrebleu --paired-bs`` (Koehn 2004, as Moses'
  ``bootstrap-hypothesis-difference-significance.pl``): both systems are scored on the same ``N`` resamples
  (default 1000); with ``d`` the absolute score differences and ``δ`` the observed absolute difference,
  ``p = (#{d - mean(d) > δ} + 1) / (N + 1)``.
* :func:`paired_approximate_randomization`: ``sacrebleu --paired-ar`` (Riezler and Maxwell 2005, after
  multeval): ``N`` trials (default 10000) swap each segment's statistics between the systems with probability
  1/2 (``rng.integers(2, size=(N, n), dtype=bool)``); ``p = (#{|a - b| > δ} + 1) / (N + 1)``.

sacrebleu casts the statistics to ``float32`` before resampling and computes the resampled scores from those
``float32`` values. With ``precision="float32"`` (the default for BLEU's sacrebleu convention, chrF and TER:
``precision="auto"``) the statistics and every operation on them follow the same types, so means, intervals and
p-values equal sacrebleu's, bit for bit. ``precision="float64"`` (the default for every other family) resamples
exact statistics. Randomness always comes from a local ``numpy.random.Generator`` built from ``seed``
(default 12345, sacrebleu's ``SACREBLEU_SEED``).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import InvalidInputError, unknown_option
from ..signature import build_signature
from ..stats import Schema, Stats, StatsBatch
from .base import Family

__all__ = [
    "ConfidenceInterval",
    "PairedTestResult",
    "bootstrap_ci",
    "bootstrap_ci_from_stats",
    "paired_approximate_randomization",
    "paired_bootstrap",
    "paired_test_from_stats",
]

SEED = 12345
PRECISIONS = ("auto", "float32", "float64")


# ---------------------------------------------------------------------------------------------- results
@dataclasses.dataclass(frozen=True)
class ConfidenceInterval:
    """A bootstrap confidence interval: the corpus ``score``, the ``mean`` of the resampled scores, the interval
    ``[lower, upper]`` and ``ci``, half its width (sacrebleu prints ``score (μ = mean ± ci)``)."""

    score: float
    mean: float
    ci: float
    lower: float
    upper: float
    confidence: float
    n_samples: int
    seed: int
    signature: str = ""
    sacrebleu_signature: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


@dataclasses.dataclass(frozen=True)
class PairedTestResult:
    """A paired test of ``system`` against ``baseline``: both corpus scores, the p-value of the observed
    difference, and (when computed) each system's bootstrap mean and half-interval, as sacrebleu reports them."""

    test: str
    baseline: float
    system: float
    p_value: float
    n_samples: int
    seed: int
    baseline_mean: float | None = None
    baseline_ci: float | None = None
    system_mean: float | None = None
    system_ci: float | None = None
    signature: str = ""
    sacrebleu_signature: str | None = None
    #: The 95% paired-bootstrap interval of ``system - baseline`` (percentiles of the resampled differences, on
    #: the same resamples as the test); ``None`` for approximate randomization, which resamples no difference.
    difference_lower: float | None = None
    difference_upper: float | None = None

    @property
    def difference(self) -> float:
        return float(self.system) - float(self.baseline)

    def significant(self, alpha: float = 0.05) -> bool:
        """Whether ``p_value < alpha`` (sacrebleu marks a system with ``*`` at 0.05)."""
        return self.p_value < alpha

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        out["difference"] = self.difference
        return out


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


# ---------------------------------------------------------------------------------------------- statistics
def _family(metric: str | Family[Any, Any, Any]) -> Family[Any, Any, Any]:
    """A family object, or one named in :data:`nlgmetrics.metrics.catalog.FAMILIES`."""
    if isinstance(metric, Family):
        return metric
    from .catalog import get_family

    return get_family(metric)


def _resolve_precision(precision: str, family: Family[Any, Any, Any], config: Any) -> str:
    if precision not in PRECISIONS:
        raise unknown_option("precision", precision, list(PRECISIONS))
    if precision != "auto":
        return precision
    sacrebleu_like = family.name in ("chrf", "ter") or (
        family.name == "bleu" and getattr(config, "convention", "") == "sacrebleu"
    )
    return "float32" if sacrebleu_like else "float64"


def _segment_stats(family: Family[Any, Any, Any], predictions: Any, references: Any, config: Any) -> StatsBatch[Any]:
    return family.batch_stats(predictions, references, config)


Select = str | Callable[[Any], Any] | None


def _pick(result: Any, select: Select) -> Any:
    """The number a test works on: the headline ``score``, an entry of a score mapping (ROUGE's ``"rougeL"``),
    another field of the result (``"precision"``), or what a callable makes of the result."""
    if callable(select):
        return select(result)
    score = result.score
    if select is None:
        if isinstance(score, Mapping):
            raise InvalidInputError(
                f"this metric's score holds several values ({', '.join(map(str, score))}): choose one with score=..."
            )
        return score
    if isinstance(score, Mapping) and select in score:
        return score[select]
    if hasattr(result, select):
        return getattr(result, select)
    raise InvalidInputError(f"score={select!r}: the result has no such value (its score is {score!r})")


def _score(family: Family[Any, Any, Any], config: Any, stats: Stats, select: Select = None) -> Any:
    return _pick(family.formula(stats, config), select)


#: The most resamples a test may ask for: each one re-scores the whole corpus (and the resampled indices take
#: ``n_samples × segments`` integers of memory).
MAX_SAMPLES = 1_000_000


def _check_samples(name: str, value: Any, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InvalidInputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value > MAX_SAMPLES:
        raise InvalidInputError(f"{name} must be <= {MAX_SAMPLES:,}, got {value!r}")


def _check_seed(seed: Any) -> None:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidInputError(
            f"seed must be a non-negative integer (resampling is always seeded; sacrebleu's default is {SEED}), "
            f"got {seed!r}"
        )


def _resampled_scores(
    family: Family[Any, Any, Any],
    config: Any,
    schema: Schema[Any],
    matrix: np.ndarray,
    idxs: np.ndarray,
    precision: str,
    select: Select = None,
) -> list[Any]:
    """The score of each resample ``idxs[s]`` (segment indices, repeats allowed), as the formula returns it."""
    scores = []
    if precision == "float32":
        # sacrebleu: np.array(stats, dtype="float32")[idxs], then each resample's .sum(0) in float32
        m32 = matrix.astype(np.float32)
        for idx in idxs:
            scores.append(_score(family, config, schema.from_row(m32[idx].sum(0), exact=False), select))
    else:
        n_samples, n = idxs.shape
        flat = (idxs + (np.arange(n_samples, dtype=np.int64) * n)[:, None]).ravel()
        counts = np.bincount(flat, minlength=n_samples * n).reshape(n_samples, n)
        for row in schema.sum_rows(counts, matrix):
            scores.append(_score(family, config, schema.from_row(row), select))
    return scores


def _resampled_records(
    family: Family[Any, Any, Any], config: Any, batch: StatsBatch[Any], idxs: np.ndarray, select: Select = None
) -> list[Any]:
    """The score of each resample of a family whose statistics carry more than numbers (CIDEr's records, NIST's
    n-gram table): the formula on the resampled corpus itself (a repeated segment counts twice, in the document
    frequencies and reference counts too). Exact, but each resample costs a corpus-level formula."""
    return [_score(family, config, batch.take(idx).total(), select) for idx in idxs]


def _paired_scorers(
    family: Family[Any, Any, Any],
    config: Any,
    baseline: StatsBatch[Any],
    system: StatsBatch[Any],
    mode: str,
    score: Select,
) -> tuple[Callable[[str, np.ndarray], list[Any]], Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]]:
    """How a paired test scores resamples (``resample(which, idxs)``) and approximate-randomization shuffles
    (``shuffled(pos_sel, neg_sel)``: baseline rows where ``pos_sel`` plus system rows where ``neg_sel``, and the
    reverse): summed matrix rows for numeric statistics; for statistics that carry more than numbers (CIDEr, NIST),
    the formula on the corpus each one makes."""
    batches = {"baseline": baseline, "system": system}
    if system.cls.carried_fields:

        def resample_records(which: str, idxs: np.ndarray) -> list[Any]:
            return _resampled_records(family, config, batches[which], idxs, score)

        def shuffled_records(pos_sel: np.ndarray, neg_sel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            out: list[list[Any]] = [[], []]
            for pos, neg in zip(pos_sel, neg_sel, strict=True):
                for k, (a, b) in enumerate(((pos, neg), (neg, pos))):
                    mixed = StatsBatch.concat([baseline.take(np.flatnonzero(a)), system.take(np.flatnonzero(b))])
                    out[k].append(_score(family, config, mixed.total(), score))
            return np.array(out[0]), np.array(out[1])

        return resample_records, shuffled_records
    schema = family.schema(config)
    bl_matrix, sys_matrix = schema.matrix(baseline), schema.matrix(system)
    matrices = {"baseline": bl_matrix, "system": sys_matrix}

    def resample_rows(which: str, idxs: np.ndarray) -> list[Any]:
        return _resampled_scores(family, config, schema, matrices[which], idxs, mode, score)

    def shuffled_rows(pos_sel: np.ndarray, neg_sel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        shuf_a = schema.sum_rows(pos_sel, bl_matrix) + schema.sum_rows(neg_sel, sys_matrix)
        shuf_b = schema.sum_rows(neg_sel, bl_matrix) + schema.sum_rows(pos_sel, sys_matrix)
        scores_a = np.array([_score(family, config, schema.from_row(row), score) for row in shuf_a])
        scores_b = np.array([_score(family, config, schema.from_row(row), score) for row in shuf_b])
        return scores_a, scores_b

    return resample_rows, shuffled_rows


def _estimate_ci(scores: np.ndarray, confidence: float) -> tuple[Any, Any, Any, Any]:
    """sacrebleu's ``estimate_ci``: sort, cut ``n // 40`` scores (for 95%) off each end; numpy's mean."""
    ordered = np.sort(scores)
    lower_idx = _tail(len(ordered), confidence)
    lower, upper = ordered[lower_idx], ordered[len(ordered) - lower_idx - 1]
    return ordered.mean(), 0.5 * (upper - lower), lower, upper


def _tail(n: int, confidence: float) -> int:
    return math.floor(n * (1 - Fraction(str(confidence))) / 2)


def _check_confidence(confidence: Any) -> None:
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise InvalidInputError(f"confidence must be a number between 0 and 1 (e.g. 0.95), got {confidence!r}")


def _p_value(sample_stats: np.ndarray, real_difference: Any) -> float:
    # multeval: count the samples whose statistic exceeds the real one; "+1" in both counts
    c = np.sum(sample_stats > real_difference).item()
    return (c + 1) / (len(sample_stats) + 1)


def _with_test(signature: str | None, pairs: Sequence[tuple[str, Any]]) -> str | None:
    """Insert the test's fields after ``nrefs`` in a sacrebleu signature, where sacrebleu writes them."""
    if not signature:
        return None
    head, _, rest = signature.partition("|")
    return "|".join([head, *(f"{k}:{v}" for k, v in pairs), rest])


def _signature(family: Family[Any, Any, Any], config: Any, pairs: Sequence[tuple[str, Any]]) -> str:
    return build_signature(family.name, config, dict(pairs))


# ---------------------------------------------------------------------------------------------- generic API
def bootstrap_ci_from_stats(
    family: Family[Any, Any, Any],
    config: Any,
    batch: StatsBatch[Any],
    *,
    n_samples: int = 1000,
    seed: int = SEED,
    confidence: float = 0.95,
    precision: str = "auto",
    score: Select = None,
) -> ConfidenceInterval:
    """Bootstrap confidence interval of a corpus score from its per-segment statistics (any family). ``score``
    picks the number when the result holds several (see :func:`bootstrap_ci`)."""
    _check_samples("n_samples", n_samples)
    _check_seed(seed)
    _check_confidence(confidence)
    if len(batch) == 0:
        raise InvalidInputError("bootstrap resampling needs at least one segment")
    mode = _resolve_precision(precision, family, config)
    rng = np.random.default_rng(seed)
    idxs = rng.choice(len(batch), size=(n_samples, len(batch)), replace=True)
    if batch.cls.carried_fields:
        scores = _resampled_records(family, config, batch, idxs, score)
    else:
        schema = family.schema(config)
        scores = _resampled_scores(family, config, schema, schema.matrix(batch), idxs, mode, score)
    actual = family.formula(batch.total(), config)
    # sacrebleu's Score.estimate_ci: a sorted Python list, and statistics.mean
    raw = sorted(scores)
    k = _tail(len(raw), confidence)
    lower, upper = raw[k], raw[len(raw) - k - 1]
    pairs = [("bs", n_samples), ("rs", seed), ("conf", confidence)]
    return ConfidenceInterval(
        score=_pick(actual, score),
        mean=statistics.mean(raw),
        ci=0.5 * (upper - lower),
        lower=lower,
        upper=upper,
        confidence=confidence,
        n_samples=n_samples,
        seed=seed,
        signature=_signature(family, config, pairs),
        sacrebleu_signature=_with_test(
            getattr(actual, "sacrebleu_signature", None), [("bs", n_samples), ("seed", seed)]
        ),
    )


def paired_test_from_stats(
    family: Family[Any, Any, Any],
    config: Any,
    baseline: StatsBatch[Any],
    system: StatsBatch[Any],
    *,
    test: str = "bs",
    n_samples: int | None = None,
    n_confidence: int = -1,
    seed: int = SEED,
    precision: str = "auto",
    score: Select = None,
) -> PairedTestResult:
    """A paired test (``"bs"``: bootstrap resampling, ``"ar"``: approximate randomization) of ``system`` against
    ``baseline`` from their per-segment statistics on the same segments (any family).

    ``n_samples`` defaults to sacrebleu's 1000 (bs) or 10000 (ar). For ``"ar"``, ``n_confidence > 0`` also
    bootstraps ``n_confidence`` resamples for the system's confidence interval (sacrebleu's
    ``--paired-ar-confidence-n``); the baseline's interval uses the same number of resamples (``n_samples`` for
    ``"bs"``), as sacrebleu computes it.
    """
    if test not in ("bs", "ar"):
        raise unknown_option("paired test", test, ["ar", "bs"])
    n_samples = n_samples if n_samples is not None else (1000 if test == "bs" else 10000)
    _check_samples("n_samples", n_samples)
    if n_confidence != -1:  # -1: no interval (sacrebleu's default), as is 0
        _check_samples("n_confidence", n_confidence, minimum=0)
    _check_seed(seed)
    if len(baseline) != len(system):
        raise InvalidInputError(
            f"the baseline has {len(baseline)} segments but the system has {len(system)}: a paired test needs the "
            "same segments"
        )
    if len(system) == 0:
        raise InvalidInputError("a paired test needs at least one segment")
    mode = _resolve_precision(precision, family, config)
    n = len(system)
    resample, shuffled = _paired_scorers(family, config, baseline, system, mode, score)
    bl_actual = family.formula(baseline.total(), config)
    sys_actual = family.formula(system.total(), config)
    bl_score, sys_score = _pick(bl_actual, score), _pick(sys_actual, score)
    diff = abs(bl_score - sys_score)
    rng = np.random.default_rng(seed)
    sys_mean = sys_ci = diff_lower = diff_upper = None
    if test == "bs":
        idxs = rng.choice(n, size=(n_samples, n), replace=True)
        scores_bl = np.array(resample("baseline", idxs))
        scores_sys = np.array(resample("system", idxs))
        sys_mean, sys_ci, _, _ = _estimate_ci(scores_sys, 0.95)
        _, _, diff_lower, diff_upper = _estimate_ci(scores_sys - scores_bl, 0.95)
        sample_diffs = np.abs(scores_sys - scores_bl)
        p = _p_value(sample_diffs - sample_diffs.mean(), diff)
        confidence_n = n_samples
    else:
        pos_sel = rng.integers(2, size=(n_samples, n), dtype=bool)
        neg_sel = ~pos_sel
        bs_idxs = rng.choice(n, size=(n_confidence, n), replace=True) if n_confidence > 0 else None
        scores_a, scores_b = shuffled(pos_sel, neg_sel)
        p = _p_value(np.abs(scores_a - scores_b), diff)
        if bs_idxs is not None:
            sys_scores = np.array(resample("system", bs_idxs))
            sys_mean, sys_ci, _, _ = _estimate_ci(sys_scores, 0.95)
        confidence_n = n_confidence
    bl_mean = bl_ci = None
    if confidence_n > 0:  # the baseline's own interval, from a generator seeded afresh (sacrebleu does the same)
        bl_idxs = np.random.default_rng(seed).choice(n, size=(confidence_n, n), replace=True)
        bl_scores = np.array(resample("baseline", bl_idxs))
        bl_mean, bl_ci, _, _ = _estimate_ci(bl_scores, 0.95)
    pairs: list[tuple[str, Any]] = [("test", test), (test, n_samples), ("rs", seed)]
    sacre: list[tuple[str, Any]] = []
    if test == "ar" and n_confidence > 0:
        sacre.append(("bs", n_confidence))
    sacre += [(test, n_samples), ("seed", seed)] if test == "bs" else [("ar", n_samples), ("seed", seed)]
    return PairedTestResult(
        test="paired-bootstrap" if test == "bs" else "approximate-randomization",
        baseline=bl_score,
        system=sys_score,
        p_value=p,
        n_samples=n_samples,
        seed=seed,
        baseline_mean=_plain(bl_mean),
        baseline_ci=_plain(bl_ci),
        system_mean=_plain(sys_mean),
        system_ci=_plain(sys_ci),
        signature=_signature(family, config, pairs),
        sacrebleu_signature=_with_test(getattr(sys_actual, "sacrebleu_signature", None), sacre),
        difference_lower=_plain(diff_lower),
        difference_upper=_plain(diff_upper),
    )


# ---------------------------------------------------------------------------------------------- text API
def _configure(metric: str | Family[Any, Any, Any], preset: str | None, options: dict[str, Any]):
    family = _family(metric)
    return family, family.make_config(preset, **options)


def bootstrap_ci(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    metric: str | Family[Any, Any, Any] = "bleu",
    preset: str | None = None,
    n_samples: int = 1000,
    seed: int = SEED,
    confidence: float = 0.95,
    precision: str = "auto",
    score: Select = None,
    **options: Any,
) -> ConfidenceInterval:
    """Bootstrap confidence interval of a corpus score (``metric``: ``"bleu"``, ``"chrf"``, ``"ter"``, ``"anls"``,
    ... or any family object; ``preset`` and ``options`` configure it as in its function).

    With the defaults this is sacrebleu's ``corpus_score(hyps, refs, n_bootstrap=1000)`` with
    ``SACREBLEU_SEED=12345``: same mean and half-interval, bit for bit. When a result holds several numbers
    (ROUGE's ``{"rouge1": ..., "rougeL": ...}``), ``score`` picks one: a key of the score, a field of the result
    (``"precision"``), or a callable of the result.

    >>> ci = bootstrap_ci(["the cat sat", "a dog ran off", "hello there"], ["the cat sat", "the dog ran", "hi there"],
    ...                   metric="chrf", n_samples=200)
    >>> bool(ci.lower <= ci.mean <= ci.upper)
    True
    """
    family, config = _configure(metric, preset, options)
    batch = _segment_stats(family, predictions, references, config)
    return bootstrap_ci_from_stats(
        family, config, batch, n_samples=n_samples, seed=seed, confidence=confidence, precision=precision, score=score
    )


def paired_bootstrap(
    baseline: Sequence[Any],
    system: Sequence[Any],
    references: Sequence[Any],
    *,
    metric: str | Family[Any, Any, Any] = "bleu",
    preset: str | None = None,
    n_samples: int = 1000,
    seed: int = SEED,
    precision: str = "auto",
    score: Select = None,
    **options: Any,
) -> PairedTestResult:
    """Paired bootstrap resampling test of ``system`` against ``baseline`` (both scored against ``references``),
    as ``sacrebleu --paired-bs``: the p-value, both scores, and each system's bootstrap mean and 95% half-interval.

    >>> refs = ["the cat sat on the mat", "a dog ran in the park", "it is raining today"]
    >>> r = paired_bootstrap(["the cat sat on a mat", "a dog ran", "it rains"], refs, refs, n_samples=100)
    >>> r.system, 0 < r.p_value <= 1
    (100.00000000000004, True)
    """
    family, config = _configure(metric, preset, options)
    bl = _segment_stats(family, baseline, references, config)
    sy = _segment_stats(family, system, references, config)
    return paired_test_from_stats(
        family, config, bl, sy, test="bs", n_samples=n_samples, seed=seed, precision=precision, score=score
    )


def paired_approximate_randomization(
    baseline: Sequence[Any],
    system: Sequence[Any],
    references: Sequence[Any],
    *,
    metric: str | Family[Any, Any, Any] = "bleu",
    preset: str | None = None,
    n_samples: int = 10000,
    n_confidence: int = -1,
    seed: int = SEED,
    precision: str = "auto",
    score: Select = None,
    **options: Any,
) -> PairedTestResult:
    """Paired approximate randomization test of ``system`` against ``baseline``, as ``sacrebleu --paired-ar``
    (``n_confidence`` > 0 adds bootstrap intervals, as ``--paired-ar-confidence-n``)."""
    family, config = _configure(metric, preset, options)
    bl = _segment_stats(family, baseline, references, config)
    sy = _segment_stats(family, system, references, config)
    return paired_test_from_stats(
        family,
        config,
        bl,
        sy,
        test="ar",
        n_samples=n_samples,
        n_confidence=n_confidence,
        seed=seed,
        precision=precision,
        score=score,
    )
