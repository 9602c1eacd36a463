"""DDP: two gloo processes on CPU give the single-process results.

In the style of torchmetrics' ``_class_test`` (``tests/unittests/text/_helpers.py``): the data is cut into
batches, rank ``r`` takes batches ``r, r + 2, r + 4, …``, every ``forward`` value is compared with the functional
result on that batch, and the synced ``compute()`` with the functional result on all the data. Per-segment
scores (``reduction=None``) come back rank by rank, as torchmetrics gathers its ``cat`` states, so they are
compared with the functional result on the data in that order.

The two processes are started once for the module; each runs every scenario and reports the failed checks, and
one test per scenario reads the report. Comparisons happen after the collectives, so a failed check never leaves
the other rank waiting.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")

import torch.distributed as dist  # noqa: E402

import nlgmetrics  # noqa: E402
import nlgmetrics.stateful  # noqa: E402
import nlgmetrics.torch  # noqa: E402
from nlgmetrics.torch.distributed import all_gather_rows, all_reduce_stats, sync_metric  # noqa: E402
from tests.stateful.ddp_harness import problems, run_scenarios  # noqa: E402

WORLD_SIZE = 2
BATCH_SIZE = 4
TIMEOUT_S = 120

if not (dist.is_available() and dist.is_gloo_available()):
    pytest.skip("torch.distributed with the gloo backend is not available in this torch build", allow_module_level=True)


# ---------------------------------------------------------------------- data: 50 pairs of each kind
def _make_data() -> dict[str, tuple[list[str], list[Any]]]:
    rng = random.Random(20240601)
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "über", "straße", "café", "42", "12/15/89", "Paris"]

    def sentence(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n))

    def perturb(text: str) -> str:
        chars = list(text)
        for _ in range(rng.randint(0, 3)):
            op = rng.random()
            pos = rng.randint(0, len(chars))
            if op < 0.4 and chars:
                del chars[min(pos, len(chars) - 1)]
            elif op < 0.7:
                chars.insert(pos, rng.choice("abcxyz "))
            elif chars:
                chars[min(pos, len(chars) - 1)] = rng.choice("abcxyz")
        return "".join(chars)

    asr_refs = [sentence(rng.randint(1, 8)) for _ in range(50)]
    asr_preds = [perturb(r) if i % 7 else "" for i, r in enumerate(asr_refs)]
    qa_refs: list[Any] = []
    qa_preds: list[str] = []
    for i in range(50):
        answers = [sentence(rng.randint(1, 3)) for _ in range(rng.randint(1, 3))]
        if i % 5 == 0:
            answers[0] = "  " + answers[0].upper() + " "  # raw vs normalised lengths differ
        qa_refs.append(answers if len(answers) > 1 or i % 2 else answers[0])
        target = rng.choice(answers)
        qa_preds.append(perturb(target) if i % 9 else sentence(2))
    return {"asr": (asr_preds, asr_refs), "qa": (qa_preds, qa_refs)}


DATA = _make_data()


def _shards(n: int, world: int, *, empty_rank: bool) -> list[list[tuple[int, int]]]:
    """Batches ``(start, stop)`` of each rank: batch ``i`` goes to rank ``i % world`` (all to rank 0 with
    ``empty_rank``, so that rank 1 syncs without ever having seen a segment)."""
    batches = [(i, min(i + BATCH_SIZE, n)) for i in range(0, n, BATCH_SIZE)]
    if empty_rank:
        return [batches] + [[] for _ in range(world - 1)]
    return [batches[r::world] for r in range(world)]


def _rank_order(shards: list[list[tuple[int, int]]]) -> list[int]:
    return [i for rank_batches in shards for start, stop in rank_batches for i in range(start, stop)]


def _pick(data: tuple[list[str], list[Any]], idx: list[int]) -> tuple[list[str], list[Any]]:
    preds, refs = data
    return [preds[i] for i in idx], [refs[i] for i in idx]


def _values(x: Any) -> list[float]:
    if isinstance(x, torch.Tensor):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [float(v) for v in x]
    return [float(x)]


def _check(failures: list[str], what: str, got: Any, expected: Any) -> None:
    g, e = _values(got), _values(expected)
    if len(g) != len(e) or not all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12) for a, b in zip(g, e, strict=True)):
        failures.append(f"{what}: got {got!r}, expected {expected!r}")


# ---------------------------------------------------------------------- scenarios
@dataclasses.dataclass(frozen=True)
class Case:
    metric: str  # class name, in nlgmetrics.torch and nlgmetrics.stateful
    function: str  # nlgmetrics.<function>
    data: str
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    empty_rank: bool = False

    @property
    def per_segment(self) -> bool:
        return self.options.get("reduction", "mean") in (None, "none")


def _run_adapter(case: Case, rank: int, world: int) -> list[str]:
    cls = getattr(nlgmetrics.torch, case.metric)
    fn: Callable[..., Any] = getattr(nlgmetrics, case.function)
    data = DATA[case.data]
    shards = _shards(len(data[0]), world, empty_rank=case.empty_rank)
    failures: list[str] = []
    metric = cls(**case.options)
    local: list[int] = []
    for start, stop in shards[rank]:
        idx = list(range(start, stop))
        local += idx
        got = metric(*_pick(data, idx))  # forward: this batch only, no sync
        _check(failures, f"forward on batch {start}:{stop}", got, fn(*_pick(data, idx), **case.options).score)
        if got.ndim != (1 if case.per_segment else 0):
            failures.append(f"forward on batch {start}:{stop}: shape {tuple(got.shape)}")
    metric.update([], [])  # an empty batch changes nothing, on every rank
    final = metric.compute()  # synced
    result = metric.compute_result()  # synced
    local_count = metric.stats.to_dict().get("count")  # after compute: the local state again

    expected = fn(*_pick(data, _rank_order(shards)), **case.options)
    _check(failures, "synced compute()", final, expected.score)
    _check(failures, "synced compute_result().score", result.score, expected.score)
    if result.signature != expected.signature:
        failures.append(f"signature {result.signature!r} != {expected.signature!r}")
    for key, value in expected.to_dict().items():
        if isinstance(value, (int, float)) and key != "score":
            _check(failures, f"synced result.{key}", getattr(result, key), value)
    if final.ndim != (1 if case.per_segment else 0) or final.dtype != torch.float64:
        failures.append(f"synced compute(): shape {tuple(final.shape)}, dtype {final.dtype}")
    if local_count is not None and local_count != len(local):
        failures.append(f"after compute() the local state holds {local_count} segments, not {len(local)}")
    return failures


def _run_plain_sync(case: Case, rank: int, world: int) -> list[str]:
    cls = getattr(nlgmetrics.stateful, case.metric)
    fn: Callable[..., Any] = getattr(nlgmetrics, case.function)
    data = DATA[case.data]
    shards = _shards(len(data[0]), world, empty_rank=case.empty_rank)
    metric = cls(**case.options)
    for start, stop in shards[rank]:
        metric.update(*_pick(data, list(range(start, stop))))
    before = metric.state_dict()
    merged = sync_metric(metric)
    summed = all_reduce_stats(metric.stats)

    failures: list[str] = []
    expected = fn(*_pick(data, _rank_order(shards)), **case.options)
    got = merged.compute()
    _check(failures, "sync_metric(...).compute().score", got.score, expected.score)
    if isinstance(expected.score, tuple) != isinstance(got.score, tuple):
        failures.append(f"score type {type(got.score)} != {type(expected.score)}")
    if got.signature != expected.signature:
        failures.append(f"signature {got.signature!r} != {expected.signature!r}")
    if summed != merged.stats:
        failures.append(f"all_reduce_stats gave {summed}, sync_metric holds {merged.stats}")
    if [type(v) for v in summed.to_dict().values()] != [type(v) for v in metric.stats.to_dict().values()]:
        failures.append(f"all_reduce_stats changed field types: {summed} vs {metric.stats}")
    if metric.state_dict() != before:
        failures.append("sync_metric modified the metric it was given")
    if merged is metric:
        failures.append("sync_metric returned the metric it was given")
    return failures


def _run_all_gather_rows(rank: int, world: int) -> list[str]:
    rows = torch.arange(6 * (rank + 1), dtype=torch.float64).reshape(-1, 2) + 100 * rank  # 3 rows, then 6
    gathered = all_gather_rows(rows)
    expected = torch.cat(
        [torch.arange(6 * (r + 1), dtype=torch.float64).reshape(-1, 2) + 100 * r for r in range(world)]
    )
    return [] if torch.equal(gathered, expected) else [f"all_gather_rows gave {gathered}, expected {expected}"]


ADAPTER_CASES: dict[str, Case] = {
    "nls-none": Case("NormalizedLevenshteinSimilarity", "nls", "qa", {"reduction": None}),
    "nls-mean": Case("NormalizedLevenshteinSimilarity", "nls", "qa"),
    "nls-sum-sub2": Case("NormalizedLevenshteinSimilarity", "nls", "qa", {"reduction": "sum", "substitution_cost": 2}),
    "edit-none": Case("EditDistance", "edit_distance", "qa", {"reduction": "none"}),
    "edit-mean": Case("EditDistance", "edit_distance", "asr"),
    "cer": Case("CharErrorRate", "cer", "asr", {"preset": "torchmetrics"}),
    "wer": Case("WordErrorRate", "wer", "asr", {"preset": "torchmetrics"}),
    "anls-docvqa": Case("ANLS", "anls", "qa"),
    "anls-pkg": Case("ANLS", "anls", "qa", {"preset": "anls-pkg"}),
    "nls-none-empty-rank": Case("NormalizedLevenshteinSimilarity", "nls", "qa", {"reduction": None}, True),
    "wer-empty-rank": Case("WordErrorRate", "wer", "asr", {"preset": "jiwer"}, True),
    # NIST's statistics carry a table of n-gram counts, gathered (cat) rather than summed
    "nist-nltk": Case("NIST", "nist", "qa"),
    "nist-mteval": Case("NIST", "nist", "asr", {"preset": "mteval-13a"}),
    "nist-empty-rank": Case("NIST", "nist", "qa", {}, True),
    # CIDEr's statistics carry records (document frequencies need the whole corpus): gathered as bytes
    "cider": Case("CIDEr", "cider", "qa"),
    "cider-empty-rank": Case("CIDEr", "cider", "qa", {"preset": "cider"}, True),
    # NLTK's smoothing 5 reads the last segment: kept over updates and forward, the last rank's after a sync
    "bleu-method5": Case("BLEU", "bleu", "asr", {"preset": "nltk", "smoothing": "method5"}),
    "bleu-method5-empty-rank": Case("BLEU", "bleu", "asr", {"preset": "nltk", "smoothing": "method5"}, True),
}
PLAIN_CASES: dict[str, Case] = {
    "nls-none": Case("NormalizedLevenshteinSimilarity", "nls", "qa", {"reduction": None}),
    "nls-mean": Case("NormalizedLevenshteinSimilarity", "nls", "qa"),
    "wer": Case("WordErrorRate", "wer", "asr"),
    "cer": Case("CharErrorRate", "cer", "asr"),
    "anls": Case("ANLS", "anls", "qa"),
    "edit-none-empty-rank": Case("EditDistance", "edit_distance", "qa", {"reduction": None}, True),
    "nist-nltk": Case("NIST", "nist", "qa"),
    "nist-mteval-empty-rank": Case("NIST", "nist", "asr", {"preset": "mteval-13a"}, True),
    "cider": Case("CIDEr", "cider", "qa"),
    "cider-empty-rank": Case("CIDEr", "cider", "qa", {}, True),
    # NLTK's smoothing 5 reads the last segment (kept, not summed): the last rank's that holds one
    "bleu-method5": Case("BLEU", "bleu", "asr", {"preset": "nltk", "smoothing": "method5"}),
    "bleu-method5-empty-rank": Case("BLEU", "bleu", "asr", {"preset": "nltk", "smoothing": "method5"}, True),
}
SCENARIOS: dict[str, Callable[[int], list[str]]] = {
    **{f"adapter-{k}": functools.partial(_run_adapter, c, world=WORLD_SIZE) for k, c in ADAPTER_CASES.items()},
    **{f"sync_metric-{k}": functools.partial(_run_plain_sync, c, world=WORLD_SIZE) for k, c in PLAIN_CASES.items()},
    "all_gather_rows": functools.partial(_run_all_gather_rows, world=WORLD_SIZE),
}


@pytest.fixture(scope="module")
def ddp_report(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, list[str]]]:
    return run_scenarios(
        __name__,
        tmp_path_factory.mktemp("ddp"),
        world=WORLD_SIZE,
        timeout_s=TIMEOUT_S,
        group_timeout_s=30,
    )


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_two_gloo_processes_match_one_process(ddp_report: dict[int, dict[str, list[str]]], scenario: str) -> None:
    found = problems(ddp_report, scenario)
    assert not found, found


def test_shards_cover_the_data_once() -> None:
    n = len(DATA["qa"][0])
    for empty_rank in (False, True):
        shards = _shards(n, WORLD_SIZE, empty_rank=empty_rank)
        assert sorted(_rank_order(shards)) == list(range(n))
    assert n >= 50
    assert any(isinstance(r, list) and len(r) > 1 for r in DATA["qa"][1])  # multi-reference ANLS segments


def test_helpers_without_a_process_group_are_identities() -> None:
    assert not dist.is_initialized()
    metric = nlgmetrics.stateful.NormalizedLevenshteinSimilarity(reduction=None)
    metric.update(["rain", "lnaguaeg"], ["shine", "language"])
    synced = sync_metric(metric)
    assert synced is not metric
    assert synced.compute() == metric.compute()
    assert all_reduce_stats(metric.stats) == metric.stats
    rows = torch.ones(3, 2, dtype=torch.float64)
    assert all_gather_rows(rows) is rows
