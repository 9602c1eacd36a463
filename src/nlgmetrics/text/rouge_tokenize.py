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
    ``use_stemmer=True`` uses (needs ``nltk``).
``"rouge155"``
    ROUGE-1.5.5's ``-m``: the WordNet 2.0 exception lists shipped with the script, then the script's own Porter
    stemmer (Martin Porter's Perl release 1 with Chin-Yew Lin's 2004 change to step 4).
``"rouge155-porter"``
    ROUGE-1.5.5's Porter stemmer alone: what ``-m`` does when the script's exception database is empty, as it is
    after the ``buildExeptionDB.pl`` command widely copied into pyrouge install instructions.

Stems are cached per stemmer across calls, so a corpus pays for each distinct word once.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from importlib import resources

import numpy as np

from ..errors import MissingDependencyError

__all__ = [
    "BUILTIN_TOKENIZERS",
    "STEMMERS",
    "EncodedTexts",
    "ascii_kept_fraction",
    "encode_texts",
    "rouge155_porter_stem",
    "rouge155_truncate",
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
def _porter_nltk() -> Callable[[str], str]:
    try:
        from nltk.stem.porter import PorterStemmer
    except ImportError as err:
        raise MissingDependencyError("ROUGE with use_stemmer=True (stemmer 'porter')", "pip install nltk") from err
    # rouge-score builds ``porter.PorterStemmer()``: the default NLTK_EXTENSIONS mode.
    return PorterStemmer().stem


# ROUGE-1.5.5.pl's Porter stemmer, restated. No library reproduces it: NLTK's ORIGINAL_ALGORITHM mode differs in
# step 4, which Chin-Yew Lin changed in 2004 so that a word ending in -ement does not also try -ment and -ent.
_C = "[^aeiou][^aeiouy]*"  # consonant sequence ('y' after a consonant counts as a vowel)
_V = "[aeiouy][aeiou]*"  # vowel sequence
_MGR0 = re.compile(f"^({_C})?{_V}{_C}")  # measure > 0
_MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?$")  # measure = 1
_MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")  # measure > 1
_VOWEL_IN = re.compile(f"^({_C})?[aeiouy]")
_CVC = re.compile(f"^{_C}[aeiouy][^aeiouwxy]$")
_STEP2 = {
    "ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize", "bli": "ble", "alli": "al",
    "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize", "ation": "ate", "ator": "ate", "alism": "al",
    "iveness": "ive", "fulness": "ful", "ousness": "ous", "aliti": "al", "iviti": "ive", "biliti": "ble",
    "logi": "log",
}  # fmt: skip
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_R1A = re.compile("(ss|i)es$")
_R1A2 = re.compile("([^s])s$")
_R1B_TAIL = re.compile("(at|bl|iz)$")
_R1B_DOUBLE = re.compile(r"([^aeiouylsz])\1$")
_R2 = re.compile(
    "(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation|ator|alism|iveness|fulness|ousness|"
    "aliti|iviti|biliti|logi)$"
)
_R3 = re.compile("(icate|ative|alize|iciti|ical|ful|ness)$")
_R4 = re.compile("(al|ance|ence|er|ic|able|ible|ant|ement|ou|ism|ate|iti|ous|ive|ize)$")
_R4_ION = re.compile("(s|t)(ion)$")


def rouge155_porter_stem(w: str) -> str:
    """ROUGE-1.5.5.pl's ``stem`` (lowercase input).

    >>> [rouge155_porter_stem(w) for w in ["caresses", "ponies", "agreed", "hopping", "generalizations", "replacement"]]
    ['caress', 'poni', 'agre', 'hop', 'gener', 'replac']
    """
    if len(w) < 3:
        return w
    initial_y = w[0] == "y"
    if initial_y:  # an initial y is a consonant
        w = "Y" + w[1:]
    # step 1a
    if (m := _R1A.search(w)) or (m := _R1A2.search(w)):
        w = w[: m.start()] + m.group(1)
    # step 1b
    if w.endswith("eed"):
        if _MGR0.search(w[:-3]):
            w = w[:-1]
    else:
        stem = w[:-2] if w.endswith("ed") else w[:-3] if w.endswith("ing") else None
        if stem is not None and _VOWEL_IN.search(stem):
            w = stem
            if _R1B_TAIL.search(w):
                w += "e"
            elif _R1B_DOUBLE.search(w):
                w = w[:-1]
            elif _CVC.search(w):
                w += "e"
    # step 1c
    if w.endswith("y") and _VOWEL_IN.search(w[:-1]):
        w = w[:-1] + "i"
    # steps 2 and 3
    if (m := _R2.search(w)) and _MGR0.search(w[: m.start()]):
        w = w[: m.start()] + _STEP2[m.group(1)]
    if (m := _R3.search(w)) and _MGR0.search(w[: m.start()]):
        w = w[: m.start()] + _STEP3[m.group(1)]
    # step 4, as changed by Chin-Yew Lin: -ement first, then -ment, then -ent or -(s|t)ion
    if (m := _R4.search(w)) and _MGR1.search(w[: m.start()]):
        w = w[: m.start()]
    if w.endswith("ment") and _MGR1.search(w[:-4]):
        w = w[:-4]
    if w.endswith("ent"):
        if _MGR1.search(w[:-3]):
            w = w[:-3]
    elif m := _R4_ION.search(w):
        stem = w[: m.start()] + m.group(1)
        if _MGR1.search(stem):
            w = stem
    # step 5
    if w.endswith("e"):
        stem = w[:-1]
        if _MGR1.search(stem) or (_MEQ1.search(stem) and not _CVC.search(stem)):
            w = stem
    if w.endswith("ll") and _MGR1.search(w):
        w = w[:-1]
    if initial_y:
        w = "y" + w[1:]
    return w


def _data_lines(name: str) -> list[str]:
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


def _rouge155_stemmer(exceptions: bool) -> Callable[[str], str]:
    table = wordnet_exceptions() if exceptions else {}

    def stem(word: str) -> str:
        hit = table.get(word)
        return hit if hit is not None else rouge155_porter_stem(word)

    return stem


_STEM_CACHE_LIMIT = 1 << 20


class _CachedStemmer:
    """A stemmer with a bounded cache; tokens of at most 3 characters are never stemmed (both tools' rule)."""

    def __init__(self, stem: Callable[[str], str]) -> None:
        self._stem = stem
        self._cache: dict[str, str] = {}

    def __call__(self, token: str) -> str:
        if len(token) <= 3:
            return token
        hit = self._cache.get(token)
        if hit is None:
            if len(self._cache) >= _STEM_CACHE_LIMIT:
                self._cache.clear()
            hit = self._cache[token] = self._stem(token)
        return hit


@functools.cache
def get_stemmer(name: str) -> Callable[[str], str]:
    """The cached stemmer called ``name`` (one of :data:`STEMMERS`)."""
    if name == "porter":
        return _CachedStemmer(_porter_nltk())
    if name in ("rouge155", "rouge155-porter"):
        return _CachedStemmer(_rouge155_stemmer(exceptions=name == "rouge155"))
    raise ValueError(f"unknown stemmer {name!r}")


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


# ---------------------------------------------------------------------------------------------------- encoding
SENTENCE_BREAK = -1
TEXT_BREAK = -2
DROPPED = -3


@dataclasses.dataclass(frozen=True)
class EncodedTexts:
    """Texts as one column of integer token ids.

    ``tokens[text_start[t]:text_start[t + 1]]`` are the tokens of text ``t``. When sentences were asked for,
    ``sent_start``/``sent_len`` give the non-empty sentences (in token offsets) and
    ``text_sent[t]:text_sent[t + 1]`` the sentences of text ``t``. Ids are dense, ``0 <= id < vocab_size``.
    """

    tokens: np.ndarray
    text_start: np.ndarray
    vocab_size: int
    sent_start: np.ndarray | None = None
    sent_len: np.ndarray | None = None
    text_sent: np.ndarray | None = None

    @property
    def text_len(self) -> np.ndarray:
        return np.diff(self.text_start)


class _Vocabulary(dict):  # type: ignore[type-arg]
    """Raw token (``bytes`` from the fast path, ``str`` otherwise) -> id of its stem; markers -> negative ids."""

    def __init__(self, stem: Callable[[str], str] | None, stopwords: frozenset[str], check_ascii: bool) -> None:
        super().__init__()
        self.ids: dict[str, int] = {}
        self._stem = stem
        self._stop = stopwords
        self._check = check_ascii
        self[b"\x01"] = SENTENCE_BREAK
        self[b"\x02"] = TEXT_BREAK

    def __missing__(self, raw: bytes | str) -> int:
        word = raw.decode("ascii") if isinstance(raw, bytes) else raw
        if word in self._stop:
            value = DROPPED
        else:
            if self._stem is not None:
                word = self._stem(word)
            # rouge-score keeps a stem only if it is still [a-z0-9]+ (it always is for NLTK's Porter stemmer)
            if not word or (self._check and not _ASCII_TOKEN.fullmatch(word)):
                value = DROPPED
            else:
                value = self.ids.setdefault(word, len(self.ids))
        self[raw] = value
        return value


def _byte_table(sentences: bool) -> bytes:
    table = bytearray(b" " * 256)
    for ch in b"abcdefghijklmnopqrstuvwxyz0123456789":
        table[ch] = ch
    for ch in b"ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        table[ch] = ch + 32
    table[0] = 2  # text separator -> marker
    if sentences:
        table[10] = 1  # newline -> sentence marker
    return bytes(table)


_TABLE_TEXT = _byte_table(False)
_TABLE_SENT = _byte_table(True)


def _fast_bytes(texts: Sequence[str], mode: str, sentences: bool) -> bytes | None:
    """``texts`` joined and reduced to bytes: ``[a-z0-9]`` kept, ``\\x02`` between texts, ``\\x01`` for
    newlines (with ``sentences``), every other byte a space. None when the fast path does not apply (the
    unicode tokenizer on non-ASCII text, or a text holding the separator character itself)."""
    joined = "\x00".join(texts)
    if joined.count("\x00") != len(texts) - 1:
        return None
    if mode == "rouge155":
        data = joined.encode("utf-8")  # every byte of a non-ASCII character separates tokens
    else:
        lowered = joined.lower()
        if mode == "unicode" and not lowered.isascii():
            return None
        data = lowered.encode("ascii", "replace")  # a non-ASCII character ('?') separates tokens
    return data.translate(_TABLE_SENT if sentences else _TABLE_TEXT)


_BYTE_MASK = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_MIX1 = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xC2B2AE3D27D4EB4F)


def _distinct_words(words: np.ndarray, salt: int = 0) -> np.ndarray:
    """Exact de-duplication of 64-bit values: for every item, the index of one item holding the same value.

    A hash table of item indices is filled at once; every item reads its slot's owner and keeps it when the
    owner holds the same value. All items of a value share its slot, so a value is settled in the round where
    one of its items owns the slot; the others go to the next round (a bigger table, another hash).
    """
    n = len(words)
    bits = max(12, min(24, (n // 4).bit_length() + salt))
    mix = np.uint64((0x9E3779B97F4A7C15 * (2 * salt + 1)) & 0xFFFFFFFFFFFFFFFF)
    slot = ((words * mix) >> np.uint64(64 - bits)).astype(np.intp)
    owner = np.empty(1 << bits, dtype=np.int64)  # only written slots are read
    owner[slot] = np.arange(n)
    rep = owner[slot]
    bad = np.flatnonzero(words[rep] != words)
    if len(bad):
        rep[bad] = bad[_distinct_words(words[bad], salt + 1)]
    return rep


def _fast_ids(data: bytes, vocab: _Vocabulary) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Token ids of the reduced bytes (see :func:`_fast_bytes`) without a Python object per token.

    Token boundaries come from numpy. A token of up to 8 bytes is packed into one integer, up to 16 into two;
    equal tokens are found with :func:`_distinct_words`, and only one token of each kind (plus the rare tokens
    of more than 16 bytes, and tokens whose 128 bits hash alike) goes through the vocabulary (stemming, stop
    words), by its bytes. Returns the ids (:data:`DROPPED` for dropped tokens), the byte offset of each token,
    and the byte offsets of the text and sentence markers.
    """
    size = len(data)
    buf = np.frombuffer(data + bytes(16), dtype=np.uint8)
    edges = np.flatnonzero(np.diff((buf[:size] > 47).view(np.int8), prepend=np.int8(0), append=np.int8(0)))
    starts = edges[0::2]
    lens = edges[1::2] - starts
    index = np.arange(len(starts))
    # each token's first 8 bytes (and next 8), read as little-endian integers at unaligned offsets
    window = np.ndarray(shape=(size + 8,), dtype="<u8", buffer=buf, strides=(1,))
    w1 = window[starts] & _BYTE_MASK[np.minimum(lens, 8)]
    w2 = np.zeros_like(w1)
    medium = np.flatnonzero(lens > 8)
    if len(medium):
        w2[medium] = window[starts[medium] + 8] & _BYTE_MASK[np.minimum(lens[medium] - 8, 8)]
        key = w1 ^ (w2 * np.uint64(0xC2B2AE3D27D4EB4F))
    else:
        key = w1
    rep = _distinct_words(key)  # a representative of each token: an item with the same key
    if len(medium):
        # two different tokens with the same key (a hash clash), tokens longer than 16 bytes, and any token whose
        # representative has another length (a 16-byte word whose representative is a longer word that starts
        # with it: their first 16 bytes, and so their keys, are equal): each such token keeps itself as
        # representative and is looked up by its bytes. A fast path may never merge two different words.
        own = (w1[rep] != w1) | (w2[rep] != w2) | (lens > 16) | (lens[rep] != lens)
        rep[own] = index[own]
    first = np.flatnonzero(rep == index)
    id_of = np.empty(len(rep), dtype=np.int64)
    id_of[first] = [vocab[data[a : a + b]] for a, b in zip(starts[first].tolist(), lens[first].tolist(), strict=True)]
    return id_of[rep], starts, np.flatnonzero(buf[:size] < 3)


def _text_tokens(text: str, tokenize: Callable[[str], list[str]], sentences: bool) -> list[str | bytes]:
    if not sentences:
        return list(tokenize(text))
    out: list[str | bytes] = []
    for k, line in enumerate(text.split("\n")):
        if k:
            out.append(b"\x01")
        out.extend(tokenize(line))
    return out


def _slow_tokens(texts: Sequence[str], tokenize: Callable[[str], list[str]], sentences: bool) -> list[str | bytes]:
    out: list[str | bytes] = []
    for k, text in enumerate(texts):
        if k:
            out.append(b"\x02")
        out.extend(_text_tokens(text, tokenize, sentences))
    return out


def _perl_line_tokens(line: str) -> list[str]:
    return _ASCII_TOKEN.findall(line.encode("utf-8").lower().decode("ascii", "replace"))


def encode_texts(
    texts: Sequence[str],
    tokenizer: str | Callable[[str], list[str]],
    *,
    stemmer: str | None = None,
    stopwords: Iterable[str] = (),
    sentences: bool = False,
) -> EncodedTexts:
    """Tokenize, stem and encode ``texts`` as integer ids (see :class:`EncodedTexts`).

    ``tokenizer`` is one of :data:`BUILTIN_TOKENIZERS` or a registry tokenizer (a callable). With
    ``sentences``, newlines separate sentences (texts should already hold one sentence per line).
    """
    stem = get_stemmer(stemmer) if stemmer else None
    stop = frozenset(stopwords)
    vocab = _Vocabulary(stem, stop, check_ascii=tokenizer == "rouge-score")
    data = _fast_bytes(texts, tokenizer, sentences) if isinstance(tokenizer, str) and texts else None
    if data is not None:
        ids, starts, markers = _fast_ids(data, vocab)
        kinds = np.frombuffer(data, dtype=np.uint8)[markers]
        # the index of the token each marker precedes
        before = np.searchsorted(starts, markers)
        return _assemble_parts(ids, before, kinds == 2, len(texts), len(vocab.ids), sentences)
    if callable(tokenizer):
        fn: Callable[[str], list[str]] = functools.partial(registry_tokenize, tokenizer)
    elif tokenizer == "unicode":
        fn = unicode_tokenize
    elif tokenizer == "rouge155":
        fn = _perl_line_tokens
    else:
        fn = rouge_score_tokenize
    raw = _slow_tokens(texts, fn, sentences)
    ids = np.fromiter(map(vocab.__getitem__, raw), dtype=np.int64, count=len(raw))
    is_marker = (ids == TEXT_BREAK) | (ids == SENTENCE_BREAK)
    marker_at = np.flatnonzero(is_marker)
    before = marker_at - np.arange(len(marker_at))  # tokens before each marker
    return _assemble_parts(ids[~is_marker], before, ids[marker_at] == TEXT_BREAK, len(texts), len(vocab.ids), sentences)


def _assemble_parts(
    ids: np.ndarray, before: np.ndarray, is_text: np.ndarray, n_texts: int, vocab_size: int, sentences: bool
) -> EncodedTexts:
    """Build :class:`EncodedTexts` from token ids (some :data:`DROPPED`) and the markers: ``before[k]`` tokens
    precede marker ``k``, a text break when ``is_text[k]``, else a sentence break."""
    kept = ids >= 0
    tokens = ids[kept]
    cum = np.concatenate([[0], np.cumsum(kept)])
    at = cum[before]  # kept tokens before each marker
    text_start = np.concatenate([[0], at[is_text], [len(tokens)]]).astype(np.int64)
    if n_texts == 0:
        text_start = np.zeros(1, dtype=np.int64)
    if not sentences:
        return EncodedTexts(tokens, text_start, vocab_size)
    starts = np.concatenate([[0], at]).astype(np.int64)
    ends = np.concatenate([at, [len(tokens)]]).astype(np.int64)
    text_of = np.concatenate([[0], np.cumsum(is_text)])  # text breaks before each sentence
    keep = ends > starts
    sent_start, sent_len, text_of = starts[keep], (ends - starts)[keep], text_of[keep]
    text_sent = np.searchsorted(text_of, np.arange(n_texts + 1)).astype(np.int64)
    return EncodedTexts(tokens, text_start, vocab_size, sent_start, sent_len, text_sent)
