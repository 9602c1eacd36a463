"""The vectorised steps 2-4 of the 13a/zh tokenizers (periods, commas, dashes) split exactly where the loops that
replay sacrebleu's regular expressions split, runs of adjacent periods and commas included; and a long corpus
(which takes the vectorised path) tokenizes as sacrebleu tokenizes each line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.text import mt_tokenize as mt

pieces = st.sampled_from([*"ab19.,.,-- \n\t$()'\"&:;", "x-\ny", "\u3000", "東", "...", "1.,2", "3-4", ".-"])
texts = st.lists(pieces, max_size=60).map("".join)


def _loops(text: str) -> str:
    return mt._step_dash_after_digit(mt._step_before_non_digit(mt._step_after_non_digit(text)))


@settings(max_examples=400)
@given(texts)
def test_vectorised_steps_split_where_the_loops_split(text):
    t1 = " ".join(mt._PUNCT_13A.split(text))
    ours, theirs = mt._steps_2_to_4_numpy(t1), _loops(t1)
    assert [line.split() for line in ours.split("\n")] == [line.split() for line in theirs.split("\n")]


@settings(max_examples=20)
@given(st.lists(texts, min_size=1, max_size=200))
def test_a_long_corpus_tokenizes_as_sacrebleu(lines):
    sacrebleu = pytest.importorskip("sacrebleu")
    from sacrebleu.metrics.bleu import _get_tokenizer

    lines = [*lines, "x. 1,5 a.. b.,c 3-4 " * 300]  # long enough for the vectorised path
    for name in ("13a", "zh"):
        theirs = _get_tokenizer(name)()
        ours = mt.sacrebleu_tokenizer(name)
        expected = [theirs(line).split() for line in lines]
        assert ours.batch(lines) == expected, sacrebleu.__version__
        assert [line.split() for line in ours.joined([x for x in lines if "\n" not in x]).split("\n")] == [
            e for x, e in zip(lines, expected, strict=True) if "\n" not in x
        ]


@settings(max_examples=100)
@given(texts)
def test_a_line_with_its_own_newline_tokenizes_as_sacrebleu(text):
    """A "\\n" inside a line is a character like any other for sacrebleu's ``[^0-9]`` and ``\\P{N}`` (also on the
    long path of 13a and zh)."""
    pytest.importorskip("sacrebleu")
    from sacrebleu.metrics.bleu import _get_tokenizer

    for line in (f"9,\n{text}", f"9,\n{text}" + " 1.\n2 a,\n3" * 700):
        for name in ("13a", "zh", "intl"):
            assert mt.sacrebleu_tokenizer(name)(line) == _get_tokenizer(name)()(line).split()
