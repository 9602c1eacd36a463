"""Tokenizers and normalisers that need nothing but the standard library."""

from __future__ import annotations

import re

__all__ = ["char_tokenize", "identity", "jiwer_chars", "jiwer_words", "vqa_normalize", "whitespace_tokenize"]


def identity(text: str) -> str:
    return text


def whitespace_tokenize(text: str) -> list[str]:
    """Split on runs of any Unicode whitespace (``str.split()``)."""
    return text.split()


def char_tokenize(text: str) -> list[str]:
    """Every character is a token, spaces included."""
    return list(text)


def vqa_normalize(text: str) -> str:
    """The DocVQA / ST-VQA answer normalisation: lowercase, strip, collapse whitespace runs to one space."""
    return " ".join(text.strip().lower().split())


_MULTI_SPACE = re.compile(r"\s\s+")


def jiwer_words(text: str) -> list[str]:
    """jiwer 4's ``wer_default``: runs of two or more whitespace characters become one space, the text is
    stripped and split on ``" "`` only, dropping empty words. A lone tab therefore does not separate words,
    exactly as in jiwer."""
    return [w for w in _MULTI_SPACE.sub(" ", text).strip().split(" ") if w]


def jiwer_chars(text: str) -> list[str]:
    """jiwer 4's ``cer_default``: strip, then every character (inner spaces included) is a token."""
    return list(text.strip())
