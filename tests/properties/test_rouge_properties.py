"""Hypothesis properties of the ROUGE family and its kernels.

Statistics add; batch splits and merge order change nothing; scores stay in [0, 1]; pairs are never mispaired;
and the compiled kernel (its tokenizer, both stemmers, clipped n-gram and skip-bigram overlaps, LCS lengths and
union LCS, over several machine words too) agrees with naive restatements written for clarity.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.algorithms.native import native
from nlgmetrics.metrics.rouge import ROUGE
from nlgmetrics.stateful import ROUGE as StatefulROUGE
from nlgmetrics.text.rouge_tokenize import (
    _perl_line_tokens,
    get_stemmer,
    kernel_text,
    rouge_encoder,
    rouge_score_tokenize,
    unicode_tokenize,
)
from tests.naive import naive_rouge155_porter_stem

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
def test_compiled_tokenizer_equals_the_plain_tokenizer(texts, tokenizer, sentences):
    encoder = rouge_encoder(None, False, tokenizer == "rouge-score")
    plain = {"rouge-score": rouge_score_tokenize, "unicode": unicode_tokenize, "rouge155": _perl_line_tokens}[tokenizer]
    for x in texts:
        got = encoder.tokens(kernel_text(x, tokenizer, sentences), sentences)
        lines = [plain(line) for line in (x.split("\n") if sentences else [x])]
        if sentences:
            assert got == [toks for toks in lines if toks]
        else:
            assert [t for s in got for t in s] == lines[0]


suffixes = st.sampled_from(
    ["", "s", "es", "ies", "ied", "ed", "eed", "ing", "ational", "tional", "alli", "ousli", "ization", "ation",
     "ator", "alism", "iveness", "fulness", "aliti", "biliti", "logi", "fulli", "icate", "ative", "alize", "iciti",
     "ful", "ness", "al", "ance", "ence", "er", "ic", "able", "ant", "ement", "ment", "ent", "sion", "tion", "ou",
     "ism", "ate", "iti", "ous", "ive", "ize", "e", "ll", "y", "ly", "bli", "eli"]
)  # fmt: skip
stems = st.text(alphabet="abcdefghijklmnopqrstuvwxyzaeiouyyéжß", min_size=1, max_size=8)


@settings(max_examples=400)
@given(stems, suffixes, suffixes)
def test_compiled_stemmers_equal_nltk_and_the_rouge155_restatement(stem, s1, s2):
    porter = pytest.importorskip("nltk.stem.porter").PorterStemmer()
    word = stem + s1 + s2
    expected = porter.stem(word) if len(word) > 3 else word
    assert get_stemmer("porter")(word) == expected
    assert native().stem(1, word) == porter.stem(word)
    assert native().stem(3, word) == naive_rouge155_porter_stem(word)


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


def naive_pair(pred, ref, rouge_type):
    """(hits, prediction total, reference total) of one pair, as rouge-score and ROUGE-1.5.5 count them; ``pred``
    and ``ref`` are lists of sentences of tokens."""
    p, r = [t for s in pred for t in s], [t for s in ref for t in s]
    if rouge_type.startswith("rouge") and rouge_type[5:].isdigit():
        n = int(rouge_type[5:])
        cp = Counter(tuple(p[i : i + n]) for i in range(len(p) - n + 1))
        cr = Counter(tuple(r[i : i + n]) for i in range(len(r) - n + 1))
        return sum(min(v, cr[k]) for k, v in cp.items()), max(len(p) - n + 1, 0), max(len(r) - n + 1, 0)
    if rouge_type == "rougeL":
        return len(naive_lcs_positions(r, p)), len(p), len(r)
    if rouge_type == "rougeLsum":  # rouge-score's _summary_level_lcs
        cnt_p, cnt_r, hits = Counter(p), Counter(r), 0
        for sent in ref:
            union = sorted({x for c in pred for x in naive_lcs_positions(sent, c)})
            for t in (sent[x] for x in union):
                if cnt_p[t] > 0 and cnt_r[t] > 0:
                    hits, cnt_p[t], cnt_r[t] = hits + 1, cnt_p[t] - 1, cnt_r[t] - 1
        return hits, len(p), len(r)
    skip = None if rouge_type.endswith("*") else int(rouge_type.lstrip("rougeSU"))

    def items(x):
        out = Counter(
            (x[i], x[j]) for i in range(len(x)) for j in range(i + 1, len(x)) if skip is None or j - i <= skip + 1
        )
        if rouge_type.startswith("rougeSU"):
            out.update((t,) for t in x[:-1])
        return out

    ip, ir = items(p), items(r)
    return sum(min(v, ir[k]) for k, v in ip.items()), sum(ip.values()), sum(ir.values())


def _f(hits, pt, rt):
    prec, rec = (hits / pt if pt else 0.0), (hits / rt if rt else 0.0)
    return prec, rec, (2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0)


KERNEL_TYPES = ("rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum", "rougeS2", "rougeSU*")
sentence = st.lists(st.sampled_from("abcde"), max_size=90)
document = st.lists(sentence, max_size=4)


@settings(max_examples=150)
@given(st.lists(st.tuples(document, document), min_size=1, max_size=5))
def test_compiled_kernel_counts_equal_naive_counts(pairs):
    """Pre-tokenized sentences (several machine words long) straight into the kernel, one reference each."""
    from nlgmetrics.metrics.rouge.kernel import _type_specs

    specs, _ = _type_specs(KERNEL_TYPES, False)
    plan = native().RougePlan(specs, False, 1, 1.0, None, 1.2, True, 0.0)  # multi_ref "best"
    got = plan.scores(
        rouge_encoder(None, False, False), [p for p, _ in pairs], [r for _, r in pairs], [], None, None, False
    )
    for k, (pred, ref) in enumerate(pairs):
        for j, rouge_type in enumerate(KERNEL_TYPES):
            assert tuple(got[k, j]) == _f(*naive_pair(pred, ref, rouge_type)), rouge_type


@settings(max_examples=100)
@given(st.lists(st.tuples(document, st.lists(document, min_size=1, max_size=3)), min_size=1, max_size=4))
def test_compiled_max_pr_equals_naive(segments):
    """pycocoevalcap's multi-reference rule (``multi_ref="max-pr"``): the highest precision and the highest recall
    over the references, each on its own, then F with beta 1.2."""
    from nlgmetrics.metrics.rouge.kernel import _type_specs

    types = ("rougeL", "rouge2")
    specs, _ = _type_specs(types, False)
    plan = native().RougePlan(specs, False, 2, 1.2, None, 1.2, True, 0.0)  # multi_ref "max-pr"
    flat = [r for _, rs in segments for r in rs]
    starts = [0]
    for _, rs in segments[:-1]:
        starts.append(starts[-1] + len(rs))
    got = plan.scores(rouge_encoder(None, False, False), [p for p, _ in segments], flat, starts, None, None, False)
    for k, (pred, rs) in enumerate(segments):
        for j, rouge_type in enumerate(types):
            prec = max(_f(*naive_pair(pred, r, rouge_type))[0] for r in rs)
            rec = max(_f(*naive_pair(pred, r, rouge_type))[1] for r in rs)
            f = (1 + 1.44) * prec * rec / (rec + 1.44 * prec) if prec and rec else 0.0
            assert tuple(got[k, j]) == (prec, rec, f), rouge_type


@pytest.mark.parametrize("options", [*CONFIGS, {"sentence_split": "rules"}, {"sentence_separator": "<n>"}])
@settings(max_examples=25)
@given(pairs=corpus)
def test_row_path_equals_the_general_path(options, pairs):
    """``RougeFamily.compute`` takes a call on a few segments from the kernel's rows straight to the formula; the
    general path (statistics batch, total, finalize) gives the same result and per-segment scores, bit for bit."""
    from nlgmetrics.metrics.base import Family

    cfg = _config(options)
    preds = [p for p, _ in pairs]
    refs = [r for _, r in pairs]
    fast = ROUGE.compute(preds, refs, cfg, segments=True)
    general = Family.compute(ROUGE, preds, refs, cfg, segments=True)
    assert fast == general
    one = ROUGE.compute(preds[0], refs[0] if isinstance(refs[0], str) else refs[:1], cfg)
    assert one == Family.compute(ROUGE, preds[:1], refs[:1], cfg)
    many = preds * 5, refs * 5  # beyond the general path's row batches: its numpy columns
    assert ROUGE.compute(*many, cfg, segments=True) == Family.compute(ROUGE, *many, cfg, segments=True)
