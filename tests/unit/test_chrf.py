"""chrF / chrF++: options, multi-reference choice, diagnostics, and clear errors."""

from __future__ import annotations

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, UnknownOptionError
from nlgmetrics.metrics.chrf import CHRF


def test_identical_and_disjoint():
    assert nm.chrf(["the cat"], ["the cat"]).score == 100.0
    assert nm.chrf(["xyz"], ["abc"]).score == 0.0
    assert nm.chrf([""], ["abc"]).score == 0.0


def test_names_signature_and_counts():
    r = nm.chrf(["the cat sat"], ["the cat is here"], preset="chrf++")
    assert r.name == "chrF2++"
    assert r.sacrebleu_signature == "nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0"
    assert len(r.hyp) == len(r.ref) == len(r.match) == 8
    assert r.hyp[0] == 9
    assert r.ref[0] == 12
    assert 0 < r.precision <= 100
    assert 0 < r.recall <= 100
    assert nm.chrf(["a"], ["a"], beta=1, eps_smoothing=True).sacrebleu_signature.split("|")[2] == "eff:no"


def test_the_best_reference_counts():
    refs = [["completely different", "the cat sat"]]
    assert nm.chrf(["the cat sat"], refs).score == 100.0
    assert nm.chrf(["the cat sat"], refs).sacrebleu_signature.startswith("nrefs:2|")
    mixed = nm.chrf(["a b", "c"], [["a b", "x"], "c"])
    assert mixed.score == 100.0
    assert mixed.sacrebleu_signature.startswith("nrefs:var|")


def test_whitespace_and_lowercase():
    assert nm.chrf(["ab"], ["a b"]).score == 100.0
    assert nm.chrf(["ab"], ["a b"], whitespace=True).score < 100.0
    assert nm.chrf(["ABC"], ["abc"], lowercase=True).score == 100.0


def test_segments_and_sentence_chrf():
    r = nm.chrf(["the cat", "a dog"], ["the cat", "the dog"], segments=True)
    assert r.segments[0] == 100.0
    assert r.segments[1] == nm.sentence_chrf("a dog", "the dog").score
    batch = CHRF.batch_stats(["the cat", "a dog"], ["the cat", "the dog"], CHRF.make_config())
    assert batch.total() == batch[0] + batch[1]


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"char_order": -1}, InvalidInputError, "char_order"),
        ({"char_order": 0, "word_order": 0}, InvalidInputError, "both be 0"),
        ({"word_order": 1.5}, InvalidInputError, "word_order"),
        ({"beta": -1}, InvalidInputError, "beta"),
        ({"whitespace": 1}, InvalidInputError, "whitespace"),
        ({"preset": "chrf+++"}, UnknownOptionError, "chrf\\+\\+"),
        ({"order": 6}, UnknownOptionError, "unknown option 'order'"),
    ],
)
def test_bad_options(options, error, message):
    with pytest.raises(error, match=message):
        nm.chrf(["a"], ["a"], **options)


def test_bad_input():
    with pytest.raises(InvalidInputError, match=r"predictions\[1\]"):
        nm.chrf(["a", None], ["a", "b"])
    with pytest.raises(InvalidInputError, match="differ in length"):
        nm.chrf(["a"], ["a", "b"])
