"""The supervised fine-tuning conventions against their pip references, on real Chinese and Japanese sentences and
on generated text: LLaMA-Factory's ``ComputeSimilarity`` (jieba + rouge-chinese ROUGE-1/2/L, NLTK BLEU-4 with
method3 on characters, each ×100 and rounded to 4 decimals) and the pltrdy ``rouge`` 1.0.1 package."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from tests.qa_cases import real_sentences

pytest.importorskip("jieba")
pytest.importorskip("rouge_chinese")
pytest.importorskip("nltk")

_TYPES = (("rouge-1", "rouge1"), ("rouge-2", "rouge2"), ("rouge-l", "rougeL"))


def llamafactory(preds: list[str], labels: list[str]) -> dict[str, list[float]]:
    """LLaMA-Factory 0.9.5 ``ComputeSimilarity.__call__``'s loop, on decoded texts."""
    import jieba
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
    from rouge_chinese import Rouge

    score_dict: dict[str, list[float]] = {"rouge-1": [], "rouge-2": [], "rouge-l": [], "bleu-4": []}
    for pred, label in zip(preds, labels, strict=True):
        hypothesis = list(jieba.cut(pred))
        reference = list(jieba.cut(label))
        if len(" ".join(hypothesis).split()) == 0 or len(" ".join(reference).split()) == 0:
            result = {"rouge-1": {"f": 0.0}, "rouge-2": {"f": 0.0}, "rouge-l": {"f": 0.0}}
        else:
            result = Rouge().get_scores(" ".join(hypothesis), " ".join(reference))[0]
        for k, v in result.items():
            score_dict[k].append(round(v["f"] * 100, 4))
        bleu_score = sentence_bleu([list(label)], list(pred), smoothing_function=SmoothingFunction().method3)
        score_dict["bleu-4"].append(round(bleu_score * 100, 4))
    return score_dict


def _check_llamafactory(preds: list[str], labels: list[str], label: str) -> None:
    ref = llamafactory(preds, labels)
    r = nm.rouge(preds, labels, preset="llamafactory", segments=True)
    b = nm.bleu(preds, labels, preset="llamafactory", segments=True)
    for theirs, ours in _TYPES:
        per = np.array([s[ours].fmeasure for s in r.segments])
        diff = np.abs(per - np.array(ref[theirs]))
        mean_diff = abs(r.score[ours] - float(np.mean(ref[theirs])))
        print(
            f"{label} {theirs}: {len(per)} sentences, {int((diff > 0).sum())} mismatches, mean |diff| {mean_diff:.3g}"
        )
        assert (diff == 0).all()
        assert mean_diff < 1e-9
    diff = np.abs(np.array(b.segments) - np.array(ref["bleu-4"]))
    mean_diff = abs(b.score - float(np.mean(ref["bleu-4"])))
    print(f"{label} bleu-4: {len(diff)} sentences, {int((diff > 0).sum())} mismatches, mean |diff| {mean_diff:.3g}")
    assert (diff == 0).all()
    assert mean_diff < 1e-9


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_llamafactory_real(shared_data, lang):
    hyp, ref = real_sentences(shared_data, lang, 200)
    _check_llamafactory(hyp, ref, f"llamafactory wmt22-{lang}")


_TEXT = st.lists(
    st.sampled_from([*list("今天天气很好我们去北京东京都。，！？ ab.?\n　ＡＢ１”"), "……", "......"]), max_size=20
).map("".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_TEXT, _TEXT), min_size=1, max_size=4))
def test_llamafactory_generated(pairs):
    _check_llamafactory([p for p, _ in pairs], [r for _, r in pairs], "llamafactory generated")


def _pltrdy():
    rouge = pytest.importorskip("rouge")
    if hasattr(rouge.Rouge, "cut_sent"):
        pytest.skip("the 'rouge' module is rouge-chinese's copy (rouge-chinese 1.0.3 also installs itself as 'rouge')")
    return rouge


def _check_pltrdy(preds: list[str], refs: list[str], label: str) -> None:
    rouge = _pltrdy()
    ref = rouge.Rouge().get_scores(preds, refs)
    avg = rouge.Rouge().get_scores(preds, refs, avg=True)
    r = nm.rouge(preds, refs, preset="pltrdy", segments=True)
    worst, bad = 0.0, 0
    for theirs, seg in zip(ref, r.segments, strict=True):
        for k, t in _TYPES:
            for s, v in (("p", seg[t].precision), ("r", seg[t].recall), ("f", seg[t].fmeasure)):
                d = abs(theirs[k][s] - v)
                worst, bad = max(worst, d), bad + (d > 0)
    mean_worst = max(abs(avg[k]["f"] - r.score[t]) for k, t in _TYPES)
    print(
        f"{label}: {len(preds)} pairs, {bad} mismatches, max |diff| {worst:.3g}; avg=True max |diff| {mean_worst:.3g}"
    )
    assert bad == 0
    assert mean_worst < 1e-12


def test_pltrdy_real(shared_data):
    hyp, ref = real_sentences(shared_data, "zh", 200)  # Chinese has no "." or spaces: one sentence, one word
    import json

    docvqa = json.loads((shared_data / "docvqa" / "blip2-flant5.docvqa-val.json").read_text(encoding="utf-8"))[:300]
    en = [
        (d["answer"], d["gt_answers"][0]) for d in docvqa if d["answer"].strip(". ") and d["gt_answers"][0].strip(". ")
    ]
    _check_pltrdy([h for h, _ in en], [r for _, r in en], "pltrdy docvqa")
    _check_pltrdy(hyp, ref, "pltrdy wmt22-zh")


_WORDS = st.lists(st.sampled_from([*list("ab c. .d\t東京"), "the ", "cat "]), max_size=20).map("".join)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(_WORDS, _WORDS), min_size=1, max_size=4))
def test_pltrdy_generated(pairs):
    pairs = [(p, r) for p, r in pairs if [s for s in p.split(".") if s] and [s for s in r.split(".") if s]]
    if pairs:
        _check_pltrdy([p for p, _ in pairs], [r for _, r in pairs], "pltrdy generated")


def test_llamafactory_bleu_on_one_character():
    """A batch small enough for the row-by-row counter still carries each segment's own BLEU (NLTK gives 35.3553
    for one matching character under method3)."""
    import nlgmetrics as nm

    assert nm.bleu(["今"], ["今"], preset="llamafactory").score == 35.3553
    assert nm.bleu(["今", "今天"], ["今", "今天"], preset="llamafactory", segments=True).segments[0] == 35.3553
