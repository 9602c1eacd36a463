"""Behaviour of edit_distance, nls, cer and wer on hand-checked cases."""

from __future__ import annotations

import pytest

import nlgmetrics as nm


def test_seed_example_functional():
    assert nm.nls(["rain", "lnaguaeg"], ["shine", "language"]).score == pytest.approx(0.45)
    assert nm.nls(["rain", "lnaguaeg"], ["shine", "language"], reduction=None).score == pytest.approx((0.4, 0.5))
    assert nm.nls(["rain", "lnaguaeg"], ["shine", "language"], reduction="sum").score == pytest.approx(0.9)


def test_seed_example_stateful():
    m = nm.NormalizedLevenshteinSimilarity(reduction=None)
    m.update(["rain", "lnaguaeg"], ["shine", "language"])
    assert m.compute().score == pytest.approx((0.4, 0.5))


def test_both_empty_is_one():
    assert nm.nls([""], [""]).score == 1.0
    assert nm.nls([""], ["abc"]).score == 0.0


def test_stateful_without_samples_is_zero():
    assert nm.NormalizedLevenshteinSimilarity().compute().score == 0.0
    assert nm.NormalizedLevenshteinSimilarity(reduction="sum").compute().score == 0.0
    assert nm.NormalizedLevenshteinSimilarity(reduction=None).compute().score == ()


def test_edit_distance_is_exact_where_torchmetrics_overcounts():
    # torchmetrics' beam search returns 78 here
    assert nm.edit_distance(["hello world" * 4], ["x" * 60 + "hello world" * 4]).score == 60


def test_substitution_cost():
    assert nm.edit_distance(["abc"], ["abd"], substitution_cost=2).score == 2
    assert nm.edit_distance(["abc"], ["abd"], substitution_cost=0).score == 0
    assert nm.edit_distance(["ab"], ["cd"], substitution_cost=5).score == 4  # delete + insert is cheaper
    # NLS keeps the seed formula 1 - d / max(len): with costly substitutions it can go below 0
    assert nm.nls(["ab"], ["cd"], substitution_cost=2).score == pytest.approx(-1.0)


def test_multiple_references_take_the_best():
    assert nm.nls(["abc"], [["xyz", "abd", "abc"]]).score == 1.0
    assert nm.edit_distance(["abc"], [["xyz", "abd"]]).score == 1


def test_wer_counts_like_jiwer():
    r = nm.wer(["hello duck", "i like python"], ["hello world", "i like monty python"])
    assert (r.hits, r.substitutions, r.deletions, r.insertions) == (4, 1, 1, 0)
    assert r.score == pytest.approx(2 / 6)
    assert r.reference_length == 6


def test_wer_with_empty_references_counts_insertions_like_jiwer():
    assert nm.wer(["a b"], [""]).score == 2.0
    assert nm.wer([""], [""]).score == 0.0


def test_cer_includes_inner_spaces_and_strips_outer():
    r = nm.cer(["ab  c "], ["ab c"])
    assert r.reference_length == 4
    assert r.errors == 1


def test_per_segment_scores_come_from_the_same_formula():
    r = nm.wer(["a b", "c"], ["a x", "c"], segments=True)
    assert r.segments == (0.5, 0.0)
    assert r.score == pytest.approx(1 / 3)


def test_signature_records_settings():
    sig = nm.nls(["a"], ["a"], substitution_cost=2, reduction="sum").signature
    assert sig.startswith("nls|sub:2|red:sum|nlgmetrics:")
    assert "tok:jiwer-words" in nm.wer(["a"], ["a"]).signature


def test_result_is_float_like():
    assert float(nm.nls(["abc"], ["abc"])) == 1.0
    with pytest.raises(TypeError):
        float(nm.nls(["abc"], ["abc"], reduction=None))
