"""Hypothesis properties of the edit-distance and ANLS families.

Statistics add; batch splits and merge order change nothing; scores stay in bounds; pairs are never mispaired.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.metrics.anls import ANLS
from nlgmetrics.metrics.edit import CER, EDIT_DISTANCE, NLS, WER
from nlgmetrics.stats import Stats

text = st.text(alphabet="abc AB\tßİ日本", max_size=12)
refs_multi = st.lists(text, min_size=1, max_size=3)

FAMILIES = [
    (NLS, {}, False),
    (NLS, {"substitution_cost": 2}, False),
    (EDIT_DISTANCE, {}, False),
    (ANLS, {}, False),
    (ANLS, {"preset": "anls-pkg"}, False),
    (CER, {}, True),
    (WER, {}, True),
]


def corpus(single: bool):
    ref = text if single else st.one_of(text, refs_multi)
    return st.lists(st.tuples(text, ref), min_size=1, max_size=12)


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


@pytest.mark.parametrize(("family", "options", "single"), FAMILIES)
@given(data=st.data())
def test_statistics_add(family, options, single, data):
    pairs = data.draw(corpus(single))
    cut = data.draw(st.integers(0, len(pairs)))
    cfg = _config(family, options)
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    whole = family.batch_stats(preds, refs, cfg).total()
    a = family.batch_stats(preds[:cut], refs[:cut], cfg, allow_empty=True).total()
    b = family.batch_stats(preds[cut:], refs[cut:], cfg, allow_empty=True).total()
    assert_stats_close(a + b, whole)
    assert_stats_close(sum(family.batch_stats(preds, refs, cfg)), whole)  # per-segment stats sum to the total
    assert_stats_close(family.zero(cfg) + whole, whole)


@pytest.mark.parametrize(("family", "options", "single"), FAMILIES)
@given(data=st.data())
def test_batch_split_and_merge_order_change_nothing(family, options, single, data):
    from nlgmetrics.stateful import Metric

    pairs = data.draw(corpus(single))
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
    assert_stats_close(merged.stats, expected.stats)
    got, want = merged.compute().score, expected.compute().score
    assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize(("family", "options", "single"), FAMILIES)
@given(data=st.data())
def test_permuting_pairs_permutes_segment_scores(family, options, single, data):
    pairs = data.draw(corpus(single))
    perm = data.draw(st.permutations(range(len(pairs))))
    cfg = _config(family, options)
    scores = family.compute([p for p, _ in pairs], [r for _, r in pairs], cfg, segments=True).segments
    shuffled = [pairs[i] for i in perm]
    permuted = family.compute([p for p, _ in shuffled], [r for _, r in shuffled], cfg, segments=True).segments
    assert permuted == tuple(scores[i] for i in perm)


@given(corpus(False))
def test_similarities_stay_in_bounds(pairs):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    for r in (nm.nls(preds, refs, segments=True), nm.anls(preds, refs, segments=True)):
        assert 0.0 <= r.score <= 1.0
        assert all(0.0 <= s <= 1.0 for s in r.segments)
    nls2 = nm.nls(preds, refs, substitution_cost=2, segments=True)
    assert all(-1.0 <= s <= 1.0 for s in nls2.segments)
    anls = nm.anls(preds, refs, segments=True)
    assert all(s == 0.0 or s >= 0.5 for s in anls.segments)


@given(corpus(True))
def test_error_rates_are_consistent(pairs):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    r = nm.wer(preds, refs)
    assert r.hits + r.substitutions + r.deletions == r.reference_length
    assert r.hits + r.substitutions + r.insertions == r.prediction_length
    assert r.errors == r.substitutions + r.deletions + r.insertions
    assert 0.0 <= r.wip <= 1.0
    assert math.isclose(r.wil, 1.0 - r.wip)
