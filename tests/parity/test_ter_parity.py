"""TER parity with sacrebleu 2.6: the Tercom normaliser, the shift search and the beam edit distance.

Generated word sequences include long ones (where the beam of the edit distance matters), heavily repeated
words (where sacrebleu's limit of 1000 shift candidates is reached) and very unequal lengths. Multi-reference
corpora whose segments have three references differ from sacrebleu by at most a few units in the last place:
the average reference length (a third) is summed exactly here, and left to right by sacrebleu.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.algorithms.ter import _as_strings, _band, _beam_numpy, _beam_rows, beam_edit_distance, ter_edits
from nlgmetrics.text.mt_tokenize import tercom_normalize

sacrebleu = pytest.importorskip("sacrebleu", reason="sacrebleu is a test dependency for TER parity")
from sacrebleu.metrics import TER as SacreTER  # noqa: E402
from sacrebleu.metrics.lib_ter import BeamEditDistance, translation_edit_rate  # noqa: E402
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer  # noqa: E402

PIECES = [
    *list("abcAB .,?:;!\"()'-&/"),
    "the ",
    "cat's ",
    "&quot;",
    "\n-",
    "日本",
    "語",
    "ひらがな",
    "カタカナ",
    "、",
    "。",
    "（",
    "）",
    "１",
]
text = st.lists(st.sampled_from(PIECES), max_size=18).map("".join)
options = st.fixed_dictionaries(
    {
        "normalized": st.booleans(),
        "no_punct": st.booleans(),
        "asian_support": st.booleans(),
        "case_sensitive": st.booleans(),
    }
)


def transpose(refs: list[list[str]]) -> list[list[str | None]]:
    width = max(len(r) for r in refs)
    return [[r[k] if k < len(r) else None for r in refs] for k in range(width)]


@settings(max_examples=300)
@given(text, options)
def test_tercom_normalizer(sentence, opts):
    assert tercom_normalize(sentence, **opts) == TercomTokenizer(**opts)(sentence)


@settings(max_examples=150)
@given(st.lists(st.tuples(text, st.lists(text, min_size=1, max_size=2)), min_size=1, max_size=6), options)
def test_corpus_ter(pairs, opts):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    metric = SacreTER(**opts)
    theirs = metric.corpus_score(hyps, transpose(refs))
    ours = nm.ter(hyps, refs, **opts)
    assert (ours.score, ours.num_edits, ours.ref_length) == (theirs.score, theirs.num_edits, theirs.ref_length)
    assert ours.sacrebleu_signature == metric.get_signature().format()


@settings(max_examples=60)
@given(st.lists(st.tuples(text, st.lists(text, min_size=3, max_size=3)), min_size=1, max_size=6))
def test_three_references_within_1e12(pairs):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    theirs = SacreTER().corpus_score(hyps, transpose(refs))
    assert abs(nm.ter(hyps, refs).score - theirs.score) <= 1e-12


words = st.lists(st.sampled_from("abcdefgh"), max_size=30)


@settings(max_examples=300)
@given(words, words)
def test_edits_of_short_sequences(hyp, ref):
    assert ter_edits(hyp, ref) == translation_edit_rate(hyp, ref)[0]


def _cases(seed: int) -> list[tuple[list[str], list[str]]]:
    """Long reordered sentences, sentences of two words repeated (the candidate limit) and very unequal lengths
    (the beam), small enough for sacrebleu's pure-Python search to stay quick."""
    rng = random.Random(seed)
    out = []
    for _ in range(4):
        ref = [rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(50, 80))]
        hyp = ref[:]
        for _ in range(rng.randint(1, 3)):
            i, j = sorted(rng.sample(range(len(hyp)), 2))
            hyp = hyp[:i] + hyp[j:] + hyp[i:j]
        out.append(([w if rng.random() > 0.15 else rng.choice("xyz") for w in hyp], ref))
    for _ in range(4):
        out.append(
            (
                [rng.choice("ab") for _ in range(rng.randint(30, 40))],
                [rng.choice("ab") for _ in range(rng.randint(30, 40))],
            )
        )
    for _ in range(4):
        short, long = rng.randint(3, 12), rng.randint(60, 110)
        pair = ([rng.choice("abcdef") for _ in range(short)], [rng.choice("abcdef") for _ in range(long)])
        out.append(pair if rng.random() < 0.5 else pair[::-1])
    # a short hypothesis matching only the start of a long reference: the beam keeps the alignment from it
    head = ["p", "q", "r", "s", "t"]
    out.append((head, head + [rng.choice("uvwxyz") for _ in range(100)]))
    return out


def test_edits_of_long_repetitive_and_unequal_sequences():
    from nlgmetrics.algorithms.ter import ter_search

    pairs = _cases(20240607)
    mismatches = [(h, r) for h, r in pairs if ter_edits(h, r) != translation_edit_rate(h, r)[0]]
    assert not mismatches
    # the cases that matter are there: the beam cuts the exact distance, the candidate limit is reached
    assert any(beam_edit_distance(h, r) > _levenshtein(h, r) for h, r in pairs)
    assert any(ter_search(h, r).candidates >= 1000 for h, r in pairs)


def _levenshtein(a: list[str], b: list[str]) -> int:
    from rapidfuzz.distance import Levenshtein

    return int(Levenshtein.distance(a, b))


@settings(max_examples=200)
@given(
    st.lists(st.sampled_from("abc"), min_size=1, max_size=90), st.lists(st.sampled_from("abc"), min_size=1, max_size=90)
)
def test_beam_programs_agree_with_sacrebleu(hyp, ref):
    h, r = _as_strings(hyp, ref)
    theirs = BeamEditDistance(ref)(hyp)[0]
    assert _beam_rows(h, r, False)[0][-1][-1] == theirs
    assert int(_beam_numpy([h], r)[0][0]) == theirs
    # the exact distance is the beam distance whenever it is below the band's bound
    bound = _band(len(h), len(r))[1]
    exact = _levenshtein(hyp, ref)
    assert exact <= theirs
    if exact < bound:
        assert exact == theirs


def test_workers_change_nothing():
    rng = random.Random(7)
    vocab = "abcdefgh"
    refs = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 12))) for _ in range(450)]
    hyps = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 12))) for _ in range(450)]
    expected = SacreTER().corpus_score(hyps, [refs]).score
    assert nm.ter(hyps, refs, workers=2).score == nm.ter(hyps, refs).score == expected
