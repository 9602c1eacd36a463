"""Japanese and Chinese: identical text scores 1.0, and real WMT22 outputs get sensible scores with every
tokenizer that keeps their letters (characters, MeCab words, jieba words), far above mispaired references."""

from __future__ import annotations

import pytest

import nlgmetrics as nm

TYPES = ["rouge1", "rouge2", "rougeL"]


def _lines(path):
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="module")
def wmt22(shared_data):
    base = shared_data / "wmt22"
    ja_ref = _lines(base / "references" / "generaltest2022.en-ja.ref.A.ja")
    ja_hyp = _lines(base / "system-outputs" / "generaltest2022.en-ja.hyp.Online-B.ja")
    zh_a = _lines(base / "references" / "generaltest2022.en-zh.ref.A.zh")
    zh_b = _lines(base / "references" / "generaltest2022.en-zh.ref.B.zh")
    zh_hyp = _lines(base / "system-outputs" / "generaltest2022.en-zh.hyp.Online-B.zh")
    assert len(ja_ref) == len(ja_hyp) == len(zh_a) == len(zh_b) == len(zh_hyp) == 2037
    n = 400
    return {
        "ja": (ja_hyp[:n], ja_ref[:n]),
        "zh": (zh_hyp[:n], [[a, b] for a, b in zip(zh_a[:n], zh_b[:n], strict=True)]),
    }


@pytest.mark.parametrize("lang", ["ja", "zh"])
@pytest.mark.parametrize("tokenizer", ["unicode", "char", "ja-mecab", "zh-jieba"])
def test_real_translations_score_sensibly(wmt22, lang, tokenizer):
    if tokenizer == "ja-mecab":
        pytest.importorskip("fugashi")
    if tokenizer == "zh-jieba":
        pytest.importorskip("jieba")
    hyps, refs = wmt22[lang]
    paired = nm.rouge(hyps, refs, tokenizer=tokenizer, rouge_types=TYPES)
    mispaired = nm.rouge(hyps, refs[1:] + refs[:1], tokenizer=tokenizer, rouge_types=TYPES)
    for t in TYPES:
        assert 0.3 < paired.score[t] < 0.95, (t, paired.score)
        assert mispaired.score[t] < paired.score[t] / 2, (t, mispaired.score)
    recorded = {"ja-mecab": "ja-mecab-unidic-lite"}.get(tokenizer, tokenizer)  # the dictionary is named
    assert paired.signature.split("|")[2] == f"tok:{recorded}"


@pytest.mark.filterwarnings("ignore:rouge. the .* tokenizer keeps only ASCII:UserWarning")
def test_rouge_score_keeps_only_the_ascii_of_real_japanese(wmt22):
    hyps, refs = wmt22["ja"]
    ascii_only = nm.rouge(hyps, refs, preset="rouge-score", rouge_types=["rouge1"]).score["rouge1"]
    kept = nm.rouge(hyps, refs, rouge_types=["rouge1"]).score["rouge1"]
    assert ascii_only < kept / 2
    with pytest.warns(UserWarning, match=r"drops 100% of the letters and digits of predictions\[0\]"):
        nm.rouge(hyps, refs, preset="rouge-score")


@pytest.mark.parametrize("tokenizer", ["unicode", "char", "ja-mecab", "zh-jieba"])
def test_identical_real_sentences_score_one(wmt22, tokenizer):
    if tokenizer == "ja-mecab":
        pytest.importorskip("fugashi")
    if tokenizer == "zh-jieba":
        pytest.importorskip("jieba")
    for lang in ("ja", "zh"):
        hyps = wmt22[lang][0][:50]
        hyps = [h for h in hyps if h.strip()]
        assert nm.rouge(hyps, hyps, tokenizer=tokenizer, rouge_types=TYPES).score == dict.fromkeys(TYPES, 1.0)
