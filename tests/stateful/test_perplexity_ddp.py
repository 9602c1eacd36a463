"""Perplexity under DDP: two gloo processes on CPU give the single-process numbers, and torchmetrics' own.

The data is eight batches of float64 logits with padded targets (``ignore_index=-100``) and byte counts; rank
``r`` takes batches ``r, r + 2, …``. Each rank checks, after the collectives: the synced ``compute()`` and
``compute_result()`` of ``nlgmetrics.torch.Perplexity`` against the functional result on all the data (bits per
byte included), torchmetrics' ``Perplexity`` (float64 states) synced the same way, the plain stateful metric
synced with ``sync_metric``, and the per-sequence perplexities gathered rank by rank (``keep_segments``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")

import torch.distributed as dist  # noqa: E402
from torchmetrics.functional.text.perplexity import perplexity as tm_perplexity  # noqa: E402
from torchmetrics.text import Perplexity as TMPerplexity  # noqa: E402

import nlgmetrics  # noqa: E402
import nlgmetrics.torch  # noqa: E402
from nlgmetrics.torch.distributed import sync_metric  # noqa: E402
from tests.stateful.ddp_harness import problems, run_scenarios  # noqa: E402

WORLD_SIZE = 2
IGNORE = -100

if not (dist.is_available() and dist.is_gloo_available()):
    pytest.skip("torch.distributed with the gloo backend is not available in this torch build", allow_module_level=True)


def _batches() -> list[tuple[Any, Any, list[int]]]:
    g = torch.Generator().manual_seed(20240611)
    out = []
    for i in range(8):
        b, t, v = 3, 5 + i % 3, 17
        logits = torch.randn(b, t, v, generator=g, dtype=torch.float64) * 2
        target = torch.randint(v, (b, t), generator=g)
        target[i % b, t - 2 :] = IGNORE  # padding
        out.append((logits, target, [int(n) for n in torch.randint(5, 40, (b,), generator=g)]))
    return out


BATCHES = _batches()


def _values(x: Any) -> list[float]:
    if isinstance(x, torch.Tensor):
        x = x.tolist()
    return [float(v) for v in x] if isinstance(x, (list, tuple)) else [float(x)]


def _close(failures: list[str], what: str, got: Any, expected: Any) -> None:
    g, e = _values(got), _values(expected)
    if len(g) != len(e) or not all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(g, e, strict=True)):
        failures.append(f"{what}: got {got!r}, expected {expected!r}")


def _expected(order: list[int]) -> Any:
    """The functional result on the batches in ``order``: ragged sequences (padding dropped) in that order."""
    logits, targets, nbytes = [], [], []
    for i in order:
        x, t, nb = BATCHES[i]
        for row in range(x.shape[0]):
            keep = t[row] != IGNORE
            logits.append(x[row][keep])
            targets.append(t[row][keep])
        nbytes += nb
    return nlgmetrics.perplexity(logits, targets, num_bytes=nbytes, segments=True)


def _run(rank: int) -> list[str]:
    world = dist.get_world_size()
    mine = list(range(rank, len(BATCHES), world))
    order = [i for r in range(world) for i in range(r, len(BATCHES), world)]
    expected = _expected(order)
    failures: list[str] = []

    ours = nlgmetrics.torch.Perplexity(ignore_index=IGNORE, keep_segments=True)
    theirs = TMPerplexity(ignore_index=IGNORE).set_dtype(torch.float64)
    plain = nlgmetrics.Perplexity(ignore_index=IGNORE)
    for i in mine:
        x, t, nb = BATCHES[i]
        batch_value = ours(x, t, num_bytes=nb)  # forward: this batch only
        _close(failures, f"forward on batch {i}", batch_value, float(tm_perplexity(x, t, ignore_index=IGNORE)))
        theirs.update(x, t)
        plain.update(x, t, num_bytes=nb)
    final = ours.compute()
    result = ours.compute_result()
    _close(failures, "synced compute()", final, expected.score)
    _close(failures, "synced torchmetrics Perplexity", theirs.compute(), expected.score)
    _close(failures, "synced bits_per_byte", result.bits_per_byte, expected.bits_per_byte)
    _close(failures, "synced per-sequence perplexities (rank by rank)", result.segments, expected.segments)
    if (result.tokens, result.bytes, result.sequences) != (expected.tokens, expected.bytes, expected.sequences):
        failures.append(f"synced counts {result.tokens, result.bytes, result.sequences}")
    merged = sync_metric(plain).compute()
    _close(failures, "sync_metric(stateful).compute()", merged.score, expected.score)
    _close(failures, "sync_metric(stateful).bits_per_byte", merged.bits_per_byte, expected.bits_per_byte)
    return failures


SCENARIOS: dict[str, Callable[[int], list[str]]] = {"perplexity": _run}


@pytest.fixture(scope="module")
def ddp_report(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, list[str]]]:
    return run_scenarios(__name__, tmp_path_factory.mktemp("ddp"), world=WORLD_SIZE, timeout_s=120, group_timeout_s=30)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_two_gloo_processes_match_one_process_and_torchmetrics(ddp_report, scenario):
    assert not problems(ddp_report, scenario), problems(ddp_report, scenario)
