"""Every text subcommand on small plain-text files: the numbers are those of the Python API."""

from __future__ import annotations

import json

import pytest

import nlgmetrics

PREDS = ["rain", "lnaguaeg"]
REFS = ["shine", "language"]


@pytest.fixture
def seed(write):
    return write("pred.txt", PREDS), write("ref.txt", REFS)


def test_nls_seed_example(cli, seed):
    pred, ref = seed
    run = cli("nls", "--pred", pred, "--ref", ref)
    assert run.code == 0, run.err
    head, diag = run.out.splitlines()
    assert head == "NLS = 0.45000 (nls|sub:1|red:mean|nlgmetrics:" + nlgmetrics.__version__ + ")"
    assert diag == "count: 2"
    assert run.err == ""


def test_nls_seed_example_json_per_segment(cli, seed):
    pred, ref = seed
    out = cli("nls", "--pred", pred, "--ref", ref, "--json", "--per-segment").json()
    assert out == {
        "nls": 0.45,
        "signature": f"nls|sub:1|red:mean|nlgmetrics:{nlgmetrics.__version__}",
        "settings": {"substitution_cost": 1, "reduction": "mean"},
        "count": 2,
        "segments": [0.4, 0.5],
    }


def test_json_is_one_object_and_segments_only_on_request(cli, seed):
    pred, ref = seed
    run = cli("nls", "--pred", pred, "--ref", ref, "--json")
    assert run.out.count("\n") == 1
    assert "segments" not in json.loads(run.out)


def test_human_per_segment_lines(cli, seed):
    pred, ref = seed
    lines = cli("nls", "--pred", pred, "--ref", ref, "--per-segment").out.splitlines()
    assert lines[2:] == ["1\t0.40000", "2\t0.50000"]


@pytest.mark.parametrize(
    ("reduction", "expected"),
    [("mean", 0.45), ("sum", 0.9), ("none", [0.4, 0.5])],
)
def test_nls_reduction(cli, seed, reduction, expected):
    pred, ref = seed
    out = cli("nls", "--pred", pred, "--ref", ref, "--reduction", reduction, "--json").json()
    assert out["nls"] == pytest.approx(expected)
    assert out["settings"]["reduction"] == reduction


def test_reduction_none_human_output_lists_segments(cli, seed):
    pred, ref = seed
    lines = cli("nls", "--pred", pred, "--ref", ref, "--reduction", "none").out.splitlines()
    assert lines[0].startswith("NLS: 2 per-segment scores (reduction: none) (nls|sub:1|red:none|")
    assert lines[-2:] == ["1\t0.40000", "2\t0.50000"]


def test_substitution_cost_reaches_the_config(cli, write):
    pred, ref = write("p.txt", ["abc"]), write("r.txt", ["abd"])
    out = cli("edit-distance", "--pred", pred, "--ref", ref, "--substitution-cost", "2", "--json").json()
    assert out["edit_distance"] == 2.0  # one substitution at cost 2 (= a deletion plus an insertion)
    assert out["settings"]["substitution_cost"] == 2
    assert "sub:2" in out["signature"]


def test_edit_distance(cli, seed):
    pred, ref = seed
    out = cli("edit-distance", "--pred", pred, "--ref", ref, "--json", "--per-segment").json()
    expected = nlgmetrics.edit_distance(PREDS, REFS, segments=True)
    assert out["edit_distance"] == expected.score
    assert out["distance_sum"] == expected.distance_sum == 7
    assert out["segments"] == list(expected.segments)
    summed = cli("edit-distance", "--pred", pred, "--ref", ref, "--reduction", "sum")
    assert summed.out.startswith("Edit distance = 7 (edit_distance|sub:1|red:sum|")


@pytest.mark.parametrize("metric", ["cer", "wer"])
def test_error_rates(cli, write, metric):
    preds = ["hello duck", "i like python"]
    refs = ["hello world", "i like monthy python"]
    pred, ref = write("p.txt", preds), write("r.txt", refs)
    out = cli(metric, "--pred", pred, "--ref", ref, "--json", "--per-segment").json()
    expected = getattr(nlgmetrics, metric)(preds, refs, segments=True)
    assert out[metric] == expected.score
    assert out["segments"] == list(expected.segments)
    assert out["settings"]["preset"] == "jiwer"
    for key in ("substitutions", "deletions", "insertions", "hits", "mer", "wil", "wip"):
        assert out[key] == getattr(expected, key)
    if metric == "wer":
        assert out["wer"] == pytest.approx(1 / 3)  # 2 errors over 6 reference words, as jiwer.wer
    human = cli(metric, "--pred", pred, "--ref", ref, "--preset", "jiwer").out.splitlines()
    assert human[0].startswith(f"{metric.upper()} = {expected.score:.5f} ({metric}|")
    assert "substitutions: " in human[1]


def test_wer_substitution_cost(cli, write):
    pred, ref = write("p.txt", ["a b c"]), write("r.txt", ["a x c"])
    out = cli("wer", "--pred", pred, "--ref", ref, "--substitution-cost", "2", "--json").json()
    assert out["errors"] == 2
    assert out["settings"]["substitution_cost"] == 2


def test_anls_on_text_files(cli, write):
    preds = ["Denver Broncos", "12/15/89"]
    pred = write("p.txt", preds)
    ref1 = write("r1.txt", ["denver broncos", "12/15/88"])
    ref2 = write("r2.txt", ["Denver R. Broncos", "12/15/88"])
    out = cli("anls", "--pred", pred, "--ref", ref1, "--ref", ref2, "--json", "--per-segment").json()
    assert out["anls"] == 0.9375
    assert out["segments"] == [1.0, 0.875]
    assert out["settings"]["preset"] == "docvqa"
    assert {"count", "exact", "cut"} <= out.keys()


def test_anls_threshold_and_preset(cli, write):
    pred, ref = write("p.txt", ["abcd", "abcd"]), write("r.txt", ["abxy", "abcd"])
    default = cli("anls", "--pred", pred, "--ref", ref, "--json").json()
    assert default["anls"] == 0.75  # similarity 0.5 is kept by the official script (>= tau)
    pkg = cli("anls", "--pred", pred, "--ref", ref, "--preset", "anls-pkg", "--json").json()
    assert pkg["anls"] == 0.5  # and dropped by the anls package (distance < tau)
    assert pkg["settings"]["threshold_on"] == "distance"
    low = cli("anls", "--pred", pred, "--ref", ref, "--preset", "anls-pkg", "--threshold", "0.6", "--json").json()
    assert low["anls"] == 0.75
    assert low["settings"]["threshold"] == 0.6
    assert "tau:0.6" in low["signature"]


def test_multiple_refs_per_segment(cli, write):
    pred = write("p.txt", ["rain", "lnaguaeg"])
    ref1 = write("r1.txt", ["shine", "xxxxxxxx"])
    ref2 = write("r2.txt", ["xxxxx", "language"])
    out = cli("nls", "--pred", pred, "--ref", ref1, "--ref", ref2, "--json", "--per-segment").json()
    assert out["segments"] == [0.4, 0.5]  # the best reference of each segment
    # several files after one --ref are accepted too
    same = cli("nls", "--pred", pred, "--ref", ref1, ref2, "--json", "--per-segment").json()
    assert same == out


def test_crlf_files(cli, write):
    pred = write("p.txt", text="rain\r\nlnaguaeg\r\n")
    ref = write("r.txt", text="shine\r\nlanguage")  # CRLF, no final newline
    out = cli("nls", "--pred", pred, "--ref", ref, "--json", "--per-segment").json()
    assert out["segments"] == [0.4, 0.5]


def test_lone_carriage_return_stays_in_the_segment(cli, write):
    pred = write("p.txt", text="a\rb\n")
    ref = write("r.txt", text="a b\n")
    out = cli("edit-distance", "--pred", pred, "--ref", ref, "--json").json()
    assert out["edit_distance"] == 1.0  # "\r" vs " ": one substitution; the line is not split


def test_empty_lines_are_segments(cli, write):
    pred = write("p.txt", text="abc\n\n\nxyz\n")
    ref = write("r.txt", text="abc\n\nq\nxyz\n")
    out = cli("nls", "--pred", pred, "--ref", ref, "--json", "--per-segment").json()
    assert out["count"] == 4
    assert out["segments"] == [1.0, 1.0, 0.0, 1.0]  # both empty: 1.0; empty vs "q": 0.0


def test_whitespace_only_lines_are_kept_verbatim(cli, write):
    pred = write("p.txt", text="  \n\t\n")
    ref = write("r.txt", text="  \n\t\n")
    out = cli("edit-distance", "--pred", pred, "--ref", ref, "--json", "--per-segment").json()
    assert out["segments"] == [0.0, 0.0]
    assert out["count"] == 2


def test_final_newline_adds_no_segment_but_a_blank_last_line_does(cli, write):
    pred = write("p.txt", text="a\nb")
    ref = write("r.txt", text="a\nb\n")
    assert cli("nls", "--pred", pred, "--ref", ref, "--json").json()["count"] == 2
    ref3 = write("r3.txt", text="a\nb\n\n")
    run = cli("nls", "--pred", pred, "--ref", ref3)
    assert run.code == 2
    assert f"--pred {pred} has 2 lines but --ref {ref3} has 3" in run.err


def test_utf8_bom_is_not_part_of_the_first_segment(cli, write):
    pred = write("p.txt", data="日本語\n".encode("utf-8-sig"))
    ref = write("r.txt", ["日本語"])
    out = cli("nls", "--pred", pred, "--ref", ref, "--json").json()
    assert out["nls"] == 1.0


def test_non_ascii_json_output_is_not_escaped(cli, write):
    pred, ref = write("p.txt", ["ß"]), write("r.txt", ["ß"])
    run = cli("anls", "--pred", pred, "--ref", ref, "--json")
    assert json.loads(run.out)["anls"] == 1.0
    assert "\\u" not in run.out


def test_stdin_as_predictions(cli, write, monkeypatch):
    import io

    ref = write("r.txt", REFS)
    fake = io.TextIOWrapper(io.BytesIO(b"rain\nlnaguaeg\n"), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", fake)
    out = cli("nls", "--pred", "-", "--ref", ref, "--json").json()
    assert out["nls"] == 0.45
