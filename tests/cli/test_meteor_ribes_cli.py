"""``nlgmetrics meteor`` and ``nlgmetrics ribes`` on small files: numbers, JSON, options, exit 2 on bad input."""

from __future__ import annotations

import nlgmetrics as nm


def test_meteor_cli_json_equals_functional(cli, write):
    p = write("p.txt", ["the cat sat on the mat", "he listens"])
    r = write("r.txt", ["the cat is on the mat", "he hears"])
    r2 = write("r2.txt", ["a cat sat on a mat", "she hears"])
    out = cli("meteor", "--pred", p, "--ref", r, "--ref", r2, "--json", "--per-segment", "--gamma", "0.6").json()
    expected = nm.meteor(
        ["the cat sat on the mat", "he listens"],
        [["the cat is on the mat", "a cat sat on a mat"], ["he hears", "she hears"]],
        gamma=0.6,
        segments=True,
    )
    assert out["meteor"] == expected.score
    assert out["segments"] == list(expected.segments)
    assert out["signature"] == expected.signature
    assert out["synonym"] == expected.synonym


def test_ribes_cli_presets_and_options(cli, write):
    p = write("p.txt", ["he read the book because he was interested in world history"])
    r = write("r.txt", ["he was interested in world history because he read the book"])
    official = cli("ribes", "--pred", p, "--ref", r, "--json").json()
    assert abs(official["ribes"] - 0.3090909090909091) < 1e-15
    nltk = cli("ribes", "--pred", p, "--ref", r, "--json", "--preset", "nltk").json()
    assert nltk["signature"].startswith("ribes|conv:nltk")
    text = cli("ribes", "--pred", p, "--ref", r, "--alpha", "0.5", "--no-lowercase")
    assert text.code == 0
    assert "alpha:0.5" in text.out
    assert "lc:no" in text.out


def test_ribes_cli_empty_reference_and_z(cli, write):
    p = write("p.txt", ["a b", "c d"])
    r = write("r.txt", ["a b", ""])
    bad = cli("ribes", "--pred", p, "--ref", r)
    assert bad.code == 2
    assert "references[1] has no words" in bad.err
    ok = cli("ribes", "--pred", p, "--ref", r, "--ignore-empty-references", "--json")
    assert ok.json()["n_scored"] == 1


def test_cli_bad_input_exit_2(cli, write):
    p = write("p.txt", ["a", "b"])
    r = write("r.txt", ["a"])
    for command in ("meteor", "ribes"):
        run = cli(command, "--pred", p, "--ref", r)
        assert run.code == 2
        assert run.err
    run = cli("meteor", "--pred", p, "--ref", p, "--alpha", "2")
    assert run.code == 2
    assert "alpha must be <= 1.0" in run.err
