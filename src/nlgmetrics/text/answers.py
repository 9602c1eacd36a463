"""Answer normalisation for exact match and question answering, each rule as its reference writes it.

Every function here is a restatement of one reference's rule; the names say whose:

* :func:`squad_normalize`: SQuAD v1.1 and v2.0's official ``normalize_answer`` (lowercase, delete the 32 ASCII
  characters of ``string.punctuation``, replace the words ``a``/``an``/``the`` by a space, collapse whitespace).
* :func:`jsquad_normalize`: JGLUE's JSQuAD patch of transformers 4.9.2 ``squad_metrics.normalize_answer``
  (lowercase, strip trailing ``。``, collapse whitespace; no punctuation or article removal).
* :func:`cmrc_remove_punctuation` and :func:`cmrc_mixed_segmentation`: CMRC 2018's evaluation script (v6).
* :func:`ja_width`: full-width ASCII to ASCII and half-width katakana to full width, nothing else.
* :func:`hf_evaluate_normalize`: Hugging Face ``evaluate``'s ``exact_match`` options, with its numpy calls.

Batch versions work on a list at once (one ``str`` operation over the joined texts where that is exact).
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from collections.abc import Callable, Collection, Sequence
from functools import cache
from typing import Any

import numpy as np

from ..errors import InvalidInputError, MissingDependencyError

__all__ = [
    "CMRC_PUNCTUATION",
    "NORMALIZERS",
    "cmrc_mixed_segmentation",
    "cmrc_remove_punctuation",
    "hf_evaluate_normalize",
    "ja_width",
    "jsquad_normalize",
    "jsquad_normalize_many",
    "squad_normalize",
    "squad_normalize_many",
]

# ---------------------------------------------------------------------------------------------------- SQuAD
_SQUAD_PUNCT = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
#: The same matches as ``_ARTICLES`` (a test checks it), but starting with a character class lets the regex
#: engine skip ahead to the next ``a`` or ``t`` instead of trying every position: twice as fast on long texts.
_ARTICLES_FAST = re.compile(r"[at](?<=\b[at])(?:(?<=a)n?|(?<=t)he)\b")
_PUNCT_BYTES = string.punctuation.encode("ascii")
#: Joins texts for the batch path: not whitespace, not punctuation, not a word character, not cased and not
#: case-ignorable, so lowercasing, punctuation removal and the article regex treat it like a text boundary.
_SEP = "\x00"


def squad_normalize(text: str) -> str:
    """SQuAD's ``normalize_answer``: ``white_space_fix(remove_articles(remove_punc(lower(s))))``.

    >>> squad_normalize("The  Denver Broncos!")
    'denver broncos'
    """
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_SQUAD_PUNCT)).split())


def _collapse_joined(joined: str) -> list[str]:
    """``" ".join(part.split())`` of every part of ``joined`` (parts separated by the separator, which is not
    whitespace), in whole-string passes instead of two calls per part."""
    collapsed = " ".join(joined.split())  # whitespace runs are one space now: at most one on each side of a separator
    return collapsed.replace(" " + _SEP, _SEP).replace(_SEP + " ", _SEP).split(_SEP)


def _normalize_many(one: Callable[[str], str], joined_pass: Callable[[str], str], texts: Sequence[str]) -> list[str]:
    """``one`` of every text, computed for the distinct texts only and mapped back (answers repeat a lot): over
    them joined by the separator, ``joined_pass`` then one whitespace collapse in whole-string passes, or
    ``one`` text by text when a text holds the separator itself."""
    uniq = list(dict.fromkeys(texts))
    joined = _joinable(uniq)
    done = [one(t) for t in uniq] if joined is None or not uniq else _collapse_joined(joined_pass(joined))
    if len(uniq) == len(texts):
        return done
    table = dict(zip(uniq, done, strict=True))
    return [table[t] for t in texts]


def _joinable(texts: Sequence[str]) -> str | None:
    joined = _SEP.join(texts)
    return joined if joined.count(_SEP) == len(texts) - 1 else None  # no text may hold the separator itself


def squad_normalize_many(texts: Sequence[str]) -> list[str]:
    """:func:`squad_normalize` of every text, with one lowercase, punctuation, article and whitespace pass over
    the joined texts (the separator behaves as a text boundary in each step, so the results are the per-text
    ones).

    >>> squad_normalize_many(["The  Denver Broncos!", "", " an  apple "])
    ['denver broncos', '', 'apple']
    """
    return _normalize_many(squad_normalize, _squad_joined, texts)


def _squad_joined(joined: str) -> str:
    # ASCII punctuation deleted from the UTF-8 bytes (no byte of a multi-byte character is ASCII): one C pass
    no_punct = joined.lower().encode("utf-8", "surrogatepass").translate(None, _PUNCT_BYTES)
    return _ARTICLES_FAST.sub(" ", no_punct.decode("utf-8", "surrogatepass"))


# ---------------------------------------------------------------------------------------------------- JSQuAD
def jsquad_normalize(text: str) -> str:
    """JGLUE's JSQuAD ``normalize_answer``: lowercase, ``rstrip("。")``, then collapse whitespace (in that order,
    so a ``。`` followed by a space stays).

    >>> jsquad_normalize("東京都。"), jsquad_normalize("東京都。 ")
    ('東京都', '東京都。')
    """
    return " ".join(text.lower().rstrip("。").split())


_TRAILING_MARU = re.compile("。+(?=\x00|\\Z)")


def jsquad_normalize_many(texts: Sequence[str]) -> list[str]:
    """:func:`jsquad_normalize` of every text, in whole-string passes (see :func:`squad_normalize_many`).

    >>> jsquad_normalize_many(["東京都。", "東京都。 ", ""])
    ['東京都', '東京都。', '']
    """
    return _normalize_many(jsquad_normalize, lambda joined: _TRAILING_MARU.sub("", joined.lower()), texts)


# ---------------------------------------------------------------------------------------------------- CMRC 2018
#: ``sp_char`` of the CMRC 2018 script. Membership is tested one character at a time, so its two-character item
#: ``"……"`` never matches: the script never removes ``…``.
CMRC_PUNCTUATION = frozenset(
    c
    for c in [
        "-",
        ":",
        "_",
        "*",
        "^",
        "/",
        "\\",
        "~",
        "`",
        "+",
        "=",
        "，",
        "。",
        "：",
        "？",
        "！",
        "“",
        "”",
        "；",
        "’",
        "《",
        "》",
        "……",
        "·",
        "、",
        "「",
        "」",
        "（",
        "）",
        "－",
        "～",
        "『",
        "』",
    ]
    if len(c) == 1
)
_CMRC_HAN = re.compile(r"[\u4e00-\u9fa5]")


def cmrc_remove_punctuation(text: str) -> str:
    """CMRC 2018's ``remove_punctuation``: lowercase, strip, drop the characters of ``sp_char``."""
    return "".join(c for c in text.lower().strip() if c not in CMRC_PUNCTUATION)


@cache
def _nltk_word_tokenizer() -> tuple[Any, Any, Callable[[str], list[str]] | None]:
    try:
        from nltk.tokenize import NLTKWordTokenizer
        from nltk.tokenize.punkt import PunktLanguageVars
    except ImportError as err:
        raise MissingDependencyError(
            "the cmrc2018 preset (NLTK's word_tokenize)", "pip install 'nlgmetrics[zh]'"
        ) from err
    punkt: Callable[[str], list[str]] | None
    try:
        from nltk import word_tokenize

        word_tokenize("a. B")  # the punkt model is installed
        punkt = word_tokenize
    except LookupError:
        punkt = None
    return NLTKWordTokenizer(), PunktLanguageVars().period_context_re(), punkt


def _cmrc_word_tokenize(run: str) -> list[str]:
    """``nltk.word_tokenize(run)``: punkt sentences, then NLTK's Treebank word tokenizer on each.

    Where punkt finds no candidate sentence end in ``run`` (no ``.``, ``?`` or ``!`` followed by whitespace or
    by other punctuation), it returns the one sentence ``run.rstrip()`` whatever its trained model says, so the
    model is not needed. Otherwise the decision is the model's: NLTK's punkt model must then be installed.
    """
    treebank, candidates, punkt = _nltk_word_tokenizer()
    if candidates.search(run) is None:
        sentence = run.rstrip()
        return treebank.tokenize(sentence) if sentence else []
    if punkt is None:
        raise MissingDependencyError(
            f"CMRC 2018's segmentation of {run!r} (a possible sentence end inside a non-Chinese run, which "
            "nltk.word_tokenize decides with its punkt model)",
            "pip install nltk && python -m nltk.downloader punkt_tab",
        )
    return list(punkt(run))


def cmrc_mixed_segmentation(text: str, rm_punc: bool = True) -> list[str]:
    """CMRC 2018's ``mixed_segmentation``: each CJK ideograph (U+4E00-U+9FA5) and, without ``rm_punc``, each
    ``sp_char`` character is a segment; the runs between them are split by ``nltk.word_tokenize``.

    >>> cmrc_mixed_segmentation("北京 Olympic Games2008年")
    ['北', '京', 'olympic', 'games2008', '年']
    """
    segs: list[str] = []
    run: list[str] = []
    for c in text.lower().strip():
        if rm_punc and c in CMRC_PUNCTUATION:
            continue
        if c in CMRC_PUNCTUATION or _CMRC_HAN.match(c):
            if run:
                segs.extend(_cmrc_word_tokenize("".join(run)))
                run = []
            segs.append(c)
        else:
            run.append(c)
    if run:
        segs.extend(_cmrc_word_tokenize("".join(run)))
    return segs


# ---------------------------------------------------------------------------------------------------- width
_FULL_ASCII = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}
_FULL_ASCII[0x3000] = 0x20  # the ideographic space
_HALF_KANA = re.compile("[\uff61-\uff9f]+")


def ja_width(text: str) -> str:
    """Full-width ASCII (U+FF01-U+FF5E) and the ideographic space become ASCII; half-width katakana and
    punctuation (U+FF61-U+FF9F) become their full-width forms, voiced marks combined (as NFKC maps them).
    Nothing else changes (unlike NFKC, which also rewrites ①, ㍻, ﬁ, superscripts...).

    >>> ja_width("ＡＢＣ１２３　ｶﾞｷﾞ｡")
    'ABC123 ガギ。'
    """
    text = text.translate(_FULL_ASCII)
    if _HALF_KANA.search(text) is None:
        return text
    return _HALF_KANA.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)


def nfkc(text: str) -> str:
    """Unicode NFKC (``unicodedata.normalize("NFKC", text)``)."""
    return unicodedata.normalize("NFKC", text)


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _remove_whitespace(text: str) -> str:
    return "".join(text.split())


#: Named per-text normalisers that compose (the exact-match family applies them left to right).
NORMALIZERS: dict[str, Callable[[str], str]] = {
    "squad": squad_normalize,
    "jsquad": jsquad_normalize,
    "cmrc2018": cmrc_remove_punctuation,
    "nfkc": nfkc,
    "casefold": str.casefold,
    "lower": str.lower,
    "strip-whitespace": str.strip,
    "collapse-whitespace": _collapse,
    "remove-whitespace": _remove_whitespace,
    "ja-width": ja_width,
    # OpenAI Whisper's (nlgmetrics.text.whisper, imported on first use)
    "whisper-english": lambda text: _whisper("whisper-english", [text])[0],
    "whisper-basic": lambda text: _whisper("whisper-basic", [text])[0],
}


def _whisper(name: str, texts: list[str]) -> list[str]:
    from .whisper import normalize_many as whisper_many

    return whisper_many(name, texts)


def normalize_many(name: str, texts: list[str]) -> list[str]:
    """One named normaliser over a list (the batch path where there is one)."""
    if name == "squad":
        return squad_normalize_many(texts)
    if name.startswith("whisper-"):
        return _whisper(name, texts)
    fn = NORMALIZERS[name]
    return [fn(t) for t in texts]


# ---------------------------------------------------------------------------------------------------- HF evaluate
def compile_patterns(patterns: Sequence[str], option: str) -> list[re.Pattern[str]]:
    """Compile each pattern, or raise :class:`InvalidInputError` naming the option and the index."""
    out = []
    for i, p in enumerate(patterns):
        if not isinstance(p, str):
            raise InvalidInputError(f"{option}[{i}] must be a regular expression (a string), got {p!r}")
        try:
            out.append(re.compile(p))
        except re.error as e:
            raise InvalidInputError(f"{option}[{i}] = {p!r} is not a valid regular expression: {e}") from None
    return out


_HF_PUNCT = string.punctuation.maketrans("", "", string.punctuation)
_HF_DIGITS = string.digits.maketrans("", "", string.digits)


#: ``(?s).*LITERAL``: everything up to the last LITERAL (lm-evaluation-harness' gsm8k ignores ``(?s).*#### ``).
_UP_TO_LAST = re.compile(r"\(\?s\)\.\*([^\\.^$*+?{}\[\]|()]+)")


@functools.lru_cache(maxsize=256)
def deleter(pattern: str) -> Callable[[str], str]:
    """``lambda text: re.sub(pattern, "", text)``, the same result. ``(?s).*LITERAL`` (a literal without regex
    syntax) is done as what it means, deleting the text up to and including the last ``LITERAL``, in linear time:
    ``re`` searches for it from every position, each scan running to the end of the text and back, quadratic in
    a text without ``LITERAL`` (a 1 MB gsm8k reference without ``####`` ran for minutes)."""
    m = _UP_TO_LAST.fullmatch(pattern)
    if m is None:
        return functools.partial(re.compile(pattern).sub, "")
    literal = m.group(1)

    def delete_up_to_last(text: str) -> str:
        k = text.rfind(literal)
        return text if k < 0 else text[k + len(literal) :]

    return delete_up_to_last


def hf_evaluate_normalize(
    texts: list[str],
    regexes_to_ignore: Sequence[str] = (),
    ignore_case: bool = False,
    ignore_punctuation: bool = False,
    ignore_numbers: bool = False,
    where: Callable[[int], str] = lambda i: f"text {i}",
    linear: Collection[str] = (),
) -> list[str]:
    """Hugging Face ``evaluate``'s ``exact_match`` transformations, with the same numpy calls in the same order:
    each regex of ``regexes_to_ignore`` deleted (``re.sub``), then ``np.char.lower``, then ``np.char.translate``
    deleting ``string.punctuation``, then deleting ``string.digits``. Going through a numpy string array also
    drops trailing NUL characters, as there. Each regex runs on each text within the time limit of
    :mod:`nlgmetrics.text.regex_limit` (``where(i)`` names text ``i`` in its error; the patterns in ``linear``
    are known to run in linear time).

    >>> hf_evaluate_normalize(["Agent007?", "the cat"], ["the "], True, True, True)
    ['agent', 'cat']
    """
    if not texts:
        return []
    arr: Any
    if regexes_to_ignore:
        from .regex_limit import LINEAR_UNTIMED, timed_map

        arr = texts
        if all(s in linear for s in regexes_to_ignore) and max(map(len, texts)) < LINEAR_UNTIMED:
            for s in regexes_to_ignore:  # linear patterns on short texts (deleting only shortens them): no timer
                delete = deleter(s)
                arr = np.array([delete(x) for x in arr])
        else:
            for s in regexes_to_ignore:
                arr = np.array(timed_map(deleter(s), arr, s, "regexes_to_ignore", where, linear=s in linear))
    else:
        arr = np.asarray(texts)
    if ignore_case:
        arr = np.char.lower(arr)
    if ignore_punctuation:
        arr = np.char.translate(arr, table=_HF_PUNCT)  # type: ignore[call-overload]
    if ignore_numbers:
        arr = np.char.translate(arr, table=_HF_DIGITS)  # type: ignore[call-overload]
    return [str(x) for x in arr.tolist()]
