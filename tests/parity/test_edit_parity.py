"""Parity of the edit-distance family with naive dynamic programs, rapidfuzz, jiwer 4 and torchmetrics.

Each test reports the number of mismatches and the largest absolute difference, and requires zero mismatches.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nlgmetrics as nm
from tests.naive import naive_levenshtein, naive_nls

text = st.text(alphabet="ab cAB日本\t", max_size=15)
pairs = st.lists(st.tuples(text, text), min_size=1, max_size=15)


def mismatch_report(ours, theirs, tol=1e-12):
    d = np.abs(np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float))
    return int((d > tol).sum()), float(d.max()) if d.size else 0.0


@given(pairs, st.integers(0, 3))
def test_edit_distance_matches_naive_dp(pairs, cost):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    ours = nm.edit_distance(preds, refs, substitution_cost=cost, segments=True).segments
    naive = [naive_levenshtein(p, r, cost) for p, r in pairs]
    assert mismatch_report(ours, naive) == (0, 0.0)


@given(pairs, st.integers(0, 3))
def test_nls_matches_naive_formula(pairs, cost):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    ours = nm.nls(preds, refs, substitution_cost=cost, reduction=None).score
    naive = [naive_nls(p, r, cost) for p, r in pairs]
    assert mismatch_report(ours, naive)[0] == 0


@given(pairs)
def test_nls_matches_rapidfuzz_normalized_similarity(pairs):
    from rapidfuzz.distance import Levenshtein

    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    ours = nm.nls(preds, refs, reduction=None).score
    theirs = [Levenshtein.normalized_similarity(p, r) for p, r in pairs]
    assert mismatch_report(ours, theirs)[0] == 0


def _jiwer():
    return pytest.importorskip("jiwer", reason="jiwer is a test dependency for CER/WER parity")


words = st.text(alphabet="ab c\t\n", max_size=20)
word_pairs = st.lists(st.tuples(words, words), min_size=1, max_size=10)


@given(word_pairs)
def test_wer_and_cer_match_jiwer(pairs):
    jiwer = _jiwer()
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    w = jiwer.process_words(refs, preds)
    ours = nm.wer(preds, refs)
    assert (ours.hits, ours.substitutions, ours.deletions, ours.insertions) == (
        w.hits,
        w.substitutions,
        w.deletions,
        w.insertions,
    )
    assert ours.score == pytest.approx(w.wer, abs=1e-12)
    assert ours.mer == pytest.approx(w.mer, abs=1e-12)
    assert ours.wil == pytest.approx(w.wil, abs=1e-12)
    assert ours.wip == pytest.approx(w.wip, abs=1e-12)
    c = jiwer.process_characters(refs, preds)
    ours_c = nm.cer(preds, refs)
    assert (ours_c.hits, ours_c.substitutions, ours_c.deletions, ours_c.insertions) == (
        c.hits,
        c.substitutions,
        c.deletions,
        c.insertions,
    )
    assert ours_c.score == pytest.approx(c.cer, abs=1e-12)


def test_wer_matches_jiwer_on_real_translations(shared_data):
    jiwer = _jiwer()
    ref_file = shared_data / "wmt22" / "references"
    refs = sorted(ref_file.glob("*de-en*"))
    systems = sorted((shared_data / "wmt22" / "system-outputs").glob("*de-en*"))
    if not refs or not systems:
        pytest.skip("no de-en files in the shared WMT22 data")
    references = refs[0].read_text(encoding="utf-8").split("\n")[:-1]
    mismatches, worst = 0, 0.0
    for path in systems[:3]:
        hyps = path.read_text(encoding="utf-8").split("\n")[:-1]
        assert len(hyps) == len(references)
        for fn, theirs in ((nm.wer, jiwer.wer), (nm.cer, jiwer.cer)):
            d = abs(fn(hyps, references).score - theirs(references, hyps))
            mismatches += d > 1e-12
            worst = max(worst, d)
    assert (mismatches, worst) == (0, 0.0)


def _anls_pkg():
    return pytest.importorskip("anls", reason="the PyPI anls package is a test dependency")


answer = st.text(alphabet="ab 12Aß", max_size=8)


@given(st.lists(st.tuples(answer, st.lists(answer, min_size=1, max_size=3)), min_size=1, max_size=10))
def test_anls_pkg_preset_matches_the_anls_package(items):
    anls_pkg = _anls_pkg()
    preds, refs = [p for p, _ in items], [r for _, r in items]
    ours = nm.anls(preds, refs, preset="anls-pkg", segments=True).segments
    theirs = [anls_pkg.anls_score(p, r, 0.5) for p, r in items]
    assert mismatch_report(ours, theirs) == (0, 0.0)


def official_docvqa_question(prediction: str, answers: list[str], threshold: float = 0.5) -> float:
    """The official RRC script's per-question ANLS, restated naively: normalised strings for the distance,
    raw ``upper()`` lengths for the denominator, ``< threshold`` -> 0."""
    values = []
    for gt in answers:
        gt_n = " ".join(gt.strip().lower().split())
        det_n = " ".join(prediction.strip().lower().split())
        length = max(len(gt.upper()), len(prediction.upper()))
        values.append(0.0 if length == 0 else naive_levenshtein(gt_n, det_n) / length)
    result = 1 - min(values)
    return 0.0 if result < threshold else result


@given(st.lists(st.tuples(answer, st.lists(answer, min_size=1, max_size=3)), min_size=1, max_size=10))
def test_docvqa_preset_matches_the_official_script(items):
    preds, refs = [p for p, _ in items], [r for _, r in items]
    ours = nm.anls(preds, refs, preset="docvqa", segments=True).segments
    theirs = [official_docvqa_question(p, r) for p, r in items]
    assert mismatch_report(ours, theirs) == (0, 0.0)


@pytest.mark.parametrize(("model", "expected"), [("blip2-flant5", 0.07040), ("blip2-opt", 0.00893)])
def test_anls_on_real_docvqa_answers(shared_data, model, expected):
    import json

    anls_pkg = _anls_pkg()
    data = json.loads((shared_data / "docvqa" / f"{model}.docvqa-val.json").read_text(encoding="utf-8"))
    preds = [d["answer"] for d in data]
    refs = [d["gt_answers"] for d in data]
    assert len(preds) == 5349
    ours = nm.anls(preds, refs, preset="anls-pkg", segments=True)
    theirs = [anls_pkg.anls_score(p, r, 0.5) for p, r in zip(preds, refs, strict=False)]
    assert mismatch_report(ours.segments, theirs) == (0, 0.0)
    assert ours.score == pytest.approx(sum(theirs) / len(theirs), abs=1e-12)
    assert round(ours.score, 5) == expected
    official = nm.anls(preds, refs, preset="docvqa", segments=True)
    naive = [official_docvqa_question(p, r) for p, r in zip(preds, refs, strict=False)]
    assert mismatch_report(official.segments, naive) == (0, 0.0)


def test_torchmetrics_edit_distance_overcounts_where_ours_is_exact():
    tm = pytest.importorskip("torchmetrics.functional.text", reason="torchmetrics is a test dependency")
    pred, target = "hello world" * 4, "x" * 60 + "hello world" * 4
    assert int(tm.edit_distance([pred], [target])) == 78
    assert nm.edit_distance([pred], [target]).score == naive_levenshtein(pred, target) == 60


@given(pairs)
def test_never_more_than_torchmetrics(pairs):
    tm = pytest.importorskip("torchmetrics.functional.text")
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    theirs = tm.edit_distance(preds, refs, reduction="none").tolist()
    ours = nm.edit_distance(preds, refs, segments=True).segments
    assert all(o <= t for o, t in zip(ours, theirs, strict=False))
