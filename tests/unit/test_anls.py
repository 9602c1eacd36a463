"""ANLS: thresholds, normalisation, presets and diagnostics."""

from __future__ import annotations

import pytest

import nlgmetrics as nm


def test_threshold_keeps_exactly_tau_in_docvqa_and_drops_it_in_anls_pkg():
    # "1963" vs "1979": distance 2 over length 4 -> similarity exactly 0.5
    assert nm.anls(["1963"], [["1979"]], preset="docvqa").score == 0.5
    assert nm.anls(["1963"], [["1979"]], preset="anls-pkg").score == 0.0


def test_below_threshold_is_zero_and_counted():
    r = nm.anls(["abcd"], [["abxyz"]])
    assert r.score == 0.0
    assert r.cut == 1


def test_normalisation_lower_strip_collapse():
    r = nm.anls(["  Hello   World "], [["hello world"]], preset="anls-pkg")
    assert r.score == 1.0
    assert r.exact == 1


def test_docvqa_divides_by_raw_lengths():
    # normalised strings differ by one character; the raw prediction is 9 characters long
    pred, gt = "  abcd   ", "abce"
    assert nm.anls([pred], [[gt]], preset="anls-pkg").score == pytest.approx(1 - 1 / 4)
    assert nm.anls([pred], [[gt]], preset="docvqa").score == pytest.approx(1 - 1 / 9)


def test_uppercase_length_quirk_is_reproduced():
    # both reference scripts measure len(s.upper()); "ß".upper() == "SS"
    assert nm.anls(["straße"], [["strasse"]], preset="anls-pkg").score == pytest.approx(1 - 2 / 7)


def test_best_of_several_answers_and_per_question_scores():
    r = nm.anls(["Denver Broncos", "12/15/89"], [["denver broncos", "Denver R. Broncos"], ["12/15/88"]], segments=True)
    assert r.segments == (1.0, 0.875)
    assert r.score == 0.9375
    assert r.count == 2


def test_custom_threshold_semantics_differ_between_presets():
    # similarity 0.75: docvqa keeps similarity >= 0.8? no; anls-pkg keeps distance 0.25 < 0.8: yes
    assert nm.anls(["abcd"], [["abce"]], preset="docvqa", threshold=0.8).score == 0.0
    assert nm.anls(["abcd"], [["abce"]], preset="anls-pkg", threshold=0.8).score == 0.75


def test_signature_names_the_preset():
    sig = nm.anls(["a"], ["a"], preset="anls-pkg").signature
    assert "preset:anls-pkg" in sig
    assert "len:normalized" in sig
    assert "cut:distance" in sig
