"""The paths a fresh process takes while numpy is not loaded give the numbers of the numpy paths, bit for bit.

BLEU and chrF count a batch of any size with the compiled small-batch counters and keep Python rows while numpy is
not loaded; once numpy is loaded, batches beyond the size rules of ``nlgmetrics.algorithms.fastpath`` get numpy columns.
ROUGE goes from the kernel's rows to the formula at any size while numpy is not loaded. Here the first is forced
by ``forced(numpy=False)``, the second by ``forced(rows=False)`` (numpy columns at every size), and the two are
compared on whole results (score, counts, signature), per-segment scores and sentence-level results, on text with
CJK, full-width and punctuation-only segments, empty segments and several references per segment. SARI's compiled
kernel hands over Python lists while numpy is not loaded (its total is then the same running sum); those are
compared with its numpy columns and with its plain-Python path.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics._inputs import ReferenceSets, check_references
from nlgmetrics.algorithms.fastpath import forced
from nlgmetrics.algorithms.native import has_native
from nlgmetrics.metrics.base import Family
from nlgmetrics.metrics.rouge import ROUGE

pytestmark = [
    pytest.mark.skipif(not has_native(), reason="the compiled kernels were not built"),
    pytest.mark.filterwarnings("ignore:rouge. the .* tokenizer keeps only ASCII:UserWarning"),
]

piece = st.sampled_from(
    [
        "the", "cat", "sat", "cats", "a", "mat", "A", "The", "42", "3-4", "1.5", "x.", ",", "&amp;", "n't",
        "東京", "猫", "が", "座った", "。", "、", "ＡＢＣ", "ｔｅｓｔ", "１２", "．", "！",  # CJK and full-width
        "...", "!?", "--", "()", "「」",  # punctuation only
        "\u3000", "\xa0", "\n",
    ]
)  # fmt: skip
text = st.lists(piece, max_size=10).map(" ".join) | st.just("") | st.sampled_from(["...", "、。", "！？", "  "])
references = text | st.lists(text, min_size=1, max_size=4)
corpus = st.lists(st.tuples(text, references), min_size=1, max_size=12)


def _without_numpy():
    """The paths as they run while numpy is not loaded."""
    return forced(numpy=False)


def _numpy_columns(*kernels):
    """The numpy paths at every size (numpy is loaded in this process)."""
    return forced(rows=False, kernels=kernels)


BLEU_OPTIONS = [
    {},
    {"preset": "nltk"},
    {"preset": "nltk", "tokenizer": "13a", "smoothing": "method7"},
    {"preset": "nltk-3.2"},
    {"preset": "moses"},
    {"preset": "moses", "lowercase": True},
    {"preset": "nmt"},
    {"preset": "torchmetrics"},
    {"preset": "torchmetrics", "tokenizer": "intl"},
    {"preset": "coco", "tokenizer": "13a"},
    {"preset": "llamafactory"},
    {"tokenizer": "intl", "lowercase": True},
    {"tokenizer": "zh"},
    {"tokenizer": "char", "max_order": 6},
    {"tokenizer": "none", "smoothing": "floor"},
    {"ref_length": "shortest"},
    {"ref_length": "longest", "weights": (0.4, 0.3, 0.2, 0.1)},
    {"effective_order": True, "smoothing": "add-k"},
]


def _call(function, pairs, options, **extra):
    """``function(predictions, references, preset=..., **options)`` on the pairs."""
    options = dict(options)
    preset = options.pop("preset", None)
    return function([p for p, _ in pairs], [r for _, r in pairs], preset=preset, **options, **extra)


@pytest.mark.parametrize("options", BLEU_OPTIONS)
@settings(max_examples=20, deadline=None)
@given(pairs=corpus)
def test_bleu_without_numpy_gives_the_numpy_paths_numbers(options, pairs):
    with _without_numpy():
        rows = _call(nm.bleu, pairs, options, segments=True)
        rows_sentences = _call(nm.sentence_bleu, pairs, options)
    with _numpy_columns("bleu", "bleu.13a-rows"):
        columns = _call(nm.bleu, pairs, options, segments=True)
        column_sentences = _call(nm.sentence_bleu, pairs, options)
    assert rows == columns
    assert rows.segments == columns.segments
    assert rows_sentences == column_sentences


CHRF_OPTIONS = [
    {},
    {"preset": "chrf++"},
    {"preset": "chrf++", "lowercase": True},
    {"whitespace": True},
    {"eps_smoothing": True, "char_order": 3, "word_order": 1},
    {"char_order": 0, "word_order": 2, "beta": 1},
    {"preset": "torchmetrics"},
]


@pytest.mark.parametrize("options", CHRF_OPTIONS)
@settings(max_examples=20, deadline=None)
@given(pairs=corpus)
def test_chrf_without_numpy_gives_the_numpy_paths_numbers(options, pairs):
    with _without_numpy():
        rows = _call(nm.chrf, pairs, options, segments=True)
    with _numpy_columns("chrf"):
        columns = _call(nm.chrf, pairs, options, segments=True)
        with forced(native=False, kernels={"chrf.corpus"}):  # the references' n-gram index
            indexed = _call(nm.chrf, pairs, options, segments=True)
    assert rows == columns == indexed
    assert rows.segments == columns.segments == indexed.segments


ROUGE_OPTIONS = [
    {"preset": "rouge-score", "use_stemmer": True},
    {"use_stemmer": True, "rouge_types": ("rouge1", "rouge2", "rougeL", "rougeLsum")},
    {"preset": "rouge155", "use_stemmer": True},
    {"preset": "coco"},
    {"multi_ref": "average", "rouge_types": ("rouge3", "rougeLsum", "rougeSU4"), "sentence_split": "rules"},
]


@pytest.mark.parametrize("options", ROUGE_OPTIONS)
@settings(max_examples=20, deadline=None)
@given(pairs=corpus)
def test_rouge_rows_at_any_size_give_the_numpy_columns_numbers(options, pairs):
    options = dict(options)
    cfg = ROUGE.make_config(options.pop("preset", None), **options)
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    with _without_numpy():  # the rows at any size, beyond the call's size rule too
        rows = ROUGE.compute(preds, refs, cfg, segments=True)
    with _numpy_columns("rouge.kernel"):
        columns = Family.compute(ROUGE, preds, refs, cfg, segments=True)
    assert rows == columns


SARI_OPTIONS = [{}, {"tokenizer": "none"}, {"tokenizer": "intl", "lowercase": False}, {"tokenizer": "zh"}]
triples = st.lists(st.tuples(text, text, references), min_size=1, max_size=12)


@pytest.mark.parametrize("options", SARI_OPTIONS)
@settings(max_examples=20, deadline=None)
@given(rows=triples)
def test_sari_without_numpy_gives_the_numpy_paths_numbers(options, rows):
    sources, preds, refs = ([row[i] for row in rows] for i in range(3))
    with _without_numpy():
        lists = nm.sari(preds, refs, sources, segments=True, **options)
        with forced(native=False, kernels={"sari"}):
            plain = nm.sari(preds, refs, sources, segments=True, **options)  # Python up to SMALL, numpy beyond
    columns = nm.sari(preds, refs, sources, segments=True, **options)
    assert lists == columns == plain
    assert lists.segments == columns.segments == plain.segments


@settings(max_examples=100, deadline=None)
@given(st.lists(references, min_size=1, max_size=8))
def test_reference_offsets_and_numpy_starts_agree(refs):
    sets = check_references(refs)
    from_array = ReferenceSets(sets.flat, sets.starts)  # a caller's numpy offsets
    for layout in (sets, from_array):
        assert layout.multi == (sets.offsets is not None)
        assert len(layout) == len(refs)
        assert [list(r) for r in layout] == [[r] if isinstance(r, str) else list(r) for r in refs]
        assert layout.count_list() == layout.counts().tolist() == [1 if isinstance(r, str) else len(r) for r in refs]
        assert layout.first() == [r if isinstance(r, str) else r[0] for r in refs]
        if layout.multi:
            assert layout.starts is not None
            assert layout.starts.tolist() == layout.offsets
        else:
            assert layout.starts is None
