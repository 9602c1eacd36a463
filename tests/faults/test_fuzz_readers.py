"""A bounded fuzz of the readers (``read_table`` on CSV, JSON Lines and dicts of columns; ``read_coco``; the SQuAD
files of ``nlgmetrics squad``) and of ``nlgmetrics.load()``: each input either reads (scores) correctly or fails
with the library's own error; never a traceback of another kind, never a silently re-paired corpus."""

from __future__ import annotations

import contextlib
import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.cli.main import main
from nlgmetrics.errors import InvalidInputError

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

_csv_pieces = st.sampled_from(
    ["prediction", "reference", "references", ",", "\t", "\n", "\r\n", '"', '""', "a", "b c", "日本", "\x00", "x" * 300]
)
_json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4)
_json = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["image_id", "caption", "id", "annotations", "images", "answers", "text", "qas", "x"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=10,
)


def _reads_or_refuses(call):
    try:
        return call()
    except InvalidInputError:
        return None


@FUZZ
@given(
    header=st.sampled_from(["prediction,reference\n", "prediction,prediction\n", "reference\n", ""]),
    body=st.lists(_csv_pieces, max_size=12).map("".join),
    bad=st.sampled_from([b"", b"\xff", b"\xef\xbb\xbf"]),
)
def test_read_table_csv(tmp_path_factory, header, body, bad):
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    data = (header + body).encode("utf-8")
    path.write_bytes(bad + data if bad == b"\xef\xbb\xbf" else data + bad)
    inputs = _reads_or_refuses(lambda: nm.read_table(path))
    if inputs is not None:
        assert len(inputs.predictions) == len(inputs.references)
        assert all(isinstance(p, str) for p in inputs.predictions)
        assert all(r and all(isinstance(x, str) for x in r) for r in inputs.references)


@FUZZ
@given(lines=st.lists(_json | st.just({"prediction": "a", "references": ["a", "b"]}), min_size=1, max_size=3))
def test_read_table_jsonl(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("jsonl") / "t.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    inputs = _reads_or_refuses(lambda: nm.read_table(path))
    if inputs is not None:
        assert len(inputs.predictions) == len(lines)


_columns = st.sampled_from(
    [["a", "b"], ("a", "b"), {"a", "b"}, {"a": 1}, "ab", None, 3, ["a"], ["a", "b", "c"], [None, "b"], [["a"], ["b"]]]
)


@FUZZ
@given(prediction=_columns, reference=_columns)
def test_read_table_dict_of_columns(prediction, reference):
    inputs = _reads_or_refuses(lambda: nm.read_table({"prediction": prediction, "reference": reference}))
    if inputs is not None:  # only ordered columns of one length are read
        assert isinstance(prediction, (list, tuple))
        assert isinstance(reference, (list, tuple))
        assert len(prediction) == len(reference) == len(inputs)


_image_id = st.integers(0, 3) | st.sampled_from(["1", None, 1.5, True]) | _json
_caption = st.sampled_from(["a man", "", "a dog runs"]) | _json
_entry = st.fixed_dictionaries({"image_id": _image_id, "caption": _caption})
_results = st.lists(_entry, max_size=4) | st.fixed_dictionaries({"annotations": st.lists(_entry, max_size=4)}) | _json
_annotations = (
    st.fixed_dictionaries(
        {"annotations": st.lists(_entry, max_size=5)},
        optional={"images": st.lists(st.fixed_dictionaries({"id": _image_id}), max_size=4) | _json},
    )
    | _json
)


@FUZZ
@given(results=_results, annotations=_annotations)
def test_read_coco(results, annotations):
    got = _reads_or_refuses(lambda: nm.read_coco(results, annotations))
    if got is not None:
        ids, preds, refs = got
        assert len(ids) == len(preds) == len(refs) > 0
        assert all(isinstance(p, str) for p in preds)
        assert all(r and all(isinstance(x, str) for x in r) for r in refs)


_qa = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["q1", "q2"]) | _json,
        "answers": st.lists(st.fixed_dictionaries({"text": _caption}), max_size=2) | _json,
    }
)
_dataset = (
    st.fixed_dictionaries(
        {
            "data": st.lists(
                st.fixed_dictionaries(
                    {"paragraphs": st.lists(st.fixed_dictionaries({"qas": st.lists(_qa, max_size=3)}), max_size=2)}
                ),
                max_size=2,
            )
        }
    )
    | _json
)
_squad_predictions = st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), _caption, max_size=3) | _json


@FUZZ
@given(dataset=_dataset, predictions=_squad_predictions, preset=st.sampled_from(["squad-v1", "squad-v2"]))
def test_squad_files(tmp_path_factory, dataset, predictions, preset):
    folder = tmp_path_factory.mktemp("squad")
    data, pred = folder / "dev.json", folder / "pred.json"
    data.write_text(json.dumps(dataset), encoding="utf-8")
    pred.write_text(json.dumps(predictions), encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["squad", "--dataset", str(data), "--pred", str(pred), "--preset", preset])
    assert code in (0, 2)
    if code == 2:
        assert "nlgmetrics: error:" in err.getvalue()


_texts = st.lists(st.sampled_from(["a b", "a c", "b", "", "c d e"]), max_size=3)
_values = _texts | st.sampled_from([None, "ab", 3, {"a b", "c"}, {"a b": 1}, [None], [1], [["a"], ["b"]]])
_ops = st.lists(st.tuples(st.sampled_from(["add", "add_batch", "compute"]), _values, _values), min_size=1, max_size=4)


@FUZZ
@given(name=st.sampled_from(["wer", "cer", "chrf", "sacrebleu", "exact_match", "ter"]), ops=_ops)
def test_load_keeps_every_pending_input(name, ops):
    """A model of HF ``evaluate``'s module: inputs pend until ``compute``, which scores all of them (plus its
    own); a refused call adds nothing; sets, dicts and batches of unequal length are refused."""
    metric = nm.load(name)
    pending: tuple[list, list] = ([], [])
    for op, predictions, references in ops:
        try:
            if op == "add":
                metric.add(prediction=predictions, reference=references)
                new = ([predictions], [references])
            elif op == "add_batch":
                metric.add_batch(predictions=predictions, references=references)
                new = (list(predictions), list(references))
            else:
                got = metric.compute(predictions=predictions, references=references)
                everything = (pending[0] + list(predictions), pending[1] + list(references))
                pending = ([], [])
                assert got == nm.load(name).compute(predictions=everything[0], references=everything[1])
                continue
        except InvalidInputError:
            if op == "compute":
                pending = ([], [])  # compute consumes the pending inputs, as HF does, even when it fails
            continue
        assert not isinstance(predictions, (set, dict))
        assert not isinstance(references, (set, dict))
        assert len(new[0]) == len(new[1])
        pending = (pending[0] + new[0], pending[1] + new[1])
    if pending[0]:
        with contextlib.suppress(InvalidInputError):
            assert metric.compute() == nm.load(name).compute(predictions=pending[0], references=pending[1])
