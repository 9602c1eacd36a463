"""Significance and confidence: results, determinism, any additive family, and clear errors."""

from __future__ import annotations

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, UnknownOptionError
from nlgmetrics.metrics.anls import ANLS
from nlgmetrics.metrics.significance import bootstrap_ci_from_stats, paired_test_from_stats

REFS = ["the cat sat on the mat", "a dog ran in the park", "it is raining today", "he reads a book"] * 5
BASE = ["the cat sat on a mat", "a dog ran", "it rains today", "he read the book"] * 5
SYSTEM = ["the cat sat on the mat", "a dog ran in a park", "it is raining", "he reads books"] * 5


def test_bootstrap_ci_fields_and_determinism():
    ci = nm.bootstrap_ci(SYSTEM, REFS, n_samples=200)
    assert ci.lower <= ci.mean <= ci.upper
    assert ci.ci == pytest.approx((ci.upper - ci.lower) / 2)
    assert ci.score == nm.bleu(SYSTEM, REFS).score
    assert (ci.n_samples, ci.seed, ci.confidence) == (200, 12345, 0.95)
    assert ci.sacrebleu_signature == "nrefs:1|bs:200|seed:12345|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    assert "bs:200" in ci.signature
    assert "rs:12345" in ci.signature
    assert nm.bootstrap_ci(SYSTEM, REFS, n_samples=200) == ci
    assert nm.bootstrap_ci(SYSTEM, REFS, n_samples=200, seed=1) != ci
    wide = nm.bootstrap_ci(SYSTEM, REFS, n_samples=200, confidence=0.99)
    assert wide.lower <= ci.lower
    assert wide.upper >= ci.upper


def test_paired_tests_fields():
    bs = nm.paired_bootstrap(BASE, SYSTEM, REFS, n_samples=200)
    assert bs.test == "paired-bootstrap"
    assert bs.system == nm.bleu(SYSTEM, REFS).score
    assert bs.baseline == nm.bleu(BASE, REFS).score
    assert bs.difference == pytest.approx(bs.system - bs.baseline)
    assert 0 < bs.p_value <= 1
    assert bs.system_ci > 0
    assert bs.baseline_ci > 0
    ar = nm.paired_approximate_randomization(BASE, SYSTEM, REFS, n_samples=300)
    assert ar.test == "approximate-randomization"
    assert ar.system_mean is None
    assert ar.baseline_mean is None
    with_ci = nm.paired_approximate_randomization(BASE, SYSTEM, REFS, n_samples=300, n_confidence=100)
    assert with_ci.p_value == ar.p_value
    assert with_ci.system_ci is not None
    assert with_ci.sacrebleu_signature.startswith("nrefs:1|bs:100|ar:300|seed:12345|")
    # a system against itself: every resampled difference is 0, none exceeds the observed 0, so sacrebleu's
    # p = (0 + 1) / (N + 1)
    same = nm.paired_bootstrap(SYSTEM, SYSTEM, REFS, n_samples=100)
    assert same.p_value == 1 / 101
    assert set(bs.to_dict()) >= {"p_value", "difference", "system_mean", "signature"}


@pytest.mark.parametrize("metric", ["chrf", "ter", "nls", "wer", "cer", "edit_distance", "anls"])
def test_every_additive_family(metric):
    refs = REFS if metric != "anls" else [[r] for r in REFS]
    ci = nm.bootstrap_ci(SYSTEM, refs, metric=metric, n_samples=100)
    assert ci.lower <= ci.upper
    test = nm.paired_bootstrap(BASE, SYSTEM, refs, metric=metric, n_samples=100)
    assert 0 < test.p_value <= 1


def test_family_objects_and_statistics_directly():
    cfg = ANLS.make_config()
    a = ANLS.batch_stats(BASE, REFS, cfg)
    b = ANLS.batch_stats(SYSTEM, REFS, cfg)
    assert bootstrap_ci_from_stats(ANLS, cfg, b, n_samples=50).score == ANLS.compute(SYSTEM, REFS, cfg).score
    result = paired_test_from_stats(ANLS, cfg, a, b, test="ar", n_samples=100)
    assert result.p_value > 0
    assert nm.bootstrap_ci(SYSTEM, REFS, metric=ANLS, n_samples=50).score == ANLS.compute(SYSTEM, REFS, cfg).score


def test_precision_modes():
    f32 = nm.bootstrap_ci(SYSTEM, REFS, n_samples=100, precision="float32")
    f64 = nm.bootstrap_ci(SYSTEM, REFS, n_samples=100, precision="float64")
    assert f32 == nm.bootstrap_ci(SYSTEM, REFS, n_samples=100)  # auto: sacrebleu's float32 for BLEU
    assert f64.mean == pytest.approx(f32.mean, rel=1e-5)


def test_nltk_last_sentence_smoothing_cannot_be_resampled():
    with pytest.raises(InvalidInputError, match="last sentence"):
        nm.bootstrap_ci(SYSTEM, REFS, preset="nltk", smoothing="method5", n_samples=10)
    assert nm.bootstrap_ci(SYSTEM, REFS, preset="nltk", n_samples=10).score > 0


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"seed": None}, InvalidInputError, "seed"),
        ({"seed": -1}, InvalidInputError, "seed"),
        ({"n_samples": 0}, InvalidInputError, "n_samples"),
        ({"confidence": 1.5}, InvalidInputError, "confidence"),
        ({"metric": "no-such-metric"}, UnknownOptionError, "'bleu'"),
        ({"precision": "float16"}, UnknownOptionError, "'float32'"),
        ({"tokenizer": "14a"}, UnknownOptionError, "'14a'"),
    ],
)
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        nm.bootstrap_ci(SYSTEM, REFS, **kwargs)


def test_paired_inputs_must_align():
    with pytest.raises(InvalidInputError, match="differ in length"):
        nm.paired_bootstrap(BASE[:3], SYSTEM, REFS)
    cfg = ANLS.make_config()
    short, full = ANLS.batch_stats(BASE[:3], REFS[:3], cfg), ANLS.batch_stats(BASE, REFS, cfg)
    with pytest.raises(InvalidInputError, match="same segments"):
        paired_test_from_stats(ANLS, cfg, short, full)
    with pytest.raises(UnknownOptionError, match="paired test"):
        paired_test_from_stats(ANLS, cfg, full, full, test="t")


def test_score_selects_one_value_of_a_result():
    ci = nm.bootstrap_ci(SYSTEM, REFS, metric="chrf", n_samples=50, score="precision")
    assert ci.score == nm.chrf(SYSTEM, REFS).precision
    by_callable = nm.paired_bootstrap(BASE, SYSTEM, REFS, metric="chrf", n_samples=50, score=lambda r: r.recall)
    assert by_callable.system == nm.chrf(SYSTEM, REFS).recall
    with pytest.raises(InvalidInputError, match="no such value"):
        nm.bootstrap_ci(SYSTEM, REFS, metric="chrf", n_samples=10, score="rougeL")


def test_a_family_whose_score_holds_several_values():
    """ROUGE's score is a mapping of its variants: the tests need to be told which one."""
    import dataclasses

    import numpy as np

    from nlgmetrics.metrics.base import Family, Result
    from nlgmetrics.stats import Stats, StatsBatch

    @dataclasses.dataclass(frozen=True)
    class Config:
        pass

    @dataclasses.dataclass(frozen=True)
    class Counts(Stats):
        same: int
        total: int

    def kernel(preds, refs, cfg):
        same = np.fromiter((p == r for p, r in zip(preds, refs.first(), strict=True)), dtype=np.int64)
        return StatsBatch(Counts, {"same": same, "total": np.ones(len(preds), dtype=np.int64)})

    def formula(stats, cfg):
        rate = stats.same / stats.total if stats.total else 0.0
        return Result(score={"exact": rate, "wrong": 1 - rate})

    family = Family("toy", Config, Counts, kernel, formula)
    with pytest.raises(InvalidInputError, match="choose one with score"):
        nm.bootstrap_ci(SYSTEM, REFS, metric=family, n_samples=10)
    result = nm.paired_bootstrap(BASE, SYSTEM, REFS, metric=family, n_samples=100, score="exact")
    assert result.system == 0.25
    assert result.baseline == 0.0
