"""Issue items 5, 8 and the CLI traps of issue 14: clear errors instead of tracebacks, after-the-work crashes or
silently changed commands."""

from __future__ import annotations

import json
import random

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.evaluate import Texts, evaluate

REFS = ["the cat sat on the mat", "it is raining", "she reads"]
HYPS = ["the cat sat on a mat", "it rains", "she read"]


def test_prefix_abbreviations_are_refused(cli, write):
    """Item 8: ``--subst 2`` is not ``--substitution-cost 2``."""
    p = write("p.txt", HYPS)
    run = cli("wer", "--pred", p, "--ref", p, "--subst", "2")
    assert run.code == 2
    assert "unrecognized arguments: --subst 2" in run.err
    run = cli("evaluate", "--ref", p, "--sys", f"a={p}", "--metric", "wer", "--boot", "0")
    assert run.code == 2
    assert "unrecognized arguments: --boot" in run.err


def test_negative_worst_is_refused(cli, write):
    """Item 8: ``--worst -1`` is an error, not N-1 segments."""
    p = write("p.txt", HYPS)
    run = cli("evaluate", "--ref", p, "--sys", f"a={p}", "--metric", "wer", "--worst", "-1", "--report", "r.html")
    assert run.code == 2
    assert "--worst: expected a whole number >= 0, got -1" in run.err


def test_duplicate_system_names_are_refused(cli, write):
    """Issue 14: two ``--sys a=...`` do not collapse into one row."""
    p = write("p.txt", HYPS)
    for second in (f"a={p}", f"a={write('q.txt', REFS)}"):
        run = cli("evaluate", "--ref", p, "--sys", f"a={p}", "--sys", second, "--metric", "wer")
        assert run.code == 2
        assert "two --sys are named 'a'" in run.err


def test_bertscore_baseline_names_its_corpus(cli, write):
    """Item 8: an empty corpus names --corpus, not --pred (and before any model loads)."""
    empty = write("empty.txt", [])
    run = cli("bertscore-baseline", "--corpus", empty, "--model", "no-such-model", "--output", empty.parent / "b.tsv")
    assert run.code == 2
    assert f"--corpus {empty} is empty" in run.err
    assert "--pred" not in run.err


@pytest.mark.parametrize("option", ["--output", "--report"])
def test_outputs_into_a_missing_directory_fail_before_the_work(cli, write, tmp_path, option):
    """Item 5: a clear error, before anything is scored."""
    p = write("p.txt", HYPS)
    target = tmp_path / "missing" / "out.file"
    run = cli("evaluate", "--ref", p, "--sys", f"a={p}", "--metric", "wer", option, target)
    assert run.code == 2
    assert f"cannot write {option} {target}: No such directory" in run.err


def test_cache_pointing_at_a_file(cli, write):
    """Item 5: ``--cache`` naming a file is a clear error."""
    p = write("p.txt", HYPS)
    run = cli("evaluate", "--ref", p, "--sys", f"a={p}", "--metric", "wer", "--cache", p)
    assert run.code == 2
    assert f"--cache {p}: exists and is not a directory" in run.err


def test_report_with_a_lone_surrogate(cli, write, tmp_path):
    """Item 5: a lone surrogate (a JSON escape) in the inputs does not crash the report after the work, and no
    empty file is left; the report shows U+FFFD in its place."""
    rows = [{"prediction": h, "references": [r]} for h, r in zip(HYPS, REFS, strict=True)]
    rows[1]["prediction"] = "it \ud800 rains"
    hyp = write("hyp.jsonl", text="".join(json.dumps(r) + "\n" for r in rows))
    ref = write("ref.jsonl", text="".join(json.dumps(r) + "\n" for r in rows))
    report = tmp_path / "r.html"
    run = cli("evaluate", "--ref", ref, "--sys", f"a={hyp}", "--metric", "cer", "--bootstrap", "0", "--report", report)
    assert run.code == 0, run.err
    assert "it \ufffd rains" in report.read_text(encoding="utf-8")


def test_report_failure_leaves_no_empty_file(tmp_path, monkeypatch):
    from nlgmetrics.evaluate import report as report_module

    ev = evaluate(Texts(REFS), {"a": HYPS}, ["cer"], bootstrap=0, test=None, keep_segments=True)
    target = tmp_path / "r.html"

    def boom(*args, **kwargs):
        raise RuntimeError("rendering failed")

    monkeypatch.setattr(report_module, "render_report", boom)
    with pytest.raises(RuntimeError):
        report_module.write_report(ev, str(target), Texts(REFS), {"a": HYPS})
    assert list(tmp_path.iterdir()) == []


def test_anls_star_deep_nesting():
    """Item 5: nesting depth 5000 is a clear error, not a RecursionError."""
    deep = "a"
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(InvalidInputError, match=r"predictions\[0\] is nested more than 100 levels deep"):
        nm.anls_star([deep], ["a"])
    loop: list = []
    loop.append(loop)
    with pytest.raises(InvalidInputError, match="nested more than 100 levels"):
        nm.anls_star(["a"], [loop])


def test_anls_star_deep_json(cli, write):
    line = '{"prediction": ' + "[" * 5000 + '"a"' + "]" * 5000 + ', "references": "a"}'
    p = write("deep.jsonl", text=line + "\n")
    run = cli("anls-star", "--pred", p)
    assert run.code == 2
    assert f"{p}:1: the JSON is nested too deeply to read" in run.err


def test_empty_answer_list_names_file_and_line(cli, write):
    """Issue 14: an empty list of accepted answers is an error naming the file and the line, in every command."""
    rows = [{"prediction": "abc", "references": ["abc"]}, {"prediction": "x", "references": []}]
    p = write("answers.jsonl", text="".join(json.dumps(r) + "\n" for r in rows))
    for command in ("anls", "anls-star", "nls"):
        run = cli(command, "--pred", p)
        assert run.code == 2, command
        assert f"{p}:2" in run.err, (command, run.err)
    docvqa = write("d.json", text=json.dumps([{"question": "q", "answer": "x", "gt_answers": []}]))
    run = cli("anls", "--pred", docvqa)
    assert "item 1: field 'gt_answers' is an empty list" in run.err


@pytest.mark.parametrize("chunk_size", [1000, 7, 333])
def test_chunking_cannot_change_a_bit(chunk_size):
    """Item 8: NLS (and every float sum) is bit for bit the function's, whatever the chunk size."""
    rng = random.Random(1)
    refs = ["".join(rng.choice("abcde ") for _ in range(rng.randint(1, 40))) for _ in range(3000)]
    hyps = ["".join(rng.choice("abcde ") for _ in range(rng.randint(1, 40))) for _ in range(3000)]
    ev = evaluate(Texts(refs), {"s": hyps}, ["nls", "anls"], bootstrap=0, test=None, chunk_size=chunk_size)
    assert ev.scores["nls"]["s"].score == nm.nls(hyps, refs).score
    assert ev.scores["anls"]["s"].score == nm.anls(hyps, refs).score
