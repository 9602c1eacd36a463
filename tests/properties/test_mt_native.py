"""The compiled BLEU/chrF kernels against naive restatements and against sacrebleu.

* ``_native.tokenize_13a`` (the 13a steps inside ``_native.bleu_13a``) gives sacrebleu's 13a tokens, on text with
  the characters the steps care about: periods, commas, dashes, digits, entities, ``<skipped>``, newlines, CJK,
  full-width and Unicode spaces;
* ``_native.bleu_13a`` and ``_native.clipped_matches`` count clipped n-gram matches as a ``Counter`` restatement
  does (BLEU's clipping by the reference that holds an n-gram most often; chrF's per reference);
* the compiled corpus paths of BLEU (13a) and chrF give every segment the statistics of the numpy index path.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.algorithms.fastpath import forced
from nlgmetrics.algorithms.native import has_native, native
from nlgmetrics.metrics.bleu import BLEU
from nlgmetrics.metrics.chrf import CHRF

pytestmark = pytest.mark.skipif(not has_native(), reason="the compiled kernels were not built")

pieces = st.sampled_from(
    [
        *"ab19.,-- \t$()'\"&:;<>/{}~[]`",
        "\n",
        "x-\ny",
        "&amp;",
        "&lt;",
        "&quot;",
        "&amp;lt;",
        "<skipped>",
        "\u3000",
        "\xa0",
        "\x1c",
        "\x85",
        "\u2028",
        "東京",
        "ｔｅｓｔ．",
        "...",
        "1.,2",
        "3-4",
        ".-",
        "\U0001f600",
        "the",
        "cat",
    ]
)
texts = st.lists(pieces, max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, min_size=1, max_size=5))
def test_13a_tokens_are_sacrebleus(lines):
    sacrebleu_bleu = pytest.importorskip("sacrebleu.metrics.bleu")
    theirs = sacrebleu_bleu._get_tokenizer("13a")()
    assert native().tokenize_13a(lines) == [theirs(line.rstrip()).split() for line in lines]


def _naive(hyp: list, refs: list[list], orders: int, per_reference: bool) -> list:
    """Clipped matches by Counters: per order, against each reference (chrF) or against the largest count over
    the references (BLEU)."""
    out = []
    for k in range(1, orders + 1):
        hc = Counter(tuple(hyp[i : i + k]) for i in range(len(hyp) - k + 1))
        rcs = [Counter(tuple(r[i : i + k]) for i in range(len(r) - k + 1)) for r in refs]
        if per_reference:
            out.append([sum(min(c, rc[g]) for g, c in hc.items()) for rc in rcs])
        else:
            best: Counter = Counter()
            for rc in rcs:
                for g, c in rc.items():
                    best[g] = max(best[g], c)
            out.append(sum(min(c, best[g]) for g, c in hc.items()))
    if per_reference:
        return [[out[k][r] for k in range(orders)] for r in range(len(refs))]
    return [out]


small_text = st.lists(st.sampled_from(["a", "b", "c", "日", "\U0001f600", " "]), max_size=14).map("".join)
segment = st.tuples(small_text, st.lists(small_text, min_size=1, max_size=3))


@settings(max_examples=200, deadline=None)
@given(st.lists(segment, min_size=1, max_size=6), st.integers(1, 8), st.booleans(), st.booleans())
def test_clipped_matches_restate_the_counters(segments, orders, per_reference, words):
    hyps = [h.split() if words else h for h, _ in segments]
    refs = [r.split() if words else r for _, rs in segments for r in rs]
    starts, at = [], 0
    for _, rs in segments:
        starts.append(at)
        at += len(rs)
    got = native().clipped_matches(hyps, refs, starts, orders, per_reference)
    for i, (_, rs) in enumerate(segments):
        want = _naive(hyps[i], [refs[starts[i] + j] for j in range(len(rs))], orders, per_reference)
        assert got[i] == want


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(texts, st.lists(texts, min_size=1, max_size=3)), min_size=1, max_size=5), st.integers(1, 6))
def test_bleu_13a_counts_restate_the_counters(segments, orders):
    tok = native().tokenize_13a
    hyps = [h for h, _ in segments]
    refs = [r for _, rs in segments for r in rs]
    starts, at = [], 0
    for _, rs in segments:
        starts.append(at)
        at += len(rs)
    flat, hyp_lens, ref_lens = native().bleu_13a(hyps, refs, starts, orders)
    assert ref_lens == [len(t) for t in tok(refs)]
    for i, h in enumerate(hyps):
        ht = tok([h])[0]
        rts = tok([refs[starts[i] + j] for j in range(len(segments[i][1]))])
        assert hyp_lens[i] == len(ht)
        assert flat[i * orders : (i + 1) * orders] == _naive(ht, rts, orders, False)[0]


word = st.sampled_from(["a", "b", "c", "the", "cat", "日本", "x.", ",", "3-4", "&amp;", "Ａ"])
text = st.lists(word, max_size=8).map(" ".join)
corpus = st.lists(st.tuples(text, st.one_of(text, st.lists(text, min_size=1, max_size=3))), min_size=1, max_size=12)
CONFIGS = [
    (BLEU, {}),
    (BLEU, {"lowercase": True, "max_order": 6}),
    (BLEU, {"preset": "nmt"}),
    (BLEU, {"preset": "nltk", "tokenizer": "13a", "smoothing": "method7"}),
    (BLEU, {"average": "sentence", "tokenizer": "13a", "preset": "nltk"}),
    (CHRF, {}),
    (CHRF, {"preset": "chrf++", "lowercase": True}),
    (CHRF, {"preset": "torchmetrics"}),
    (CHRF, {"whitespace": True}),
]


@pytest.mark.parametrize(("family", "options"), CONFIGS)
@settings(max_examples=15, deadline=None)
@given(pairs=corpus)
def test_the_compiled_corpus_paths_give_the_index_paths_statistics(family, options, pairs):
    options = dict(options)
    cfg = family.make_config(options.pop("preset", None), **options)
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    with forced(rows=False, kernels={"bleu", "bleu.13a-rows", "chrf"}):  # numpy columns
        compiled = family.batch_stats(preds, refs, cfg)
        with forced(native=False, kernels={"bleu.13a", "chrf.corpus"}):  # the index paths
            indexed = family.batch_stats(preds, refs, cfg)
    assert [compiled[i] for i in range(len(pairs))] == [indexed[i] for i in range(len(pairs))]
    assert compiled.total() == indexed.total()
