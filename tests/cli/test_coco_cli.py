"""``nlgmetrics coco`` and ``nlgmetrics cider`` on COCO JSON files and on the usual inputs."""

from __future__ import annotations

import json

import nlgmetrics as nm
from nlgmetrics.cli.main import main

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


def _write(tmp_path, res=RES, ann=ANN):
    r, a = tmp_path / "results.json", tmp_path / "captions.json"
    r.write_text(json.dumps(res), encoding="utf-8")
    a.write_text(json.dumps(ann), encoding="utf-8")
    return str(r), str(a)


def test_coco_json_files(tmp_path, capsys) -> None:
    r, a = _write(tmp_path)
    assert main(["coco", "--pred", r, "--ref", a, "--json", "--per-segment"]) == 0
    out = json.loads(capsys.readouterr().out)
    _, preds, refs = nm.read_coco(r, a)
    expected = nm.coco(preds, refs)
    assert out["CIDEr"] == expected.score["CIDEr"]
    assert out["Bleu_4"] == expected.score["Bleu_4"]
    assert out["signature"] == expected.signature
    assert len(out["segments"]) == 3
    assert main(["coco", "--pred", r, "--ref", a]) == 0
    text = capsys.readouterr().out
    assert "CIDEr" in text
    assert "ROUGE_L" in text
    assert main(["cider", "--pred", r, "--ref", a, "--json", "--preset", "cider"]) == 0
    assert json.loads(capsys.readouterr().out)["cider"] == nm.cider(preds, refs, preset="cider").score


def test_coco_text_files(tmp_path, capsys) -> None:
    (tmp_path / "p.txt").write_text("a man is riding a horse\ntwo dogs play in the snow\n", encoding="utf-8")
    (tmp_path / "r1.txt").write_text("a man rides a horse\ndogs in the snow\n", encoding="utf-8")
    (tmp_path / "r2.txt").write_text("a person on a horse\ntwo dogs run\n", encoding="utf-8")
    args = [
        "cider",
        "--pred",
        str(tmp_path / "p.txt"),
        "--ref",
        str(tmp_path / "r1.txt"),
        "--ref",
        str(tmp_path / "r2.txt"),
    ]
    assert main([*args, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["cider"]
    assert (
        got
        == nm.cider(
            ["a man is riding a horse", "two dogs play in the snow"],
            [["a man rides a horse", "a person on a horse"], ["dogs in the snow", "two dogs run"]],
        ).score
    )


def test_coco_errors_name_the_image(tmp_path, capsys) -> None:
    r, a = _write(tmp_path, res=[*RES, {"image_id": 42, "caption": "x"}])
    assert main(["coco", "--pred", r, "--ref", a]) == 2
    assert "image 42" in capsys.readouterr().err
    r, a = _write(
        tmp_path, res=RES, ann={"images": [{"id": 1}, {"id": 2}, {"id": 3}], "annotations": ANN["annotations"][:4]}
    )
    assert main(["coco", "--pred", r, "--ref", a]) == 2
    assert "image 3 has no reference caption" in capsys.readouterr().err
    assert main(["cider", "--pred", r, "--ref", a, "--sigma", "0"]) == 2
    assert "sigma" in capsys.readouterr().err
