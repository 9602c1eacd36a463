"""ROUGE as the pltrdy ``rouge`` package and as LLaMA-Factory (``rouge-chinese`` on jieba words) compute it.

Both packages descend from the same code and count n-grams as *sets*: a repeated n-gram counts once on each
side (``Rouge(exclusive=True)``, their default), and F is ``2 * ((P * R) / (P + R + 1e-8))``. They differ in
sentence splitting and in ROUGE-L. The ``rouge`` family's ``scoring="pltrdy"`` and ``scoring="llamafactory"``
(presets of the same names) dispatch here; this module only produces the per-segment precision, recall and F
columns, which the family then averages as usual.

``pltrdy`` (rouge 1.0.1, ``Rouge().get_scores(hyps, refs, avg=True)``; ``avg=False`` gives the per-segment values)
    Sentences are the pieces of ``text.split(".")`` that are not empty, each with its whitespace runs collapsed
    to one space; words are the pieces of ``sentence.split(" ")`` (so a piece that is only whitespace adds the
    empty word ``""``). ROUGE-N: sets of n-grams over all words (n-grams cross sentence ends). ROUGE-L is the
    summary-level one: ``m``, ``n`` are the numbers of *distinct* words of the reference and the hypothesis, and
    the hit count is the number of distinct words in the union, over every reference sentence and hypothesis
    sentence, of the words of the LCS that its backtracking picks (``_recon_lcs``: on a tie it moves left).
    One reference per segment: the package has no multi-reference mode (lists of references fail there); a
    hypothesis or reference with no sentence is an error (it raises ``ValueError('Hypothesis is empty.')``).
``llamafactory`` (LLaMA-Factory 0.9.5 ``ComputeSimilarity``, rouge-chinese 1.0.3, jieba 0.42)
    ``hypothesis = list(jieba.cut(pred))``; if ``" ".join(hypothesis).split()`` or the reference's is empty, every
    value is 0; else ``Rouge().get_scores(" ".join(hypothesis), " ".join(reference))``: rouge-chinese splits
    sentences at ``。！？?``, ``......`` and ``……`` (``cut_sent``), collapses whitespace in each, and splits words
    on ``" "``. ROUGE-1/2: sets of n-grams as above; ROUGE-L: the plain LCS of the word lists, over their
    lengths (not the summary-level union). Each value is then ``round(v * 100, 4)`` (LLaMA-Factory records F only;
    P and R are given the same treatment here), and the corpus score is their mean.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
from rapidfuzz.distance import LCSseq

from ..._inputs import ReferenceSets
from ...errors import InvalidInputError, MissingDependencyError
from .config import SET_SCORINGS, check_set_scoring

if TYPE_CHECKING:
    from .config import RougeConfig

__all__ = ["SET_SCORINGS", "check_set_scoring", "set_rouge_columns"]


def _pltrdy_sentences(text: str) -> list[str]:
    return [" ".join(s.split()) for s in text.split(".") if len(s) > 0]


_CUT = (
    (re.compile("([。！？\\?])([^”’])"), r"\1\n\2"),
    (re.compile("(\\.{6})([^”’])"), r"\1\n\2"),
    (re.compile("(\\…{2})([^”’])"), r"\1\n\2"),
    (re.compile("([。！？\\?][”’])([^，。！？\\?])"), r"\1\n\2"),
)


def _chinese_sentences(text: str) -> list[str]:
    for pattern, repl in _CUT:
        text = pattern.sub(repl, text)
    return [" ".join(s.split()) for s in text.rstrip().split("\n") if len(s) > 0]


def _words(sentences: list[str]) -> list[str]:
    return list(itertools.chain(*[s.split(" ") for s in sentences]))


@cache
def _jieba() -> Any:
    try:
        import jieba
    except ImportError as err:
        raise MissingDependencyError("the llamafactory ROUGE preset (jieba)", "pip install 'nlgmetrics[zh]'") from err
    logging.getLogger("jieba").setLevel(logging.WARNING)
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


# ---------------------------------------------------------------------------------------------------- scores
def _prf(hits: int, n_hyp: int, n_ref: int) -> tuple[float, float, float]:
    p = 0.0 if n_hyp == 0 else hits / n_hyp
    r = 0.0 if n_ref == 0 else hits / n_ref
    return p, r, 2.0 * ((p * r) / (p + r + 1e-8))


def _ngram_set(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _recon_lcs_words(x: list[str], y: list[str]) -> set[str]:
    """The words of the LCS of ``x`` and ``y`` that pltrdy's ``_recon_lcs`` backtracks (``table[i-1][j] >
    table[i][j-1]``: up, else left), as a set. Iterative, so long sentences do not hit Python's recursion limit
    as the package's recursive version does."""
    n, m = len(x), len(y)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        xi, row, prev = x[i - 1], table[i], table[i - 1]
        for j in range(1, m + 1):
            row[j] = prev[j - 1] + 1 if xi == y[j - 1] else max(prev[j], row[j - 1])
    out: set[str] = set()
    i, j = n, m
    while i and j:
        if x[i - 1] == y[j - 1]:
            out.add(x[i - 1])
            i, j = i - 1, j - 1
        elif table[i - 1][j] > table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return out


def _segment(hyp: list[str], ref: list[str], types: Sequence[str], scoring: str) -> list[tuple[float, float, float]]:
    hyp_words, ref_words = _words(hyp), _words(ref)
    out = []
    for t in types:
        if t == "rougeL":
            if scoring == "pltrdy":
                union: set[str] = set()
                for r in ref:
                    rw = r.split(" ")
                    for h in hyp:
                        union |= _recon_lcs_words(rw, h.split(" "))
                out.append(_prf(len(union), len(set(hyp_words)), len(set(ref_words))))
            else:
                lcs = int(LCSseq.similarity(ref_words, hyp_words))
                out.append(_prf(lcs, len(hyp_words), len(ref_words)))
        else:
            a, b = _ngram_set(hyp_words, int(t[5:])), _ngram_set(ref_words, int(t[5:]))
            out.append(_prf(len(a & b), len(a), len(b)))
    return out


def _guard(kernel: str, hyp: list[str], ref: list[str], segment: int) -> None:
    """Refuse a pair whose ROUGE-L would run beyond the limit of :mod:`nlgmetrics.algorithms.guard`: the LCS of
    every reference sentence with every prediction sentence (pltrdy's, in pure Python), or of the two word lists
    (LLaMA-Factory's); either way, the words of one side times the words of the other."""
    from ...algorithms.guard import check_pairs

    check_pairs("rougeL", kernel, [len(_words(hyp))], [len(_words(ref))], [segment])


def set_rouge_columns(preds: list[str], refs: ReferenceSets, cfg: RougeConfig) -> dict[str, np.ndarray]:
    """Per-segment precision, recall and F of each type, shape ``(n, len(types))``."""
    counts = refs.counts()
    if (counts != 1).any():
        i = int(np.flatnonzero(counts != 1)[0])
        raise InvalidInputError(
            f"references[{i}] has {int(counts[i])} references, but the {cfg.scoring} scoring takes exactly one "
            "(its package has no multi-reference mode)"
        )
    types = cfg.rouge_types
    out = np.zeros((3, len(preds), len(types)), dtype=np.float64)
    for i, (pred, ref) in enumerate(zip(preds, refs.first(), strict=True)):
        if cfg.scoring == "pltrdy":
            hyp_s, ref_s = _pltrdy_sentences(pred), _pltrdy_sentences(ref)
            for side, sents in (("predictions", hyp_s), ("references", ref_s)):
                if not sents:
                    raise InvalidInputError(
                        f"{side}[{i}] holds no sentence for pltrdy's rouge (empty, or only '.'): the package "
                        "raises ValueError there ('Hypothesis is empty.' / 'Reference is empty.')"
                    )
            if "rougeL" in types:
                _guard("python-lcs", hyp_s, ref_s, i)
            values = _segment(hyp_s, ref_s, types, "pltrdy")
        else:
            jieba = _jieba()
            hyp = " ".join(jieba.lcut(pred))
            ref_j = " ".join(jieba.lcut(ref))
            if not hyp.split() or not ref_j.split():
                continue  # LLaMA-Factory: every value 0.0
            hyp_s, ref_s = _chinese_sentences(hyp), _chinese_sentences(ref_j)
            if "rougeL" in types:
                _guard("rapidfuzz-lcs", hyp_s, ref_s, i)
            values = [
                (round(p * 100, 4), round(r * 100, 4), round(f * 100, 4))
                for p, r, f in _segment(hyp_s, ref_s, types, "llamafactory")
            ]
        out[:, i, :] = np.asarray(values, dtype=np.float64).T
    return {"precision": out[0], "recall": out[1], "fmeasure": out[2]}
