"""One warning per call when Chinese or Japanese text meets a tokenizer that does not split it (BLEU's 13a, TER
without asian_support, chrF++'s word n-grams), naming the tokenizer to use; none for English, for the splitting
tokenizers, or for a few CJK words inside English text."""

from __future__ import annotations

import warnings

import pytest

import nlgmetrics as nm

JA = ["東京は日本の首都です。", "猫が魚を食べた。"]
JA_REF = ["東京は日本の首都である。", "魚を猫が食べた。"]
ZH = ["我喜欢吃苹果。", "今天天气很好。"]


def _messages(fn, *args, **kwargs) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(*args, **kwargs)
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_bleu_13a_on_japanese_names_ja_mecab_once() -> None:
    msgs = _messages(nm.bleu, JA, JA_REF)
    assert len(msgs) == 1
    assert "the '13a' tokenizer does not split Japanese text" in msgs[0]
    assert "predictions[0] ('東京は日本の首都です。') and texts like it" in msgs[0]
    assert "tokenizer='ja-mecab'" in msgs[0]


def test_bleu_on_chinese_names_zh() -> None:
    (msg,) = _messages(nm.bleu, ZH, ZH, preset="nmt")
    assert "Chinese text" in msg
    assert "tokenizer='zh'" in msg


@pytest.mark.parametrize("tokenizer", ["char", "zh"])
def test_splitting_tokenizers_do_not_warn(tokenizer: str) -> None:
    assert _messages(nm.bleu, JA, JA_REF, tokenizer=tokenizer) == []


def test_english_and_a_few_cjk_words_do_not_warn() -> None:
    assert _messages(nm.bleu, ["the cat sat on the mat"], ["the cat is on the mat"]) == []
    assert _messages(nm.bleu, ["we flew from 東京 to Paris last year"], ["we flew from Tokyo to Paris"]) == []


def test_ter_names_asian_support() -> None:
    (msg,) = _messages(nm.ter, JA, JA_REF)
    assert msg.startswith("ter: the 'tercom' tokenizer does not split Japanese text")
    assert "asian_support=True" in msg
    assert _messages(nm.ter, JA, JA_REF, asian_support=True) == []


def test_chrf_word_ngrams_only() -> None:
    assert _messages(nm.chrf, JA, JA_REF) == []  # character n-grams need no words
    (msg,) = _messages(nm.chrf, JA, JA_REF, word_order=2)
    assert "word_order=0" in msg


def test_rouge_shares_the_helper_and_keeps_its_message() -> None:
    (msg,) = _messages(nm.rouge, JA, JA_REF, preset="rouge-score")
    assert "drops 100% of the letters and digits of predictions[0] ('東京は日本の首都です。')" in msg
    assert "3 more segment(s) lose most of their text too" in msg


def test_stateful_update_warns_once_per_call() -> None:
    metric = nm.BLEU()
    assert len(_messages(metric.update, JA, JA_REF)) == 1
    assert len(_messages(metric.update, JA, JA_REF)) == 1
