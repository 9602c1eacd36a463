"""Name -> tokenizer/normaliser registry with lazy imports.

The registry is the table of callables, keyed by how the library reaches them (sacrebleu's tokenizers carry a
``sacrebleu-`` prefix: ``sacrebleu-13a``). What users pass as ``tokenizer=``, and what signatures show, are the
public names of :mod:`nlgmetrics.text.tokenizers` (``13a``): one name per tokenisation in every family. Its
resolver refuses the registry's internal names as options, naming the public one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import Any

from ..errors import unknown_option

__all__ = [
    "CallableTokenizer",
    "available_tokenizers",
    "get_normalizer",
    "get_tokenizer",
    "register_normalizer",
    "register_tokenizer",
    "user_tokenizers",
]

Tokenizer = Callable[[str], list[str]]
Normalizer = Callable[[str], str]

# name -> "module:attribute" (imported on first use) or the callable itself
_TOKENIZERS: dict[str, str | Callable[..., Any]] = {
    "whitespace": "nlgmetrics.text.basic:whitespace_tokenize",
    "char": "nlgmetrics.text.basic:char_tokenize",
    "char-list": "nlgmetrics.text.basic:char_tokenize",  # Python's list(text), whatever "char" means to a metric
    "jiwer-words": "nlgmetrics.text.basic:jiwer_words",
    "jiwer-chars": "nlgmetrics.text.basic:jiwer_chars",
    # word segmentation for Japanese and Chinese (extras [ja] and [zh]); the class is built once
    "ja-mecab": "nlgmetrics.text.cjk:JaMecabTokenizer",  # UniDic-lite (options: ja-mecab-unidic-lite)
    "ja-mecab-unidic-lite": "nlgmetrics.text.cjk:JaMecabTokenizer",
    "ja-mecab-ipadic": "nlgmetrics.text.mt_tokenize:JaMecabTokenizer",
    "zh-jieba": "nlgmetrics.text.cjk:ZhJiebaTokenizer",
    # sacrebleu's BLEU tokenizers, under their sacrebleu names with a "sacrebleu-" prefix
    "sacrebleu-13a": "nlgmetrics.text.mt_tokenize:Tokenizer13a",
    "sacrebleu-intl": "nlgmetrics.text.mt_tokenize:IntlTokenizer",
    "sacrebleu-zh": "nlgmetrics.text.mt_tokenize:ZhTokenizer",
    "sacrebleu-char": "nlgmetrics.text.mt_tokenize:CharTokenizer",
    "sacrebleu-ja-mecab": "nlgmetrics.text.mt_tokenize:JaMecabTokenizer",
    "sacrebleu-ko-mecab": "nlgmetrics.text.mt_tokenize:KoMecabTokenizer",
    "sacrebleu-none": "nlgmetrics.text.mt_tokenize:NoneTokenizer",
    "perl-whitespace": "nlgmetrics.text.mt_tokenize:perl_split",  # multi-bleu.perl's split
    # pycocoevalcap's PTB tokenization and punctuation removal: tokens as its BLEU/CIDEr and its ROUGE-L split them
    "coco": "nlgmetrics.text.ptb:coco_tokens",
    "coco-rouge": "nlgmetrics.text.ptb:coco_rouge_tokens",
    "coco-rouge-tokenized": "nlgmetrics.text.ptb:split_space_tokens",  # captions already tokenized by "coco"
}
_NORMALIZERS: dict[str, str | Callable[..., Any]] = {
    "none": "nlgmetrics.text.basic:identity",
    "vqa": "nlgmetrics.text.basic:vqa_normalize",
}


#: The names registered by :func:`register_tokenizer` (the families that take "any registered tokenizer" take them,
#: and sign them as they are named).
_USER: set[str] = set()


def register_tokenizer(name: str, target: str | Tokenizer) -> None:
    """Register a tokenizer by ``"module:attribute"`` path (imported lazily) or as a callable."""
    _TOKENIZERS[name] = target
    _USER.add(name)
    _resolve.cache_clear()


def user_tokenizers() -> frozenset[str]:
    """The names registered by :func:`register_tokenizer`."""
    return frozenset(_USER)


def register_normalizer(name: str, target: str | Normalizer) -> None:
    _NORMALIZERS[name] = target
    _resolve.cache_clear()


def available_tokenizers() -> list[str]:
    """Every registered name (the registry's keys; options take the public names of
    :mod:`nlgmetrics.text.tokenizers`)."""
    return sorted(_TOKENIZERS)


@cache
def _resolve(kind: str, name: str) -> Callable[..., Any]:
    table = _TOKENIZERS if kind == "tokenizer" else _NORMALIZERS
    if name not in table:
        raise unknown_option(kind, name, list(table))
    target = table[name]
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    # A class (stateful tokenizers such as MeCab taggers) is built once and reused, never per line.
    return obj() if isinstance(obj, type) else obj


def get_tokenizer(name: str) -> Tokenizer:
    return _resolve("tokenizer", name)


def get_normalizer(name: str) -> Normalizer:
    return _resolve("normalizer", name)


class CallableTokenizer:
    """A tokenizer given as a Python callable (torchmetrics' ``ROUGEScore(normalizer=..., tokenizer=...)``), its
    tokens used as they come. A signature cannot say what a callable does: it records ``callable:<qualified name>``
    (its module and name, never an address), and building a config with one warns that the number can be repeated
    only with the same function."""

    keeps_tokens = True

    def __init__(self, function: Callable[[str], Any], name: str | None = None) -> None:
        if not callable(function):
            raise TypeError(f"a tokenizer must be a name or a callable, got {function!r}")
        self.function = function
        if name is None:
            module = getattr(function, "__module__", None) or type(function).__module__
            qual = getattr(function, "__qualname__", None) or type(function).__qualname__
            name = f"{module}.{qual}"
        self.name = name

    def __call__(self, text: str) -> list[str]:
        return list(self.function(text))

    def __str__(self) -> str:
        return f"callable:{self.name}"

    def __repr__(self) -> str:
        return f"CallableTokenizer({self.name!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CallableTokenizer) and other.function is self.function and other.name == self.name

    def __hash__(self) -> int:
        return hash((id(self.function), self.name))
