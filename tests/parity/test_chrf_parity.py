"""chrF / chrF++ parity with sacrebleu 2.6 on generated data (every option, one to three references).

Each test reports mismatches beyond 1e-12 and the largest difference; the numbers are bit-identical.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm

sacrebleu = pytest.importorskip("sacrebleu", reason="sacrebleu is a test dependency for chrF parity")
from sacrebleu.metrics import CHRF as SacreCHRF  # noqa: E402

PIECES = [*list("abcAB .,!?()'-\t"), "the", "cat", "日本", "語", "é", "\u3000", "(hi)", "x."]
text = st.lists(st.sampled_from(PIECES), max_size=16).map("".join)
corpus = st.lists(st.tuples(text, st.lists(text, min_size=1, max_size=3)), min_size=1, max_size=6)


def transpose(refs: list[list[str]]) -> list[list[str | None]]:
    width = max(len(r) for r in refs)
    return [[r[k] if k < len(r) else None for r in refs] for k in range(width)]


def report(ours: float, theirs: float) -> tuple[int, float]:
    d = abs(ours - theirs)
    return int(d > 1e-12), d


@settings(max_examples=200)
@given(
    corpus,
    st.integers(0, 6),
    st.integers(0, 3),
    st.sampled_from([1, 2, 3]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_corpus_chrf(pairs, char_order, word_order, beta, lowercase, whitespace, eps):
    if char_order + word_order == 0:
        char_order = 1
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    options = {
        "char_order": char_order,
        "word_order": word_order,
        "beta": beta,
        "lowercase": lowercase,
        "whitespace": whitespace,
        "eps_smoothing": eps,
    }
    metric = SacreCHRF(**options)
    theirs = metric.corpus_score(hyps, transpose(refs))
    ours = nm.chrf(hyps, refs, **options)
    assert report(ours.score, theirs.score) == (0, 0.0)
    assert ours.name == theirs.name
    assert ours.sacrebleu_signature == metric.get_signature().format()


@settings(max_examples=200)
@given(text, st.lists(text, min_size=1, max_size=3), st.sampled_from([0, 2]), st.booleans())
def test_sentence_chrf(hyp, refs, word_order, eps):
    theirs = sacrebleu.sentence_chrf(hyp, refs, word_order=word_order, eps_smoothing=eps)
    ours = nm.sentence_chrf(hyp, refs, word_order=word_order, eps_smoothing=eps)
    assert report(ours.score, theirs.score) == (0, 0.0)


@settings(max_examples=100)
@given(corpus)
def test_segment_scores_are_sacrebleu_sentence_scores(pairs):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    segments = nm.chrf(hyps, refs, segments=True).segments
    theirs = [SacreCHRF().sentence_score(h, r).score for h, r in pairs]
    assert segments == tuple(theirs)


def test_chrf_plus_plus_preset_and_punctuation_split():
    from nlgmetrics.metrics.chrf import split_punctuation

    metric = SacreCHRF(word_order=2)
    for sentence in ["Hello, (world)!", "a.b.c. '(hi)' x", "!! ?", ""]:
        assert split_punctuation(sentence) == metric._remove_punctuation(sentence)
    hyps, refs = ["Hello, (world)!"], [["Hello world (again).", "hello, world!"]]
    assert nm.chrf(hyps, refs, preset="chrf++").score == metric.corpus_score(hyps, transpose(refs)).score
