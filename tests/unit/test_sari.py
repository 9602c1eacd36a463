"""SARI: the script's numbers on its own example, its quirks, every interface with sources, and bad input."""

from __future__ import annotations

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, UnknownOptionError

SOURCES = ["About 95 species are currently accepted ."]
PREDICTIONS = ["About 95 you now get in ."]
REFERENCES = [
    ["About 95 species are currently known .", "About 95 species are now accepted .", "95 species are now accepted ."]
]


def test_the_scripts_own_example():
    r = nm.sari(PREDICTIONS, REFERENCES, SOURCES)
    assert r.score == 26.953601953601954  # the docstring of HF evaluate's sari.py
    assert r.signature == f"sari|tok:13a|lc:yes|preset:evaluate|nlgmetrics:{nm.__version__}"
    assert r.score == pytest.approx((r.keep + r.delete + r.add) / 3, abs=1e-12)
    assert r.n_segments == 1
    # the script's keyword names read as there
    assert nm.sari(sources=SOURCES, predictions=PREDICTIONS, references=REFERENCES).score == r.score


def test_corpus_score_is_the_mean_of_segment_scores():
    srcs = [*SOURCES, "The cat perched on the mat."]
    preds = [*PREDICTIONS, "The cat sat on the mat."]
    refs = [*REFERENCES, ["The cat sat on the mat.", "A cat sat on the mat."]]
    r = nm.sari(preds, refs, srcs, segments=True)
    assert r.segments[0] == nm.sari(preds[:1], refs[:1], srcs[:1]).score
    assert r.score == pytest.approx(sum(r.segments) / 2, abs=1e-12)
    assert r.segments[1] == nm.sari(preds[1:], refs[1:], srcs[1:]).score


def test_quirks_of_the_script():
    # an empty sentence is one empty token, so an all-empty segment keeps, deletes and adds perfectly
    assert nm.sari([""], [[""]], [""]).score == 100.0
    # 0/0 = 1: a prediction equal to its source and references scores 100
    assert nm.sari(["a b c"], [["a b c"]], ["a b c"]).score == 100.0
    # lowercased by default; lowercase=False keeps the case
    assert nm.sari(["A B"], [["a b"]], ["a b"]).score == 100.0
    assert nm.sari(["A B"], [["a b"]], ["a b"], lowercase=False).score < 100.0
    # 13a splits punctuation and normalises spaces; "none" splits on single spaces, as the script then does
    assert nm.sari(["a  b."], [["a b ."]], ["a b ."]).score == 100.0
    assert nm.sari(["a  b."], [["a b ."]], ["a b ."], tokenizer="none").score < 100.0


def test_cjk_needs_a_tokenizer_that_splits_it():
    # 13a keeps a run of CJK characters as one token: these sentences share no token, nothing is kept or to keep,
    # and "0/0 = 1" gives keep 100; char (or zh, ja-mecab) compares their characters
    whole = nm.sari(["東京に行く"], [["東京へ行く"]], ["東京に行った"])
    chars = nm.sari(["東京に行く"], [["東京へ行く"]], ["東京に行った"], tokenizer="char")
    assert whole.keep == 100.0
    assert 0.0 < chars.keep < 100.0
    assert chars.signature.startswith("sari|tok:char|")


def test_stateful_and_forward_take_sources():
    m = nm.SARI()
    batch = m.forward(PREDICTIONS, REFERENCES, sources=SOURCES)
    assert batch.score == 26.953601953601954
    m.update(["The cat sat on the mat."], [["The cat sat on the mat."]], sources=["The cat perched on the mat."])
    assert m.compute().n_segments == 2
    assert m.state_dict()["stats"]["n_segments"] == 2


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nm.sari(PREDICTIONS, REFERENCES, None), "sari needs sources"),
        (lambda: nm.sari(PREDICTIONS, REFERENCES, SOURCES * 2), "2 sources but 1 predictions"),
        (lambda: nm.sari(PREDICTIONS, REFERENCES, [None]), r"sources\[0\] is None"),
        (lambda: nm.sari(PREDICTIONS, [[]], SOURCES), r"references\[0\] is an empty list"),
        (lambda: nm.sari(PREDICTIONS, [["a", 3]], SOURCES), r"references\[0\]"),
        (lambda: nm.sari(PREDICTIONS * 2, REFERENCES, SOURCES), "differ in length"),
        (lambda: nm.sari([], [], []), "empty"),
        (lambda: nm.sari(PREDICTIONS, REFERENCES, SOURCES, lowercase="yes"), "lowercase must be True or False"),
        (lambda: nm.SARI().update(PREDICTIONS, REFERENCES), "sari needs sources"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_unknown_options():
    with pytest.raises(UnknownOptionError, match="'13a', 'char', 'intl'"):
        nm.sari(PREDICTIONS, REFERENCES, SOURCES, tokenizer="spacy")
    with pytest.raises(UnknownOptionError, match="valid values are: 'evaluate'"):
        nm.sari(PREDICTIONS, REFERENCES, SOURCES, preset="easse")


def test_a_family_without_further_inputs_refuses_them():
    with pytest.raises(InvalidInputError, match="nls takes no num_bytes"):
        nm.NormalizedLevenshteinSimilarity().update(["a"], ["b"], num_bytes=[1])
    with pytest.raises(InvalidInputError, match="sari takes no num_bytes; its further inputs are: none"):
        nm.SARI().update(PREDICTIONS, REFERENCES, sources=SOURCES, num_bytes=[1])


def test_a_lone_surrogate_takes_the_python_path():
    # a str with a lone surrogate has no UTF-8 form for the compiled kernel: the Python paths score it, the same
    from tests.naive_sari import corpus_sari

    srcs, preds, refs = ["a \ud800", "x z"], ["\ud800 a b", "x"], [["a b", "c"], ["x y"]]
    assert nm.sari(preds, refs, srcs).score == corpus_sari(srcs, preds, refs)
