"""Hypothesis properties of the BLEU, chrF and TER families.

Statistics add (the corpus statistics are the sum of the segments'); batch splits and merge order change
nothing; per-segment scores follow their pairs when the pairs are permuted; scores stay in bounds.

NLTK's smoothing methods 5-7 read the corpus's *last* sentence: for them the statistics carry that sentence in
fields that ``+`` keeps from its right operand, so splitting a corpus and adding the parts *in order* changes
nothing, but the order of a merge does (as it changes which sentence is last); they are tested for that.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.algorithms.fastpath import forced
from nlgmetrics.metrics.bleu import BLEU
from nlgmetrics.metrics.bleu.stats import _TAIL_FIELDS
from nlgmetrics.metrics.chrf import CHRF
from nlgmetrics.metrics.gleu import GLEU
from nlgmetrics.metrics.ter import TER
from nlgmetrics.stateful import Metric
from nlgmetrics.stats import Stats

word = st.sampled_from(["a", "b", "c", "the", "cat", "日本", "x.", ","])
text = st.lists(word, max_size=8).map(" ".join)
refs_multi = st.lists(text, min_size=1, max_size=3)
corpus = st.lists(st.tuples(text, st.one_of(text, refs_multi)), min_size=1, max_size=10)

FAMILIES = [
    (BLEU, {}),
    (BLEU, {"preset": "sacrebleu", "smoothing": "floor", "effective_order": True, "tokenizer": "zh"}),
    (BLEU, {"preset": "nltk"}),
    (BLEU, {"preset": "nltk", "smoothing": "method2", "weights": (0.5, 0.3, 0.2)}),
    (BLEU, {"preset": "nltk-3.2"}),
    (BLEU, {"preset": "moses", "lowercase": True}),
    (BLEU, {"tokenizer": "char", "max_order": 6}),
    (CHRF, {}),
    (CHRF, {"preset": "chrf++", "eps_smoothing": True}),
    (TER, {}),
    (TER, {"normalized": True, "asian_support": True}),
    (BLEU, {"preset": "nmt", "smoothing": "add-one"}),
    (BLEU, {"preset": "torchmetrics", "smoothing": "add-k"}),
    (CHRF, {"preset": "torchmetrics"}),
    (TER, {"preset": "torchmetrics"}),
]
ORDERED = [(BLEU, {"preset": "nltk", "smoothing": m}) for m in ("method5", "method7")]


def _config(family, options):
    options = dict(options)
    return family.make_config(options.pop("preset", None), **options)


def assert_stats_close(a: Stats, b: Stats) -> None:
    assert type(a) is type(b)
    for name in a.field_names():
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, float) or isinstance(y, float):
            assert math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12), (name, x, y)
        else:
            assert x == y, (name, x, y)


@pytest.mark.parametrize(("family", "options"), FAMILIES + ORDERED)
@settings(max_examples=60)
@given(data=st.data())
def test_statistics_add_in_order(family, options, data):
    pairs = data.draw(corpus)
    cut = data.draw(st.integers(0, len(pairs)))
    cfg = _config(family, options)
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    whole = family.batch_stats(preds, refs, cfg).total()
    a = family.batch_stats(preds[:cut], refs[:cut], cfg, allow_empty=True).total()
    b = family.batch_stats(preds[cut:], refs[cut:], cfg, allow_empty=True).total()
    assert_stats_close(a + b, whole)
    assert_stats_close(sum(family.batch_stats(preds, refs, cfg)), whole)
    assert_stats_close(family.zero(cfg) + whole, whole)
    assert_stats_close(whole + family.zero(cfg), whole)


@pytest.mark.parametrize(("family", "options"), FAMILIES)
@settings(max_examples=40)
@given(data=st.data())
def test_batch_split_and_merge_order_change_nothing(family, options, data):
    pairs = data.draw(corpus)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(pairs)), max_size=3)))
    bounds = [0, *cuts, len(pairs)]
    cls = type("M", (Metric,), {"family": family})
    expected = cls(**options)
    expected.update([p for p, _ in pairs], [r for _, r in pairs])
    parts = []
    for lo, hi in itertools.pairwise(bounds):
        m = cls(**options)
        m.update([p for p, _ in pairs[lo:hi]], [r for _, r in pairs[lo:hi]])
        parts.append(m)
    order = data.draw(st.permutations(range(len(parts))))
    merged = cls(**options)
    merged.merge(*[parts[i] for i in order])
    tails = {f: getattr(expected.stats, f) for f in _TAIL_FIELDS if hasattr(expected.stats, f)}
    assert_stats_close(dataclasses.replace(merged.stats, **tails), expected.stats)  # tails: see module docstring
    got, want = merged.compute().score, expected.compute().score
    assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize(("family", "options"), ORDERED)
@settings(max_examples=40)
@given(data=st.data())
def test_last_sentence_smoothing_follows_the_order_of_updates(family, options, data):
    pairs = data.draw(corpus)
    cut = data.draw(st.integers(0, len(pairs)))
    cls = type("M", (Metric,), {"family": family})
    first, second = cls(**options), cls(**options)
    first.update([p for p, _ in pairs[:cut]], [r for _, r in pairs[:cut]])
    second.update([p for p, _ in pairs[cut:]], [r for _, r in pairs[cut:]])
    cfg = _config(family, options)
    try:
        expected = family.compute([p for p, _ in pairs], [r for _, r in pairs], cfg).score
    except nm.InvalidInputError:
        return
    assert first.merge(second).compute().score == expected


@pytest.mark.parametrize(("family", "options"), FAMILIES)
@settings(max_examples=40)
@given(data=st.data())
def test_permuting_pairs_permutes_segment_scores(family, options, data):
    pairs = data.draw(corpus)
    perm = data.draw(st.permutations(range(len(pairs))))
    cfg = _config(family, options)
    scores = family.compute([p for p, _ in pairs], [r for _, r in pairs], cfg, segments=True).segments
    shuffled = [pairs[i] for i in perm]
    permuted = family.compute([p for p, _ in shuffled], [r for _, r in shuffled], cfg, segments=True).segments
    assert permuted == tuple(scores[i] for i in perm)


@settings(max_examples=80)
@given(corpus)
def test_scores_stay_in_bounds(pairs):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    for preset in ("sacrebleu", "nltk", "nltk-3.2", "moses"):
        r = nm.bleu(preds, refs, preset=preset, segments=True)
        assert 0.0 <= r.score <= r.scale * (1 + 1e-12)
        assert all(0.0 <= s <= r.scale * (1 + 1e-12) for s in r.segments)
    c = nm.chrf(preds, refs, segments=True)
    assert 0.0 <= c.score <= 100.0
    assert all(0.0 <= s <= 100.0 for s in c.segments)
    t = nm.ter(preds, refs, segments=True)
    assert t.score >= 0.0
    assert all(s >= 0.0 for s in t.segments)


@settings(max_examples=60)
@given(
    st.lists(
        st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=4, max_size=9).map(" ".join),
        min_size=1,
        max_size=6,
    )
)
def test_perfect_predictions(texts):
    assert nm.bleu(texts, texts).score == pytest.approx(100.0, rel=1e-12)
    assert nm.bleu(texts, texts, preset="nltk").score == pytest.approx(1.0, rel=1e-12)
    assert nm.chrf(texts, texts).score == pytest.approx(100.0, rel=1e-12)
    assert nm.ter(texts, texts).score == 0.0


@settings(max_examples=40)
@given(corpus)
def test_reason_is_set_exactly_for_zero_or_tiny_scores(pairs):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    for preset in ("sacrebleu", "nltk", "moses"):
        r = nm.bleu(preds, refs, preset=preset)
        tiny = r.score == 0 or r.score < 1e-4 * r.scale
        assert (r.reason is not None) == tiny, (r.score, r.reason)


def test_tail_fields_are_documented_as_non_additive():
    cfg = _config(BLEU, {"preset": "nltk", "smoothing": "method5"})
    a = BLEU.segment_stats("a b c", "a b c", cfg)
    b = BLEU.segment_stats("x y", "x y", cfg)
    assert (a + b).tail_hyp_len == 2
    assert (b + a).tail_hyp_len == 3
    counts = dataclasses.replace(a + b, **{f: getattr(b + a, f) for f in _TAIL_FIELDS})
    assert counts == b + a  # everything else commutes


# ---------------------------------------------------------------------------------------------- small batches
big_corpus = st.lists(st.tuples(text, st.one_of(text, refs_multi)), min_size=33, max_size=40)


SMALL_PATHS = [
    *[(family, options) for family, options in FAMILIES if family is not TER],  # TER has no small path
    *ORDERED,
    (GLEU, {}),
    (GLEU, {"preset": "hf-google-bleu", "min_len": 2, "max_len": 3}),
]


@pytest.mark.parametrize(("family", "options"), SMALL_PATHS)
@settings(max_examples=6, deadline=None)
@given(pairs=big_corpus)
def test_small_batches_give_the_corpus_paths_statistics(family, options, pairs):
    """A batch of more than ``SMALL`` segments is indexed with numpy (forced here); a smaller one is counted
    segment by segment by the compiled kernel. Both give every segment the same statistics."""
    cfg = _config(family, options)
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    # the numpy path whatever the size, and not the compiled corpus paths either
    with (
        forced(rows=False, kernels={"bleu", "chrf", "gleu"}),
        forced(native=False, kernels={"bleu.13a", "chrf.corpus"}),
    ):
        corpus_path = family.batch_stats(preds, refs, cfg)
    for i, (p, r) in enumerate(pairs):
        assert family.batch_stats([p], [r], cfg)[0] == corpus_path[i]
    assert family.batch_stats(preds[:5], refs[:5], cfg).total() == sum(
        (corpus_path[i] for i in range(1, 5)), corpus_path[0]
    )
