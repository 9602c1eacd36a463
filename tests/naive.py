"""Naive reference implementations, written for clarity, to test the fast kernels against."""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence


def naive_levenshtein(a: Sequence[Hashable], b: Sequence[Hashable], substitution_cost: int = 1) -> int:
    """Textbook O(len a × len b) dynamic program, insertion and deletion cost 1."""
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            same = a[i - 1] == b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (0 if same else substitution_cost))
        prev = cur
    return prev[-1]


def naive_nls(p: str, t: str, substitution_cost: int = 1) -> float:
    longest = max(len(p), len(t))
    return 1.0 if longest == 0 else 1.0 - naive_levenshtein(p, t, substitution_cost) / longest


# ROUGE-1.5.5.pl's Porter stemmer, restated with the script's own regular expressions (the compiled kernel's stemmer
# is checked against it). NLTK's ORIGINAL_ALGORITHM mode differs in step 4, which Chin-Yew Lin changed in 2004 so
# that a word ending in -ement does not also try -ment and -ent.
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


def naive_rouge155_porter_stem(w: str) -> str:
    """ROUGE-1.5.5.pl's ``stem`` (lowercase input)."""
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
