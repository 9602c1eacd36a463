"""The ROUGE tokenizers, stemmers, sentence splitter and ROUGE-1.5.5 text reading."""

from __future__ import annotations

import pytest

from nlgmetrics.text import get_tokenizer
from nlgmetrics.text.rouge_tokenize import (
    ascii_kept_fraction,
    get_stemmer,
    rouge155_truncate,
    rouge_score_tokenize,
    smart_stopwords,
    unicode_tokenize,
    wordnet_exceptions,
)
from nlgmetrics.text.sentences import split_sentences


def test_rouge_score_tokenizer_is_rouge_scores():
    tokenize = pytest.importorskip("rouge_score.tokenize")
    for text in ["Hello, World! It's 2x-faster.", "İstanbul \u212aelvin straße", "a_b\tc\nd", "東京 Tokyo", ""]:
        assert rouge_score_tokenize(text) == tokenize.tokenize(text, None)


def test_unicode_tokenizer():
    assert unicode_tokenize("Hello, World!") == ["hello", "world"]
    assert unicode_tokenize("Ｈｅｌｌｏ　東京タワー、２０２４年") == [
        "hello",
        "東",
        "京",
        "タ",
        "ワ",
        "ー",
        "2024",
        "年",
    ]
    assert unicode_tokenize("Привет, мир") == ["привет", "мир"]
    assert unicode_tokenize("مرحبا بالعالم") == ["مرحبا", "بالعالم"]
    assert unicode_tokenize("한국어 문장") == ["한국어", "문장"]  # Korean words are space separated
    assert unicode_tokenize("ﬁne café_au_lait") == ["fine", "café", "au", "lait"]


def test_porter_is_rouge_scores_stemmer():
    porter = pytest.importorskip("nltk.stem.porter")
    reference = porter.PorterStemmer()  # rouge-score's DefaultTokenizer(use_stemmer=True)
    assert reference.mode == porter.PorterStemmer.NLTK_EXTENSIONS
    stem = get_stemmer("porter")
    for word in ["running", "generously", "dying", "skies", "news", "cats", "the", "sky", "abcs", "agreed", "1990s"]:
        assert stem(word) == (reference.stem(word) if len(word) > 3 else word)


def test_rouge155_stemmers():
    with_exc, porter_only = get_stemmer("rouge155"), get_stemmer("rouge155-porter")
    assert with_exc("geese") == "goose"
    assert porter_only("geese") == "gees"
    assert with_exc("children") == "child"
    assert porter_only("children") == "children"
    assert with_exc("running") == porter_only("running") == "run"
    assert with_exc("ran") == "ran"  # three letters: never stemmed
    assert wordnet_exceptions()["mice"] == "mouse"
    assert "the" in smart_stopwords()
    assert "reuters" in smart_stopwords()


def test_rouge155_truncation():
    assert rouge155_truncate("Alpha beta, gamma.\nDelta", 0, 0) == (
        "alpha beta, gamma. delta",
        ["alpha beta, gamma.", "delta"],
    )
    # -l counts the raw words of each line, punctuation included
    assert rouge155_truncate("a , b\nc d", 2, 0) == ("a ,", ["a ,"])
    # -b counts bytes; readText_LCS keeps every line shorter than the limit
    assert rouge155_truncate("abc\nde\nfghij", 0, 4) == ("abc d", ["abc", "de", "fghi"])
    assert rouge155_truncate("é", 0, 1)[0] == "\ufffd"  # a cut character is a separator byte either way


def test_sentence_splitter():
    assert split_sentences("Dr. Who met J. K. Rowling. Then? They left!") == [
        "Dr. Who met J. K. Rowling.",
        "Then?",
        "They left!",
    ]
    assert split_sentences('He said "Stop." Then he left.') == ['He said "Stop."', "Then he left."]
    assert split_sentences("値段は3.5ドルです。安い！本当？") == ["値段は3.5ドルです。", "安い！", "本当？"]
    assert split_sentences("第一句。\n\n第二句") == ["第一句。", "第二句"]
    assert split_sentences("") == []
    assert split_sentences("  \n ") == []


def test_ascii_kept_fraction():
    assert ascii_kept_fraction("plain text", lower_first=True) == 1.0
    assert ascii_kept_fraction("東京", lower_first=True) == 0.0
    assert ascii_kept_fraction("Tokyo 東京", lower_first=False) == pytest.approx(5 / 7)


def test_registry_names():
    pytest.importorskip("fugashi")
    pytest.importorskip("jieba")
    assert get_tokenizer("ja-mecab") is get_tokenizer("ja-mecab")  # built once
    assert get_tokenizer("ja-mecab")("東京タワーに行った") == ["東京", "タワー", "に", "行っ", "た"]
    assert get_tokenizer("zh-jieba")("我们去北京") == ["我们", "去", "北京"]
