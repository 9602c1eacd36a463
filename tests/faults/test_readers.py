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


# ------------------------------------------------------------------------------------ load(): HF semantics
def _hf_wer_module(tmp_path):
    """An HF ``evaluate`` module with the features of HF's ``wer`` script (a string per prediction and per
    reference) and jiwer's corpus WER, the script's number: HF's own add/add_batch/compute around it."""
    evaluate = pytest.importorskip("evaluate")
    datasets = pytest.importorskip("datasets")
    jiwer = pytest.importorskip("jiwer")

    class WER(evaluate.Metric):
        def _info(self):
            return evaluate.MetricInfo(
                description="",
                citation="",
                inputs_description="",
                features=datasets.Features(
                    {
                        "predictions": datasets.Value("string", id="sequence"),
                        "references": datasets.Value("string", id="sequence"),
                    }
                ),
            )

        def _compute(self, predictions, references):
            return jiwer.wer(list(references), list(predictions))

    return WER(keep_in_memory=True, cache_dir=str(tmp_path))


REFS4 = ["a b", "c d", "e f", "g h"]
CALLS = {
    "set predictions": lambda m: m.compute(predictions=set(REFS4), references=REFS4),
    "set references": lambda m: m.compute(predictions=REFS4, references=set(REFS4)),
    "frozenset": lambda m: m.compute(predictions=frozenset(REFS4), references=REFS4),
    "dict predictions": lambda m: m.compute(predictions=dict.fromkeys(REFS4), references=REFS4),
    "unequal add_batch": lambda m: (
        m.add_batch(predictions=["a b", "c d"], references=["a b"]),
        m.add_batch(predictions=["e f"], references=["c d", "e f"]),
        m.compute(),
    ),
    "unequal compute": lambda m: m.compute(predictions=["a b", "c d"], references=["a b"]),
    "add then compute(inputs)": lambda m: (
        m.add(prediction="x y", reference="a b"),
        m.compute(predictions=["c d"], references=["c d"]),
    )[1],
    "add_batch then compute(inputs)": lambda m: (
        m.add_batch(predictions=["a b", "c d"], references=["a b", "c d"]),
        m.compute(predictions=["e f"], references=["e x"]),
    )[1],
    "tuple": lambda m: m.compute(predictions=("a b", "c"), references=["a b", "c d"]),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_load_follows_hf_evaluate(tmp_path, call):
    """Each call on ``nlgmetrics.load("wer")`` and on an HF ``evaluate`` 0.4.6 module of the same features:
    the same number, or both refuse (HF: a ValueError, or a KeyError for a dict; ours: InvalidInputError)."""
    theirs = _hf_wer_module(tmp_path)
    try:
        expected = CALLS[call](theirs)
    except (ValueError, KeyError):
        expected = ValueError
    if expected is ValueError:
        with pytest.raises(InvalidInputError):
            CALLS[call](nm.load("wer"))
    else:
        assert CALLS[call](nm.load("wer")) == pytest.approx(expected, abs=1e-12)


def test_load_refuses_sets_whatever_the_hash_seed():
    """A set paired at random gave WER 0.75 or 1.125 by PYTHONHASHSEED where 0.0 is right."""
    m = nm.load("wer")
    with pytest.raises(InvalidInputError, match="predictions is a set: its order is arbitrary"):
        m.compute(predictions=set(REFS4), references=REFS4)
    with pytest.raises(InvalidInputError, match="references is a dict_keys"):
        m.add_batch(predictions=REFS4, references=dict.fromkeys(REFS4).keys())
    with pytest.raises(InvalidInputError, match="Mismatch in the number of predictions"):
        nm.combine(["wer", "cer"]).add_batch(predictions=["a"], references=["a", "b"])
    m.add_batch(predictions=["a b"], references=["a b"])
    with pytest.raises(InvalidInputError, match=r"Mismatch in the number of predictions \(2\) and references \(1\)"):
        m.add_batch(predictions=["x", "y"], references=["x"])
    assert m.compute() == 0.0  # the refused batch added nothing


def test_combine_scores_pending_and_new_inputs():
    both = nm.combine(["wer", "cer"])
    both.add(prediction="a b", reference="a c")
    out = both.compute(predictions=["x y"], references=["x y"])
    assert out["wer"] == nm.wer(["a b", "x y"], ["a c", "x y"]).score == 0.25


def test_texts_and_read_table_refuse_sets():
    from nlgmetrics.evaluate import Texts, evaluate

    with pytest.raises(InvalidInputError, match=r"Texts\(\.\.\.\) got a set"):
        evaluate(Texts(set(REFS4)), {"sys": REFS4}, ["wer"], bootstrap=0)
    with pytest.raises(InvalidInputError, match="column 'prediction' is a set"):
        nm.read_table({"prediction": set(REFS4), "reference": REFS4})
    with pytest.raises(InvalidInputError, match="column 'reference' is str; expected a list"):
        nm.read_table({"prediction": ["a"], "reference": "a"})
    with pytest.raises(InvalidInputError, match="column 'reference' has 1 rows but column 'prediction' has 2"):
        nm.read_table({"prediction": ["a", "b"], "reference": ["a"]})
    with pytest.raises(InvalidInputError, match="column 'reference' has 3 rows"):
        nm.read_table({"prediction": ["a", "b"], "reference": ["a", "b", "c"]})


SQUAD_REFS = [
    {"answers": {"answer_start": [0], "text": ["Denver Broncos"]}, "id": "a"},
    {"answers": {"answer_start": [0], "text": ["1976"]}, "id": "b"},
]


def test_squad_ids_partly_missing_are_refused():
    """Predictions were paired by position as soon as one id was missing."""
    preds = [{"prediction_text": "1976", "id": "b"}, {"prediction_text": "Denver Broncos"}]
    with pytest.raises(InvalidInputError, match=r"predictions\[1\] has no 'id', but other"):
        nm.load("squad").compute(predictions=preds, references=SQUAD_REFS)
    refs = [SQUAD_REFS[0], {"answers": SQUAD_REFS[1]["answers"]}]
    with pytest.raises(InvalidInputError, match=r"references\[1\] has no 'id'"):
        nm.load("squad").compute(predictions=[{"prediction_text": "x", "id": "a"}] * 2, references=refs)
    with pytest.raises(InvalidInputError, match=r"predictions\[0\] has no 'id'"):
        nm.load("squad").compute(predictions=["Denver Broncos", "1976"], references=SQUAD_REFS)
    with pytest.raises(InvalidInputError, match=r"references\[0\]\['id'\] is a value of type int"):
        nm.load("squad").compute(predictions=["x"], references=[{"answers": {"text": ["x"]}, "id": 3}])
    # no id anywhere: in order
    plain = nm.load("squad").compute(predictions=["Denver Broncos", "1976"], references=[["Denver Broncos"], ["1976"]])
    assert plain == {"exact_match": 100.0, "f1": 100.0}


# ------------------------------------------------------------------------------------ SQuAD v2: duplicate ids
def _dup_cases():
    # question "x" twice (answers Paris, then London), "y" once; predictions are keyed by id: Paris, Rome
    return [
        {"id": "x", "answers": ["Paris"], "prediction": "Paris", "na_prob": 0.1},
        {"id": "y", "answers": ["Rome"], "prediction": "Rome", "na_prob": 0.2},
        {"id": "x", "answers": ["London"], "prediction": "Paris", "na_prob": 0.1},
    ]


def test_squad_v2_duplicate_ids_score_as_the_official_script(cli, write):
    """EM 66.67 where the official evaluate-v2.0.py gives 50.0: it keys scores by id, the last occurrence wins."""
    from tests.qa_naive import v20_evaluate

    cases = _dup_cases()
    official = v20_evaluate(cases)
    assert official["exact"] == 50.0
    qas = [{"id": c["id"], "answers": [{"text": a} for a in c["answers"]]} for c in cases]
    dataset = {"data": [{"paragraphs": [{"qas": qas}]}]}
    data = _json(write, "dev.json", dataset)
    preds = _json(write, "pred.json", {"x": "Paris", "y": "Rome"})
    run = cli("squad", "--dataset", data, "--pred", preds, "--preset", "squad-v2", "--json")
    assert "1 question(s) of" in run.err
    assert "repeat an id (the first: 'x')" in run.err
    got = run.json()
    assert got["exact_match"] == official["exact"]
    assert got["f1"] == official["f1"]
    assert got["total"] == official["total"] == 2
    # HF's squad_v2 script: the same
    refs = [{"id": c["id"], "answers": {"text": c["answers"], "answer_start": [0]}} for c in cases]
    hf_preds = [{"id": c["id"], "prediction_text": c["prediction"], "no_answer_probability": 0.0} for c in cases]
    with pytest.warns(UserWarning, match="repeat") as caught:  # HF needs a prediction per reference: both repeat x
        out = nm.load("squad_v2").compute(predictions=hf_preds, references=refs)
    assert any("repeat a question id (the first: 'x')" in str(w.message) for w in caught)
    assert any("the last prediction of each id is scored" in str(w.message) for w in caught)
    assert out["exact"] == 50.0
    assert out["total"] == 2
    # v1.1 counts every question (its loop is over the dataset, not keyed by id)
    v1 = cli("squad", "--dataset", data, "--pred", preds, "--json").json()
    assert v1["total"] == 3


# ------------------------------------------------------------------------------------------------ tables
def test_csv_bad_bytes_long_fields_and_duplicate_columns(write, cli):
    bad = write("bad.csv", data=b"prediction,reference\nok,fine\nbad \xff byte,x\n")
    with pytest.raises(InvalidInputError, match=r"bad\.csv:3: invalid UTF-8 at byte offset 33"):
        nm.read_table(bad)
    long = "word " * 60_000  # 300 KB, beyond csv's default field limit of 128 KiB
    path = write("long.csv", text=f"prediction,reference\n{long},{long}\n")
    inputs = nm.read_table(path)
    assert inputs.predictions == [long]
    import csv

    assert csv.field_size_limit() == 131072  # restored
    dup = write("dup.csv", text="prediction,reference,prediction\na,b,c\n")
    with pytest.raises(
        InvalidInputError, match=r"dup\.csv:1: the header names column 'prediction' twice \(columns 1 and 3\)"
    ):
        nm.read_table(dup)
    run = cli("wer", "--pred", dup)
    assert run.code == 2
    assert "names column 'prediction' twice" in run.err
    unclosed = write("unclosed.csv", text='prediction,reference\na,"b\nc,d\n')  # was one row: "b\nc,d\n"
    run = cli("wer", "--pred", unclosed)
    assert run.code == 2
    assert "unclosed.csv:3: not valid CSV: unexpected end of data (a quoted cell opened after line 1" in run.err


def test_parquet_that_is_not_parquet_and_duplicate_columns(write, cli, tmp_path):
    fake = write("fake.parquet", text="prediction,reference\na,b\n")
    with pytest.raises(InvalidInputError, match=r"cannot read .*fake\.parquet as Parquet"):
        nm.read_table(fake)
    run = cli("wer", "--pred", fake)
    assert run.code == 2
    assert "as Parquet" in run.err
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame([["a", "b", "c"]], columns=["prediction", "reference", "prediction"])
    with pytest.raises(InvalidInputError, match="2 columns are named 'prediction'"):
        nm.read_table(frame)


# ------------------------------------------------------------------------------------ extract: names and time limits
@pytest.mark.parametrize(
    ("typo", "name"), [("gsm8k_flexible", "gsm8k-flexible"), ("answer_is", "answer-is"), ("GSM8K", "gsm8k")]
)
def test_a_typod_pattern_name_is_an_error(cli, write, typo, name):
    """It was compiled as a literal regex: every segment scored 0."""
    with pytest.raises(InvalidInputError, match=f"extract='{typo}' is not a pattern name; did you mean '{name}'"):
        nm.exact_match(["#### 42"], ["42"], extract=typo)
    p = write("p.txt", ["#### 42"])
    run = cli("exact-match", "--pred", p, "--ref", p, "--extract", typo)
    assert run.code == 2
    assert "gsm8k, gsm8k-flexible, answer-is" in run.err
    # a regex written as one is taken as one
    assert nm.exact_match(["gsm8k_flexible"], ["gsm8k_flexible"], extract=f"({typo})").score == float(
        typo == "gsm8k_flexible"
    )


def test_a_backtracking_regex_is_stopped():
    from nlgmetrics.algorithms.guard import pair_limit
    from nlgmetrics.text.regex_limit import RegexTimeoutError, can_limit

    if not can_limit():
        pytest.skip("the SIGALRM timer is in use (or this is not the main thread of a POSIX process)")
    evil = "a" * 40 + "b"
    with (
        pair_limit(0.2),
        pytest.raises(
            RegexTimeoutError,
            match=r"predictions\[1\]: the regular expression extract='\(a\+\)\+\$' ran beyond the limit of 0\.2 s",
        ),
    ):
        nm.exact_match(["ok", evil], ["x", "y"], extract=r"(a+)+$")
    with (
        pair_limit(0.2),
        pytest.raises(RegexTimeoutError, match=r"references\[1\]: the regular expression regexes_to_ignore="),
    ):
        nm.exact_match(["x", "y"], ["x", ["y", evil]], preset="hf-evaluate", regexes_to_ignore=[r"(a+)+$"])
    with pair_limit(0.2), pytest.raises(InvalidInputError, match="NLGMETRICS_PAIR_LIMIT=off"):
        nm.load("exact_match").compute(predictions=[evil], references=["a"], regexes_to_ignore=[r"(a+)+$"])
    import signal

    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL  # given back
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    # a pattern that is fast runs as before, under the limit
    with pair_limit(0.2):
        assert nm.exact_match(["x 42"], ["42"], extract=r"(\d+)").score == 1.0


def test_gsm8k_presets_are_linear_on_a_long_reference():
    """``(?s).*#### `` on a 1 MB reference without ``####`` ran over 150 s (re searches from every position);
    it is now deleted as what it means. The time limit would stop it at 0.2 s if it were not."""
    from nlgmetrics.algorithms.guard import pair_limit

    long = "x " * 500_000
    with pair_limit(0.2):
        r = nm.exact_match(["#### 5", "5"], [long, long + "#### 5"], preset="gsm8k", segments=True)
        assert r.segments == (0.0, 0.0)  # nothing is extracted from "5": no "####"
        r = nm.exact_match(["#### 5", "5"], [long, long + "#### 5"], preset="gsm8k-flexible", segments=True)
        assert r.segments == (0.0, 1.0)


def test_gleu_on_a_lone_surrogate_scores_as_nltk():
    """The compiled n-gram counter cannot encode a lone surrogate (UnicodeEncodeError): the other path counts it."""
    from nltk.translate.gleu_score import corpus_gleu

    preds, refs = ["a \ud800 b c", "x y"], ["a b c \ud800", "x y z"]
    assert nm.gleu(preds, refs).score == corpus_gleu([[r.split()] for r in refs], [p.split() for p in preds])
    assert nm.gleu(["a \ud800 b"], ["a b c"]).score == pytest.approx(1 / 3)


def test_squad_files_nested_too_deeply_or_with_huge_numbers_are_clear_errors(cli, write):
    dataset = {"data": [{"paragraphs": [{"qas": [{"id": "q1", "answers": [{"text": "Paris"}]}]}]}]}
    data, pred = _json(write, "dev.json", dataset), _json(write, "pred.json", {"q1": "Paris"})
    deep = write("deep.json", text="[" * 100_000 + "]" * 100_000)
    run = cli("squad", "--dataset", deep, "--pred", pred)
    assert run.code == 2
    assert f"--dataset {deep}: the JSON is nested too deeply to read" in run.err
    huge = write("huge.json", text='{"q1": ' + "1" * 5000 + "}")
    run = cli("squad", "--dataset", data, "--pred", pred, "--na-prob-file", huge, "--preset", "squad-v2")
    assert run.code == 2
    assert f"--na-prob-file {huge}: cannot read the JSON" in run.err
    big = write("big.json", text='{"q1": 1' + "0" * 400 + "}")  # an integer too large for a float
    run = cli("squad", "--dataset", data, "--pred", pred, "--na-prob-file", big, "--preset", "squad-v2")
    assert run.code == 2
    assert "expected a finite number" in run.err
    assert cli("squad", "--dataset", data, "--pred", pred, "--json").json()["exact_match"] == 100.0
