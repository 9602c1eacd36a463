"""``nlgmetrics rouge``: plain text and JSON Lines, several references, escaped newlines, JSON output, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import nlgmetrics as nm

PREDS = ["Transformers Transformers are fast plus efficient", "Good Morning", "I am waiting for new Transformers"]
REFS_A = ["HuggingFace Transformers are fast efficient plus awesome", "Good Morning Transformers",
          "People are eagerly waiting for new Transformer models"]  # fmt: skip
REFS_B = ["Transformers are awesome because they are fast to execute", "Morning Transformers",
          "People are very excited about new Transformers"]  # fmt: skip
WORKED = {"rouge1": 0.6659340659340659, "rouge2": 0.45454545454545453, "rougeL": 0.6146520146520146,
          "rougeLsum": 0.6146520146520146}  # fmt: skip


def test_worked_example_with_two_reference_files(cli, write):
    p, a, b = write("p.txt", PREDS), write("a.txt", REFS_A), write("b.txt", REFS_B)
    out = cli("rouge", "--pred", p, "--ref", a, b, "--preset", "rouge-score", "--json").json()
    assert {k: out[k] for k in WORKED} == WORKED
    assert out["signature"] == nm.rouge(PREDS, list(zip(REFS_A, REFS_B, strict=True)), preset="rouge-score").signature
    assert set(out["precision"]) == set(WORKED)
    assert out["count"] == 3
    assert out["settings"]["tokenizer"] == "rouge-score"
    human = cli("rouge", "--pred", p, "--ref", a, "--ref", b, "--preset", "rouge-score")
    assert human.code == 0
    assert human.out.splitlines()[0] == "rouge1 = 0.66593"
    assert human.out.count("rouge|types:") == 1


def test_options_and_per_segment(cli, write):
    p, a = write("p.txt", PREDS), write("a.txt", REFS_A)
    run = cli("rouge", "--pred", p, "--ref", a, "--rouge-types", "rouge1", "rougeL", "--use-stemmer", "--json",
              "--per-segment", "--multi-ref", "average", "--beta", "2")  # fmt: skip
    out = run.json()
    expected = nm.rouge(PREDS, REFS_A, rouge_types=["rouge1", "rougeL"], use_stemmer=True, multi_ref="average",
                        beta=2.0, segments=True)  # fmt: skip
    assert out["rouge1"] == expected.score["rouge1"]
    assert "rouge2" not in out
    assert out["segments"][1]["rougeL"]["fmeasure"] == expected.segments[1]["rougeL"].fmeasure
    human = cli("rouge", "--pred", p, "--ref", a, "--rouge-types", "rouge1", "--per-segment")
    assert human.code == 0
    assert len(human.out.splitlines()) == 2 + 3


def test_rouge155_preset_and_perl_options(cli, write):
    p, a = write("p.txt", PREDS), write("a.txt", REFS_A)
    out = cli("rouge", "--pred", p, "--ref", a, "--preset", "rouge155", "--use-stemmer", "--remove-stopwords",
              "--length-limit", "5", "--json").json()  # fmt: skip
    expected = nm.rouge(PREDS, REFS_A, preset="rouge155", use_stemmer=True, remove_stopwords=True, length_limit=5)
    assert {k: out[k] for k in expected.score} == expected.score
    assert list(expected.score) == ["rouge1", "rouge2", "rougeL"]


def test_sentence_separator_and_sentence_splitting(cli, write):
    p = write("p.txt", [r"The cat sat.\nThe dog ran."])
    r = write("r.txt", [r"The dog ran.\nThe cat sat."])
    escaped = cli(
        "rouge", "--pred", p, "--ref", r, "--rouge-types", "rougeLsum", "--sentence-separator", r"\n", "--json"
    )
    assert escaped.json()["rougeLsum"] == 1.0
    assert escaped.json()["settings"]["sentence_separator"] == "\\n"
    assert "|sep:\\n|" in escaped.json()["signature"]
    literal = cli("rouge", "--pred", p, "--ref", r, "--rouge-types", "rougeLsum", "--json").json()
    assert literal["rougeLsum"] < 1.0  # one line each, with a token 'n'
    pegasus = write("g.txt", ["The cat sat.<n>The dog ran."])
    out = cli("rouge", "--pred", pegasus, "--ref", r, "--rouge-types", "rougeLsum", "--sentence-separator", "<n>",
              "--json").json()  # fmt: skip
    assert out["rougeLsum"] < 1.0  # the reference still holds a literal backslash-n
    p2, r2 = write("p2.txt", ["The cat sat. The dog ran."]), write("r2.txt", ["The dog ran. The cat sat."])
    rules = cli("rouge", "--pred", p2, "--ref", r2, "--rouge-types", "rougeLsum", "--sentence-split", "rules", "--json")
    assert rules.json()["rougeLsum"] == 1.0


def test_jsonl_holds_real_newlines_and_reference_lists(cli, write_jsonl):
    rows = [
        {"prediction": "The cat sat.\nThe dog ran.", "references": ["The dog ran.\nThe cat sat.", "x"]},
        {"prediction": "今日は良い天気", "references": "今日は良い天気"},
    ]
    out = cli("rouge", "--pred", write_jsonl("d.jsonl", rows), "--rouge-types", "rouge1", "rougeLsum", "--json").json()
    assert out["rougeLsum"] == 1.0
    assert out["rouge1"] == 1.0


def test_japanese_tokenizers_from_the_command_line(cli, write):
    pytest.importorskip("fugashi")
    p, r = write("p.txt", ["東京タワーに行きました"]), write("r.txt", ["東京タワーへ行った"])
    words = cli("rouge", "--pred", p, "--ref", r, "--tokenizer", "ja-mecab", "--json").json()
    chars = cli("rouge", "--pred", p, "--ref", r, "--json").json()
    assert 0 < words["rouge1"] < 1
    assert 0 < chars["rouge1"] < 1
    assert words["signature"] != chars["signature"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--rouge-types", "rouge1", "rougeX"], "unknown ROUGE type 'rougeX'"),
        (["--preset", "rouge-2"], "unknown rouge preset 'rouge-2'"),
        (["--tokenizer", "klingon"], "unknown tokenizer 'klingon'"),
        (["--length-limit", "5"], "need tokenizer='rouge155'"),
        (["--multi-ref", "max"], "invalid choice"),
        (["--beta", "x"], "invalid float value"),
    ],
)
def test_bad_options_exit_2(cli, write, extra, message):
    run = cli("rouge", "--pred", write("p.txt", PREDS), "--ref", write("a.txt", REFS_A), *extra)
    assert run.code == 2
    assert run.out == ""
    assert run.err.startswith("nlgmetrics: error:")
    assert message in run.err


def test_bad_input_exit_2(cli, write, write_jsonl):
    run = cli("rouge", "--pred", write("p.txt", PREDS), "--ref", write("a.txt", REFS_A[:2]))
    assert run.code == 2
    assert "has 3 lines but --ref" in run.err
    bad = write_jsonl("bad.jsonl", [{"prediction": "a", "references": []}])
    run = cli("rouge", "--pred", bad)
    assert run.code == 2
    assert "empty list" in run.err
    run = cli("rouge", "--pred", write("u.txt", data=b"\xff\xfe\n"), "--ref", write("v.txt", ["a"]))
    assert run.code == 2
    assert "invalid UTF-8" in run.err


def test_python_m_nlgmetrics_rouge(tmp_path):
    (tmp_path / "p.txt").write_text("\n".join(PREDS) + "\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("\n".join(REFS_A) + "\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("\n".join(REFS_B) + "\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "nlgmetrics", "rouge", "--pred", tmp_path / "p.txt", "--ref", tmp_path / "a.txt",
         "--ref", tmp_path / "b.txt", "--preset", "rouge-score", "--json"],
        capture_output=True, text=True, encoding="utf-8", timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {k: out[k] for k in WORKED} == WORKED
