"""SARI parity with HF evaluate's SARI script.

Three layers: the recorded outputs of the real script (``tests/fixtures/sari``, see its README) on generated and on
real segments; the line-by-line restatement of the script (``tests/naive_sari.py``), checked against those same
recordings; and hypothesis inputs (CJK, full-width forms, empty and punctuation-only sentences) scored by both.
Each test prints and asserts the number of mismatches beyond 1e-12 and the largest difference: per segment the
numbers are the script's to the bit, and so is a corpus scored in one call.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.algorithms.fastpath import forced
from nlgmetrics.algorithms.native import has_native
from tests.naive_sari import corpus_sari, sentence_sari

pytest.importorskip("sacrebleu", reason="the restated script tokenizes with sacrebleu, a test dependency")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sari"
SETTINGS = {
    "13a": {"lowercase": True, "tokenizer": "13a"},
    "13a-cased": {"lowercase": False, "tokenizer": "13a"},
    "intl": {"lowercase": True, "tokenizer": "intl"},
    "none": {"lowercase": True, "tokenizer": "none"},
}


def _rows() -> list[dict]:
    with open(FIXTURES / "generated.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


#: The three implementations of the kernel: the compiled one (csrc/sari.cpp, used whenever it is built), and
#: without it the plain-Python one of small batches and the vectorised numpy one of larger batches.
PATHS = ["native", "python", "numpy"]


@contextlib.contextmanager
def kernel_path(path: str) -> Iterator[None]:
    """Score every batch on ``path``, whatever its size."""
    if path == "native":
        if not has_native():
            pytest.skip("the compiled kernels (nlgmetrics._native) are not built")
        yield
        return
    with forced(native=False, kernels={"sari"}), forced(rows=path == "python", kernels={"sari.python"}):
        yield


def report(what: str, ours, theirs) -> tuple[int, float]:
    d = np.abs(np.asarray(ours, dtype=np.float64) - np.asarray(theirs, dtype=np.float64))
    mismatches, largest = int((d > 1e-12).sum()), float(d.max()) if d.size else 0.0
    print(f"{what}: {d.size} values, {mismatches} mismatches beyond 1e-12, max abs difference {largest:.3g}")
    return mismatches, largest


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_recorded_segments(setting, path):
    rows = _rows()
    options = SETTINGS[setting]
    expected = [r["sari"][setting] for r in rows]
    with kernel_path(path):
        result = nm.sari(
            [r["prediction"] for r in rows],
            [r["references"] for r in rows],
            [r["source"] for r in rows],
            segments=True,
            **options,
        )
    assert report(f"nlgmetrics ({path}) vs the script ({setting})", result.segments, expected) == (0, 0.0)
    if path != "numpy":
        return
    oracle = [sentence_sari(r["source"], r["prediction"], r["references"], **options) for r in rows]
    assert report(f"restated script vs the script ({setting})", oracle, expected) == (0, 0.0)


@pytest.mark.parametrize("path", PATHS)
def test_recorded_corpora(path):
    rows = _rows()
    with open(FIXTURES / "generated_corpora.json", encoding="utf-8") as f:
        corpora = json.load(f)
    ours, theirs = [], []
    for c in corpora:
        part = rows[c["start"] : c["stop"]]
        srcs, preds, refs = ([r[k] for r in part] for k in ("source", "prediction", "references"))
        with kernel_path(path):
            ours.append(nm.sari(preds, refs, srcs).score)
        theirs.append(c["sari"])
        if path == "numpy":
            assert corpus_sari(srcs, preds, refs) == c["sari"]
    assert report(f"corpus scores ({path}) vs the script", ours, theirs) == (0, 0.0)


# ---------------------------------------------------------------------------------------------- hypothesis
PIECES = [
    "the", "cat", "sat", "on", "mat", "a", "The", "CAT", "İstanbul", "ΣΊΣΥΦΟΣ", "東京", "日本語", "简单", "ＡＢＣ",
    "１２３", "，", "。", "！", "\u3000", "…", ".", ",", "!", "?", "'s", "(", ")", '"', "&quot;", "&amp;", "3.5",
    "1,000", "1-2", "-", "  ", "\t", "", "e.g.", "$5", "...", "x-\ny", "a\nb",
]  # fmt: skip
sentence = st.lists(st.sampled_from(PIECES), max_size=12).map(" ".join) | st.sampled_from(["", " ", "...", "。，"])
segment = st.tuples(sentence, sentence, st.lists(sentence, min_size=1, max_size=4))


@settings(max_examples=150)
@given(st.lists(segment, min_size=1, max_size=6), st.sampled_from(list(SETTINGS)))
def test_hypothesis_inputs_against_the_restated_script(segments, setting):
    options = SETTINGS[setting]
    srcs, preds, refs = (list(x) for x in zip(*segments, strict=True))
    oracle = [sentence_sari(s, p, r, **options) for s, p, r in segments]
    corpus = corpus_sari(srcs, preds, refs, **options)
    for path in PATHS if has_native() else PATHS[1:]:
        with kernel_path(path):
            result = nm.sari(preds, refs, srcs, segments=True, **options)
        assert report(f"per segment ({path})", result.segments, oracle) == (0, 0.0)
        assert report(f"corpus ({path})", [result.score], [corpus]) == (0, 0.0)


# ---------------------------------------------------------------------------------------------- real data
@pytest.mark.realdata
def test_real_data(shared_data):
    sys.path.insert(0, str(FIXTURES))
    try:
        from record import real_sets  # the recorder's own reading of the shared data
    finally:
        sys.path.remove(str(FIXTURES))
    with open(FIXTURES / "real.json", encoding="utf-8") as f:
        recorded = json.load(f)
    ours, theirs, seg_ours, seg_theirs = [], [], [], []
    for name, corpus in real_sets(shared_data).items():
        for system, preds in corpus["systems"].items():
            per_segment = system in recorded[name]["segments"]
            r = nm.sari(preds, corpus["references"], corpus["sources"], segments=per_segment)
            ours.append(r.score)
            theirs.append(recorded[name]["corpus"][system])
            if per_segment:
                seg_ours += r.segments
                seg_theirs += recorded[name]["segments"][system]
    assert len(ours) == 62
    assert report("real data, corpus scores (62 systems)", ours, theirs) == (0, 0.0)
    assert report("real data, segment scores", seg_ours, seg_theirs) == (0, 0.0)
