"""The installed command, run as a separate process, and the real DocVQA data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import nlgmetrics


def nlgmetrics_process(*argv: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlgmetrics", *map(str, argv)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


def test_python_m_nlgmetrics_seed_example(tmp_path):
    (tmp_path / "p.txt").write_text("rain\nlnaguaeg\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("shine\nlanguage\n", encoding="utf-8")
    proc = nlgmetrics_process(
        "nls", "--pred", tmp_path / "p.txt", "--ref", tmp_path / "r.txt", "--json", "--per-segment"
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["nls"] == 0.45
    assert out["segments"] == [0.4, 0.5]


def test_python_m_nlgmetrics_error_is_exit_2_without_traceback(tmp_path):
    (tmp_path / "a.txt").write_text("1\n2\n3\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("1\n2\n3\n4\n", encoding="utf-8")
    proc = nlgmetrics_process("nls", "--pred", tmp_path / "a.txt", "--ref", tmp_path / "b.txt")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert (
        proc.stderr
        == f"nlgmetrics: error: --pred {tmp_path / 'a.txt'} has 3 lines but --ref {tmp_path / 'b.txt'} has 4\n"
    )


def test_version_and_help():
    proc = nlgmetrics_process("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"nlgmetrics {nlgmetrics.__version__}"
    proc = nlgmetrics_process("--help")
    assert proc.returncode == 0
    for name in ("nls", "edit-distance", "cer", "wer", "anls", "anls-star"):
        assert name in proc.stdout


@pytest.mark.parametrize(
    ("metric", "flags"),
    [
        ("nls", ["--substitution-cost", "--reduction"]),
        ("edit-distance", ["--substitution-cost", "--reduction"]),
        ("cer", ["--preset", "--substitution-cost"]),
        ("wer", ["--preset", "--substitution-cost"]),
        ("anls", ["--preset {docvqa,anls-pkg}", "--threshold FLOAT", "docvqa"]),
        ("anls-star", ["--pred-field", "--ref-field"]),
    ],
)
def test_subcommand_help(cli, metric, flags):
    run = cli(metric, "--help")
    assert run.code == 0
    for flag in (*flags, "--pred", "--ref", "--json", "--per-segment"):
        assert flag in run.out


def test_main_without_argv_reads_sys_argv(monkeypatch, capsys):
    from nlgmetrics.cli.main import main

    monkeypatch.setattr(sys, "argv", ["nlgmetrics", "--version"])
    assert main() == 0
    assert capsys.readouterr().out.startswith("nlgmetrics ")


# ---------------------------------------------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def docvqa(shared_data: Path) -> Path:
    return shared_data / "docvqa"


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("model", "preset", "expected"),
    [
        ("blip2-flant5", "anls-pkg", "0.07040"),
        ("blip2-opt", "anls-pkg", "0.00893"),
        # the official script keeps a similarity of exactly 0.5 (>= tau), the anls package drops it
        ("blip2-flant5", "docvqa", "0.08022"),
        ("blip2-opt", "docvqa", "0.00912"),
    ],
)
def test_real_docvqa_results(cli, docvqa, model, preset, expected):
    path = docvqa / f"{model}.docvqa-val.json"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    run = cli("anls", "--pred", path, "--preset", preset)
    assert run.code == 0, run.err
    assert run.out.startswith(f"ANLS = {expected} (anls|")
    assert f"preset:{preset}" in run.out
    assert run.out.splitlines()[1].startswith("count: 5349, ")
    out = cli("anls", "--pred", path, "--preset", preset, "--json").json()
    data = json.loads(path.read_text(encoding="utf-8"))
    expected_result = nlgmetrics.anls([d["answer"] for d in data], [d["gt_answers"] for d in data], preset=preset)
    assert out["anls"] == expected_result.score


@pytest.mark.realdata
def test_real_docvqa_default_preset_is_docvqa(cli, docvqa):
    path = docvqa / "blip2-flant5.docvqa-val.json"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    out = cli("anls", "--pred", path, "--json", "--per-segment").json()
    assert out["settings"]["preset"] == "docvqa"
    assert round(out["anls"], 5) == 0.08022
    assert len(out["segments"]) == out["count"] == 5349
