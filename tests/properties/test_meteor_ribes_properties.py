"""Hypothesis properties of METEOR and RIBES: statistics add, batch splits and merge order change nothing, scores
stay in bounds, and permuting the pairs permutes the per-pair scores."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.metrics.meteor import METEOR
from nlgmetrics.metrics.ribes import RIBES

WORDS = ["the", "cat", "cats", "sat", "hear", "listen", "a", "b", "猫", "の", "ＡＢＣ", "。", "É"]
text = st.lists(st.sampled_from(WORDS), max_size=10).map(" ".join)
refs = st.one_of(text.filter(str.strip), st.lists(text.filter(str.strip), min_size=1, max_size=3))
corpus = st.lists(st.tuples(text, refs), min_size=1, max_size=10)
FAMILIES = [(METEOR, None), (RIBES, None), (RIBES, "nltk")]


@pytest.mark.parametrize(("family", "preset"), FAMILIES)
@settings(max_examples=60)
@given(pairs=corpus, data=st.data())
def test_statistics_add_and_batches_do_not_matter(family, preset, pairs, data):
    cfg = family.make_config(preset)
    preds, references = [p for p, _ in pairs], [r for _, r in pairs]
    cut = data.draw(st.integers(0, len(pairs)))
    whole = family.batch_stats(preds, references, cfg)
    left = family.batch_stats(preds[:cut], references[:cut], cfg, allow_empty=True)
    right = family.batch_stats(preds[cut:], references[cut:], cfg, allow_empty=True)
    a, b = whole.total(), left.total() + right.total()
    for name in a.field_names():
        assert math.isclose(getattr(a, name), getattr(b, name), rel_tol=1e-12, abs_tol=1e-12), name
    assert family.finalize(a, cfg).score == pytest.approx(family.finalize(b, cfg).score, abs=1e-12)
    scores = family.segment_scores(whole, cfg)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert 0.0 <= family.finalize(a, cfg).score <= 1.0


@pytest.mark.parametrize(("family", "preset"), FAMILIES)
@settings(max_examples=60)
@given(pairs=corpus, data=st.data())
def test_permuting_pairs_permutes_scores(family, preset, pairs, data):
    cfg = family.make_config(preset)
    order = data.draw(st.permutations(range(len(pairs))))
    scores = family.segment_scores(family.batch_stats([p for p, _ in pairs], [r for _, r in pairs], cfg), cfg)
    shuffled = [pairs[k] for k in order]
    permuted = family.segment_scores(family.batch_stats([p for p, _ in shuffled], [r for _, r in shuffled], cfg), cfg)
    assert permuted == tuple(scores[k] for k in order)
