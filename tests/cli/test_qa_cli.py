"""``nlgmetrics squad`` with SQuAD's own files, and ``nlgmetrics exact-match``."""

from __future__ import annotations

import json

import pytest

import nlgmetrics as nm

DATASET = {
    "version": "v2.0",
    "data": [
        {
            "title": "t",
            "paragraphs": [
                {
                    "context": "c",
                    "qas": [
                        {"id": "q1", "answers": [{"text": "Denver Broncos"}, {"text": "The Denver Broncos"}]},
                        {"id": "q2", "answers": [], "is_impossible": True},
                        {"id": "q3", "answers": [{"text": "1976"}]},
                    ],
                }
            ],
        }
    ],
}
# the official v2.0 script on these files (evaluate-v2.0.py dev.json pred.json -n na.json)
OFFICIAL = {
    "exact": 66.66666666666667,
    "f1": 88.88888888888887,
    "total": 3,
    "HasAns_exact": 50.0,
    "HasAns_f1": 83.33333333333333,
    "HasAns_total": 2,
    "NoAns_exact": 100.0,
    "NoAns_f1": 100.0,
    "NoAns_total": 1,
    "best_exact": 66.66666666666667,
    "best_exact_thresh": 0.1,
    "best_f1": 88.88888888888887,
    "best_f1_thresh": 0.3,
}


@pytest.fixture
def squad_files(tmp_path):
    (tmp_path / "dev.json").write_text(json.dumps(DATASET), encoding="utf-8")
    (tmp_path / "pred.json").write_text(json.dumps({"q1": "Denver Broncos", "q2": "", "q3": "in 1976"}))
    (tmp_path / "na.json").write_text(json.dumps({"q1": 0.1, "q2": 0.8, "q3": 0.3}))
    return tmp_path


def test_squad_v2_files(cli, squad_files):
    d = squad_files
    data = cli(
        "squad", "--dataset", d / "dev.json", "--pred", d / "pred.json", "--na-prob-file", d / "na.json",
        "--preset", "squad-v2", "--json",
    ).json()  # fmt: skip
    assert data["official"] == OFFICIAL
    assert (data["exact_match"], data["f1"]) == (OFFICIAL["exact"], OFFICIAL["f1"])
    human = cli("squad", "--dataset", d / "dev.json", "--pred", d / "pred.json", "--preset", "squad-v2")
    assert human.code == 0
    assert human.out.splitlines()[:2] == ["EM = 66.66667", "F1 = 88.88889"]
    assert "squad|conv:squad-v2|" in human.out


def test_squad_missing_prediction_is_an_error(cli, squad_files):
    (squad_files / "short.json").write_text(json.dumps({"q1": "x"}))
    run = cli("squad", "--dataset", squad_files / "dev.json", "--pred", squad_files / "short.json")
    assert run.code == 2
    assert "has no prediction for 2 question(s) of the dataset, the first 'q2'" in run.err


def test_squad_extra_predictions_warn(cli, squad_files):
    (squad_files / "more.json").write_text(json.dumps({"q1": "x", "q2": "", "q3": "1976", "q9": "y"}))
    run = cli(
        "squad", "--dataset", squad_files / "dev.json", "--pred", squad_files / "more.json", "--preset", "squad-v2",
        "--json",
    )  # fmt: skip
    assert run.json()["total"] == 3
    assert "warning: squad: 1 prediction(s) in" in run.err
    v1 = cli("squad", "--dataset", squad_files / "dev.json", "--pred", squad_files / "more.json")
    assert v1.code == 2
    assert "question 'q2' has no answer; an empty answer list means 'no answer' only under squad-v2" in v1.err


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (["--pred", "pred.json", "--na-prob-file", "na.json"], "--na-prob-file needs --dataset"),
        (["--dataset", "dev.json", "--pred", "pred.json", "--ref", "pred.json"], "--dataset holds the accepted"),
        (["--dataset", "pred.json", "--pred", "pred.json"], "pred.json: expected SQuAD's layout"),
    ],
)
def test_squad_bad_files(cli, squad_files, monkeypatch, files, message):
    monkeypatch.chdir(squad_files)
    run = cli("squad", *files)
    assert run.code == 2
    assert message in run.err


def test_squad_jsonl_and_presets(cli, tmp_path):
    rows = [{"prediction": "東京都。", "references": ["東京都"]}, {"prediction": "大阪", "references": ["大阪府"]}]
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    data = cli("squad", "--pred", path, "--preset", "jsquad", "--json").json()
    expected = nm.squad([r["prediction"] for r in rows], [r["references"] for r in rows], preset="jsquad")
    assert (data["exact_match"], data["f1"]) == (expected.exact_match, expected.f1)


def test_exact_match_cli(cli, tmp_path):
    path = tmp_path / "em.jsonl"
    rows = [
        {"prediction": "ＡＢＣ", "references": ["abc", "x"]},
        {"prediction": "The answer is (C)", "references": "C"},
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert (
        cli("exact-match", "--pred", path, "--normalizers", "ja-width", "casefold", "--json").json()["exact_match"]
        == 0.5
    )
    run = cli("exact-match", "--pred", path, "--extract", "answer-is", "--per-segment")
    assert run.code == 0
    assert run.out.splitlines()[-2:] == ["1\t0.00000", "2\t1.00000"]
    bad = cli("exact-match", "--pred", path, "--regexes-to-ignore", "(")
    assert bad.code == 2
    assert "regexes_to_ignore[0] = '(' is not a valid regular expression" in bad.err
