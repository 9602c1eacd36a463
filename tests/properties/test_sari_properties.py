"""Hypothesis properties of SARI: statistics add (a segment's are its own, whatever the batch), batch splits and
merge order change nothing, scores stay in [0, 100], pairs are never mispaired, and the cache of the sources and
references changes no number."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.metrics import sari as sari_module
from nlgmetrics.metrics.sari import SARI

words = st.sampled_from(["the", "cat", "sat", "on", "mat", "a", ".", ",", "東京", "ＡＢ", "Ünï", "3.5", "", "!?"])
sentence = st.lists(words, max_size=10).map(" ".join)
segment = st.tuples(sentence, sentence, st.lists(sentence, min_size=1, max_size=3))
corpus = st.lists(segment, min_size=1, max_size=8)
CONFIGS = [{}, {"tokenizer": "intl", "lowercase": False}, {"tokenizer": "none"}, {"tokenizer": "char"}]


def _split(segments):
    srcs, preds, refs = (list(x) for x in zip(*segments, strict=True))
    return preds, refs, srcs


def _close(a, b):
    for name in a.field_names():
        x, y = getattr(a, name), getattr(b, name)
        assert math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12), name


@pytest.mark.parametrize("options", CONFIGS)
@settings(max_examples=40)
@given(data=st.data())
def test_statistics_add_and_segments_are_their_own(options, data):
    segments = data.draw(corpus)
    cut = data.draw(st.integers(0, len(segments)))
    cfg = SARI.make_config(**options)
    preds, refs, srcs = _split(segments)
    whole = SARI.batch_stats(preds, refs, cfg, sources=srcs)
    a = SARI.batch_stats(preds[:cut], refs[:cut], cfg, sources=srcs[:cut], allow_empty=True)
    b = SARI.batch_stats(preds[cut:], refs[cut:], cfg, sources=srcs[cut:], allow_empty=True)
    _close(a.total() + b.total(), whole.total())
    assert (a.total() + b.total()).n_segments == len(segments)
    # a segment's statistics do not depend on the batch it is scored in: bit for bit
    for i, (s, p, r) in enumerate(segments):
        assert SARI.segment_stats(p, r, cfg, source=s) == whole[i]


@settings(max_examples=40)
@given(corpus, st.data())
def test_batch_split_and_merge_order_change_nothing(segments, data):
    preds, refs, srcs = _split(segments)
    expected = nm.sari(preds, refs, srcs).score
    cuts = sorted(data.draw(st.lists(st.integers(0, len(segments)), max_size=3)))
    bounds = [0, *cuts, len(segments)]
    parts = []
    for lo, hi in itertools.pairwise(bounds):
        m = nm.SARI()
        m.update(preds[lo:hi], refs[lo:hi], sources=srcs[lo:hi])
        parts.append(m)
    order = data.draw(st.permutations(range(len(parts))))
    merged = nm.SARI()
    merged.merge(*(parts[i] for i in order))
    assert math.isclose(merged.compute().score, expected, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=60)
@given(corpus, st.data())
def test_bounds_and_permutation(segments, data):
    preds, refs, srcs = _split(segments)
    r = nm.sari(preds, refs, srcs, segments=True)
    assert 0.0 <= r.score <= 100.0
    for part in (r.keep, r.delete, r.add):
        assert 0.0 <= part <= 100.0
    assert all(0.0 <= s <= 100.0 for s in r.segments)
    perm = data.draw(st.permutations(range(len(segments))))
    q = nm.sari([preds[i] for i in perm], [refs[i] for i in perm], [srcs[i] for i in perm], segments=True)
    assert list(q.segments) == [r.segments[i] for i in perm]


@settings(max_examples=40)
@given(corpus, st.lists(sentence, min_size=8, max_size=8))
def test_the_cache_changes_no_number(segments, others):
    preds, refs, srcs = _split(segments)
    other = others[: len(preds)]
    sari_module._CACHE.clear()
    first = nm.sari(preds, refs, srcs, segments=True)
    cached = nm.sari(other, refs, srcs, segments=True)  # the sources and references from the cache
    sari_module._CACHE.clear()
    cold = nm.sari(other, refs, srcs, segments=True)
    assert cached.segments == cold.segments
    assert cached.score == cold.score
    assert nm.sari(preds, refs, srcs, segments=True).segments == first.segments
