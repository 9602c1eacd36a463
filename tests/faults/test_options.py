"""Issue item 5 (numeric options), 3 (quadratic kernels), 8 and issue 14's traps: every numeric option rejects
NaN, infinities and out-of-range values with a message naming it; quadratic kernels refuse, with an estimate,
pairs that would run for minutes; tokenizer names mean one thing."""

from __future__ import annotations

import math
import random

import pytest

import nlgmetrics as nm
from nlgmetrics.algorithms.guard import InputTooLongError, pair_limit
from nlgmetrics.errors import InvalidInputError, UnknownOptionError
from nlgmetrics.evaluate import Texts, evaluate

P = ["the cat sat on the mat", "a dog"]
R = [["the cat sat on a mat"], ["a dog barked"]]
NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nm.anls(["a"], ["a"], threshold=NAN), "threshold must be a finite number"),
        (lambda: nm.anls_star(["a"], ["a"], threshold=INF), "threshold must be a finite number"),
        (lambda: nm.bleu(P, R, weights=[0, 0, 0, 0]), "weights must not all be 0"),
        (lambda: nm.bleu(P, R, weights=[NAN, 1, 1, 1]), "each weight must be a finite number"),
        (lambda: nm.bleu(P, R, weights=[1e308, 1, 1, 1]), "each weight must be <= "),
        (lambda: nm.bleu(P, R, max_order=10**9), "max_order must be <= 100"),
        (lambda: nm.bleu(P, R, smoothing="floor", smooth_value=NAN), "smooth_value must be a finite number"),
        (lambda: nm.chrf(P, R, beta=NAN), "beta must be a finite number"),
        (lambda: nm.chrf(P, R, beta=1e200), "beta must be <= "),
        (lambda: nm.chrf(P, R, char_order=10**7), "char_order must be <= 100"),
        (lambda: nm.rouge(P, R, beta=INF), "beta must be a finite number"),
        (lambda: nm.rouge(P, R, alpha=NAN), "alpha must be a finite number"),
        (lambda: nm.rouge(P, R, rouge_types=["rougeW"], weight=1e300), "weight must be <= 10"),
        (lambda: nm.rouge(P, R, bootstrap_samples=10, confidence=NAN), "confidence must be a finite number"),
        (lambda: nm.rouge(P, R, bootstrap_samples=10, confidence=1.0), "confidence must be between 0 and 1"),
        (lambda: nm.rouge(P, R, bootstrap_samples=10**12), "bootstrap_samples must be <= "),
        (lambda: nm.rouge(P, R, workers=10**6), "workers must be <= 256"),
        (lambda: nm.ter(P, R, workers=10**6), "workers must be <= 256"),
        (lambda: nm.wer(["a b"], ["a c"], substitution_cost=10**30), "substitution_cost must be <= "),
        (lambda: nm.edit_distance(["a"], ["b"], substitution_cost=-1), "substitution_cost must be a non-negative"),
        (
            lambda: nm.paired_approximate_randomization(["a b"], ["a b"], ["a c"], n_samples=10, n_confidence=-5),
            "n_confidence must be an integer >= 0",
        ),
        (
            lambda: nm.paired_approximate_randomization(["a b"], ["a b"], ["a c"], n_samples=10, n_confidence=NAN),
            "n_confidence must be an integer >= 0",
        ),
        (lambda: nm.paired_bootstrap(["a b"], ["a b"], ["a c"], n_samples=10**9), "n_samples must be <= 1,000,000"),
        (lambda: nm.bootstrap_ci(["a b"], ["a b"], n_samples=10**12), "n_samples must be <= 1,000,000"),
        (lambda: nm.bootstrap_ci(["a b"], ["a b"], confidence=NAN), "confidence must be a number between 0 and 1"),
        (lambda: evaluate(Texts(["a"]), {"s": ["a"]}, ["chrf:beta=NaN"]), "beta must be a finite number, got nan"),
        (lambda: evaluate(Texts(["a"]), {"s": ["a"]}, ["bleu:weights=0/0/0/0"]), "weights must not all be 0"),
        # the families added later follow the same rules
        (lambda: nm.nist(P, R, max_order=10**12), "max_order must be <= 100"),
        (lambda: nm.gleu(P, R, max_len=10**12), "max_len must be <= 100"),
        (lambda: nm.cider(P, R, n=10**9), "n must be <= 100"),
        (lambda: nm.cider(P, R, scale=-1.0), "scale must be > 0"),
        (lambda: nm.cider(P, R, sigma=NAN), "sigma must be a finite number"),
        (lambda: nm.meteor(P, R, beta=INF), "beta must be a finite number"),
        (lambda: nm.ribes(P, R, alpha=1e300), "alpha must be <= "),
        (lambda: nm.eed(P, R, rho=NAN), "rho must be a finite number"),
        (lambda: nm.squad(P, [[r] for r in R], preset="squad-v2", na_prob_thresh=-1.0), "na_prob_thresh must be >= 0"),
        (lambda: evaluate(Texts(["a"]), {"s": ["a"]}, ["nist:max_order=NaN"]), "max_order"),
    ],
)
def test_numeric_options_name_themselves(call, message):
    """Item 5: NaN, ±inf and out-of-range values are errors naming the option (never a traceback, a hang or a
    silently dropped setting)."""
    with pytest.raises(InvalidInputError, match=message.replace("(", r"\(")):
        call()


def test_the_cli_names_the_option(cli, write):
    p = write("p.txt", ["a b"])
    run = cli("anls", "--pred", p, "--ref", p, "--threshold", "nan")
    assert run.code == 2
    assert "threshold must be a finite number, got nan" in run.err


# ------------------------------------------------------------------------------------------------ quadratic kernels
def _words(n, seed):
    rng = random.Random(seed)
    return " ".join(f"w{rng.randrange(3000)}" for _ in range(n))


@pytest.mark.parametrize(
    ("call", "metric"),
    [
        (lambda a, b: nm.ter(["ok", a], ["ok", b]), "ter"),
        # ROUGE's compiled kernel takes 5,000 words in milliseconds: its guard starts at tens of thousands
        (lambda a, b: nm.rouge(["ok", a * 16], ["ok", b * 16], rouge_types=["rougeW"], preset="rouge155"), "rougeW"),
        (lambda a, b: nm.rouge(["ok", a * 8], ["ok", b * 8], rouge_types=["rougeS*"], preset="rouge155"), "rougeS*"),
        (lambda a, b: nm.wer(["ok", a * 80], ["ok", b * 80]), "wer"),
        (lambda a, b: nm.cer(["ok", a * 30], ["ok", b * 30]), "cer"),
        (lambda a, b: nm.nls(["ok", a * 30], ["ok", b * 30]), "nls"),
        (lambda a, b: nm.anls(["ok", a * 30], [["ok"], ["x", b * 30]]), "anls"),
        (lambda a, b: nm.edit_distance(["ok", a * 30], ["ok", b * 30]), "edit_distance"),
        (lambda a, b: nm.mer(["ok", a * 80], ["ok", b * 80]), "wer"),
        (lambda a, b: nm.eed(["ok", a * 3], ["ok", b * 3]), "eed"),
        (lambda a, b: nm.character(["ok", a], ["ok", b]), "character"),
    ],
)
def test_quadratic_kernels_refuse_what_would_run_for_minutes(call, metric):
    """Item 3: beyond the documented limit, a clear error with the estimate and how to go ahead; nothing runs."""
    a, b = _words(5000, 1), _words(5000, 2)  # TER: 5,000 x 5,000 words, where 3,200 x 3,200 run 30 s
    with pytest.raises(InputTooLongError) as err:
        call(a, b)
    message = str(err.value)
    assert message.startswith(f"predictions[1] is too long for {metric}: ")
    assert "an estimated" in message
    assert "NLGMETRICS_PAIR_LIMIT=off" in message


def test_the_limit_can_be_lifted(monkeypatch):
    a, b = _words(300, 1), _words(300, 2)
    with pair_limit(1e-6), pytest.raises(InputTooLongError, match="beyond the limit of 0 s"):
        nm.ter([a], [b])
    monkeypatch.setenv("NLGMETRICS_PAIR_LIMIT", "0.000001")
    with pytest.raises(InputTooLongError):
        nm.ter([a], [b])
    with pair_limit(None):
        assert nm.ter([a], [b]).score > 0
    monkeypatch.setenv("NLGMETRICS_PAIR_LIMIT", "off")
    assert nm.ter([a], [b]).score > 0
    monkeypatch.setenv("NLGMETRICS_PAIR_LIMIT", "soon")
    with pytest.raises(InvalidInputError, match="NLGMETRICS_PAIR_LIMIT='soon'"):
        nm.ter([a], [b])


def test_the_cli_and_evaluate_name_the_line(cli, write, monkeypatch):
    monkeypatch.setenv("NLGMETRICS_PAIR_LIMIT", "0.000001")
    p = write("p.txt", ["ok", _words(300, 1)])
    r = write("r.txt", ["ok", _words(300, 2)])
    run = cli("ter", "--pred", p, "--ref", r)
    assert run.code == 2
    assert f"{p}:2: predictions[1] is too long for ter" in run.err
    run = cli("evaluate", "--ref", r, "--sys", f"a={p}", "--metric", "ter", "--bootstrap", "0")
    assert f"{p}:2: predictions[1] is too long for ter" in run.err


# ------------------------------------------------------------------------------------------------ tokenizer names
@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: nm.bleu(P, R, tokenizer="sacrebleu-13a"), "sacrebleu-13a"),
        (lambda: nm.rouge(P, R, tokenizer="sacrebleu-intl"), "sacrebleu-intl"),
        (lambda: nm.meteor(P, R, tokenizer="sacrebleu-13a"), "sacrebleu-13a"),
        (lambda: nm.nist(P, R, tokenizer="sacrebleu-zh"), "sacrebleu-zh"),
    ],
)
def test_internal_tokenizer_names_are_refused(call, name):
    """Issues 14 and 26: internal names are not options (they changed the signature and not the number)."""
    with pytest.raises(UnknownOptionError, match=f"tokenizer '{name}' is an internal name.*valid values are"):
        call()


@pytest.mark.parametrize(
    ("call", "name", "unit"),
    [
        (lambda: nm.wer(P, [r[0] for r in R], tokenizer="jiwer-chars"), "jiwer-chars", "char"),
        (lambda: nm.cer(P, [r[0] for r in R], tokenizer="jiwer-words"), "jiwer-words", "word"),
    ],
)
def test_the_other_units_tokenisation_is_refused(call, name, unit):
    """WER's tokenizer is not CER's by another name: say the unit."""
    with pytest.raises(UnknownOptionError, match=f"tokenizer '{name}' is the tokenisation of unit='{unit}'"):
        call()


def test_ja_mecab_names_its_dictionary():
    """Issue 14: ``ja-mecab`` keeps its meaning per family (IPA-dic in BLEU as in sacrebleu, UniDic-lite in ROUGE
    and WER), and the signature names the dictionary; the explicit names work everywhere."""
    pytest.importorskip("MeCab", reason="needs mecab-python3 and ipadic")
    pytest.importorskip("fugashi", reason="needs fugashi and unidic-lite")
    pred, ref = ["東京タワーに行った"], ["東京タワーに行きました"]
    bleu = nm.bleu(pred, ref, tokenizer="ja-mecab")
    assert "|tok:ja-mecab-ipadic|" in bleu.signature
    assert bleu.sacrebleu_signature is not None
    assert "tok:ja-mecab-" in bleu.sacrebleu_signature
    assert bleu.score == nm.bleu(pred, ref, tokenizer="ja-mecab-ipadic").score
    assert "|tok:ja-mecab-unidic-lite|" in nm.bleu(pred, ref, tokenizer="ja-mecab-unidic-lite").signature
    rouge = nm.rouge(pred, ref, tokenizer="ja-mecab", rouge_types=["rouge1"])
    assert "|tok:ja-mecab-unidic-lite|" in rouge.signature
    assert rouge.score == nm.rouge(pred, ref, tokenizer="ja-mecab-unidic-lite", rouge_types=["rouge1"]).score
    assert "|tok:ja-mecab-ipadic|" in nm.rouge(pred, ref, tokenizer="ja-mecab-ipadic", rouge_types=["rouge1"]).signature
    assert "|tok:ja-mecab-unidic-lite|" in nm.wer(pred, ref, tokenizer="ja-mecab").signature
    # the two dictionaries segment differently
    from nlgmetrics.text import get_tokenizer

    text = "外国人参政権について議論した"
    assert get_tokenizer("ja-mecab-ipadic")(text) != get_tokenizer("ja-mecab-unidic-lite")(text)
