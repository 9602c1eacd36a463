"""OpenAI Whisper's text normalisers, the ones ASR word error rates are reported after.

* ``whisper-basic``: ``whisper.normalizers.BasicTextNormalizer()`` (lowercase, drop ``[...]``/``<...>`` and
  ``(...)`` spans, every Unicode mark, symbol and punctuation (NFKC) becomes a space, whitespace runs become one
  space).
* ``whisper-english``: ``whisper.normalizers.EnglishTextNormalizer()``: the same spans removed, the fillers
  ``hmm mm mhm mmm uh um`` dropped, contractions and titles spelled out, diacritics removed (NFKD, with Whisper's
  extra table: ``ø`` -> ``o``, ``ß`` -> ``ss``, ...), spelled-out numbers and currencies written in digits
  (``EnglishNumberNormalizer``: "twenty five dollars" -> ``$25``, "one oh one" -> ``101``), British spellings made
  American with Whisper's map (``nlgmetrics/data/whisper/english.json``), the symbols left alone by the numbers
  removed, whitespace runs collapsed.

Both restate ``whisper/normalizers/basic.py`` and ``english.py`` of openai/whisper (commit ``c0d2f62``, MIT
License: see ``nlgmetrics/data/whisper/NOTICE``) step for step, so their output is Whisper's character for
character (the leading or trailing space a step leaves is kept, as there). They differ from the
``whisper-normalizer`` package 0.1.15 (the same code re-exported) in one place: that package's English normaliser
also rewrites ``kinda``, ``sorta``, ``dunno`` and ``cause`` (``because``), which Whisper's does not.

The work is the same; it is only done faster: every step that cannot change a text is skipped after a substring
test (most sentences hold no apostrophe, no digit and no number word), the symbol removal is one ``str.translate``
through a table filled character by character on first sight, and repeated texts are normalised once.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["normalize_many", "remove_symbols", "remove_symbols_and_diacritics", "whisper_basic", "whisper_english"]

#: Non-ASCII letters NFKD does not separate from their marks (Whisper's ``ADDITIONAL_DIACRITICS``).
ADDITIONAL_DIACRITICS = {
    "œ": "oe",
    "Œ": "OE",
    "ø": "o",
    "Ø": "O",
    "æ": "ae",
    "Æ": "AE",
    "ß": "ss",
    "ẞ": "SS",
    "đ": "d",
    "Đ": "D",
    "ð": "d",
    "Ð": "D",
    "þ": "th",
    "Þ": "th",
    "ł": "l",
    "Ł": "L",
}


class _Table(dict):  # type: ignore[type-arg]
    """A ``str.translate`` table that decides each character once, on first sight (``rule(char) -> str``)."""

    def __init__(self, rule: Callable[[str], str]) -> None:
        super().__init__()
        self.rule = rule

    def __missing__(self, code: int) -> str:
        out = self.rule(chr(code))
        self[code] = out
        return out


def _symbol_or_diacritic(keep: str) -> Callable[[str], str]:
    def rule(c: str) -> str:
        if c in keep:
            return c
        if c in ADDITIONAL_DIACRITICS:
            return ADDITIONAL_DIACRITICS[c]
        category = unicodedata.category(c)
        if category == "Mn":
            return ""
        return " " if category[0] in "MSP" else c

    return rule


def _symbol(c: str) -> str:
    return " " if unicodedata.category(c)[0] in "MSP" else c


_DIACRITICS_TABLES: dict[str, _Table] = {}
_SYMBOLS = _Table(_symbol)


def remove_symbols_and_diacritics(s: str, keep: str = "") -> str:
    """Whisper's ``remove_symbols_and_diacritics``: NFKD, then each mark, symbol or punctuation (but those in
    ``keep``) a space, each nonspacing mark (``Mn``) dropped, Whisper's extra letters spelled out."""
    table = _DIACRITICS_TABLES.get(keep)
    if table is None:
        table = _DIACRITICS_TABLES[keep] = _Table(_symbol_or_diacritic(keep))
    return unicodedata.normalize("NFKD", s).translate(table)


def remove_symbols(s: str) -> str:
    """Whisper's ``remove_symbols``: NFKC, then each mark, symbol or punctuation a space."""
    return unicodedata.normalize("NFKC", s).translate(_SYMBOLS)


# ------------------------------------------------------------------------------------------------ basic
_BRACKETS = re.compile(r"[<\[][^>\]]*[>\]]")
_PARENS = re.compile(r"\(([^)]+?)\)")


def _collapse(s: str) -> str:
    """``re.sub(r"\\s+", " ", s)``: ``str.split`` and ``\\s`` know the same whitespace (``str.isspace``); a run at
    either end becomes one space, as the regex leaves it."""
    words = s.split()
    if not words:
        return " " if s else ""
    joined = " ".join(words)
    if s[0].isspace():
        joined = " " + joined
    if s[-1].isspace():
        joined += " "
    return joined


def _lower_unbracketed(s: str) -> str:
    """Both normalisers' first steps: lower case, then words in brackets (``[laughs]``, ``<noise>``) and in
    parentheses removed."""
    s = s.lower()
    if "[" in s or "<" in s:
        s = _BRACKETS.sub("", s)
    if "(" in s:
        s = _PARENS.sub("", s)
    return s


def whisper_basic(s: str) -> str:
    """``BasicTextNormalizer()(s)`` of openai/whisper.

    >>> whisper_basic("Hello, World! [laughs] (aside) Ça va?")
    'hello world ça va '
    """
    s = _lower_unbracketed(s)
    s = remove_symbols(s).lower()
    return _collapse(s)


# ------------------------------------------------------------------------------------------------ numbers
_ONES = [
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_NUMERIC = re.compile(r"^\d+(\.\d+)?$")


class EnglishNumberNormalizer:
    """Whisper's ``EnglishNumberNormalizer``: spelled-out numbers in digits, currency words as symbols before the
    number, ``percent`` as ``%``, ``one oh one`` as ``101``; suffixes kept (``1960s``, ``32nd``)."""

    def __init__(self) -> None:
        self.zeros = {"o", "oh", "zero"}
        self.ones = {name: i for i, name in enumerate(_ONES, start=1)}
        self.ones_plural = {"sixes" if name == "six" else name + "s": (value, "s") for name, value in self.ones.items()}
        self.ones_ordinal = {
            "zeroth": (0, "th"),
            "first": (1, "st"),
            "second": (2, "nd"),
            "third": (3, "rd"),
            "fifth": (5, "th"),
            "twelfth": (12, "th"),
            **{
                name + ("h" if name.endswith("t") else "th"): (value, "th")
                for name, value in self.ones.items()
                if value > 3 and value != 5 and value != 12
            },
        }
        self.ones_suffixed = {**self.ones_plural, **self.ones_ordinal}
        self.tens = {
            "twenty": 20,
            "thirty": 30,
            "forty": 40,
            "fifty": 50,
            "sixty": 60,
            "seventy": 70,
            "eighty": 80,
            "ninety": 90,
        }
        self.tens_plural = {name.replace("y", "ies"): (value, "s") for name, value in self.tens.items()}
        self.tens_ordinal = {name.replace("y", "ieth"): (value, "th") for name, value in self.tens.items()}
        self.tens_suffixed = {**self.tens_plural, **self.tens_ordinal}
        names = ["hundred", "thousand", "million", "billion", "trillion", "quadrillion", "quintillion"]
        names += ["sextillion", "septillion", "octillion", "nonillion", "decillion"]
        self.multipliers = {"hundred": 100, **{name: 1000**i for i, name in enumerate(names[1:], start=1)}}
        self.multipliers_plural = {name + "s": (value, "s") for name, value in self.multipliers.items()}
        self.multipliers_ordinal = {name + "th": (value, "th") for name, value in self.multipliers.items()}
        self.multipliers_suffixed = {**self.multipliers_plural, **self.multipliers_ordinal}
        self.decimals = {*self.ones, *self.tens, *self.zeros}
        self.preceding_prefixers = {"minus": "-", "negative": "-", "plus": "+", "positive": "+"}
        self.following_prefixers = {
            "pound": "£",
            "pounds": "£",
            "euro": "€",
            "euros": "€",
            "dollar": "$",
            "dollars": "$",
            "cent": "¢",
            "cents": "¢",
        }
        self.prefixes = set(list(self.preceding_prefixers.values()) + list(self.following_prefixers.values()))
        self.suffixers: dict[str, Any] = {"per": {"cent": "%"}, "percent": "%"}
        self.specials = {"and", "double", "triple", "point"}
        self.words = {
            key
            for mapping in [
                self.zeros,
                self.ones,
                self.ones_suffixed,
                self.tens,
                self.tens_suffixed,
                self.multipliers,
                self.multipliers_suffixed,
                self.preceding_prefixers,
                self.following_prefixers,
                self.suffixers,
                self.specials,
            ]
            for key in mapping
        }
        #: The words that can change a text ("and" alone never does: it changes nothing next to a non-number).
        self.active_words = frozenset(self.words - {"and"})

    def process_words(self, words: list[str]) -> Iterator[str]:  # Whisper's state machine, as written
        prefix: str | None = None
        value: str | int | None = None
        skip = False

        def to_fraction(s: str) -> Fraction | None:
            try:
                return Fraction(s)
            except ValueError:
                return None

        def output(result: str | int) -> str:
            nonlocal prefix, value
            result = str(result)
            if prefix is not None:
                result = prefix + result
            value = None
            prefix = None
            return result

        if len(words) == 0:
            return
        padded: list[str | None] = [None, *words, None]
        for prev, current, next in zip(padded, words, padded[2:], strict=False):  # Whisper's names
            if skip:
                skip = False
                continue
            # r"^\d+(\.\d+)?$" starts with a decimal digit: the regex only runs on such words
            next_is_numeric = next is not None and next[:1].isdecimal() and _NUMERIC.match(next)
            has_prefix = current[0] in self.prefixes
            current_without_prefix = current[1:] if has_prefix else current
            if current_without_prefix[:1].isdecimal() and _NUMERIC.match(current_without_prefix):
                f = to_fraction(current_without_prefix)
                assert f is not None
                if value is not None:
                    if isinstance(value, str) and value.endswith("."):
                        value = str(value) + str(current)  # concatenate decimals / ip address components
                        continue
                    yield output(value)
                prefix = current[0] if has_prefix else prefix
                value = f.numerator if f.denominator == 1 else current_without_prefix
            elif current not in self.words:
                if value is not None:
                    yield output(value)
                yield output(current)
            elif current in self.zeros:
                value = str(value or "") + "0"
            elif current in self.ones:
                ones = self.ones[current]
                if value is None:
                    value = ones
                elif isinstance(value, str) or prev in self.ones:
                    if prev in self.tens and ones < 10:
                        assert isinstance(value, str)
                        assert value[-1] == "0"
                        value = value[:-1] + str(ones)
                    else:
                        value = str(value) + str(ones)
                elif ones < 10:
                    value = value + ones if value % 10 == 0 else str(value) + str(ones)
                else:  # eleven to nineteen
                    value = value + ones if value % 100 == 0 else str(value) + str(ones)
            elif current in self.ones_suffixed:
                ones, suffix = self.ones_suffixed[current]
                if value is None:
                    yield output(str(ones) + suffix)
                elif isinstance(value, str) or prev in self.ones:
                    if prev in self.tens and ones < 10:
                        assert isinstance(value, str)
                        assert value[-1] == "0"
                        yield output(value[:-1] + str(ones) + suffix)
                    else:
                        yield output(str(value) + str(ones) + suffix)
                elif ones < 10:
                    if value % 10 == 0:
                        yield output(str(value + ones) + suffix)
                    else:
                        yield output(str(value) + str(ones) + suffix)
                else:
                    if value % 100 == 0:
                        yield output(str(value + ones) + suffix)
                    else:
                        yield output(str(value) + str(ones) + suffix)
                value = None
            elif current in self.tens:
                tens = self.tens[current]
                if value is None:
                    value = tens
                elif isinstance(value, str):
                    value = str(value) + str(tens)
                else:
                    value = value + tens if value % 100 == 0 else str(value) + str(tens)
            elif current in self.tens_suffixed:
                tens, suffix = self.tens_suffixed[current]
                if value is None:
                    yield output(str(tens) + suffix)
                elif isinstance(value, str):
                    yield output(str(value) + str(tens) + suffix)
                elif value % 100 == 0:
                    yield output(str(value + tens) + suffix)
                else:
                    yield output(str(value) + str(tens) + suffix)
            elif current in self.multipliers:
                multiplier = self.multipliers[current]
                if value is None:
                    value = multiplier
                elif isinstance(value, str) or value == 0:
                    f = to_fraction(value)  # type: ignore[arg-type]
                    p = f * multiplier if f is not None else None
                    if f is not None and p is not None and p.denominator == 1:
                        value = p.numerator
                    else:
                        yield output(value)
                        value = multiplier
                else:
                    before = value // 1000 * 1000
                    residual = value % 1000
                    value = before + residual * multiplier
            elif current in self.multipliers_suffixed:
                multiplier, suffix = self.multipliers_suffixed[current]
                if value is None:
                    yield output(str(multiplier) + suffix)
                elif isinstance(value, str):
                    f = to_fraction(value)
                    p = f * multiplier if f is not None else None
                    if f is not None and p is not None and p.denominator == 1:
                        yield output(str(p.numerator) + suffix)
                    else:
                        yield output(value)
                        yield output(str(multiplier) + suffix)
                else:
                    before = value // 1000 * 1000
                    residual = value % 1000
                    value = before + residual * multiplier
                    yield output(str(value) + suffix)
                value = None
            elif current in self.preceding_prefixers:
                if value is not None:
                    yield output(value)
                if next in self.words or next_is_numeric:
                    prefix = self.preceding_prefixers[current]
                else:
                    yield output(current)
            elif current in self.following_prefixers:
                if value is not None:
                    prefix = self.following_prefixers[current]
                    yield output(value)
                else:
                    yield output(current)
            elif current in self.suffixers:
                if value is not None:
                    suffix = self.suffixers[current]
                    if isinstance(suffix, dict):
                        if next in suffix:
                            yield output(str(value) + suffix[next])
                            skip = True
                        else:
                            yield output(value)
                            yield output(current)
                    else:
                        yield output(str(value) + suffix)
                else:
                    yield output(current)
            elif current in self.specials:
                if next not in self.words and not next_is_numeric:
                    if value is not None:
                        yield output(value)
                    yield output(current)
                elif current == "and":
                    if prev not in self.multipliers:  # "and" after hundreds, thousands, ... is dropped
                        if value is not None:
                            yield output(value)
                        yield output(current)
                elif current in ("double", "triple"):
                    if next in self.ones or next in self.zeros:
                        repeats = 2 if current == "double" else 3
                        ones = self.ones.get(next, 0)  # type: ignore[arg-type]
                        value = str(value or "") + str(ones) * repeats
                        skip = True
                    else:
                        if value is not None:
                            yield output(value)
                        yield output(current)
                elif current == "point":
                    if next in self.decimals or next_is_numeric:
                        value = str(value or "") + "."
                else:
                    raise ValueError(f"Unexpected token: {current}")
            else:
                raise ValueError(f"Unexpected token: {current}")
        if value is not None:
            yield output(value)

    def preprocess(self, s: str) -> str:
        results = []
        segments = _AND_A_HALF.split(s)  # "<number> and a half" -> "<number> point five"
        for i, segment in enumerate(segments):
            if len(segment.strip()) == 0:
                continue
            if i == len(segments) - 1:
                results.append(segment)
            else:
                results.append(segment)
                last_word = segment.rsplit(maxsplit=2)[-1]
                if last_word in self.decimals or last_word in self.multipliers:
                    results.append("point five")
                else:
                    results.append("and a half")
        s = " ".join(results)
        s = _LETTER_DIGIT.sub(r"\1 \2", s)  # a space at each letter/number boundary
        s = _DIGIT_LETTER.sub(r"\1 \2", s)
        return _SUFFIX.sub(r"\1\2", s)  # but not before a suffix

    def postprocess(self, s: str) -> str:
        def combine_cents(m: re.Match[str]) -> str:
            try:
                return f"{m.group(1)}{m.group(2)}.{int(m.group(3)):02d}"
            except ValueError:
                return m.string

        def extract_cents(m: re.Match[str]) -> str:
            try:
                return f"¢{int(m.group(1))}"
            except ValueError:
                return m.string

        s = _CENTS.sub(combine_cents, s)  # "$2 and ¢7" -> "$2.07"
        s = _ZERO_CENTS.sub(extract_cents, s)
        return _ONE.sub(r"one\1", s)  # "one(s)" rather than "1(s)"

    def __call__(self, s: str) -> str:
        if _DIGIT.search(s) is None and self.active_words.isdisjoint(s.split()) and "half" not in s:
            # nothing numeric: Whisper's steps would give the words joined by single spaces
            return " ".join(s.split())
        s = self.preprocess(s)
        s = " ".join(word for word in self.process_words(s.split()) if word is not None)
        return self.postprocess(s)


_AND_A_HALF = re.compile(r"\band\s+a\s+half\b")
_LETTER_DIGIT = re.compile(r"([a-z])([0-9])")
_DIGIT_LETTER = re.compile(r"([0-9])([a-z])")
_SUFFIX = re.compile(r"([0-9])\s+(st|nd|rd|th|s)\b")
_CENTS = re.compile(r"([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b")
_ZERO_CENTS = re.compile(r"[€£$]0.([0-9]{1,2})\b")
_ONE = re.compile(r"\b1(s?)\b")
_DIGIT = re.compile(r"\d")


# ------------------------------------------------------------------------------------------------ English
#: Whisper's replacements, in its order, each with a substring the text must hold for it to match (it is only
#: tried then).
_REPLACERS: list[tuple[str, str, str]] = [
    (r"\bwon't\b", "will not", "won't"),
    (r"\bcan't\b", "can not", "can't"),
    (r"\blet's\b", "let us", "let's"),
    (r"\bain't\b", "aint", "ain't"),
    (r"\by'all\b", "you all", "y'all"),
    (r"\bwanna\b", "want to", "wanna"),
    (r"\bgotta\b", "got to", "gotta"),
    (r"\bgonna\b", "going to", "gonna"),
    (r"\bi'ma\b", "i am going to", "i'ma"),
    (r"\bimma\b", "i am going to", "imma"),
    (r"\bwoulda\b", "would have", "woulda"),
    (r"\bcoulda\b", "could have", "coulda"),
    (r"\bshoulda\b", "should have", "shoulda"),
    (r"\bma'am\b", "madam", "ma'am"),
    (r"\bmr\b", "mister ", "mr"),
    (r"\bmrs\b", "missus ", "mrs"),
    (r"\bst\b", "saint ", "st"),
    (r"\bdr\b", "doctor ", "dr"),
    (r"\bprof\b", "professor ", "prof"),
    (r"\bcapt\b", "captain ", "capt"),
    (r"\bgov\b", "governor ", "gov"),
    (r"\bald\b", "alderman ", "ald"),
    (r"\bgen\b", "general ", "gen"),
    (r"\bsen\b", "senator ", "sen"),
    (r"\brep\b", "representative ", "rep"),
    (r"\bpres\b", "president ", "pres"),
    (r"\brev\b", "reverend ", "rev"),
    (r"\bhon\b", "honorable ", "hon"),
    (r"\basst\b", "assistant ", "asst"),
    (r"\bassoc\b", "associate ", "assoc"),
    (r"\blt\b", "lieutenant ", "lt"),
    (r"\bcol\b", "colonel ", "col"),
    (r"\bjr\b", "junior ", "jr"),
    (r"\bsr\b", "senior ", "sr"),
    (r"\besq\b", "esquire ", "esq"),
    (r"'d been\b", " had been", "'d been"),
    (r"'s been\b", " has been", "'s been"),
    (r"'d gone\b", " had gone", "'d gone"),
    (r"'s gone\b", " has gone", "'s gone"),
    (r"'d done\b", " had done", "'d done"),
    (r"'s got\b", " has got", "'s got"),
    (r"n't\b", " not", "n't"),
    (r"'re\b", " are", "'re"),
    (r"'s\b", " is", "'s"),
    (r"'d\b", " would", "'d"),
    (r"'ll\b", " will", "'ll"),
    (r"'t\b", " not", "'t"),
    (r"'ve\b", " have", "'ve"),
    (r"'m\b", " am", "'m"),
]
_COMPILED = [(re.compile(p), r, needle) for p, r, needle in _REPLACERS]
_FILLERS = re.compile(r"\b(hmm|mm|mhm|mmm|uh|um)\b")
_SPACE_APOSTROPHE = re.compile(r"\s+'")
_DIGIT_COMMA = re.compile(r"(\d),(\d)")
_PERIOD = re.compile(r"\.([^0-9]|$)")
_LONE_PREFIX = re.compile(r"[.$¢€£]([^0-9])")
_LONE_PERCENT = re.compile(r"([^0-9])%")


@cache
def _spellings() -> dict[str, str]:
    text = resources.files("nlgmetrics").joinpath("data/whisper/english.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


@cache
def _numbers() -> EnglishNumberNormalizer:
    return EnglishNumberNormalizer()


def whisper_english(s: str) -> str:
    """``EnglishTextNormalizer()(s)`` of openai/whisper.

    >>> whisper_english("Mr. Smith's colour TV cost twenty-five dollars and fifty cents, didn't it?")
    'mister smith is color tv cost $25.50 did not it'
    """
    s = _lower_unbracketed(s)
    if "mm" in s or "mh" in s or "uh" in s or "um" in s:  # hmm mm mhm mmm uh um
        s = _FILLERS.sub("", s)
    if "'" in s:
        s = _SPACE_APOSTROPHE.sub("'", s)
    for pattern, replacement, needle in _COMPILED:
        if needle in s:
            s = pattern.sub(replacement, s)
    if "," in s:
        s = _DIGIT_COMMA.sub(r"\1\2", s)
    if "." in s:
        s = _PERIOD.sub(r" \1", s)
    s = remove_symbols_and_diacritics(s, keep=".%$¢€£")
    s = _numbers()(s)
    mapping = _spellings()
    s = " ".join(mapping.get(word, word) for word in s.split())  # single spaces, none at the ends
    spaced = False
    if any(c in s for c in ".$¢€£"):
        s = _LONE_PREFIX.sub(r" \1", s)
        spaced = True
    if "%" in s:
        s = _LONE_PERCENT.sub(r"\1 ", s)
        spaced = True
    return _collapse(s) if spaced else s


#: The normalisers by name, as ``normalizer=`` takes them.
NORMALIZERS: dict[str, Callable[[str], str]] = {"whisper-basic": whisper_basic, "whisper-english": whisper_english}


def normalize_many(name: str, texts: Sequence[str]) -> list[str]:
    """One of :data:`NORMALIZERS` over a list, each distinct text once (transcripts repeat)."""
    fn = NORMALIZERS[name]
    seen: dict[str, str] = {}
    out = []
    for t in texts:
        r = seen.get(t)
        if r is None:
            r = seen[t] = fn(t)
        out.append(r)
    return out
