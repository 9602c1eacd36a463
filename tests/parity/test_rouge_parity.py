"""Parity of ROUGE with rouge-score 0.1.2 (preset ``rouge-score``, and the default tokenizer on ASCII text).

rouge-score is the reference: per segment ``RougeScorer(types, use_stemmer).score_multi(references,
prediction)`` (``score`` for one reference). The comparison is element by element (precision, recall, F of every
type of every segment) and reports the number of mismatches beyond 1e-12 and the largest difference; every test
requires zero mismatches. On the real SummEval data the whole corpus is compared with rouge-score-rs (which
reproduces rouge-score bit for bit, and is fast enough for a test) and a tenth of it with rouge-score itself.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer", reason="rouge-score is a test dependency")
scoring = pytest.importorskip("rouge_score.scoring")
pytest.importorskip("nltk", reason="nltk (rouge-score's dependency) stems for use_stemmer=True")

TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]


def as_array(per_segment, types):
    return np.array([[[s[t].precision, s[t].recall, s[t].fmeasure] for t in types] for s in per_segment])


def reference(preds, refs, types, stem, scorer_module=rouge_scorer):
    scorer = scorer_module.RougeScorer(types, use_stemmer=stem)
    return [
        scorer.score(r, p) if isinstance(r, str) else scorer.score_multi(r, p) for p, r in zip(preds, refs, strict=True)
    ]


def mismatches(ours, theirs):
    d = np.abs(ours - theirs)
    return int((d > 1e-12).sum()), float(d.max()) if d.size else 0.0


# ---------------------------------------------------------------------------------------------------- generated text
pieces = st.sampled_from(
    ["the", "The", "cats", "running", "ran", "runs", "generously", "a", "A.", "I", "it's", "U.S.", "--", "3.5",
     "42", "café", "İstanbul", "\u212a", "straße", "東京", "\n", "\n\n", "\r\n", " ", ",", "!", "?", "_x_", "ﬁ"]
)  # fmt: skip
text = st.lists(pieces, max_size=25).map(" ".join) | st.text(max_size=30)
segment = st.tuples(text, text | st.lists(text, min_size=1, max_size=3))


@pytest.mark.filterwarnings("ignore:rouge. the .* tokenizer keeps only ASCII:UserWarning")
@settings(max_examples=80)
@given(st.lists(segment, min_size=1, max_size=8), st.booleans())
def test_rouge_score_preset_matches_rouge_score(pairs, stem):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    ours = nm.rouge(preds, refs, preset="rouge-score", rouge_types=TYPES, use_stemmer=stem, segments=True)
    assert mismatches(as_array(ours.segments, TYPES), as_array(reference(preds, refs, TYPES, stem), TYPES)) == (0, 0.0)


ascii_text = st.lists(pieces.filter(str.isascii), max_size=25).map(" ".join) | st.text(
    alphabet=st.characters(max_codepoint=127), max_size=30
)


@settings(max_examples=60)
@given(st.lists(st.tuples(ascii_text, ascii_text), min_size=1, max_size=6), st.booleans())
def test_default_tokenizer_equals_rouge_score_on_ascii_text(pairs, stem):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    ours = nm.rouge(preds, refs, rouge_types=TYPES, use_stemmer=stem, segments=True)  # no preset: unicode
    assert mismatches(as_array(ours.segments, TYPES), as_array(reference(preds, refs, TYPES, stem), TYPES)) == (0, 0.0)


def test_worked_example():
    predictions = [
        "Transformers Transformers are fast plus efficient",
        "Good Morning",
        "I am waiting for new Transformers",
    ]
    references = [
        [
            "HuggingFace Transformers are fast efficient plus awesome",
            "Transformers are awesome because they are fast to execute",
        ],
        ["Good Morning Transformers", "Morning Transformers"],
        ["People are eagerly waiting for new Transformer models", "People are very excited about new Transformers"],
    ]  # fmt: skip
    result = nm.rouge(predictions, references, preset="rouge-score")
    assert result.score == {
        "rouge1": 0.6659340659340659,
        "rouge2": 0.45454545454545453,
        "rougeL": 0.6146520146520146,
        "rougeLsum": 0.6146520146520146,
    }
    theirs = reference(predictions, references, ["rouge1", "rouge2", "rougeL", "rougeLsum"], False)
    for t in result.score:
        assert result.score[t] == pytest.approx(np.mean([s[t].fmeasure for s in theirs]), abs=1e-15)


# ---------------------------------------------------------------------------------------------------- bootstrap
@settings(max_examples=15)
@given(st.lists(st.tuples(ascii_text, ascii_text), min_size=1, max_size=6), st.integers(0, 2**31 - 1))
def test_legacy_bootstrap_equals_rouge_score_aggregator_after_np_random_seed(pairs, seed):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    types = ["rouge1", "rougeL"]
    ours = nm.rouge(preds, refs, preset="rouge-score", rouge_types=types, bootstrap_samples=50, seed=seed,
                    bootstrap_rng="legacy")  # fmt: skip
    aggregator = scoring.BootstrapAggregator(n_samples=50)
    for s in reference(preds, refs, types, False):
        aggregator.add_scores(s)
    state = np.random.get_state()
    try:
        np.random.seed(seed)
        theirs = aggregator.aggregate()
    finally:
        np.random.set_state(state)
    for t in types:
        for k in ("low", "mid", "high"):
            assert tuple(getattr(ours.bootstrap[t], k)) == pytest.approx(tuple(getattr(theirs[t], k)), abs=1e-15)


# ---------------------------------------------------------------------------------------------------- SummEval
@pytest.fixture(scope="module")
def summeval(shared_data):
    preds, refs = [], []
    for line in (shared_data / "summeval" / "summeval.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        for out in row["sys_summs"].values():
            preds.append(out["sys_summ"])
            refs.append(row["ref_summs"])
    assert len(preds) == 1600
    return preds, refs


SUMMEVAL_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


@pytest.mark.parametrize("stem", [False, True])
def test_summeval_all_1600_x_11_against_rouge_score_rs(summeval, stem):
    rs = pytest.importorskip("rouge_score_rs.rouge_scorer", reason="rouge-score-rs checks the whole corpus quickly")
    preds, refs = summeval
    ours = nm.rouge(preds, refs, preset="rouge-score", rouge_types=SUMMEVAL_TYPES, use_stemmer=stem, segments=True)
    theirs = reference(preds, refs, SUMMEVAL_TYPES, stem, scorer_module=rs)
    assert mismatches(as_array(ours.segments, SUMMEVAL_TYPES), as_array(theirs, SUMMEVAL_TYPES)) == (0, 0.0)


@pytest.mark.parametrize("stem", [False, True])
def test_summeval_every_tenth_summary_against_rouge_score(summeval, stem):
    preds, refs = summeval[0][::10], summeval[1][::10]
    ours = nm.rouge(preds, refs, preset="rouge-score", rouge_types=SUMMEVAL_TYPES, use_stemmer=stem, segments=True)
    theirs = reference(preds, refs, SUMMEVAL_TYPES, stem)
    assert mismatches(as_array(ours.segments, SUMMEVAL_TYPES), as_array(theirs, SUMMEVAL_TYPES)) == (0, 0.0)
