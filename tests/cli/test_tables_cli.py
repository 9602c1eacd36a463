"""The command line with tables: --pred from Parquet/CSV/eval logs, --output FILE.parquet|.csv|.jsonl."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import nlgmetrics
from nlgmetrics.tables import read_lm_eval

pd = pytest.importorskip("pandas")
pq = pytest.importorskip("pyarrow.parquet")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tables"
LM_EVAL_QA = next(FIXTURES.glob("samples_nlgm_qa_*.jsonl"), None)
LM_EVAL_MT = next(FIXTURES.glob("samples_nlgm_mt_*.jsonl"), None)
LIGHTEVAL = next(FIXTURES.glob("details_*.parquet"), None)

PREDS = ["the cat sat on the mat", "a quick brown fox", ""]
REFS = [["the cat is on the mat", "a cat sat on the mat"], ["the quick brown fox"], ["nothing here"]]


def headline(run: Any) -> Any:
    """The headline value of a command's JSON output (its first key: ``chrf``, ``bleu``, ...)."""
    return next(iter(run.json().values()))


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "data.parquet"
    pd.DataFrame({"hyp": PREDS, "refs": REFS, "src": ["a", "b", "c"]}).to_parquet(path)
    return path


def test_pred_from_parquet_and_output_parquet(cli: Callable[..., Any], table: Path, tmp_path: Path) -> None:
    out = tmp_path / "scores.parquet"
    run = cli("chrf", "--pred", table, "--pred-field", "hyp", "--ref-field", "refs", "--json", "--output", out)
    expected = nlgmetrics.chrf(PREDS, REFS, segments=True)
    assert headline(run) == expected.score
    assert "segments" not in run.json()  # --output alone does not print the segments
    written = pq.read_table(out)
    assert written.column("score").to_pylist() == list(expected.segments)
    assert written.schema.metadata[b"signature"].decode() == expected.signature
    assert json.loads(written.schema.metadata[b"settings"])["nc"] == "6"


def test_pred_from_csv_with_refs_in_another_file(cli: Callable[..., Any], write: Any, tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    with open(data, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["prediction", "reference"])
        w.writerows([[p, r[0]] for p, r in zip(PREDS, REFS, strict=True)])
    text_ref = write("ref2.txt", [r[-1] for r in REFS])
    run = cli("bleu", "--pred", data, "--ref", data, "--ref", text_ref, "--json")
    assert headline(run) == nlgmetrics.bleu(PREDS, REFS).score
    out = tmp_path / "s.csv"
    assert cli("bleu", "--pred", data, "--output", out).code == 0
    rows = list(csv.DictReader(open(out, encoding="utf-8", newline="")))  # noqa: SIM115
    assert [float(r["score"]) for r in rows] == list(
        nlgmetrics.bleu(PREDS, [r[0] for r in REFS], segments=True).segments
    )
    assert rows[0]["signature"].startswith("bleu|")


def test_output_jsonl_with_dict_segments(cli: Callable[..., Any], table: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    assert cli("rouge", "--pred", table, "--pred-field", "hyp", "--ref-field", "refs", "--output", out).code == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    expected = nlgmetrics.rouge(PREDS, REFS, segments=True).segments
    assert [r["rouge1.fmeasure"] for r in rows] == [s["rouge1"].fmeasure for s in expected]


def test_sources_from_the_table(cli: Callable[..., Any], table: Path) -> None:
    if "sari" not in nlgmetrics.metrics.catalog.CATALOG:
        pytest.skip("no family with sources in this catalogue")
    run = cli("sari", "--pred", table, "--pred-field", "hyp", "--ref-field", "refs", "--src-field", "src", "--json")
    assert run.code == 0, run.err


def test_errors(cli: Callable[..., Any], table: Path, tmp_path: Path) -> None:
    run = cli("chrf", "--pred", table)
    assert run.code == 2
    assert (
        "no column 'prediction' for the predictions (columns: 'hyp', 'refs', 'src'; choose one with --pred-field)"
        in (run.err)
    )
    run = cli("chrf", "--pred", table, "--pred-field", "hyp", "--ref-field", "refs", "--output", tmp_path / "x.xlsx")
    assert run.code == 2
    assert "must end in .parquet, .csv, .jsonl" in run.err
    pd.DataFrame({"prediction": ["a", None], "reference": ["a", "b"]}).to_parquet(tmp_path / "null.parquet")
    run = cli("chrf", "--pred", tmp_path / "null.parquet")
    assert run.code == 2
    assert "null.parquet: row 1: column 'prediction' is null" in run.err


def test_evaluate_reads_tables_and_writes_rows(cli: Callable[..., Any], table: Path, tmp_path: Path) -> None:
    out = tmp_path / "ev.csv"
    run = cli(
        "evaluate", "--ref", table, "--ref-field", "refs", "--sys", f"A={table}", "--pred-field", "hyp",
        "--metric", "chrf", "--metric", "bleu", "--bootstrap", "0", "--output", out, "--quiet",
    )  # fmt: skip
    assert run.code == 0, run.err
    rows = list(csv.DictReader(open(out, encoding="utf-8", newline="")))  # noqa: SIM115
    assert [(r["system"], r["metric"]) for r in rows] == [("A", "chrf"), ("A", "bleu")]
    assert float(rows[0]["score"]) == nlgmetrics.chrf(PREDS, REFS).score
    assert rows[1]["signature"] == nlgmetrics.bleu(PREDS, REFS).signature
    json_out = tmp_path / "ev.json"
    assert cli(
        "evaluate", "--ref", table, "--ref-field", "refs", "--sys", f"A={table}", "--pred-field", "hyp",
        "--metric", "chrf", "--bootstrap", "0", "--output", json_out, "--quiet",
    ).code == 0  # fmt: skip
    assert json.loads(json_out.read_text())["systems"]["A"]["chrf"]["score"] == float(rows[0]["score"])


def test_evaluate_python_api_takes_dataframes_and_columns() -> None:
    from nlgmetrics.evaluate import evaluate

    df = pd.DataFrame({"hyp": PREDS, "other": ["the cat", "fox", "nothing"], "refs": REFS})
    ev = evaluate(df, {"a": df["hyp"], "b": df["other"]}, ["chrf"], ref_field="refs", bootstrap=0, test=None)
    assert ev.scores["chrf"]["a"].score == nlgmetrics.chrf(PREDS, REFS).score
    assert ev.scores["chrf"]["b"].score == nlgmetrics.chrf(df["other"].tolist(), REFS).score
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_pandas(df)
    ev = evaluate(ds, {"a": ds}, ["chrf"], ref_field="refs", pred_field="hyp", bootstrap=0, test=None)
    assert ev.scores["chrf"]["a"].score == nlgmetrics.chrf(PREDS, REFS).score
    assert nlgmetrics.chrf(ds["hyp"], ds["refs"]).score == ev.scores["chrf"]["a"].score  # columns, as they are
    with pytest.raises(nlgmetrics.InvalidInputError, match=r"Dataset: no column 'prediction' for the predictions"):
        evaluate(ds, {"a": ds}, ["chrf"], ref_field="refs", bootstrap=0, test=None)


# ---------------------------------------------------------------------------------------------- eval logs
@pytest.mark.skipif(LM_EVAL_QA is None, reason="the lm-eval fixture is missing")
def test_lm_eval_samples_on_the_command_line(cli: Callable[..., Any], tmp_path: Path) -> None:
    run = cli("exact-match", "--pred", LM_EVAL_QA, "--json")
    assert run.code == 2
    assert "2 filters (raw, lower); choose one" in run.err
    run = cli("exact-match", "--pred", LM_EVAL_QA, "--lm-eval-filter", "lower", "--json", "--per-segment")
    inputs = read_lm_eval(LM_EVAL_QA, filter="lower")
    assert headline(run) == nlgmetrics.exact_match(*inputs).score
    out = tmp_path / "em.parquet"
    assert cli("chrf", "--pred", LM_EVAL_MT, "--output", out).code == 0
    assert pq.read_table(out).num_rows == 4


@pytest.mark.skipif(LM_EVAL_MT is None, reason="the lm-eval fixture is missing")
def test_evaluate_lm_eval_samples(cli: Callable[..., Any]) -> None:
    run = cli("evaluate", "--ref", LM_EVAL_MT, "--sys", f"m={LM_EVAL_MT}", "--metric", "chrf", "--json", "--quiet")
    inputs = read_lm_eval(LM_EVAL_MT)
    assert json.loads(run.out)["systems"]["m"]["chrf"]["score"] == nlgmetrics.chrf(*inputs).score


@pytest.mark.skipif(LIGHTEVAL is None, reason="the lighteval fixture is missing")
def test_lighteval_details_on_the_command_line(cli: Callable[..., Any]) -> None:
    from nlgmetrics.tables import read_lighteval

    run = cli("exact-match", "--pred", LIGHTEVAL, "--json")
    assert headline(run) == nlgmetrics.exact_match(*read_lighteval(LIGHTEVAL)).score
