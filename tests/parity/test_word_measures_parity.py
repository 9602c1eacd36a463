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


@settings(max_examples=50)
@given(pairs)
def test_mer_wil_wip_match_torchmetrics(pairs):
    tm = pytest.importorskip("torchmetrics.text")
    import nlgmetrics.torch as nt

    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    if any("\t" in t for t in preds + refs):
        return  # torchmetrics splits on any whitespace, jiwer (the reference) on spaces only
    if not "".join(preds).split() or not "".join(refs).split():
        return  # torchmetrics gives NaN with no word on one side (0/0); jiwer's conventions are tested above
    batch = nm.metrics.edit.MER.batch_stats(preds, refs, nm.metrics.edit.MER.make_config())
    if (np.minimum(batch.column("deletions"), batch.column("insertions")) > 0).any():
        # torchmetrics counts hits as max(len) - distance per segment and divides MER by the sum of max(len):
        # jiwer's H and H + S + D + I only where no segment has both a deletion and an insertion
        return
    for name in ("MatchErrorRate", "WordInfoLost", "WordInfoPreserved"):
        theirs = getattr(tm, name)()
        ours = getattr(nt, name)()
        theirs.update(preds, refs)
        ours.update(preds, refs)
        # torchmetrics returns float32; the exact value is jiwer's (tested above)
        assert abs(float(ours.compute()) - float(theirs.compute())) < 1e-6


def test_mer_wil_wip_match_jiwer_on_wmt22(shared_data):
    refs = (shared_data / "wmt22" / "references" / "generaltest2022.de-en.ref.A.en").read_text("utf-8").splitlines()
    systems = sorted((shared_data / "wmt22" / "system-outputs").glob("*de-en*"))[:2]
    counts, worst = 0, 0.0
    for path in systems:
        hyps = path.read_text("utf-8").splitlines()
        for _, ours_fn, theirs_fn in MEASURES:
            ours = ours_fn(hyps, refs, segments=True)
            n, d = report(
                [ours.score, *ours.segments],
                [theirs_fn(refs, hyps)] + [theirs_fn(r, h) for h, r in zip(hyps, refs, strict=True)],
            )
            counts, worst = counts + n, max(worst, d)
    print(f"MER/WIL/WIP vs jiwer on WMT22 de-en: {counts} mismatches, max |diff| {worst:.3g}")
    assert counts == 0
