"""Issue 23, the readers: COCO JSON read as COCO or refused (never as text), ``load()`` with HF evaluate's
semantics, SQuAD v2's duplicate ids as the official script, ``extract`` names and regex time limits, and clear
errors instead of tracebacks from the table, COCO and SQuAD readers."""

from __future__ import annotations

import json

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError

ANN = {
    "images": [{"id": 1}, {"id": 2}, {"id": 3}],
    "annotations": [
        {"image_id": 1, "caption": "a man rides a horse on the beach"},
        {"image_id": 1, "caption": "a person riding a brown horse"},
        {"image_id": 2, "caption": "two dogs are playing in the snow"},
        {"image_id": 2, "caption": "dogs run through the snow"},
        {"image_id": 3, "caption": "a plate with food on it"},
    ],
}
RES = [
    {"image_id": 2, "caption": "two dogs play in the snow"},
    {"image_id": 1, "caption": "a man is riding a horse"},
    {"image_id": 3, "caption": "a plate of food"},
]


def _json(write, name, value):
    return write(name, text=json.dumps(value))


# ------------------------------------------------------------------------------------------------ COCO JSON
def _cider(res=RES, ann=ANN):
    _, preds, refs = nm.read_coco(res, ann)
    return nm.cider(preds, refs).score


def test_coco_results_in_the_annotations_layout_are_read_as_coco(cli, write):
    """Results as ``{"annotations": [...]}`` score the captions (they were read as one line of text: CIDEr 0)."""
    ann = _json(write, "ann.json", ANN)
    for name, res in (("res.json", RES), ("wrapped.json", {"annotations": RES}), ("res.txt", RES)):
        got = cli("cider", "--pred", _json(write, name, res), "--ref", ann, "--json").json()
        assert got["cider"] == _cider() > 2
        assert got["images"] == 3


def test_coco_json_with_several_refs_or_text_is_refused(cli, write):
    ann, res = _json(write, "ann.json", ANN), _json(write, "res.json", RES)
    text = write("refs.txt", ["a man rides a horse", "two dogs", "a plate"])
    run = cli("cider", "--pred", res, "--ref", ann, "--ref", ann)
    assert run.code == 2
    assert "give the one annotations file as --ref" in run.err
    assert "got 2 --ref files" in run.err
    run = cli("coco", "--pred", res, "--ref", text)
    assert run.code == 2
    assert f"--ref {text} is not COCO JSON, but --pred is" in run.err
    run = cli("coco", "--pred", text, "--ref", ann)
    assert run.code == 2
    assert f"--pred {text} is not COCO JSON" in run.err
    run = cli("coco", "--pred", res)
    assert run.code == 2
    assert "got 0 --ref files" in run.err


def test_coco_annotations_as_results_are_refused(cli, write, tmp_path):
    """The annotations given as the results scored 1.0 everywhere (both read as the same lines of text)."""
    ann = _json(write, "ann.json", ANN)
    run = cli("coco", "--pred", ann, "--ref", ann)
    assert run.code == 2
    assert "--pred and --ref name the same file" in run.err
    one_each = {"images": ANN["images"], "annotations": [ANN["annotations"][k] for k in (0, 2, 4)]}
    run = cli("coco", "--pred", _json(write, "copy.json", one_each), "--ref", _json(write, "one.json", one_each))
    assert run.code == 2
    assert "these results are the reference captions of --ref" in run.err
    with pytest.raises(InvalidInputError, match="these results are the reference captions"):
        nm.read_coco(ANN, ANN)
    with pytest.raises(InvalidInputError, match="image 1 has more than one caption"):
        nm.read_coco({"annotations": ANN["annotations"][:2]}, ANN)


@pytest.mark.parametrize(
    ("res", "ann", "message"),
    [
        ([{"image_id": [1], "caption": "x"}], ANN, r"item 0: image_id is a list \(\[1\]\); expected an integer"),
        ([{"image_id": {"a": 1}, "caption": "x"}], ANN, "item 0: image_id is an object"),
        ([{"image_id": 1.5, "caption": "x"}], ANN, "item 0: image_id is a number"),
        ([{"image_id": True, "caption": "x"}], ANN, "item 0: image_id is a boolean"),
        (RES, {"annotations": [{"image_id": [1], "caption": "x"}]}, r"annotations\[0\]: image_id is a list"),
        (RES, {"images": [{"id": [1]}], "annotations": ANN["annotations"]}, r"images\[0\]: id is a list"),
        (RES, {"images": [{"file": "x"}], "annotations": ANN["annotations"]}, r'images\[0\] has no "id"'),
        (RES, {"images": 3, "annotations": ANN["annotations"]}, '"images" must be a list'),
        ({"images": []}, ANN, "must be a JSON list"),
    ],
)
def test_read_coco_bad_entries_are_named(res, ann, message):
    with pytest.raises(InvalidInputError, match=message):
        nm.read_coco(res, ann)


def test_coco_deeply_nested_json_is_a_clear_error(cli, write):
    deep = write("deep.json", text="[" * 100_000 + "]" * 100_000)
    ann = _json(write, "ann.json", ANN)
    with pytest.raises(InvalidInputError, match=f"{deep}: the JSON is nested too deeply"):
        nm.read_coco(deep, ann)
    run = cli("coco", "--pred", deep, "--ref", ann)
    assert run.code == 2
    assert "nested too deeply" in run.err
    run = cli("cider", "--pred", _json(write, "res.json", RES), "--ref", deep)
    assert run.code == 2
    assert f"--ref {deep}: the JSON is nested too deeply" in run.err
    bad = write("bad.json", data=b'[{"image_id": 1, "caption": "\xff"}]')
    with pytest.raises(InvalidInputError, match="invalid UTF-8"):
        nm.read_coco(bad, ann)
