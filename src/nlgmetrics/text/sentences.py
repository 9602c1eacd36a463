"""A rule-based sentence splitter for English-like and Chinese/Japanese text. Nothing is downloaded.

ROUGE-Lsum needs sentences. Summaries usually come one sentence per line; when they do not, this splitter finds
the boundaries with a few rules instead of a trained model (NLTK's punkt needs a download, and its output
depends on the model version):

* a newline always ends a sentence;
* ``。``, ``！``, ``？`` and ``．`` (runs of them, plus closing brackets or quotes) end a sentence, with or
  without a space after them, as Chinese and Japanese write;
* ``.``, ``!`` and ``?`` (runs of them, plus closing quotes or brackets) end a sentence when whitespace or the
  end of the text follows; a ``.`` does not when it closes a common abbreviation (``Mr.``, ``e.g.``, ``U.S.``,
  months...), a single-letter initial (``J. K. Rowling``), or when the next word starts with a lowercase letter
  or a digit.
"""

from __future__ import annotations

import re

__all__ = ["split_sentences"]

_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "mt",
        "vs",
        "etc",
        "inc",
        "ltd",
        "co",
        "corp",
        "dept",
        "est",
        "fig",
        "no",
        "nos",
        "vol",
        "vols",
        "approx",
        "cf",
        "al",
        "gen",
        "gov",
        "sen",
        "rep",
        "capt",
        "col",
        "lt",
        "sgt",
        "cmdr",
        "adm",
        "maj",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "e.g",
        "i.e",
        "a.m",
        "p.m",
        "u.s",
        "u.k",
        "u.n",
        "e.u",
        "ph.d",
        "b.a",
        "m.a",
    ]
)
_CLOSERS = "\"'”’»)]}」』）】〕〉》"
_BOUNDARY = re.compile(f"(?:([。！？．]+)|([.!?]+))[{re.escape(_CLOSERS)}]*")
_WORD_BEFORE = re.compile(r"([\w.]+)$")


def _ends_sentence(line: str, m: re.Match[str]) -> bool:
    if m.group(1):  # CJK terminators need no space after them
        return True
    end = m.end()
    if end < len(line) and not line[end].isspace():
        return False
    punct = m.group(2)
    if punct != ".":
        return True
    rest = line[end:].lstrip()
    if rest and (rest[0].islower() or rest[0].isdigit()):
        return False
    before = _WORD_BEFORE.search(line, 0, m.start())
    if before:
        word = before.group(1).lower().strip(".")
        if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            return False
    return True


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (stripped, empty ones dropped).

    >>> split_sentences("Mr. Smith arrived. He sat down! Did he? Yes.")
    ['Mr. Smith arrived.', 'He sat down!', 'Did he?', 'Yes.']
    >>> split_sentences("今日は晴れ。明日は雨？「本当！」と彼は言った。")
    ['今日は晴れ。', '明日は雨？', '「本当！」', 'と彼は言った。']
    >>> split_sentences("Pi is 3.14 and e.g. that is fine.\\nNew line")
    ['Pi is 3.14 and e.g. that is fine.', 'New line']
    """
    out: list[str] = []
    for line in text.split("\n"):
        start = 0
        for m in _BOUNDARY.finditer(line):
            if _ends_sentence(line, m):
                piece = line[start : m.end()].strip()
                if piece:
                    out.append(piece)
                start = m.end()
        piece = line[start:].strip()
        if piece:
            out.append(piece)
    return out
