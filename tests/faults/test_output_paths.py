"""Issue 23, security 4 and the ``--output`` tracebacks: outputs are written as a program is expected to write
(through symbolic links, into FIFOs, never replacing them with a regular file), an output that is one of the
run's inputs is refused, and a directory or a missing folder is an error before any scoring."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from nlgmetrics.metrics.base import Family

REFS = ["the cat sat on the mat", "hello world"]
PREDS = ["the cat sits on the mat", "hello there"]


@pytest.fixture
def files(write):
    return write("ref.txt", REFS), write("sys.txt", PREDS)


@pytest.fixture
def no_scoring(monkeypatch):
    """Scoring fails the test: the error must come before it."""

    def fail(*args, **kwargs):
        raise AssertionError("scored before the output was checked")

    monkeypatch.setattr(Family, "batch_stats", fail)


def evaluate_args(ref, sys_, *more):
    return ["evaluate", "--ref", ref, "--sys", f"a={sys_}", "--metric", "bleu", "--bootstrap", "0", *more]


def read_fifo(path):
    """Open ``path`` (a FIFO) for reading in a thread; returns a function giving what was read."""
    got: list[bytes] = []

    def reader():
        with open(path, "rb") as fh:
            got.append(fh.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()

    def result():
        thread.join(10)
        return b"".join(got)

    return result


def test_evaluate_refuses_to_overwrite_an_input(cli, files, tmp_path, no_scoring):
    ref, sys_ = files
    before = ref.read_bytes()
    run = cli(*evaluate_args(ref, sys_, "--output", ref))
    assert run.code == 2
    assert f"it is the input --ref {ref}" in run.err
    link = tmp_path / "out.json"
    link.symlink_to(sys_)
    run = cli(*evaluate_args(ref, sys_, "--report", link))
    assert run.code == 2
    assert "it is the input --sys a" in run.err
    assert ref.read_bytes() == before
    assert link.is_symlink()


def test_a_config_file_naming_an_input_as_output(cli, files, tmp_path, no_scoring):
    ref, sys_ = files
    config = tmp_path / "run.toml"
    config.write_text(
        f'references = "{ref.name}"\nmetrics = ["bleu"]\noutput = "{ref.name}"\n[systems]\na = "{sys_.name}"\n'
    )
    run = cli("evaluate", "--config", config)
    assert run.code == 2
    assert "it is the input --ref" in run.err
    run = cli("evaluate", "--config", config, "--output", config)
    assert run.code == 2
    assert "it is the input --config" in run.err


def test_output_and_report_are_not_one_file(cli, files, tmp_path, no_scoring):
    ref, sys_ = files
    out = tmp_path / "x.html"
    run = cli(*evaluate_args(ref, sys_, "--output", out, "--report", out))
    assert run.code == 2
    assert "another output of this run is the same file" in run.err


@pytest.mark.parametrize("command", ["evaluate", "bleu"])
def test_missing_folder_and_directory_fail_before_scoring(cli, files, tmp_path, no_scoring, command):
    ref, sys_ = files
    (tmp_path / "d.jsonl").mkdir()
    for target, message in ((tmp_path / "missing" / "x.jsonl", "No such directory"), (tmp_path / "d.jsonl", "Is a")):
        if command == "evaluate":
            run = cli(*evaluate_args(ref, sys_, "--output", target))
        else:
            run = cli("bleu", "--pred", sys_, "--ref", ref, "--output", target)
        assert run.code == 2, run.err
        assert f"cannot write --output {target}: {message}" in run.err
        assert "Traceback" not in run.err


def test_single_metric_output_refuses_an_input(cli, write, no_scoring):
    rows = [f'{{"prediction": "{p}", "references": ["{r}"]}}' for p, r in zip(PREDS, REFS, strict=True)]
    pred = write("p.jsonl", rows)
    run = cli("nls", "--pred", pred, "--output", pred)
    assert run.code == 2
    assert f"it is the input --pred {pred}" in run.err


def test_written_through_a_link_to_its_target(cli, files, tmp_path):
    ref, sys_ = files
    target = tmp_path / "result.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    run = cli(*evaluate_args(ref, sys_, "--output", link))
    assert run.code == 0, run.err
    assert link.is_symlink()
    assert '"nlgmetrics"' in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


@pytest.mark.parametrize("command", ["evaluate", "nls"])
def test_written_into_a_fifo(cli, files, tmp_path, command):
    ref, sys_ = files
    fifo = tmp_path / ("out.json" if command == "evaluate" else "out.jsonl")  # JSON text, or a table
    os.mkfifo(fifo)
    got = read_fifo(fifo)
    if command == "evaluate":
        run = cli(*evaluate_args(ref, sys_, "--output", fifo))
    else:
        run = cli("nls", "--pred", sys_, "--ref", ref, "--output", fifo)
    assert run.code == 0, run.err
    data = got()
    assert data.strip()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_bertscore_baseline_output_is_checked_before_the_model_loads(cli, write, no_scoring):
    corpus = write("corpus.txt", ["a sentence", "another one"])
    run = cli("bertscore-baseline", "--model", "no-such-model", "--corpus", corpus, "--output", corpus)
    assert run.code == 2
    assert "it is the input --corpus" in run.err
