"""METEOR 1.5 as pycocoevalcap 1.2 computes it: its ``meteor-1.5.jar`` gives the statistics, Python the score.

Preset ``pycocoevalcap`` (the only one, and the default) reproduces ``pycocoevalcap.meteor.meteor.Meteor``:
``Meteor().compute_score(gts, res)``, which runs ``java -jar -Xmx2G meteor-1.5.jar - - -stdio -l en -norm``
(Meteor 1.5, English, task ``rank``: alpha 0.85, beta 0.2, gamma 0.6, delta 0.75; modules exact, stem, synonym,
paraphrase with weights 1.0, 0.6, 0.8, 0.6), sends one ``SCORE ||| ref1 ||| ... ||| hyp`` line per image and
then one ``EVAL ||| stats1 ||| stats2 ...`` line, and returns the jar's aggregate score and its per-image scores.
It is the ``METEOR`` of ``COCOEvalCap.evaluate()`` (see :mod:`nlgmetrics.metrics.coco`, ``meteor=True``).

It needs Java and the jar, which only pycocoevalcap's wheel ships (with WordNet inside the jar and the 60 MB
paraphrase table ``data/paraphrase-en.gz``): ``pip install 'nlgmetrics[coco-meteor]'``. Nothing is downloaded.
The JVM is started on first use and kept for the process's later calls (:mod:`nlgmetrics.metrics.meteor.jar`).

How the work is split:

* **kernel** (the jar): each segment's ``SCORE`` line gives Meteor's sufficient statistics, the 23 numbers of
  ``MeteorStats.toString()``: the words of the hypothesis and of the (best) reference, their function words,
  per stage the content and function words matched on each side, the chunks, and the matched words. They are
  counts, so they add exactly. One adjustment makes them additive as the jar adds them: ``MeteorStats.addStats``
  leaves out the chunk of a segment that matches its reference completely in one chunk, so that segment's chunk
  is stored as 0 (its own score is the same: its fragmentation is 0 either way).
* **formula** (Python): ``MeteorScorer.computeMetrics`` restated, operation for operation in the jar's order, on
  summed statistics: weighted lengths ``delta * (words - function) + (1 - delta) * function``, weighted matches
  (content matches x stage weight x delta, then function matches x weight x (1 - delta)), ``P``, ``R``,
  ``Fmean = 1 / ((1 - alpha) / P + alpha / R)``, fragmentation ``chunks / ((test + reference word matches) / 2)``
  (0 for a complete one-chunk match), ``penalty = gamma * frag ** beta``, ``score = Fmean * (1 - penalty)``, 0 when
  that is NaN (no words, no match). Per segment it is the jar's ``EVAL`` line for one segment; on the corpus sum,
  the aggregate ``EVAL`` prints last, which pycocoevalcap reports. Batches, ``merge``, DDP and Spark therefore
  give the one-call number.

Input, as pycocoevalcap sends it: in a prediction, ``|||`` is deleted and two spaces become one (its
``_stat``). A reference holding ``|||`` would be split into several references by the jar, and a caption holding
a line break would shift every later answer onto the wrong image; pycocoevalcap does both silently, here they are
errors that name the segment.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..._inputs import ReferenceSets
from ...errors import ExternalToolError, InvalidInputError, unknown_option
from ...signature import sig_field
from ...stats import Stats, StatsBatch
from ..base import Family, Result, check_number

__all__ = [
    "METEOR15",
    "Meteor15Config",
    "Meteor15Result",
    "Meteor15Stats",
    "meteor15",
    "meteor15_from_stats",
    "meteor15_lines",
]

#: Meteor 1.5's parameters for English, task ``rank`` (``Constants.PARAM_RANK``, ``WEIGHT_RANK``).
ALPHA, BETA, GAMMA, DELTA = 0.85, 0.2, 0.6, 0.75
WEIGHTS = (1.0, 0.6, 0.8, 0.6)
STAGES = ("exact", "stem", "synonym", "paraphrase")
#: The statistics of one ``SCORE`` answer, in the jar's order.
STATS_LENGTH = 23
LANGUAGES = ("en",)


@dataclasses.dataclass(frozen=True)
class Meteor15Config:
    """``normalize``: the jar's ``-norm`` (tokenize, normalize punctuation, lowercase), as pycocoevalcap runs it.
    ``timeout``: seconds to wait for the JVM's next answer before it is stopped (no effect on the score)."""

    language: str = sig_field(
        "lang", "en", help="language of Meteor's resources (pycocoevalcap ships English)", choices=LANGUAGES
    )
    normalize: bool = sig_field("norm", True, help="the jar's -norm: tokenize, normalize punctuation, lowercase")
    timeout: float = sig_field(None, 600.0, help="seconds to wait for the Java process's next answer")
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise unknown_option("METEOR 1.5 language (pycocoevalcap ships English only)", self.language, LANGUAGES)
        if not isinstance(self.normalize, bool):
            raise InvalidInputError(f"normalize must be True or False, got {self.normalize!r}")
        check_number("timeout", self.timeout, minimum=0.001)
        object.__setattr__(self, "timeout", float(self.timeout))


@dataclasses.dataclass(frozen=True)
class Meteor15Stats(Stats):
    """Meteor 1.5's sufficient statistics (``MeteorStats``), summed over segments: the words of the hypotheses
    (``test``) and of the chosen references, their function words, per stage (exact, stem, synonym,
    paraphrase) the content and function words matched on each side, the chunks (a complete one-chunk match
    counts 0, as ``addStats`` adds them), the matched words on each side, and the number of segments."""

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (
        ("test_function_words", "test_words"),
        ("reference_function_words", "reference_words"),
        ("test_word_matches", "test_words"),
        ("reference_word_matches", "reference_words"),
        ("test_content_matches", "test_words"),
        ("reference_content_matches", "reference_words"),
        ("test_function_matches", "test_function_words"),
        ("reference_function_matches", "reference_function_words"),
    )

    test_words: int
    reference_words: int
    test_function_words: int
    reference_function_words: int
    test_content_matches: tuple[int, ...]
    reference_content_matches: tuple[int, ...]
    test_function_matches: tuple[int, ...]
    reference_function_matches: tuple[int, ...]
    chunks: int
    test_word_matches: int
    reference_word_matches: int
    count: int

    tuple_fields: ClassVar[dict[str, int]] = {
        "test_content_matches": 4,
        "reference_content_matches": 4,
        "test_function_matches": 4,
        "reference_function_matches": 4,
    }


#: The statistics of one segment as the jar prints them, by field: (field, stage) per position of the line.
_LAYOUT: tuple[tuple[str, int | None], ...] = (
    ("test_words", None),
    ("reference_words", None),
    ("test_function_words", None),
    ("reference_function_words", None),
    *(
        (name, stage)
        for stage in range(4)
        for name in (
            "test_content_matches",
            "reference_content_matches",
            "test_function_matches",
            "reference_function_matches",
        )
    ),
    ("chunks", None),
    ("test_word_matches", None),
    ("reference_word_matches", None),
)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Meteor15Result(Result):
    """METEOR 1.5 in [0, 1] (``score``), with the parts of its formula: ``precision`` and ``recall`` (weighted
    matches over weighted lengths), ``fmean``, ``fragmentation`` (chunks per matched word) and ``penalty``;
    ``matches`` (the hypothesis words matched at each stage), ``chunks``, ``test_words``, ``reference_words``
    and ``count``."""

    precision: Any = 0.0
    recall: Any = 0.0
    fmean: Any = 0.0
    fragmentation: Any = 0.0
    penalty: Any = 0.0
    matches: Any = None
    chunks: Any = 0
    test_words: Any = 0
    reference_words: Any = 0
    count: Any = 0


def _stage(values: Any, i: int) -> Any:
    """Stage ``i`` of a per-stage field: a number (one set of statistics) or a column (a batch)."""
    if isinstance(values, np.ndarray) and values.ndim == 2:
        return values[:, i].astype(np.float64)
    return np.float64(values[i])


def meteor15_from_stats(stats: Meteor15Stats, cfg: Meteor15Config) -> Meteor15Result:
    """``MeteorScorer.computeMetrics`` of Meteor 1.5 on (summed) statistics, in the jar's order of operations
    (IEEE doubles, as Java computes them). Works on numbers and, for per-segment scores, on numpy columns."""
    f = np.float64
    delta = f(DELTA)
    with np.errstate(all="ignore"):  # Java divides by zero into inf and NaN; so does this
        t_words, r_words = f(1.0) * stats.test_words, f(1.0) * stats.reference_words
        t_func, r_func = f(1.0) * stats.test_function_words, f(1.0) * stats.reference_function_words
        t_len = delta * (t_words - t_func) + (f(1.0) - delta) * t_func
        r_len = delta * (r_words - r_func) + (f(1.0) - delta) * r_func
        t_match: Any = f(0.0)
        r_match: Any = f(0.0)
        for i, w in enumerate(WEIGHTS):
            t_match = t_match + _stage(stats.test_content_matches, i) * f(w) * delta
        for i, w in enumerate(WEIGHTS):
            r_match = r_match + _stage(stats.reference_content_matches, i) * f(w) * delta
        for i, w in enumerate(WEIGHTS):
            t_match = t_match + _stage(stats.test_function_matches, i) * f(w) * (f(1.0) - delta)
        for i, w in enumerate(WEIGHTS):
            r_match = r_match + _stage(stats.reference_function_matches, i) * f(w) * (f(1.0) - delta)
        precision = t_match / t_len
        recall = r_match / r_len
        alpha = f(ALPHA)
        fmean = f(1.0) / ((f(1.0) - alpha) / precision + alpha / recall)
        t_total: Any = 0
        r_total: Any = 0
        for i in range(4):  # integer counts: exact in any order
            t_total = t_total + _stage(stats.test_content_matches, i) + _stage(stats.test_function_matches, i)
            r_total = r_total + _stage(stats.reference_content_matches, i) + _stage(stats.reference_function_matches, i)
        chunks = f(1.0) * stats.chunks
        word_matches = (f(1.0) * stats.test_word_matches + f(1.0) * stats.reference_word_matches) / f(2.0)
        whole = (t_total == t_words) & (r_total == r_words) & (chunks == f(1.0))
        frag = np.where(whole, f(0.0), chunks / word_matches)
        penalty = f(GAMMA) * np.power(frag, f(BETA))
        score = fmean * (f(1.0) - penalty)
        score = np.where(np.isnan(score), f(0.0), np.maximum(score, f(0.0)))
    if np.ndim(score) == 0:
        return Meteor15Result(
            score=float(score),
            precision=float(precision),
            recall=float(recall),
            fmean=float(fmean),
            fragmentation=float(frag),
            penalty=float(penalty),
            matches={
                stage: int(c) + int(fw)
                for stage, c, fw in zip(STAGES, stats.test_content_matches, stats.test_function_matches, strict=True)
            },
            **stats.shared_with(Meteor15Result),
        )
    return Meteor15Result(
        score=score, precision=precision, recall=recall, fmean=fmean, fragmentation=frag, penalty=penalty
    )


# ---------------------------------------------------------------------------------------------- kernel
_LINE_BREAKS = ("\n", "\r")


def _checked(text: str, what: str) -> str:
    for ch in _LINE_BREAKS:
        if ch in text:
            raise InvalidInputError(
                f"{what} holds a line break ({ch!r}): meteor-1.5.jar reads one line per segment, so pycocoevalcap "
                "would score every later segment against the wrong references; replace it with a space first"
            )
    return text


def meteor15_lines(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> list[bytes]:
    """The ``SCORE`` lines pycocoevalcap's ``Meteor._stat`` writes to the jar, UTF-8 encoded, one per segment.

    As pycocoevalcap does: ``|||`` deleted from the prediction, then two spaces made one. A reference holding
    ``|||`` and a line break anywhere are :class:`~nlgmetrics.errors.InvalidInputError` naming the segment."""
    out = []
    for i, (hyp, refs) in enumerate(zip(predictions, references, strict=True)):
        hyp = _checked(hyp, f"predictions[{i}]").replace("|||", "").replace("  ", " ")
        for j, ref in enumerate(refs):
            _checked(ref, f"references[{i}][{j}]")
            if "|||" in ref:
                raise InvalidInputError(
                    f"references[{i}][{j}] holds '|||', meteor-1.5.jar's field separator: pycocoevalcap would "
                    "split it into several references; remove it first"
                )
        line = " ||| ".join(("SCORE", " ||| ".join(refs), hyp)) + "\n"
        try:
            out.append(line.encode("utf-8"))
        except UnicodeEncodeError as err:
            raise InvalidInputError(
                f"segment {i} is not valid Unicode text (a lone surrogate at {err.start}): it cannot be sent to "
                "meteor-1.5.jar as UTF-8"
            ) from None
    return out


def parse_stats(answers: Sequence[str]) -> np.ndarray:
    """The jar's statistics lines as an ``(n, 23)`` int64 array, chunks adjusted as ``addStats`` adds them."""
    rows = np.zeros((len(answers), STATS_LENGTH), dtype=np.int64)
    for i, line in enumerate(answers):
        parts = line.split()
        try:
            values = [float(x) for x in parts]
        except ValueError:
            values = []
        if len(values) != STATS_LENGTH or not all(v.is_integer() and v >= 0 for v in values):
            raise ExternalToolError(
                f"meteor-1.5.jar answered segment {i} with {line[:200]!r}, not {STATS_LENGTH} word counts"
            )
        rows[i] = values
    t_total = rows[:, 4:20:4].sum(axis=1) + rows[:, 6:20:4].sum(axis=1)
    r_total = rows[:, 5:20:4].sum(axis=1) + rows[:, 7:20:4].sum(axis=1)
    whole = (t_total == rows[:, 0]) & (r_total == rows[:, 1]) & (rows[:, 20] == 1)
    rows[whole, 20] = 0  # MeteorStats.addStats leaves out the chunk of a complete one-chunk match
    return rows


def stats_columns(rows: np.ndarray) -> dict[str, np.ndarray]:
    """The columns of :class:`Meteor15Stats` from :func:`parse_stats` rows (without ``count``)."""
    columns: dict[str, Any] = {}
    for k, (name, stage) in enumerate(_LAYOUT):
        if stage is None:
            columns[name] = rows[:, k]
        else:
            columns.setdefault(name, np.zeros((len(rows), 4), dtype=np.int64))[:, stage] = rows[:, k]
    return columns


def stats_rows(predictions: Sequence[str], references: Sequence[Sequence[str]], cfg: Meteor15Config) -> np.ndarray:
    """Each segment's statistics from the jar (see :func:`parse_stats`)."""
    from .jar import run

    lines = meteor15_lines(predictions, references)
    if not lines:
        return np.zeros((0, STATS_LENGTH), dtype=np.int64)
    return parse_stats(run(lines, normalize=cfg.normalize, timeout=cfg.timeout))


def _kernel(preds: list[str], refs: ReferenceSets, cfg: Meteor15Config) -> StatsBatch[Meteor15Stats]:
    rows = stats_rows(preds, refs, cfg)
    columns = stats_columns(rows)
    columns["count"] = np.ones(len(preds), dtype=np.int64)
    return StatsBatch(Meteor15Stats, columns)


METEOR15 = Family(
    name="meteor15",
    config_cls=Meteor15Config,
    stats_cls=Meteor15Stats,
    kernel=_kernel,
    formula=meteor15_from_stats,
    presets={"pycocoevalcap": {"language": "en", "normalize": True}},
    default_preset="pycocoevalcap",
    vectorized=True,
    bounds=(0.0, 1.0),
    cache_configs=True,
)


def meteor15(
    predictions: Sequence[str] | str,
    references: Sequence[str | Sequence[str]] | str,
    *,
    segments: bool = False,
    **options: Any,
) -> Meteor15Result:
    """METEOR 1.5 as pycocoevalcap 1.2's ``Meteor().compute_score`` computes it (its ``meteor-1.5.jar``, Java).

    ``score`` is the jar's aggregate (Meteor's corpus score from the summed statistics, what ``COCOEvalCap``
    reports); ``segments=True`` adds each segment's score. Needs Java and ``pip install
    'nlgmetrics[coco-meteor]'``; the first call of a process starts the JVM (a few seconds).

    >>> r = meteor15(["a man is riding a horse"], [["a man rides a horse on the beach"]])  # doctest: +SKIP
    """
    cfg = METEOR15.make_config(None, **options)
    return METEOR15.compute(predictions, references, cfg, segments=segments)
