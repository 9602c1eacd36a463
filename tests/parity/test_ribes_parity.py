"""RIBES parity: the official RIBES.py 1.03.1 (recorded outputs) and NLTK 3.10's ``ribes_score`` (run here).

RIBES.py is GPL-2 and not vendored: ``tests/fixtures/ribes/`` holds what it printed and returned on generated
sentences and on the WMT22 en-ja systems (see the README there for the exact script and command). NLTK runs in
the test. Each test prints and asserts the number of mismatches beyond 1e-12 and the largest difference; a naive
restatement in ``tests/naive_ribes.py`` is checked too.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from tests.naive_ribes import naive_ribes_nltk, naive_ribes_official

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ribes"
ribes_score = pytest.importorskip("nltk.translate.ribes_score", reason="nltk is a test dependency for RIBES parity")


def report(ours, theirs, what):
    bad, worst = 0, 0.0
    for a, b in zip(ours, theirs, strict=True):
        if b is None:  # a segment the script leaves out (-z, no non-empty reference): NaN here
            bad += not math.isnan(a)
            continue
        d = abs(a - b)
        bad += d > 1e-12
        worst = max(worst, d)
    print(f"RIBES vs {what}: {len(ours)} values, {bad} mismatches beyond 1e-12, max abs diff {worst:.3g}")
    return bad, worst


# words that repeat (the context alignment), CJK, full-width, punctuation, case
WORDS = ["a", "b", "c", "A", "the", "cat", "の", "は", "猫", "ＡＢＣ", "。", ",", "É", "é", ""]
tokens = st.lists(st.sampled_from(WORDS[:-1]), max_size=18)


@settings(max_examples=200)
@given(tokens, st.lists(tokens, min_size=1, max_size=3), st.floats(0.0, 2.0), st.floats(0.0, 2.0))
def test_nltk_sentence_ribes(hyp, refs, alpha, beta):
    theirs = ribes_score.sentence_ribes(refs, hyp, alpha=alpha, beta=beta)
    ours = nm.sentence_ribes(hyp, refs, preset="nltk", tokenizer="none", alpha=alpha, beta=beta).score
    assert report([ours], [theirs], "NLTK sentence_ribes") == (0, 0.0)


@settings(max_examples=100)
@given(st.lists(st.tuples(tokens, st.lists(tokens, min_size=1, max_size=2)), min_size=1, max_size=8))
def test_nltk_corpus_ribes(pairs):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    theirs = ribes_score.corpus_ribes(refs, hyps)
    result = nm.ribes(hyps, refs, preset="nltk", tokenizer="none", segments=True)
    assert report(result.segments, [ribes_score.sentence_ribes(r, h) for h, r in pairs], "NLTK") == (0, 0.0)
    assert result.score == pytest.approx(theirs, abs=1e-15)


@settings(max_examples=200)
@given(tokens, tokens.filter(bool))
def test_naive_restatements(hyp, ref):
    official = nm.sentence_ribes(hyp, [ref], tokenizer="none", lowercase=False).score
    nltk_like = nm.sentence_ribes(hyp, [ref], tokenizer="none", preset="nltk").score
    naive = [naive_ribes_official(ref, hyp), naive_ribes_nltk(ref, hyp)]
    assert report([official, nltk_like], naive, "naive")[0] == 0  # the naive one rounds in its own order


def test_official_script_on_generated_corpora():
    data = json.loads((FIXTURES / "generated.json").read_text(encoding="utf-8"))
    ours_all, theirs_all = [], []
    for case in data["cases"]:
        options = case["options"]
        refs = [list(r) for r in zip(*case["refs"], strict=True)]
        result = nm.ribes(
            case["hyps"],
            refs,
            segments=True,
            lowercase=not options.get("case", False),
            ignore_empty_references=bool(options.get("emptyref")),
            alpha=options.get("alpha", 0.25),
            beta=options.get("beta", 0.10),
        )
        ours_all += [*result.segments, result.score]
        theirs_all += [*case["ribes"]["sentences"], case["ribes"]["corpus"]]
        assert round(result.score, 6) == case["ribes"]["cli"]
    assert report(ours_all, theirs_all, "RIBES.py 1.03.1 (generated)") == (0, pytest.approx(0.0, abs=1e-15))


def test_official_script_on_wmt22_en_ja(shared_data):
    pytest.importorskip("fugashi", reason="the ja-mecab tokenizer needs the [ja] extra")
    data = json.loads((FIXTURES / "wmt22-en-ja.json").read_text(encoding="utf-8"))
    wmt = shared_data / "wmt22"
    ref = (wmt / "references" / "generaltest2022.en-ja.ref.A.ja").read_text(encoding="utf-8").split("\n")[:-1]
    bad_total, worst_total, n = 0, 0.0, 0
    for system, expected in data["systems"].items():
        hyp = (wmt / "system-outputs" / f"generaltest2022.en-ja.hyp.{system}.ja").read_text(encoding="utf-8")
        result = nm.ribes(hyp.split("\n")[:-1], ref, tokenizer="ja-mecab", segments=True)
        assert f"{result.score:.6f}" == f"{expected['cli']:.6f}", system
        ours, theirs = [result.score], [expected["corpus"]]
        if "sentences" in expected:
            ours += list(result.segments)
            theirs += expected["sentences"]
        bad, worst = report(ours, theirs, f"RIBES.py 1.03.1 on WMT22 en-ja {system}")
        bad_total, worst_total, n = bad_total + bad, max(worst_total, worst), n + len(ours)
    print(f"WMT22 en-ja, 13 systems: {n} values, {bad_total} mismatches, max abs diff {worst_total:.3g}")
    assert bad_total == 0
    assert worst_total < 1e-13  # corpus means: the script adds in order, nlgmetrics exactly (math.fsum)


def test_nltk_on_wmt22_en_ja(shared_data):
    pytest.importorskip("fugashi", reason="the ja-mecab tokenizer needs the [ja] extra")
    from nlgmetrics.text import get_tokenizer

    tokenize = get_tokenizer("ja-mecab")
    wmt = shared_data / "wmt22"
    ref = (wmt / "references" / "generaltest2022.en-ja.ref.A.ja").read_text(encoding="utf-8").split("\n")[:-1]
    ref_tok = [[w for w in tokenize(r) if not w.isspace()] for r in ref]
    bad_total, worst_total, n = 0, 0.0, 0
    for system in ("NT5", "Online-W"):
        hyp = (wmt / "system-outputs" / f"generaltest2022.en-ja.hyp.{system}.ja").read_text(encoding="utf-8")
        hyp_tok = [[w for w in tokenize(h) if not w.isspace()] for h in hyp.split("\n")[:-1]]
        theirs = [ribes_score.sentence_ribes([r], h) for h, r in zip(hyp_tok, ref_tok, strict=True)]
        result = nm.ribes(hyp.split("\n")[:-1], ref, preset="nltk", tokenizer="ja-mecab", segments=True)
        bad, worst = report(result.segments, theirs, f"NLTK on WMT22 en-ja {system}")
        assert result.score == pytest.approx(ribes_score.corpus_ribes([[r] for r in ref_tok], hyp_tok), abs=1e-13)
        bad_total, worst_total, n = bad_total + bad, max(worst_total, worst), n + len(theirs)
    print(f"NLTK on WMT22 en-ja: {n} segments, {bad_total} mismatches, max abs diff {worst_total:.3g}")
    assert (bad_total, worst_total) == (0, 0.0)
