"""Issue items 2 and 7: one input-resolution path and one decoding for every command and ``evaluate``; config
files validated; errors inside ``evaluate`` name the file and the line; streams read once."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.evaluate import Texts, evaluate, load_config

REFS = ["The cat sat on the mat today.", "It is raining in Tokyo again.", "She reads a book."]
HYPS = ["The cat sat on a mat today.", "It rains in Tokyo again.", "She read the book."]


def score(run):
    assert run.code == 0, run.err
    return json.loads(run.out)


# ------------------------------------------------------------------------------------------------ resolution
@pytest.mark.parametrize("bad", ["one_ref_TYPO.txt", "a-directory", os.devnull])
def test_a_ref_that_is_not_a_file_is_an_error_everywhere(cli, write, tmp_path, bad):
    """Item 2: a typo, a directory or /dev/null is never taken as a one-segment literal reference."""
    (tmp_path / "a-directory").mkdir()
    hyp = write("hyp.txt", ["hello world"])
    target = bad if os.path.isabs(bad) else str(tmp_path / bad)
    for argv in (
        ["evaluate", "--ref", target, "--sys", f"a={hyp}", "--metric", "chrf", "--bootstrap", "0"],
        ["chrf", "--pred", hyp, "--ref", target],
    ):
        run = cli(*argv)
        assert run.code == 2
        assert f"cannot read --ref {target}" in run.err, run.err
    with pytest.raises(InvalidInputError, match=f"cannot read references\\[0\\] {target}"):
        evaluate([target], {"a": str(hyp)}, ["chrf"], bootstrap=0, test=None)
    with pytest.raises(InvalidInputError, match="cannot read systems\\['a'\\]"):
        evaluate([str(hyp)], {"a": target}, ["chrf"], bootstrap=0, test=None)


def test_text_in_memory_is_explicit():
    """A list of strings is a list of file names; texts go in Texts(...) (or one list per segment)."""
    with pytest.raises(InvalidInputError, match=r"wrap them: Texts\(\[\.\.\.\]\)"):
        evaluate(["hello world"], {"a": ["hello world"]}, ["chrf"], bootstrap=0, test=None)
    ev = evaluate(Texts(["hello world"]), {"a": ["hello world"]}, ["chrf"], bootstrap=0, test=None)
    assert ev.scores["chrf"]["a"].score == 100.0
    ev = evaluate([["hello world"]], {"a": ["hello world"]}, ["chrf"], bootstrap=0, test=None)
    assert ev.scores["chrf"]["a"].score == 100.0


# ------------------------------------------------------------------------------------------------ decoding
@pytest.mark.parametrize("encoding", ["bom", "crlf", "bom+crlf"])
def test_the_same_decoding_everywhere(cli, write, encoding):
    """Item 2: a UTF-8 BOM (and CRLF) gives the same BLEU in ``evaluate`` as in ``nlgmetrics bleu``."""
    text = "".join(r + ("\r\n" if "crlf" in encoding else "\n") for r in REFS)
    data = (b"\xef\xbb\xbf" if "bom" in encoding else b"") + text.encode("utf-8")
    ref = write("ref.txt", data=data)
    hyp = write("hyp.txt", HYPS)
    single = score(cli("bleu", "--pred", hyp, "--ref", ref, "--json"))["bleu"]
    ev = score(cli("evaluate", "--ref", ref, "--sys", f"a={hyp}", "--metric", "bleu", "--bootstrap", "0", "--json"))
    assert ev["systems"]["a"]["bleu"]["score"] == pytest.approx(single, abs=0)
    assert single == pytest.approx(nm.bleu(HYPS, REFS).score, abs=0)


def test_bom_in_jsonl_references(cli, write):
    ref = write(
        "ref.jsonl", data=b"\xef\xbb\xbf" + "".join(json.dumps({"references": [r]}) + "\n" for r in REFS).encode()
    )
    hyp = write("hyp.txt", HYPS)
    ev = score(cli("evaluate", "--ref", ref, "--sys", f"a={hyp}", "--metric", "bleu", "--bootstrap", "0", "--json"))
    assert ev["systems"]["a"]["bleu"]["score"] == nm.bleu(HYPS, REFS).score


def test_invalid_utf8_is_named_in_the_same_words(cli, write):
    ref = write("ref.txt", REFS)
    bad = write("bad.txt", data=b"ok\nfine\n\xff broken\n")
    single = cli("chrf", "--pred", bad, "--ref", write("r3.txt", REFS))
    ev = cli("evaluate", "--ref", ref, "--sys", f"a={bad}", "--metric", "chrf", "--bootstrap", "0")
    assert single.code == ev.code == 2
    expected = "bad.txt:3: invalid UTF-8 at byte offset 8 (byte 0 of the line, 0xff)"
    assert expected in single.err
    assert expected in ev.err


# ------------------------------------------------------------------------------------------------ config files
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[metric]]\nname = "bleu"\n', "unknown key 'metric'; did you mean 'metrics'?"),
        ("bootstrp = 100\n", "unknown key 'bootstrp'; did you mean 'bootstrap'?"),
        ("job = 2\n", "unknown key 'job'; did you mean 'jobs'?"),
        ('refrence_field = "refs"\n', "unknown key 'refrence_field'; did you mean 'ref_field'?"),
        ("bootstrap = -5\n", "'bootstrap' must be >= 0 and <= 1,000,000, got -5"),
        ("bootstrap = nan\n", "'bootstrap' must be an integer >= 0, got nan"),
        ("bootstrap = 10.0\n", "'bootstrap' must be an integer >= 0, got 10.0"),
        ("confidence = inf\n", "'confidence' must be a number between 0 and 1, got inf"),
        ('jobs = "2"\n', "'jobs' must be an integer >= 1, got '2'"),
        ("systems = [1]\n", "'systems' must be a table of name = path"),
    ],
)
def test_config_files_are_validated(tmp_path, text, message):
    """Item 2: typos in config keys name the nearest valid key; wrong types and ranges name the key."""
    path = tmp_path / "run.toml"
    path.write_text('references = "ref.txt"\n' + text, encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"run\.toml: " + _re(message)):
        load_config(path)


def test_yaml_config_nan(tmp_path):
    pytest.importorskip("yaml")
    path = tmp_path / "run.yaml"
    path.write_text("references: ref.txt\nbootstrap: .nan\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="'bootstrap' must be an integer >= 0, got nan"):
        load_config(path)


def _re(text):
    import re

    return re.escape(text)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bootstrap": -5}, "bootstrap (--bootstrap) must be >= 0"),
        ({"bootstrap": float("nan")}, "bootstrap (--bootstrap) must be an integer"),
        ({"bootstrap": 10**9}, "bootstrap (--bootstrap) must be >= 0 and <= 1,000,000"),
        ({"confidence": float("nan")}, "confidence (--confidence) must be a number between 0 and 1"),
        ({"paired_samples": 0, "baseline": "a"}, "paired_samples (--paired-samples) must be >= 1"),
        ({"chunk_size": 0}, "chunk_size (--chunk-size) must be >= 1"),
        ({"jobs": True}, "jobs (--jobs) must be an integer"),
        ({"seed": -1}, "seed (--seed) must be >= 0"),
    ],
)
def test_run_settings_are_validated(kwargs, message):
    with pytest.raises(InvalidInputError, match=_re(message)):
        evaluate(Texts(REFS), {"a": HYPS}, ["nls"], **kwargs)


# ------------------------------------------------------------------------------------------------ locations
def test_errors_inside_evaluate_name_the_file_and_line(cli, write):
    """Item 7: an error found by a metric's kernel names the file and its line, not an index in a chunk."""
    rows = [{"references": [f"ref {i}"]} for i in range(2000)]
    rows[1499] = {"references": ["one", "two"]}  # WER takes one reference per segment
    ref = write("big_refs.jsonl", text="".join(json.dumps(r) + "\n" for r in rows))
    hyp = write("hyp.txt", [f"hyp {i}" for i in range(2000)])
    run = cli("evaluate", "--ref", ref, "--sys", f"a={hyp}", "--metric", "wer", "--bootstrap", "0")
    assert run.code == 2
    assert "big_refs.jsonl:1500: references[1499] has 2 references" in run.err, run.err
    assert "references[499]" not in run.err
    rows[1499] = {"references": []}
    ref = write("big_refs.jsonl", text="".join(json.dumps(r) + "\n" for r in rows))
    run = cli("evaluate", "--ref", ref, "--sys", f"a={hyp}", "--metric", "wer", "--bootstrap", "0")
    assert "big_refs.jsonl:1500: expected a string or a non-empty list of strings" in run.err, run.err


# ------------------------------------------------------------------------------------------------ streams
def test_stdin_as_a_system(cli, write, monkeypatch):
    """Item 7: ``--sys a=-`` reads standard input (once), and the report shows its text."""
    ref = write("ref.txt", REFS)
    report = ref.parent / "report.html"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("".join(h + "\n" for h in HYPS).encode())))
    run = cli(
        "evaluate",
        "--ref",
        ref,
        "--sys",
        "a=-",
        "--metric",
        "bleu",
        "--bootstrap",
        "0",
        "--report",
        report,
        "--worst",
        "3",
        "--json",
    )
    assert score(run)["systems"]["a"]["bleu"]["score"] == nm.bleu(HYPS, REFS).score
    assert HYPS[1] in report.read_text(encoding="utf-8")
    two = cli("evaluate", "--ref", "-", "--sys", "a=-", "--metric", "bleu")
    assert two.code == 2
    assert "standard input ('-') can be read only once" in two.err


@pytest.mark.skipif(shutil.which("bash") is None or os.name != "posix", reason="needs bash and FIFOs")
def test_pipes_and_fifos_are_read_once(tmp_path):
    """Item 7: a FIFO and ``<(...)`` work with --report and --cache (no hang, no empty predictions)."""
    (tmp_path / "ref.txt").write_text("".join(r + "\n" for r in REFS), encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("".join(h + "\n" for h in HYPS), encoding="utf-8")
    script = (
        "set -e; mkfifo fifo; (cat ref.txt > fifo &); "
        f"'{sys.executable}' -m nlgmetrics evaluate --ref fifo --sys 'a=<(cat hyp.txt)' --metric bleu "
        "--bootstrap 0 --report r.html --cache c --json"
    ).replace("'a=<(cat hyp.txt)'", "a=<(cat hyp.txt)")
    out = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["systems"]["a"]["bleu"]["score"] == nm.bleu(HYPS, REFS).score
    assert HYPS[2] in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_a_killed_runs_stream_copy_is_removed_by_the_next(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = tmp_path / "nlgmetrics-spool-999999999-abc.part"
    stale.write_text("left by a killed run")
    fifo = tmp_path / "fifo"
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(fifo)
    import threading

    writer = threading.Thread(target=lambda: fifo.write_text("".join(h + "\n" for h in HYPS)))
    writer.start()
    ev = evaluate(Texts(REFS), {"a": str(fifo)}, ["nls"], bootstrap=0, test=None)
    writer.join()
    assert ev.scores["nls"]["a"].score == nm.nls(HYPS, REFS).score
    assert not stale.exists()


def test_sets_are_refused():
    """Item 2 (fixed before, replayed here): a set of predictions would be paired at random."""
    with pytest.raises(InvalidInputError, match="unordered container"):
        nm.nls(set(HYPS), REFS)
    with pytest.raises(InvalidInputError, match=r"systems\['a'\]: expected a file path or a list .*, got set"):
        evaluate(Texts(REFS), {"a": set(HYPS)}, ["nls"], bootstrap=0, test=None)
