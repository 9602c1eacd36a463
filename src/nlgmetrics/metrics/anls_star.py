"""ANLS*: ANLS for structured output (strings, numbers, None, lists, dicts and tuples of alternatives).

Reproduces ``anls_star.anls_score(gt, pred)`` of the PyPI package ``anls-star`` 1.0.1 (Peer et al., "ANLS* - A
Universal Document Processing Metric for Generative Large Language Models", arXiv:2402.03848), sample by sample;
the corpus score is the mean over samples. Argument order is ``(predictions, references)``, the reverse of the
package's ``anls_score(gt, pred)``.

One sample's score is ``Σ values / length`` (1.0 when the length is 0), where the ground truth and the prediction
are walked together and every leaf contributes one similarity value. ``length`` — the package's "pairwise length" —
is what the values are divided by, so missing and hallucinated items count as 0 over a non-zero length:

* **leaves** (``str``, ``int``, ``float``, ``bool``) compare ``str(value)`` after lowercasing, stripping and
  collapsing whitespace, with the normalised Levenshtein similarity ``1 - lev / max(len)``; a similarity under τ
  (0.5) becomes 0, exactly τ is kept. A leaf against a list, dict or None scores 0 over ``max(1, size(pred))``.
* **None** in the ground truth accepts the "none-like" predictions ``None``, ``""``, ``[]`` and ``{}`` (1.0) and
  gives 0 to anything else, over ``max(1, size(pred))``. A missing dict key is None.
* **tuple** (ground truth only): alternatives. The option with the highest own mean wins; among equal means, the
  first whose closest ground truth equals the prediction, else the first. Its values and length go up unchanged.
* **list**: Hungarian matching that maximises the sum of the per-pair means, each pair whose closest ground truth
  equals the prediction item nudged up by one ulp (``math.nextafter``). Matched pairs contribute their values and
  lengths; unmatched items on either side contribute their size to the length.
* **dict**: values per key over the union of keys; a key only in the prediction whose value is none-like adds
  nothing to the values but still 1 to the length.
* sizes: a leaf or None is 1, a list or dict the sum over its items, a tuple the largest option.
* a ground truth that is a list of strings with a string prediction (top level only) is read as a tuple of
  alternatives (the package's ST-VQA compatibility mode; it warns each time, we do not — see ``alternatives``).

The assignment is solved with :func:`scipy.optimize.linear_sum_assignment` on the very cost matrix the package
hands to ``munkres`` (``max - mean``, with the nudges). Where several assignments are optimal, the solvers may pick
different ones, and when those differ in the lengths or values of the pairs they match, the score differs; the
package's own result then depends on the installed ``munkres`` version. ``docs/anls_star.md`` describes these
cases and the measured rates, and the other places where the package's README and its behaviour disagree.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np
from rapidfuzz.distance import Levenshtein
from scipy.optimize import linear_sum_assignment

from .._inputs import check_paired, describe
from ..errors import InvalidInputError
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from .base import Family, Result, check_number, safe_div

__all__ = [
    "ANLS_STAR",
    "ANLSStarConfig",
    "ANLSStarResult",
    "ANLSStarStats",
    "anls_star",
    "anls_star_score",
    "check_structured_pairs",
]

_LEAF_TYPES = (str, int, float, bool)
_ACCEPTED = "str, int, float, bool, None, list and dict (and, in references, tuples of alternatives)"


# ====================================================================== configuration, statistics, result
@dataclasses.dataclass(frozen=True)
class ANLSStarConfig:
    """Options of ANLS*.

    * ``threshold``: τ; a leaf similarity below τ counts 0 (the package's fixed ``THRESHOLD = 0.5``).
    * ``list_as_alternatives``: a reference that is a list of strings, paired with a string prediction, is
      read as a tuple of alternatives (the package's ST-VQA compatibility mode, always on there).
    """

    threshold: float = sig_field("tau", 0.5, help="the threshold tau under which a leaf similarity counts 0")
    list_as_alternatives: bool = sig_field(
        "alt", True, help="read a list-of-strings reference of a string prediction as alternatives"
    )

    def __post_init__(self) -> None:
        check_number("threshold", self.threshold, minimum=0.0, maximum=1.0)
        if not isinstance(self.list_as_alternatives, bool):
            raise InvalidInputError(f"list_as_alternatives must be True or False, got {self.list_as_alternatives!r}")


@dataclasses.dataclass(frozen=True)
class ANLSStarStats(Stats):
    """``score_sum`` over ``count`` samples; ``perfect`` samples scored exactly 1.0; ``alternatives`` samples
    were scored with their list-of-strings reference read as alternatives."""

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (("perfect", "count"), ("alternatives", "count"))
    per_segment_max: ClassVar[Mapping[str, float]] = {"score_sum": 1.0}

    score_sum: float
    count: int
    perfect: int
    alternatives: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class ANLSStarResult(Result):
    count: int = 0
    perfect: int = 0
    alternatives: int = 0
    #: Per sample, the object derived from the reference that best matches the prediction (the package's
    #: ``return_gt=True``); only with ``return_closest_gt=True``.
    closest_gt: tuple[Any, ...] | None = None


def anls_star_from_stats(stats: ANLSStarStats, cfg: ANLSStarConfig) -> ANLSStarResult:
    """The formula: the mean of the per-sample scores."""
    return ANLSStarResult(
        score=safe_div(stats.score_sum, stats.count),
        **stats.shared_with(ANLSStarResult),
    )


# ====================================================================== input checking
def _as_corpus(values: Any, name: str) -> list[Any]:
    if values is None:
        raise InvalidInputError(f"{name} is None; expected a sequence with one object per sample")
    if isinstance(values, (str, bytes, bytearray, dict)):
        raise InvalidInputError(
            f"{name} is {describe(values)}, not a sequence of samples; wrap a single sample in a list "
            "(or score one pair with anls_star_score)"
        )
    if hasattr(values, "tolist") and not isinstance(values, (list, tuple)):
        values = values.tolist()  # numpy object arrays, pandas Series
    if isinstance(values, (list, tuple)):
        return list(values)
    if isinstance(values, Iterable):
        return list(values)
    raise InvalidInputError(f"{name} is {describe(values)}; expected a sequence with one object per sample")


#: The deepest nesting of lists, tuples and dicts scored (the walk is recursive; real answers nest a few levels).
MAX_DEPTH = 100


def _check_object(value: Any, path: str, *, reference: bool, depth: int = 0) -> None:
    """Raise :class:`InvalidInputError` naming the path of the first value ANLS* cannot score."""
    if depth > MAX_DEPTH:
        root = path[: path.index("]") + 1] if "]" in path else path
        raise InvalidInputError(
            f"{root} is nested more than {MAX_DEPTH} levels deep (lists, tuples or dicts inside each other, or a "
            "container that holds itself); ANLS* scores structures up to that depth"
        )
    if isinstance(value, np.generic):
        # np.float64 is a float, but the package's none-like test and its equality checks turn numpy scalars into
        # arrays and crash in some positions; ask for plain Python numbers instead
        raise InvalidInputError(
            f"{path}: unsupported type {type(value).__name__} ({value!r:.40}), a numpy scalar; convert it with "
            f".item() (ANLS* accepts {_ACCEPTED})"
        )
    if value is None or isinstance(value, _LEAF_TYPES):
        return
    if isinstance(value, tuple):
        if not reference:
            raise InvalidInputError(
                f"{path} is a tuple: tuples mark alternative answers and are allowed only in references; "
                "use a list for a list of items"
            )
        if not value:
            raise InvalidInputError(f"{path} is an empty tuple: a tuple of alternatives needs at least one")
        for i, item in enumerate(value):
            _check_object(item, f"{path}[{i}]", reference=reference, depth=depth + 1)
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_object(item, f"{path}[{i}]", reference=reference, depth=depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _check_object(item, f"{path}[{key!r}]", reference=reference, depth=depth + 1)
        return
    raise InvalidInputError(
        f"{path}: unsupported type {type(value).__name__} ({value!r:.40}); ANLS* accepts {_ACCEPTED}"
    )


def _reads_as_alternatives(prediction: Any, reference: Any, cfg: ANLSStarConfig) -> bool:
    return (
        cfg.list_as_alternatives
        and isinstance(prediction, str)
        and isinstance(reference, list)
        and all(isinstance(x, str) for x in reference)
    )


def check_structured_pairs(
    predictions: Any, references: Any, *, allow_empty: bool = False, config: ANLSStarConfig | None = None
) -> tuple[list[Any], list[Any]]:
    """Check a corpus of structured predictions and references; return them as two lists.

    Raises :class:`InvalidInputError` naming the offending sample (and the path inside it) for ``None``
    corpora, mismatched lengths, an empty corpus, unsupported types, tuples in predictions and empty tuples.
    """
    preds = _as_corpus(predictions, "predictions")
    refs = _as_corpus(references, "references")
    check_paired(preds, refs, "one reference object per prediction", allow_empty=allow_empty)
    for i, (p, r) in enumerate(zip(preds, refs, strict=True)):
        _check_object(p, f"predictions[{i}]", reference=False)
        _check_object(r, f"references[{i}]", reference=True)
        if config is not None and not r and _reads_as_alternatives(p, r, config):
            raise InvalidInputError(
                f"references[{i}] is an empty list and predictions[{i}] is a string: read as alternatives "
                "(list_as_alternatives=True, the package's compatibility mode) that is an empty set of answers, "
                "on which anls_star.anls_score raises too; give at least one answer, or None for 'no answer'"
            )
    return preds, refs


# ====================================================================== the tree walk
class _Match(NamedTuple):
    """One ground truth against one prediction."""

    values: list[float]  # one similarity per scored leaf, in the order the package lists them
    length: int  # the package's pairwise length: what the values are divided by
    closest: Any  # the object derived from the ground truth that best matches the prediction


def _mean(m: _Match) -> float:
    return sum(m.values) / m.length if m.length > 0 else 1.0


def _none_like(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _size(value: Any) -> int:
    if isinstance(value, tuple):
        return max(_size(x) for x in value)
    if isinstance(value, list):
        return sum(_size(x) for x in value)
    if isinstance(value, dict):
        return sum(_size(x) for x in value.values())
    return 1


class _Matcher:
    """Walks a ground truth and a prediction together. Holds τ and a cache of normalised leaf strings."""

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self._normalised: dict[str, str] = {}

    def normalise(self, text: str) -> str:
        out = self._normalised.get(text)
        if out is None:
            out = self._normalised[text] = " ".join(text.strip().lower().split())
        return out

    def match(self, gt: Any, pred: Any) -> _Match:
        if isinstance(gt, tuple):
            return self._alternatives(gt, pred)
        if isinstance(gt, list):
            if not isinstance(pred, list):
                return _Match([0.0], max(_size(gt), _size(pred)), gt)
            return self._lists(gt, pred)
        if isinstance(gt, dict):
            if not isinstance(pred, dict):
                return _Match([0.0], max(_size(gt), _size(pred)), gt)
            return self._dicts(gt, pred)
        if gt is None:
            if _none_like(pred):
                return _Match([1.0], max(1, _size(pred)), pred)
            return _Match([0.0], max(1, _size(pred)), None)
        if pred is None or isinstance(pred, (list, dict)):
            return _Match([0.0], max(1, _size(pred)), gt)
        return _Match([self.similarity(gt, pred)], 1, gt)

    def similarity(self, gt: Any, pred: Any) -> float:
        a, b = self.normalise(str(gt)), self.normalise(str(pred))
        longest = max(len(a), len(b))
        sim = 1.0 - (Levenshtein.distance(a, b) / longest if longest else 0.0)
        return 0.0 if sim < self.threshold else sim

    def _alternatives(self, options: tuple[Any, ...], pred: Any) -> _Match:
        best: _Match | None = None
        best_key = (-math.inf, 0)
        for option in options:
            m = self.match(option, pred)
            key = (_mean(m), 1 if m.closest == pred else 0)
            if best is None or key > best_key:  # the first of equal keys wins
                best, best_key = m, key
        if best is None:  # unreachable for checked input: tuples are non-empty
            raise InvalidInputError("a tuple of alternatives needs at least one")
        return best

    def _lists(self, gt: list[Any], pred: list[Any]) -> _Match:
        if not gt or not pred:
            return _Match([], sum(map(_size, gt)) + sum(map(_size, pred)), list(gt))
        # the gains only: the matches of the pairs the assignment picks are made again below (a table of every
        # match held 1.7 GB for two lists of 3,000 strings)
        gain = np.empty((len(gt), len(pred)), dtype=np.float64)
        for i, g in enumerate(gt):
            row = gain[i]
            for j, p in enumerate(pred):
                m = self.match(g, p)
                mean = _mean(m)
                # an exact structural match wins ties (the package's nudge)
                row[j] = math.nextafter(mean, math.inf) if p == m.closest else mean
        # munkres.make_cost_matrix's inversion, so the solver sees the same floats as the package's
        solved_rows, solved_cols = linear_sum_assignment(gain.max() - gain)
        rows, cols = solved_rows.tolist(), solved_cols.tolist()
        table = {(i, j): self.match(gt[i], pred[j]) for i, j in zip(rows, cols, strict=True)}
        values: list[float] = []
        length = 0
        for i, j in zip(rows, cols, strict=True):
            values.extend(table[i, j].values)
            length += table[i, j].length
        matched_rows, matched_cols = set(rows), set(cols)
        length += sum(_size(g) for i, g in enumerate(gt) if i not in matched_rows)
        length += sum(_size(p) for j, p in enumerate(pred) if j not in matched_cols)
        # matched ground truths in the prediction's order, then the unmatched ones in their own order
        closest = [table[i, j].closest for j, i in sorted(zip(cols, rows, strict=True))]
        closest.extend(g for i, g in enumerate(gt) if i not in matched_rows)
        return _Match(values, length, closest)

    def _dicts(self, gt: dict[Any, Any], pred: dict[Any, Any]) -> _Match:
        values: list[float] = []
        length = 0
        closest: dict[Any, Any] = {}
        for key, g in gt.items():
            m = self.match(g, pred.get(key))
            values.extend(m.values)
            length += m.length
            if key in pred or not _none_like(m.closest):
                closest[key] = m.closest
        for key, p in pred.items():
            if key in gt:
                continue
            if _none_like(p):
                length += 1  # a hallucinated none-like key: no value, but it still counts in the length
                continue
            m = self.match(None, p)
            values.extend(m.values)
            length += m.length
            closest[key] = m.closest
        return _Match(values, length, closest)


def _leaves(value: Any) -> int:
    """The leaves of a value (alternatives counted each), at least 1."""
    if isinstance(value, (list, tuple)):
        return max(1, sum(_leaves(x) for x in value))
    if isinstance(value, dict):
        return max(1, sum(_leaves(x) for x in value.values()))
    return 1


def _cells(gt: Any, pred: Any) -> int:
    """An upper bound on the leaf comparisons of ``_Matcher.match(gt, pred)``: two lists compare every element
    of one with every element of the other (at most every leaf with every leaf), a dict compares key by key,
    alternatives each compare with the prediction."""
    if isinstance(gt, tuple):
        return sum(_cells(option, pred) for option in gt)
    if isinstance(gt, list):
        return _leaves(gt) * _leaves(pred) if isinstance(pred, list) and gt and pred else 1
    if isinstance(gt, dict):
        if not isinstance(pred, dict):
            return 1
        return sum(_cells(g, pred.get(key)) for key, g in gt.items()) + len(pred)
    return 1


def _guard(gt: Any, pred: Any, segment: int, limit: float | None) -> None:
    """Refuse, before matching, a sample whose list matching would run beyond the limit of
    :mod:`nlgmetrics.algorithms.guard` (every element of a list against every element of the other)."""
    if limit is None or not isinstance(gt, (list, tuple, dict)):
        return
    from ..algorithms.guard import RATES, check_pairs

    rate = RATES["anls-star"][2]
    cells = _cells(gt, pred)
    if cells * rate > limit:
        a, b = _leaves(pred), _leaves(gt)  # the message's lengths; the estimate is of the cells themselves
        check_pairs("anls_star", "anls-star", [a], [b], [segment], rate=[rate * cells / (a * b)])


def _score_samples(
    preds: Sequence[Any], refs: Sequence[Any], cfg: ANLSStarConfig
) -> tuple[list[float], list[bool], list[Any]]:
    """Per sample: the score, whether the reference was read as alternatives, and the closest ground truth."""
    from ..algorithms.guard import limit_seconds

    matcher = _Matcher(cfg.threshold)
    scores: list[float] = []
    flags: list[bool] = []
    closest: list[Any] = []
    limit = limit_seconds()
    for k, (p, r) in enumerate(zip(preds, refs, strict=True)):
        alt = _reads_as_alternatives(p, r, cfg)
        gt = tuple(r) if alt else r
        _guard(gt, p, k, limit)
        m = matcher.match(gt, p)
        scores.append(_mean(m))
        flags.append(alt)
        closest.append(m.closest)
    return scores, flags, closest


def _anls_star_kernel(preds: list[Any], refs: list[Any], cfg: ANLSStarConfig) -> StatsBatch[ANLSStarStats]:
    scores, flags, _ = _score_samples(preds, refs, cfg)
    return _batch(scores, flags)


def _batch(scores: list[float], flags: list[bool]) -> StatsBatch[ANLSStarStats]:
    s = np.asarray(scores, dtype=np.float64)
    return StatsBatch(
        ANLSStarStats,
        {
            "score_sum": s,
            "count": np.ones(len(s), dtype=np.int64),
            "perfect": (s == 1.0).astype(np.int64),
            "alternatives": np.asarray(flags, dtype=np.int64),
        },
    )


# ====================================================================== the family
@dataclasses.dataclass(frozen=True)
class _StructuredFamily(Family[ANLSStarConfig, ANLSStarStats, ANLSStarResult]):
    """A family whose samples are structured objects rather than strings: it checks its own input."""

    def prepare(
        self, predictions: Any, references: Any, config: Any, allow_empty: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> tuple[Any, Any, dict[str, Any]] | None:
        self.check_inputs(inputs)
        self.check_sources(sources, 0)
        preds, refs = check_structured_pairs(predictions, references, allow_empty=allow_empty, config=config)
        return (preds, refs, {}) if preds else None  # objects, not strings


ANLS_STAR = _StructuredFamily(
    name="anls_star",
    bounds=(0.0, 1.0),
    config_cls=ANLSStarConfig,
    stats_cls=ANLSStarStats,
    kernel=_anls_star_kernel,  # type: ignore[arg-type]
    formula=anls_star_from_stats,
    vectorized=True,
    example={
        "predictions": [{"total": "12.50", "items": ["tea", "cake"]}, "Hello Wrld"],
        "references": [{"total": "12.50", "items": ["cake", "tea"]}, ("Hello World", "hi")],
    },
)


# ====================================================================== the functional API
def anls_star(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    threshold: float = 0.5,
    list_as_alternatives: bool = True,
    segments: bool = False,
    return_closest_gt: bool = False,
) -> ANLSStarResult:
    """ANLS* over a corpus: the mean over samples of ``anls_star.anls_score(reference, prediction)``.

    Each prediction is one structured object (``str``, ``int``, ``float``, ``bool``, ``None``, ``list``, ``dict``,
    nested freely); each reference is the same, plus tuples for alternative answers. ``segments=True`` adds the
    per-sample scores; ``return_closest_gt=True`` adds, per sample, the object derived from the reference that best
    matches the prediction (the package's ``return_gt``).

    >>> pred = {"a": "hello!", "b": ["a", "test", "this", "be"]}
    >>> gt = {"a": ("hello", "world"), "b": ["this", "is", "a", "test"]}
    >>> anls_star([pred], [gt]).score
    0.7666666666666667
    >>> anls_star([pred], [gt], return_closest_gt=True).closest_gt
    ({'a': 'hello', 'b': ['a', 'test', 'this', 'is']},)
    >>> anls_star(["Hello Wrld", None], [["Hello World", "hi"], None], segments=True).segments
    (0.9090909090909091, 1.0)
    """
    cfg = ANLS_STAR.make_config(threshold=threshold, list_as_alternatives=list_as_alternatives)
    if not return_closest_gt:
        return ANLS_STAR.compute(predictions, references, cfg, segments=segments)
    preds, refs = check_structured_pairs(predictions, references, config=cfg)
    scores, flags, closest = _score_samples(preds, refs, cfg)
    batch = _batch(scores, flags)
    result = ANLS_STAR.finalize(batch.total(), cfg, batch if segments else None)
    return dataclasses.replace(result, closest_gt=tuple(closest))


def anls_star_score(
    prediction: Any, reference: Any, *, threshold: float = 0.5, list_as_alternatives: bool = True
) -> float:
    """ANLS* of one prediction against one reference: ``anls_star.anls_score(reference, prediction)``.

    >>> anls_star_score("Hello Wrld", "Hello World")
    0.9090909090909091
    >>> anls_star_score({"total": "12.30", "date": None}, {"total": "12.30", "date": None, "vat": "2.05"})
    0.6666666666666666
    """
    cfg = ANLS_STAR.make_config(threshold=threshold, list_as_alternatives=list_as_alternatives)
    return float(ANLS_STAR.segment_stats(prediction, reference, cfg).score_sum)
