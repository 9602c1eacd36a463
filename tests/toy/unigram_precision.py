"""Unigram precision: the share of the prediction's words that its references hold (a word counts at most as often
as in the reference that holds it most often), over the corpus. A small family: everything a metric declares, in
one module; ``tests/unit/test_toy_family.py`` adds its catalogue line and checks that every interface serves it."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from nlgmetrics._inputs import ReferenceSets
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.base import Family, Result, safe_div
from nlgmetrics.signature import sig_field
from nlgmetrics.stats import Stats, StatsBatch
from nlgmetrics.text import tokenizers

tokenizers.declare("unigram_precision")


@dataclasses.dataclass(frozen=True)
class UnigramPrecisionConfig:
    tokenizer: str = sig_field(
        "tok", "whitespace", help=tokenizers.tokenizer_help("unigram_precision", "how a text becomes words")
    )
    lowercase: bool = sig_field("lc", False, help="lowercase the words first")

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokenizer", tokenizers.resolve(self.tokenizer, "unigram_precision"))
        if not isinstance(self.lowercase, bool):
            raise InvalidInputError(f"lowercase must be True or False, got {self.lowercase!r}")


@dataclasses.dataclass(frozen=True)
class UnigramPrecisionStats(Stats):
    matches: int
    total: int
    count: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class UnigramPrecisionResult(Result):
    matches: int = 0
    total: int = 0


def _kernel(preds: list[str], refs: ReferenceSets, cfg: UnigramPrecisionConfig) -> StatsBatch[UnigramPrecisionStats]:
    split = tokenizers.tokenizer(cfg.tokenizer)

    def words(text: str) -> list[str]:
        return list(split(text.lower() if cfg.lowercase else text))

    columns: dict[str, list[Any]] = {"matches": [], "total": [], "count": []}
    for i, pred in enumerate(preds):
        most: Counter[str] = Counter()
        for ref in refs[i]:
            most |= Counter(words(ref))
        mine = Counter(words(pred))
        columns["matches"].append(sum(min(n, most[w]) for w, n in mine.items()))
        columns["total"].append(sum(mine.values()))
        columns["count"].append(1)
    return StatsBatch.from_lists(UnigramPrecisionStats, columns)


def _formula(stats: UnigramPrecisionStats, cfg: UnigramPrecisionConfig) -> UnigramPrecisionResult:
    return UnigramPrecisionResult(score=safe_div(stats.matches, stats.total), matches=stats.matches, total=stats.total)


UNIGRAM_PRECISION: Family[UnigramPrecisionConfig, UnigramPrecisionStats, UnigramPrecisionResult] = Family(
    name="unigram_precision",
    bounds=(0.0, 1.0),
    config_cls=UnigramPrecisionConfig,
    stats_cls=UnigramPrecisionStats,
    kernel=_kernel,
    formula=_formula,
    example={"predictions": ["the cat sat on the mat"], "references": [["the cat is on a mat"]]},
)


unigram_precision = UNIGRAM_PRECISION.function(
    "unigram_precision",
    __name__,
    """The share of prediction words found in the references (clipped counts), over the corpus.

    >>> unigram_precision(["the cat sat on the mat"], [["the cat is on a mat"]]).score
    0.6666666666666666
    """,
)
