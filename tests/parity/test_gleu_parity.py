"""GLEU against NLTK 3.10 (``corpus_gleu``, ``sentence_gleu``) and HF evaluate's ``google_bleu`` (its 13a tokenizer,
then NLTK's ``corpus_gleu``), on generated text (CJK, full-width, empty, punctuation-only, several references)
and on WMT22. Each test asserts zero mismatches beyond 1e-12 and reports the largest difference."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nlgmetrics as nm

gleu_score = pytest.importorskip("nltk.translate.gleu_score", reason="NLTK is a test dependency")

words = st.text(alphabet="ab c日本ＡＢ。、.,!?&- \t", max_size=24)
items = st.lists(st.tuples(words, st.lists(words, min_size=1, max_size=3)), min_size=1, max_size=8)
orders = st.tuples(st.integers(1, 3), st.integers(0, 3)).map(lambda t: (t[0], t[0] + t[1]))


def report(ours, theirs, tol=1e-12):
    d = np.abs(np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float))
    return int((d > tol).sum()), float(d.max()) if d.size else 0.0


def hf_tokenize(line: str) -> list[str]:
    """HF evaluate's google_bleu tokenizer: sacrebleu's 13a (whose ``__call__`` returns the joined string)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()(line).split()


@given(items, orders)
def test_gleu_matches_nltk(items, order):
    lo, hi = order
    preds, refs = [p for p, _ in items], [r for _, r in items]
    ours = nm.gleu(preds, refs, min_len=lo, max_len=hi, segments=True)
    toks = [[r.split() for r in rs] for rs in refs]
    theirs = gleu_score.corpus_gleu(toks, [p.split() for p in preds], min_len=lo, max_len=hi)
    seg = [gleu_score.sentence_gleu(t, p.split(), min_len=lo, max_len=hi) for p, t in zip(preds, toks, strict=True)]
    assert report([ours.score, *ours.segments], [theirs, *seg]) == (0, 0.0)


@given(items, orders)
def test_hf_google_bleu_preset_matches_its_tokenizer_and_nltk(items, order):
    pytest.importorskip("sacrebleu")
    lo, hi = order
    preds, refs = [p for p, _ in items], [r for _, r in items]
    ours = nm.gleu(preds, refs, preset="hf-google-bleu", min_len=lo, max_len=hi)
    theirs = gleu_score.corpus_gleu(
        [[hf_tokenize(r) for r in rs] for rs in refs], [hf_tokenize(p) for p in preds], min_len=lo, max_len=hi
    )
    assert report([ours.score], [theirs]) == (0, 0.0)


def test_gleu_matches_nltk_on_wmt22(shared_data):
    root = shared_data / "wmt22"
    refs = list(zip(*[p.read_text("utf-8").splitlines() for p in sorted(root.glob("references/*de-en*"))], strict=True))
    toks = [[r.split() for r in rs] for rs in refs]
    htoks = [[hf_tokenize(r) for r in rs] for rs in refs]
    n, worst = 0, 0.0
    for path in sorted(root.glob("system-outputs/*de-en*"))[:1]:
        hyps = path.read_text("utf-8").splitlines()
        ours = nm.gleu(hyps, refs, segments=True)
        theirs = [gleu_score.corpus_gleu(toks, [h.split() for h in hyps])]
        theirs += [gleu_score.sentence_gleu(t, h.split()) for h, t in zip(hyps, toks, strict=True)]
        hf = nm.gleu(hyps, refs, preset="hf-google-bleu").score
        hf_theirs = gleu_score.corpus_gleu(htoks, [hf_tokenize(h) for h in hyps])
        m, d = report([ours.score, *ours.segments, hf], [*theirs, hf_theirs])
        n, worst = n + m, max(worst, d)
    print(f"GLEU vs NLTK/HF on WMT22 de-en (1 system, 2 references): {n} mismatches, max |diff| {worst:.3g}")
    assert n == 0


def test_hf_google_bleu_preset_matches_recorded_hf_output():
    path = Path(__file__).resolve().parents[1] / "fixtures" / "gleu" / "hf_google_bleu.json"
    cases = json.loads(path.read_text("utf-8"))
    ours = [
        nm.gleu(
            c["predictions"], c["references"], preset="hf-google-bleu", min_len=c["min_len"], max_len=c["max_len"]
        ).score
        for c in cases
    ]
    n, worst = report(ours, [c["google_bleu"] for c in cases])
    print(f"GLEU hf-google-bleu vs HF evaluate's google_bleu (recorded), {len(cases)} corpora: {n} mismatches, {worst}")
    assert n == 0
