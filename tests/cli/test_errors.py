"""Bad input: exit status 2 and one line on stderr, ``nlgmetrics: error: ...``, naming the file and the line."""

from __future__ import annotations

import json

import pytest


def assert_error(run, *fragments):
    assert run.code == 2, (run.out, run.err)
    assert run.out == ""
    assert run.err.startswith("nlgmetrics: error: ")
    assert run.err.count("\n") == 1, run.err  # one line
    assert "Traceback" not in run.err
    for fragment in fragments:
        assert fragment in run.err, run.err


def test_mismatched_line_counts(cli, write):
    pred, ref = write("a.txt", ["1", "2", "3"]), write("b.txt", ["1", "2", "3", "4"])
    assert_error(cli("nls", "--pred", pred, "--ref", ref), f"--pred {pred} has 3 lines but --ref {ref} has 4")


def test_mismatch_in_the_second_reference_file(cli, write):
    pred, ref1, ref2 = write("a.txt", ["1", "2"]), write("b.txt", ["1", "2"]), write("c.txt", ["1"])
    assert_error(cli("anls", "--pred", pred, "--ref", ref1, "--ref", ref2), f"--ref {ref2} has 1")


def test_missing_file(cli, write, tmp_path):
    ref = write("b.txt", ["x"])
    missing = tmp_path / "nope.txt"
    assert_error(cli("nls", "--pred", missing, "--ref", ref), f"cannot read --pred {missing}", "No such file")
    assert_error(cli("nls", "--pred", ref, "--ref", missing), f"cannot read --ref {missing}")


def test_directory_instead_of_file(cli, write, tmp_path):
    ref = write("b.txt", ["x"])
    assert_error(cli("wer", "--pred", tmp_path, "--ref", ref), f"cannot read --pred {tmp_path}")


def test_invalid_utf8(cli, write):
    pred = write("a.txt", ["ok", "fine"])
    ref = write("b.txt", data=b"ok\nab\xffcd\n")
    assert_error(cli("nls", "--pred", pred, "--ref", ref), f"{ref}:2: invalid UTF-8 at byte offset 5", "0xff")


def test_invalid_utf8_in_jsonl(cli, write):
    path = write("a.jsonl", data=b'{"prediction": "\xe9", "references": ["x"]}\n')
    assert_error(cli("nls", "--pred", path), f"{path}:1: invalid UTF-8 at byte offset 16")


def test_bad_json_line(cli, write):
    path = write("a.jsonl", ['{"prediction": "a", "references": ["a"]}', '{"prediction": "b",'])
    assert_error(cli("nls", "--pred", path), f"{path}:2: invalid JSON")


def test_empty_jsonl_line_is_an_error_not_skipped(cli, write):
    path = write("a.jsonl", ['{"prediction": "a", "references": ["a"]}', "", '{"prediction": "b", "reference": "b"}'])
    assert_error(cli("nls", "--pred", path), f"{path}:2: empty line")


def test_jsonl_line_not_an_object(cli, write):
    path = write("a.jsonl", ['"just a string"'])
    assert_error(cli("nls", "--pred", path), f"{path}:1: expected a JSON object")


def test_missing_reference_field(cli, write_jsonl):
    path = write_jsonl("a.jsonl", [{"prediction": "a", "references": ["a"]}, {"prediction": "b"}])
    assert_error(cli("nls", "--pred", path), f"{path}:2: no field 'references' or 'reference'", "--ref-field")


def test_missing_prediction_field(cli, write_jsonl):
    path = write_jsonl("a.jsonl", [{"pred": "a", "references": ["a"]}])
    assert_error(cli("nls", "--pred", path), f"{path}:1: no field 'prediction'", "--pred-field")


def test_missing_custom_field(cli, write_jsonl):
    path = write_jsonl("a.jsonl", [{"prediction": "a", "references": ["a"]}])
    assert_error(cli("nls", "--pred", path, "--ref-field", "gold"), f"{path}:1: no field 'gold'")


@pytest.mark.parametrize(
    ("value", "message"),
    [(3, "is a number; expected a string"), (None, "is null"), (["a"], "is a list")],
)
def test_prediction_field_of_the_wrong_type(cli, write_jsonl, value, message):
    path = write_jsonl("a.jsonl", [{"prediction": "ok", "references": "a"}, {"prediction": value, "references": "a"}])
    assert_error(cli("nls", "--pred", path), f"{path}:2: field 'prediction' {message}")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "is an empty list"),
        (["a", 1], "item 1 is a number"),
        ({"a": 1}, "is an object"),
        ([["a"]], "item 0 is a list"),
    ],
)
def test_reference_field_of_the_wrong_type(cli, write_jsonl, value, message):
    path = write_jsonl("a.jsonl", [{"prediction": "a", "references": value}])
    assert_error(cli("anls", "--pred", path), f"{path}:1: field 'references' {message}")


def test_unknown_preset(cli, write):
    pred = write("a.txt", ["x"])
    assert_error(
        cli("anls", "--pred", pred, "--ref", pred, "--preset", "nope"), "unknown anls preset 'nope'", "'anls-pkg'"
    )
    assert_error(cli("wer", "--pred", pred, "--ref", pred, "--preset", "nope"), "unknown wer preset 'nope'", "'jiwer'")


def test_unknown_preset_fails_before_reading_files(cli, tmp_path):
    run = cli("cer", "--pred", tmp_path / "missing.txt", "--ref", tmp_path / "missing.txt", "--preset", "nope")
    assert_error(run, "unknown cer preset")


@pytest.mark.parametrize(
    "argv",
    [
        ["nls", "--pred", "{p}", "--ref", "{p}", "--bogus"],
        ["nls", "--pred", "{p}", "--ref", "{p}", "--preset", "x"],  # nls has no presets
        ["cer", "--pred", "{p}", "--ref", "{p}", "--reduction", "sum"],  # nor cer a reduction
        ["nls", "--pred", "{p}", "--ref", "{p}", "--reduction", "max"],
        ["nls", "--pred", "{p}", "--ref", "{p}", "--substitution-cost", "x"],
        ["anls", "--pred", "{p}", "--ref", "{p}", "--threshold", "high"],
        ["nls", "--ref", "{p}"],  # no --pred
        ["no-such-metric", "--pred", "{p}"],
        [],
    ],
)
def test_usage_errors(cli, write, argv):
    pred = write("a.txt", ["x"])
    run = cli(*(a.format(p=pred) for a in argv))
    assert_error(run, "--help")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nls", "--substitution-cost", "-1"], "substitution_cost must be a non-negative integer"),
        (["anls", "--threshold", "1.5"], "threshold must be <= 1.0"),
    ],
)
def test_library_errors_become_exit_2(cli, write, argv, message):
    pred = write("a.txt", ["x"])
    assert_error(cli(*argv, "--pred", pred, "--ref", pred), message)


def test_library_error_from_compute_becomes_exit_2(cli, write, monkeypatch):
    from nlgmetrics.errors import InvalidInputError
    from nlgmetrics.metrics.edit import NLS

    def boom(*args, **kwargs):
        raise InvalidInputError("something the library rejects")

    monkeypatch.setattr(type(NLS), "compute", boom)
    pred = write("a.txt", ["x"])
    assert_error(cli("nls", "--pred", pred, "--ref", pred), "something the library rejects")


def test_ref_required_for_plain_text(cli, write):
    pred = write("a.txt", ["x"])
    assert_error(cli("nls", "--pred", pred), "--ref is required")
    assert_error(cli("anls", "--pred", pred), "--ref is required", "DocVQA")


def test_docvqa_layout_only_for_anls(cli, write):
    path = write("r.json", text=json.dumps([{"answer": "a", "gt_answers": ["a"]}]))
    assert_error(cli("nls", "--pred", path), "--ref is required")


def test_docvqa_layout_with_ref_is_an_error(cli, write):
    path = write("r.json", text=json.dumps([{"answer": "a", "gt_answers": ["a"]}]))
    assert_error(cli("anls", "--pred", path, "--ref", path, "--format", "docvqa"), "drop --ref")


def test_docvqa_bad_json(cli, write):
    path = write("r.json", text='[\n  {"answer": "a",\n   "gt_answers": ["a"]\n  },\n  {"answer": }\n]\n')
    assert_error(cli("anls", "--pred", path), f"{path}:5: invalid JSON")


def test_docvqa_missing_field(cli, write):
    path = write("r.json", text=json.dumps([{"answer": "a", "gt_answers": ["a"]}, {"answer": "b"}]))
    assert_error(cli("anls", "--pred", path), f"{path}: item 2: no field 'gt_answers'")


def test_docvqa_not_a_list(cli, write):
    path = write("r.json", text=json.dumps({"answer": "a"}))
    assert_error(cli("anls", "--pred", path, "--format", "docvqa"), "expected the DocVQA layout")


def test_empty_input(cli, write):
    pred, ref = write("a.txt", text=""), write("b.txt", text="")
    assert_error(cli("nls", "--pred", pred, "--ref", ref), f"--pred {pred} is empty")
    assert_error(cli("anls", "--pred", write("r.json", text="[]")), "is empty")


def test_several_references_for_a_single_reference_metric(cli, write, write_jsonl):
    pred, ref = write("a.txt", ["x"]), write("b.txt", ["y"])
    assert_error(cli("cer", "--pred", pred, "--ref", ref, "--ref", ref), "cer takes exactly one reference per segment")
    path = write_jsonl(
        "a.jsonl", [{"prediction": "a", "references": ["a"]}, {"prediction": "a", "references": ["a", "b"]}]
    )
    assert_error(cli("wer", "--pred", path), f"{path}:2: 2 references, but wer takes exactly one")
