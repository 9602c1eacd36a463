"""``pass-at-k``, ``g-pass-at-k``, ``maj-at-n`` and ``multiple-choice`` on JSON Lines: both layouts, and exit 2
with a clear message on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import nlgmetrics as nm
from nlgmetrics.cli.main import main


def _jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_pass_at_k_counts_and_correctness(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    counts = _jsonl(
        tmp_path / "c.jsonl", [{"num_samples": 10, "num_correct": 3}, {"num_samples": 10, "num_correct": 0}]
    )
    code, out, err = _run(capsys, "pass-at-k", "--pred", counts, "--k", "1", "5", "--json")
    assert code == 0, err
    data = json.loads(out)
    expected = nm.pass_at_k([10, 10], [3, 0], k=[1, 5])
    assert (data["pass@1"], data["pass@5"]) == (expected["pass@1"], expected["pass@5"])
    assert data["signature"] == expected.signature
    flags = _jsonl(tmp_path / "f.jsonl", [{"correct": [True, False, False]}, {"correct": [False, False, False]}])
    code, out, err = _run(capsys, "pass-at-k", "--pred", flags)
    assert code == 0, err
    assert out.startswith("pass@1 = 0.16667")
    code, out, err = _run(capsys, "g-pass-at-k", "--pred", counts, "--k", "4", "--thresholds", "0.5", "--json")
    assert code == 0, err
    assert set(json.loads(out)) >= {"g-pass@4_0.5", "mg-pass@4"}


def test_pass_at_k_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = _jsonl(tmp_path / "b.jsonl", [{"num_samples": 5, "num_correct": 1}, {"num_samples": 5, "num_correct": 7}])
    code, _, err = _run(capsys, "pass-at-k", "--pred", bad)
    assert code == 2
    assert "num_correct[1] is 7 but problem 1 has 5 samples" in err
    short = _jsonl(tmp_path / "s.jsonl", [{"num_samples": 3, "num_correct": 0}])
    code, _, err = _run(capsys, "pass-at-k", "--pred", short, "--k", "10")
    assert code == 2
    assert "fewer than k=10, and none is correct" in err
    mixed = _jsonl(tmp_path / "m.jsonl", [{"correct": [True]}, {"num_samples": 5, "num_correct": 1}])
    code, _, err = _run(capsys, "pass-at-k", "--pred", mixed)
    assert code == 2
    assert "give one layout for every line" in err
    missing = _jsonl(tmp_path / "x.jsonl", [{"n_total": 5}])
    code, _, err = _run(capsys, "pass-at-k", "--pred", missing)
    assert code == 2
    assert "no field 'num_samples' or 'n' or 'prediction'" in err


def test_maj_at_n(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _jsonl(
        tmp_path / "m.jsonl", [{"samples": ["42", "41", "42"], "gold": "42"}, {"samples": ["7"], "gold": "8"}]
    )
    code, out, err = _run(capsys, "maj-at-n", "--pred", path, "--json")
    assert code == 0, err
    assert json.loads(out)["maj_at_n"] == 0.5
    assert json.loads(out)["avg"] == pytest.approx(1 / 3)


def test_multiple_choice_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"loglikelihoods": [-6.0, -4.0], "gold": 0, "choices": ["a long answer", "yes"]},
        {"loglikelihoods": [-2.0, -2.0], "gold": 0, "choices": ["x", "y"]},
    ]
    code, out, err = _run(capsys, "multiple-choice", "--pred", _jsonl(tmp_path / "mc.jsonl", rows), "--json")
    assert code == 0, err
    assert (json.loads(out)["acc"], json.loads(out)["acc_norm"]) == (0.5, 1.0)
    rows[1]["choices"] = ["x", "y", "z"]
    code, _, err = _run(capsys, "multiple-choice", "--pred", _jsonl(tmp_path / "bad.jsonl", rows))
    assert code == 2
    assert "choices[1] has 3 choices but loglikelihoods[1] has 2" in err
    del rows[1]["choices"]
    code, _, err = _run(capsys, "multiple-choice", "--pred", _jsonl(tmp_path / "half.jsonl", rows))
    assert code == 2
    assert "half.jsonl:2: no field 'choices', which other lines have" in err
