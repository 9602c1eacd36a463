"""EED against torchmetrics' ``extended_edit_distance``: per pair against its float64 program (``_eed_function``
after its preprocessing), which must agree to the last bit, and per sentence and corpus against the public function
(float32 tensors there), on generated text (CJK, full-width, empty, punctuation-only, several references, every
option) and on WMT22. Both our kernels (C and Python) are checked."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.metrics import eed as eed_module

tm_eed = pytest.importorskip("torchmetrics.functional.text.eed", reason="torchmetrics is a test dependency")

text = st.text(alphabet="ab c.,!?Mr1日本ＡＢ。 \t", max_size=20)
items = st.lists(st.tuples(text, st.lists(text, min_size=1, max_size=3)), min_size=1, max_size=6)
costs = st.sampled_from([0.0, 0.1, 0.2, 0.3, 1.0, 2.0, 2.5])
PREP = {"en": tm_eed._preprocess_en, "ja": tm_eed._preprocess_ja}


def report(ours, theirs, tol=1e-12):
    d = np.abs(np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float))
    return int((d > tol).sum()), float(d.max()) if d.size else 0.0


def reference_scores(preds, refs, language, **kw):
    prep = PREP[language]
    return [min(tm_eed._eed_function(prep(p), prep(r), **kw) for r in rs) for p, rs in zip(preds, refs, strict=True)]


@given(items, st.sampled_from(LANGS := ("en", "ja")), costs, st.sampled_from([0.1, 0.3, 1.0]), costs, costs)
def test_eed_matches_torchmetrics_program(items, language, alpha, rho, deletion, insertion):
    preds, refs = [p for p, _ in items], [r for _, r in items]
    kw = {"alpha": alpha, "rho": rho, "deletion": deletion, "insertion": insertion}
    ours = nm.eed(preds, refs, language=language, segments=True, **kw)
    theirs = reference_scores(preds, refs, language, **kw)
    assert report(ours.segments, theirs) == (0, 0.0)
    prep = PREP[language]
    python = [
        min(eed_module.eed_pair_python(prep(p), prep(r), alpha, rho, deletion, insertion) for r in rs)
        for p, rs in zip(preds, refs, strict=True)
    ]
    assert report(python, theirs) == (0, 0.0)


@given(items, st.sampled_from(LANGS))
def test_eed_matches_torchmetrics_public_function(items, language):
    preds, refs = [p for p, _ in items], [r for _, r in items]
    score, sentences = tm_eed.extended_edit_distance(preds, refs, language=language, return_sentence_level_score=True)
    ours = nm.eed(preds, refs, language=language, segments=True)
    assert report(ours.segments, sentences.tolist(), tol=1e-6)[0] == 0  # float32 there
    assert abs(ours.score - float(score)) < 1e-6


def test_eed_matches_torchmetrics_on_wmt22(shared_data):
    root = shared_data / "wmt22"
    n, worst, total = 0, 0.0, 0
    for pair, language in (("de-en", "en"), ("en-ja", "ja")):
        refs = [p.read_text("utf-8").splitlines()[:100] for p in sorted(root.glob(f"references/*{pair}*"))]
        refs = [list(r) for r in zip(*refs, strict=True)]
        hyps = next(iter(sorted(root.glob(f"system-outputs/*{pair}*")))).read_text("utf-8").splitlines()[:100]
        ours = nm.eed(hyps, refs, language=language, segments=True)
        m, d = report(ours.segments, reference_scores(hyps, refs, language))
        n, worst, total = n + m, max(worst, d), total + len(hyps)
    print(
        f"EED vs torchmetrics' program on WMT22 ({total} de-en/en-ja segments): {n} mismatches, max |diff| {worst:.3g}"
    )
    assert n == 0
