"""Exact match: the share of predictions equal to one of their accepted answers, after named normalisers that
compose, and optionally after extracting the answer from the prediction with a regular expression.

Normalisers (``normalizers=(...)``, applied left to right to predictions and answers alike):

* ``squad``: SQuAD's ``normalize_answer`` (lowercase, drop ASCII punctuation and a/an/the, collapse spaces);
* ``hf-evaluate``: Hugging Face ``evaluate``'s ``exact_match`` transformations, configured by its four options
  ``regexes_to_ignore``, ``ignore_case``, ``ignore_punctuation`` and ``ignore_numbers`` (each regex deleted, then
  lowercase, then ``string.punctuation`` and ``string.digits`` deleted, with its numpy calls);
* ``nfkc``, ``casefold``, ``lower``; ``strip-whitespace`` (``str.strip``), ``collapse-whitespace`` (runs of
  whitespace become one space), ``remove-whitespace``; ``ja-width`` (full-width ASCII to ASCII, half-width
  katakana to full width); ``jsquad`` and ``cmrc2018`` (those benchmarks' EM normalisation); ``whisper-english``
  and ``whisper-basic`` (OpenAI Whisper's ``EnglishTextNormalizer`` and ``BasicTextNormalizer``,
  :mod:`nlgmetrics.text.whisper`).

Extraction (``extract=PATTERN``) follows lm-evaluation-harness's ``RegexFilter``: ``re.findall`` over the
prediction, the match at ``extract_index`` (0: the first, -1: the last), of a match with several groups the first
non-empty one (or group ``extract_group`` when given), stripped. A prediction where the pattern finds nothing
scores 0 and is counted in ``no_extract`` (the harness substitutes ``"[invalid]"``). Ready-made patterns:

* ``gsm8k``: ``#### (\\-?[0-9\\.\\,]+)``, the first match (the harness's GSM8K ``strict-match``);
* ``gsm8k-flexible``: ``(-?[$0-9.,]{2,})|(-?[0-9]+)``, the last match (its ``flexible-extract``);
* ``answer-is``: ``answer is \\(?([A-J])\\)?``, the first match ("The answer is (B)" gives ``B``).

Presets and what they reproduce:

``hf-evaluate``
    ``evaluate.load("exact_match").compute(predictions, references, regexes_to_ignore, ignore_case,
    ignore_punctuation, ignore_numbers)`` (one reference each; several: the best), 0-1.
``squad``
    SQuAD v1.1/v2.0's ``exact_match_score`` / ``compute_exact`` averaged, 0-1 (``nlgmetrics.squad`` reports it
    on 0-100 alongside F1).
``gsm8k`` / ``gsm8k-flexible``
    lm-evaluation-harness ``gsm8k`` (``exact_match`` with ``ignore_case``, ``regexes_to_ignore: [",", "\\$",
    "(?s).*#### ", "\\.$"]``) after its ``strict-match`` / ``flexible-extract`` filter; the reference is the
    dataset's whole answer (``... #### 72``), whose prefix the regexes remove. They take the model's raw text (the
    preset extracts the answer) or the filtered answers of an lm-eval samples log
    (``exact_match(*read_lm_eval(path, filter="strict-match"), preset="gsm8k")``): those remember their filter
    (``lm_eval_filter``, in the signature as ``filter:``), so the answer is not extracted twice; a preset of the
    other filter is refused.

Statistics: ``match`` (normalised equality with some answer), ``exact`` (raw, un-normalised equality with some
answer, before extraction too), ``no_extract`` and ``count``: all sums.
"""

from __future__ import annotations

import dataclasses
import difflib
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._inputs import ReferenceSets
from ..errors import InvalidInputError, unknown_option, warn
from ..eval_logs import FILTER_OF_PATTERN, INVALID
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from ..text.answers import NORMALIZERS, compile_patterns, hf_evaluate_normalize, normalize_many
from .base import Family, Result, safe_div

__all__ = ["EXACT_MATCH", "EXTRACT_PATTERNS", "ExactMatchConfig", "ExactMatchResult", "ExactMatchStats", "exact_match"]

#: Ready-made extraction patterns: name -> (regular expression, index of the match taken).
EXTRACT_PATTERNS: dict[str, tuple[str, int]] = {
    "gsm8k": (r"#### (\-?[0-9\.\,]+)", 0),
    "gsm8k-flexible": (r"(-?[$0-9.,]{2,})|(-?[0-9]+)", -1),
    "answer-is": (r"answer is \(?([A-J])\)?", 0),
}
NORMALIZER_NAMES = (*NORMALIZERS, "hf-evaluate")
_HF_OPTIONS = ("regexes_to_ignore", "ignore_case", "ignore_punctuation", "ignore_numbers")


@dataclasses.dataclass(frozen=True)
class ExactMatchConfig:
    """Options of exact match (see the module docstring)."""

    normalizers: tuple[str, ...] = sig_field("norm", (), help="normalisers applied in order", choices=NORMALIZER_NAMES)
    regexes_to_ignore: tuple[str, ...] = sig_field("ignore", (), help="hf-evaluate: regexes deleted first")
    ignore_case: bool = sig_field("case", False, help="hf-evaluate: lowercase")
    ignore_punctuation: bool = sig_field("punct", False, help="hf-evaluate: delete string.punctuation")
    ignore_numbers: bool = sig_field("num", False, help="hf-evaluate: delete string.digits")
    extract: str | None = sig_field("extract", None, help="regex (or gsm8k, gsm8k-flexible, answer-is) to extract")
    extract_index: int | None = sig_field("match", None, help="which match: 0 the first, -1 the last")
    extract_group: int | None = sig_field("group", None, help="capture group (default: the first non-empty)")
    preset: str | None = sig_field("preset", None)
    lm_eval_filter: str | None = sig_field(
        "filter",
        None,
        help="the lm-eval filter the predictions are the output of (strict-match, flexible-extract; none: raw "
        "text): a pattern of that filter is not applied again",
        # the command line's --lm-eval-filter picks the filter of a log and sets it; added later: signatures of
        # answers that are no lm-eval log stay as they were
        role="resolved",
        metadata={"omit_none": True},
    )

    def __post_init__(self) -> None:
        norms = self.normalizers
        if isinstance(norms, str):
            norms = (norms,)
        if not isinstance(norms, (list, tuple)):
            raise InvalidInputError(f"normalizers must be a list of names, got {norms!r}")
        for name in norms:
            if name not in NORMALIZER_NAMES:
                raise unknown_option("exact_match normalizer", name, list(NORMALIZER_NAMES))
        object.__setattr__(self, "normalizers", tuple(norms))
        regexes = self.regexes_to_ignore
        if isinstance(regexes, str):
            regexes = (regexes,)
        if not isinstance(regexes, (list, tuple)):
            raise InvalidInputError(f"regexes_to_ignore must be a list of regular expressions, got {regexes!r}")
        object.__setattr__(self, "regexes_to_ignore", tuple(regexes))
        compile_patterns(self.regexes_to_ignore, "regexes_to_ignore")
        for flag in ("ignore_case", "ignore_punctuation", "ignore_numbers"):
            if not isinstance(getattr(self, flag), (bool, np.bool_)):
                raise InvalidInputError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        used = [o for o in _HF_OPTIONS if getattr(self, o)]
        if used and "hf-evaluate" not in self.normalizers:
            raise InvalidInputError(
                f"{used[0]} is an option of the 'hf-evaluate' normalizer; add it: normalizers=('hf-evaluate',)"
            )
        for name in ("extract_index", "extract_group"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
                raise InvalidInputError(f"{name} must be an integer, got {v!r}")
        flt = self.lm_eval_filter
        if flt is not None and (not isinstance(flt, str) or not flt):
            raise InvalidInputError(f"lm_eval_filter must be the name of an lm-eval filter, got {flt!r}")
        if self.extract is None:
            if self.extract_index is not None or self.extract_group is not None:
                raise InvalidInputError("extract_index and extract_group need an extract pattern")
            return
        if flt not in (None, "none"):
            done = FILTER_OF_PATTERN.get(self.extract)
            if done is None or done != flt or self.extract_index is not None or self.extract_group is not None:
                presets = ", ".join(f"{f}: {p!r}" for p, f in FILTER_OF_PATTERN.items())
                does = f"reproduces lm-eval's {done!r} filter" if done else "is not the pattern of that filter"
                raise InvalidInputError(
                    f"the predictions are lm-eval's answers after its {flt!r} filter (extracted already), but "
                    f"extract={self.extract!r} {does}: extracting again would score them against another rule. "
                    f"Use the preset of the filter you read ({presets}), drop extract to compare the answers as "
                    "they are, or give lm_eval_filter='none' for raw text"
                )
        if not isinstance(self.extract, str) or not self.extract:
            raise InvalidInputError(f"extract must be a regular expression or a pattern name, got {self.extract!r}")
        _check_pattern_name(self.extract)
        pattern = self.pattern()
        if self.extract_group is not None and not 0 <= self.extract_group <= pattern.groups:
            raise InvalidInputError(
                f"extract_group={self.extract_group} but the extract pattern has {pattern.groups} group(s)"
            )

    def pattern(self) -> re.Pattern[str]:
        """The compiled extraction pattern (a ready-made one by name, or the regex itself)."""
        assert self.extract is not None
        source = EXTRACT_PATTERNS[self.extract][0] if self.extract in EXTRACT_PATTERNS else self.extract
        return compile_patterns([source], "extract")[0]

    @property
    def index(self) -> int:
        if self.extract_index is not None:
            return int(self.extract_index)
        return EXTRACT_PATTERNS[self.extract][1] if self.extract in EXTRACT_PATTERNS else 0


def _check_pattern_name(extract: str) -> None:
    """A value that is not a pattern name but looks like one (``gsm8k_flexible``, ``answer_is``: a word close to
    a name) is an error naming the patterns: compiled as a regex, it would find nothing and every segment would
    score 0. A regex meant literally can be written as a group: ``(answer)``."""
    if extract in EXTRACT_PATTERNS or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_\-]*", extract):
        return
    key = extract.lower().replace("_", "-")
    close = difflib.get_close_matches(key, list(EXTRACT_PATTERNS), n=1, cutoff=0.6)
    if close:
        raise InvalidInputError(
            f"extract={extract!r} is not a pattern name; did you mean {close[0]!r}? The names are "
            f"{', '.join(EXTRACT_PATTERNS)}. To extract the text {extract!r} itself as a regular expression, "
            f"write it as a group: '({extract})'"
        )


@dataclasses.dataclass(frozen=True)
class ExactMatchStats(Stats):
    """``match``: predictions equal to an accepted answer after extraction and normalisation; ``exact``: equal as
    given; ``no_extract``: predictions where the extraction pattern found nothing; ``count``: predictions."""

    match: int
    exact: int
    no_extract: int
    count: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class ExactMatchResult(Result):
    """``score``: the share of matches (0-1); ``exact_rate``: the share equal before any normalisation."""

    match: Any = 0
    exact: Any = 0
    no_extract: Any = 0
    count: Any = 0
    exact_rate: Any = 0.0


def extract_answers(texts: list[str], cfg: ExactMatchConfig) -> list[str | None]:
    """lm-evaluation-harness ``RegexFilter``: the chosen match of each text (``None`` where there is none). The
    pattern runs on each text within the time limit of :mod:`nlgmetrics.text.regex_limit`."""
    from ..text.regex_limit import timed_map

    pattern, index, group = cfg.pattern(), cfg.index, cfg.extract_group
    find: Any
    if group is not None:
        find = lambda text: [m.group(group) or "" for m in pattern.finditer(text)]  # noqa: E731
    else:
        find = pattern.findall
    linear = cfg.extract in EXTRACT_PATTERNS
    found = timed_map(find, texts, pattern.pattern, "extract", lambda i: f"predictions[{i}]", linear=linear)
    out: list[str | None] = []
    for matches in found:
        if not matches or not -len(matches) <= index < len(matches):
            out.append(None)
            continue
        m = matches[index]
        if isinstance(m, tuple):
            m = next((g for g in m if g), None)
            if m is None:
                out.append(None)
                continue
        out.append(m.strip())
    return out


def normalize_texts(
    texts: list[str], cfg: ExactMatchConfig, where: Callable[[int], str] = lambda i: f"text {i}"
) -> list[str]:
    """The configured normalisers, in order (``where(i)`` names text ``i`` in an error)."""
    for name in cfg.normalizers:
        if name == "hf-evaluate":
            texts = hf_evaluate_normalize(
                texts,
                cfg.regexes_to_ignore,
                cfg.ignore_case,
                cfg.ignore_punctuation,
                cfg.ignore_numbers,
                where,
                LINEAR_PATTERNS,
            )
        else:
            texts = normalize_many(name, texts)
    return texts


def _em_kernel(preds: list[str], refs: ReferenceSets, cfg: ExactMatchConfig) -> StatsBatch[ExactMatchStats]:
    user = [p for p in cfg.regexes_to_ignore if p not in LINEAR_PATTERNS]
    if (cfg.extract is None or cfg.extract in EXTRACT_PATTERNS) and not user:
        return _em_columns(preds, refs, cfg)  # ready-made patterns: linear, timed only on long texts
    from ..text.regex_limit import limited

    with limited():  # one timer for every pattern of the call
        return _em_columns(preds, refs, cfg)


def _em_columns(preds: list[str], refs: ReferenceSets, cfg: ExactMatchConfig) -> StatsBatch[ExactMatchStats]:
    n = len(preds)
    single = refs.starts is None  # one reference each: pairs are the segments themselves

    def expand(values: list[Any]) -> list[Any]:
        return values if single else [values[i] for i in np.repeat(np.arange(n), refs.counts()).tolist()]

    def best(hits: np.ndarray) -> np.ndarray:
        if refs.starts is None:
            return hits.astype(np.int64)
        return np.maximum.reduceat(hits, refs.starts).astype(np.int64) if n else np.zeros(0, np.int64)

    raw = np.fromiter(map(operator.eq, expand(preds), refs.flat), dtype=bool, count=len(refs.flat))
    extracted: list[str | None]
    if cfg.extract is None:
        extracted = list(preds)
    elif _filtered(preds, cfg):  # the filter of the pattern ran already (lm-eval's strict-match, ...)
        extracted = [None if p == INVALID else p for p in preds]
    else:
        extracted = extract_answers(preds, cfg)
    ok = [i for i, t in enumerate(extracted) if t is not None]
    norm_preds: list[str | None] = [None] * n
    if len(ok) == n:
        texts = list(preds) if cfg.extract is None else extracted
        norm_preds = list(normalize_texts(texts, cfg, lambda i: f"predictions[{i}]"))  # type: ignore[arg-type]
    else:
        kept = normalize_texts([extracted[i] for i in ok], cfg, lambda k: f"predictions[{ok[k]}]")  # type: ignore[misc]
        for i, t in zip(ok, kept, strict=True):
            norm_preds[i] = t
    starts = refs.starts

    def ref_at(k: int) -> str:  # the segment of reference k, for an error
        return f"references[{k if starts is None else int(np.searchsorted(starts, k, side='right')) - 1}]"

    norm_refs = normalize_texts(list(refs.flat), cfg, ref_at)
    hit = np.fromiter(map(operator.eq, expand(norm_preds), norm_refs), dtype=bool, count=len(norm_refs))
    return StatsBatch(
        ExactMatchStats,
        {
            "match": best(hit),
            "exact": best(raw),
            "no_extract": np.fromiter((t is None for t in extracted), np.int64, n),
            "count": np.ones(n, dtype=np.int64),
        },
    )


def _filtered(preds: list[str], cfg: ExactMatchConfig) -> bool:
    """Whether the extraction of ``cfg`` already ran on ``preds``: they are the answers of the lm-eval filter it
    reproduces (``cfg.lm_eval_filter``, checked against the pattern by the config). Predictions read from an
    lm-eval log know their filter (:class:`~nlgmetrics.eval_logs.LoggedAnswers`): extracting from them again, or
    with another filter's pattern, would score them 0, so a config that does not say which filter they went
    through is refused here rather than scored."""
    known = getattr(preds, "lm_eval_filter", None)
    if cfg.lm_eval_filter is None and known not in (None, "none"):
        raise InvalidInputError(
            f"the predictions are lm-eval's answers after its {known!r} filter (extracted already) and extract="
            f"{cfg.extract!r} would extract again: pass lm_eval_filter={known!r} (the exact_match function and the "
            "command line do it for you)"
        )
    return cfg.lm_eval_filter not in (None, "none")


def exact_match_from_stats(stats: ExactMatchStats, cfg: ExactMatchConfig) -> ExactMatchResult:
    return ExactMatchResult(
        score=safe_div(stats.match, stats.count),
        exact_rate=safe_div(stats.exact, stats.count),
        **stats.shared_with(ExactMatchResult),
    )


_GSM8K_IGNORE = (",", "\\$", "(?s).*#### ", "\\.$")
#: The ready-made patterns, each linear in the text (``(?s).*#### `` as :func:`~nlgmetrics.text.answers.deleter`
#: runs it): they need the time limit only on long texts.
LINEAR_PATTERNS = frozenset(_GSM8K_IGNORE)
PRESETS: dict[str, dict[str, Any]] = {
    "hf-evaluate": {"normalizers": ("hf-evaluate",)},
    "squad": {"normalizers": ("squad",)},
    "gsm8k": {
        "extract": "gsm8k",
        "normalizers": ("hf-evaluate",),
        "ignore_case": True,
        "regexes_to_ignore": _GSM8K_IGNORE,
    },
    "gsm8k-flexible": {
        "extract": "gsm8k-flexible",
        "normalizers": ("hf-evaluate",),
        "ignore_case": True,
        "regexes_to_ignore": _GSM8K_IGNORE,
    },
}

EXACT_MATCH: Family[ExactMatchConfig, ExactMatchStats, ExactMatchResult] = Family(
    name="exact_match",
    bounds=(0.0, 1.0),
    config_cls=ExactMatchConfig,
    stats_cls=ExactMatchStats,
    kernel=_em_kernel,
    formula=exact_match_from_stats,
    presets=PRESETS,
    vectorized=True,
    example={
        "predictions": ["The answer is (B).", "So the answer is D"],
        "references": [["B", "(B)"], "C"],
        "options": {"extract": "answer-is"},
    },
)


def exact_match(
    predictions: Sequence[str] | str,
    references: Sequence[str | Sequence[str]] | str,
    *,
    preset: str | None = None,
    segments: bool = False,
    **options: Any,
) -> ExactMatchResult:
    """The share of predictions equal to one of their accepted answers (0-1), after ``normalizers`` and an
    optional ``extract`` pattern (see :mod:`nlgmetrics.metrics.exact_match`). ``segments=True`` adds 1/0 per
    prediction.

    >>> exact_match(["cat?", "theater", "yelling", "agent"], ["the cat", "theater", "YELLING", "agent007"]).score
    0.25
    >>> exact_match(["cat?", "theater", "yelling", "agent"], ["the cat", "theater", "YELLING", "agent007"],
    ...             preset="hf-evaluate", regexes_to_ignore=["the ", "yell", "YELL"], ignore_case=True,
    ...             ignore_punctuation=True).score
    0.75
    >>> r = exact_match(["so 3 + 4 = 7\\n#### 7", "#### 1,000"], ["#### 7", "It costs $1000. #### 1000"],
    ...                 preset="gsm8k", segments=True)
    >>> r.score, r.segments
    (1.0, (1.0, 1.0))
    >>> exact_match(["ＡＢＣ１２３"], ["abc123"], normalizers=["ja-width", "casefold"]).score
    1.0
    """
    for key in ("normalizers", "regexes_to_ignore"):
        if key in options and isinstance(options[key], list):
            options[key] = tuple(options[key])
    known = getattr(predictions, "lm_eval_filter", None)
    if known is not None and "lm_eval_filter" not in options:
        options["lm_eval_filter"] = known  # answers read from an lm-eval log: never extracted twice
    cfg = EXACT_MATCH.make_config(preset, **options)
    if not getattr(predictions, "logged", None):
        return EXACT_MATCH.compute(predictions, references, cfg, segments=segments)
    # an eval log: say so when this scoring disagrees with what the harness logged for the same documents
    from ..eval_logs import harness_hint, logged_disagreement

    batch = EXACT_MATCH.batch_stats(predictions, references, cfg)
    message = logged_disagreement(EXACT_MATCH.name, batch.columns, predictions)
    if message is not None:
        warn(f"{message}. {harness_hint(predictions, references)}")
    return EXACT_MATCH.finalize(batch.total(), cfg, batch if segments else None)
