"""A bounded fuzz of the input layer: files of any bytes, values of any type, config files of any shape. Each
either reads correctly or fails with the library's own error naming where; never a traceback of another kind."""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlgmetrics import _files
from nlgmetrics._inputs import check_pairs
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.evaluate.config import file_keys
from nlgmetrics.evaluate.spec import check_config

FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

_pieces = st.sampled_from(
    [
        b"a",
        b"\n",
        b"\r\n",
        b"\r",
        b"\xef\xbb\xbf",
        b"\xe6\x97\xa5",
        b"\xff",
        b"\xc3",
        b"\x00",
        b" ",
        b"\xf0\x9f\x98\x80",
    ]
)


def _reference(data: bytes) -> list[str] | None:
    """What the rules say the lines are (None: invalid UTF-8)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    parts = text.split("\n")
    last = parts.pop()
    lines = [p[:-1] if p.endswith("\r") else p for p in parts]
    return [*lines, last] if last else lines


@FUZZ
@given(data=st.lists(_pieces, max_size=40).map(b"".join), block=st.integers(1, 9))
def test_lines_of_any_bytes(tmp_path_factory, monkeypatch, data, block):
    path = tmp_path_factory.mktemp("fuzz") / "f.txt"
    path.write_bytes(data)
    monkeypatch.setattr(_files, "_BLOCK", block)  # every block boundary: inside a character, a CRLF, a BOM
    expected = _reference(data)
    if expected is None:
        with pytest.raises(_files.InputFileError, match=r"f\.txt:\d+: invalid UTF-8 at byte offset \d+"):
            list(_files.iter_lines(str(path), "--pred"))
    else:
        assert list(_files.iter_lines(str(path), "--pred")) == expected
        assert _files.read_text(str(path), "--pred") == data.decode("utf-8-sig")


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5) | st.binary(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner)
        | st.dictionaries(st.text(max_size=2), inner, max_size=2)
        | st.frozensets(st.integers(), max_size=2)
    ),
    max_leaves=8,
)


@FUZZ
@given(predictions=_values, references=_values)
def test_any_values(predictions, references):
    try:
        preds, refs = check_pairs(predictions, references)
    except InvalidInputError:
        return
    assert all(type(p) is str for p in preds)
    assert len(preds) == len(refs)
    assert all(isinstance(r, tuple) and r and all(type(x) is str for x in r) for r in refs)


_keys = st.sampled_from([*file_keys(), "bootstrp", "metric", "job"]) | st.text(string.ascii_lowercase, max_size=6)
_config_values = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats()
    | st.text(max_size=4)
    | st.lists(st.text(max_size=3), max_size=2)
)


@FUZZ
@given(config=st.dictionaries(_keys, _config_values, max_size=4))
def test_any_config(config):
    message = ""
    try:
        check_config(config, "run.toml")
    except InvalidInputError as err:
        message = str(err)
    assert not message or message.startswith("run.toml: ")
