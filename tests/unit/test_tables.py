"""Tables in and out: results as pandas/Arrow/Parquet/CSV/JSON Lines, inputs from tables and eval logs."""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

import nlgmetrics
from nlgmetrics.errors import InvalidInputError, MissingDependencyError
from nlgmetrics.metrics.catalog import CATALOG, IN_PROCESS, get_family
from nlgmetrics.tables import parse_signature, read_table, segment_columns, write_table

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

PREDS = ["the cat sat on the mat", "a quick brown fox", ""]
REFS = [["the cat is on the mat", "a cat sat on the mat"], "the quick brown fox", "nothing here"]


# ---------------------------------------------------------------------------------------------- results out
def test_to_pandas_rows_are_segments_and_attrs_hold_the_signature() -> None:
    result = nlgmetrics.chrf(PREDS, REFS, segments=True)
    df = result.to_pandas()
    assert list(df.columns) == ["segment", "score"]
    assert df["segment"].tolist() == [0, 1, 2]
    assert df["score"].tolist() == list(result.segments)
    assert df.attrs["signature"] == result.signature
    assert df.attrs["metric"] == result.signature.split("|")[0]
    assert df.attrs["settings"] == parse_signature(result.signature)[1]
    assert df.attrs["settings"]["nc"] == "6"
    assert df.attrs["score"] == result.score
    assert df.attrs["result"]["score"] == result.score
    assert "segments" not in df.attrs["result"]


def test_to_arrow_schema_metadata() -> None:
    result = nlgmetrics.bleu(PREDS, REFS, segments=True)
    table = result.to_arrow()
    meta = {k.decode(): v.decode() for k, v in table.schema.metadata.items()}
    assert meta["signature"] == result.signature
    assert json.loads(meta["settings"]) == parse_signature(result.signature)[1]
    assert json.loads(meta["score"]) == result.score
    assert table.column("score").to_pylist() == list(result.segments)


def test_dict_valued_segments_become_one_column_per_value() -> None:
    result = nlgmetrics.rouge(PREDS, REFS, segments=True)
    df = result.to_pandas()
    assert "rouge1.precision" in df.columns
    assert "rougeL.fmeasure" in df.columns
    assert df["rouge1.fmeasure"].tolist() == [s["rouge1"].fmeasure for s in result.segments]


def test_reduction_none_scores_are_the_rows() -> None:
    result = nlgmetrics.nls(PREDS, [r if isinstance(r, str) else r[0] for r in REFS], reduction="none")
    assert result.to_pandas()["score"].tolist() == list(result.score)


def test_a_result_without_segments_says_how_to_get_them() -> None:
    with pytest.raises(InvalidInputError, match=r"no per-segment scores: compute it with segments=True"):
        nlgmetrics.chrf(PREDS, REFS).to_pandas()


@pytest.mark.parametrize("name", sorted(n for n in CATALOG if n not in IN_PROCESS))
def test_every_family_exports_its_segments(name: str) -> None:
    """Derived, not per metric: every catalogued family's result becomes a table with one row per segment."""
    family = get_family(name)
    ex = dict(family.example or {"predictions": PREDS[:2], "references": REFS[:2]})
    refs = list(ex["references"])
    if family.single_reference:
        refs = [r if isinstance(r, str) else r[0] for r in refs]
    config = family.make_config(None, **ex.get("options", {}))
    kwargs = {"sources": ex["sources"]} if family.uses_sources else {}
    result = family.compute(list(ex["predictions"]), refs, config, segments=True, **kwargs)
    df = result.to_pandas()
    assert len(df) == len(ex["predictions"])
    assert df.attrs["signature"] == result.signature
    table = result.to_arrow()
    assert table.num_rows == len(df)
    assert table.schema.metadata[b"signature"].decode() == result.signature


def test_missing_pandas_or_pyarrow_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    result = nlgmetrics.chrf(PREDS, REFS, segments=True)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'nlgmetrics\[tables\]'"):
        result.to_pandas()
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(MissingDependencyError, match=r"nlgmetrics\[tables\]"):
        result.to_arrow()


# ---------------------------------------------------------------------------------------------- files out
@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_write_table_round_trips_exactly(tmp_path: Path, suffix: str) -> None:
    result = nlgmetrics.chrf(PREDS, REFS, segments=True)
    path = tmp_path / f"scores{suffix}"
    write_table(result, path)
    if suffix == ".parquet":
        table = pq.read_table(path)
        assert table.schema.metadata[b"signature"].decode() == result.signature
        rows = table.to_pylist()
    elif suffix == ".csv":
        with open(path, encoding="utf-8", newline="") as fh:
            rows = [{**r, "segment": int(r["segment"]), "score": float(r["score"])} for r in csv.DictReader(fh)]
    else:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["score"] for r in rows] == list(result.segments)  # every digit
    assert [r["segment"] for r in rows] == [0, 1, 2]
    assert all(r["signature"] == result.signature for r in rows)


def test_write_table_rejects_an_unknown_suffix(tmp_path: Path) -> None:
    result = nlgmetrics.chrf(PREDS, REFS, segments=True)
    with pytest.raises(InvalidInputError, match=r"must end in \.parquet, \.csv, \.jsonl"):
        write_table(result, tmp_path / "scores.xlsx")


def test_segment_columns_fill_missing_values_with_none() -> None:
    cols = segment_columns([{"a": 1.0}, {"a": 2.0, "b": 3.0}])
    assert cols == {"segment": [0, 1], "a": [1.0, 2.0], "b": [None, 3.0]}


def test_evaluation_as_a_table(tmp_path: Path) -> None:
    from nlgmetrics.evaluate import Texts, evaluate

    refs = Texts(["the cat is on the mat", "the quick brown fox", "a b c"])
    ev = evaluate(
        refs,
        {"a": Texts(PREDS), "b": Texts(["the cat is on the mat", "a fox", "a b"])},
        ["chrf", "rouge"],
        baseline="a",
        bootstrap=20,
        paired_samples=20,
    )
    df = ev.to_pandas()
    assert list(df.columns[:3]) == ["system", "metric", "score"]
    assert df.columns[-1] == "signature"
    assert len(df) == 2 * len(ev.metrics)
    cell = ev.scores["chrf"]["b"]
    row = df[(df.system == "b") & (df.metric == "chrf")].iloc[0]
    assert row.score == cell.score
    assert row.ci_lower == cell.ci["lower"]
    assert row.p_value == cell.paired["p_value"]
    assert math.isnan(df[(df.system == "a") & (df.metric == "chrf")].iloc[0].p_value)  # the baseline has no test
    assert df.attrs["settings"]["bootstrap"] == 20
    write_table(ev, tmp_path / "ev.parquet")
    back = pq.read_table(tmp_path / "ev.parquet")
    assert back.column("signature").to_pylist()[0] == ev.signatures["chrf"]
    assert json.loads(back.schema.metadata[b"metrics"])["chrf"]["signature"] == ev.signatures["chrf"]


# ---------------------------------------------------------------------------------------------- tables in
@pytest.fixture
def frame() -> Any:
    return pd.DataFrame(
        {
            "hyp": PREDS,
            "refs": [["the cat is on the mat", "a cat sat on the mat"], ["the quick brown fox"], ["nothing here"]],
            "ref2": ["x", "y", "z"],
            "src": ["s1", "s2", "s3"],
        }
    )


def test_read_table_from_every_kind_of_table(tmp_path: Path, frame: Any) -> None:
    expected = nlgmetrics.chrf(frame["hyp"].tolist(), frame["refs"].tolist()).score
    frame.to_parquet(tmp_path / "d.parquet")
    pq_inputs = read_table(tmp_path / "d.parquet", "hyp", "refs")
    assert nlgmetrics.chrf(*pq_inputs).score == expected
    assert pq_inputs.references[0] == ["the cat is on the mat", "a cat sat on the mat"]
    assert nlgmetrics.chrf(*read_table(frame, "hyp", "refs")).score == expected
    assert nlgmetrics.chrf(*read_table(pa.Table.from_pandas(frame), "hyp", "refs")).score == expected
    assert nlgmetrics.chrf(*read_table(frame.to_dict("list"), "hyp", "refs")).score == expected
    frame.assign(refs=frame["refs"].map(json.dumps)).to_json(tmp_path / "d.jsonl", orient="records", lines=True)
    # a DataFrame read back from Parquet holds numpy arrays in its list cells: the metrics take them as they are
    back = pd.read_parquet(tmp_path / "d.parquet")
    assert nlgmetrics.chrf(back["hyp"], back["refs"]).score == expected


def test_read_table_csv_keeps_empty_cells_as_empty_segments(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('pred,ref,ref2\n"a, b",a b,x\n,empty,y\n', encoding="utf-8")
    inputs = read_table(path, "pred", ["ref", "ref2"])
    assert inputs.predictions == ["a, b", ""]
    assert inputs.references == [["a b", "x"], ["empty", "y"]]
    tsv = tmp_path / "d.tsv"
    tsv.write_text("prediction\treference\nx y\tx z\n", encoding="utf-8")
    assert list(read_table(tsv)) == [["x y"], [["x z"]]]


def test_read_table_sources(frame: Any) -> None:
    inputs = read_table(frame, "hyp", "refs", sources="src")
    assert inputs.sources == ["s1", "s2", "s3"]
    assert len(inputs) == 3
    assert repr(inputs) == "Inputs(3 segments from DataFrame)"


def test_read_table_from_a_datasets_dataset(frame: Any) -> None:
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_pandas(frame)
    assert list(read_table(ds, "hyp", "refs")) == list(read_table(frame, "hyp", "refs"))
    with pytest.raises(InvalidInputError, match=r"DatasetDict holds several splits \('test'\); pass one"):
        read_table(datasets.DatasetDict({"test": ds}), "hyp", "refs")


def test_a_missing_column_names_the_columns_there_are(frame: Any) -> None:
    with pytest.raises(
        InvalidInputError,
        match=r"^DataFrame: no column 'prediction' for the predictions \(columns: 'hyp', 'refs', 'ref2', 'src'\)$",
    ):
        read_table(frame)


def test_a_null_cell_names_its_row(tmp_path: Path, frame: Any) -> None:
    frame.loc[1, "hyp"] = None
    frame.index = ["a", "b", "c"]
    with pytest.raises(InvalidInputError, match=r"^DataFrame row 'b': column 'hyp' is null \(a missing value\)"):
        read_table(frame, "hyp", "refs")
    frame.loc["b", "hyp"] = float("nan")
    with pytest.raises(InvalidInputError, match=r"row 'b': column 'hyp' is null"):
        read_table(frame, "hyp", "refs")
    frame.loc["b", "hyp"] = "ok"
    frame.loc["c", "refs"] = None
    frame.reset_index(drop=True).to_parquet(tmp_path / "d.parquet")
    with pytest.raises(InvalidInputError, match=r"d\.parquet: row 2: column 'refs' is null"):
        read_table(tmp_path / "d.parquet", "hyp", "refs")
    frame.loc["c", "refs"] = []
    with pytest.raises(InvalidInputError, match=r"row 'c': column 'refs' is an empty list"):
        read_table(frame, "hyp", "refs")


def test_a_nan_passed_straight_to_a_metric_is_named() -> None:
    series = pd.Series(["a", None, float("nan")], dtype=object)
    with pytest.raises(InvalidInputError, match=r"predictions\[1\] is None"):
        nlgmetrics.chrf(series, ["a", "b", "c"])
    with pytest.raises(InvalidInputError, match=r"predictions\[2\] is NaN \(a missing value"):
        nlgmetrics.chrf(pd.Series(["a", "b", float("nan")]), ["a", "b", "c"])


def test_read_table_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"expected a table: .* got int"):
        read_table(3)
    with pytest.raises(InvalidInputError, match=r"no such file"):
        read_table(tmp_path / "nope.parquet")
    (tmp_path / "x.txt").write_text("a\n")
    with pytest.raises(InvalidInputError, match=r"must end in \.parquet, \.csv, \.tsv or \.jsonl"):
        read_table(tmp_path / "x.txt")
    (tmp_path / "ragged.csv").write_text("prediction,reference\na,b\nc\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"ragged\.csv:3: 1 cells but the header names 2 columns"):
        read_table(tmp_path / "ragged.csv")
    with pytest.raises(InvalidInputError, match=r"row 0: column 'reference' is int; expected a string"):
        read_table({"prediction": ["a"], "reference": [3]})


# ---------------------------------------------------------------------------------------------- eval logs in
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tables"


def _lm_eval_files() -> list[Path]:
    return sorted(FIXTURES.glob("samples_*.jsonl"))


def test_lm_eval_fixtures_are_there() -> None:
    assert [p.name.split("_2026")[0] for p in _lm_eval_files()] == ["samples_nlgm_mt", "samples_nlgm_qa"]


@pytest.mark.parametrize("path", _lm_eval_files(), ids=lambda p: p.name.split("_2026")[0])
def test_lm_eval_samples_and_their_own_exact_match(path: Path) -> None:
    """lm-eval logged its own per-sample exact_match (HF evaluate's code): ours on the rows read back agrees."""
    from nlgmetrics.tables import read_lm_eval

    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    filters = sorted({r["filter"] for r in records})
    mismatches, max_diff, n = 0, 0.0, 0
    for name in filters:
        inputs = read_lm_eval(path, filter=name)
        logged = {r["doc_id"]: r for r in records if r["filter"] == name}
        assert inputs.ids == sorted(logged)
        ours = nlgmetrics.exact_match(*inputs, segments=True).segments
        for doc_id, value in zip(inputs.ids, ours, strict=True):
            rec = logged[doc_id]
            assert inputs.predictions[inputs.ids.index(doc_id)] == rec["filtered_resps"][0]
            diff = abs(value - rec["exact_match"])
            mismatches += diff > 0
            max_diff = max(max_diff, diff)
            n += 1
    print(f"{path.name}: {n} samples, {mismatches} mismatches, max abs difference {max_diff}")
    assert (mismatches, max_diff) == (0, 0.0)


def test_lm_eval_list_targets_are_several_references() -> None:
    from nlgmetrics.tables import read_lm_eval

    inputs = read_lm_eval(next(FIXTURES.glob("samples_nlgm_mt_*.jsonl")))
    assert inputs.references[0] == ["Die Katze sitzt auf der Matte.", "Die Katze sitzt auf dem Teppich."]
    assert inputs.references[2] == ["Ich mag grünen Tee."]


def test_lm_eval_bad_input(tmp_path: Path) -> None:
    from nlgmetrics.tables import read_lm_eval

    qa = next(FIXTURES.glob("samples_nlgm_qa_*.jsonl"))
    with pytest.raises(InvalidInputError, match=r"logged under 2 filters \(raw, lower\); choose one with filter="):
        read_lm_eval(qa)
    with pytest.raises(InvalidInputError, match=r"no samples under filter 'strict'; filters: raw, lower"):
        read_lm_eval(qa, filter="strict")
    bad = tmp_path / "samples_x.jsonl"
    bad.write_text(json.dumps({"doc_id": 0, "prediction": "a"}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"samples_x\.jsonl:1: not an lm-eval samples file: no field "):
        read_lm_eval(bad)
    mc = {"doc_id": 0, "target": "2", "filtered_resps": [[-1.5, False], [-0.5, True]], "filter": "none"}
    bad.write_text(json.dumps(mc) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"no arguments field: the choices .* are needed for acc_norm"):
        read_lm_eval(bad)
    bad.write_text(json.dumps({**mc, "filtered_resps": [{"a": 1}]}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"filtered_resps holds dict .*, not generated text"):
        read_lm_eval(bad)


def test_lighteval_details_and_their_own_metric() -> None:
    """lighteval logged each sample's metric (``em``: the prediction is one of the gold choices): ours agrees."""
    from nlgmetrics.tables import read_lighteval

    path = next(FIXTURES.glob("details_*.parquet"))
    inputs = read_lighteval(path)
    assert inputs.predictions == ["Paris", "william shakespeare", "東京", "Blue.", "", "4"]
    assert inputs.references[1] == ["William Shakespeare", "Shakespeare"]
    logged = [row["em"] for row in pq.read_table(path).column("metric").to_pylist()]
    ours = nlgmetrics.exact_match(*inputs, segments=True).segments
    mismatches = sum(a != b for a, b in zip(ours, logged, strict=True))
    print(f"{path.name}: {len(logged)} samples, {mismatches} mismatches")
    assert mismatches == 0


def test_lighteval_bad_input(tmp_path: Path) -> None:
    from nlgmetrics.tables import read_lighteval

    pq.write_table(pa.table({"prediction": ["a"]}), tmp_path / "d.parquet")
    with pytest.raises(InvalidInputError, match=r"no column 'doc' for the documents \(lighteval's doc\) \(columns: "):
        read_lighteval(tmp_path / "d.parquet")
    rows = {"doc": [{"choices": ["a"], "gold_index": 3}], "model_response": [{"text": ["a"]}]}
    pq.write_table(pa.table(rows), tmp_path / "e.parquet")
    with pytest.raises(InvalidInputError, match=r"e\.parquet: row 0: doc\.gold_index 3 does not pick one of the 1"):
        read_lighteval(tmp_path / "e.parquet")


def test_parquet_without_pyarrow_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pq.write_table(pa.table({"prediction": ["a"], "reference": ["a"]}), tmp_path / "d.parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(MissingDependencyError, match=r"Arrow and Parquet needs .* pip install 'nlgmetrics\[tables\]'"):
        read_table(tmp_path / "d.parquet")
    # CSV needs neither pandas nor pyarrow
    (tmp_path / "d.csv").write_text("prediction,reference\na,a\n", encoding="utf-8")
    assert list(read_table(tmp_path / "d.csv")) == [["a"], [["a"]]]


def test_lighteval_09_flat_details(tmp_path: Path) -> None:
    """lighteval 0.9 and earlier wrote flat columns (``Detail`` of its ``info_loggers.py``: ``example``,
    ``full_prompt``, ``predictions``, ``gold``, ``metrics``, ...). This file is built from that schema, not written by
    lighteval 0.9 itself."""
    from nlgmetrics.tables import read_lighteval, sniff

    rows = {
        "example": ["Q: a?", "Q: b?"],
        "full_prompt": ["Q: a?\nA:", "Q: b?\nA:"],
        "predictions": [["Paris"], ["東京"]],
        "gold": [["Paris"], ["東京", "東京都"]],
        "metrics": [{"em": 1.0}, {"em": 1.0}],
    }
    pq.write_table(pa.table(rows), tmp_path / "details_old.parquet")
    assert sniff(str(tmp_path / "details_old.parquet")) == "lighteval"
    inputs = read_lighteval(tmp_path / "details_old.parquet")
    assert list(inputs) == [["Paris", "東京"], [["Paris"], ["東京", "東京都"]]]
