"""NIST: options, the reasons of a 0, the mteval quirks, bad input; MER/WIL/WIP names."""

from __future__ import annotations

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError


def test_presets_and_signature():
    r = nm.nist(["the cat sat on the mat"], ["the cat is on the mat"])
    assert r.convention == "nltk"
    assert r.signature.startswith("nist|conv:nltk|n:5|tok:whitespace|lc:no|preset:nltk|")
    m = nm.nist(["The cat sat on the mat."], ["the cat is on the mat ."], preset="mteval-13a")
    assert m.signature.startswith("nist|conv:mteval|n:5|tok:mteval-13a|lc:yes|preset:mteval-13a|")
    # mteval lowercases and splits the final period: the same tokens as the lowercased, spaced text
    assert m.score == nm.nist(["the cat sat on the mat ."], ["the cat is on the mat ."], preset="mteval-13a").score


def test_sentence_nist_is_the_segment_score():
    preds = ["the cat sat on the mat", "a dog ran"]
    refs = [["the cat is on the mat", "a cat sat on the mat"], "the dog ran away"]
    r = nm.nist(preds, refs, max_order=2, segments=True)
    assert r.segments == tuple(nm.sentence_nist(p, rs, max_order=2).score for p, rs in zip(preds, refs, strict=True))


def test_undefined_orders_are_explained():
    r = nm.nist(["a b"], ["a b c"])  # no 3-, 4- or 5-gram: NLTK raises ZeroDivisionError
    assert r.undefined_orders == (3, 4, 5)
    assert "NLTK raises ZeroDivisionError" in r.reason
    assert r.score > 0
    assert nm.nist(["x"], ["a"], max_order=1).reason == "no n-gram of the predictions appears in the references"


def test_mteval_zero_token_quirk():
    # Perl's `$mgram ? ...`: a bigram starting with the word "0" is weighed like a unigram
    hyp, ref = ["0 a 0 b"], ["0 a 0 b 0 a"]
    quirky = nm.nist(hyp, ref, preset="mteval-13a", max_order=2)
    plain = nm.nist(["z a z b"], ["z a z b z a"], preset="mteval-13a", max_order=2)
    assert quirky.score != plain.score


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_order": 0}, "max_order must be a positive integer"),
        ({"preset": "mteval-13a", "max_order": 10}, "up to 9"),
        ({"convention": "moses"}, "moses"),
        ({"lowercase": "yes"}, "lowercase must be True or False"),
        ({"tokenizer": "nope"}, "nope"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises((InvalidInputError, ValueError), match=message):
        nm.nist(["a"], ["a"], **options)


def test_bad_input_names_the_index():
    with pytest.raises(InvalidInputError, match="1"):
        nm.nist(["a", None], ["a", "b"])
    with pytest.raises(InvalidInputError):
        nm.sentence_nist(["a"], ["a"])


def test_resampling_rescores_each_resample_as_a_corpus():
    """NIST's weights come from the whole reference corpus, so a bootstrap resample is scored as its own corpus
    (a repeated segment counts twice, in the reference counts too): the same as calling nist() on it."""
    import statistics

    import numpy as np

    from nlgmetrics.metrics.catalog import get_family
    from nlgmetrics.metrics.significance import bootstrap_ci_from_stats

    family = get_family("nist")
    config = family.make_config()
    preds, refs = ["a b c", "c d", "e f g h", "b a"], ["a b d", "c d", "e g h", "a b"]
    batch = family.batch_stats(preds, refs, config)
    ci = bootstrap_ci_from_stats(family, config, batch, n_samples=10, seed=3)
    idxs = np.random.default_rng(3).choice(len(preds), size=(10, len(preds)), replace=True)
    naive = [nm.nist([preds[i] for i in idx], [refs[i] for i in idx]).score for idx in idxs]
    assert ci.mean == statistics.mean(sorted(naive))


def test_word_measures_are_named_metrics():
    import nlgmetrics.torch as nt

    p, r = ["hello duck", "i like python"], ["hello world", "i like monty python"]
    w = nm.wer(p, r)
    assert (nm.mer(p, r).score, nm.wil(p, r).score, nm.wip(p, r).score) == (w.mer, w.wil, w.wip)
    assert nt.MatchErrorRate.family.name == "mer"
    assert nt.WordInfoLost.higher_is_better is False
    assert nt.WordInfoPreserved.higher_is_better is True
    with pytest.raises(InvalidInputError):
        nm.mer(["a"], [["a", "b"]])  # one reference per segment, as jiwer
