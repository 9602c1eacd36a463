"""BLEU: presets, scales, diagnostics, the account of a zero or tiny score, and clear errors for bad input."""

from __future__ import annotations

import dataclasses
import math

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, UnknownOptionError
from nlgmetrics.metrics.bleu import BLEU, BLEUStats, bleu_from_stats

HYPS = ["the cat sat on the mat", "there is a dog in the park today"]
REFS = [["the cat is on the mat", "a cat sat on the mat"], "a dog is in the park today"]


def test_presets_report_on_their_tool_scale():
    for preset, scale in (("sacrebleu", 100.0), ("nltk", 1.0), ("nltk-3.2", 1.0), ("moses", 100.0)):
        r = nm.bleu(HYPS, REFS, preset=preset)
        assert r.scale == scale
        assert r.convention == preset
        assert 0 < r.score <= scale
        assert f"preset:{preset}" in r.signature
    a = nm.bleu(HYPS, REFS)
    b = nm.bleu(HYPS, REFS, scale=1)
    assert b.score == pytest.approx(a.score / 100, rel=1e-15)
    assert b.precisions == pytest.approx([p / 100 for p in a.precisions], rel=1e-15)


def test_diagnostics_fields():
    r = nm.bleu(HYPS, REFS)
    # sacrebleu: BLEU = 60.11 92.9/75.0/50.0/37.5 (BP = 1.000 ratio = 1.077 hyp_len = 14 ref_len = 13)
    assert round(r.score, 2) == 60.11
    assert r.matches == (13, 9, 5, 3)
    assert r.totals == (14, 12, 10, 8)
    assert r.hyp_len == 14
    assert r.ref_len == 13
    assert r.bp == 1.0
    assert r.ratio == pytest.approx(14 / 13)
    assert [round(p, 1) for p in r.precisions] == [92.9, 75.0, 50.0, 37.5]
    assert r.smoothing == "exp"
    assert r.smoothed_orders == ()
    assert r.effective_order == 4
    assert r.reason is None
    assert r.sacrebleu_signature == "nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    assert "order  matches/total" in r.explain()


def test_nltk_denominators_count_one_for_short_segments():
    r = nm.bleu(["a b", "a b c d e"], ["a b", "a b c d e"], preset="nltk")
    assert r.totals == (7, 5, 4, 3)  # 2-token segment: max(1, 0) 3-grams and 4-grams
    # p = 7/7, 5/5, 3/4, 2/3
    assert r.score == math.exp(math.fsum([0.25 * math.log(3 / 4), 0.25 * math.log(2 / 3)]))


def test_reason_explains_zero_and_tiny_scores():
    sacre = nm.bleu(["a d a"], ["a b c"], smoothing="none")
    assert sacre.score == 0.0
    assert "log(0)" in sacre.reason
    nltk = nm.bleu(["a d a"], ["a b c"], preset="nltk")
    assert nltk.score < 1e-200
    assert "sys.float_info.min" in nltk.reason
    assert nltk.smoothed_orders == (2, 3, 4)
    legacy = nm.bleu(["a d a"], ["a b c"], preset="nltk-3.2")
    assert legacy.effective_order == 1
    assert legacy.reason is None
    moses = nm.bleu(["a d a"], ["a b c"], preset="moses")
    assert "no smoothing" in moses.reason
    assert "no unigram" in nm.bleu(["x y"], ["a b"]).reason
    assert "hold no token" in nm.bleu([""], ["a b"]).reason
    empty = nm.bleu([""], ["a b"], preset="moses")
    assert empty.score == 0.0
    assert "Illegal division by zero" in empty.reason
    short = nm.bleu(["a b c d"], ["a b c d " + "x " * 40])
    assert "brevity penalty" in short.reason


def test_sentence_bleu_defaults_and_shapes():
    one = nm.sentence_bleu("the cat sat on the mat", ["the cat is on the mat", "a cat"])
    assert one.sacrebleu_signature.split("|")[2] == "eff:yes"  # sacrebleu.sentence_bleu's effective order
    assert (
        nm.sentence_bleu("the cat sat", "the cat sat", effective_order=False).sacrebleu_signature.split("|")[2]
        == "eff:no"
    )
    many = nm.sentence_bleu(HYPS, REFS)
    assert isinstance(many, tuple)
    assert len(many) == 2
    assert many[1].score == nm.sentence_bleu(HYPS[1], REFS[1]).score
    assert nm.sentence_bleu("a b c", "a b c", preset="nltk").score == nm.bleu(["a b c"], ["a b c"], preset="nltk").score


def test_segment_scores_come_from_the_same_formula():
    r = nm.bleu(HYPS, REFS, segments=True, effective_order=True)
    assert r.segments == tuple(s.score for s in nm.sentence_bleu(HYPS, REFS))
    batch = BLEU.batch_stats(HYPS, REFS, BLEU.make_config())
    assert batch.total() == batch[0] + batch[1]


def test_reference_length_rules():
    refs = [["a b c", "a b c d e f g"]]
    assert nm.bleu(["a b c d e"], refs).ref_len == 3  # closest: 2 away either way, the shorter wins
    assert nm.bleu(["a b c d e"], refs, ref_length="shortest").ref_len == 3
    assert nm.bleu(["a b c d e"], refs, ref_length="longest").ref_len == 7
    assert nm.bleu(["a b c d e f"], refs).ref_len == 7


def test_weights_and_orders():
    assert nm.bleu(HYPS, REFS, weights=(0.5, 0.5)).effective_order == 2
    assert len(nm.bleu(HYPS, REFS, max_order=6).precisions) == 6
    uniform = nm.bleu(HYPS, REFS, preset="nltk", weights=(0.25,) * 4).score
    assert uniform == nm.bleu(HYPS, REFS, preset="nltk").score
    assert nm.bleu(HYPS, REFS, max_order=1).score == pytest.approx(100 * 13 / 14)


def test_lowercase_per_convention():
    assert nm.bleu(["ÄB"], ["äb"], lowercase=True, tokenizer="none").score == 0.0  # one token, and it matches...
    assert nm.bleu(["ÄB C D E"], ["äb c d e"], lowercase=True).score == pytest.approx(100.0)
    # multi-bleu.perl -lc lowercases ASCII only: Ä stays
    assert nm.bleu(["ÄB C D E"], ["äb c d e"], preset="moses", lowercase=True).matches[0] == 3


def test_segments_with_newlines_are_tokenized_as_sacrebleu_does():
    sacrebleu = pytest.importorskip("sacrebleu")
    hyps = ["well-\nknown fact", "line\none. Two"]
    refs = ["well known fact", "line one . two"]
    for tok in ("13a", "zh", "intl"):
        assert nm.bleu(hyps, refs, tokenizer=tok).score == sacrebleu.corpus_bleu(hyps, [refs], tokenize=tok).score


# ---------------------------------------------------------------------------------------------- statistics
def test_tail_fields_keep_the_last_segment():
    cfg = BLEU.make_config("nltk", smoothing="method5")
    batch = BLEU.batch_stats(["a b c d e f", "x y"], ["a b c d e f", "x y z"], cfg)
    first, second = batch[0], batch[1]
    total = batch.total()
    assert (total.tail, total.tail_hyp_len) == (1, 2)
    assert first + second == total
    assert (second + first).tail_hyp_len == 6  # the right operand is the later data
    assert BLEU.zero(cfg) + total == total
    assert total + BLEU.zero(cfg) == total
    summed = dataclasses.replace(total, tail=2)  # what an all-reduce of two processes' states gives
    with pytest.raises(InvalidInputError, match="last sentence"):
        bleu_from_stats(summed, cfg)
    assert bleu_from_stats(summed, BLEU.make_config("nltk")).score > 0  # other methods do not read it


def test_stats_shapes_follow_max_order():
    cfg = BLEU.make_config(max_order=6)
    zero = BLEU.zero(cfg)
    assert isinstance(zero, BLEUStats)
    assert len(zero.matches) == 6 == len(zero.totals) == len(zero.short)


def test_reference_statistics_are_cached_and_reused():
    """The index path (any tokenizer but 13a, or 13a without the compiled kernel) keeps the references' index."""
    from nlgmetrics.algorithms.fastpath import forced
    from nlgmetrics.metrics.bleu import kernel as module

    with forced(native=False, kernels={"bleu.13a"}):
        _cached_and_reused(module)


def _cached_and_reused(module):
    hyps, refs = HYPS * (module.SMALL // len(HYPS) + 1), REFS * (module.SMALL // len(REFS) + 1)  # a corpus
    module._CACHE.clear()
    a = nm.bleu(hyps, refs).score
    assert len(module._CACHE) == 1
    assert nm.bleu(list(reversed(hyps)), list(reversed(refs))).score == a  # other references: a new entry
    assert len(module._CACHE) == 2
    assert nm.bleu(hyps, [list(r) if isinstance(r, list) else r for r in refs]).score == a
    assert len(module._CACHE) == 2
    assert nm.bleu(HYPS, REFS).score == nm.bleu(HYPS, REFS).score  # a few segments: counted apart, no entry
    assert len(module._CACHE) == 2


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("predictions", "references", "message"),
    [
        (None, ["a"], "predictions is None"),
        (["a", 3], ["a", "b"], r"predictions\[1\]"),
        ([["a"]], ["a"], r"predictions\[0\] is a list"),
        (["a"], [["a", None]], r"references\[0\]\[1\]"),
        (["a", "b"], ["a"], "differ in length"),
        ([], [], "empty"),
        (["a"], [[]], r"references\[0\] is an empty list"),
    ],
)
def test_bad_input_names_the_index(predictions, references, message):
    with pytest.raises(InvalidInputError, match=message):
        nm.bleu(predictions, references)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"preset": "bleu"}, UnknownOptionError, "unknown bleu preset 'bleu'"),
        ({"tokenizer": "14a"}, UnknownOptionError, "'14a'"),
        ({"smoothing": "method3"}, UnknownOptionError, "smoothing for the sacrebleu convention"),
        ({"preset": "nltk", "smoothing": "exp"}, UnknownOptionError, "'method0'"),
        ({"preset": "nltk-3.2", "smoothing": "method1"}, UnknownOptionError, "'method0'"),
        ({"preset": "moses", "smoothing": "exp"}, UnknownOptionError, "'none'"),
        ({"max_order": 0}, InvalidInputError, "max_order"),
        ({"max_order": 3, "weights": (0.5, 0.5)}, InvalidInputError, "one weight per order"),
        ({"weights": ()}, InvalidInputError, "weights"),
        ({"weights": (0.5, -1)}, InvalidInputError, "weight"),
        ({"weights": "0.5"}, InvalidInputError, "weights"),
        ({"preset": "nltk", "effective_order": True}, InvalidInputError, "auto_reweigh"),
        ({"auto_reweigh": True}, InvalidInputError, "effective_order"),
        ({"scale": 10}, InvalidInputError, "scale"),
        ({"smooth_value": 0.5}, InvalidInputError, "takes no smooth_value"),
        ({"smoothing": "floor", "smooth_value": -1}, InvalidInputError, "smooth_value"),
        ({"preset": "nltk", "smoothing": "method4", "smooth_value": 0}, InvalidInputError, "> 0"),
        ({"ref_length": "average"}, UnknownOptionError, "ref_length"),
        ({"convention": "bleu"}, UnknownOptionError, "convention"),
        ({"lowercase": "yes"}, InvalidInputError, "lowercase"),
        ({"colour": "red"}, UnknownOptionError, "unknown option 'colour'"),
    ],
)
def test_bad_options_are_refused_with_the_valid_choices(options, error, message):
    with pytest.raises(error, match=message):
        nm.bleu(HYPS, REFS, **options)


def test_nltk_method6_needs_a_trigram_match_as_nltk_asserts():
    with pytest.raises(InvalidInputError, match="method6"):
        nm.bleu(["a b x y"], ["a b c d"], preset="nltk", smoothing="method6")
    assert nm.bleu(["a b c x"], ["a b c d"], preset="nltk", smoothing="method6").score > 0
