"""Hypothesis properties of the ROUGE family and its kernels.

Statistics add; batch splits and merge order change nothing; scores stay in [0, 1]; pairs are never mispaired;
and every fast kernel (union LCS, LCS lengths, clipped overlaps, the token de-duplication of the encoder) agrees
with a naive reference written for clarity.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.algorithms.lcs import canonical_lcs_positions, id_strings, lcs_lengths, union_lcs_marks
from nlgmetrics.algorithms.rouge_counts import clipped_overlap, group_rows, ngram_ids
from nlgmetrics.metrics.rouge import ROUGE
from nlgmetrics.stateful import ROUGE as StatefulROUGE
from nlgmetrics.text.rouge_tokenize import _distinct_words, encode_texts, rouge_score_tokenize, unicode_tokenize

pytestmark = pytest.mark.filterwarnings("ignore:rouge. the .* tokenizer keeps only ASCII:UserWarning")

words = st.sampled_from(["the", "cat", "sat", "cats", "sitting", "a", "mat", "東", "京", "Ünïcode", "42", "x"])
text = st.lists(words | st.sampled_from(["\n", ".", ", ", "!"]), max_size=16).map(" ".join)
refs = text | st.lists(text, min_size=1, max_size=3)
corpus = st.lists(st.tuples(text, refs), min_size=1, max_size=10)

CONFIGS = [
    {},
    {"preset": "rouge-score", "use_stemmer": True},
    {"preset": "rouge155", "use_stemmer": True},
    {"preset": "rouge155", "multi_ref": "best", "rouge_types": ("rouge1", "rougeL", "rougeW", "rougeSU4")},
    {"multi_ref": "average", "beta": 2.0, "rouge_types": ("rouge3", "rougeLsum", "rougeS*")},
    {"tokenizer": "char", "rouge_types": ("rouge1", "rougeLsum")},
]


def _config(options):
    options = dict(options)
    return ROUGE.make_config(options.pop("preset", None), **options)


def _close(a, b):
    for name in a.field_names():
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, tuple):
            assert all(math.isclose(u, v, rel_tol=1e-12, abs_tol=1e-12) for u, v in zip(x, y, strict=True)), name
        else:
            assert x == y, name


@pytest.mark.parametrize("options", CONFIGS)
@settings(max_examples=30)
@given(data=st.data())
def test_statistics_add(options, data):
    pairs = data.draw(corpus)
    cut = data.draw(st.integers(0, len(pairs)))
    cfg = _config(options)
    preds, rs = [p for p, _ in pairs], [r for _, r in pairs]
    whole = ROUGE.batch_stats(preds, rs, cfg).total()
    a = ROUGE.batch_stats(preds[:cut], rs[:cut], cfg, allow_empty=True).total()
    b = ROUGE.batch_stats(preds[cut:], rs[cut:], cfg, allow_empty=True).total()
    _close(a + b, whole)
    _close(sum(ROUGE.batch_stats(preds, rs, cfg)), whole)
    _close(ROUGE.zero(cfg) + whole, whole)


@pytest.mark.parametrize("options", CONFIGS[:3])
@settings(max_examples=25)
@given(data=st.data())
def test_batch_split_and_merge_order_change_nothing(options, data):
    pairs = data.draw(corpus)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(pairs)), max_size=3)))
    bounds = [0, *cuts, len(pairs)]
    expected = StatefulROUGE(**options)
    expected.update([p for p, _ in pairs], [r for _, r in pairs])
    parts = []
    for lo, hi in itertools.pairwise(bounds):
        m = StatefulROUGE(**options)
        m.update([p for p, _ in pairs[lo:hi]], [r for _, r in pairs[lo:hi]])
        parts.append(m)
    merged = StatefulROUGE(**options)
    merged.merge(*[parts[i] for i in data.draw(st.permutations(range(len(parts))))])
    _close(merged.stats, expected.stats)
    got, want = merged.compute().score, expected.compute().score
    assert got.keys() == want.keys()
    assert all(math.isclose(got[k], want[k], rel_tol=1e-12, abs_tol=1e-12) for k in got)


@pytest.mark.parametrize("options", CONFIGS)
@settings(max_examples=25)
@given(pairs=corpus, data=st.data())
def test_permuting_pairs_permutes_segment_scores_and_scores_stay_in_bounds(options, pairs, data):
    perm = data.draw(st.permutations(range(len(pairs))))
    cfg = _config(options)
    scores = ROUGE.compute([p for p, _ in pairs], [r for _, r in pairs], cfg, segments=True).segments
    shuffled = [pairs[i] for i in perm]
    permuted = ROUGE.compute([p for p, _ in shuffled], [r for _, r in shuffled], cfg, segments=True).segments
    assert permuted == tuple(scores[i] for i in perm)
    for seg in scores:
        for s in seg.values():
            assert all(0.0 <= v <= 1.0 for v in s)


@settings(max_examples=40)
@given(st.lists(text, min_size=1, max_size=8))
def test_identical_texts_score_one_or_zero(texts):
    r = nm.rouge(texts, texts, rouge_types=["rouge1", "rougeL", "rougeLsum"], segments=True)
    for t, seg in zip(texts, r.segments, strict=True):
        expected = 1.0 if unicode_tokenize(t) else 0.0
        assert {k: v.fmeasure for k, v in seg.items()} == dict.fromkeys(seg, expected)


# ---------------------------------------------------------------------------------------------------- tokenizers
@settings(max_examples=200)
@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_unicode_tokenizer_equals_rouge_score_on_ascii(s):
    assert unicode_tokenize(s) == rouge_score_tokenize(s)


@settings(max_examples=100)
@given(
    st.lists(st.text(max_size=40) | text, min_size=1, max_size=6),
    st.sampled_from(["rouge-score", "rouge155", "unicode"]),
    st.booleans(),
)
def test_encoder_fast_path_equals_the_plain_tokenizer(texts, tokenizer, sentences):
    from nlgmetrics.text.rouge_tokenize import _perl_line_tokens

    enc = encode_texts(texts, tokenizer, sentences=sentences)
    plain = {"rouge-score": rouge_score_tokenize, "unicode": unicode_tokenize, "rouge155": _perl_line_tokens}[tokenizer]
    expected = [[t for line in x.split("\n") for t in plain(line)] for x in texts]
    vocab: dict[str, int] = {}
    for k, toks in enumerate(expected):
        got = enc.tokens[enc.text_start[k] : enc.text_start[k + 1]].tolist()
        assert len(got) == len(toks)
        for word, i in zip(toks, got, strict=True):
            assert vocab.setdefault(word, i) == i
    assert len(set(vocab.values())) == len(vocab)
    if sentences:
        for k, x in enumerate(texts):
            lines = [len(plain(line)) for line in x.split("\n")]
            span = slice(enc.text_sent[k], enc.text_sent[k + 1])
            assert enc.sent_len[span].tolist() == [n for n in lines if n]


@settings(max_examples=100)
@given(st.lists(st.integers(0, 2**64 - 1) | st.integers(0, 5), max_size=300))
def test_distinct_words_is_exact(values):
    w = np.array(values, dtype=np.uint64)
    rep = _distinct_words(w)
    assert (w[rep] == w).all()
    first: dict[int, int] = {}
    for i, v in enumerate(values):
        assert first.setdefault(v, int(rep[i])) == rep[i]


# ---------------------------------------------------------------------------------------------------- kernels
def naive_lcs_positions(ref, can):
    """rouge-score's ``lcs_ind``: the table, then ``_backtrack_norec``."""
    m, n = len(ref), len(can)
    t = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            t[i][j] = t[i - 1][j - 1] + 1 if ref[i - 1] == can[j - 1] else max(t[i - 1][j], t[i][j - 1])
    i, j, out = m, n, []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            out.insert(0, i - 1)
            i, j = i - 1, j - 1
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return out


seq = st.lists(st.integers(0, 3), max_size=70)


@settings(max_examples=300)
@given(seq, seq)
def test_canonical_lcs_is_rouge_scores_backtrack(a, b):
    assert canonical_lcs_positions(a, b) == naive_lcs_positions(a, b)


@settings(max_examples=100)
@given(st.lists(st.lists(st.integers(0, 4), max_size=60), min_size=1, max_size=8), st.data())
def test_union_lcs_marks_vectorised_equals_naive(sentences, data):
    tokens = np.array([t for s in sentences for t in s], dtype=np.int64)
    starts = np.cumsum([0] + [len(s) for s in sentences])[:-1]
    lens = np.array([len(s) for s in sentences])
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(sentences) - 1), st.integers(0, len(sentences) - 1)),
                               min_size=1, max_size=12))  # fmt: skip
    rs, cs = np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])
    expected = np.zeros(len(tokens), dtype=bool)
    for a, b in pairs:
        for x in naive_lcs_positions(sentences[a], sentences[b]):
            expected[starts[a] + x] = True
    got = union_lcs_marks(tokens, starts[rs], lens[rs], starts[cs], lens[cs])
    assert (got == expected).all()
    # the table look-up variant: ids local to one group of 5
    lo, size = np.zeros(len(pairs), dtype=np.int64), np.full(len(pairs), 5)
    assert (union_lcs_marks(tokens, starts[rs], lens[rs], starts[cs], lens[cs], lo, size) == expected).all()


@settings(max_examples=100)
@given(st.lists(st.tuples(seq, seq), min_size=1, max_size=10))
def test_lcs_lengths_and_overlaps_equal_naive_counts(pairs):
    flat = [x for p in pairs for x in p]
    tokens = np.array([t for s in flat for t in s], dtype=np.int64)
    bounds = np.cumsum([0] + [len(s) for s in flat])
    strings = id_strings(tokens, bounds[:-1], bounds[1:])
    got = lcs_lengths(strings[0::2], strings[1::2])
    assert got.tolist() == [len(naive_lcs_positions(a, b)) for a, b in pairs]
    for n in (1, 2, 3):
        grams, _ = ngram_ids(tokens, 4, n)
        size = np.maximum(np.diff(bounds) - n + 1, 0)
        groups = group_rows(grams, [(bounds[:-1][0::2], size[0::2]), (bounds[:-1][1::2], size[1::2])], len(pairs))
        want = []
        for a, b in pairs:
            ca = Counter(tuple(a[i : i + n]) for i in range(len(a) - n + 1))
            cb = Counter(tuple(b[i : i + n]) for i in range(len(b) - n + 1))
            want.append(sum(min(v, cb[k]) for k, v in ca.items()))
        assert clipped_overlap(groups).tolist() == want
