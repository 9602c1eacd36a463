"""ROUGE's configuration and statistics, and the names they check (types, scorings): what the kernel, the
bootstrap and the set-based scorings read, in a module that imports none of them."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from ..._np import is_numpy_bool, is_numpy_number
from ...errors import InvalidInputError, UnknownOptionError, unknown_option, warn
from ...signature import sig_field
from ...stats import Stats
from ...text.rouge_tokenize import BUILTIN_TOKENIZERS, STEMMERS
from ...text.tokenizers import tokenizer_help
from ..base import MAX_WORKERS, check_number

__all__ = [
    "DEFAULT_TYPES",
    "SCORINGS",
    "SET_SCORINGS",
    "RougeConfig",
    "RougeStats",
    "RougeType",
    "check_set_scoring",
    "parse_rouge_type",
]

SCORINGS = ("rouge-score", "rouge155", "pltrdy", "llamafactory")  # the last two: metrics/rouge/sets.py
MULTI_REF = ("best", "average", "max-pr", "mean")
SENTENCE_SPLITS = ("newline", "rules", "auto")
BOOTSTRAP_RNGS = ("generator", "legacy")
DEFAULT_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


@dataclasses.dataclass(frozen=True)
class RougeType:
    """One ROUGE type: ``kind`` is ``"n"`` (n-grams), ``"L"`` (LCS of whole texts), ``"Lsum"`` (union LCS over
    sentences), ``"W"`` (weighted LCS) or ``"S"`` (skip bigrams; ``skip`` None means any distance,
    ``unigrams`` adds the unigrams of ROUGE-SU)."""

    name: str
    kind: str
    n: int = 0
    skip: int | None = None
    unigrams: bool = False


_TYPE_NAME = re.compile(r"rouge(?:([1-9])|(L)|(Lsum)|(W)|(SU|S)(\d+|\*))")
TYPE_FORMS = "rouge1 ... rouge9, rougeL, rougeLsum, rougeW, rougeS<d>/rougeS* and rougeSU<d>/rougeSU* (skip distance d)"


@functools.lru_cache(maxsize=256)
def parse_rouge_type(name: str) -> RougeType:
    """Parse a type name such as ``"rouge2"``, ``"rougeLsum"`` or ``"rougeSU4"``."""
    m = _TYPE_NAME.fullmatch(name) if isinstance(name, str) else None
    if m is None:
        raise UnknownOptionError(f"unknown ROUGE type {name!r}; valid types are {TYPE_FORMS}")
    if m.group(1):
        return RougeType(name, "n", n=int(m.group(1)))
    if m.group(2):
        return RougeType(name, "L")
    if m.group(3):
        return RougeType(name, "Lsum")
    if m.group(4):
        return RougeType(name, "W")
    skip = None if m.group(6) == "*" else int(m.group(6))
    return RougeType(name, "S", skip=skip, unigrams=m.group(5) == "SU")


SET_SCORINGS = ("pltrdy", "llamafactory")
_TOKENIZER = {"pltrdy": "whitespace", "llamafactory": "zh-jieba"}
_TYPES = re.compile(r"rouge([1-5]|L)")


def check_set_scoring(cfg: RougeConfig) -> None:
    """Refuse the options these packages do not have."""
    if cfg.scoring not in SET_SCORINGS:
        return
    for t in cfg.rouge_types:
        if not _TYPES.fullmatch(t):
            raise InvalidInputError(f"the {cfg.scoring} scoring computes rouge1 ... rouge5 and rougeL, not {t!r}")
    if cfg.tokenizer != _TOKENIZER[cfg.scoring]:
        raise InvalidInputError(
            f"the {cfg.scoring} scoring splits words its own way; its tokenizer is {_TOKENIZER[cfg.scoring]!r}, "
            f"not {cfg.tokenizer!r}"
        )
    if cfg.use_stemmer or cfg.remove_stopwords or cfg.sentence_separator is not None:
        raise InvalidInputError(f"the {cfg.scoring} scoring has no stemming, stop words or sentence separator")
    if cfg.beta != 1.0 or cfg.alpha is not None:
        raise InvalidInputError(f"the {cfg.scoring} scoring has its own F (2PR / (P + R + 1e-8)); drop beta/alpha")


# ---------------------------------------------------------------------------------------------------- words


def _check_int(name: str, value: Any, minimum: int, maximum: int | None = None) -> None:
    if isinstance(value, bool) or not (isinstance(value, int) or is_numpy_number(value, "i")) or value < minimum:
        raise InvalidInputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise InvalidInputError(f"{name} must be <= {maximum:,}, got {value!r}")


@dataclasses.dataclass(frozen=True)
class RougeConfig:
    """Options of ROUGE (see the module docstring and ``docs/rouge.md``).

    * ``rouge_types``: the types to compute, e.g. ``("rouge1", "rouge2", "rougeL", "rougeLsum")``.
    * ``tokenizer``: ``"unicode"`` (default), ``"rouge-score"``, ``"rouge155"`` or a registered tokenizer
      (``"ja-mecab"``, ``"zh-jieba"``, ``"char"``, ...); or a callable ``text -> tokens``, whose tokens are used as
      they come (then stemmed with ``use_stemmer``): the signature records ``tok:callable:<module.name>`` and
      building the config warns that the function's behaviour is not in it.
    * ``use_stemmer`` / ``stemmer``: stem tokens longer than 3 characters; ``"porter"`` (NLTK, rouge-score's),
      ``"rouge155"`` (WordNet exceptions + the script's Porter) or ``"rouge155-porter"``. Default: the one of
      the ``scoring``.
    * ``remove_stopwords``: drop the SMART stop words first (ROUGE-1.5.5's ``-s``).
    * ``scoring``: whose arithmetic: ``"rouge-score"`` (exact values; ``rougeL`` over whole texts) or
      ``"rouge155"`` (values rounded to five decimals as the script prints them, F from the rounded values;
      ``rougeL`` is the script's summary-level ROUGE-L, the same computation as ``rougeLsum``).
    * ``multi_ref``: ``"best"`` (rouge-score: best F per type; ROUGE-1.5.5 ``-f B``: best recall),
      ``"average"`` (ROUGE-1.5.5 ``-f A``: hits and counts pooled over the references) or ``"max-pr"``
      (pycocoevalcap: the highest precision and the highest recall over the references, each on its own, then F)
      or ``"mean"`` (torchmetrics' ``accumulate="avg"``: the mean of the per-reference precisions, recalls and F).
    * ``beta``: F-beta (recall weighted beta times as much as precision); ``alpha``: ROUGE-1.5.5's ``-p``,
      ``F = P R / ((1 - alpha) P + alpha R)``, which replaces beta when given.
    * ``sentence_split``: sentences for ``rougeLsum``: ``"newline"`` (one per line), ``"rules"`` (the built-in
      rule-based splitter, which knows ``.!?`` and ``。！？``) or ``"auto"`` (the splitter for texts without a
      newline).
    * ``sentence_separator``: a string that marks a sentence break in the texts (e.g. ``"<n>"``, or the two
      characters ``\\n`` of one-line files); it is read as a newline.
    * ``length_limit`` / ``byte_limit``: ROUGE-1.5.5's ``-l`` / ``-b`` (tokenizer ``"rouge155"`` only).
    * ``weight``: the weight of ``rougeW`` (ROUGE-1.5.5's ``-w``).
    * ``bootstrap_samples``, ``confidence``, ``seed``, ``bootstrap_rng``: bootstrap confidence intervals of the
      corpus means (rouge-score's aggregator, or ROUGE-1.5.5's resampling under ``scoring="rouge155"``).
    * ``workers``: processes used for large batches (changes no number).
    """

    rouge_types: tuple[str, ...] = sig_field(
        "types",
        DEFAULT_TYPES,
        help="types to compute: rouge1..rouge9, rougeL, rougeLsum, rougeW, rougeS4, rougeSU*, ...",
    )
    tokenizer: str = sig_field(  # or a text.registry.CallableTokenizer
        "tok", "unicode", help=tokenizer_help("rouge", "how text becomes words (or a callable, in Python)")
    )
    use_stemmer: bool = sig_field(
        "stem", False, help="stem tokens longer than 3 characters (Porter; ROUGE-1.5.5's -m under rouge155)"
    )
    stemmer: str | None = sig_field("stemmer", None, help="which stemmer --use-stemmer uses", choices=STEMMERS)
    remove_stopwords: bool = sig_field("stop", False, help="drop the SMART stop words first (ROUGE-1.5.5's -s)")
    scoring: str = sig_field("scoring", "rouge-score", help="whose arithmetic", choices=SCORINGS, role="convention")
    multi_ref: str = sig_field(
        "multi",
        "best",
        help="several references: the best one, pooled (-f B / -f A), the best P and best R (pycocoevalcap), or "
        "the mean over the references (torchmetrics)",
        choices=MULTI_REF,
    )
    beta: float = sig_field("beta", 1.0, help="F-beta: recall counts beta times as much as precision")
    alpha: float | None = sig_field("alpha", None, help="ROUGE-1.5.5's -p: F = PR / ((1 - alpha) P + alpha R)")
    sentence_split: str = sig_field("sent", "newline", help="sentences of rougeLsum", choices=SENTENCE_SPLITS)
    sentence_separator: str | None = sig_field(
        "sep", None, help="a string that marks sentence breaks in one-line summaries, e.g. '\\n' or '<n>'"
    )
    length_limit: int = sig_field("l", 0, help="ROUGE-1.5.5's -l: only the first N words of each summary")
    byte_limit: int = sig_field("b", 0, help="ROUGE-1.5.5's -b: only the first N bytes of each summary")
    weight: float = sig_field("w", 1.2, help="weight of rougeW (ROUGE-1.5.5's -w)")
    bootstrap_samples: int = sig_field("boot", 0, help="add a bootstrap confidence interval over N resamples")
    confidence: float = sig_field("ci", 0.95, help="level of that interval")
    seed: int = sig_field("seed", 0, help="seed of the resampling")
    bootstrap_rng: str = sig_field(
        "rng",
        "generator",
        help="the resampling's random numbers: generator (one seeded draw shared by every type) or legacy "
        "(RandomState(seed), type after type, as rouge-score after np.random.seed: HF evaluate's rouge)",
        choices=BOOTSTRAP_RNGS,
        role="convention",
    )
    preset: str | None = sig_field("preset", None)
    workers: int = sig_field(None, 1, help="processes for large inputs (never changes a number)", compare=False)

    def __post_init__(self) -> None:
        types = self.rouge_types
        if isinstance(types, str):
            types = (types,)
        if not isinstance(types, (list, tuple)) or not types:
            raise InvalidInputError(f"rouge_types must be a non-empty list of type names ({TYPE_FORMS})")
        types = tuple(types)
        for name in types:
            parse_rouge_type(name)
        if len(set(types)) != len(types):
            raise InvalidInputError(f"rouge_types lists a type twice: {list(types)}")
        object.__setattr__(self, "rouge_types", types)
        if not isinstance(self.tokenizer, str):
            from ...text.registry import CallableTokenizer

            if not callable(self.tokenizer):
                raise InvalidInputError(f"tokenizer must be a registered name or a callable, got {self.tokenizer!r}")
            if not isinstance(self.tokenizer, CallableTokenizer):
                object.__setattr__(self, "tokenizer", CallableTokenizer(self.tokenizer))
            warn(
                f"rouge: tokenizer {self.tokenizer.name!r} is a Python callable; the signature records only its name "
                f"({self.tokenizer}), not what it does: the numbers repeat only with the same function"
            )
        else:
            from ...text.tokenizers import resolve, tokenizer

            # "ja-mecab" is the registry's: fugashi with UniDic-lite; the signature names the dictionary
            object.__setattr__(self, "tokenizer", resolve(self.tokenizer, "rouge"))
            if self.tokenizer not in BUILTIN_TOKENIZERS:
                tokenizer(self.tokenizer)  # fail early, with the install hint of an optional tokenizer
        if self.scoring not in SCORINGS:
            raise unknown_option("scoring", self.scoring, list(SCORINGS))
        if self.stemmer is None:
            object.__setattr__(self, "stemmer", "rouge155" if self.scoring == "rouge155" else "porter")
        if self.stemmer not in STEMMERS:
            raise unknown_option("stemmer", self.stemmer, list(STEMMERS))
        for flag in ("use_stemmer", "remove_stopwords"):
            value = getattr(self, flag)
            if not (isinstance(value, bool) or is_numpy_bool(value)):
                raise InvalidInputError(f"{flag} must be True or False, got {value!r}")
        if self.multi_ref not in MULTI_REF:
            raise unknown_option("multi_ref", self.multi_ref, list(MULTI_REF))
        if self.sentence_split not in SENTENCE_SPLITS:
            raise unknown_option("sentence_split", self.sentence_split, list(SENTENCE_SPLITS))
        if self.sentence_separator is not None and (
            not isinstance(self.sentence_separator, str) or not self.sentence_separator
        ):
            raise InvalidInputError(f"sentence_separator must be a non-empty string, got {self.sentence_separator!r}")
        check_number("beta", self.beta, minimum=0.0, maximum=1e6)
        if self.beta <= 0:
            raise InvalidInputError(f"beta must be > 0, got {self.beta!r}")
        if self.alpha is not None:
            check_number("alpha", self.alpha, minimum=0.0, maximum=1.0)
            if self.beta != 1.0:
                raise InvalidInputError("give alpha (ROUGE-1.5.5's -p) or beta (F-beta), not both")
        _check_int("length_limit", self.length_limit, 0)
        _check_int("byte_limit", self.byte_limit, 0)
        if self.length_limit and self.byte_limit:
            raise InvalidInputError("give length_limit (-l) or byte_limit (-b), not both (ROUGE-1.5.5 refuses both)")
        if (self.length_limit or self.byte_limit) and self.tokenizer != "rouge155":
            raise InvalidInputError(
                "length_limit and byte_limit truncate the raw text as ROUGE-1.5.5 does; they need "
                "tokenizer='rouge155' (preset 'rouge155')"
            )
        # f(k) = k ** weight over LCS run lengths k: beyond 10 the weighted lengths of long texts overflow
        check_number("weight", self.weight, minimum=0.0, maximum=10.0)
        if self.weight <= 0:
            raise InvalidInputError(f"weight must be > 0 (ROUGE-1.5.5's -w), got {self.weight!r}")
        _check_int("bootstrap_samples", self.bootstrap_samples, 0, maximum=1_000_000)
        check_number("confidence", self.confidence, minimum=0.0, maximum=1.0)
        if not 0 < self.confidence < 1:
            raise InvalidInputError(f"confidence must be between 0 and 1 (exclusive), got {self.confidence!r}")
        _check_int("seed", self.seed, 0)
        if self.bootstrap_rng not in BOOTSTRAP_RNGS:
            raise unknown_option("bootstrap_rng", self.bootstrap_rng, list(BOOTSTRAP_RNGS))
        _check_int("workers", self.workers, 1, maximum=MAX_WORKERS)
        check_set_scoring(self)


_MEASURES = ("precision", "recall", "fmeasure")


@dataclasses.dataclass(frozen=True)
class RougeStats(Stats):
    """Per type, the sums of the per-segment precision, recall and F, and the number of segments.

    Each per-segment value ``v`` is stored in two parts: ``hi``, ``v`` rounded to a multiple of ``2**-30`` (sums of
    up to four million of them are exact in float64, in any order), in ``precision``/``recall``/``fmeasure``;
    and the remainder ``v - hi``, tiny, in the ``*_low`` fields. So batch sums, merges and DDP all-reduces give the
    same mean as one pass over the corpus (``(hi + low) / count``), to the last bit.
    """

    precision: tuple[float, ...]
    recall: tuple[float, ...]
    fmeasure: tuple[float, ...]
    precision_low: tuple[float, ...]
    recall_low: tuple[float, ...]
    fmeasure_low: tuple[float, ...]
    count: int

    tuple_fields: ClassVar[Mapping[str, int]] = dict.fromkeys(
        (*_MEASURES, *(f"{m}_low" for m in _MEASURES)), len(DEFAULT_TYPES)
    )
    #: the remainders may be negative
    signed_fields: ClassVar[frozenset[str]] = frozenset(f"{m}_low" for m in _MEASURES)
