"""Warnings about text a tokenizer handles badly, shared by the families: one warning per call, naming the first
segment concerned, how many more there are, and the tokenizer to use instead.

Two cases, both silent in the reference tools:

* an ASCII-only tokenizer (rouge-score's, ROUGE-1.5.5's) drops the letters of other scripts (ROUGE);
* a tokenizer that splits on spaces and punctuation only (sacrebleu's ``13a``/``intl``, TER's without
  ``asian_support``, chrF++'s word n-grams) leaves Chinese and Japanese text, which has no spaces, as a few
  sentence-long "words": BLEU on en-ja with ``13a`` is a different number from BLEU with ``ja-mecab`` (12.78
  against 27.23 on a WMT22 system), and TER on Japanese exceeds 100.

The checks cost one ``str.isascii`` per text when the texts are ASCII (the common case); the CJK check stops at
the first text it flags.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..errors import warn

if TYPE_CHECKING:
    from .._inputs import ReferenceSets

__all__ = ["cjk_share", "first_flagged", "flagged", "text_location", "warn_flagged", "warn_unsplit_cjk"]

#: Han ideographs (with extension A and the compatibility block), hiragana, katakana (with the half-width forms)
_CJK = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
#: A text at least this much Chinese or Japanese (of its characters other than spaces) is checked
_CJK_SHARE = 0.3


def text_location(preds: Sequence[str], refs: ReferenceSets, k: int) -> str:
    """Where text ``k`` of ``[*preds, *refs.flat]`` is: ``predictions[i]`` or ``references[i][j]``."""
    n = len(preds)
    if k < n:
        return f"predictions[{k}]"
    flat = k - n
    if refs.offsets is None:
        return f"references[{flat}]"
    seg = bisect.bisect_right(refs.offsets, flat) - 1
    return f"references[{seg}][{flat - refs.offsets[seg]}]"


def flagged(preds: Sequence[str], refs: ReferenceSets, bad: Callable[[str], bool]) -> list[int]:
    """The indices into ``[*preds, *refs.flat]`` of the non-ASCII texts for which ``bad`` holds."""
    if all(map(str.isascii, preds)) and all(map(str.isascii, refs.flat)):
        return []
    texts = [*preds, *refs.flat]
    return [k for k, t in enumerate(texts) if not t.isascii() and bad(t)]


def warn_flagged(preds: Sequence[str], refs: ReferenceSets, bad: list[int], message: Callable[[str, int], str]) -> None:
    """One warning for the flagged texts: ``message(first, more)``, where ``first`` names the first flagged text (its
    location and its first 40 characters) and ``more`` is the number of the others."""
    texts = [*preds, *refs.flat]
    k = bad[0]
    warn(message(f"{text_location(preds, refs, k)} ({texts[k][:40]!r})", len(bad) - 1))


def first_flagged(preds: Sequence[str], refs: ReferenceSets, bad: Callable[[str], bool]) -> int | None:
    """The index into ``[*preds, *refs.flat]`` of the first non-ASCII text for which ``bad`` holds, or None: the
    scan stops there (on a Chinese corpus, at its first text)."""
    for k, t in enumerate(preds):
        if not t.isascii() and bad(t):
            return k
    for k, t in enumerate(refs.flat):
        if not t.isascii() and bad(t):
            return len(preds) + k
    return None


def cjk_share(text: str) -> float:
    """The share of Chinese and Japanese characters (Han, kana) among the characters of ``text`` other than
    whitespace (0.0 for a text without any)."""
    chars = len(text) - sum(map(str.isspace, text))
    return len(_CJK.findall(text)) / chars if chars else 0.0


def warn_unsplit_cjk(
    metric: str, tokenizer: str, preds: Sequence[str], refs: ReferenceSets, fix: Callable[[bool], str]
) -> None:
    """Warn when Chinese or Japanese text (at least 30% of its characters) meets ``tokenizer``, which does not
    split it into words, naming the first such text. ``fix(japanese)`` says what to use instead (``japanese``: that
    text has kana)."""
    k = first_flagged(preds, refs, _mostly_cjk)
    if k is None:
        return
    text = preds[k] if k < len(preds) else refs.flat[k - len(preds)]
    japanese = _KANA.search(text) is not None
    warn(
        f"{metric}: the {tokenizer!r} tokenizer does not split {'Japanese' if japanese else 'Chinese'} text into "
        f"words (it splits on spaces and punctuation only): {text_location(preds, refs, k)} ({text[:40]!r}) and "
        f"texts like it count as a few phrase-long words, and the score is not comparable with published ones; "
        f"{fix(japanese)}"
    )


def _mostly_cjk(text: str) -> bool:
    return _CJK.search(text) is not None and cjk_share(text) >= _CJK_SHARE
