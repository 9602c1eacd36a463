"""Tokenizers and normalisers, looked up by name in a registry and imported lazily.

``get_tokenizer("whitespace")`` returns a callable ``str -> list[str]``. Optional tokenizers (MeCab, jieba) are
registered by dotted path and imported only when asked for, so a missing extra costs nothing until it is used,
and then fails with a :class:`~nlgmetrics.errors.MissingDependencyError` that says what to install.
"""

from .registry import (
    available_tokenizers,
    get_normalizer,
    get_tokenizer,
    register_normalizer,
    register_tokenizer,
)

__all__ = [
    "available_tokenizers",
    "get_normalizer",
    "get_tokenizer",
    "register_normalizer",
    "register_tokenizer",
]
