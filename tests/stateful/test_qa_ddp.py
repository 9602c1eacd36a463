"""SQuAD v2.0 with no-answer probabilities across 2 gloo processes: the summed statistics and the per-question
columns of the best-threshold search ("cat" states) give the single-process result."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("torchmetrics")

from tests.stateful.ddp_harness import problems, run_scenarios

WORLD_SIZE = 2
CASES = Path(__file__).resolve().parents[1] / "fixtures" / "qa" / "generated_cases.json"


def _cases() -> list[dict]:
    cases = json.loads(CASES.read_text(encoding="utf-8"))[:60]
    # distinct probabilities: ties across ranks would be walked rank by rank (see docs/qa.md)
    return [{**c, "na_prob": round(0.001 + i / 100, 4)} for i, c in enumerate(cases)]


def _inputs(cases: list[dict]) -> tuple[list[dict], list[list[str]]]:
    preds = [{"prediction_text": c["prediction"], "no_answer_probability": c["na_prob"]} for c in cases]
    return preds, [c["answers"] for c in cases]


def _run(rank: int, preset: str) -> list[str]:
    import nlgmetrics as nm
    import nlgmetrics.torch as nt

    cases = _cases()
    mine = cases[rank::WORLD_SIZE]
    metric = nt.SQuAD(preset)
    for k in range(0, len(mine), 7):
        metric.update(*_inputs(mine[k : k + 7]))
    got = metric.compute_result().official()
    # the same questions in the order the sync gathers them: rank 0's, then rank 1's
    order = [c for r in range(WORLD_SIZE) for c in cases[r::WORLD_SIZE]]
    expected = nm.squad(*_inputs(order), preset=preset).official()
    bad = [k for k in expected if not math.isclose(float(got[k]), float(expected[k]), abs_tol=1e-9)]
    return [f"{k}: {got[k]} != {expected[k]}" for k in bad] + ([] if set(got) == set(expected) else ["keys differ"])


SCENARIOS: dict[str, Callable[[int], list[str]]] = {
    p: functools.partial(_run, preset=p) for p in ("squad-v2", "jsquad")
}


@pytest.fixture(scope="module")
def ddp_report(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, list[str]]]:
    return run_scenarios(__name__, tmp_path_factory.mktemp("ddp"), world=WORLD_SIZE, timeout_s=180, group_timeout_s=60)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_two_gloo_processes_match_one_process(ddp_report, scenario):
    found = problems(ddp_report, scenario)
    assert not found, found
