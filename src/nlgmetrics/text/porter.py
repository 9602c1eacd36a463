"""The Porter stemmer exactly as NLTK 3.10's ``PorterStemmer()`` (its default ``NLTK_EXTENSIONS`` mode) stems.

NLTK's METEOR (``nltk.translate.meteor_score``) matches words by their Porter stems; this module gives the same
stems without importing NLTK. Why not call NLTK: ``import nltk`` alone costs one to two seconds in a fresh
process (its package ``__init__`` imports most of the toolkit), which would dominate the first METEOR call, and
it would make a 50-kB library a hard dependency of one stage of one metric. The algorithm is Porter (1980) with
the changes NLTK's default mode makes, each marked ``NLTK`` below; ``tests/parity`` checks it against NLTK's
stemmer on every WordNet lemma, on real MT text and on generated words.

>>> [porter_stem(w) for w in ["caresses", "ponies", "dying", "generalizations", "Happy", "enjoy", "by"]]
['caress', 'poni', 'die', 'gener', 'happi', 'enjoy', 'by']
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

__all__ = ["porter_stem"]

_VOWELS = frozenset("aeiou")

# NLTK: irregular forms stemmed by table, before any rule.
_POOL = {
    form: stem
    for stem, forms in {
        "sky": ("sky", "skies"),
        "die": ("dying",),
        "lie": ("lying",),
        "tie": ("tying",),
        "news": ("news",),
        "inning": ("innings", "inning"),
        "outing": ("outings", "outing"),
        "canning": ("cannings", "canning"),
        "howe": ("howe",),
        "proceed": ("proceed",),
        "exceed": ("exceed",),
        "succeed": ("succeed",),
    }.items()
    for form in forms
}


def _consonants(word: str) -> list[bool]:
    """Porter's consonant test for every letter: not a, e, i, o, u, and a ``y`` only after a vowel (or first)."""
    flags: list[bool] = []
    previous = False
    for i, ch in enumerate(word):
        if ch in _VOWELS:
            previous = False
        elif ch == "y":
            previous = True if i == 0 else not previous
        else:
            previous = True
        flags.append(previous)
    return flags


def _measure(stem: str) -> int:
    """``m`` of ``[C](VC){m}[V]``: the number of vowel-to-consonant transitions."""
    m = 0
    vowel = False
    for consonant in _consonants(stem):
        if consonant and vowel:
            m += 1
        vowel = not consonant
    return m


def _positive(stem: str) -> bool:
    return _measure(stem) > 0


def _above_one(stem: str) -> bool:
    return _measure(stem) > 1


def _has_vowel(stem: str) -> bool:
    return not all(_consonants(stem))


def _is_consonant(word: str, i: int) -> bool:
    return _consonants(word)[i]


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """``*o``: ends consonant-vowel-consonant, the last not w, x or y; NLTK: also a two-letter vowel-consonant."""
    if len(word) >= 3:
        flags = _consonants(word)
        if flags[-3] and not flags[-2] and flags[-1] and word[-1] not in "wxy":
            return True
    if len(word) == 2:
        flags = _consonants(word)
        return not flags[0] and flags[1]
    return False


Rule = tuple[str, str, Callable[[str], bool] | None]


def _apply(word: str, rules: dict[str, list[Rule]]) -> str:
    """The first rule whose suffix the word has decides: its replacement if the condition holds on the stem,
    else the word unchanged. ``rules`` are a step's rules in order, grouped by the suffix's last letter (no other
    rule can apply; see :func:`_by_last_letter`)."""
    for suffix, replacement, condition in rules.get(word[-1:], ()):
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)]
            return stem + replacement if condition is None or condition(stem) else word
    return word


def _by_last_letter(rules: list[Rule]) -> dict[str, list[Rule]]:
    """A step's rules grouped by the last letter of their suffix, each group in the step's order."""
    out: dict[str, list[Rule]] = {}
    for rule in rules:
        out.setdefault(rule[0][-1], []).append(rule)
    return out


_STEP1A: list[Rule] = [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None)]


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:  # NLTK: "dies" -> "die", "ties" -> "tie"
        return word[:-3] + "ie"
    return _apply(word, _BY_LAST["_STEP1A"])


def _step1b(word: str) -> str:
    if word.endswith("ied"):  # NLTK
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        stem = word[:-3]
        return stem + "ee" if _measure(stem) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)]
            if _has_vowel(stem):
                break
    else:
        return word
    # the rules AT -> ATE, BL -> BLE, IZ -> IZE, *d -> single letter (not l, s, z), (m=1 and *o) -> E, in order
    for end, replacement in (("at", "ate"), ("bl", "ble"), ("iz", "ize")):
        if stem.endswith(end):
            return stem[:-2] + replacement
    last = stem[-1]
    if _double_consonant(stem) or stem.endswith("*d"):  # "*d" also literally, as NLTK's rule list reads it
        return stem[:-2] + last if last not in "lsz" else stem
    return stem + "e" if _measure(stem) == 1 and _cvc(stem) else stem


def _y_to_i(stem: str) -> bool:
    return len(stem) > 1 and _is_consonant(stem, len(stem) - 1)


# NLTK: y -> i after a consonant that is not the whole stem ("happy" -> "happi", "by" stays, "enjoy" stays)
_STEP1C: list[Rule] = [("y", "i", _y_to_i)]


def _step1c(word: str) -> str:
    return _apply(word, _BY_LAST["_STEP1C"])


_STEP2: list[Rule] = [
    ("ational", "ate", _positive),
    ("tional", "tion", _positive),
    ("enci", "ence", _positive),
    ("anci", "ance", _positive),
    ("izer", "ize", _positive),
    ("bli", "ble", _positive),
    ("alli", "al", _positive),
    ("entli", "ent", _positive),
    ("eli", "e", _positive),
    ("ousli", "ous", _positive),
    ("ization", "ize", _positive),
    ("ation", "ate", _positive),
    ("ator", "ate", _positive),
    ("alism", "al", _positive),
    ("iveness", "ive", _positive),
    ("fulness", "ful", _positive),
    ("ousness", "ous", _positive),
    ("aliti", "al", _positive),
    ("iviti", "ive", _positive),
    ("biliti", "ble", _positive),
    ("fulli", "ful", _positive),  # NLTK
    ("logi", "log", lambda stem: _positive(stem + "l")),  # NLTK: the measure of the word minus "ogi"
]


def _step2(word: str) -> str:
    if word.endswith("alli") and _positive(word[:-4]):  # NLTK: "alli" -> "al", then step 2 again
        return _step2(word[:-4] + "al")
    return _apply(word, _BY_LAST["_STEP2"])


_STEP3: list[Rule] = [
    ("icate", "ic", _positive),
    ("ative", "", _positive),
    ("alize", "al", _positive),
    ("iciti", "ic", _positive),
    ("ical", "ic", _positive),
    ("ful", "", _positive),
    ("ness", "", _positive),
]


def _step3(word: str) -> str:
    return _apply(word, _BY_LAST["_STEP3"])


_STEP4: list[Rule] = [
    ("al", "", _above_one),
    ("ance", "", _above_one),
    ("ence", "", _above_one),
    ("er", "", _above_one),
    ("ic", "", _above_one),
    ("able", "", _above_one),
    ("ible", "", _above_one),
    ("ant", "", _above_one),
    ("ement", "", _above_one),
    ("ment", "", _above_one),
    ("ent", "", _above_one),
    ("ion", "", lambda s: _measure(s) > 1 and s[-1] in "st"),
    ("ou", "", _above_one),
    ("ism", "", _above_one),
    ("ate", "", _above_one),
    ("iti", "", _above_one),
    ("ous", "", _above_one),
    ("ive", "", _above_one),
    ("ize", "", _above_one),
]


def _step4(word: str) -> str:
    return _apply(word, _BY_LAST["_STEP4"])


def _step5a(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            return stem
    return word


_STEP5B: list[Rule] = [("ll", "l", lambda stem: _measure(stem + "l") > 1)]  # the measure of the word minus one l


def _step5b(word: str) -> str:
    return _apply(word, _BY_LAST["_STEP5B"])


_BY_LAST = {
    name: _by_last_letter(rules)
    for name, rules in {
        "_STEP1A": _STEP1A,
        "_STEP1C": _STEP1C,
        "_STEP2": _STEP2,
        "_STEP3": _STEP3,
        "_STEP4": _STEP4,
        "_STEP5B": _STEP5B,
    }.items()
}


@lru_cache(maxsize=1 << 17)
def porter_stem(word: str) -> str:
    """The stem NLTK's ``PorterStemmer().stem(word)`` gives (lowercased first, as NLTK does by default).

    Results are cached: a corpus repeats its words, and a stem is computed once per distinct word.
    """
    stem = word.lower()
    if stem in _POOL:
        return _POOL[stem]
    if len(word) <= 2:  # NLTK: the length of the word as given, before lowercasing
        return stem
    for step in (_step1a, _step1b, _step1c, _step2, _step3, _step4, _step5a, _step5b):
        stem = step(stem)
    return stem
