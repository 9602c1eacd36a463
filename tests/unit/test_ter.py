"""TER: options, edits and reference lengths, the shift search on small cases, and clear errors."""

from __future__ import annotations

import pytest

import nlgmetrics as nm
from nlgmetrics.algorithms.ter import beam_edit_distance, ter_edits, ter_search
from nlgmetrics.errors import InvalidInputError, UnknownOptionError
from nlgmetrics.metrics.ter import TER


def test_shifts_count_one_edit_per_block():
    assert ter_edits(["a", "b", "c", "d"], ["c", "d", "a", "b"]) == 1
    assert ter_search(["a", "b", "c", "d"], ["c", "d", "a", "b"]).shifts == 1
    assert ter_edits(["a", "b", "c"], ["a", "b", "c"]) == 0
    assert ter_edits([], ["x", "y"]) == 2
    assert ter_edits(["x"], []) == 1
    assert beam_edit_distance(["a", "b", "c"], ["a", "x", "c"]) == 1


def test_corpus_ter_and_its_fields():
    r = nm.ter(["a b c d e", "x"], [["c d a b e"], ["y", "x"]])
    assert r.num_edits == 1
    assert r.ref_length == 6.0
    assert r.score == pytest.approx(100 / 6)
    assert r.sacrebleu_signature == "nrefs:var|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"
    assert nm.ter([""], [""]).score == 0.0
    assert nm.ter(["a"], [""]).score == 100.0


def test_options():
    assert nm.ter(["The Cat"], ["the cat"]).score == 0.0
    assert nm.ter(["The Cat"], ["the cat"], case_sensitive=True).score == 100.0
    assert nm.ter(["cat, dog"], ["cat dog"], no_punct=True).score == 0.0
    assert nm.ter(["cat,dog"], ["cat , dog"], normalized=True).score == 0.0
    assert nm.ter(["日本語"], ["日本 語"], normalized=True, asian_support=True).score == 0.0


def test_segments_and_sentence_ter():
    r = nm.ter(["a b", "c d"], ["a b", "d c"], segments=True)
    assert r.segments == (0.0, 50.0)
    assert nm.sentence_ter("c d", ["d c", "x"]).score == pytest.approx(100 / 1.5)  # the average reference length
    batch = TER.batch_stats(["a b", "c d"], ["a b", "d c"], TER.make_config())
    assert batch.total() == batch[0] + batch[1]


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"normalized": "yes"}, InvalidInputError, "normalized"),
        ({"workers": 0}, InvalidInputError, "workers"),
        ({"preset": "tercom"}, UnknownOptionError, "'sacrebleu'"),
        ({"shift_size": 3}, UnknownOptionError, "unknown option"),
    ],
)
def test_bad_options(options, error, message):
    with pytest.raises(error, match=message):
        nm.ter(["a"], ["a"], **options)


def test_workers_do_not_enter_the_signature():
    assert nm.ter(["a"], ["a"], workers=2).signature == nm.ter(["a"], ["a"]).signature
