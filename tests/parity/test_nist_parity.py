"""NIST against NLTK 3.10 (``corpus_nist``, ``sentence_nist``) on generated text (CJK, full-width, empty,
punctuation-only, one to three references, orders 1-6) and WMT22, and against mteval-v13a.pl's own output recorded
in ``tests/fixtures/nist`` (generated corpora and WMT22). Zero mismatches beyond 1e-12; the largest difference is
reported."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nlgmetrics as nm

nist_score = pytest.importorskip("nltk.translate.nist_score", reason="NLTK is a test dependency")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "nist"

words = st.text(alphabet="ab c日本ＡＢ。、.!? \t0", max_size=24)
items = st.lists(st.tuples(words, st.lists(words, min_size=1, max_size=3)), min_size=1, max_size=8)


def report(ours, theirs, tol=1e-12):
    d = np.abs(np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float))
    return int((d > tol).sum()), float(d.max()) if d.size else 0.0


def nltk_or_none(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except ZeroDivisionError:  # NLTK divides by the n-gram count of an order no hypothesis reaches
        return None


@given(items, st.integers(1, 6))
def test_nist_matches_nltk(items, n):
    preds, refs = [p for p, _ in items], [r for _, r in items]
    toks = [[r.split() for r in rs] for rs in refs]
    ours = nm.nist(preds, refs, max_order=n, segments=True)
    theirs = nltk_or_none(nist_score.corpus_nist, toks, [p.split() for p in preds], n=n)
    if theirs is None:
        assert ours.reason
        assert "no word" in ours.reason or ours.undefined_orders
    else:
        assert ours.score == theirs  # bit for bit: NLTK's left-to-right sums, in its order
    for p, t, seg in zip(preds, toks, ours.segments, strict=True):
        s = nltk_or_none(nist_score.sentence_nist, t, p.split(), n=n)
        if s is not None:
            assert seg == s


def _mteval_cases():
    return json.loads((FIXTURES / "mteval_generated.json").read_text("utf-8"))


def test_mteval_preset_matches_recorded_mteval_output():
    n, worst, count = 0, 0.0, 0
    for case in _mteval_cases():
        ours = nm.nist(case["predictions"], case["references"], preset="mteval-13a", lowercase=case["lowercase"],
                       segments=True)  # fmt: skip
        m, d = report([ours.score, *ours.segments], [case["mteval"]["system"], *case["mteval"]["segments"]])
        n, worst, count = n + m, max(worst, d), count + 1 + len(ours.segments)
    print(f"NIST mteval-13a vs mteval-v13a.pl, generated corpora: {n} mismatches of {count}, max |diff| {worst:.3g}")
    assert n == 0


def test_mteval_preset_matches_recorded_mteval_output_on_wmt22(shared_data):
    path = FIXTURES / "mteval_wmt22.json"
    n, worst, count = 0, 0.0, 0
    for case in json.loads(path.read_text("utf-8")):
        hyps = (shared_data / "wmt22" / case["system_file"]).read_text("utf-8").splitlines()
        streams = [(shared_data / "wmt22" / f).read_text("utf-8").splitlines() for f in case["reference_files"]]
        assert len(hyps) == case["segments_count"]
        ours = nm.nist(hyps, [list(r) for r in zip(*streams, strict=True)], preset="mteval-13a", segments=True)
        m, d = report([ours.score, *ours.segments], [case["mteval"]["system"], *case["mteval"]["segments"]])
        n, worst, count = n + m, max(worst, d), count + 1 + len(hyps)
    print(f"NIST mteval-13a vs mteval-v13a.pl on WMT22: {n} mismatches of {count} scores, max |diff| {worst:.3g}")
    assert n == 0


def test_nist_matches_nltk_on_wmt22(shared_data):
    root = shared_data / "wmt22"
    refs = list(zip(*[p.read_text("utf-8").splitlines() for p in sorted(root.glob("references/*de-en*"))], strict=True))
    hyps = next(iter(sorted(root.glob("system-outputs/*de-en*")))).read_text("utf-8").splitlines()
    toks = [[r.split() for r in rs] for rs in refs]
    ours = nm.nist(hyps, refs)
    theirs = nist_score.corpus_nist(toks, [h.split() for h in hyps])
    seg = nm.nist(hyps[:300], refs[:300], segments=True).segments
    seg_theirs = [nltk_or_none(nist_score.sentence_nist, t, h.split()) for h, t in zip(hyps[:300], toks, strict=False)]
    pairs = [(a, b) for a, b in zip(seg, seg_theirs, strict=True) if b is not None]
    m, d = report([ours.score, *(a for a, _ in pairs)], [theirs, *(b for _, b in pairs)], tol=0.0)
    print(f"NIST vs NLTK on WMT22 de-en (corpus + {len(pairs)} sentences, 2 references): {m} mismatches, max {d:.3g}")
    assert m == 0


def test_corpus_nist_bit_identical_on_nltks_wmt15_eval():
    """NLTK's own test data (``models/wmt15_eval``, its ``test_nist.py``): ``corpus_nist`` for n = 1..9 to the last
    bit. (An exactly rounded sum over the segments was 1 ulp off NLTK's here: NLTK adds segment after segment.)"""
    import nltk

    try:
        folder = Path(nltk.data.find("models/wmt15_eval"))
    except LookupError:
        pytest.skip("NLTK's wmt15_eval data is not installed (python -m nltk.downloader wmt15_eval)")
    hyps = (folder / "google.ru").read_text("utf-8").splitlines()
    refs = (folder / "ref.ru").read_text("utf-8").splitlines()
    toks = [[r.split()] for r in refs]
    for n in range(1, 10):
        assert nm.nist(hyps, refs, max_order=n).score == nist_score.corpus_nist(toks, [h.split() for h in hyps], n)
