"""JSON Lines, the DocVQA JSON layout, and ANLS* over structured answers."""

from __future__ import annotations

import json
import sys

import pytest

import nlgmetrics


def test_jsonl_with_list_references(cli, write_jsonl):
    rows = [
        {"prediction": "rain", "references": ["xxxx", "shine"]},
        {"prediction": "lnaguaeg", "references": "language"},  # a plain string is one reference
    ]
    path = write_jsonl("data.jsonl", rows)
    out = cli("nls", "--pred", path, "--json", "--per-segment").json()
    assert out["segments"] == [0.4, 0.5]
    assert out["nls"] == 0.45


def test_jsonl_singular_reference_field(cli, write_jsonl):
    path = write_jsonl("data.jsonl", [{"prediction": "rain", "reference": "shine"}])
    assert cli("nls", "--pred", path, "--json").json()["nls"] == 0.4


def test_jsonl_custom_fields(cli, write_jsonl):
    path = write_jsonl(
        "data.jsonl", [{"hyp": "Denver Broncos", "gold": ["denver broncos", "x"]}, {"hyp": "", "gold": ["a"]}]
    )
    out = cli("anls", "--pred", path, "--pred-field", "hyp", "--ref-field", "gold", "--json").json()
    assert out["anls"] == 0.5


def test_jsonl_predictions_and_separate_reference_files(cli, write, write_jsonl):
    pred = write_jsonl("pred.jsonl", [{"prediction": "rain"}, {"prediction": "lnaguaeg"}])
    ref_jsonl = write_jsonl("ref.jsonl", [{"references": ["shine"]}, {"references": ["xx", "language"]}])
    ref_txt = write("ref.txt", ["zzzz", "zzzz"])
    out = cli("nls", "--pred", pred, "--ref", ref_jsonl, "--ref", ref_txt, "--json", "--per-segment").json()
    assert out["segments"] == [0.4, 0.5]


def test_format_jsonl_overrides_the_suffix(cli, write):
    path = write("data.txt", [json.dumps({"prediction": "rain", "references": ["shine"]})])
    assert cli("nls", "--pred", path, "--format", "jsonl", "--json").json()["nls"] == 0.4


def test_jsonl_crlf(cli, write):
    path = write(
        "data.jsonl", text='{"prediction": "a", "references": ["a"]}\r\n{"prediction": "b", "reference": "c"}\r\n'
    )
    out = cli("nls", "--pred", path, "--json", "--per-segment").json()
    assert out["segments"] == [1.0, 0.0]


def test_jsonl_empty_strings_are_segments(cli, write_jsonl):
    path = write_jsonl("data.jsonl", [{"prediction": "", "references": [""]}, {"prediction": "", "references": ["ab"]}])
    out = cli("nls", "--pred", path, "--json", "--per-segment").json()
    assert out["segments"] == [1.0, 0.0]


DOCVQA = [
    {"question": "Who?", "answer": "Denver Broncos", "gt_answers": ["denver broncos", "Denver R. Broncos"]},
    {"question": "When?", "answer": "12/15/89", "gt_answers": ["12/15/88"], "image_path": "x.png"},
]


def test_docvqa_layout_is_detected_by_content(cli, write):
    path = write("results.json", text=json.dumps(DOCVQA, indent=4))
    out = cli("anls", "--pred", path, "--json", "--per-segment").json()
    assert out["anls"] == 0.9375
    assert out["segments"] == [1.0, 0.875]
    same = cli("anls", "--pred", write("results.txt", text=json.dumps(DOCVQA)), "--json").json()  # suffix irrelevant
    assert same["anls"] == 0.9375
    explicit = cli("anls", "--pred", path, "--format", "docvqa", "--json").json()
    assert explicit["anls"] == 0.9375


def test_docvqa_layout_matches_the_function(cli, write):
    path = write("results.json", text=json.dumps(DOCVQA))
    preds = [d["answer"] for d in DOCVQA]
    refs = [d["gt_answers"] for d in DOCVQA]
    for preset in ("docvqa", "anls-pkg"):
        out = cli("anls", "--pred", path, "--preset", preset, "--json").json()
        assert out["anls"] == nlgmetrics.anls(preds, refs, preset=preset).score


def test_docvqa_layout_custom_fields(cli, write):
    rows = [{"pred": "abc", "answers": ["abc"]}]
    path = write("results.json", text=json.dumps(rows))
    out = cli("anls", "--pred", path, "--pred-field", "pred", "--ref-field", "answers", "--json").json()
    assert out["anls"] == 1.0


# ---------------------------------------------------------------------------------------------------- ANLS*
STRUCTURED = [
    ({"name": "Acme", "items": ["a", "b"]}, {"name": "ACME", "items": ["b", "a"]}),
    ({"total": "12.30", "date": None}, {"total": "12.30", "date": None, "vat": "2.05"}),
    (["x", "y"], ["x", "z"]),  # a JSON list stays a list (ANLS*'s list), not several references
    ("Hello Wrld", "Hello World"),
    (3, "3"),
    (None, None),
]


@pytest.fixture
def anls_star_module():
    return pytest.importorskip("nlgmetrics.metrics.anls_star", reason="nlgmetrics.metrics.anls_star is not there")


def test_anls_star_structured_values(cli, write_jsonl, anls_star_module):
    preds, refs = [p for p, _ in STRUCTURED], [r for _, r in STRUCTURED]
    path = write_jsonl("data.jsonl", [{"prediction": p, "reference": r} for p, r in STRUCTURED])
    out = cli("anls-star", "--pred", path, "--json", "--per-segment").json()
    expected = anls_star_module.anls_star(preds, refs, segments=True)
    assert out["anls_star"] == expected.score
    assert out["segments"] == list(expected.segments)
    assert out["settings"] == {"threshold": 0.5, "list_as_alternatives": True}
    assert out["signature"] == expected.signature
    assert out["count"] == len(STRUCTURED)
    human = cli("anls-star", "--pred", path).out.splitlines()
    assert human[0] == f"ANLS* = {expected.score:.5f} ({expected.signature})"
    assert "null" not in human[1]  # empty diagnostics are not shown


def test_anls_star_matches_the_reference_package(cli, write_jsonl, anls_star_module):
    package = pytest.importorskip("anls_star")
    path = write_jsonl("data.jsonl", [{"prediction": p, "reference": r} for p, r in STRUCTURED])
    out = cli("anls-star", "--pred", path, "--json", "--per-segment").json()
    assert out["segments"] == pytest.approx([package.anls_score(r, p) for p, r in STRUCTURED], abs=1e-12)


def test_anls_star_several_reference_files_are_alternatives(cli, write_jsonl, anls_star_module):
    pred = write_jsonl("p.jsonl", [{"prediction": "b"}, {"prediction": {"k": "v"}}])
    ref1 = write_jsonl("r1.jsonl", [{"reference": "a"}, {"reference": {"k": "w"}}])
    ref2 = write_jsonl("r2.jsonl", [{"reference": "b"}, {"reference": {"k": "v"}}])
    out = cli("anls-star", "--pred", pred, "--ref", ref1, "--ref", ref2, "--json", "--per-segment").json()
    assert out["segments"] == [1.0, 1.0]
    expected = anls_star_module.anls_star(["b", {"k": "v"}], [("a", "b"), ({"k": "w"}, {"k": "v"})])
    assert out["anls_star"] == expected.score == 1.0


def test_anls_star_options(cli, write_jsonl, anls_star_module):
    path = write_jsonl("data.jsonl", [{"prediction": "abcd", "references": ["abxy", "zzzz"]}])
    default = cli("anls-star", "--pred", path, "--json").json()
    strict = cli("anls-star", "--pred", path, "--no-list-as-alternatives", "--threshold", "0.6", "--json").json()
    assert strict["settings"] == {"threshold": 0.6, "list_as_alternatives": False}
    assert default["anls_star"] == anls_star_module.anls_star(["abcd"], [["abxy", "zzzz"]]).score
    expected = anls_star_module.anls_star(["abcd"], [["abxy", "zzzz"]], threshold=0.6, list_as_alternatives=False)
    assert strict["anls_star"] == expected.score


def test_anls_star_plain_text_lines_are_strings(cli, write, anls_star_module):
    pred, ref = write("p.txt", ["Hello Wrld", ""]), write("r.txt", ["Hello World", ""])
    out = cli("anls-star", "--pred", pred, "--ref", ref, "--json", "--per-segment").json()
    expected = anls_star_module.anls_star(["Hello Wrld", ""], ["Hello World", ""], segments=True)
    assert out["segments"] == list(expected.segments)


def test_anls_star_missing_module_is_a_clear_error(cli, write_jsonl, monkeypatch):
    monkeypatch.setitem(sys.modules, "nlgmetrics.metrics.anls_star", None)  # import raises ImportError
    path = write_jsonl("data.jsonl", [{"prediction": "a", "reference": "a"}])
    run = cli("anls-star", "--pred", path)
    assert run.code == 2
    assert run.err.startswith("nlgmetrics: error: anls-star is not available in this installation")
