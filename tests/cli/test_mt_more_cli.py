"""The GLEU, NIST, EED, CharacTER and MER/WIL/WIP subcommands on small files: the numbers of the Python API, the
presets and options as flags, exit status 2 on bad input."""

from __future__ import annotations

import pytest

import nlgmetrics as nm

PREDS = ["the cat sat on the mat", "a dog ran"]
REFS_A = ["the cat is on the mat", "the dog ran away"]
REFS_B = ["a cat sat on the mat", "a dog ran off"]


@pytest.fixture
def files(write):
    return write("pred.txt", PREDS), write("a.txt", REFS_A), write("b.txt", REFS_B)


@pytest.mark.parametrize(
    ("argv", "fn", "kwargs"),
    [
        (["gleu", "--min-len", "2"], nm.gleu, {"min_len": 2}),
        (["gleu", "--preset", "hf-google-bleu"], nm.gleu, {"preset": "hf-google-bleu"}),
        (["nist"], nm.nist, {}),
        (["nist", "--preset", "mteval-13a", "--no-lowercase"], nm.nist, {"preset": "mteval-13a", "lowercase": False}),
        (["eed", "--alpha", "1.5", "--rho", "0.2"], nm.eed, {"alpha": 1.5, "rho": 0.2}),
    ],
)
def test_multi_reference_commands(cli, files, argv, fn, kwargs):
    pred, a, b = files
    out = cli(*argv, "--pred", pred, "--ref", a, b, "--json", "--per-segment").json()
    expected = fn(PREDS, [list(r) for r in zip(REFS_A, REFS_B, strict=True)], segments=True, **kwargs)
    assert out[argv[0]] == expected.score
    assert out["segments"] == list(expected.segments)
    assert out["signature"] == expected.signature


@pytest.mark.parametrize("name", ["character", "mer", "wil", "wip"])
def test_single_reference_commands(cli, files, name):
    pred, a, _ = files
    out = cli(name, "--pred", pred, "--ref", a, "--json").json()
    assert out[name] == getattr(nm, name)(PREDS, REFS_A).score


def test_bad_input_exits_2(cli, write, files):
    pred, a, _ = files
    short = write("short.txt", ["only one line"])
    run = cli("nist", "--pred", pred, "--ref", short)
    assert run.code == 2
    assert run.err
    blank = write("blank.txt", ["a", "   "])
    run = cli("character", "--pred", pred, "--ref", blank)
    assert run.code == 2
    assert "reference 1 has no word" in run.err
    run = cli("gleu", "--pred", pred, "--ref", a, "--min-len", "3", "--max-len", "2")
    assert run.code == 2
    assert "min_len (3) is larger than max_len (2)" in run.err
