"""Bootstrap confidence intervals of ROUGE corpus means, as rouge-score and ROUGE-1.5.5 compute them.

``scoring="rouge-score"``: rouge-score's ``BootstrapAggregator`` — ``bootstrap_samples`` resamples of the
segments (with replacement), the mean of each, then the ``(1 - confidence) / 2``, 50 and ``(1 + confidence) / 2``
percentiles of those means (``np.percentile``, linear interpolation): low, mid (a median, not the mean) and
high. rouge-score draws from numpy's global, unseeded generator; here the draws come from a local, seeded one:
``bootstrap_rng="generator"`` (``numpy.random.default_rng(seed)``, one draw of indices shared by every type) or
``"legacy"`` (``numpy.random.RandomState(seed)``, drawn type after type exactly as rouge-score draws them, so
the numbers equal rouge-score's after ``np.random.seed(seed)``).

``scoring="rouge155"``: ROUGE-1.5.5's ``computeAverages``/``bootstrapResampling`` — sample ``i`` is drawn after
``srand(i)`` with Perl's ``drand48``, so the resampling is fixed and needs no seed; mid is the average of the
sorted sample means (the "Average" the script prints), low and high the interpolated percentiles; all three
rounded to five decimals. The script lists the evaluations sorted by their ids as strings; give the segments in
that order to get its numbers digit for digit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...stats import StatsBatch
from .kernel import round5
from .scores import AggregateScore, RougeScore

if TYPE_CHECKING:
    from .config import RougeConfig, RougeStats

__all__ = ["bootstrap", "perl_resample_indices"]

#: Elements of the (samples x segments) index block drawn at once.
_BLOCK = 1 << 22


def _matrices(batch: StatsBatch[RougeStats]) -> np.ndarray:
    """(types, segments, 3) array of per-segment (precision, recall, F)."""
    cols = [
        np.asarray(batch.column(k), dtype=np.float64) + np.asarray(batch.column(f"{k}_low"), dtype=np.float64)
        for k in ("precision", "recall", "fmeasure")
    ]
    return np.stack(cols, axis=2).transpose(1, 0, 2)


def _percentiles(means: np.ndarray, cfg: RougeConfig) -> AggregateScore:
    delta = (1 - cfg.confidence) / 2
    pct = np.percentile(means, 100 * np.array([delta, 0.5, 1 - delta]), axis=0)
    return AggregateScore(*(RougeScore(*map(float, pct[j])) for j in range(3)))


def _rouge_score_bootstrap(mats: np.ndarray, cfg: RougeConfig) -> dict[str, AggregateScore]:
    samples = cfg.bootstrap_samples
    n = mats.shape[1]
    out = {}
    if cfg.bootstrap_rng == "legacy":
        # rouge-score's loop, on a local RandomState: np.random.choice(np.arange(n), size=n) per sample
        legacy = np.random.RandomState(cfg.seed)
        population = np.arange(n)
        for t, matrix in zip(cfg.rouge_types, mats, strict=True):
            means = np.zeros((samples, 3))
            for i in range(samples):
                means[i] = np.mean(matrix[legacy.choice(population, size=n), :], axis=0)
            out[t] = _percentiles(means, cfg)
        return out
    indices = np.random.default_rng(cfg.seed).integers(0, n, size=(samples, n))
    step = max(1, _BLOCK // n)
    for t, matrix in zip(cfg.rouge_types, mats, strict=True):
        means = np.concatenate([matrix[indices[lo : lo + step]].mean(axis=1) for lo in range(0, samples, step)])
        out[t] = _percentiles(means, cfg)
    return out


_DRAND48_A = np.uint64(0x5DEECE66D)
_DRAND48_C = np.uint64(0xB)
_DRAND48_MASK = np.uint64((1 << 48) - 1)


def perl_resample_indices(first_seed: int, samples: int, n: int) -> np.ndarray:
    """The indices ROUGE-1.5.5 draws: sample ``i`` (seeded ``first_seed + i``) is ``int(rand(n))`` repeated
    ``n`` times after ``srand(i)``, with Perl's ``drand48`` (``x <- (0x5DEECE66D x + 0xB) mod 2**48``,
    seeded ``(seed << 16) + 0x330E``)."""
    state = (np.arange(first_seed, first_seed + samples, dtype=np.uint64) << np.uint64(16)) + np.uint64(0x330E)
    out = np.empty((samples, n), dtype=np.int64)
    for k in range(n):
        state = (state * _DRAND48_A + _DRAND48_C) & _DRAND48_MASK
        out[:, k] = np.floor(state.astype(np.float64) * 2.0**-48 * n).astype(np.int64)
    return out


def _perl_bootstrap(mats: np.ndarray, cfg: RougeConfig) -> dict[str, AggregateScore]:
    samples = cfg.bootstrap_samples
    n = mats.shape[1]
    c = round(100 * cfg.confidence, 10)
    delta = samples * ((100 - c) / 2.0) / 100.0
    upper_a = int(samples - delta - 1)
    lower_a = int(delta)
    ratio = samples - delta - 1 - upper_a
    upper_b, lower_b = min(upper_a + 1, samples - 1), min(lower_a + 1, samples - 1)
    idx = perl_resample_indices(0, samples, n)
    out = {}
    for t, matrix in zip(cfg.rouge_types, mats, strict=True):
        # Perl adds the drawn scores one at a time, then divides by n
        acc = matrix[idx[:, 0]].copy()
        for k in range(1, n):
            acc += matrix[idx[:, k]]
        ranked = np.sort(acc / n, axis=0)
        mid = np.cumsum(ranked, axis=0)[-1] / samples  # the sorted means, summed in order
        low = ranked[lower_a] + (ranked[lower_b] - ranked[lower_a]) * ratio
        high = ranked[upper_a] + (ranked[upper_b] - ranked[upper_a]) * ratio
        out[t] = AggregateScore(*(RougeScore(*map(float, round5(v))) for v in (low, mid, high)))
    return out


def bootstrap(batch: StatsBatch[RougeStats], cfg: RougeConfig) -> dict[str, AggregateScore]:
    """Confidence intervals of the mean precision, recall and F of each type, from per-segment statistics."""
    mats = _matrices(batch)
    if mats.shape[1] == 0:
        zero = RougeScore(0.0, 0.0, 0.0)
        return {t: AggregateScore(zero, zero, zero) for t in cfg.rouge_types}
    if cfg.scoring == "rouge155":
        return _perl_bootstrap(mats, cfg)
    return _rouge_score_bootstrap(mats, cfg)
