"""CharacTER: HF evaluate's documented examples, reductions and bad input."""

from __future__ import annotations

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError

PREDS = ["this week the saudis denied information published in the new york times", "this is in fact an estimate"]
REFS = [
    "saudi arabia denied this week information published in the american new york times",
    "this is actually an estimate",
]


def test_hf_character_examples():
    assert nm.character(PREDS[:1], REFS[:1]).score == 0.36619718309859156
    r = nm.character(PREDS, REFS, reduction="sum", segments=True)
    assert r.score == pytest.approx(0.6254564423578508, abs=1e-15)
    assert r.segments == (0.36619718309859156, 0.25925925925925924)
    assert nm.character(PREDS, REFS, reduction=None).score == r.segments


def test_edge_cases():
    assert nm.character([""], ["a b"]).score == 1.0  # an empty prediction
    assert nm.character(["a b"], ["a b"]).score == 0.0
    assert nm.character(["b a"], ["a b"]).signature.startswith("character|red:mean|preset:cer|")


def test_empty_reference_is_refused_with_its_index():
    with pytest.raises(InvalidInputError, match="reference 1 has no word"):
        nm.character(["a", "b"], ["a", "  "])


def test_bad_reduction():
    with pytest.raises(InvalidInputError, match="reduction"):
        nm.character(["a"], ["a"], reduction="median")
