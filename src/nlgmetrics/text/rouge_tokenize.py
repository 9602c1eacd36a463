"""Tokenizers and stemmers of the ROUGE family, and the corpus encoder that turns texts into integer token ids.

Three tokenizers are built in:

``"rouge-score"``
    rouge-score 0.1.2's ``tokenize.tokenize``: lowercase (Unicode ``str.lower``), every character outside
    ``[a-z0-9]`` separates tokens. Letters of other scripts are dropped.
``"rouge155"``
    ROUGE-1.5.5.pl's ``readText``/``tokenizeText`` on the UTF-8 bytes: ASCII letters lowercased, every other
    byte (punctuation, hyphens, every byte of a non-ASCII character) separates tokens.
``"unicode"`` (the default)
    The same as ``"rouge-score"`` on ASCII text, token for token. Other text is NFKC-normalised and lowercased;
    runs of letters, combining marks and digits of any script are tokens, and every Chinese character, kana and
    other CJK ideograph is a token of its own (those scripts do not separate words with spaces). Nothing but
    punctuation, symbols and spaces is dropped.

Any tokenizer of :mod:`nlgmetrics.text.registry` can be named as well (``"ja-mecab"``, ``"zh-jieba"``, ``"char"``,
``"whitespace"``...): its tokens are lowercased, and tokens without a letter or digit (punctuation) are dropped.

Stemmers (applied to tokens longer than 3 characters, as both reference tools do):

``"porter"``
    NLTK's ``PorterStemmer()`` in its default ``NLTK_EXTENSIONS`` mode, exactly what rouge-score's
    ``use_stemmer=True`` uses (restated in the compiled kernels; NLTK is not needed).
``"rouge155"``
    ROUGE-1.5.5's ``-m``: the WordNet 2.0 exception lists shipped with the script, then the script's own Porter
    stemmer (Martin Porter's Perl release 1 with Chin-Yew Lin's 2004 change to step 4).
``"rouge155-porter"``
    ROUGE-1.5.5's Porter stemmer alone: what ``-m`` does when the script's exception database is empty, as it is
    after the ``buildExeptionDB.pl`` command widely copied into pyrouge install instructions.

Stems are cached per configuration across calls, so a corpus pays for each distinct word once. The tokenizing,
stemming and id assignment of the ROUGE kernel run in the compiled extension (``nlgmetrics._native``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from typing import Any

__all__ = [
    "BUILTIN_TOKENIZERS",
    "STEMMERS",
    "ascii_kept_fraction",
    "get_stemmer",
    "kernel_text",
    "rouge155_truncate",
    "rouge_encoder",
    "rouge_score_tokenize",
    "smart_stopwords",
    "unicode_tokenize",
    "wordnet_exceptions",
]

BUILTIN_TOKENIZERS = ("unicode", "rouge-score", "rouge155")
STEMMERS = ("porter", "rouge155", "rouge155-porter")

_ASCII_TOKEN = re.compile(r"[a-z0-9]+")


# ---------------------------------------------------------------------------------------------------- tokenizers
def rouge_score_tokenize(text: str) -> list[str]:
    """rouge-score 0.1.2's tokens (before stemming): ``text.lower()``, then runs of ``[a-z0-9]``.

    >>> rouge_score_tokenize("The U.S. isn't 'fast'; 2x-faster!")
    ['the', 'u', 's', 'isn', 't', 'fast', '2x', 'faster']
    >>> rouge_score_tokenize("東京 Tokyo")  # letters of other scripts are dropped
    ['tokyo']
    """
    return _ASCII_TOKEN.findall(text.lower())


# CJK ideographs, kana and their marks: one token per character.
_CJK = (
    "\u3005-\u3007\u3021-\u3029\u3031-\u3035\u303b\u303c\u3040-\u30ff\u3100-\u312f\u31a0-\u31bf\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U0001b000-\U0001b16f\U00020000-\U0002fa1f"
    "\U00030000-\U000323af"
)


@functools.cache
def _unicode_pattern() -> re.Pattern[str]:
    # Python's \w leaves out combining marks (Mn, Mc, Me), which most Indic and many other scripts need inside
    # words; collect them once (they all lie below U+20000, plus the variation selectors supplement).
    ranges: list[tuple[int, int]] = []
    for cp in [*range(0x300, 0x20000), *range(0xE0100, 0xE01F0)]:
        if unicodedata.category(chr(cp)).startswith("M"):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1] = (ranges[-1][0], cp)
            else:
                ranges.append((cp, cp))
    marks = "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" if a != b else re.escape(chr(a)) for a, b in ranges)
    # a CJK character is a token by itself; otherwise a run of letters, digits and marks (never CJK: they are \\w)
    return re.compile(f"[{_CJK}]|(?:(?![{_CJK}])[^\\W_]|[{marks}])+")


def unicode_tokenize(text: str) -> list[str]:
    """The default ROUGE tokenizer: rouge-score's tokens on ASCII text; letters of any script kept; CJK split
    into characters.

    >>> unicode_tokenize("The U.S. isn't 'fast'")  # as rouge-score
    ['the', 'u', 's', 'isn', 't', 'fast']
    >>> unicode_tokenize("Привет, мир! Ｔｏｋｙｏ 東京タワー")
    ['привет', 'мир', 'tokyo', '東', '京', 'タ', 'ワ', 'ー']
    >>> unicode_tokenize("हिन्दी भाषा")  # combining marks stay inside words
    ['हिन्दी', 'भाषा']
    """
    if text.isascii():
        return _ASCII_TOKEN.findall(text.lower())
    return _unicode_pattern().findall(unicodedata.normalize("NFKC", text).lower())


def _has_alnum(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def registry_tokenize(tokenizer: Callable[[str], list[str]], text: str) -> list[str]:
    """Tokens of a registry tokenizer, as ROUGE uses them: lowercased, tokens without a letter or digit dropped
    (unless the tokenizer says ``keeps_tokens``: pycocoevalcap's ROUGE-L keeps its tokens as they are)."""
    if getattr(tokenizer, "keeps_tokens", False):
        return list(tokenizer(text))
    return [t.lower() for t in tokenizer(text) if _has_alnum(t)]


def ascii_kept_fraction(text: str, *, lower_first: bool) -> float:
    """The fraction of the letters and digits of ``text`` that an ASCII-only tokenizer keeps (1.0 when the text
    has none). ``lower_first``: the tokenizer lowercases with ``str.lower`` first (rouge-score), which turns a
    few non-ASCII letters into ASCII ones (the Kelvin sign, dotted capital I)."""
    if text.isascii():
        return 1.0
    total = sum(map(str.isalnum, text))
    if total == 0:
        return 1.0
    if lower_first:
        kept = sum(map(len, _ASCII_TOKEN.findall(text.lower())))
    else:
        kept = sum(ch.isascii() and ch.isalnum() for ch in text)
    return min(1.0, kept / total)


# ---------------------------------------------------------------------------------------------------- stemmers
# Both Porter stemmers, their cache and the tokenizing of the kernel live in the compiled extension
# (csrc/stemmers.hpp, csrc/rouge.hpp): one implementation each, checked against NLTK and against the textbook
# restatements in tests/naive.py.
_STEMMER_KINDS = {"porter": 1, "rouge155": 2, "rouge155-porter": 3}


def _data_lines(name: str) -> list[str]:
    from importlib import resources  # imported here: it costs a fresh process several ms, and most configs need no file

    text = resources.files("nlgmetrics").joinpath(f"data/rouge155/{name}").read_text(encoding="utf-8")
    return text.split("\n")


@functools.cache
def wordnet_exceptions() -> dict[str, str]:
    """The WordNet 2.0 exception table as ROUGE-1.5.5's ``buildExeptionDB.pl`` builds it: ``first field ->
    second field`` of every line, later lines overwriting earlier ones. The files are read in alphabetical order
    (adj, adv, noun, verb); the order only matters for the five words listed in two files (best, better, is,
    testes, ...), whose database entry depends on the directory order on the machine that built it."""
    table: dict[str, str] = {}
    for name in ("adj.exc", "adv.exc", "noun.exc", "verb.exc"):
        for line in _data_lines(name):
            fields = line.split()
            if len(fields) >= 2:
                table[fields[0]] = fields[1]
    return table


@functools.cache
def smart_stopwords() -> frozenset[str]:
    """The SMART stop-word list that ROUGE-1.5.5 removes with ``-s``."""
    return frozenset(w for w in _data_lines("smart_common_words.txt") if w)


# ---------------------------------------------------------------------------------------------------- ROUGE-1.5.5 input
_PERL_SPACE = re.compile(rb"[ \t\n\r\f\x0b]+")


def _perl_split(line: bytes) -> list[bytes]:
    """Perl's ``split(/\\s+/, $s)``: a leading empty field is kept, trailing empty fields are dropped."""
    parts = _PERL_SPACE.split(line)
    while parts and not parts[-1]:
        parts.pop()
    return parts


def rouge155_truncate(text: str, length_limit: int, byte_limit: int) -> tuple[str, list[str]]:
    """The text ROUGE-1.5.5.pl scores under ``-l length_limit`` / ``-b byte_limit`` (0: no limit), for a summary
    given one sentence per line (the SPL format): ``readText`` (n-grams, and the unigram counts that clip
    ROUGE-L) and ``readText_LCS`` (the sentences of ROUGE-L and ROUGE-W) truncate differently, so both are
    returned. Lines are lowercased (ASCII) first; empty lines are skipped; word counts are those of
    ``split(/\\s+/)`` on the raw line, punctuation included; byte limits count UTF-8 bytes.

    >>> rouge155_truncate("One two three.\\nFour five six.", 4, 0)
    ('one two three. four', ['one two three.', 'four'])
    """
    lines = [ln.lower() for ln in text.encode("utf-8").split(b"\n") if ln]
    if length_limit:
        joined: list[bytes] = []
        lcs: list[bytes] = []
        used = 0
        for s in lines:
            words = _perl_split(s)
            if used + len(words) < length_limit:
                joined.append(s)
                lcs.append(s)
                used += len(words)
            else:
                cut = b" ".join(words[: length_limit - used])
                joined.append(cut)
                lcs.append(cut)
                break
        ngram_text = b" ".join(joined)
    elif byte_limit:
        pieces: list[bytes] = []
        used = 0
        for s in lines:
            if used + len(s) < byte_limit:
                pieces.append(s)
                used += len(s)
            else:
                pieces.append(s[: byte_limit - used])
                break
        ngram_text = b" ".join(pieces)
        # readText_LCS never adds to its byte count: every line shorter than the limit is kept whole, up to
        # the first line that reaches it, which is cut to the limit
        lcs = []
        for s in lines:
            if len(s) < byte_limit:
                lcs.append(s)
            else:
                lcs.append(s[:byte_limit])
                break
    else:
        ngram_text = b" ".join(lines)
        lcs = lines
    return ngram_text.decode("utf-8", "replace"), [s.decode("utf-8", "replace") for s in lcs]


@functools.cache
def rouge_encoder(stemmer: str | None, remove_stopwords: bool, check_ascii: bool) -> Any:
    """The kernel's tokenizer configuration (a compiled ``RougeEncoder``), built once per configuration so that
    its stem cache lasts across calls. ``check_ascii``: drop stems that are not ``[a-z0-9]+`` (rouge-score)."""
    from ..algorithms.native import native

    kind = _STEMMER_KINDS[stemmer] if stemmer else 0
    exceptions = wordnet_exceptions() if stemmer == "rouge155" else {}
    stop = sorted(smart_stopwords()) if remove_stopwords else []
    return native().RougeEncoder(kind, exceptions, stop, check_ascii)


def get_stemmer(name: str) -> Callable[[str], str]:
    """The cached stemmer called ``name`` (one of :data:`STEMMERS`): tokens of at most 3 characters are kept, as
    both reference tools do.

    >>> [get_stemmer("porter")(w) for w in ["caresses", "ponies", "running", "generalizations"]]
    ['caress', 'poni', 'run', 'gener']
    >>> [get_stemmer("rouge155-porter")(w) for w in ["agreed", "hopping", "replacement"]]
    ['agre', 'hop', 'replac']
    """
    if name not in STEMMERS:
        raise ValueError(f"unknown stemmer {name!r}")
    encoder = rouge_encoder(name, False, False)
    return encoder.stem  # type: ignore[no-any-return]


def _perl_line_tokens(line: str) -> list[str]:
    """ROUGE-1.5.5's tokens of a line: on its UTF-8 bytes, ASCII letters lowercased, runs of ``[a-z0-9]``."""
    return _ASCII_TOKEN.findall(line.encode("utf-8").lower().decode("ascii", "replace"))


def kernel_text(text: str, tokenizer: str | Callable[[str], list[str]], sentences: bool) -> str | list[list[str]]:
    """What the kernel is given for a text: the text itself when the compiled ASCII tokenizer gives the configured
    tokens (``rouge155`` always; ``rouge-score`` after Unicode lowercasing; ``unicode`` on ASCII text), else its
    tokens, line by line when ``sentences``."""
    if tokenizer == "rouge155" or (isinstance(tokenizer, str) and text.isascii()):
        return text
    if tokenizer == "rouge-score":
        return text.lower()  # str.lower can make ASCII letters (the Kelvin sign): the kernel then splits as rouge-score
    fn: Callable[[str], list[str]] = (
        unicode_tokenize if tokenizer == "unicode" else functools.partial(registry_tokenize, tokenizer)  # type: ignore[arg-type]
    )
    lines = text.split("\n") if sentences else [text]
    return [fn(line) for line in lines]
