"""What the command line prints and nothing more: warnings as one clean line, each signature once, an
explanation without the diagnostics it repeats, and a written file named in a sentence."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from nlgmetrics.cli.main import format_human
from nlgmetrics.cli.registry import COMMANDS, Outcome

NLGMETRICS = str(Path(sys.executable).parent / "nlgmetrics")


def test_a_warning_is_one_nlgmetrics_line_in_the_console_script(write):
    pred = write("p.txt", ["今日は良い天気です", "東京"])
    ref = write("r.txt", ["今日はいい天気です", "東京です"])
    proc = subprocess.run(
        [NLGMETRICS, "rouge", "--pred", str(pred), "--ref", str(ref), "--preset", "rouge-score"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("nlgmetrics: warning: rouge: the 'rouge-score' tokenizer keeps only ASCII")
    assert "sys.exit(main())" not in proc.stderr
    assert "UserWarning" not in proc.stderr


def test_a_warning_in_process_is_one_line_too(cli, write):
    pred = write("p.txt", ["今日は良い天気です"])
    ref = write("r.txt", ["今日はいい天気です"])
    run = cli("rouge", "--pred", pred, "--ref", ref, "--preset", "rouge-score")
    assert run.code == 0
    assert run.err.count("\n") == 1
    assert run.err.startswith("nlgmetrics: warning: ")


def test_rouge_prints_its_signature_once(cli, write):
    pred = write("p.txt", ["the cat sat on the mat", "a dog"])
    ref = write("r.txt", ["the cat sat on a mat", "the dog"])
    run = cli("rouge", "--pred", pred, "--ref", ref)
    assert run.code == 0
    assert run.out.count("rouge|types:") == 1
    lines = run.out.splitlines()
    assert [line.split(" = ")[0] for line in lines[:4]] == ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    assert lines[4].startswith("signature: rouge|types:rouge1,rouge2,rougeL,rougeLsum|")
    # a one-value metric keeps its signature on the headline
    run = cli("bleu", "--pred", pred, "--ref", ref)
    assert run.out.splitlines()[0].startswith("BLEU = ")
    assert run.out.count("bleu|conv:") == 1


def test_explain_says_the_reason_once(cli, write):
    pred = write("p.txt", ["a d a"])
    ref = write("r.txt", ["a b c"])
    run = cli("bleu", "--pred", pred, "--ref", ref, "--preset", "moses", "--explain")
    assert run.code == 0
    assert run.out.count("multi-bleu.perl has no smoothing") == 1
    assert "reason:" not in run.out
    assert "explanation:" not in run.out
    assert run.out.count("why: ") == 1
    assert "matches/total" in run.out
    # JSON still holds every diagnostic
    data = cli("bleu", "--pred", pred, "--ref", ref, "--preset", "moses", "--explain", "--json").json()
    assert data["reason"]
    assert data["explanation"]
    assert data["matches"] == [1, 0, 0, 0]


def test_a_written_file_is_named_in_a_sentence():
    command = COMMANDS["bertscore-baseline"]
    out = Outcome("ja-model.tsv", "bertscore-baseline|model:m|seed:0", {}, {"layers": 7}, None)
    text = format_human(command, out, False)
    assert text.splitlines()[0] == "BERTScore baseline written to ja-model.tsv (bertscore-baseline|model:m|seed:0)"
    assert " = " not in text


def test_a_warning_from_an_evaluate_worker_process_is_one_line_too(cli, write):
    pred = write("p.txt", ["今日は良い天気です", "東京"])
    ref = write("r.txt", ["今日はいい天気です", "東京です"])
    run = cli("evaluate", "--ref", ref, "--sys", f"a={pred}", "--metric", "rouge:tokenizer=rouge-score",
              "--jobs", "2", "--bootstrap", "0", "--test", "none", "--quiet")  # fmt: skip
    assert run.code == 0, run.err
    assert run.err.startswith("nlgmetrics: warning: rouge: the 'rouge-score' tokenizer keeps only ASCII")
    assert run.err.count("\n") == 1, run.err  # not the worker's raw 'process.py:261: UserWarning' + source line
