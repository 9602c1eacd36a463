"""WordNet 3.0 synonyms, as NLTK's METEOR looks them up, from package data (no download, no NLTK).

``nltk.translate.meteor_score`` takes a word's synonyms to be the lemma names without ``_`` of every synset
``nltk.corpus.wordnet.synsets(word)`` returns: for each part of speech (noun, verb, adjective, adverb, in that
order), the forms NLTK 3.10's ``morphy`` finds for the word (the word itself if it is in that part of speech's
index, and the base forms of the exception list, or else of one application of the suffix rules, that are in the
index), and every synset of those forms. :func:`synonyms` gives exactly that set.

The tables (exception lists, lemma index, synset lemma names) are ``data/wordnet/wn30-meteor.txt.gz``, built
from WordNet 3.0 by ``scripts/build_wordnet.py``; their origin and licence are in ``data/wordnet/LICENSE``. They
load once per process on first use.

>>> sorted(synonyms("guide"))[:6]
['channelise', 'channelize', 'conduct', 'direct', 'draw', 'guide']
"""

from __future__ import annotations

import bisect
import gzip
from functools import cache, lru_cache
from importlib import resources

__all__ = ["WORDNET_VERSION", "WordNet", "synonyms", "wordnet"]

#: The WordNet release the tables come from (recorded in METEOR's signature).
WORDNET_VERSION = "3.0"
_DATA = "data/wordnet/wn30-meteor.txt.gz"
_POS = ("n", "v", "a", "r")
#: WordNet's detachment rules per part of speech (``morphy(7WN)``), in NLTK's order.
_SUBSTITUTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "n": (
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}


_SECTIONS = ("exc.n", "exc.v", "exc.a", "exc.r", "synsets", "lemmas", "senses")


def _sections(text: str) -> dict[str, list[str]]:
    """The lines of each ``@name count`` section (see ``scripts/build_wordnet.py`` for the layout)."""
    out: dict[str, list[str]] = {}
    heads = [text.index(f"\n@{name} ") + 1 for name in _SECTIONS]
    for k, name in enumerate(_SECTIONS):
        eol = text.index("\n", heads[k])
        count = int(text[heads[k] : eol].split(" ")[1])
        end = heads[k + 1] - 1 if k + 1 < len(heads) else len(text.rstrip("\n"))
        lines = text[eol + 1 : end].split("\n") if count else []
        if len(lines) != count:
            raise RuntimeError(f"corrupt WordNet data: section {name} has {len(lines)} lines, {count} expected")
        out[name] = lines
    return out


class WordNet:
    """The lemma index, exception lists and synset names of one WordNet, with NLTK's lookup rules."""

    def __init__(self, text: str) -> None:
        self.header = text[: text.index("\n")]
        sections = _sections(text)
        self._exceptions: dict[str, dict[str, list[str]]] = {}
        for pos in _POS:
            table: dict[str, list[str]] = {}
            for line in sections[f"exc.{pos}"]:
                terms = line.split()
                table[terms[0]] = terms[1:]  # a repeated form: the later line wins, as in NLTK
            self._exceptions[pos] = table
        self._synsets = sections["synsets"]
        self._lemmas = sections["lemmas"]  # sorted, so that a lemma is found by bisection
        self._senses = sections["senses"]
        self._entries: dict[str, list[str] | None] = {}

    def _entry(self, form: str) -> list[str] | None:
        """The four per-part-of-speech fields of ``form`` in the index, or ``None`` if it is not there."""
        if form in self._entries:  # morphy asks for the same forms in each part of speech
            return self._entries[form]
        i = bisect.bisect_left(self._lemmas, form)
        entry = self._senses[i].split("|") if i < len(self._lemmas) and self._lemmas[i] == form else None
        if len(self._entries) < 1 << 18:
            self._entries[form] = entry
        return entry

    def _in_index(self, form: str, pos: str) -> bool:
        entry = self._entry(form)
        return entry is not None and entry[_POS.index(pos)] != "-"

    def morphy(self, form: str, pos: str) -> list[str]:
        """NLTK 3.10's ``WordNetCorpusReader._morphy(form, pos)``: the word and its candidate base forms (from
        the exception list if the word is in it, else one application of the suffix rules) that are in the
        index, in that order, without repeats."""
        exceptions = self._exceptions[pos]
        if form in exceptions:
            forms = exceptions[form]
        else:
            forms = [form[: -len(old)] + new for old, new in _SUBSTITUTIONS[pos] if form.endswith(old)]
        out: list[str] = []
        for candidate in [form, *forms]:
            if candidate not in out and self._in_index(candidate, pos):
                out.append(candidate)
        return out

    def synonyms(self, word: str) -> frozenset[str]:
        """The lemma names without ``_`` of every synset of ``word`` (any part of speech), plus the word: the
        set ``nltk.translate.meteor_score`` matches a hypothesis word's reference candidates against."""
        word_lower = word.lower()
        names: set[str] = {word}
        for p, pos in enumerate(_POS):
            for form in self.morphy(word_lower, pos):
                entry = self._entry(form)
                assert entry is not None
                for sid in entry[p].split():
                    names.update(self._synsets[int(sid)].split(" "))
        return frozenset(names)


@cache
def wordnet() -> WordNet:
    """The bundled WordNet 3.0 tables, loaded on first use."""
    data = resources.files("nlgmetrics").joinpath(_DATA).read_bytes()
    return WordNet(gzip.decompress(data).decode("utf-8"))


@lru_cache(maxsize=1 << 17)
def synonyms(word: str) -> frozenset[str]:
    """:meth:`WordNet.synonyms` of the bundled WordNet 3.0, cached per word."""
    return wordnet().synonyms(word)
