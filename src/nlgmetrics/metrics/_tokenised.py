"""Families whose kernel works on tokens, for raw strings and for the pre-tokenised lists NLTK users pass.

NLTK's translation metrics (``meteor_score``, ``ribes_score``, ...) take token lists. A :class:`TokenFamily`
takes either:

* strings (``tokenizer`` is a registered tokenizer name, ``"whitespace"`` by default): each prediction is a
  string, each segment's references a string or a list of strings, as everywhere in nlgmetrics; the words are
  the tokenizer's tokens split on whitespace (a token of whitespace, as MeCab gives for U+3000, is no word); or
* token lists (``tokenizer="none"``): each prediction is a list of tokens, each segment's references one token
  list or a list of token lists (NLTK's ``references``).

The choice is the config's, so the signature says which (``tok:none`` for pre-tokenised input). The kernel is
called with ``(hypotheses, references, config)``: a list of token lists, and per segment a list of token lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._inputs import _as_list, check_pairs, describe
from ..errors import InvalidInputError
from ..text.tokenizers import resolve
from ..text.tokenizers import tokenizer as tokenizer_of
from .base import Family

__all__ = ["PRETOKENISED", "TokenFamily", "as_segment", "check_tokenizer", "tokenised_pairs", "words"]

#: The tokenizer name that means "the input is already tokenised".
PRETOKENISED = "none"

Tokens = list[str]


def check_tokenizer(config: Any, family: str) -> None:
    """Store the public name of ``config.tokenizer`` (``"none"``, or a tokenisation ``family`` offers: see
    :mod:`nlgmetrics.text.tokenizers`), or raise :class:`~nlgmetrics.errors.UnknownOptionError`."""
    object.__setattr__(config, "tokenizer", resolve(config.tokenizer, family))


def _token_list(value: Any, name: str) -> Tokens | None:
    """``value`` as a list of str if it is a list/tuple of strings, else ``None``."""
    if isinstance(value, (list, tuple)) and all(isinstance(t, str) for t in value):
        return [str(t) for t in value]
    return None


def _phrase(tokens: Tokens) -> str | None:
    """The first "token" that holds words separated by whitespace (a sentence where a token belongs), or None."""
    for t in tokens:
        if len(t.split()) > 1:
            return t
    return None


def _check_no_phrases(tokens: Tokens, where: str, reference: bool) -> None:
    """A token list whose items are sentences is ambiguous: refuse it, saying both readings."""
    phrase = _phrase(tokens)
    if phrase is None:
        return
    if reference:
        raise InvalidInputError(
            f"{where} is a list of strings, and {phrase[:40]!r} holds spaces: with tokenizer='none' it would be "
            "read as ONE tokenised reference whose tokens are these strings. If they are reference texts, pass "
            "tokenizer='whitespace' (or another tokenizer); if they are several references, give each as a token "
            "list: [['the', 'cat'], ['a', 'cat']]"
        )
    raise InvalidInputError(
        f"{where} is a list of strings, and {phrase[:40]!r} holds spaces: with tokenizer='none' each prediction is "
        "a list of tokens. To score texts, pass tokenizer='whitespace' (or another tokenizer)"
    )


def _pretokenised(predictions: Any, references: Any, allow_empty: bool) -> tuple[list[Tokens], list[list[Tokens]]]:
    preds = _as_list(predictions, "predictions") if not isinstance(predictions, str) else None
    if preds is None:
        raise InvalidInputError(
            "predictions is a string, but tokenizer='none' expects pre-tokenised input: a list of token lists"
        )
    refs = _as_list(references, "references") if not isinstance(references, str) else None
    if refs is None:
        raise InvalidInputError(
            "references is a string, but tokenizer='none' expects pre-tokenised input: per segment a token list "
            "or a list of token lists"
        )
    if not preds and not allow_empty:
        raise InvalidInputError("predictions is empty: there is nothing to score (an empty corpus)")
    if len(preds) != len(refs):
        raise InvalidInputError(
            f"predictions and references differ in length: {len(preds)} predictions but {len(refs)} references "
            "(references are per segment: a token list or a list of token lists for each prediction)"
        )
    hyps: list[Tokens] = []
    for i, p in enumerate(preds):
        tokens = _token_list(p, "predictions")
        if tokens is None:
            hint = (
                " (a string: with tokenizer='none' each prediction is a list of tokens; use tokenizer='whitespace' "
                "to score strings)"
                if isinstance(p, str)
                else ""
            )
            raise InvalidInputError(f"predictions[{i}] is {describe(p)}; expected a list of str tokens{hint}")
        _check_no_phrases(tokens, f"predictions[{i}]", reference=False)
        hyps.append(tokens)
    out: list[list[Tokens]] = []
    for i, r in enumerate(refs):
        if isinstance(r, str):
            raise InvalidInputError(
                f"references[{i}] is a string; with tokenizer='none' each segment's references are a token list "
                "or a list of token lists"
            )
        if not isinstance(r, (list, tuple)):
            raise InvalidInputError(f"references[{i}] is {describe(r)}; expected a token list or a list of them")
        if not r:
            raise InvalidInputError(
                f"references[{i}] is an empty list: every segment needs at least one reference (an empty "
                "tokenised reference is [[]])"
            )
        single = _token_list(r, "references")
        if single is not None:
            _check_no_phrases(single, f"references[{i}]", reference=True)
            out.append([single])
            continue
        seg: list[Tokens] = []
        for j, x in enumerate(r):
            tokens = _token_list(x, "references")
            if tokens is None:
                raise InvalidInputError(
                    f"references[{i}][{j}] is {describe(x)}; expected a list of str tokens (a segment's references "
                    "are one token list or a list of token lists, not a mix)"
                )
            _check_no_phrases(tokens, f"references[{i}][{j}]", reference=True)
            seg.append(tokens)
        out.append(seg)
    return hyps, out


def words(tokens: Sequence[str]) -> Tokens:
    """The tokens split on whitespace, whitespace dropped: what a tool that reads tokenised text as
    space-separated words sees. (MeCab, for one, returns an ideographic space U+3000 as a token of its own.)"""
    if any(not t or any(c.isspace() for c in t) for t in tokens):
        return [w for t in tokens for w in t.split()]
    return list(tokens)


def _pretokenised_hint(predictions: Any) -> str | None:
    """A hint when strings were expected but the predictions look like NLTK's token lists."""
    if isinstance(predictions, (list, tuple)) and predictions:
        first = predictions[0]
        if isinstance(first, (list, tuple)) and all(isinstance(t, str) for t in first):
            return (
                "predictions[0] is a list of tokens: for pre-tokenised input (as NLTK takes it) pass "
                "tokenizer='none' (the signature then records tok:none)"
            )
    return None


def tokenised_pairs(
    predictions: Any, references: Any, tokenizer: str, *, allow_empty: bool = False
) -> tuple[list[Tokens], list[list[Tokens]]]:
    """Check the input and return ``(hypotheses, references)`` as token lists (see the module docstring)."""
    if tokenizer == PRETOKENISED:
        return _pretokenised(predictions, references, allow_empty)
    hint = _pretokenised_hint(predictions)
    if hint is not None:
        raise InvalidInputError(hint)
    preds, refs = check_pairs(predictions, references, allow_empty=allow_empty)
    tokenize = tokenizer_of(tokenizer)
    cache: dict[str, Tokens] = {}
    split = tokenizer != "whitespace"  # whitespace-split words need no second split

    def tok(text: str) -> Tokens:
        tokens = cache.get(text)
        if tokens is None:
            tokens = tokenize(text)
            if split:
                tokens = words(tokens)
            cache[text] = tokens
        return tokens

    hyps = [tok(p) for p in preds]
    if refs.starts is None:
        return hyps, [[tok(r)] for r in refs.flat]
    return hyps, [[tok(r) for r in seg] for seg in refs]


class TokenFamily(Family[Any, Any, Any]):
    """A family whose kernel takes ``(hypotheses, references, config)`` as token lists; the config has a
    ``tokenizer`` field (see the module docstring)."""

    def prepare(
        self, predictions: Any, references: Any, config: Any, allow_empty: bool, sources: Any, inputs: Mapping[str, Any]
    ) -> tuple[Any, Any, dict[str, Any]] | None:
        self.check_inputs(inputs)
        self.check_sources(sources, 0)
        hyps, refs = tokenised_pairs(predictions, references, config.tokenizer, allow_empty=allow_empty)
        return (hyps, refs, {}) if hyps else None  # token lists, not strings


def as_segment(references: str | Sequence[Any]) -> list[Any]:
    """One segment's references wrapped as a one-segment batch (for sentence-level functions)."""
    return [references if isinstance(references, str) else list(references)]
