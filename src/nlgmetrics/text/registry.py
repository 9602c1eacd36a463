"""Name -> tokenizer/normaliser registry with lazy imports.

Public names are what users pass as ``tokenizer=`` (:func:`public_tokenizers`). Names with a ``sacrebleu-`` or
``jiwer-`` prefix are internal: how BLEU reaches sacrebleu's tokenizers (users say ``"13a"``) and the default
transforms of WER/CER (users say ``unit="char"``); a config refuses them (:func:`check_tokenizer_name`), so one
tokenization can never appear under two names in signatures.

Japanese MeCab comes with two dictionaries, named explicitly: ``ja-mecab-ipadic`` (MeCab with the IPA dictionary,
``mecab-python3`` + ``ipadic``: sacrebleu's ``ja-mecab``) and ``ja-mecab-unidic-lite`` (``fugashi`` with
UniDic-lite). The short name ``ja-mecab`` keeps the meaning it always had in each family: IPA-dic in BLEU (as in
sacrebleu), UniDic-lite in ROUGE, WER and CER; each config stores, and each signature shows, the explicit name
(:func:`resolve_ja_mecab`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import Any

from ..errors import UnknownOptionError, unknown_option

__all__ = [
    "INTERNAL_PREFIXES",
    "CallableTokenizer",
    "available_tokenizers",
    "check_tokenizer_name",
    "get_normalizer",
    "get_tokenizer",
    "public_tokenizers",
    "register_normalizer",
    "register_tokenizer",
    "resolve_ja_mecab",
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
    "ja-mecab": "nlgmetrics.text.cjk:JaMecabTokenizer",  # UniDic-lite (the registry's meaning of the short name)
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


def register_tokenizer(name: str, target: str | Tokenizer) -> None:
    """Register a tokenizer by ``"module:attribute"`` path (imported lazily) or as a callable."""
    _TOKENIZERS[name] = target
    _resolve.cache_clear()


def register_normalizer(name: str, target: str | Normalizer) -> None:
    _NORMALIZERS[name] = target
    _resolve.cache_clear()


#: Prefixes of the internal tokenizer names (see the module docstring).
INTERNAL_PREFIXES = ("sacrebleu-", "jiwer-")


def _internal(name: str) -> bool:
    return name.startswith(INTERNAL_PREFIXES)


def available_tokenizers() -> list[str]:
    """Every registered name, internal ones included (see :func:`public_tokenizers` for what users pass)."""
    return sorted(_TOKENIZERS)


def public_tokenizers() -> list[str]:
    """The names a user may pass as ``tokenizer=``."""
    return sorted(n for n in _TOKENIZERS if not _internal(n))


def resolve_ja_mecab(name: str, meaning: str) -> str:
    """``"ja-mecab"`` as the explicit name it means in a family (``meaning``: ``"ja-mecab-ipadic"`` or
    ``"ja-mecab-unidic-lite"``); any other name unchanged."""
    return meaning if name == "ja-mecab" else name


def check_tokenizer_name(name: Any, valid: list[str] | tuple[str, ...] | None = None) -> None:
    """Refuse an internal or unknown tokenizer name with the list of valid ones (``valid``: the family's own
    list; default: the public registry names)."""
    choices = list(valid) if valid is not None else public_tokenizers()
    if isinstance(name, str) and _internal(name):
        public = name.split("-", 1)[1]
        hint = f"use {public!r}" if name.startswith("sacrebleu-") else "choose unit='char' or unit='word' instead"
        listed = ", ".join(repr(v) for v in sorted(choices))
        raise UnknownOptionError(
            f"tokenizer {name!r} is an internal name, not an option ({hint}); valid values are: {listed}"
        )
    if valid is not None and name not in choices:
        raise unknown_option("tokenizer", name, choices)


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
