"""``nlgmetrics bleu | chrf | ter | compare`` on small files: numbers, JSON, --explain, --confidence, errors."""

from __future__ import annotations

import pytest

import nlgmetrics as nm

HYPS = ["the cat sat on the mat", "a d a", "there is a dog in the park today"]
REFS_A = ["the cat is on the mat", "a b c", "a dog is in the park today"]
REFS_B = ["a cat sat on the mat", "a b c d", "the dog is in the park"]
BASE = ["the cat is on a mat", "a b a", "a dog in a park"]


@pytest.fixture
def files(write):
    return {
        "hyp": write("hyp.txt", HYPS),
        "a": write("a.txt", REFS_A),
        "b": write("b.txt", REFS_B),
        "base": write("base.txt", BASE),
    }


def test_bleu_matches_the_function(cli, files):
    out = cli("bleu", "--pred", files["hyp"], "--ref", files["a"], "--ref", files["b"], "--json").json()
    expected = nm.bleu(HYPS, [list(r) for r in zip(REFS_A, REFS_B, strict=True)])
    assert out["bleu"] == expected.score
    assert out["signature"] == expected.signature
    assert out["matches"] == list(expected.matches)
    assert out["bp"] == expected.bp
    assert out["sacrebleu_signature"] == "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"


@pytest.mark.parametrize(
    ("args", "options"),
    [
        (["--preset", "nltk"], {"preset": "nltk"}),
        (
            ["--preset", "nltk", "--smoothing", "method4", "--smooth-value", "3"],
            {"preset": "nltk", "smoothing": "method4", "smooth_value": 3.0},
        ),
        (["--preset", "nltk-3.2"], {"preset": "nltk-3.2"}),
        (["--preset", "moses", "--lowercase"], {"preset": "moses", "lowercase": True}),
        (
            ["--tokenizer", "char", "--effective-order", "--weights", "0.5", "0.5"],
            {"tokenizer": "char", "effective_order": True, "weights": (0.5, 0.5)},
        ),
        (["--scale", "1", "--ref-length", "shortest"], {"scale": 1, "ref_length": "shortest"}),
    ],
)
def test_bleu_options(cli, files, args, options):
    out = cli("bleu", "--pred", files["hyp"], "--ref", files["a"], *args, "--json").json()
    assert out["bleu"] == nm.bleu(HYPS, REFS_A, **options).score


def test_bleu_explain_and_per_segment(cli, files):
    run = cli("bleu", "--pred", files["hyp"], "--ref", files["a"], "--preset", "nltk", "--explain", "--per-segment")
    assert run.code == 0, run.err
    assert "order  matches/total  precision" in run.out
    assert "brevity penalty" in run.out
    assert "smoothing: method0" in run.out
    segments = nm.bleu(HYPS, REFS_A, preset="nltk", segments=True).segments
    assert run.out.rstrip().splitlines()[-1].startswith("3\t")
    assert len(segments) == 3
    as_json = cli("bleu", "--pred", files["hyp"], "--ref", files["a"], "--explain", "--json").json()
    assert as_json["explanation"].lstrip().startswith("BLEU = ")
    assert as_json["reason"] is None


def test_bleu_explains_a_zero(cli, write):
    hyp, ref = write("h.txt", ["a d a"]), write("r.txt", ["a b c"])
    out = cli("bleu", "--pred", hyp, "--ref", ref, "--preset", "moses", "--explain").out
    assert "why: " in out
    assert "any n-gram precision of 0 makes BLEU 0" in out


def test_confidence_interval(cli, files):
    out = cli("bleu", "--pred", files["hyp"], "--ref", files["a"], "--confidence", "50", "--seed", "3", "--json").json()
    ci = nm.bootstrap_ci(HYPS, REFS_A, n_samples=50, seed=3)
    assert (out["confidence_mean"], out["confidence_ci"]) == (ci.mean, ci.ci)
    assert out["confidence_signature"].startswith("nrefs:1|bs:50|seed:3|")


def test_chrf_and_ter(cli, files):
    chrf = cli("chrf", "--pred", files["hyp"], "--ref", files["a"], "--preset", "chrf++", "--json").json()
    assert chrf["chrf"] == nm.chrf(HYPS, REFS_A, preset="chrf++").score
    assert chrf["name"] == "chrF2++"
    ter = cli("ter", "--pred", files["hyp"], "--ref", files["a"], "--normalized", "--case-sensitive", "--json").json()
    assert ter["ter"] == nm.ter(HYPS, REFS_A, normalized=True, case_sensitive=True).score
    human = cli("ter", "--pred", files["hyp"], "--ref", files["a"])
    assert human.code == 0
    assert human.out.startswith("TER = ")


def test_compare(cli, files):
    out = cli(
        "compare",
        "--baseline",
        files["base"],
        "--pred",
        files["hyp"],
        "--ref",
        files["a"],
        "--n-samples",
        "100",
        "--json",
    ).json()
    expected = nm.paired_bootstrap(BASE, HYPS, REFS_A, n_samples=100)
    assert (out["baseline"], out["system"], out["p_value"]) == (expected.baseline, expected.system, expected.p_value)
    ar = cli(
        "compare",
        "--baseline",
        files["base"],
        "--pred",
        files["hyp"],
        "--ref",
        files["a"],
        "--metric",
        "chrf",
        "--test",
        "ar",
        "--n-samples",
        "100",
        "--n-confidence",
        "20",
        "--option",
        "word_order=2",
        "--json",
    ).json()
    expected = nm.paired_approximate_randomization(
        BASE, HYPS, REFS_A, metric="chrf", n_samples=100, n_confidence=20, word_order=2
    )
    assert (ar["p_value"], ar["system_ci"]) == (expected.p_value, expected.system_ci)
    human = cli(
        "compare", "--baseline", files["base"], "--pred", files["hyp"], "--ref", files["a"], "--n-samples", "50"
    )
    assert human.code == 0
    assert "p-value (paired-bootstrap) = " in human.out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bleu", "--preset", "nltk4"], "unknown bleu preset 'nltk4'"),
        (["bleu", "--smoothing", "method1"], "smoothing for the sacrebleu convention"),
        (["bleu", "--tokenizer", "14a"], "'14a'"),
        (["bleu", "--confidence", "0"], "--confidence"),
        (["chrf", "--char-order", "-2"], "char_order"),
        (["ter", "--workers", "0"], "workers"),
        (["compare"], "--baseline"),
        (["compare", "--baseline", "MISSING"], "cannot read --baseline"),
        (["compare", "--baseline", "BASE", "--option", "tokenizer"], "KEY=VALUE"),
        (["compare", "--baseline", "BASE", "--option", "colour=red"], "unknown option 'colour'"),
        (["compare", "--baseline", "BASE", "--n-confidence", "5"], "--test ar"),
    ],
)
def test_errors_exit_2_with_a_message(cli, files, argv, message):
    argv = [a.replace("BASE", str(files["base"])) for a in argv]
    run = cli(*argv, "--pred", files["hyp"], "--ref", files["a"])
    assert run.code == 2
    assert message in run.err
    assert run.err.startswith("nlgmetrics: error: ")


def test_mismatched_files(cli, files, write):
    short = write("short.txt", ["only one line"])
    run = cli("bleu", "--pred", short, "--ref", files["a"])
    assert run.code == 2
    assert "has 1 lines but" in run.err
    run = cli("compare", "--baseline", short, "--pred", files["hyp"], "--ref", files["a"])
    assert run.code == 2
    assert "--baseline has 1 lines" in run.err
