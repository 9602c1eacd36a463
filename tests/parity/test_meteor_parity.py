"""METEOR parity with NLTK 3.10's own ``meteor_score`` running on the same WordNet 3.0.

NLTK reads the WordNet database that Debian's ``wordnet-base`` (and ``wordnet-sense-index``) install, the same
source the bundled tables are built from (``scripts/build_wordnet.py``); the tests skip with a reason where it is
not installed. Each test prints and asserts the number of mismatches beyond 1e-12 and the largest difference.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.text.porter import porter_stem
from nlgmetrics.text.wordnet import synonyms, wordnet

nltk = pytest.importorskip("nltk", reason="nltk is a test dependency for METEOR parity")
from nltk.stem.porter import PorterStemmer  # noqa: E402
from nltk.translate.meteor_score import meteor_score, single_meteor_score  # noqa: E402

WORDNET_DIR = Path(os.environ.get("NLGMETRICS_WORDNET_DIR", "/usr/share/wordnet"))
_FILES = [f"{kind}.{pos}" for kind in ("index", "data") for pos in ("noun", "verb", "adj", "adv")]
_FILES += [f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")] + ["index.sense"]
# lexnames(5WN): NLTK's reader wants this file, which Debian does not install; it only names lexicographer files
_LEXNAME_TEXT = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body noun.cognition "
    "noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive noun.object "
    "noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity noun.relation noun.shape "
    "noun.state noun.substance noun.time verb.body verb.change verb.cognition verb.communication verb.competition "
    "verb.consumption verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession "
    "verb.social verb.stative verb.weather adj.ppl"
)
_LEXNAMES = _LEXNAME_TEXT.split()
_SYNTACTIC_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


@pytest.fixture(scope="module")
def nltk_wordnet(tmp_path_factory):
    """NLTK's ``WordNetCorpusReader`` on the Debian WordNet 3.0 files, laid out as ``nltk_data/corpora/wordnet``."""
    missing = [f for f in _FILES if not (WORDNET_DIR / f).is_file()]
    if missing:
        pytest.skip(
            f"WordNet 3.0 not found at {WORDNET_DIR} (missing {', '.join(missing[:3])}): install Debian's "
            "wordnet-base and wordnet-sense-index (apt-get install wordnet-base wordnet-sense-index), or point "
            "NLGMETRICS_WORDNET_DIR at a WordNet 3.0 dict folder, to run NLTK's meteor_score against it"
        )
    root = tmp_path_factory.mktemp("nltk_data")
    corpus = root / "corpora" / "wordnet"
    corpus.mkdir(parents=True)
    for f in _FILES:
        shutil.copyfile(WORDNET_DIR / f, corpus / f)
    (corpus / "lexnames").write_text(
        "".join(f"{i:02d}\t{n}\t{_SYNTACTIC_CATEGORY[n.split('.')[0]]}\n" for i, n in enumerate(_LEXNAMES))
    )
    nltk.data.path.insert(0, str(root))
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "The multilingual functions are not available with this Wordnet version"
        reader = WordNetCorpusReader(str(corpus), None)
    yield reader
    nltk.data.path.remove(str(root))


def report(ours, theirs):
    diffs = [abs(a - b) for a, b in zip(ours, theirs, strict=True)]
    bad = sum(d > 1e-12 for d in diffs)
    worst = max(diffs, default=0.0)
    print(f"METEOR vs NLTK: {len(diffs)} segments, {bad} mismatches beyond 1e-12, max abs diff {worst:.3g}")
    return bad, worst


# English words with stems and WordNet synonyms in common, and the text the issue asks for: CJK, full-width,
# punctuation, empty
_WORD_TEXT = (
    "guide guides guiding guided guidebook lead leads led leading run ran running runs fast quick quickly big "
    "large larger bigger biggest cat cats Cat CAT dog dogs hear heard hearing listen obey obeys heed military army "
    "party Party commands command directions direction ensure ensures guarantee the a of to it is was be are "
    "went go goes gone better best good well geese goose mice women children ran runner flies fly happy happier "
    "ice_cream well-known U.S. 's n't"
)
WORDS = [*_WORD_TEXT.split(), "猫", "日本語", "ＡＢＣ", "。", ",", "!", "...", "É", "é", "ß", "\u00a0x"]
word = st.sampled_from(WORDS)
tokens = st.lists(word, max_size=14)


@settings(max_examples=200)
@given(tokens, st.lists(tokens, min_size=1, max_size=3))
def test_meteor_score_on_generated_tokens(nltk_wordnet, hyp, refs):
    theirs = meteor_score(refs, hyp, wordnet=nltk_wordnet)
    ours = nm.sentence_meteor(hyp, refs, tokenizer="none").score
    assert report([ours], [theirs]) == (0, 0.0)


@settings(max_examples=100)
@given(st.lists(st.tuples(tokens, st.lists(tokens, min_size=1, max_size=3)), min_size=1, max_size=8))
def test_batch_kernel_on_generated_tokens(nltk_wordnet, pairs):
    """The vectorised kernel (a batch of many sentence pairs) against NLTK, pair by pair."""
    from nlgmetrics.metrics.meteor import nltk as module

    theirs = [meteor_score(refs, hyp, wordnet=nltk_wordnet) for hyp, refs in pairs]
    saved, module.VECTOR_UNITS = module.VECTOR_UNITS, 0
    try:
        ours = nm.meteor([h for h, _ in pairs], [r for _, r in pairs], tokenizer="none", segments=True).segments
    finally:
        module.VECTOR_UNITS = saved
    assert report(ours, theirs) == (0, 0.0)


@settings(max_examples=100)
@given(
    tokens,
    tokens,
    st.floats(0.0, 1.0),
    st.floats(0.0, 6.0),
    st.floats(0.0, 1.0),
    st.booleans(),
)
def test_single_meteor_score_options(nltk_wordnet, hyp, ref, alpha, beta, gamma, lowercase):
    preprocess = str.lower if lowercase else (lambda w: w)
    theirs = single_meteor_score(
        ref, hyp, preprocess=preprocess, wordnet=nltk_wordnet, alpha=alpha, beta=beta, gamma=gamma
    )
    ours = nm.sentence_meteor(
        hyp, [ref], tokenizer="none", alpha=alpha, beta=beta, gamma=gamma, lowercase=lowercase
    ).score
    assert report([ours], [theirs]) == (0, 0.0)


@settings(max_examples=100)
@given(st.lists(st.tuples(tokens.map(" ".join), st.lists(tokens.map(" ".join), min_size=1, max_size=2)), min_size=1))
def test_corpus_is_the_mean_of_segment_scores(nltk_wordnet, pairs):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    theirs = [meteor_score([r.split() for r in rs], h.split(), wordnet=nltk_wordnet) for h, rs in pairs]
    result = nm.meteor(hyps, refs, segments=True)
    assert report(result.segments, theirs) == (0, 0.0)
    assert result.score == pytest.approx(sum(theirs) / len(theirs), abs=1e-15)


def test_wmt22_segments(nltk_wordnet, shared_data):
    """Two WMT22 systems per English-target pair, against both references (NLTK picks the best)."""
    wmt = shared_data / "wmt22"
    bad_total, worst_total, n = 0, 0.0, 0
    for pair, systems in (("de-en", ("Online-B", "LT22")), ("zh-en", ("NiuTrans", "Online-Y"))):
        refs = [
            (wmt / "references" / f"generaltest2022.{pair}.ref.{k}.en").read_text(encoding="utf-8").splitlines()
            for k in "AB"
        ]
        for system in systems:
            hyps = (wmt / "system-outputs" / f"generaltest2022.{pair}.hyp.{system}.en").read_text(encoding="utf-8")
            hyps = hyps.splitlines()[:600]
            theirs = [
                meteor_score([a.split(), b.split()], h.split(), wordnet=nltk_wordnet)
                for h, a, b in zip(hyps, refs[0], refs[1], strict=False)
            ]
            ours = nm.meteor(hyps, [list(r) for r in zip(refs[0], refs[1], strict=False)][: len(hyps)], segments=True)
            bad, worst = report(ours.segments, theirs)
            bad_total, worst_total, n = bad_total + bad, max(worst_total, worst), n + len(theirs)
    print(f"WMT22 de-en/zh-en: {n} segments, {bad_total} mismatches, max abs diff {worst_total:.3g}")
    assert (bad_total, worst_total) == (0, 0.0)


def test_porter_stemmer_on_every_wordnet_lemma():
    nltk_stem = PorterStemmer().stem
    lemmas = wordnet()._lemmas
    words = {w for lemma in lemmas for w in lemma.split("_")} | {w.upper() for w in lemmas[::50]}
    bad = [w for w in words if porter_stem(w) != nltk_stem(w)]
    print(f"Porter stems of {len(words)} words: {len(bad)} differ from NLTK's")
    assert bad == []


@settings(max_examples=500)
@given(st.text(alphabet="aeiouybcdlnrstzwxgmAEYİIŞéß*-'", max_size=14))
def test_porter_stemmer_on_generated_words(w):
    assert porter_stem(w) == PorterStemmer().stem(w)


def test_synonyms_match_nltk_wordnet(nltk_wordnet):
    """The bundled tables give NLTK's synonym set (lemma names without '_' of wn.synsets(w)) for a sample of
    lemmas and inflected forms, exceptions included."""
    base = wordnet()._lemmas[::40]
    forms = set(base)
    for w in base[::3]:
        forms.update({w + "s", w + "es", w + "ed", w + "ing", w + "er", w + "est", w.upper()})
    for pos in "nvar":
        forms.update(list(wordnet()._exceptions[pos])[::5])
    bad = []
    for w in sorted(forms):
        theirs = {lemma.name() for s in nltk_wordnet.synsets(w) for lemma in s.lemmas() if "_" not in lemma.name()}
        if synonyms(w) != frozenset(theirs | {w}):
            bad.append(w)
    print(f"synonym sets of {len(forms)} words: {len(bad)} differ from NLTK's")
    assert bad == []
