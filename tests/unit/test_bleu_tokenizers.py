"""sacrebleu's tokenizers and multi-bleu.perl's split: registry names, batch = line by line, MeCab checks."""

from __future__ import annotations

import pytest

from nlgmetrics.errors import MissingDependencyError, UnknownOptionError
from nlgmetrics.text import get_tokenizer
from nlgmetrics.text.mt_tokenize import (
    SACREBLEU_TOKENIZERS,
    is_chinese_char,
    perl_lowercase,
    perl_split,
    sacrebleu_tokenizer,
)

LINES = [
    "Hello, world. It costs $3.50-ish!",
    "",
    "  spaced   out  ",
    "a.b,c 1.5 2,000 3- -4 x-y ...",
    "well-\nknown and\nnewlines",
    "&quot;quoted&quot; &amp; <skipped> &lt;tag&gt;",
    "我喜欢Python 3.10，很好。“引号”",
    "«Bonjour», dit-il: 1,5 €. ½ ²",
    ".leading and trailing.",
    "-5 at the start",
]


@pytest.mark.parametrize("name", sorted(set(SACREBLEU_TOKENIZERS) - {"ja-mecab", "ko-mecab"}))
def test_registered_under_a_sacrebleu_prefix_and_batch_equals_lines(name):
    tok = get_tokenizer(f"sacrebleu-{name}")
    assert tok is sacrebleu_tokenizer(name)  # built once, shared
    assert tok.batch(LINES) == [tok(line) for line in LINES]
    assert tok.batch([]) == []


@pytest.mark.parametrize("name", ["13a", "intl", "zh", "char", "none"])
def test_same_tokens_as_sacrebleu(name):
    pytest.importorskip("sacrebleu")
    from sacrebleu.metrics.bleu import _get_tokenizer

    theirs = _get_tokenizer(name)()
    ours = sacrebleu_tokenizer(name)
    assert [ours(line) for line in LINES] == [theirs(line).split() for line in LINES]
    assert ours.signature == theirs.signature()


def test_unknown_sacrebleu_tokenizer():
    with pytest.raises(UnknownOptionError, match="'spm'"):
        sacrebleu_tokenizer("spm")


def test_zh_character_table_matches_sacrebleu_on_every_bmp_character():
    pytest.importorskip("sacrebleu")
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    theirs = TokenizerZh._is_chinese_char
    mismatches = [c for c in range(0x10000) if is_chinese_char(chr(c)) != theirs(chr(c))]
    assert not mismatches
    # the ranges written as "\u20000" and "\u2f800" in sacrebleu: general punctuation and more count as Chinese
    assert is_chinese_char("\u2014")
    assert is_chinese_char("€")
    assert not is_chinese_char("\U00020000")


@pytest.mark.parametrize("name", ["ja-mecab", "ko-mecab"])
def test_mecab_tokenizers(name):
    module = {"ja-mecab": "MeCab", "ko-mecab": "mecab_ko"}[name]
    pytest.importorskip(module, reason=f"{name} needs its MeCab package")
    pytest.importorskip("sacrebleu")
    from sacrebleu.metrics.bleu import _get_tokenizer

    theirs = _get_tokenizer(name)()
    ours = sacrebleu_tokenizer(name)
    lines = ["今日は良い天気です。", "안녕하세요, 반갑습니다.", "  mixed 日本語 text  "]
    assert ours.batch(lines) == [theirs(line).split() for line in lines]
    assert ours.signature == theirs.signature()


def test_mecab_dictionary_is_asserted(monkeypatch):
    pytest.importorskip("MeCab")
    from nlgmetrics.text import mt_tokenize

    monkeypatch.setattr(mt_tokenize.JaMecabTokenizer, "dictionary_size", 1)
    with pytest.raises(MissingDependencyError, match="ipadic dictionary of 1 entries"):
        mt_tokenize.JaMecabTokenizer()


def test_missing_mecab_says_what_to_install(monkeypatch):
    import importlib

    from nlgmetrics.text import mt_tokenize

    real = importlib.import_module

    def fail(name, *args, **kwargs):
        if name in ("mecab_ko", "MeCab"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", fail)
    with pytest.raises(MissingDependencyError, match=r"nlgmetrics\[ko\]"):
        mt_tokenize.KoMecabTokenizer()
    with pytest.raises(MissingDependencyError, match=r"nlgmetrics\[ja\]"):
        mt_tokenize.JaMecabTokenizer()


def test_perl_split_and_lowercase():
    assert perl_split(" a\tb\u00a0c \u3000 d\x0b e\r\n") == ["a", "b\u00a0c", "\u3000", "d", "e"]
    assert perl_split("") == []
    assert perl_split("   ") == []
    assert perl_lowercase("ÄBC Ωx") == "Äbc Ωx"
    assert get_tokenizer("perl-whitespace") is perl_split
