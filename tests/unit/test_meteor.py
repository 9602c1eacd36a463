"""METEOR: behaviour, options, pre-tokenised input, the bundled WordNet, and bad input with its exact message."""

from __future__ import annotations

import gzip
from importlib import resources

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, UnknownOptionError
from nlgmetrics.text.wordnet import WordNet, synonyms, wordnet

HYP = "It is a guide to action which ensures that the military always obeys the commands of the party"
REF = "It is a guide to action that ensures that the military will forever heed Party commands"


def test_nltk_doctest_number_and_explanation():
    r = nm.meteor([HYP], [REF])
    assert round(r.score, 4) == 0.6944  # NLTK's own doctest value
    assert (r.exact, r.stem, r.synonym, r.chunks, r.hyp_len, r.ref_len) == (12, 0, 0, 6, 18, 16)
    assert r.signature == (
        "meteor|alpha:0.9|beta:3.0|gamma:0.5|lc:yes|stem:porter|wn:3.0|tok:whitespace|preset:nltk|nlgmetrics:"
        + nm.__version__
    )


def test_stages_stem_and_synonym():
    r = nm.meteor(["the cats were hearing"], ["a cat heard"])
    assert (r.exact, r.stem, r.synonym) == (0, 1, 0)
    r = nm.meteor(["he listens"], ["he hears"])  # 'listen' and 'hear' share a WordNet synset
    assert (r.exact, r.stem, r.synonym) == (1, 0, 1)
    off = nm.meteor(["he listens"], ["he hears"], wordnet="none")
    assert (off.exact, off.synonym) == (1, 0)
    assert off.score < r.score
    assert "wn:none" in off.signature
    no_stem = nm.meteor(["the cats"], ["the cat"], stemmer="none")
    assert no_stem.stem == 0


def test_no_match_is_zero_and_says_why():
    r = nm.meteor(["non matching hypothesis"], ["this is a cat"])
    assert r.score == 0.0
    assert r.exact + r.stem + r.synonym == 0


def test_corpus_is_mean_of_segments_and_best_reference():
    r = nm.meteor(
        ["the cat sat on the mat", "a b"], [["the cat is on the mat", "a cat sat on a mat"], "c"], segments=True
    )
    assert r.segments[1] == 0.0
    assert r.score == pytest.approx(sum(r.segments) / 2)
    best = max(
        nm.sentence_meteor("the cat sat on the mat", ref).score
        for ref in ["the cat is on the mat", "a cat sat on a mat"]
    )
    assert r.segments[0] == best


def test_pretokenised_input_like_nltk():
    a = nm.meteor([["a", "cat"]], [[["the", "cat"], ["a", "cat"]]], tokenizer="none")
    assert a.score == 0.9375
    assert "tok:none" in a.signature
    one_ref = nm.meteor([["a", "cat"]], [["a", "cat"]], tokenizer="none")  # a token list is one reference
    assert one_ref.score == a.score
    assert nm.sentence_meteor(["a", "cat"], [["a", "cat"]], tokenizer="none").score == a.score


def test_lowercase_option_and_alpha_beta_gamma():
    assert nm.meteor(["The Cat"], ["the cat"], lowercase=False).exact == 0
    assert nm.meteor(["The Cat"], ["the cat"], lowercase=False).stem == 2  # NLTK's stemmer lowercases
    r = nm.meteor([HYP], [REF], alpha=0.85, beta=0.2, gamma=0.6)
    assert "alpha:0.85|beta:0.2|gamma:0.6" in r.signature
    assert nm.meteor([HYP], [REF], alpha=1).signature == nm.meteor([HYP], [REF], alpha=1.0).signature


def test_empty_hypothesis_or_reference_scores_zero():
    assert nm.meteor([""], ["a b"]).score == 0.0
    assert nm.meteor(["a b"], [""]).score == 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": 1.5}, "alpha must be <= 1.0, got 1.5"),
        ({"beta": -1}, "beta must be >= 0.0, got -1"),
        ({"gamma": float("nan")}, "gamma must be a finite number, got nan"),
        ({"lowercase": "yes"}, "lowercase must be True or False, got 'yes'"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(InvalidInputError) as e:
        nm.meteor(["a"], ["a"], **kwargs)
    assert str(e.value) == message


def test_unknown_options():
    with pytest.raises(UnknownOptionError, match="unknown stemmer 'snowball'; valid values are: 'none', 'porter'"):
        nm.meteor(["a"], ["a"], stemmer="snowball")
    with pytest.raises(UnknownOptionError, match="unknown tokenizer 'spaces'"):
        nm.meteor(["a"], ["a"], tokenizer="spaces")
    with pytest.raises(UnknownOptionError, match=r"unknown meteor preset 'meteor-1\.5'"):
        nm.meteor(["a"], ["a"], preset="meteor-1.5")


@pytest.mark.parametrize(
    ("preds", "refs", "kwargs", "message"),
    [
        ([None], ["a"], {}, "predictions[0] is None; expected str"),
        (["a", "b"], ["a"], {}, "predictions and references differ in length: 2 predictions but 1 references"),
        (["a"], [["a", 3]], {}, "references[0][1] is a value of type int (3); expected str"),
        ([], [], {}, "predictions is empty: there is nothing to score (an empty corpus)"),
        (
            [["a", "cat"]],
            [["a", "cat"]],
            {},
            "predictions[0] is a list of tokens: for pre-tokenised input (as NLTK takes it) pass tokenizer='none'",
        ),
        (["a cat"], [["a", "cat"]], {"tokenizer": "none"}, "predictions[0] is a value of type str ('a cat'); expected"),
        ([["a"]], ["a"], {"tokenizer": "none"}, "references[0] is a string; with tokenizer='none'"),
        ([["a"]], [[]], {"tokenizer": "none"}, "references[0] is an empty list: every segment needs at least one"),
        (
            [["a"]],
            [[["a"], "b"]],
            {"tokenizer": "none"},
            "references[0][1] is a value of type str ('b'); expected a list",
        ),
        ([["a"], ["b"]], [["a"]], {"tokenizer": "none"}, "predictions and references differ in length: 2 predictions"),
    ],
)
def test_bad_input_names_the_index(preds, refs, kwargs, message):
    with pytest.raises(InvalidInputError) as e:
        nm.meteor(preds, refs, **kwargs)
    assert str(e.value).startswith(message)


def test_stateful_and_sources_refused():
    m = nm.METEOR()
    m.update([HYP], [REF])
    m.update(["a b"], ["c"])
    assert m.compute().score == pytest.approx(nm.meteor([HYP, "a b"], [REF, "c"]).score, abs=1e-15)
    with pytest.raises(InvalidInputError, match="meteor takes no sources"):
        nm.METEOR.family.batch_stats(["a"], ["a"], nm.METEOR.family.make_config(), sources=["x"])


def test_bundled_wordnet_is_wordnet_30_with_licence():
    data = resources.files("nlgmetrics").joinpath("data/wordnet/wn30-meteor.txt.gz").read_bytes()
    header = gzip.decompress(data)[:200].decode()
    assert header.startswith("# nlgmetrics-wordnet-meteor 1 | WordNet 3.0 | source: Debian wordnet-base")
    licence = resources.files("nlgmetrics").joinpath("data/wordnet/LICENSE").read_text(encoding="utf-8")
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in licence
    wn = wordnet()
    assert len(wn._lemmas) == 147306  # every lemma of WordNet 3.0's four index files
    assert wn.morphy("geese", "n") == ["goose"]  # exception list
    assert wn.morphy("dogs", "n") == ["dog"]  # detachment rule
    assert wn.morphy("hearing", "v") == ["hear"]
    assert {"discover", "listen", "learn"} <= synonyms("hear")
    assert synonyms("zzzz") == frozenset({"zzzz"})


def test_wordnet_rejects_a_corrupt_table():
    with pytest.raises(RuntimeError, match=r"corrupt WordNet data: section exc\.n has 1 lines, 2 expected"):
        WordNet("# header\n@exc.n 2\nx y\n@exc.v 0\n@exc.a 0\n@exc.r 0\n@synsets 0\n@lemmas 0\n@senses 0\n")


def test_pretokenised_references_given_as_texts_are_an_error() -> None:
    """A list of plain strings with spaces as a segment's references under tokenizer='none' is ambiguous: one
    tokenised reference whose tokens are sentences, or several untokenised references. It used to be read as the
    first, silently scoring 0."""
    with pytest.raises(InvalidInputError, match=r"references\[0\] is a list of strings, and 'the cat' holds spaces"):
        nm.meteor([["a", "cat"]], [["the cat", "a cat"]], tokenizer="none")
    with pytest.raises(InvalidInputError, match=r"references\[0\]\[1\] is a list of strings"):
        nm.meteor([["a", "cat"]], [[["the", "cat"], ["a cat"]]], tokenizer="none")
    with pytest.raises(InvalidInputError, match=r"predictions\[0\] is a list of strings, and 'a cat' holds spaces"):
        nm.meteor([["a cat"]], [[["a", "cat"]]], tokenizer="none")
    # the unambiguous shapes still score
    assert nm.meteor([["a", "cat"]], [[["the", "cat"], ["a", "cat"]]], tokenizer="none").score > 0.9
    assert nm.meteor(["a cat"], [["the cat", "a cat"]]).score > 0.9
