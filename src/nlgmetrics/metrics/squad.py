"""Question answering: exact match and F1 of short answers, under the SQuAD, JSQuAD, CMRC 2018 and llm-jp-eval
conventions, each reproduced exactly.

Every question has one prediction and a list of accepted answers; a question scores the best of its answers.
The *convention* (set by the preset of the same name) decides how answers are normalised and compared:

``squad-v1`` (default; 0-100)
    The official SQuAD v1.1 script, ``evaluate-v1.1.py dataset.json predictions.json``, and so Hugging Face
    ``evaluate.load("squad")`` and ``torchmetrics.functional.text.squad``: ``normalize_answer`` (lowercase, drop
    ASCII punctuation, drop a/an/the, collapse whitespace), EM = normalised equality, F1 over the bags of
    whitespace tokens (0 when no token is shared, so an empty prediction scores F1 0 even against an empty answer).
``torchmetrics`` (0-100)
    ``torchmetrics.functional.text.squad`` (torchmetrics 1.9): the v1.1 script except that F1 of two empty token
    lists is 1 (the v2.0 rule). torchmetrics sums in float32; the values here are the exact float64 ones.
``squad-v2`` (0-100)
    The official SQuAD v2.0 script, ``evaluate-v2.0.py data.json pred.json [--na-prob-file na_prob.json]
    [--na-prob-thresh T]`` (and HF ``evaluate.load("squad_v2")``): an empty answer list means "no answer" (the
    only correct prediction is empty), answers that normalise to nothing are dropped, F1 of two empty token lists
    is 1; ``exact``/``f1`` over all questions and the ``HasAns_*``/``NoAns_*`` splits, after replacing the scores
    of questions whose no-answer probability exceeds ``na_prob_thresh`` (default 1.0) by 1 for unanswerable, 0 for
    answerable ones. With no-answer probabilities, ``best_exact``/``best_f1`` and their thresholds: the script's
    search over thresholds, questions taken in increasing probability (ties in input order).
``jsquad`` (0-100)
    JGLUE's JSQuAD evaluation: transformers 4.9.2 ``squad_metrics.squad_evaluate`` with JGLUE's patch
    (``fine-tuning/patch/transformers-4.9.2_jglue-1.3.0.patch``): answers lowercased, trailing ``。`` stripped,
    whitespace collapsed (no punctuation or article removal); F1 over the bags of *characters* (spaces too); the
    SQuAD v2.0 structure otherwise.
``cmrc2018`` (0-100)
    CMRC 2018's ``cmrc2018_evaluate.py`` (v6): EM after ``remove_punctuation`` (lowercase, strip, drop its
    ``sp_char`` list); F1 from the longest common *substring* of the "mixed segmentations" (each CJK ideograph one
    segment, other runs split by ``nltk.word_tokenize``, ``sp_char`` dropped); ``average`` = (EM + F1) / 2. The
    script prints each with ``%.3f``; the values here are unrounded.
``llm-jp-eval`` (0-1)
    llm-jp-eval's ``exact_match`` and ``char_f1``: both texts NFKC-normalised (its ``normalize``), the prediction
    stripped, EM = equality, ``char_f1`` = ``rapidfuzz.fuzz.token_sort_ratio(pred, gold) / 100``; mean over
    questions.

Statistics: every field is a sum over questions (counts, EM and F1 sums, per split), so batches, merges and
DDP all-reduces add them. The best-threshold search of ``squad-v2``/``jsquad`` needs each question's no-answer
probability, raw scores and answerability in order: those travel as per-question columns (the stateful metric
keeps its batches, the torch adapter ``"cat"`` states), and the search runs on them in :meth:`finalize`. Under
DDP the questions are ordered rank by rank; only ties of the no-answer probability depend on that order.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._inputs import ReferenceSets, _as_list, check_paired, describe
from ..algorithms import fastpath
from ..algorithms.overlap import bag_overlap, codepoint_column, encode_words, longest_common_substring
from ..errors import InvalidInputError, unknown_option
from ..signature import sig_field
from ..stats import Stats, StatsBatch
from ..text.answers import (
    cmrc_mixed_segmentation,
    cmrc_remove_punctuation,
    jsquad_normalize,
    jsquad_normalize_many,
    nfkc,
    squad_normalize,
    squad_normalize_many,
)
from .base import Family, Result, check_number, signature_of

__all__ = ["CONVENTIONS", "SQUAD", "SquadConfig", "SquadResult", "SquadStats", "squad"]

CONVENTIONS = ("squad-v1", "torchmetrics", "squad-v2", "jsquad", "cmrc2018", "llm-jp-eval")
#: Conventions where an empty answer list means "no answer" and no-answer probabilities apply.
NO_ANSWER = frozenset({"squad-v2", "jsquad"})
_SCALE = {
    "squad-v1": 100.0,
    "torchmetrics": 100.0,
    "squad-v2": 100.0,
    "jsquad": 100.0,
    "cmrc2018": 100.0,
    "llm-jp-eval": 1.0,
}


@dataclasses.dataclass(frozen=True)
class SquadConfig:
    """Options of the QA family (see the module docstring).

    * ``convention``: ``"squad-v1"``, ``"squad-v2"``, ``"jsquad"``, ``"cmrc2018"`` or ``"llm-jp-eval"``.
    * ``na_prob_thresh``: squad-v2/jsquad: a question whose no-answer probability exceeds it counts as answered
      "no answer" (the script's ``--na-prob-thresh``, default 1.0).
    * ``best_thresh``: squad-v2/jsquad: also search the best threshold when no-answer probabilities are given.
    * ``scale``: 100 (0-100) or 1 (0-1); default: the convention's.
    """

    convention: str = sig_field("conv", "squad-v1", help="whose rules", choices=CONVENTIONS, role="convention")
    na_prob_thresh: float = sig_field(
        "na", 1.0, help="no-answer probability above which a question counts as unanswered"
    )
    best_thresh: bool = sig_field("best", True, help="search the best no-answer threshold (squad-v2, jsquad)")
    scale: float | None = sig_field("scale", None, help="100 (0-100) or 1 (0-1); default: the convention's")
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise unknown_option("QA convention", self.convention, list(CONVENTIONS))
        check_number("na_prob_thresh", self.na_prob_thresh, minimum=0.0, maximum=1.0)  # a probability
        if not isinstance(self.best_thresh, (bool, np.bool_)):
            raise InvalidInputError(f"best_thresh must be True or False, got {self.best_thresh!r}")
        if self.scale is None:
            object.__setattr__(self, "scale", _SCALE[self.convention])
        if isinstance(self.scale, bool) or self.scale not in (1, 100):
            raise InvalidInputError(f"scale must be 1 (scores in 0-1) or 100 (scores in 0-100), got {self.scale!r}")
        object.__setattr__(self, "scale", float(self.scale))


@dataclasses.dataclass(frozen=True)
class SquadStats(Stats):
    """Sums over questions. ``exact``/``f1`` are after the no-answer threshold, ``raw_*`` before it; ``has_ans``
    counts answerable questions and the ``has_ans_*``/``no_ans_*`` fields split the sums. ``pred_empty`` counts
    empty predictions, ``with_na_prob`` the questions that came with a no-answer probability; ``na_prob`` is only
    meaningful per question (the best-threshold search reads it; its sum means nothing)."""

    count: int
    exact: int
    f1: float
    has_ans: int
    has_ans_exact: int
    has_ans_f1: float
    no_ans_exact: int
    no_ans_f1: float
    raw_exact: int
    raw_f1: float
    pred_empty: int
    with_na_prob: int
    na_prob: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class SquadResult(Result):
    """``score`` is ``f1``. ``exact_match`` and ``f1`` over all questions (on the result's ``scale``);
    ``has_ans_*``/``no_ans_*`` the answerable/unanswerable splits (``None`` when a split is empty);
    ``best_*`` the best-threshold search (``None`` without no-answer probabilities); ``average`` is CMRC 2018's
    (EM + F1) / 2. :meth:`official` gives the reference tool's own output dict."""

    exact_match: Any = 0.0
    f1: Any = 0.0
    total: Any = 0
    has_ans_exact: float | None = None
    has_ans_f1: float | None = None
    has_ans_total: int = 0
    no_ans_exact: float | None = None
    no_ans_f1: float | None = None
    no_ans_total: int = 0
    best_exact: float | None = None
    best_exact_thresh: float | None = None
    best_f1: float | None = None
    best_f1_thresh: float | None = None
    average: Any = 0.0
    convention: str = ""
    scale: float = 100.0
    #: The per-question F1 values summed left to right in input order, as the scripts add them (all questions, the
    #: answerable ones, the unanswerable ones): :meth:`official` divides these, so that it gives the scripts' floats
    #: to the last bit. Set by a call that saw the questions in order (the functions, ``load()``); a result from
    #: merged or all-reduced statistics has ``None`` and :meth:`official` the exactly rounded sums.
    script_sums: tuple[float, float, float] | None = dataclasses.field(default=None, repr=False, compare=False)

    def headline_values(self) -> dict[str, float]:
        """``{"exact_match", "f1"}``: what the torch adapter's ``compute()`` returns (torchmetrics' ``squad`` keys)."""
        return {"exact_match": self.exact_match, "f1": self.f1}

    def official(self) -> dict[str, Any]:
        """The output of the reference tool for these numbers, with its key names (and CMRC's ``%.3f``): the
        scripts' floats to the last bit when the result came from one call over the questions in order (see
        ``script_sums``)."""
        f1, has_f1, no_f1 = self.f1, self.has_ans_f1, self.no_ans_f1
        if self.script_sums is not None:
            total, has, no = self.script_sums
            f1 = _ratio(self.scale, total, self.total)
            has_f1 = _ratio(self.scale, has, self.has_ans_total) if self.has_ans_total else None
            no_f1 = _ratio(self.scale, no, self.no_ans_total) if self.no_ans_total else None
        if self.convention == "squad-v1":
            return {"exact_match": self.exact_match, "f1": f1}
        if self.convention == "llm-jp-eval":
            return {"exact_match": self.exact_match, "char_f1": self.f1}
        if self.convention == "cmrc2018":
            return {
                "AVERAGE": f"{(self.exact_match + f1) * 0.5:.3f}",
                "F1": f"{f1:.3f}",
                "EM": f"{self.exact_match:.3f}",
                "TOTAL": self.total,
            }
        out: dict[str, Any] = {"exact": self.exact_match, "f1": f1, "total": self.total}
        if self.has_ans_total:
            out.update(HasAns_exact=self.has_ans_exact, HasAns_f1=has_f1, HasAns_total=self.has_ans_total)
        if self.no_ans_total:
            out.update(NoAns_exact=self.no_ans_exact, NoAns_f1=no_f1, NoAns_total=self.no_ans_total)
        if self.best_exact is not None:
            out.update(
                best_exact=self.best_exact,
                best_exact_thresh=self.best_exact_thresh,
                best_f1=self.best_f1,
                best_f1_thresh=self.best_f1_thresh,
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["official"] = self.official() if not isinstance(self.f1, np.ndarray) else None
        return out


# ====================================================================== input
def _prediction(value: Any, i: int) -> tuple[str, float | None]:
    if isinstance(value, str):
        return str(value), None
    if isinstance(value, Mapping):
        text = value.get("prediction_text", value.get("prediction"))
        if not isinstance(text, str):
            raise InvalidInputError(
                f"predictions[{i}] has no string 'prediction_text' (got {describe(text)}); expected a string or "
                "{'prediction_text': str, 'no_answer_probability': float}"
            )
        prob = value.get("no_answer_probability")
        if prob is None:
            return str(text), None
        if (
            isinstance(prob, bool)
            or not isinstance(prob, (int, float, np.integer, np.floating))
            or not math.isfinite(prob)
        ):
            raise InvalidInputError(f"predictions[{i}]['no_answer_probability'] must be a finite number, got {prob!r}")
        return str(text), float(prob)
    raise InvalidInputError(
        f"predictions[{i}] is {describe(value)}; expected str or "
        "{'prediction_text': str, 'no_answer_probability': float}"
    )


def _answers(value: Any, i: int, allow_none: bool, convention: str) -> list[str]:
    if isinstance(value, str):
        return [str(value)]
    if isinstance(value, Mapping):  # the SQuAD / HF layouts: {"answers": {"text": [...]}} or {"answers": [{"text"}]}
        value = value.get("answers", value)
        if isinstance(value, Mapping):
            value = value.get("text")
        elif isinstance(value, (list, tuple)):
            value = [a.get("text") if isinstance(a, Mapping) else a for a in value]
    if isinstance(value, (list, tuple)):
        for j, a in enumerate(value):
            if not isinstance(a, str):
                raise InvalidInputError(f"references[{i}][{j}] is {describe(a)}; expected str")
        if not value and not allow_none:
            raise InvalidInputError(
                f"references[{i}] is an empty list: the {convention} convention needs at least one accepted answer "
                "(an empty list means 'no answer' only under squad-v2 and jsquad)"
            )
        return [str(a) for a in value]
    raise InvalidInputError(f"references[{i}] is {describe(value)}; expected str or a list of str")


def check_qa_input(
    predictions: Any, references: Any, cfg: SquadConfig, na_probs: Any = None, *, allow_empty: bool = False
) -> tuple[list[str], ReferenceSets, np.ndarray]:
    """Predictions as strings, answers per question (possibly none, under squad-v2/jsquad) and the no-answer
    probabilities (NaN where none was given)."""
    preds = _as_list(predictions, "predictions")
    refs = _as_list(references, "references")
    check_paired(preds, refs, "one list of accepted answers per question", allow_empty=allow_empty)
    probs = np.full(len(preds), np.nan)
    if set(map(type, preds)) <= {str}:  # the common case: plain strings, one C-level pass
        texts = list(preds)
    else:
        texts = []
        for i, p in enumerate(preds):
            t, pr = _prediction(p, i)
            texts.append(t)
            if pr is not None:
                probs[i] = pr
    if na_probs is not None:
        given = _as_list(na_probs, "no_answer_probabilities")
        if len(given) != len(preds):
            raise InvalidInputError(
                f"no_answer_probabilities has {len(given)} values but there are {len(preds)} predictions"
            )
        for i, pr in enumerate(given):
            if (
                isinstance(pr, bool)
                or not isinstance(pr, (int, float, np.integer, np.floating))
                or not math.isfinite(pr)
            ):
                raise InvalidInputError(f"no_answer_probabilities[{i}] must be a finite number, got {pr!r}")
            probs[i] = float(pr)
    if cfg.convention not in NO_ANSWER and not np.isnan(probs).all():
        raise InvalidInputError(
            f"no-answer probabilities only apply to squad-v2 and jsquad, not to the {cfg.convention} convention"
        )
    allow_none = cfg.convention in NO_ANSWER
    if set(map(type, refs)) <= {list, tuple}:  # the common case: lists of strings
        flat = list(itertools.chain.from_iterable(refs))
        counts = np.fromiter(map(len, refs), dtype=np.int64, count=len(refs))
        if set(map(type, flat)) <= {str} and (allow_none or counts.all()):
            return texts, ReferenceSets(flat, np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)), probs
    flat = []
    starts = np.empty(len(refs), dtype=np.int64)
    for i, r in enumerate(refs):
        starts[i] = len(flat)
        flat.extend(_answers(r, i, allow_none, cfg.convention))
    return texts, ReferenceSets(flat, starts), probs


def last_occurrences(ids: Sequence[str]) -> list[int] | None:
    """The questions the official SQuAD v2.0 script scores when ids repeat (``None`` when none does): it keeps
    its scores in ``{id: score}`` dicts, so each id counts once, with the score of its *last* occurrence, at the
    place of its *first* (a dict keeps a key where it was first inserted); the indices of those occurrences, in
    that order. JGLUE's JSQuAD evaluation (transformers' ``squad_metrics``) keys its scores by id the same way.

    >>> last_occurrences(["a", "b", "a"]), last_occurrences(["a", "b"])
    ([2, 1], None)
    """
    last: dict[str, int] = {}
    for k, qid in enumerate(ids):
        last[qid] = k
    return None if len(last) == len(ids) else list(last.values())


def first_repeated(ids: Sequence[str]) -> str | None:
    """The first id that occurs a second time (``None`` if none does), for messages."""
    seen: set[str] = set()
    for qid in ids:
        if qid in seen:
            return qid
        seen.add(qid)
    return None


# ====================================================================== kernel
def _f1(same: np.ndarray, n_pred: np.ndarray, n_gold: np.ndarray) -> np.ndarray:
    """``(2 * precision * recall) / (precision + recall)`` with the scripts' operations, 0 where nothing is shared."""
    out = np.zeros(len(same), dtype=np.float64)
    ok = same > 0
    p = 1.0 * same[ok] / n_pred[ok]
    r = 1.0 * same[ok] / n_gold[ok]
    out[ok] = (2 * p * r) / (p + r)
    return out


def _pair_scores(
    preds: list[str], gold: list[str], pair_pred: np.ndarray, pair_gold: np.ndarray, convention: str
) -> tuple[np.ndarray, np.ndarray]:
    """EM and F1 of each (prediction, gold answer) pair under ``convention`` (texts as given)."""
    n = len(pair_pred)
    if convention == "llm-jp-eval":
        from rapidfuzz import fuzz, process

        p_norm = [nfkc(t).strip() for t in preds]
        g_norm = [nfkc(t) for t in gold]
        pp = [p_norm[k] for k in pair_pred.tolist()]
        gg = [g_norm[k] for k in pair_gold.tolist()]
        em = np.fromiter(map(str.__eq__, pp, gg), dtype=np.float64, count=n)
        ratio = process.cpdist(pp, gg, scorer=fuzz.token_sort_ratio, dtype=np.float64, workers=1)
        return em, np.asarray(ratio, dtype=np.float64) / 100.0
    if convention == "cmrc2018":
        p_em = [cmrc_remove_punctuation(t) for t in preds]
        g_em = [cmrc_remove_punctuation(t) for t in gold]
        p_seg = [cmrc_mixed_segmentation(t) for t in preds]
        g_seg = [cmrc_mixed_segmentation(t) for t in gold]
        em = np.empty(n, dtype=np.float64)
        lcs = np.empty(n, dtype=np.int64)
        for k, (i, j) in enumerate(zip(pair_pred.tolist(), pair_gold.tolist(), strict=True)):
            em[k] = p_em[i] == g_em[j]
            lcs[k] = longest_common_substring(g_seg[j], p_seg[i])
        n_pred = np.array([len(p_seg[i]) for i in pair_pred.tolist()], dtype=np.int64)
        n_gold = np.array([len(g_seg[j]) for j in pair_gold.tolist()], dtype=np.int64)
        return em, _f1(lcs, n_pred, n_gold)
    raise AssertionError(convention)


#: The sizes of the fast-path rules ``squad.pairs`` and ``squad.questions`` (read-only:
#: :mod:`nlgmetrics.algorithms.fastpath` decides; tests use ``forced``).
_SMALL = fastpath.RULES["squad.pairs"].rows_up_to
_SMALL_QUESTIONS = fastpath.RULES["squad.questions"].rows_up_to


def _pair_small(p: str, g: str, chars: bool, empty_rule: bool) -> float:
    """F1 of one normalised pair, as the scripts compute it."""
    pt, gt = (list(p), list(g)) if chars else (p.split(), g.split())
    if empty_rule and (not pt or not gt):
        return float(pt == gt)
    same = sum((Counter(pt) & Counter(gt)).values())
    if same == 0:
        return 0.0
    precision = 1.0 * same / len(pt)
    recall = 1.0 * same / len(gt)
    return (2 * precision * recall) / (precision + recall)


def _bag_scores_small(
    p_norm: list[str], g_norm: list[str], chars: bool, pair_pred: np.ndarray, pair_gold: np.ndarray, empty_rule: bool
) -> tuple[np.ndarray, np.ndarray]:
    pairs = list(zip(pair_pred.tolist(), pair_gold.tolist(), strict=True))
    em = [float(p_norm[i] == g_norm[j]) for i, j in pairs]
    f1 = [_pair_small(p_norm[i], g_norm[j], chars, empty_rule) for i, j in pairs]
    return np.array(em, dtype=np.float64), np.array(f1, dtype=np.float64)


def _bag_scores(
    p_norm: list[str], g_norm: list[str], chars: bool, pair_pred: np.ndarray, pair_gold: np.ndarray, empty_rule: bool
) -> tuple[np.ndarray, np.ndarray]:
    """EM (normalised equality) and F1 over the bags of words (or characters) of the normalised texts; each
    distinct normalised text is encoded once, and EM compares their indices."""
    if fastpath.rows("squad.pairs", len(pair_pred)):
        return _bag_scores_small(p_norm, g_norm, chars, pair_pred, pair_gold, empty_rule)
    texts = list(dict.fromkeys(itertools.chain(p_norm, g_norm)))
    index = {t: k for k, t in enumerate(texts)}
    left = np.fromiter(map(index.__getitem__, p_norm), dtype=np.int64, count=len(p_norm))[pair_pred]
    right = np.fromiter(map(index.__getitem__, g_norm), dtype=np.int64, count=len(g_norm))[pair_gold]
    em = (left == right).astype(np.float64)
    col = codepoint_column(texts) if chars else encode_words(texts)
    n_pred, n_gold = col.lengths[left], col.lengths[right]
    f1 = _f1(bag_overlap(col, left, right), n_pred, n_gold)
    if empty_rule:  # v2: "if either is no-answer, then F1 is 1 if they agree, 0 otherwise"
        empty = (n_pred == 0) | (n_gold == 0)
        f1[empty] = (n_pred[empty] == n_gold[empty]).astype(np.float64)
    return em, f1


def _raw_small(preds: list[str], refs: ReferenceSets, conv: str) -> tuple[list[float], list[float]]:
    """Per-question raw EM and F1 of a few questions, question by question as the scripts do (same numbers as
    the batch passes, without their fixed numpy costs)."""
    normalize = jsquad_normalize if conv == "jsquad" else squad_normalize
    chars, empty_rule = conv == "jsquad", conv != "squad-v1"
    exact, f1 = [], []
    for i, pred in enumerate(preds):
        gold = [normalize(a) for a in refs[i]]
        if conv in NO_ANSWER:
            gold = [g for g in gold if g] or [""]
        p = normalize(pred)
        exact.append(float(any(p == g for g in gold)))
        f1.append(max(_pair_small(p, g, chars, empty_rule) for g in gold))
    return exact, f1


def _qa_kernel(
    preds: list[str], refs: ReferenceSets, cfg: SquadConfig, probs: np.ndarray | None = None
) -> StatsBatch[SquadStats]:
    n = len(preds)
    conv = cfg.convention
    if conv in ("squad-v1", "torchmetrics", "squad-v2", "jsquad") and fastpath.rows("squad.questions", n):
        raw_e, raw_f = _raw_small(preds, refs, conv)
        return _columns(preds, refs.counts() > 0, np.array(raw_e).astype(np.int64), np.array(raw_f), probs, cfg)
    counts = refs.counts()
    has_ans = counts > 0
    seg_of = np.repeat(np.arange(n, dtype=np.int64), counts)
    bag = conv in ("squad-v1", "torchmetrics", "squad-v2", "jsquad")
    if bag:
        normalize = jsquad_normalize_many if conv == "jsquad" else squad_normalize_many
        p_norm, g_all = normalize(preds), normalize(refs.flat)
    if conv in NO_ANSWER:  # answers that normalise to nothing are dropped; none left: the one answer is ""
        kept = np.flatnonzero(np.fromiter(map(bool, g_all), dtype=bool, count=len(g_all)))
        lone = np.flatnonzero(np.bincount(seg_of[kept], minlength=n) == 0)
        pair_pred = np.concatenate([seg_of[kept], lone])
        source = np.concatenate([kept, np.full(len(lone), -1, dtype=np.int64)])
        order = np.argsort(pair_pred, kind="stable")
        pair_pred, source = pair_pred[order], source[order]
    else:
        pair_pred, source = seg_of, np.arange(len(refs.flat), dtype=np.int64)
    pair_gold = np.arange(len(source), dtype=np.int64)
    if bag:
        g_norm = [g_all[k] if k >= 0 else "" for k in source.tolist()]
        em_pairs, f1_pairs = _bag_scores(p_norm, g_norm, conv == "jsquad", pair_pred, pair_gold, conv != "squad-v1")
    else:
        gold = [refs.flat[k] for k in source.tolist()]
        em_pairs, f1_pairs = _pair_scores(preds, gold, pair_pred, pair_gold, conv)
    first = np.flatnonzero(np.concatenate(([True], pair_pred[1:] != pair_pred[:-1])))
    raw_exact = np.maximum.reduceat(em_pairs, first).astype(np.int64)
    raw_f1 = np.maximum.reduceat(f1_pairs, first)
    return _columns(preds, has_ans, raw_exact, raw_f1, probs, cfg)


def _columns(
    preds: list[str],
    has_ans: np.ndarray,
    raw_exact: np.ndarray,
    raw_f1: np.ndarray,
    probs: np.ndarray | None,
    cfg: SquadConfig,
) -> StatsBatch[SquadStats]:
    """The statistics columns from the raw per-question scores: the no-answer threshold and the splits."""
    n = len(preds)
    if probs is None:
        probs = np.full(n, np.nan)
    given = ~np.isnan(probs)
    pred_na = given & (probs > cfg.na_prob_thresh)
    exact = np.where(pred_na, (~has_ans).astype(np.int64), raw_exact)
    f1 = np.where(pred_na, (~has_ans).astype(np.float64), raw_f1)
    zero_f = np.zeros(n, dtype=np.float64)
    return StatsBatch(
        SquadStats,
        {
            "count": np.ones(n, dtype=np.int64),
            "exact": exact,
            "f1": f1,
            "has_ans": has_ans.astype(np.int64),
            "has_ans_exact": np.where(has_ans, exact, 0),
            "has_ans_f1": np.where(has_ans, f1, zero_f),
            "no_ans_exact": np.where(has_ans, 0, exact),
            "no_ans_f1": np.where(has_ans, zero_f, f1),
            "raw_exact": raw_exact,
            "raw_f1": raw_f1,
            "pred_empty": np.fromiter((not p for p in preds), dtype=np.int64, count=n),
            "with_na_prob": given.astype(np.int64),
            "na_prob": np.where(given, probs, 0.0),
        },
    )


# ====================================================================== formula
def _ratio(scale: float, num: Any, den: Any) -> Any:
    """``scale * num / den`` in the scripts' order of operations (``100.0 * sum / total``); numpy columns too."""
    if isinstance(den, np.ndarray):
        out = np.zeros(den.shape, dtype=np.float64)
        np.divide(scale * np.asarray(num, dtype=np.float64), den, out=out, where=den != 0)
        return out
    return scale * num / den if den else 0.0


def squad_from_stats(stats: SquadStats, cfg: SquadConfig) -> SquadResult:
    """EM and F1 over all questions and per split, from summed statistics."""
    scale = float(cfg.scale or 100.0)
    count, has = stats.count, stats.has_ans
    no = count - has
    em = _ratio(scale, stats.exact, count)
    f1 = _ratio(scale, stats.f1, count)
    split = not isinstance(count, np.ndarray)
    return SquadResult(
        score=f1,
        exact_match=em,
        f1=f1,
        total=count,
        has_ans_exact=_ratio(scale, stats.has_ans_exact, has) if split and has else None,
        has_ans_f1=_ratio(scale, stats.has_ans_f1, has) if split and has else None,
        has_ans_total=int(has) if split else 0,
        no_ans_exact=_ratio(scale, stats.no_ans_exact, no) if split and no else None,
        no_ans_f1=_ratio(scale, stats.no_ans_f1, no) if split and no else None,
        no_ans_total=int(no) if split else 0,
        average=(em + f1) * 0.5,
        convention=cfg.convention,
        scale=scale,
    )


def best_threshold(
    scores: np.ndarray, probs: np.ndarray, has_ans: np.ndarray, pred_empty: np.ndarray, scale: float
) -> tuple[float, float]:
    """The SQuAD v2.0 script's ``find_best_thresh``: start from the number of unanswerable questions, walk the
    questions by increasing no-answer probability (a stable sort: ties keep their order), add each answerable
    question's raw score and subtract 1 for each unanswerable one that got an answer; the best running total
    (the first, on ties) and the probability where it was reached."""
    num_no_ans = int((~has_ans).sum())
    order = np.argsort(probs, kind="stable")
    diff = np.where(has_ans, scores, np.where(pred_empty, 0.0, -1.0))[order]
    running = np.cumsum(np.concatenate(([float(num_no_ans)], diff)))[1:]  # the script's left-to-right sum
    best_score: float = num_no_ans
    best_thresh = 0.0
    if len(running):
        k = int(np.argmax(running))
        if running[k] > num_no_ans:
            best_score, best_thresh = float(running[k]), float(probs[order][k])
    return scale * best_score / len(scores), best_thresh


@functools.lru_cache(maxsize=64)
def _signature(config: SquadConfig) -> str:
    return signature_of(SQUAD, config)


class SquadFamily(Family[SquadConfig, SquadStats, SquadResult]):
    """The QA family: answers may be an empty list (squad-v2, jsquad), predictions may carry a no-answer
    probability, and the best-threshold search runs on the per-question columns."""

    def prepare(
        self, predictions: Any, references: Any, config: Any, allow_empty: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> tuple[Any, Any, dict[str, Any]] | None:
        na_probs = self.check_inputs(inputs).get("na_probs")
        self.check_sources(sources, 0)
        if isinstance(predictions, Mapping) and isinstance(references, Mapping):
            # one question as a single SQuAD dict on each side, as torchmetrics' SQuAD and squad() accept
            predictions, references = [predictions], [references]
        preds, refs, probs = check_qa_input(predictions, references, config, na_probs, allow_empty=allow_empty)
        return (preds, refs, {"probs": probs}) if preds else None

    def needs_segments(self, config: SquadConfig) -> bool:
        return config.convention in NO_ANSWER and config.best_thresh

    def finalize(
        self, total: SquadStats, config: SquadConfig, batch: StatsBatch[SquadStats] | None = None
    ) -> SquadResult:
        result = self.formula(total, config)
        changes: dict[str, Any] = {"signature": _signature(config)}
        if batch is not None:
            changes["segments"] = self.segment_scores(batch, config)
        result = dataclasses.replace(result, **changes)
        if batch is None or not self.needs_segments(config) or not len(batch) or int(total.with_na_prob) == 0:
            return result
        if int(total.with_na_prob) != int(total.count):
            raise InvalidInputError(
                f"no-answer probabilities were given for {int(total.with_na_prob)} of {int(total.count)} questions: "
                "the best-threshold search needs one for every question (or none at all)"
            )
        c = batch.columns
        has = c["has_ans"].astype(bool)
        empty = c["pred_empty"].astype(bool)
        scale = float(config.scale or 100.0)
        best_exact, exact_t = best_threshold(c["raw_exact"].astype(np.float64), c["na_prob"], has, empty, scale)
        best_f1, f1_t = best_threshold(c["raw_f1"], c["na_prob"], has, empty, scale)
        return dataclasses.replace(
            result, best_exact=best_exact, best_exact_thresh=exact_t, best_f1=best_f1, best_f1_thresh=f1_t
        )

    def complete(
        self, result: SquadResult, batch: StatsBatch[SquadStats], config: SquadConfig, segments: bool
    ) -> SquadResult:
        """A call's result: per-question scores only when asked for (the best-threshold search keeps them), and
        the scripts' own sums in input order."""
        changes: dict[str, Any] = {} if segments else {"segments": None}
        if config.convention in _SUMMED_IN_ORDER and len(batch):
            changes["script_sums"] = _sums_in_order(batch)
        return dataclasses.replace(result, **changes) if changes else result


#: the conventions whose scripts add the per-question F1 left to right (``f1 += ...``, ``sum(scores.values())``);
#: llm-jp-eval's ``statistics.mean`` is exactly rounded, torchmetrics adds in float32
_SUMMED_IN_ORDER = frozenset(("squad-v1", "squad-v2", "jsquad", "cmrc2018"))


def _sums_in_order(batch: StatsBatch[SquadStats]) -> tuple[float, float, float]:
    """The per-question F1 values (after the no-answer threshold) summed left to right in input order, over all
    questions and over the answerable and unanswerable ones: the SQuAD scripts' own float sums."""
    f1 = batch.column("f1").tolist()
    has = batch.column("has_ans").tolist()
    return (
        sum(f1),
        sum(v for v, h in zip(f1, has, strict=True) if h),
        sum(v for v, h in zip(f1, has, strict=True) if not h),
    )


SQUAD = SquadFamily(
    name="squad",
    bounds=(0.0, None),
    config_cls=SquadConfig,
    stats_cls=SquadStats,
    kernel=_qa_kernel,
    formula=squad_from_stats,
    presets={name: {"convention": name} for name in CONVENTIONS},
    default_preset="squad-v1",
    vectorized=True,
    inputs=("na_probs",),
    example={
        "predictions": ["Denver Broncos", "1976"],
        "references": [["Denver Broncos", "The Denver Broncos"], ["in 1976", "1976"]],
    },
)


# ====================================================================== the functional API
def squad(
    predictions: Sequence[Any] | str,
    references: Sequence[Any] | str,
    *,
    preset: str | None = None,
    no_answer_probabilities: Sequence[float] | None = None,
    segments: bool = False,
    **options: Any,
) -> SquadResult:
    """Exact match and F1 of answers, one prediction and a list of accepted answers per question.

    ``preset`` picks the convention: ``"squad-v1"`` (default), ``"squad-v2"``, ``"jsquad"``, ``"cmrc2018"`` or
    ``"llm-jp-eval"`` (see :mod:`nlgmetrics.metrics.squad`). Under squad-v2 and jsquad an empty answer list means
    "no answer", and ``no_answer_probabilities`` (or predictions given as ``{"prediction_text": ...,
    "no_answer_probability": ...}``) enable the threshold and the best-threshold search.

    >>> r = squad(["Denver Broncos", "1976"], [["Denver Broncos", "The Denver Broncos"], ["in 1976"]])
    >>> r.exact_match, round(r.f1, 4)
    (50.0, 83.3333)
    >>> r = squad(["", "Paris"], [[], ["Paris"]], preset="squad-v2", no_answer_probabilities=[0.9, 0.2])
    >>> r.official()  # doctest: +NORMALIZE_WHITESPACE
    {'exact': 100.0, 'f1': 100.0, 'total': 2, 'HasAns_exact': 100.0, 'HasAns_f1': 100.0, 'HasAns_total': 1,
     'NoAns_exact': 100.0, 'NoAns_f1': 100.0, 'NoAns_total': 1, 'best_exact': 100.0, 'best_exact_thresh': 0.2,
     'best_f1': 100.0, 'best_f1_thresh': 0.2}
    """
    cfg = SQUAD.make_config(preset, **options)
    return SQUAD.compute(predictions, references, cfg, segments=segments, na_probs=no_answer_probabilities)
