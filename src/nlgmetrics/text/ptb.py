"""The caption tokenizer of the COCO evaluation (pycocoevalcap), in pure Python: no Java.

pycocoevalcap 1.2's ``PTBTokenizer`` writes every caption (``"\\n"`` replaced by a space) as one line of a file,
runs Stanford CoreNLP 3.4.1's ``edu.stanford.nlp.process.PTBTokenizer -preserveLines -lowerCase`` on it, splits
each output line on ``" "`` and drops the tokens ``'' ' `` ` -LRB- -RRB- -LCB- -RCB- . ? ! , : - -- ... ;``
(the bracket names never match: they are compared after lowercasing, so ``-lrb-`` stays), and joins the rest with
one space. :func:`coco_tokenize` returns that string for one caption.

The Stanford tokenizer is a JFlex lexer: at each position the rule with the longest match wins (counting a
rule's trailing context), the earlier rule on a tie. This module restates its rules (CoreNLP 3.4.1, the default
options of its command line: PTB3 escaping, no americanisation, untokenizable characters deleted) as Python
regular expressions and applies them the same way, with a fast path for plain words. It is written from the
documented behaviour and checked against the real tokenizer (see ``tests/parity/test_coco_parity.py``); no code
of the tokenizer was reused.

What the Java tokenizer sees and this module reproduces or not:

* pycocoevalcap tokenizes all captions as one file, so a caption's tokens can depend on the caption after it: one
  ending in a single letter and a period (``"plan B."``) loses that period when the next caption starts with one
  of the lexer's sentence-start words (``"A "``, ``"The "``, ...), and one ending in ``"no."``, ``"fig."``,
  ``"ca."`` ... keeps it when the next one starts with a digit; the last caption of the file ends at the end of
  the file. :func:`coco_tokenize_stream` reproduces that for captions given in pycocoevalcap's order (CIDEr and
  the COCO suite use it for each batch they score); :func:`coco_tokenize` tokenizes one caption on its own, as if a
  line break and a neutral line followed it.
* The characters ``\\r``, ``\\x0b``, ``\\x0c``, U+2028 and U+2029 end a line for the Java tokenizer, which shifts
  every later caption of pycocoevalcap onto the wrong image; here they separate tokens like a space.
* Characters outside the Basic Multilingual Plane (emoji) reach the Java lexer as two UTF-16 halves that no rule
  matches, so it deletes them; here too, also inside words (where they separate the two parts).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "PUNCTUATIONS",
    "coco_rouge_tokens",
    "coco_tokenize",
    "coco_tokenize_stream",
    "coco_tokens",
    "ptb_tokens",
    "split_space_tokens",
]

#: pycocoevalcap's ``PUNCTUATIONS``: tokens dropped after tokenization (compared with the lowercased tokens).
PUNCTUATIONS = frozenset(
    ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...", ";"]
)

# ============================================================================================ pattern helpers
_CLASS = re.compile(r"\[(?:\\.|[^\]\\])*\]|\\u[0-9A-Fa-f]{4}|\\.|\(\?[:=!]|\{\d+(?:,\d*)?\}|.", re.S)


def _ci(pattern: str) -> str:
    """JFlex's ``%caseless`` for a pattern written in Python syntax: ASCII letters outside character classes
    match either case; character classes and escapes are left as they are (JFlex does not expand classes)."""
    out = []
    for m in _CLASS.finditer(pattern):
        tok = m.group()
        if len(tok) == 1 and tok.isascii() and tok.isalpha():
            out.append(f"[{tok.lower()}{tok.upper()}]")
        else:
            out.append(tok)
    return "".join(out)


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a pattern (split on ``|`` outside groups and classes). Python's regular
    expressions take the first alternative that matches, JFlex the longest: the lexer tries each one."""
    out, depth, start = [], 0, 0
    for m in _CLASS.finditer(pattern):
        tok = m.group()
        if tok.startswith("("):
            depth += 1
        elif tok == ")":
            depth -= 1
        elif tok == "|" and depth == 0:
            out.append(pattern[start : m.start()])
            start = m.end()
    out.append(pattern[start:])
    return out


def _first_class(pattern: str) -> str:
    """A regular expression matching every character a match of ``pattern`` can start with (from the parse tree
    of the pattern; it may match too many characters, never too few). The lexer tries at each position only the
    rules that can start there."""
    try:  # the parser of the standard library's regular expressions (private, but stable since Python 3.5)
        from re import _constants as sc  # type: ignore[attr-defined]
        from re import _parser as sp  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_constants as sc  # type: ignore[no-redef]
        import sre_parse as sp  # type: ignore[no-redef]

    def char(code: int) -> str:
        return f"\\U{code:08X}"

    def in_set(items: list[tuple[object, object]]) -> str:
        body = []
        negate = False
        for op, av in items:
            if op is sc.NEGATE:
                negate = True
            elif op is sc.LITERAL:
                body.append(char(av))  # type: ignore[arg-type]
            elif op is sc.RANGE:
                bounds: Any = av
                body.append(f"{char(bounds[0])}-{char(bounds[1])}")
            elif op is sc.CATEGORY:
                cls = next((c for key, c in _CATEGORY_CLASS if key in str(av)), None)
                if cls is None:
                    return "[\\s\\S]"
                body.append(cls)
            else:
                return "[\\s\\S]"
        return f"[{'^' if negate else ''}{''.join(body)}]" if body else ("[\\s\\S]" if negate else "(?!)")

    def seq(items: list[tuple[object, object]]) -> tuple[list[str], bool]:
        """(the first-character expressions, whether the sequence can match the empty string)"""
        out: list[str] = []
        for op, av in items:
            first, nullable = item(op, av)
            out.extend(first)
            if not nullable:
                return out, False
        return out, True

    def item(op: object, av: object) -> tuple[list[str], bool]:
        if op is sc.LITERAL:
            return [char(av)], False  # type: ignore[arg-type]
        if op is sc.NOT_LITERAL:
            return [f"[^{char(av)}]"], False  # type: ignore[arg-type]
        if op is sc.ANY:
            return ["[^\\n]"], False
        if op is sc.IN:
            return [in_set(av)], False  # type: ignore[arg-type]
        if op is sc.SUBPATTERN:
            return seq(list(av[-1]))  # type: ignore[index]
        if op is sc.BRANCH:
            results = [seq(list(b)) for b in av[1]]  # type: ignore[index]
            return [f for r in results for f in r[0]], any(r[1] for r in results)
        if op in (sc.MAX_REPEAT, sc.MIN_REPEAT, getattr(sc, "POSSESSIVE_REPEAT", None)):
            repeat: Any = av
            first, nullable = seq(list(repeat[2]))
            return first, nullable or repeat[0] == 0
        if op in (sc.AT, sc.ASSERT, sc.ASSERT_NOT):
            return [], True
        return ["[\\s\\S]"], True  # anything else: assume it may start anywhere

    try:
        first, _ = seq(list(sp.parse(pattern)))
    except Exception:  # pragma: no cover - defensive: then every character may start it
        return "[\\s\\S]"
    return "|".join(dict.fromkeys(first)) or "(?!)"


_CATEGORY_CLASS = (
    ("NOT_DIGIT", "\\D"),
    ("DIGIT", "\\d"),
    ("NOT_SPACE", "\\S"),
    ("SPACE", "\\s"),
    ("NOT_WORD", "\\W"),
    ("WORD", "\\w"),
)


#: Letters and digits of the Basic Multilingual Plane that Unicode assigned after 6.x (the version of the Java
#: character tables of the lexer, whose rules take them for untokenizable characters and delete them).
#: U+1885 and U+1886 went the other way (letters then, combining marks now): they stay letters here.
_NEWER_LETTERS = (
    "\\u037F\\u0528-\\u052F\\u0560\\u0588\\u05EF\\u0860-\\u086A\\u0870-\\u0887\\u0889-\\u088E\\u08A1"
    "\\u08AD-\\u08C9\\u0978\\u0980\\u09FC\\u0AF9\\u0C34\\u0C5A\\u0C5D\\u0C80\\u0CDD\\u0D04\\u0D54-\\u0D56"
    "\\u0D5F\\u0DE6-\\u0DEF\\u0E86\\u0E89\\u0E8C\\u0E8E-\\u0E93\\u0E98\\u0EA0\\u0EA8-\\u0EA9\\u0EAC\\u13F5"
    "\\u13F8-\\u13FD\\u16F1-\\u16F8\\u170D\\u171F\\u1878\\u191D-\\u191E\\u19B0-\\u19C0\\u19C8-\\u19C9\\u1B4C"
    "\\u1C80-\\u1C88\\u1C90-\\u1CBA\\u1CBD-\\u1CBF\\u1CF2-\\u1CF3\\u1CFA\\u2C2F\\u2C5F\\u312E-\\u312F"
    "\\u31BB-\\u31BF\\u4DB6-\\u4DBF\\u9FCD-\\u9FFF\\uA698-\\uA69D\\uA78F\\uA794-\\uA79F\\uA7AB-\\uA7CA"
    "\\uA7D0-\\uA7D1\\uA7D3\\uA7D5-\\uA7D9\\uA7F2-\\uA7F7\\uA8FD-\\uA8FE\\uA9E0-\\uA9E4\\uA9E6-\\uA9FE"
    "\\uAA7E-\\uAA7F\\uAB30-\\uAB5A\\uAB5C-\\uAB69\\uAB70-\\uABBF"
)


def _numeric_not_decimal(ch: str) -> bool:
    return ch.isnumeric() and not ch.isdecimal() and not ch.isalpha()


def _ranges(pred: Callable[[str], bool]) -> str:
    """A character-class body of the Basic Multilingual Plane characters satisfying ``pred``."""
    parts = []
    start = None
    for cp in range(0x10000):
        ok = not 0xD800 <= cp <= 0xDFFF and pred(chr(cp))
        if ok and start is None:
            start = cp
        elif not ok and start is not None:
            parts.append((start, cp - 1))
            start = None
    if start is not None:
        parts.append((start, 0xFFFF))
    return "".join(f"\\u{a:04X}" if a == b else f"\\u{a:04X}-\\u{b:04X}" for a, b in parts)


# ============================================================================================ the rules
_Action = Callable[[str], tuple[list[str], int]]


class _Lexer:
    """The rules, compiled once (on first use)."""

    def __init__(self) -> None:
        # JFlex [:letter:] and [:digit:] (Java's isLetter / isDigit, in the Unicode version of the tables the lexer
        # was generated with), Basic Multilingual Plane only: \\w without the underscore, the numeric characters
        # that are not decimal digits (superscripts, fractions, ...) and the letters and digits Unicode added later
        outside = f"(?![{_ranges(_numeric_not_decimal)}{_NEWER_LETTERS}\\U00010000-\\U0010FFFF])"
        L = f"(?:{outside}[^\\W\\d_]|[\\u1885\\u1886])"
        D = f"(?:{outside}\\d)"
        LD = f"(?:{outside}[^\\W_]|[\\u1885\\u1886])"
        self.LD = LD
        splet = _ci("&[aeiouAEIOU](?:acute|grave|uml);")
        extra = (
            "\\u00AD\\u0237-\\u024F\\u02C2-\\u02C5\\u02D2-\\u02DF\\u02E5-\\u02FF\\u0300-\\u036F\\u0370-\\u037D"
            "\\u0384\\u0385\\u03CF\\u03F6\\u03FC-\\u03FF\\u0483-\\u0487\\u04CF\\u04F6-\\u04FF\\u0510-\\u0525"
            "\\u055A-\\u055F\\u0591-\\u05BD\\u05BF\\u05C1\\u05C2\\u05C4\\u05C5\\u05C7\\u0615-\\u061A\\u063B-\\u063F"
            "\\u064B-\\u065E\\u0670\\u06D6-\\u06EF\\u06FA-\\u06FF\\u070F\\u0711\\u0730-\\u074F\\u0750-\\u077F"
            "\\u07A6-\\u07B1\\u07CA-\\u07F5\\u07FA\\u0900-\\u0903\\u093C\\u093E-\\u094E\\u0951-\\u0955"
            "\\u0962-\\u0963\\u0981-\\u0983\\u09BC-\\u09C4\\u09C7\\u09C8\\u09CB-\\u09CD\\u09D7\\u09E2\\u09E3"
            "\\u0A01-\\u0A03\\u0A3C\\u0A3E-\\u0A4F\\u0A81-\\u0A83\\u0ABC-\\u0ACF\\u0B82\\u0BBE-\\u0BC2"
            "\\u0BC6-\\u0BC8\\u0BCA-\\u0BCD\\u0C01-\\u0C03\\u0C3E-\\u0C56\\u0D3E-\\u0D44\\u0D46-\\u0D48"
            "\\u0E30-\\u0E3A\\u0E47-\\u0E4E\\u0EB1-\\u0EBC\\u0EC8-\\u0ECD"
        )
        LETTER = f"(?:[{extra}]|{L}|{splet})"
        LETTER_OR_DIGIT = f"(?:[{extra}]|{LD}|{splet})"
        SPACE = "[ \\t\\u00A0\\u2000-\\u200A\\u3000]"
        NEWLINE = "(?:\\r\\n|[\\r\\n\\u2028\\u2029\\u000B\\u000C\\u0085])"
        SPACENL = f"(?:{SPACE}|{NEWLINE})"
        SPACENLS = f"{SPACENL}+"
        APOS = "(?:['\\u0092\\u2019]|" + _ci("&apos;") + ")"
        APOSETC = f"(?:{APOS}|[`\\u0091\\u2018\\u201B])"
        SGML = (
            "<(?:[!?][A-Za-z\\-][^>\\r\\n]*|[A-Za-z][A-Za-z0-9_:.\\-]*(?:[ ]+(?:[A-Za-z][A-Za-z0-9_:.\\-]*[ ]*=[ ]*"
            "(?:'[^']*'|\"[^\"]*\")|[A-Za-z][A-Za-z0-9_:.\\-]*))*[ ]*/?|/[A-Za-z][A-Za-z0-9_:.\\-]*)[ ]*>"
        )
        SENTEND = f"{SPACENL}(?:{SPACENL}|[A-Z\\u00C0-\\u00D6\\u00D8-\\u00DE]|{SGML})"
        NUM_ALTS = [f"{D}+", f"{D}*(?:[.:,\\u00AD\\u066B\\u066C]{D}+)+"]
        WORD = f"{LETTER}{LETTER_OR_DIGIT}*(?:[.!?]{LETTER}{LETTER_OR_DIGIT}*)*"
        FILENAME_EXT = _ci(
            "bat|bmp|c|class|cgi|cpp|dll|doc|docx|exe|gif|gz|h|htm|html|jar|java|jpeg|jpg|mov|mp3|pdf|php|pl|png|"
            "ppt|ps|py|sql|tar|txt|wav|x|xml|zip"
        )
        FILENAME = f"{LETTER_OR_DIGIT}+(?:[.]{LETTER_OR_DIGIT}+)*(?:[.](?:{FILENAME_EXT}))"
        HYPHEN = "[-_\\u058A\\u2010\\u2011]"
        thing_part = f"(?:[dDoOlL]{APOSETC}{LD})?{LD}+"
        THING = f"{thing_part}(?:{HYPHEN}{thing_part})*"
        THINGA = "[A-Z]+(?:(?:[+&]|" + _ci("&amp;") + ")[A-Z]+)+"
        THING3 = "[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}(?:\\\\?/[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}){1,2}"
        ACRO_ALTS = [
            "[A-Za-z](?:\\.[A-Za-z])*",
            _ci("(?:Canada|Sino|Korean|EU|Japan|non)-U\\.S"),
            _ci("U\\.S\\.-(?:U\\.K|U\\.S\\.S\\.R)"),
        ]
        ACRO2 = "(?:[A-Za-z](?:\\.[A-Za-z])+|" + "|".join(ACRO_ALTS[1:]) + ")"
        HTHING = f"[A-Za-z0-9][A-Za-z0-9.,\\u00AD]*(?:-(?:{ACRO2}\\.|[A-Za-z0-9\\u00AD]+))+"
        REDAUX = f"{APOS}(?:[msdMSD]|" + _ci("re|ve|ll") + ")"
        SWORD = "[A-Za-z\\u00AD]*[A-MO-Za-mo-z]\\u00AD*"
        SREDAUX = _ci("n") + APOSETC + _ci("t")
        apoword = [
            f"{APOS}{_ci('n')}{APOS}?",
            f"[lLdDjJ]{APOS}",
            _ci("Dunkin") + APOS,
            _ci("somethin") + APOS,
            _ci("ol") + APOS,
            APOS + _ci("em"),
            f"[A-HJ-XZn]{APOSETC}{L}{{2}}{L}*",
            f"{APOS}[2-9]0{_ci('s')}",
            APOS + _ci("till?"),
            f"{L}{L}*[aeiouyAEIOUY]{APOSETC}[aeiouA-Z]{L}*",
            APOS + _ci("cause"),
            _ci("cont'd\\.?"),
            _ci("'twas"),
            _ci("nor'easter"),
            _ci("c'mon"),
            _ci("e'er"),
            _ci("s'mores"),
            _ci("ev'ry"),
            _ci("li'l"),
            _ci("nat'l"),
            _ci("O") + APOSETC + _ci("o"),
        ]
        not_url = '[^ \\t\\n\\f\\r"<>|(){}]'
        FULLURL = _ci("https?") + f"://{not_url}+" + '[^ \\t\\n\\f\\r"<>|.!?(){},-]'
        url_path = '(?:/[^ \\t\\n\\f\\r"<>|()]+[^ \\t\\n\\f\\r"<>|.!?(){},-])?'
        LIKELYURL = [
            _ci("www") + '\\.(?:[^ \\t\\n\\f\\r"<>|.!?(){},]+\\.)+[a-zA-Z]{2,4}' + url_path,
            "(?:[^ \\t\\n\\f\\r\"`'<>|.!?(){},-_$]+\\.)+" + _ci("(?:com|net|org|edu)") + url_path,
        ]
        EMAIL = (
            "(?:" + _ci("&lt;") + '|<)?[a-zA-Z0-9][^ \\t\\n\\f\\r"<>|()\\u00A0{}]*@'
            '(?:[^ \\t\\n\\f\\r"<>|(){}.\\u00A0]+\\.)*(?:[^ \\t\\n\\f\\r"<>|(){}.\\u00A0]+)(?:' + _ci("&gt;") + "|>)?"
        )
        TWITTER = ["@[a-zA-Z_][a-zA-Z_0-9]*", f"#{LETTER}+"]
        ABMONTH = _ci("Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
        ABDAYS = _ci("Mon|Tue|Tues|Wed|Thu|Thurs|Fri")
        ABSTATE = (
            _ci("Ala|Ariz")
            + "|A"
            + _ci("z")
            + "|A"
            + _ci("rk")
            + "|"
            + _ci("Calif|Colo|Conn|Ct|Dak")
            + "|D"
            + _ci("el")
            + "|"
            + _ci("Fla|Ga")
            + "|I"
            + _ci("ll")
            + "|"
            + _ci("Ind|Kans?|Ky")
            + "|L"
            + _ci("a")
            + "|M"
            + _ci("ass")
            + "|"
            + _ci("Md|Mich|Minn")
            + "|M"
            + _ci("iss")
            + "|"
            + _ci("Mo|Mont|Neb|Nev|Okla")
            + "|O"
            + _ci("re")
            + "|P"
            + _ci("a")
            + "|"
            + _ci("Penn|Tenn")
            + "|T"
            + _ci("ex")
            + "|"
            + _ci("Va|Vt")
            + "|W"
            + _ci("ash")
            + "|"
            + _ci("Wisc?|Wyo")
        )
        ABCOMP = _ci("Inc|Cos?|Corp|Pp?t[ye]s?|Ltd|Plc|Rt|Bancorp|Bhd|Assn|Univ|Intl|Sys")
        ABNUM = _ci("tel|est|ext|sq")
        ABPTIT = _ci("Jr|Sr|Bros|(?:Ed|Ph)\\.D|Blvd|Rd|Esq")
        ABBREV1 = f"(?:{ABMONTH}|{ABDAYS}|{ABSTATE}|{ABCOMP}|{ABNUM}|{ABPTIT}|" + _ci("etc|al|seq|Bldg") + ")\\."
        ABTITLE = (
            _ci("Mr|Mrs|Ms")
            + "|M"
            + _ci("iss")
            + "|"
            + _ci(
                "Drs?|Profs?|Sens?|Reps?|Attys?|Lt|Col|Gen|Messrs|Govs?|Adm|Rev|Maj|Sgt|Cpl|Pvt|Capt|Ste?|Ave|Pres|"
                "Lieut|Hon|Brig|Co?mdr|Pfc|Spc|Supts?|Det|Mt|Ft|Adj|Adv|Asst|Assoc|Ens|Insp|Mlle|Mme|Msgr|Sfc"
            )
        )
        ABCOMP2 = _ci("Invt|Elec|Natl|M[ft]g|Dept")
        ABBREV4 = [f"(?:{ABTITLE})", _ci("(?:vs|Alex|Wm|Jos|Cie|a\\.k\\.a|cf|TREAS|Ph)"), *ACRO_ALTS, f"(?:{ABCOMP2})"]
        ABBREV3 = _ci("(?:ca|figs?|prop|nos?|art|bldg|prop|pp|op)") + "\\."
        PHONE = (
            "(?:\\([0-9]{2,3}\\)[ \\u00A0]?|(?:\\+\\+?)?(?:[0-9]{2,4}[\\- \\u00A0])?[0-9]{2,4}[\\- \\u00A0])"
            "[0-9]{3,4}[\\- \\u00A0]?[0-9]{3,5}|(?:(?:\\+\\+?)?[0-9]{2,4}\\.)?[0-9]{2,4}\\.[0-9]{3,4}\\.[0-9]{3,5}"
        )
        INSENTP = "[,;:\\u3001]"
        QUOTES = (
            f"{APOS}|''|[`\\u2018\\u2019\\u201A\\u201B\\u201C\\u201D\\u0091\\u0092\\u0093\\u0094\\u201E\\u201F"
            "\\u2039\\u203A\\u00AB\\u00BB]{1,2}"
        )
        DBLQUOT = '(?:"|' + _ci("&quot;") + ")"
        TBSPEC = _ci("-(?:RRB|LRB|RCB|LCB|RSB|LSB)-|C\\.D\\.s|pro-|anti-|S(?:&|&amp;)P-500|S(?:&|&amp;)Ls|Cap")
        TBSPEC = (
            _ci("-(?:RRB|LRB|RCB|LCB|RSB|LSB)-|C\\.D\\.s|pro-|anti-|S(?:&|&amp;)P-500|S(?:&|&amp;)Ls")
            + "|"
            + _ci("Cap")
            + APOS
            + _ci("n")
            + "|"
            + _ci("c")
            + APOS
            + _ci("est")
        )
        TBSPEC2 = f"{APOS}[0-9][0-9]"
        SMILEY = "[<>]?[:;=][\\-o*']?[()DPdpO\\\\{@|\\[\\]]"
        ASIANSMILEY = (
            "[\\^x=~<>]\\.\\[\\^x=~<>]|[\\-\\^x=~<>']_[\\-\\^x=~<>']|\\([\\-\\^x=~<>'][_.]?[\\-\\^x=~<>']\\)|"
            "\\([\\^x=~<>']-[\\^x=~<>'`]\\)"
        )
        MISCSYMBOL = (
            "[+%&~\\^|\\\\\\u00A6\\u00A7\\u00A8\\u00A9\\u00AC\\u00AE\\u00AF\\u00B0-\\u00B3\\u00B4-\\u00BA\\u00D7"
            "\\u00F7\\u0387\\u05BE\\u05C0\\u05C3\\u05C6\\u05F3\\u05F4\\u0600-\\u0603\\u0606-\\u060A\\u060C\\u0614"
            "\\u061B\\u061E\\u066A\\u066D\\u0703-\\u070D\\u07F6\\u07F7\\u07F8\\u0964\\u0965\\u0E4F\\u1FBD\\u2016"
            "\\u2017\\u2020-\\u2023\\u2030-\\u2038\\u203B\\u203E-\\u2042\\u2044\\u207A-\\u207F\\u208A-\\u208E"
            "\\u2100-\\u214F\\u2190-\\u21FF\\u2200-\\u2BFF\\u3012\\u30FB\\uFF01-\\uFF0F\\uFF1A-\\uFF20"
            "\\uFF3B-\\uFF40\\uFF5B-\\uFF65]"
        )
        acronym_next = (
            "(?:A"
            + _ci("bout")
            + "|A"
            + _ci("ccording")
            + "|A"
            + _ci("dditionally")
            + "|A"
            + _ci("fter")
            + "|A"
            + _ci("n")
            + "|A|A"
            + _ci("s")
            + "|A"
            + _ci("t")
            + "|B"
            + _ci("ut")
            + "|E"
            + _ci("arlier")
            + "|H"
            + _ci("e")
            + "|H"
            + _ci("er")
            + "|H"
            + _ci("ere")
            + "|H"
            + _ci("owever")
            + "|I"
            + _ci("f")
            + "|I"
            + _ci("n")
            + "|I"
            + _ci("t")
            + "|L"
            + _ci("ast")
            + "|M"
            + _ci("any")
            + "|M"
            + _ci("ore")
            + "|M"
            + _ci("r")
            + "\\.|M"
            + _ci("s")
            + "\\.|N"
            + _ci("ow")
            + "|O"
            + _ci("nce")
            + "|O"
            + _ci("ne")
            + "|O"
            + _ci("ther")
            + "|O"
            + _ci("ur")
            + "|S"
            + _ci("he")
            + "|S"
            + _ci("ince")
            + "|S"
            + _ci("o")
            + "|S"
            + _ci("ome")
            + "|S"
            + _ci("uch")
            + "|T"
            + _ci("hat")
            + "|T"
            + _ci("he")
            + "|T"
            + _ci("heir")
            + "|T"
            + _ci("hen")
            + "|T"
            + _ci("here")
            + "|T"
            + _ci("hese")
            + "|T"
            + _ci("hey")
            + "|T"
            + _ci("his")
            + "|W"
            + _ci("e")
            + "|W"
            + _ci("hen")
            + "|W"
            + _ci("hile")
            + "|W"
            + _ci("hat")
            + "|Y"
            + _ci("et")
            + "|Y"
            + _ci("ou")
            + f"|{SGML}){SPACENL}"
        )
        # Each rule: (alternatives, trailing context or None, action). Actions take the matched text and return
        # (tokens, length consumed); the lexer goes on after what was consumed (JFlex's yypushback).
        plain = self._plain
        rules: list[tuple[list[str], str | None, Callable[[str], tuple[list[str], int]]]] = [
            ([_ci("c[+][+]")], None, plain),
            ([_ci("(?:c|f)#")], None, plain),
            ([_ci("cannot")], None, self._push(3)),
            ([_ci("'twas")], None, self._push(3)),
            ([_ci("'tis")], None, self._push(2)),
            ([_ci("gonna|gotta|lemme|gimme|wanna")], None, self._push(2)),
            ([SGML], None, lambda t: ([t.replace(" ", "\u00a0")], len(t))),
            ([_ci("&(?:MD|mdash|ndash);") + "|[\\u0096\\u0097\\u2013\\u2014\\u2015]"], None, self._const("--")),
            ([_ci("&amp;")], None, self._amp),
            ([_ci("&(?:HT|TL|UR|LR|QC|QL|QR|odq|cdq|#[0-9]+);")], None, plain),
            ([WORD], REDAUX, self._soft),
            ([SWORD], SREDAUX, self._soft),
            ([WORD], None, self._soft),
            (apoword, None, plain),
            ([_ci("y") + APOS], L, plain),
            ([FULLURL], None, plain),
            (LIKELYURL, None, plain),
            ([EMAIL], None, plain),
            (TWITTER, None, plain),
            ([REDAUX], "[^A-Za-z]", self._quotes_right),
            ([SREDAUX], "[^A-Za-z]", self._quotes_right),
            ([f"{D}{{1,2}}[\\-/]{D}{{1,2}}[\\-/]{D}{{2,4}}"], None, plain),
            ([f"[\\-+]?{a}" for a in NUM_ALTS], None, self._soft),
            (
                [
                    "[\\u207A\\u207B\\u208A\\u208B]?(?:[\\u2070\\u00B9\\u00B2\\u00B3\\u2074-\\u2079]+|[\\u2080-\\u2089]+)"
                ],
                None,
                plain,
            ),
            ([f"(?:{D}{{1,4}}[- \\u00A0])?{D}{{1,4}}(?:\\\\?/|\\u2044){D}{{1,4}}"], None, self._nbsp),
            (["[\\u00BC\\u00BD\\u00BE\\u2153-\\u215E]"], None, self._fraction),
            ([TBSPEC], None, self._amp),
            ([THING3], None, plain),
            (["[A-Z]*\\$|#"], None, plain),
            (
                [
                    "[\\u00A2\\u00A3\\u00A4\\u00A5\\u0080\\u20A0\\u20AC\\u060B\\u0E3F\\u20A4\\uFFE0\\uFFE1\\uFFE5\\uFFE6]"
                ],
                None,
                self._currency,
            ),
            ([f"(?:{a})\\." for a in ACRO_ALTS], f"{SPACENLS}{acronym_next}", self._acronym),
            ([ABBREV3], f"{SPACENL}?{D}", plain),
            ([_ci("(?:pt[eyEY]|co)") + "\\."], f"{SPACE}" + _ci("(?:ltd|lim)"), plain),
            ([ABBREV1], SENTEND, self._redup),
            ([ABBREV1], "[\\s\\S][\\s\\S]", plain),
            ([ABBREV1], None, self._redup),
            ([f"{a}\\." for a in ABBREV4], None, plain),
            (ABBREV4, SPACE, plain),
            (ACRO_ALTS, SPACENL, plain),
            ([TBSPEC2], SPACENL, plain),
            ([FILENAME], f"(?:{SPACENL}|[.?!,])", plain),
            ([f"{WORD}\\."], INSENTP, self._soft),
            ([PHONE], None, self._phone),
            ([DBLQUOT], "[A-Za-z0-9$]", self._quotes_left),
            ([DBLQUOT], None, self._quotes_right),
            (["\\x7f"], None, self._skip),
            (["<|" + _ci("&lt;")], None, self._const("<")),
            ([">|" + _ci("&gt;")], None, self._const(">")),
            ([SMILEY], "[^A-Za-z0-9]", self._parens),
            ([ASIANSMILEY], None, self._parens),
            (["\\{"], None, self._const("-LCB-")),
            (["\\}"], None, self._const("-RCB-")),
            (["\\["], None, self._const("-LSB-")),
            (["\\]"], None, self._const("-RSB-")),
            (["\\("], None, self._const("-LRB-")),
            (["\\)"], None, self._const("-RRB-")),
            (["-+"], None, self._hyphens),
            (["\\.{3,5}|(?:\\.[ \\u00A0]){2,4}\\.|[\\u0085\\u2026]"], None, self._const("...")),
            (["@+|#+|_+"], None, plain),
            (["\\*+|(?:\\\\\\*){1,3}"], None, plain),
            ([INSENTP], None, plain),
            (["[?!]+"], None, plain),
            (["[.\\u00A1\\u00BF\\u037E\\u0589\\u061F\\u06D4\\u0700-\\u0702\\u07FA\\u3002]"], None, plain),
            (["="], None, plain),
            (["/"], None, plain),
            ([f"{HTHING}\\."], INSENTP, self._soft),
            ([HTHING], None, self._soft),
            ([f"{THING}\\."], INSENTP, plain),
            ([THING], None, plain),
            ([f"{THINGA}\\."], INSENTP, self._amp),
            ([THINGA], None, self._amp),
            (["'"], "[A-Za-z][^ \\t\\n\\r\\u00A0]", self._quotes_left),
            ([REDAUX], None, self._quotes_right),
            ([SREDAUX], None, self._quotes_right),
            ([QUOTES], None, self._quotes_right),
            (["<<|>>"], None, plain),
            ([MISCSYMBOL], None, plain),
            (["\\x00|" + SPACE + "+|[\\u200B\\u200E-\\u200F\\uFEFF]"], None, self._skip),
            ([NEWLINE], None, self._skip),
            ([_ci("&nbsp;")], None, self._skip),
        ]
        # one entry per alternative, in rule order: (first-character test, regex, has trailing context, action)
        self.alternatives: list[tuple[Callable[[str], object], re.Pattern[str], bool, _Action]] = []
        for alts, trail, action in rules:
            for alt in [a for whole in alts for a in _alternatives(whole)]:
                src = f"(?P<m>{alt})" + ("" if trail is None else f"(?=(?P<t>{trail}))")
                first = re.compile(f"(?:{_first_class(alt)})").fullmatch
                self.alternatives.append((first, re.compile(src), trail is not None, action))
        self._by_char: dict[str, tuple[tuple[re.Pattern[str], bool, _Action], ...]] = {}
        self._lists: dict[tuple[int, ...], tuple[tuple[re.Pattern[str], bool, _Action], ...]] = {}

    def candidates(self, ch: str) -> tuple[tuple[re.Pattern[str], bool, _Action], ...]:
        """The alternatives that can match at a position holding ``ch`` (cached per character; characters with
        the same alternatives share one tuple)."""
        found = self._by_char.get(ch)
        if found is None:
            keys = tuple(i for i, alt in enumerate(self.alternatives) if alt[0](ch))
            found = self._lists.get(keys)
            if found is None:
                found = self._lists[keys] = tuple(self.alternatives[i][1:] for i in keys)
            self._by_char[ch] = found
        return found

    # ------------------------------------------------------------------ actions
    @staticmethod
    def _plain(t: str) -> tuple[list[str], int]:
        return [t], len(t)

    @staticmethod
    def _skip(t: str) -> tuple[list[str], int]:
        return [], len(t)

    @staticmethod
    def _push(n: int) -> Callable[[str], tuple[list[str], int]]:
        return lambda t: ([t[: len(t) - n]], len(t) - n)

    @staticmethod
    def _const(value: str) -> Callable[[str], tuple[list[str], int]]:
        return lambda t: ([value], len(t))

    @staticmethod
    def _soft(t: str) -> tuple[list[str], int]:
        if "\u00ad" not in t:
            return [t], len(t)
        return [t.replace("\u00ad", "") or "-"], len(t)

    @staticmethod
    def _amp(t: str) -> tuple[list[str], int]:
        return [re.sub("(?i:&amp;)", "&", t)], len(t)

    @staticmethod
    def _nbsp(t: str) -> tuple[list[str], int]:
        return [t.replace(" ", "\u00a0")], len(t)

    @staticmethod
    def _fraction(t: str) -> tuple[list[str], int]:
        table = {"\u00bc": "1/4", "\u00bd": "1/2", "\u00be": "3/4", "\u2153": "1/3", "\u2154": "2/3"}
        return [table.get(t, t)], len(t)

    @staticmethod
    def _currency(t: str) -> tuple[list[str], int]:
        out = t.replace("\u00a2", "cents").replace("\u00a3", "#")
        return [re.sub("[\u0080\u00a4\u20a0\u20ac]", "$", out)], len(t)

    @staticmethod
    def _phone(t: str) -> tuple[list[str], int]:
        return [t.replace(" ", "\u00a0").replace("(", "-LRB-").replace(")", "-RRB-")], len(t)

    @staticmethod
    def _parens(t: str) -> tuple[list[str], int]:
        return [t.replace("(", "-LRB-").replace(")", "-RRB-")], len(t)

    @staticmethod
    def _hyphens(t: str) -> tuple[list[str], int]:
        return ["--" if 3 <= len(t) <= 4 else t], len(t)

    @staticmethod
    def _redup(t: str) -> tuple[list[str], int]:
        # the abbreviation with its period, and the period once more (a sentence end)
        return [t], len(t) - 1

    @staticmethod
    def _acronym(t: str) -> tuple[list[str], int]:
        if len(t) == 2:  # "I." before a sentence start: the letter, then the period
            return [t[0]], 1
        return [t], len(t) - 1

    @staticmethod
    def _quotes_left(t: str) -> tuple[list[str], int]:
        return [_latex_quotes(t, True)], len(t)

    @staticmethod
    def _quotes_right(t: str) -> tuple[list[str], int]:
        return [_latex_quotes(t, False)], len(t)

    # ------------------------------------------------------------------ the lexer
    def tokens(self, text: str, follow: str = "\n.") -> list[str]:
        """The tokens of one caption (not lowercased). ``follow`` is what comes after it in the file: by default
        a line break and a line that starts with no letter, digit or space (a neutral context); ``""`` for the
        end of the file."""
        n = len(text)
        s = text + follow
        out: list[str] = []
        pos = 0
        fast = _FAST.match
        special = _SPECIAL_WORDS
        abbrevs = _ABBREV_WORDS
        candidates = self.candidates
        while pos < n:
            ch = s[pos]
            if ch == " ":
                pos += 1
                continue
            m = fast(s, pos)
            if m is not None:
                word = m.group(1)
                low = word.lower()
                if low not in special and not (m.group(2) == "." and (len(word) == 1 or low in abbrevs)):
                    out.append(word)
                    pos = m.end(1)
                    continue
            best_end = -1
            best: tuple[re.Match[str], _Action] | None = None
            for rx, trailing, action in candidates(ch):
                mm = rx.match(s, pos)
                if mm is None:
                    continue
                end = mm.end("t") if trailing else mm.end()
                if end > best_end:
                    best_end, best = end, (mm, action)
            if best is None or best[0].end("m") == pos:
                pos += 1  # untokenizable: deleted (JFlex's "." rule)
                continue
            toks, used = best[1](best[0].group("m"))
            out.extend(toks)
            pos += used
        return out


# A run of ASCII letters followed by a space, the end, or one of , ; : ! ? . that is itself followed by a space
# or the end: it can only be a plain word (unless listed below), so the rules need not be tried.
_FAST = re.compile(r"([A-Za-z]+)(?=[ \t]|\n|\Z|([,;:!?.])(?:[ \t]|\n|\Z))")
_SPECIAL_WORDS = frozenset({"cannot", "gonna", "gotta", "lemme", "gimme", "wanna"})
_ABBREVIATIONS = (
    "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Mon Tue Tues Wed Thu Thurs Fri Ala Ariz Az Ark "
    "Calif Colo Conn Ct Dak Del Fla Ga Ill Ind Kan Kans Ky La Mass Md Mich Minn Miss Mo Mont Neb Nev Okla "
    "Ore Pa Penn Tenn Tex Va Vt Wash Wis Wisc Wyo Inc Co Cos Corp Pty Pte Ptys Ptes Ppty Ppte Pptys Pptes "
    "Ltd Plc Rt Bancorp Bhd Assn Univ Intl Sys tel est ext sq Jr Sr Bros Blvd Rd Esq etc al seq Bldg Mr "
    "Mrs Ms Dr Drs Prof Profs Sen Sens Rep Reps Atty Attys Lt Col Gen Messrs Gov Govs Adm Rev Maj Sgt Cpl "
    "Pvt Capt St Ste Ave Pres Lieut Hon Brig Cmdr Comdr Pfc Spc Supt Supts Det Mt Ft Adj Adv Asst Assoc "
    "Ens Insp Mlle Mme Msgr Sfc vs Alex Wm Jos Cie cf TREAS Ph Invt Elec Natl Mfg Mtg Dept ca fig figs "
    "prop no nos art pp op pt pte pty"
)
#: Every word that, followed by a period, may be an abbreviation (case ignored; a superset is harmless).
_ABBREV_WORDS = frozenset(w.lower() for w in _ABBREVIATIONS.split())

_SINGLE_QUOTE = re.compile("&apos;|'")
_DOUBLE_QUOTE = re.compile('"|&quot;')


def _latex_quotes(t: str, left: bool) -> str:
    t = _SINGLE_QUOTE.sub("`" if left else "'", t)
    t = _DOUBLE_QUOTE.sub("``" if left else "''", t)
    t = re.sub("[\u0091\u2018\u201b\u2039]", "`", t)
    t = re.sub("[\u0092\u2019\u203a]", "'", t)
    t = re.sub("[\u0093\u201c\u00ab]", "``", t)
    return re.sub("[\u0094\u201d\u00bb]", "''", t)


@functools.cache
def _lexer() -> _Lexer:
    return _Lexer()


def ptb_tokens(text: str, follow: str = "\n.") -> list[str]:
    """The Stanford PTB tokens of one caption, lowercased as ``-lowerCase`` does (before punctuation removal);
    ``follow``: what follows the caption in the file (see :func:`coco_tokenize_stream`)."""
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}")
    return [_java_lower(t) for t in _lexer().tokens(text.replace("\n", " "), follow)]


def _remove_punctuation(tokens: list[str]) -> str:
    line = " ".join(tokens).rstrip()
    return " ".join(w for w in line.split(" ") if w not in PUNCTUATIONS)


def _java_lower(token: str) -> str:
    """Java's ``toLowerCase(Locale.ENGLISH)`` of one token. It differs from ``str.lower`` in the final sigma: Java
    looks for a following cased letter up to the word boundary of its word break iterator, which runs on past
    hyphens and apostrophes (``ΣΟΦΟΣ-etc`` gives ``σοφοσ-etc``); here, up to the end of the token."""
    if "\u03a3" not in token:
        return token.lower()
    out = []
    for i, ch in enumerate(token):
        if ch == "\u03a3":
            before = any(c.lower() != c or c.upper() != c for c in token[:i])
            after = any(c.lower() != c or c.upper() != c for c in token[i + 1 :])
            out.append("\u03c2" if before and not after else "\u03c3")
        else:
            out.append(ch.lower())
    return "".join(out)


@functools.lru_cache(maxsize=1 << 16)
def coco_tokenize(text: str) -> str:
    """pycocoevalcap's tokenized caption: PTB tokens, lowercased, punctuation dropped, joined by one space.

    >>> coco_tokenize("A man (riding) a horse, near the \\"big\\" barn.")
    'a man -lrb- riding -rrb- a horse near the big barn'
    >>> coco_tokenize("He can't do it; won't they?")
    "he ca n't do it wo n't they"
    """
    if _PLAIN.fullmatch(text):
        # the common caption: ASCII words, spaces, commas, perhaps a final period; unless a word is one the lexer
        # splits (cannot, gonna, ...) or the last one may be an abbreviation, its tokens are its words
        body = text.rstrip(" ")
        attached = body.endswith(".") and body[-2:-1].isalpha()  # "dog." (maybe an abbreviation), not "dog ."
        words = body.rstrip(".").lower().replace(",", " ").split()
        if not words:
            return ""
        if not _SPECIAL_WORDS.intersection(words) and not (
            attached and (len(words[-1]) == 1 or words[-1] in _ABBREV_WORDS)
        ):
            return " ".join(words)
    return _remove_punctuation(ptb_tokens(text))


#: ASCII words separated by spaces or commas, and perhaps a period at the end.
_PLAIN = re.compile(r"[A-Za-z ,]*\.? *")
#: The end of a caption whose tokens may depend on the next caption in the file: a single letter and a period
#: (an acronym before a sentence start) or an abbreviation that the lexer keeps only before a number.
_CONTEXT_END = re.compile(r"(?:(?:^|[^A-Za-z])[A-Za-z]|(?i:\b(?:ca|figs?|prop|nos?|art|bldg|pp|op)))\.\s*\Z")


def coco_tokenize_stream(texts: Sequence[str]) -> list[str]:
    """:func:`coco_tokenize` of captions that pycocoevalcap writes one after the other into one file (the
    references of all images in image order, or the predictions): a caption ending in a period is tokenized with
    the start of the next caption after it, and the last caption with the end of the file after it, as the Java
    tokenizer sees them. This reproduces pycocoevalcap in the rare cases where the context matters (``"plan B."``
    before a caption starting ``"A "`` gives ``plan b``, not ``plan b.``)."""
    out = [coco_tokenize(t) for t in texts]
    last = len(out) - 1
    for i, t in enumerate(texts):
        if i == last:
            out[i] = _remove_punctuation(ptb_tokens(t, ""))
        elif t.rstrip().endswith(".") and _CONTEXT_END.search(t.rstrip()[-12:]):
            follow = "\n" + texts[i + 1][:256].replace("\n", " ")
            out[i] = _remove_punctuation(ptb_tokens(t, follow))
    return out


def coco_tokens(text: str) -> list[str]:
    """The tokens of :func:`coco_tokenize` as BLEU and CIDEr read them (``str.split()``)."""
    return coco_tokenize(text).split()


def split_space_tokens(tokenized: str) -> list[str]:
    """A tokenized caption split as pycocoevalcap's ROUGE-L splits it (``str.split(" ")``), where an empty caption
    is one empty token (so it matches an empty reference): that token is given as ``" "`` (no real token holds a
    space), because ROUGE drops empty tokens. ROUGE keeps these tokens as they are (``keeps_tokens``)."""
    tokens = tokenized.split(" ")
    return [" "] if tokens == [""] else tokens


def coco_rouge_tokens(text: str) -> list[str]:
    """The tokens of :func:`coco_tokenize` as pycocoevalcap's ROUGE-L reads them (see :func:`split_space_tokens`)."""
    return split_space_tokens(coco_tokenize(text))


split_space_tokens.keeps_tokens = True  # type: ignore[attr-defined]
coco_rouge_tokens.keeps_tokens = True  # type: ignore[attr-defined]


if __name__ == "__main__":  # pragma: no cover - a manual check: one caption per line in, tokenized lines out
    for raw in sys.stdin:
        print(coco_tokenize(raw.rstrip("\n")))
