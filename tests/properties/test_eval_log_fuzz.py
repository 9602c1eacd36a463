"""Fuzz of the eval-log readers (bounded): whatever a samples file holds, ``read_lm_eval`` (and the metrics on what
it returns) either read it or raise ``InvalidInputError`` naming the line; no other exception, no silent pairing."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.eval_logs import read_lm_eval

SCALARS = st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True) | st.text(max_size=6)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3), max_leaves=6)
PAIR = st.lists(st.sampled_from(["-1.5", "-0.25", "nan", "x", -2.0, "True", "False", True]), min_size=2, max_size=2)


@st.composite
def records(draw: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {}
    if draw(st.booleans()):
        rec["doc_id"] = draw(st.integers(0, 4) | st.sampled_from(["0", "1", "01", "a", None, 1.0, True]))
    if draw(st.integers(0, 9)):
        rec["filtered_resps"] = draw(VALUES | st.lists(PAIR, min_size=1, max_size=3))
    if draw(st.integers(0, 9)):
        rec["target"] = draw(VALUES | st.sampled_from(["0", "[0, 1]", "['a', 'b']", "Paris", "#### 7"]))
    if draw(st.booleans()):
        rec["filter"] = draw(st.sampled_from(["none", "strict-match", "flexible-extract"]))
    if draw(st.booleans()):
        rec["metrics"] = draw(st.lists(st.sampled_from(["exact_match", "acc", "acc_norm", "acc_mutual_info"])))
        rec["exact_match"] = draw(SCALARS)
    if draw(st.booleans()):
        n = draw(st.integers(0, 4))
        rec["arguments"] = {
            f"gen_args_{i}": {"arg_0": draw(st.sampled_from(["", "Q"])), "arg_1": draw(st.text(max_size=4))}
            for i in range(n)
        }
    return rec


@settings(max_examples=100, deadline=None)
@given(st.lists(records(), min_size=1, max_size=5), st.sampled_from([None, "none", "strict-match"]))
def test_read_lm_eval_reads_or_names_the_problem(recs: list[dict[str, Any]], flt: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "samples_fuzz_2026-01-01T00-00-00.000000.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
        try:
            log = read_lm_eval(path, filter=flt)
        except InvalidInputError:
            return
        assert len(log.predictions) == len(log.references) == len(log.ids)
        assert log.ids == sorted(log.ids, key=lambda k: (isinstance(k, str), k))
        try:
            if log.keywords:
                nm.multiple_choice(*log, **log.keywords)
            else:
                nm.exact_match(*log)
        except InvalidInputError:
            pass
