"""Scores of several samples per problem: pass@k, G-Pass@k and mG-Pass@k, maj@n and avg@n.

These are how code and math models are reported. Their inputs are counts or per-sample correctness (or, for
maj@n, the sampled answers): **nothing is executed here**. Hugging Face ``code_eval`` runs the candidate programs
to count the correct ones; run them in your own sandbox and pass the counts.

``pass_at_k``
    Hugging Face ``evaluate``'s ``code_eval`` (``estimate_pass_at_k``; Chen et al. 2021): per problem with ``n``
    samples of which ``c`` are correct, the unbiased estimator ``1 - comb(n - c, k) / comb(n, k)``, computed as its
    product ``1 - prod(1 - k / arange(n - c + 1, n + 1))`` with the same numpy operations (so bit for bit the same
    per problem), averaged over the problems; one value per ``k``, keyed ``pass@k``. lighteval's ``PassAtK`` is the
    same estimator. **k > n**: the estimator's rule (``n - c < k`` gives 1.0) holds where the problem has a correct
    sample (any k draws would include it); a problem with no correct sample and fewer than k samples cannot be
    estimated and is an error naming it (``code_eval`` drops ``pass@k`` from its result when any problem has fewer
    than k samples, and its estimator alone would count that problem 1.0).
``g_pass_at_k``
    lighteval's ``GPassAtK`` (Liu et al. 2024, arXiv:2412.13147): per problem, for each ``k`` and threshold
    ``tau``, ``G-Pass@k_tau = P(X >= max(ceil(k * tau), 1))`` for X hypergeometric (k draws from n samples with c
    correct: ``scipy.stats.hypergeom.sf(m - 1, n, c, k)``, as there), 0 when ``k > n``; and
    ``mG-Pass@k = 2 / k * sum over i in (ceil(k / 2), k] of G(i)``. Keys ``g-pass@{k}_{tau}`` and ``mg-pass@{k}``,
    lighteval's names. Default thresholds: lighteval's ``(0.0, 0.25, 0.5, 0.75, 1.0)``.
``maj_at_n``
    lighteval's ``MajAtN`` and ``AvgAtN`` from the sampled answers of each problem and its gold answer: ``maj@n``
    compares the most frequent of the first ``n`` answers (ties: the one that appears first, as Python's ``max``
    over the list) with the gold; ``avg@n`` is the mean over the ``n`` answers of their exact match with the gold.
    ``normalizers`` (exact_match's names) apply to the answers and the gold first.

Statistics are sums of per-problem values and a count, so batches, processes and ``merge`` add them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from .._np import is_numpy_number
from ..errors import InvalidInputError
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from .base import Family, Result

__all__ = [
    "G_PASS_AT_K",
    "LIGHTEVAL_THRESHOLDS",
    "MAJ_AT_N",
    "PASS_AT_K",
    "GPassAtKConfig",
    "MajAtNConfig",
    "PassAtKConfig",
    "estimate_pass_at_k",
    "g_pass_at_k",
    "maj_at_n",
    "pass_at_k",
]

#: lighteval's default thresholds of G-Pass@k.
LIGHTEVAL_THRESHOLDS = (0.0, 0.25, 0.5, 0.75, 1.0)
#: The largest k (and sample count) accepted: the product has k factors per distinct (n, c) pair.
MAX_K = 1_000_000


# ---------------------------------------------------------------------------------------------------- inputs
def _integer(value: Any, where: str) -> int:
    if isinstance(value, bool) or not (isinstance(value, int) or is_numpy_number(value, "iu")):
        raise InvalidInputError(f"{where} is {value!r:.40}; expected an integer count")
    return int(value)


def _as_sequence(values: Any, name: str) -> list[Any]:
    if isinstance(values, np.ndarray):
        return values.tolist()  # type: ignore[no-any-return]
    if isinstance(values, (str, bytes, dict, set, frozenset)) or not isinstance(values, Sequence):
        raise InvalidInputError(f"{name} is {type(values).__name__}; expected a sequence (one value per problem)")
    return list(values)


def sample_counts(num_samples: Any, num_correct: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(n, c)`` per problem, checked, as int64 arrays, from counts (``num_samples`` may be one integer for
    every problem, as ``code_eval``'s ``estimate_pass_at_k`` takes it) or, with ``num_correct=None``, from
    per-sample correctness (one sequence of booleans, or 0/1, per problem)."""
    if num_samples is None:
        raise InvalidInputError("num_samples is None; expected the number of samples of each problem")
    if num_correct is None:
        rows = _as_sequence(num_samples, "num_samples (per-sample correctness)")
        n_list, c_list = [], []
        for i, row in enumerate(rows):
            if isinstance(row, np.ndarray):
                row = row.tolist()
            if isinstance(row, (str, bytes)) or not isinstance(row, Sequence):
                raise InvalidInputError(
                    f"num_samples[{i}] is {row!r:.40}: without num_correct, each problem is the correctness of "
                    "its samples (a list of booleans); or give the counts, num_samples and num_correct"
                )
            correct = 0
            for j, v in enumerate(row):
                if isinstance(v, bool) or is_numpy_number(v, "b"):
                    correct += bool(v)
                elif (isinstance(v, int) or is_numpy_number(v, "iu")) and v in (0, 1):
                    correct += int(v)
                else:
                    raise InvalidInputError(f"num_samples[{i}][{j}] is {v!r:.40}; expected True/False (or 1/0)")
            n_list.append(len(row))
            c_list.append(correct)
    else:
        corrects = _as_sequence(num_correct, "num_correct")
        if isinstance(num_samples, int) or is_numpy_number(num_samples, "iu"):
            n_list = [_integer(num_samples, "num_samples")] * len(corrects)
        else:
            n_list = [_integer(v, f"num_samples[{i}]") for i, v in enumerate(_as_sequence(num_samples, "num_samples"))]
        c_list = [_integer(v, f"num_correct[{i}]") for i, v in enumerate(corrects)]
        if len(n_list) != len(c_list):
            raise InvalidInputError(
                f"num_samples and num_correct differ in length: {len(n_list)} problems but {len(c_list)} counts"
            )
    n = np.asarray(n_list, dtype=np.int64)
    c = np.asarray(c_list, dtype=np.int64)
    for i in np.flatnonzero((n < 1) | (n > MAX_K)).tolist()[:1]:
        raise InvalidInputError(f"num_samples[{i}] is {n[i]}; a problem needs between 1 and {MAX_K:,} samples")
    for i in np.flatnonzero((c < 0) | (c > n)).tolist()[:1]:
        raise InvalidInputError(
            f"num_correct[{i}] is {c[i]} but problem {i} has {n[i]} samples: the correct ones are between 0 and "
            "the number of samples"
        )
    return n, c


def _ks(value: Any, name: str) -> tuple[int, ...]:
    ks = (value,) if not isinstance(value, (list, tuple)) else tuple(value)
    if not ks:
        raise InvalidInputError(f"{name} must name at least one k")
    for k in ks:
        if isinstance(k, bool) or not (isinstance(k, int) or is_numpy_number(k, "iu")) or not 1 <= k <= MAX_K:
            raise InvalidInputError(f"{name} must be integers between 1 and {MAX_K:,}, got {k!r}")
    out = tuple(int(k) for k in ks)
    if len(set(out)) != len(out):
        raise InvalidInputError(f"{name} names a k twice: {out}")
    return out


def _pairs(n: np.ndarray, c: np.ndarray) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The distinct ``(n, c)`` pairs and, per problem, the index of its pair: every estimate is computed once per
    pair (a benchmark has few distinct pairs), with the reference's own expression."""
    if len(n) == 0:
        return [], np.zeros(0, dtype=np.intp)
    key = n * (MAX_K + 1) + c
    uniq, inverse = np.unique(key, return_inverse=True)
    pairs = [(int(u // (MAX_K + 1)), int(u % (MAX_K + 1))) for u in uniq.tolist()]
    return pairs, inverse.reshape(-1)


# ---------------------------------------------------------------------------------------------------- pass@k
def _estimator(n: int, c: int, k: int) -> float:
    """``code_eval``'s ``estimator(n, c, k)``, the same operations: ``1 - comb(n - c, k) / comb(n, k)``."""
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def estimate_pass_at_k(num_samples: Any, num_correct: Any, k: int) -> np.ndarray:
    """pass@k of each problem (``code_eval``'s ``estimate_pass_at_k``, bit for bit), as a float64 array; a problem
    with fewer than k samples and none correct is an error (see the module docstring).

    >>> estimate_pass_at_k([5, 5, 3], [0, 2, 3], 2).round(6).tolist()
    [0.0, 0.7, 1.0]
    """
    (k,) = _ks(k, "k")
    n, c = sample_counts(num_samples, num_correct)
    return _pass_columns(n, c, (k,))[:, 0]


def _pass_columns(n: np.ndarray, c: np.ndarray, ks: tuple[int, ...]) -> np.ndarray:
    out = np.empty((len(n), len(ks)), dtype=np.float64)
    pairs, inverse = _pairs(n, c)
    for j, k in enumerate(ks):
        short = np.flatnonzero((n < k) & (c == 0))
        if len(short):
            i = int(short[0])
            raise InvalidInputError(
                f"pass@{k}: problem {i} has {n[i]} samples, fewer than k={k}, and none is correct: its pass@{k} "
                f"cannot be estimated (code_eval leaves pass@{k} out when a problem has fewer than k samples; its "
                "estimator alone would count the problem 1.0). Draw at least k samples, or drop that k"
            )
        values = np.asarray([_estimator(pn, pc, k) for pn, pc in pairs], dtype=np.float64)
        out[:, j] = values[inverse] if len(pairs) else values
    return out


@dataclasses.dataclass(frozen=True)
class PassAtKConfig:
    """``k``: one k or several (one score each, keyed ``pass@k``)."""

    k: tuple[int, ...] = sig_field("k", (1,), help="the k of pass@k (several: one score each)")
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _ks(self.k, "k"))


@dataclasses.dataclass(frozen=True)
class PassAtKStats(Stats):
    """``sums``: the per-problem estimates summed, one per k; ``count``: problems."""

    sums: tuple[float, ...]
    count: int

    tuple_fields: ClassVar[dict[str, int]] = {"sums": 1}


@dataclasses.dataclass(frozen=True, kw_only=True)
class PassAtKResult(Result):
    """``score``: ``{"pass@k": mean estimate}`` per k (code_eval's result); ``count``: problems."""

    count: int = 0

    def __getitem__(self, key: str) -> float:
        return float(self.score[key])


def _pass_kernel(n: np.ndarray, c: np.ndarray, cfg: PassAtKConfig) -> StatsBatch[PassAtKStats]:
    return StatsBatch(PassAtKStats, {"sums": _pass_columns(n, c, cfg.k), "count": np.ones(len(n), dtype=np.int64)})


def pass_at_k_from_stats(stats: PassAtKStats, cfg: PassAtKConfig) -> PassAtKResult:
    return PassAtKResult(
        score={f"pass@{k}": (s / stats.count if stats.count else 0.0) for k, s in zip(cfg.k, stats.sums, strict=True)},
        count=stats.count,
    )


class _CountsFamily(Family[Any, Any, Any]):
    """A family whose inputs are counts or per-sample correctness (pass@k, G-Pass@k), not text."""

    def prepare(
        self, predictions: Any, references: Any, config: Any, allow_empty: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> tuple[Any, Any, dict[str, Any]] | None:
        self.check_inputs(inputs)
        self.check_sources(sources, 0)
        n, c = sample_counts(predictions, references)
        if len(n) == 0 and not allow_empty:
            raise InvalidInputError("there are no problems to score (an empty corpus)")
        return (n, c, {}) if len(n) else None  # counts, not text

    def segment_scores(self, batch: StatsBatch[Any], config: Any) -> tuple[Any, ...]:  # type: ignore[override]
        return tuple(self.formula(s, config).score for s in batch)


def _pass_sizes(cfg: PassAtKConfig) -> dict[str, int]:
    return {"sums": len(cfg.k)}


PASS_AT_K: Family[PassAtKConfig, PassAtKStats, PassAtKResult] = _CountsFamily(
    name="pass_at_k",
    bounds=(0.0, 1.0),
    config_cls=PassAtKConfig,
    stats_cls=PassAtKStats,
    kernel=_pass_kernel,  # type: ignore[arg-type]  # counts, not text
    formula=pass_at_k_from_stats,
    presets={"code-eval": {}},
    default_preset="code-eval",
    stats_sizes=_pass_sizes,
    cache_configs=True,
    example={"predictions": [10, 10, 4], "references": [3, 0, 4], "options": {"k": 2}},
)


def pass_at_k(
    num_samples: Any,
    num_correct: Any = None,
    *,
    k: int | Sequence[int] = 1,
    preset: str | None = None,
    segments: bool = False,
) -> PassAtKResult:
    """pass@k averaged over the problems, ``{"pass@k": value}`` per k (Hugging Face ``code_eval``'s numbers,
    without running any code): from the number of samples and of correct samples of each problem, or from the
    correctness of each sample (``num_correct`` left out). ``segments=True`` adds each problem's estimates.

    >>> r = pass_at_k([10, 10, 4], [3, 0, 4], k=[1, 2])
    >>> {key: round(v, 6) for key, v in r.score.items()}
    {'pass@1': 0.433333, 'pass@2': 0.511111}
    >>> round(pass_at_k([[True, False, False], [False, False, False]], k=2)["pass@2"], 6)
    0.333333
    """
    cfg = PASS_AT_K.make_config(preset, k=k if isinstance(k, int) else tuple(k))
    return PASS_AT_K.compute(num_samples, num_correct, cfg, segments=segments)


# ---------------------------------------------------------------------------------------------------- G-Pass@k
def _thresholds(value: Any) -> tuple[float, ...]:
    ts = (value,) if not isinstance(value, (list, tuple)) else tuple(value)
    if not ts:
        raise InvalidInputError("thresholds must name at least one threshold")
    out = []
    for t in ts:
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0.0 <= t <= 1.0:
            raise InvalidInputError(f"thresholds must be numbers between 0 and 1, got {t!r}")
        out.append(float(t))
    if len(set(out)) != len(out):
        raise InvalidInputError(f"thresholds names a threshold twice: {tuple(out)}")
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class GPassAtKConfig:
    """``k``: one k or several; ``thresholds``: the tau of G-Pass@k_tau (lighteval's five by default)."""

    k: tuple[int, ...] = sig_field("k", (1,), help="the k of G-Pass@k (several: scores for each)")
    thresholds: tuple[float, ...] = sig_field("tau", LIGHTEVAL_THRESHOLDS, help="the thresholds tau of G-Pass@k_tau")
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _ks(self.k, "k"))
        object.__setattr__(self, "thresholds", _thresholds(self.thresholds))

    def keys(self) -> list[str]:
        """lighteval's names, in the order of the statistics: ``g-pass@{k}_{tau}`` per threshold, then
        ``mg-pass@{k}``, for each k."""
        out = []
        for k in self.k:
            out += [f"g-pass@{k}_{t}" for t in self.thresholds]
            out.append(f"mg-pass@{k}")
        return out


def _g_columns(n: np.ndarray, c: np.ndarray, cfg: GPassAtKConfig) -> np.ndarray:
    """lighteval's ``g_pass_at_k`` per distinct ``(n, c)``: ``hypergeom.sf(m - 1, n, c, k)`` (0 where ``m >
    min(c, k)`` or ``k > n``), the mG sum accumulated in its order."""
    from scipy.stats import hypergeom

    pairs, inverse = _pairs(n, c)
    out = np.empty((len(pairs), len(cfg.keys())), dtype=np.float64)

    def g(pn: int, pc: int, k: int, m: int) -> float:
        if m > min(pc, k) or k > pn or pc < 0 or pn <= 0 or m < 0:
            return 0.0
        return float(hypergeom.sf(m - 1, pn, pc, k))

    for row, (pn, pc) in enumerate(pairs):
        col = 0
        for k in cfg.k:
            for t in cfg.thresholds:
                out[row, col] = g(pn, pc, k, max(int(np.ceil(k * t)), 1))
                col += 1
            low = int(np.ceil(k * 0.5))
            mg = 0.0
            for i in range(low + 1, k + 1):
                mg += g(pn, pc, k, i)
            out[row, col] = 2 * mg / k
            col += 1
    return out[inverse] if len(pairs) else np.zeros((0, out.shape[1]))


def _g_kernel(n: np.ndarray, c: np.ndarray, cfg: GPassAtKConfig) -> StatsBatch[PassAtKStats]:
    return StatsBatch(PassAtKStats, {"sums": _g_columns(n, c, cfg), "count": np.ones(len(n), dtype=np.int64)})


def g_pass_at_k_from_stats(stats: PassAtKStats, cfg: GPassAtKConfig) -> PassAtKResult:
    return PassAtKResult(
        score={key: (s / stats.count if stats.count else 0.0) for key, s in zip(cfg.keys(), stats.sums, strict=True)},
        count=stats.count,
    )


G_PASS_AT_K: Family[GPassAtKConfig, PassAtKStats, PassAtKResult] = _CountsFamily(
    name="g_pass_at_k",
    bounds=(0.0, 1.0),
    config_cls=GPassAtKConfig,
    stats_cls=PassAtKStats,
    kernel=_g_kernel,  # type: ignore[arg-type]  # counts, not text
    formula=g_pass_at_k_from_stats,
    presets={"lighteval": {}},
    default_preset="lighteval",
    stats_sizes=lambda cfg: {"sums": len(cfg.keys())},
    cache_configs=True,
    example={"predictions": [8, 8, 4], "references": [3, 8, 0], "options": {"k": 4}},
)


def g_pass_at_k(
    num_samples: Any,
    num_correct: Any = None,
    *,
    k: int | Sequence[int] = 1,
    thresholds: float | Sequence[float] = LIGHTEVAL_THRESHOLDS,
    preset: str | None = None,
    segments: bool = False,
) -> PassAtKResult:
    """G-Pass@k_tau and mG-Pass@k averaged over the problems, lighteval's ``GPassAtK`` numbers and names
    (``g-pass@{k}_{tau}``, ``mg-pass@{k}``), from counts or per-sample correctness as :func:`pass_at_k`.

    >>> r = g_pass_at_k([8, 8], [4, 8], k=4, thresholds=[0.5, 1.0])
    >>> {key: round(v, 6) for key, v in r.score.items()}
    {'g-pass@4_0.5': 0.878571, 'g-pass@4_1.0': 0.507143, 'mg-pass@4': 0.564286}
    """
    cfg = G_PASS_AT_K.make_config(
        preset,
        k=k if isinstance(k, int) else tuple(k),
        thresholds=thresholds if isinstance(thresholds, (int, float)) else tuple(thresholds),
    )
    return G_PASS_AT_K.compute(num_samples, num_correct, cfg, segments=segments)


# ---------------------------------------------------------------------------------------------------- maj@n
@dataclasses.dataclass(frozen=True)
class MajAtNConfig:
    """``n``: how many samples of each problem count (``None``: all of them); ``normalizers``: exact_match's
    named normalisers, applied to the answers and the gold first."""

    n: int | None = sig_field("n", None, help="the first n samples of each problem (default: all)")
    normalizers: tuple[str, ...] = sig_field("norm", (), help="exact_match's normalisers, applied first")
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        from .exact_match import NORMALIZER_NAMES

        if self.n is not None and (isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1):
            raise InvalidInputError(f"n must be a positive integer (or None for every sample), got {self.n!r}")
        norms = (self.normalizers,) if isinstance(self.normalizers, str) else tuple(self.normalizers)
        for name in norms:
            if name not in NORMALIZER_NAMES or name == "hf-evaluate":
                from ..errors import unknown_option

                raise unknown_option("maj_at_n normalizer", name, [v for v in NORMALIZER_NAMES if v != "hf-evaluate"])
        object.__setattr__(self, "normalizers", norms)


@dataclasses.dataclass(frozen=True)
class MajAtNStats(Stats):
    """``maj``: problems whose majority answer is the gold; ``avg``: the per-problem shares of correct answers,
    summed; ``count``: problems."""

    maj: int
    avg: float
    count: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class MajAtNResult(Result):
    """``score``: maj@n (0-1); ``avg``: avg@n; ``count``: problems."""

    avg: Any = 0.0
    count: Any = 0


def _maj_kernel(samples: list[list[str]], golds: list[str], cfg: MajAtNConfig) -> StatsBatch[MajAtNStats]:
    from .exact_match import ExactMatchConfig, normalize_texts

    em = ExactMatchConfig(normalizers=cfg.normalizers)
    n = cfg.n
    maj, avg = [], []
    for i, (answers, gold) in enumerate(zip(samples, golds, strict=True)):
        if n is not None:
            if len(answers) < n:
                raise InvalidInputError(f"predictions[{i}] has {len(answers)} samples but n={n}")
            answers = answers[:n]
        if cfg.normalizers:
            answers = normalize_texts(list(answers), em)
            gold = normalize_texts([gold], em)[0]
        counts: dict[str, int] = {}
        for a in answers:
            counts[a] = counts.get(a, 0) + 1
        majority = max(counts, key=counts.__getitem__)  # the first answer (in sample order) of the top count
        maj.append(int(majority == gold))
        avg.append(sum(a == gold for a in answers) / len(answers))
    return StatsBatch.from_lists(MajAtNStats, {"maj": maj, "avg": avg, "count": [1] * len(maj)})


def maj_at_n_from_stats(stats: MajAtNStats, cfg: MajAtNConfig) -> MajAtNResult:
    count = stats.count
    if isinstance(count, np.ndarray):
        return MajAtNResult(score=stats.maj / count, avg=stats.avg / count, count=count)
    return MajAtNResult(score=stats.maj / count if count else 0.0, avg=stats.avg / count if count else 0.0, count=count)


class _SamplesFamily(Family[MajAtNConfig, MajAtNStats, MajAtNResult]):
    """maj@n: each problem's sampled answers (a list of strings) and its gold answer (one string)."""

    def prepare(
        self, predictions: Any, references: Any, config: Any, allow_empty: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> tuple[Any, Any, dict[str, Any]] | None:
        self.check_inputs(inputs)
        self.check_sources(sources, 0)
        rows = _as_sequence(predictions, "predictions")
        golds = _as_sequence(references, "references")
        if len(rows) != len(golds):
            raise InvalidInputError(
                f"predictions and references differ in length: {len(rows)} problems but {len(golds)} gold answers"
            )
        samples: list[list[str]] = []
        for i, row in enumerate(rows):
            if isinstance(row, np.ndarray):
                row = row.tolist()
            if isinstance(row, str) or not isinstance(row, Sequence) or not row:
                raise InvalidInputError(
                    f"predictions[{i}] is {row!r:.40}; expected the problem's sampled answers (a non-empty list of "
                    "strings)"
                )
            for j, a in enumerate(row):
                if not isinstance(a, str):
                    raise InvalidInputError(f"predictions[{i}][{j}] is {a!r:.40}; expected a string (an answer)")
            samples.append(list(row))
        gold_list: list[str] = []
        for i, g in enumerate(golds):
            if isinstance(g, (list, tuple)) and len(g) == 1:
                g = g[0]
            if not isinstance(g, str):
                raise InvalidInputError(
                    f"references[{i}] is {g!r:.40}; expected one gold answer (a string: maj@n takes one gold, "
                    "as lighteval)"
                )
            gold_list.append(g)
        if not samples and not allow_empty:
            raise InvalidInputError("there are no problems to score (an empty corpus)")
        return (samples, gold_list, {}) if samples else None  # lists of answers, not text


MAJ_AT_N = _SamplesFamily(
    name="maj_at_n",
    bounds=(0.0, 1.0),
    config_cls=MajAtNConfig,
    stats_cls=MajAtNStats,
    kernel=_maj_kernel,  # type: ignore[arg-type]  # lists of answers, not text
    formula=maj_at_n_from_stats,
    presets={"lighteval": {}},
    default_preset="lighteval",
    vectorized=True,
    cache_configs=True,
    example={"predictions": [["42", "41", "42"], ["7", "8", "8"]], "references": ["42", "7"]},
)


def maj_at_n(
    samples: Any,
    gold: Any,
    *,
    n: int | None = None,
    normalizers: Sequence[str] = (),
    preset: str | None = None,
    segments: bool = False,
) -> MajAtNResult:
    """maj@n (``score``) and avg@n (``avg``), lighteval's ``MajAtN``/``AvgAtN`` numbers: each problem's sampled
    answers (the first ``n``) against its gold answer.

    >>> r = maj_at_n([["42", "41", "42"], ["7", "8", "8"]], ["42", "7"])
    >>> r.score, round(r.avg, 6)
    (0.5, 0.5)
    """
    cfg = MAJ_AT_N.make_config(
        preset, n=n, normalizers=tuple(normalizers) if not isinstance(normalizers, str) else normalizers
    )
    return MAJ_AT_N.compute(samples, gold, cfg, segments=segments)
