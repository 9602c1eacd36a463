"""Question answering and exact match against every reference, on recorded script outputs and real data.

Script references (fixtures under ``tests/fixtures/qa``, recorded by ``generate.py`` from the real scripts): the
official SQuAD v1.1 and v2.0 scripts, Hugging Face ``evaluate``'s ``exact_match`` and ``squad_v2``, JGLUE's JSQuAD
evaluation, CMRC 2018's script. Each is checked twice: the library against the recorded outputs, and the naive
restatement in ``tests/qa_naive.py`` against them (so the hypothesis tests, which use the restatements, test
against the scripts). Pip references run live: torchmetrics' ``squad``, rapidfuzz (llm-jp-eval's ``char_f1``).
Every test prints the mismatch count and the largest absolute difference.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nlgmetrics as nm
from tests import qa_naive as naive
from tests.qa_cases import REAL_SETS, real_cases

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "qa"
SETS = ("generated", *REAL_SETS)


def _fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def _cases(set_name: str, request: pytest.FixtureRequest) -> dict[str, dict[str, Any]]:
    if set_name == "generated":
        cases = json.loads((FIXTURES / "generated_cases.json").read_text(encoding="utf-8"))
    else:
        cases = real_cases(request.getfixturevalue("shared_data"), set_name)
    return {c["id"]: c for c in cases}


def _compare(label: str, ours: Any, ref: Any, tol: float = 0.0) -> None:
    a = np.asarray(ours, dtype=np.float64).ravel()
    b = np.asarray(ref, dtype=np.float64).ravel()
    assert a.shape == b.shape, (label, a.shape, b.shape)
    diff = np.abs(a - b)
    mismatches = int((diff > tol).sum())
    print(f"{label}: {len(a)} values, {mismatches} mismatches, max |diff| {diff.max() if len(diff) else 0.0:.3g}")
    assert mismatches == 0, label


def _close(label: str, ours: dict[str, Any], ref: dict[str, Any], tol: float = 1e-9) -> None:
    assert set(ours) == set(ref), (label, sorted(ours), sorted(ref))
    worst = max((abs(float(ours[k]) - float(ref[k])) for k in ref), default=0.0)
    bad = [k for k in ref if not math.isclose(float(ours[k]), float(ref[k]), rel_tol=0, abs_tol=tol)]
    print(f"{label}: {len(ref)} values, {len(bad)} mismatches, max |diff| {worst:.3g}")
    assert not bad, (label, bad)


# ---------------------------------------------------------------------------------------------------- SQuAD v1.1
@pytest.mark.parametrize("set_name", SETS)
def test_squad_v11_script(set_name, request):
    fx = _fixture("squad_v11")[set_name]
    cases = _cases(set_name, request)
    chosen = [cases[i] for i in fx["ids"]]
    preds, refs = [c["prediction"] for c in chosen], [c["answers"] for c in chosen]
    r = nm.squad(preds, refs, preset="squad-v1")
    cfg = nm.metrics.squad.SQUAD.make_config("squad-v1")
    batch = nm.metrics.squad.SQUAD.batch_stats(preds, refs, cfg)
    _compare(f"squad-v1 {set_name} per-question EM", batch.column("raw_exact"), fx["exact"])
    _compare(f"squad-v1 {set_name} per-question F1", batch.column("raw_f1"), fx["f1"])
    _close(f"squad-v1 {set_name} script", r.official(), fx["script"], 0.0)
    _close(f"naive v1.1 {set_name}", naive.v11_evaluate(chosen), fx["script"], 1e-12)


# ---------------------------------------------------------------------------------------------------- SQuAD v2.0
@pytest.mark.parametrize("set_name", SETS)
def test_squad_v20_script(set_name, request):
    fx = _fixture("squad_v20")[set_name]
    cases = _cases(set_name, request)
    chosen = [cases[i] for i in fx["ids"]]
    preds, refs = [c["prediction"] for c in chosen], [c["answers"] for c in chosen]
    probs = [c["na_prob"] for c in chosen]
    cfg = nm.metrics.squad.SQUAD.make_config("squad-v2")
    batch = nm.metrics.squad.SQUAD.batch_stats(preds, refs, cfg)
    _compare(f"squad-v2 {set_name} raw EM", batch.column("raw_exact"), fx["exact"])
    _compare(f"squad-v2 {set_name} raw F1", batch.column("raw_f1"), fx["f1"])
    _close(f"squad-v2 {set_name} script", nm.squad(preds, refs, preset="squad-v2").official(), fx["script"], 0.0)
    with_na = nm.squad(preds, refs, preset="squad-v2", no_answer_probabilities=probs)
    _close(f"squad-v2 {set_name} script --na-prob-file", with_na.official(), fx["script_na"], 0.0)
    half = nm.squad(preds, refs, preset="squad-v2", no_answer_probabilities=probs, na_prob_thresh=0.5)
    _close(f"squad-v2 {set_name} --na-prob-thresh 0.5", half.official(), fx["script_na_0.5"], 0.0)
    _close(f"HF squad_v2 {set_name}", with_na.official(), fx["hf_squad_v2"], 0.0)
    _close(f"naive v2.0 {set_name}", naive.v20_evaluate(chosen), fx["script"], 1e-12)
    _close(f"naive v2.0 {set_name} na", naive.v20_evaluate(chosen, na_probs=True), fx["script_na"], 1e-12)


# ---------------------------------------------------------------------------------------------------- JSQuAD
@pytest.mark.parametrize("set_name", SETS)
def test_jsquad_script(set_name, request):
    fx = _fixture("jsquad")[set_name]
    cases = _cases(set_name, request)
    chosen = [cases[i] for i in fx["ids"]]
    preds, refs = [c["prediction"] for c in chosen], [c["answers"] for c in chosen]
    cfg = nm.metrics.squad.SQUAD.make_config("jsquad")
    batch = nm.metrics.squad.SQUAD.batch_stats(preds, refs, cfg)
    _compare(f"jsquad {set_name} raw EM", batch.column("raw_exact"), fx["exact"])
    _compare(f"jsquad {set_name} raw F1", batch.column("raw_f1"), fx["f1"])
    reference = {k: v for k, v in fx["squad_evaluate"].items() if not k.startswith("best")}  # made with na_prob 0
    _close(f"jsquad {set_name} squad_evaluate", nm.squad(preds, refs, preset="jsquad").official(), reference, 0.0)
    probs = [c["na_prob"] for c in chosen]
    with_na = nm.squad(preds, refs, preset="jsquad", no_answer_probabilities=probs).official()
    _close(f"jsquad {set_name} squad_evaluate(no_answer_probs)", with_na, fx["squad_evaluate_na"], 0.0)
    _close(f"naive jsquad {set_name}", naive.v20_evaluate(chosen, jsquad=True), reference, 1e-12)


# ---------------------------------------------------------------------------------------------------- CMRC 2018
@pytest.mark.parametrize("set_name", SETS)
def test_cmrc2018_script(set_name, request):
    pytest.importorskip("nltk")
    fx = _fixture("cmrc2018")[set_name]
    cases = _cases(set_name, request)
    chosen = [cases[i] for i in fx["ids"]]
    preds, refs = [c["prediction"] for c in chosen], [c["answers"] for c in chosen]
    cfg = nm.metrics.squad.SQUAD.make_config("cmrc2018")
    batch = nm.metrics.squad.SQUAD.batch_stats(preds, refs, cfg)
    _compare(f"cmrc2018 {set_name} EM", batch.column("raw_exact"), fx["exact"])
    _compare(f"cmrc2018 {set_name} F1", batch.column("raw_f1"), fx["f1"])
    official = nm.squad(preds, refs, preset="cmrc2018").official()
    assert official == {k: v for k, v in fx["script"].items() if k != "SKIP"}
    print(f"cmrc2018 {set_name} script output {fx['script']}: identical")
    if set_name == "generated":  # the restatement (a Python O(n m) table) on the synthetic set only
        assert naive.cmrc_evaluate(chosen) == {k: fx["script"][k] for k in ("AVERAGE", "F1", "EM")}


# ---------------------------------------------------------------------------------------------------- HF exact_match
@pytest.mark.parametrize("set_name", SETS)
def test_hf_exact_match_script(set_name, request):
    from tests.fixtures.qa.generate import HF_OPTIONS

    fx = _fixture("hf")[set_name]
    cases = _cases(set_name, request)
    chosen = [cases[i] for i in fx["ids"]]
    preds, refs = [c["prediction"] for c in chosen], [c["answers"][0] for c in chosen]
    for name, opts in HF_OPTIONS.items():
        r = nm.exact_match(preds, refs, preset="hf-evaluate", segments=True, **opts)
        _compare(f"hf exact_match {set_name} {name} per pair", r.segments, fx[name]["per"])
        _compare(f"hf exact_match {set_name} {name} mean", r.score, fx[name]["mean"], 1e-15)
        _compare(f"naive hf exact_match {set_name} {name}", naive.hf_exact_match(preds, refs, **opts), fx[name]["mean"])


# ---------------------------------------------------------------------------------------------------- pip references
@pytest.mark.parametrize("set_name", SETS)
def test_torchmetrics_squad(set_name, request):
    tm = pytest.importorskip("torchmetrics.functional.text")
    cases = [c for c in _cases(set_name, request).values() if c["answers"]]
    preds = [{"prediction_text": c["prediction"], "id": c["id"]} for c in cases]
    target = [
        {"answers": {"text": c["answers"], "answer_start": [0] * len(c["answers"])}, "id": c["id"]} for c in cases
    ]
    ref = {k: float(v) for k, v in tm.squad(preds, target).items()}
    ours = nm.squad([c["prediction"] for c in cases], [c["answers"] for c in cases], preset="torchmetrics")
    # torchmetrics sums F1 in float32: agreement to float32 precision of the sum
    _close(f"torchmetrics squad {set_name}", {"exact_match": ours.exact_match, "f1": ours.f1}, ref, 1e-3)
    for c in cases[:300]:  # per question, through its own functions
        f1 = float(max(tm.squad.__globals__["_compute_f1_score"](c["prediction"], a) for a in c["answers"]))
        ours_q = nm.squad([c["prediction"]], [c["answers"]], preset="torchmetrics").f1 / 100.0
        assert abs(ours_q - f1) < 1e-6, c


@pytest.mark.parametrize("set_name", SETS)
def test_llm_jp_eval(set_name, request):
    cases = [c for c in _cases(set_name, request).values() if c["answers"]]
    ref = naive.llm_jp_eval(cases)
    ours = nm.squad([c["prediction"] for c in cases], [c["answers"] for c in cases], preset="llm-jp-eval")
    _close(f"llm-jp-eval {set_name}", ours.official(), ref, 1e-12)
