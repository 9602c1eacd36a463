"""METEOR 1.5's statistics add: batches, merge order and permutations change nothing; scores stay in [0, 1].

The statistics come from a stand-in for the jar (``tests/fake_meteor.py``: exact matches, Meteor's layout), so
these run without Java; what is checked is everything after the jar: parsing, the chunk rule, the sums and the
formula. The real jar is compared in tests/parity/test_meteor15_parity.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.metrics.meteor import jar as meteor_jar
from tests import fake_meteor

WORD = st.sampled_from(["a", "the", "of", "man", "dog", "horse", "riding", "on", "beach", "two", "日本", "ß", "!"])
CAPTION = st.lists(WORD, min_size=0, max_size=8).map(" ".join)
IMAGES = st.lists(st.tuples(CAPTION, st.lists(CAPTION, min_size=1, max_size=3)), min_size=1, max_size=12)
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    fake_meteor.install(monkeypatch, tmp_path)
    yield
    meteor_jar.close()


@SETTINGS
@given(IMAGES, st.integers(1, 11), st.randoms(use_true_random=False))
def test_batches_merge_and_permutation(fake: Any, images: list[Any], cut: int, rnd: Any) -> None:
    preds, refs = [p for p, _ in images], [list(r) for _, r in images]
    one = nm.meteor15(preds, refs, segments=True)
    assert 0.0 <= one.score <= 1.0
    assert all(0.0 <= s <= 1.0 for s in one.segments)
    a, b = nm.METEOR15(), nm.METEOR15()
    a.update(preds[:cut], refs[:cut])
    b.update(preds[cut:], refs[cut:])
    assert b.merge(a).compute().score == one.score
    batch = nm.METEOR15.family.batch_stats(preds, refs, nm.METEOR15.family.make_config())
    assert batch.total() == sum((batch[i] for i in range(len(preds))), nm.METEOR15.family.zero(None))
    order = list(range(len(preds)))
    rnd.shuffle(order)
    shuffled = nm.meteor15([preds[i] for i in order], [refs[i] for i in order], segments=True)
    assert shuffled.score == one.score
    assert np.array_equal(np.asarray(shuffled.segments), np.asarray(one.segments)[order])
