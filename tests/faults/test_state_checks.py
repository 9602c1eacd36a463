"""Issue 23, silent wrong number 7: ``load_state_dict`` and ``merge`` accepted states no data can produce (WER 500,
BLEU 4.5e7, ``count=0`` with statistics). States are now checked against the relations the family declares."""

from __future__ import annotations

import copy
import json

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError

PREDS = ["the cat sat on the mat", "a quick brown fox", "hello there world"]
REFS = ["the cat is on the mat", "the quick brown fox", "hello world"]


def saved(cls, keep_segments=False, **options):
    metric = cls(keep_segments=keep_segments, **options)
    metric.update(PREDS, REFS)
    return metric, json.loads(json.dumps(metric.state_dict()))


def refused(cls, state, match, **options):
    fresh = cls(**options)
    with pytest.raises(InvalidInputError, match=match):
        fresh.load_state_dict(state)
    assert fresh.count == 0  # unchanged


def test_wer_errors_that_no_alignment_gives():
    _, state = saved(nm.WordErrorRate)
    state["stats"]["errors"] = 500
    refused(nm.WordErrorRate, state, "errors is not substitutions")
    _, state = saved(nm.WordErrorRate)
    state["stats"]["reference_length"] = 1
    refused(nm.WordErrorRate, state, "not reference_length")


def test_wer_with_another_substitution_cost():
    metric, state = saved(nm.WordErrorRate, substitution_cost=2)
    again = nm.WordErrorRate(substitution_cost=2)
    again.load_state_dict(state)
    assert again.compute().score == metric.compute().score
    state["stats"]["errors"] = 10**6
    refused(nm.WordErrorRate, state, "not a cost of this alignment", substitution_cost=2)


def test_bleu_matches_above_the_totals():
    _, state = saved(nm.BLEU)
    state["stats"]["matches"] = [10**6] * 4
    refused(nm.BLEU, state, r"matches .* exceeds totals")


def test_no_segment_with_statistics():
    _, state = saved(nm.BLEU)
    state["count"] = 0
    refused(nm.BLEU, state, "no segment was counted, but matches")


def test_count_against_the_counting_field():
    _, state = saved(nm.NormalizedLevenshteinSimilarity)
    state["count"] = 7
    refused(nm.NormalizedLevenshteinSimilarity, state, "count is 3 for 7 segment")


def test_a_sum_of_scores_above_its_bound():
    _, state = saved(nm.NormalizedLevenshteinSimilarity)
    state["stats"]["score_sum"] = 50.0
    refused(nm.NormalizedLevenshteinSimilarity, state, "score_sum 50.0 exceeds 1 per segment")
    _, state = saved(nm.ROUGE)
    state["stats"]["precision"] = [9.0] * len(state["stats"]["precision"])
    refused(nm.ROUGE, state, "precision exceeds 1 per segment")


def test_segments_must_be_possible_and_add_up():
    _, state = saved(nm.BLEU, keep_segments=True)
    bad = copy.deepcopy(state)
    bad["segments"]["matches"][0] = [99, 0, 0, 0]
    with pytest.raises(InvalidInputError, match="holds a segment that is not possible"):
        nm.BLEU(keep_segments=True).load_state_dict(bad)
    bad = copy.deepcopy(state)
    bad["stats"]["hyp_len"] += 5
    bad["stats"]["totals"][0] += 5
    with pytest.raises(InvalidInputError, match=r"segments'\]\['totals'\] adds up to"):
        nm.BLEU(keep_segments=True).load_state_dict(bad)


def test_a_state_of_another_signature():
    _, state = saved(nm.CHRF)
    state["signature"] = state["signature"].replace("nc:6", "nc:5")
    refused(nm.CHRF, state, "saved with the signature")
    # the library version alone does not matter
    _, state = saved(nm.CHRF)
    state["signature"] = state["signature"].rsplit("|nlgmetrics:", 1)[0] + "|nlgmetrics:0.0.1"
    nm.CHRF().load_state_dict(state)


def test_a_state_without_a_count_is_counted_by_its_statistics():
    metric, state = saved(nm.NormalizedLevenshteinSimilarity)
    del state["count"], state["signature"]
    again = nm.NormalizedLevenshteinSimilarity()
    again.load_state_dict(state)
    assert again.count == 3
    assert again.compute().score == metric.compute().score


def test_merge_checks_the_other_state():
    a, b = nm.WordErrorRate(), nm.WordErrorRate()
    a.update(PREDS, REFS)
    b.update(PREDS, REFS)
    stats = b.stats
    object.__setattr__(stats, "errors", 500)  # a state forged in place
    with pytest.raises(InvalidInputError, match="merged WordErrorRate is not a sum of wer statistics"):
        a.merge(b)
    assert a.count == 3


@pytest.mark.filterwarnings("ignore:The ``compute`` method")
def test_torch_adapter_merge_state_and_load_state_dict():
    pytest.importorskip("torch")
    pytest.importorskip("torchmetrics")
    import torch

    import nlgmetrics.torch as nt

    good = nt.WordErrorRate()
    good.update(PREDS, REFS)
    forged = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in good.metric_state.items()}
    forged["errors"] = torch.tensor(500.0, dtype=torch.float64)
    target = nt.WordErrorRate()
    with pytest.raises(InvalidInputError, match="errors is not substitutions"):
        target.merge_state(forged)
    forged["errors"] = torch.tensor(2.5, dtype=torch.float64)
    with pytest.raises(InvalidInputError, match="whole numbers"):
        target.merge_state(forged)
    with pytest.raises(InvalidInputError, match="same class and configuration"):
        target.merge_state(nt.WordErrorRate(substitution_cost=2))
    with pytest.raises(InvalidInputError, match="missing"):
        target.merge_state({"errors": torch.tensor(1.0)})
    target.merge_state(good)
    assert float(target.compute()) == float(good.compute())

    bleu = nt.BLEU()
    bleu.update(PREDS, [[r] for r in REFS])
    bleu.persistent(True)
    state = bleu.state_dict()
    state["matches"] = torch.full((4,), 1e6, dtype=torch.float64)
    fresh = nt.BLEU()
    fresh.persistent(True)
    with pytest.raises(InvalidInputError, match=r"matches .* exceeds totals"):
        fresh.load_state_dict(state)
    assert float(fresh.hyp_len) == 0.0  # left as it was
