"""CharacTER against the ``cer`` package 1.2.0 as HF evaluate's ``character`` metric calls it (``str.split``, then
``cer.calculate_cer_corpus``), on generated text (repeated words to force shifts, CJK, full-width,
punctuation-only, empty predictions) and on WMT22. Zero mismatches beyond 1e-12; the largest difference is
reported."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nlgmetrics as nm

cer = pytest.importorskip("cer", reason="the cer package (1.2.0) is a test dependency for CharacTER parity")

word = st.sampled_from(["a", "b", "ab", "the", "日本", "ＡＢ", "。", ",", "!?", "c"])
sentence = st.lists(word, max_size=9).map(" ".join)
items = st.lists(st.tuples(sentence, st.lists(word, min_size=1, max_size=9).map(" ".join)), min_size=1, max_size=6)


def report(ours, theirs, tol=1e-12):
    d = np.abs(np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float))
    return int((d > tol).sum()), float(d.max()) if d.size else 0.0


@given(items)
def test_character_matches_cer_package(items):
    preds, refs = [p for p, _ in items], [r for _, r in items]
    ours = nm.character(preds, refs, segments=True)
    theirs = cer.calculate_cer_corpus([p.split() for p in preds], [r.split() for r in refs])
    assert report(ours.segments, theirs["cer_scores"]) == (0, 0.0)
    # statistics.mean rounds the exact mean once, fsum/n twice: within an ulp
    assert report([ours.score], [theirs["mean"]])[0] == 0
    assert nm.character(preds, refs, reduction="sum").score == pytest.approx(sum(theirs["cer_scores"]), abs=1e-12)


def test_character_matches_cer_package_on_wmt22(shared_data):
    root = shared_data / "wmt22"
    n, worst = 0, 0.0
    for pair in ("de-en", "en-ja"):
        refs = next(iter(sorted(root.glob(f"references/*{pair}.ref.A*")))).read_text("utf-8").splitlines()[:400]
        hyps = next(iter(sorted(root.glob(f"system-outputs/*{pair}*")))).read_text("utf-8").splitlines()[:400]
        ours = nm.character(hyps, refs, segments=True)
        scores = [cer.calculate_cer(h.split(), r.split()) for h, r in zip(hyps, refs, strict=True)]
        m, d = report([ours.score, *ours.segments], [statistics.mean(scores), *scores])
        n, worst = n + m, max(worst, d)
    print(f"CharacTER vs cer 1.2.0 on WMT22 (400 de-en + 400 en-ja segments): {n} mismatches, max |diff| {worst:.3g}")
    assert n == 0


@given(st.lists(st.tuples(sentence, st.lists(st.lists(word, min_size=1, max_size=6).map(" ".join), min_size=1,
                                              max_size=3)), min_size=1, max_size=5))  # fmt: skip
def test_several_references_take_the_lowest_as_hf_character(items):
    preds, refs = [p for p, _ in items], [r for _, r in items]
    ours = nm.character(preds, refs, segments=True)
    # HF evaluate's character with a list of references per prediction: the minimum of calculate_cer over them
    theirs = [min(cer.calculate_cer(p.split(), r.split()) for r in rs) for p, rs in items]
    assert report(ours.segments, theirs) == (0, 0.0)
