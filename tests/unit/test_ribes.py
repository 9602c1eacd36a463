"""RIBES: the paper's examples, both conventions, empty references, tokenizers, and bad input."""

from __future__ import annotations

import math
import sys

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, MissingDependencyError

H0 = "he read the book because he was interested in world history"
R0 = "he was interested in world history because he read the book"


def test_paper_example_under_both_conventions():
    official = nm.ribes([H0], [R0])
    assert official.score == pytest.approx(0.3090909090909091, abs=1e-15)  # 'he' aligns by its left context first
    assert (official.nkt, official.precision, official.bp) == (official.score, 1.0, 1.0)
    nltk = nm.ribes([H0], [R0], preset="nltk")
    assert nltk.nkt == pytest.approx(0.38181818181818183)  # NLTK's worder [7, 8, 9, 10, 6, 0, 1, 2, 3, 4, 5]
    assert official.signature.startswith("ribes|conv:ribes-1.03.1|alpha:0.25|beta:0.1|lc:yes|tok:whitespace|z:no")
    assert nltk.signature.startswith("ribes|conv:nltk|alpha:0.25|beta:0.1|lc:no|tok:whitespace|z:no|preset:nltk")


def test_one_word_against_a_one_word_reference():
    assert nm.ribes(["a b"], ["a"]).score == pytest.approx(0.5**0.25)  # RIBES.py: nkt 1, precision 1/2
    assert nm.ribes(["a b"], ["a"], preset="nltk").score == 0.0  # NLTK: fewer than two alignments score 0


def test_case_and_lowercase():
    assert nm.ribes(["The Cat sat"], ["the cat sat"]).score == 1.0
    assert nm.ribes(["The Cat sat"], ["the cat sat"], lowercase=False).score == 0.0


def test_empty_reference_stops_or_is_left_out():
    with pytest.raises(InvalidInputError) as e:
        nm.ribes(["a b", "c d"], ["a b", ""])
    assert str(e.value) == (
        "references[1] has no words: RIBES.py 1.03.1 stops on an empty reference ('Reference has no words'); pass "
        "ignore_empty_references=True (its -z) to leave empty references out"
    )
    with pytest.raises(InvalidInputError, match=r"references\[1\]\[0\] has no words"):
        nm.ribes(["a b", "c d"], ["a b", [" ", "c d"]])
    r = nm.ribes(["a b", "c d"], ["a b", ""], ignore_empty_references=True, segments=True)
    assert (r.score, r.n_scored, r.n_segments) == (1.0, 1, 2)
    assert r.segments[0] == 1.0
    assert math.isnan(r.segments[1])
    with pytest.raises(InvalidInputError, match="no segment has a non-empty reference"):
        nm.ribes(["a"], [""], ignore_empty_references=True)
    assert nm.ribes(["a b"], [""], preset="nltk").score == 0.0  # NLTK scores it


def test_empty_hypothesis_scores_zero():
    assert nm.ribes([""], ["a b"]).score == 0.0
    assert nm.ribes([""], ["a b"], preset="nltk").score == 0.0


def test_pretokenised_input():
    r = nm.ribes([H0.split()], [R0.split()], tokenizer="none")
    assert r.score == nm.ribes([H0], [R0]).score
    assert "tok:none" in r.signature
    multi = nm.ribes([["a", "b"]], [[["b", "a"], ["a", "b"]]], tokenizer="none")
    assert multi.score == 1.0


def test_ja_mecab_tokenizer():
    pytest.importorskip("fugashi", reason="the ja-mecab tokenizer needs the [ja] extra")
    r = nm.ribes(["猫が魚を食べた"], ["魚を猫が食べた"], tokenizer="ja-mecab")
    assert 0.0 < r.score < 1.0
    assert nm.ribes(["猫が\u3000魚を食べた"], ["猫が魚を食べた"], tokenizer="ja-mecab").score == 1.0


def test_missing_mecab_names_the_extra(monkeypatch):
    from nlgmetrics.text import registry

    registry._resolve.cache_clear()
    monkeypatch.setitem(sys.modules, "fugashi", None)
    try:
        with pytest.raises(MissingDependencyError, match=r"pip install 'nlgmetrics\[ja\]'"):
            nm.ribes(["猫"], ["猫"], tokenizer="ja-mecab")
    finally:
        registry._resolve.cache_clear()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": -0.5}, "alpha must be >= 0.0, got -0.5"),
        ({"beta": "x"}, "beta must be a number, got 'x'"),
        ({"convention": "wat"}, "unknown RIBES convention 'wat'; valid values are: 'nltk', 'ribes-1.03.1'"),
        (
            {"preset": "nltk", "ignore_empty_references": True},
            "ignore_empty_references is RIBES.py's -z and applies to convention 'ribes-1.03.1' only",
        ),
        ({"lowercase": 1}, "lowercase must be True or False, got 1"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(InvalidInputError) as e:
        nm.ribes(["a"], ["a"], **kwargs)
    assert str(e.value).startswith(message)


@pytest.mark.parametrize(
    ("preds", "refs", "message"),
    [
        (["a", None], ["a", "b"], "predictions[1] is None; expected str"),
        (["a"], ["a", "b"], "predictions and references differ in length: 1 predictions but 2 references"),
        ([["a"]], [["a"]], "predictions[0] is a list of tokens: for pre-tokenised input"),
        ("a b", ["a b", "c"], "predictions and references differ in length: 1 predictions but 2 references"),
    ],
)
def test_bad_input_names_the_index(preds, refs, message):
    with pytest.raises(InvalidInputError) as e:
        nm.ribes(preds, refs)
    assert str(e.value).startswith(message)


def test_long_and_repetitive_sentences_are_scored():
    hyp = " ".join(f"w{k % 1500}" for k in range(2100))  # NLTK refuses more than 2000 tokens; both score it
    assert nm.ribes([hyp], [hyp]).score == 1.0
    assert nm.ribes([hyp], [hyp], preset="nltk").score == 1.0
    periodic = " ".join(["a", "b"] * 1000)  # every context repeats: found from common-suffix/prefix lengths
    r = nm.ribes([periodic], [periodic])
    assert (r.nkt, r.precision) == (1.0, 4 / 2000)


def test_dense_and_incremental_alignment_agree(monkeypatch):
    import random

    from nlgmetrics.metrics import ribes as module

    rng = random.Random(0)
    for _ in range(300):
        hyp = [rng.randrange(4) for _ in range(rng.randint(0, 30))]
        ref = [rng.randrange(4) for _ in range(rng.randint(1, 30))]
        for official in (True, False):
            monkeypatch.setattr(module, "DENSE_CELLS", 10**9)
            incremental = module._alignment(ref, hyp, official)
            monkeypatch.setattr(module, "DENSE_CELLS", 0)
            assert module._alignment(ref, hyp, official) == incremental
