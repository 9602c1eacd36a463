"""MER, WIL and WIP against jiwer 4 (``mer``, ``wil``, ``wip``) and torchmetrics' ``MatchErrorRate``,
``WordInfoLost``, ``WordInfoPreserved``: per segment and over the corpus, on generated text (CJK, full-width,
empty, punctuation-only) and on WMT22. Each test asserts zero mismatches beyond 1e-12 and the largest difference.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm

jiwer = pytest.importorskip("jiwer", reason="jiwer is a test dependency for MER/WIL/WIP parity")

MEASURES = (("mer", nm.mer, jiwer.mer), ("wil", nm.wil, jiwer.wil), ("wip", nm.wip, jiwer.wip))
words = st.text(alphabet="ab c日本ＡＢ。、.!? \t", max_size=20)
pairs = st.lists(st.tuples(words, words), min_size=1, max_size=10)


def report(ours, theirs, tol=1e-12):
    d = np.abs(np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float))
    return int((d > tol).sum()), float(d.max()) if d.size else 0.0


@given(pairs)
def test_mer_wil_wip_match_jiwer(pairs):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    for _, ours_fn, theirs_fn in MEASURES:
        ours = ours_fn(preds, refs, segments=True)
        seg_theirs = [theirs_fn(r, p) for p, r in pairs]
        assert report(ours.segments, seg_theirs) == (0, 0.0)
        assert report([ours.score], [theirs_fn(refs, preds)])[0] == 0


@settings(max_examples=50, deadline=None)
@given(pairs)
def test_torchmetrics_names_match_torchmetrics(pairs):
    """``nlgmetrics.torch``'s classes of torchmetrics' names give torchmetrics' numbers (its tokens and its sums
    over the longer side), also where a segment has both deletions and insertions; ``preset="jiwer"`` gives
    jiwer's."""
    tm = pytest.importorskip("torchmetrics.text")
    import nlgmetrics.torch as nt

    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    if not "".join(preds).split() or not "".join(refs).split():
        return  # torchmetrics gives NaN with no word on one side (0/0); jiwer's conventions are kept there
    for (name, _, jiwer_fn), cls in zip(MEASURES, ("MatchErrorRate", "WordInfoLost", "WordInfoPreserved"), strict=True):
        theirs = getattr(tm, cls)()
        ours = getattr(nt, cls)()
        theirs.update(preds, refs)
        ours.update(preds, refs)
        # torchmetrics sums and divides in float32; these are the float64 values of the same sums
        assert abs(float(ours.compute()) - float(theirs.compute())) < 1e-6, name
        jiwer_class = getattr(nt, cls)(preset="jiwer")
        jiwer_class.update(preds, refs)
        assert report([float(jiwer_class.compute())], [jiwer_fn(refs, preds)])[0] == 0


def _wmt22(shared_data, system, n=300):
    base = shared_data / "wmt22"
    hyp = (base / "system-outputs" / f"generaltest2022.de-en.hyp.{system}.en").read_text("utf-8").split("\n")[:n]
    ref = (base / "references" / "generaltest2022.de-en.ref.A.en").read_text("utf-8").split("\n")[:n]
    return hyp, ref


@pytest.mark.parametrize("system", ["Online-A", "JDExploreAcademy"])
def test_wmt22_torchmetrics_and_jiwer(shared_data, system):
    """On real data the two conventions differ in the second decimal: each class gives its own tool's number."""
    tm = pytest.importorskip("torchmetrics.text")
    import nlgmetrics.torch as nt

    hyp, ref = _wmt22(shared_data, system)
    for (name, ours_fn, jiwer_fn), cls in zip(
        MEASURES, ("MatchErrorRate", "WordInfoLost", "WordInfoPreserved"), strict=True
    ):
        theirs = float(getattr(tm, cls)()(hyp, ref))
        ours = float(getattr(nt, cls)()(hyp, ref))
        assert abs(ours - theirs) < 1e-6, (name, ours, theirs)
        assert ours == ours_fn(hyp, ref, preset="torchmetrics").score
        exact_jiwer = jiwer_fn(ref, hyp)
        assert report([ours_fn(hyp, ref).score], [exact_jiwer])[0] == 0
        print(f"{system} {name}: torchmetrics {theirs:.4f}, ours {ours:.6f}; jiwer {exact_jiwer:.4f}")
        assert abs(ours - exact_jiwer) > 1e-3  # the two conventions really differ here
