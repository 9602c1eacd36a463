"""Properties of GLEU, NIST, EED, CharacTER and MER/WIL/WIP: statistics add, batch splits and merge order change
nothing (NIST's carried n-gram table included: batches with different vocabularies, JSON and vector round trips),
scores stay in bounds, permuting the pairs permutes the per-pair scores."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
import nlgmetrics.stateful
from nlgmetrics.algorithms.ngram_table import NgramTable
from nlgmetrics.metrics.catalog import get_family

words = st.text(alphabet="ab c日本ＡＢ。.!0 ", max_size=16)
items = st.lists(
    st.tuples(words, st.lists(words.filter(lambda t: bool(t.split())), min_size=1, max_size=2)), min_size=2, max_size=8
)
FAMILIES = {
    "gleu": ({}, "GLEU"),
    "nist": ({}, "NIST"),
    "nist-mteval": ({"preset": "mteval-13a"}, "NIST"),
    "eed": ({}, "ExtendedEditDistance"),
    "character": ({}, "CharacTER"),
    "mer": ({}, "MatchErrorRate"),
    "wip": ({}, "WordInfoPreserved"),
}


def _family(key: str):
    return get_family(key.split("-")[0])


def _refs(key: str, refs: list[list[str]]) -> list:
    return [r[0] for r in refs] if _family(key).single_reference else refs


def _close(a, b) -> bool:
    return bool(np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=1e-12))


@settings(max_examples=60)
@given(items, st.integers(1, 7), st.sampled_from(sorted(FAMILIES)))
def test_batch_split_and_merge_order_change_nothing(items, cut, key):
    options, cls_name = FAMILIES[key]
    family = _family(key)
    preds, refs = [p for p, _ in items], _refs(key, [r for _, r in items])
    cut = min(cut, len(preds) - 1)
    expected = family.compute(preds, refs, family.make_config(**options), segments=True)
    cls = getattr(nlgmetrics.stateful, cls_name)
    first, second = cls(keep_segments=True, **options), cls(keep_segments=True, **options)
    first.update(preds[:cut], refs[:cut])
    second.update(preds[cut:], refs[cut:])
    merged = first.merge(second).compute()
    assert _close(merged.score, expected.score)
    assert _close(merged.segments, expected.segments)
    # the other order scores the same corpus, segments reordered
    a, b = cls(**options), cls(**options)
    a.update(preds[cut:], refs[cut:])
    b.update(preds[:cut], refs[:cut])
    assert _close(a.merge(b).compute().score, expected.score)
    # a JSON round trip of the state keeps it
    c = cls(keep_segments=True, **options)
    c.load_state_dict(json.loads(json.dumps(first.state_dict())))
    assert _close(c.compute().score, first.compute().score)
    assert family.bounds[0] <= expected.score
    assert family.bounds[1] is None or expected.score <= family.bounds[1]


@settings(max_examples=60)
@given(items, st.randoms(use_true_random=False), st.sampled_from(sorted(FAMILIES)))
def test_permuting_the_pairs_permutes_the_scores(items, rnd, key):
    options, _ = FAMILIES[key]
    preds, refs = [p for p, _ in items], _refs(key, [r for _, r in items])
    perm = list(range(len(preds)))
    rnd.shuffle(perm)
    fn = {"gleu": nm.gleu, "nist": nm.nist, "eed": nm.eed, "character": nm.character, "mer": nm.mer, "wip": nm.wip}
    f = fn[key.split("-")[0]]
    base = f(preds, refs, segments=True, **options)
    shuffled = f([preds[i] for i in perm], [refs[i] for i in perm], segments=True, **options)
    assert _close(shuffled.segments, [base.segments[i] for i in perm])
    assert _close(shuffled.score, base.score)


@settings(max_examples=60)
@given(items, items)
def test_nist_tables_of_different_vocabularies_merge_exactly(a, b):
    """Two corpora scored apart (each with its own token ids) and merged score as the two scored together."""
    for options in ({}, {"preset": "mteval-13a"}):
        metric = nlgmetrics.stateful.NIST(**options)
        other = nlgmetrics.stateful.NIST(**options)
        metric.update([p for p, _ in a], [r for _, r in a])
        other.update([p for p, _ in b], [r for _, r in b])
        together = nm.nist([p for p, _ in a + b], [r for _, r in a + b], **options)
        assert _close(metric.merge(other).compute().score, together.score)


@settings(max_examples=40)
@given(items)
def test_nist_table_round_trips(items):
    batch = get_family("nist").batch_stats(
        [p for p, _ in items], [r for _, r in items], get_family("nist").make_config()
    )
    tables = batch.column("table").values
    vector = np.concatenate([t.to_vector() for t in tables])
    assert NgramTable.from_vectors(vector) == tables
    assert NgramTable.from_bytes(b"".join(t.to_bytes() for t in tables)) == tables
    assert [NgramTable.from_json(json.loads(json.dumps(t.to_json()))) for t in tables] == tables
    total = NgramTable.sum(tables)
    again = NgramTable.sum(list(reversed(tables)))
    assert sorted(map(tuple, total.ref_keys.tolist())) == sorted(map(tuple, again.ref_keys.tolist()))
    assert total.ref_counts.sum() == again.ref_counts.sum()
