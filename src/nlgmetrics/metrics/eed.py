"""Extended Edit Distance (EED; Stanchev, Wang and Ney 2019): a character edit distance with long jumps and a
coverage penalty, as torchmetrics' ``extended_edit_distance`` computes it (its code adapted from RWTH's ``EED.py``).

Preset ``torchmetrics`` (the default) reproduces torchmetrics 1.x
``extended_edit_distance(preds, target, language, return_sentence_level_score=True, alpha, rho, deletion,
insertion)`` and the class ``ExtendedEditDistance(language, alpha, rho, deletion, insertion)``:

* each text is preprocessed by ``language``: ``"en"`` strips the right end, puts a space before ``. ! ? ,``, folds
  whitespace runs to one space, rejoins ``1 . 5`` / ``1 , 5`` and ``Mr .``-style titles and ``e . g .``, ``i . e .``,
  ``U . S .``, and pads with one space on each side; ``"ja"`` strips the right end and applies NFKC;
* the sentence score is the EED dynamic program of the prediction against each reference (deletion cost
  ``deletion``, insertion and substitution cost ``insertion``/1, a jump of cost ``alpha`` after each reference
  space, the coverage penalty ``rho`` per extra visit of a hypothesis position), capped at 1; with several
  references the lowest counts;
* the corpus score is the mean of the sentence scores.

Differences on purpose: the numbers here are float64 (torchmetrics returns float32 tensors, so its values agree to
about 1e-7; its per-pair float64 values agree to the last bit); a segment's references must be at least one
(torchmetrics silently returns nothing when the first segment has no reference).

The dynamic program runs in the small C kernel ``nlgmetrics._ext._eed`` (see ``_ext/eed.c`` for why) and, where it
was not built, in :func:`eed_pair_python`, the same loop in Python.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Iterator

import numpy as np

from .._inputs import ReferenceSets
from ..algorithms.guard import check_pairs
from ..errors import InvalidInputError
from ..signature import sig_field
from ..stats import StatsBatch
from .base import Result, check_number, check_reduction
from .nls import NLSStats, closest_reference_family, lowest_per_segment, reduce_segment_scores

__all__ = ["EED", "EEDConfig", "EEDResult", "eed", "eed_pair_python", "extended_edit_distance"]

LANGUAGES = ("en", "ja")


@dataclasses.dataclass(frozen=True)
class EEDConfig:
    language: str = sig_field(
        "lang", "en", help="preprocessing: en (punctuation spacing) or ja (NFKC)", choices=LANGUAGES
    )
    alpha: float = sig_field("alpha", 2.0, help="cost of a long jump")
    rho: float = sig_field("rho", 0.3, help="coverage cost of each repeated visit")
    deletion: float = sig_field("del", 0.2, help="cost of a deletion")
    insertion: float = sig_field("ins", 1.0, help="cost of an insertion (and of a substitution)")
    reduction: str | None = sig_field("red", "mean", help="mean, sum, or none (one score per segment)")
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise InvalidInputError(f"language must be one of {', '.join(LANGUAGES)}, got {self.language!r}")
        for name in ("alpha", "rho", "deletion", "insertion"):
            check_number(name, getattr(self, name), minimum=0.0, maximum=1e6)
            object.__setattr__(self, name, float(getattr(self, name)))
        object.__setattr__(self, "reduction", check_reduction(self.reduction))


@dataclasses.dataclass(frozen=True, kw_only=True)
class EEDResult(Result):
    """``score`` is the mean EED (0-1, lower is better), or the sum, or one value per segment."""

    count: int = 0


# ---------------------------------------------------------------------------------------------- preprocessing
_SPACE_BEFORE = str.maketrans({".": " .", "!": " !", "?": " ?", ",": " ,"})
_WHITESPACE = re.compile(r"\s+")
_NUMBER = re.compile(r"(\d) ([.,]) (\d)")
_TITLE = re.compile(r"(Dr|Jr|Prof|Rev|Gen|Mr|Mt|Mrs|Ms) .")
_ABBREVIATIONS = (("e . g .", "e.g."), ("i . e .", "i.e."), ("U . S .", "U.S."))


def _preprocess_en(text: str) -> str:
    text = text.rstrip().translate(_SPACE_BEFORE)
    text = _TITLE.sub(r"\1.", _NUMBER.sub(r"\1\2\3", _WHITESPACE.sub(" ", text)))
    for spaced, joined in _ABBREVIATIONS:
        text = text.replace(spaced, joined)
    return f" {text} "


def _preprocess_ja(text: str) -> str:
    return unicodedata.normalize("NFKC", text.rstrip())


_PREPROCESS: dict[str, Callable[[str], str]] = {"en": _preprocess_en, "ja": _preprocess_ja}


# ---------------------------------------------------------------------------------------------- the program
def eed_pair_python(hyp: str, ref: str, alpha: float, rho: float, deletion: float, insertion: float) -> float:
    """The EED of one preprocessed pair, in Python: the same operations, in the same order, as the C kernel and
    the reference (see the module docstring)."""
    n = len(hyp)
    visits = [-1] * (n + 1)
    row = [1.0] * (n + 1)
    row[0] = 0.0
    for c in ref:
        nxt = [row[0] + 1.0]
        left = nxt[0]
        for i in range(1, n + 1):
            left = min(left + deletion, row[i - 1] + (hyp[i - 1] != c), row[i] + insertion)
            nxt.append(left)
        low = min(nxt)
        at = nxt.index(low)
        visits[at] += 1
        if c == " ":
            jump = alpha + low
            nxt = [x if x <= jump else jump for x in nxt]
        row = nxt
    coverage = rho * sum(v if v >= 0 else 1 for v in visits)
    den = len(ref) + coverage
    if den == 0:
        raise ZeroDivisionError("float division by zero")
    return min(1.0, (row[-1] + coverage) / den)


def _pair_function() -> Callable[[str, str, float, float, float, float], float]:
    try:
        from .._ext._eed import eed_pair
    except ImportError:  # not compiled in this installation: the Python loop gives the same numbers, slower
        return eed_pair_python
    return eed_pair


_PAIR = _pair_function()


def _eed_kernel(preds: list[str], refs: ReferenceSets, cfg: EEDConfig) -> StatsBatch[NLSStats]:
    prep = _PREPROCESS[cfg.language]
    pair = _PAIR
    args = (cfg.alpha, cfg.rho, cfg.deletion, cfg.insertion)
    hyps = [prep(p) for p in preds]
    seg, _ = refs.segments_and_columns()
    check_pairs(
        "eed",
        "eed" if pair is not eed_pair_python else "eed-python",
        np.fromiter((len(hyps[s]) for s in seg.tolist()), dtype=np.int64, count=len(seg)),
        np.fromiter((len(prep(r)) for r in refs.flat), dtype=np.int64, count=len(seg)),
        seg,
    )

    def scores(i: int, hyp: str) -> Iterator[float]:
        for ref in refs[i]:
            try:
                score = pair(hyp, prep(ref), *args)
            except ZeroDivisionError:
                raise InvalidInputError(
                    f"references[{i}]: an empty reference with rho=0 has no EED (0 / 0 in the formula)"
                ) from None
            yield score

    return lowest_per_segment(scores(i, hyp) for i, hyp in enumerate(hyps))


def eed_from_stats(stats: NLSStats, cfg: EEDConfig) -> EEDResult:
    """The mean (or sum) of the sentence scores."""
    return EEDResult(score=reduce_segment_scores(stats, cfg.reduction), count=stats.count)


EED = closest_reference_family("eed", EEDConfig, eed_from_stats, _eed_kernel, preset="torchmetrics")


eed = EED.function(
    "eed",
    __name__,
    """Extended Edit Distance, torchmetrics' ``extended_edit_distance``: the mean of the sentence scores
    (``reduction="sum"`` or ``None`` for the sum or one score per segment). ``options``: ``language``, ``alpha``,
    ``rho``, ``deletion``, ``insertion``.

    >>> round(eed(["this is the prediction", "here is an other sample"],
    ...           ["this is the reference", "here is another one"]).score, 4)
    0.3078
    """,
)


extended_edit_distance = eed
