"""GLEU: the documented examples of NLTK and HF evaluate, options and bad input."""

from __future__ import annotations

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError

HF_PREDS = [
    "It is a guide to action which ensures that the rubber duck always disobeys the commands of the cat",
    "he read the book because he was interested in world history",
]
HF_REFS = [
    [
        "It is the guiding principle which guarantees the rubber duck forces never being under the command of the cat",
        "It is a guide to action that ensures that the rubber duck will never heed the cat commands",
        "It is the practical guide for the rubber duck army never to heed the directions of the cat",
    ],
    ["he was interested in world history because he read the book"],
]


def test_hf_google_bleu_docstring_examples():
    # the four examples of HF evaluate's google_bleu metric card (rounded to 2 decimals there)
    one_ref = [HF_REFS[0][:1], HF_REFS[1]]
    assert round(nm.gleu(HF_PREDS, one_ref, preset="hf-google-bleu").score, 2) == 0.44
    assert round(nm.gleu(HF_PREDS, HF_REFS, preset="hf-google-bleu").score, 2) == 0.61
    assert round(nm.gleu(HF_PREDS, HF_REFS, preset="hf-google-bleu", min_len=2).score, 2) == 0.53
    assert round(nm.gleu(HF_PREDS, HF_REFS, preset="hf-google-bleu", min_len=2, max_len=6).score, 2) == 0.4


def test_nltk_docstring_examples():
    ref1 = "It is a guide to action that ensures that the military will forever heed Party commands"
    hyp1 = "It is a guide to action which ensures that the military always obeys the commands of the party"
    hyp2 = "It is to insure the troops forever hearing the activity guidebook that party direct"
    assert nm.sentence_gleu(hyp1, [ref1]).score == pytest.approx(0.4393, abs=1e-4)
    assert nm.sentence_gleu(hyp2, [ref1]).score == pytest.approx(0.1206, abs=1e-4)


def test_corpus_is_not_the_mean_of_sentences_and_segments_are_sentence_gleu():
    r = nm.gleu(HF_PREDS, HF_REFS, segments=True)
    assert r.score == r.matches / r.total
    assert r.segments == tuple(nm.sentence_gleu(p, refs).score for p, refs in zip(HF_PREDS, HF_REFS, strict=True))
    assert r.signature.startswith("gleu|min:1|max:4|tok:whitespace|preset:nltk|")


def test_empty_references_and_predictions():
    assert nm.gleu([""], [""]).score == 0.0  # NLTK: no n-gram anywhere, score 0
    assert nm.gleu(["a"], [["", "a"]]).score == 1.0  # an empty reference is skipped


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"min_len": 0}, "min_len must be a positive integer"),
        ({"max_len": 2.5}, "max_len must be a positive integer"),
        ({"min_len": 3, "max_len": 2}, "min_len (3) is larger than max_len (2)"),
        ({"tokenizer": "nope"}, "nope"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises((InvalidInputError, ValueError), match=message.replace("(", r"\(").replace(")", r"\)")):
        nm.gleu(["a"], ["a"], **options)


def test_bad_input_names_the_index():
    with pytest.raises(InvalidInputError, match="1"):
        nm.gleu(["a", None], ["a", "b"])
    with pytest.raises(InvalidInputError):
        nm.sentence_gleu(["a"], ["a"])
