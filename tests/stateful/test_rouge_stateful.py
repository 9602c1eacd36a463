"""ROUGE as a stateful metric, as a torchmetrics metric, and under DDP (two gloo processes on CPU).

The stateful classes hold the summed per-segment precision/recall/F of every type and the segment count; the
torch adapter holds them as float64 states with ``dist_reduce_fx="sum"`` and returns torchmetrics' ``ROUGEScore``
keys (``rouge1_fmeasure``, ...). The DDP scenarios follow ``test_ddp.py``: rank ``r`` takes batches ``r, r + 2,
...``; every ``forward`` value is compared with the functional result on its batch and the synced ``compute()``
with the functional result on all the data (in rank order where per-segment scores are kept).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import random
from typing import Any

import pytest

import nlgmetrics
from nlgmetrics import InvalidInputError
from nlgmetrics.stateful import ROUGE

# the Japanese segment is meant to be dropped by the ASCII tokenizers of some configurations
pytestmark = pytest.mark.filterwarnings("ignore:rouge. the .* tokenizer keeps only ASCII:UserWarning")

PREDS = [
    "the cat sat on the mat\nit was happy",
    "Good Morning",
    "",
    "今日は良い天気です",
    "police are investigating the reports",
    "Transformers are fast",
]
REFS = [
    ["a cat sat on a mat\nit purred", "the cat is on the mat"],
    "good morning to you",
    "nothing here",
    ["今日はいい天気", "良い天気ですね"],
    "the police investigated a report",
    ["Transformers are fast and efficient"],
]

OPTIONS: dict[str, dict[str, Any]] = {
    "default": {},
    "rouge-score-stem": {"preset": "rouge-score", "use_stemmer": True},
    "rouge155": {"preset": "rouge155", "use_stemmer": True, "rouge_types": ("rouge1", "rouge2", "rougeL", "rougeSU4")},
    "average-beta": {"multi_ref": "average", "beta": 2.0, "rouge_types": ("rouge2", "rougeLsum", "rougeW")},
}


def _split(options: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    opts = dict(options)
    return opts.pop("preset", None), opts


def _scores_close(got: dict[str, float], want: dict[str, float]) -> None:
    assert got.keys() == want.keys()
    for k in got:
        assert math.isclose(got[k], want[k], rel_tol=1e-12, abs_tol=1e-12), (k, got[k], want[k])


@pytest.mark.parametrize("name", list(OPTIONS))
@pytest.mark.parametrize("batch", [1, 2, 100])
def test_update_compute_equals_functional(name, batch):
    preset, opts = _split(OPTIONS[name])
    metric = ROUGE(preset, **opts)
    for i in range(0, len(PREDS), batch):
        metric.update(PREDS[i : i + batch], REFS[i : i + batch])
    expected = nlgmetrics.rouge(PREDS, REFS, preset=preset, **opts)
    result = metric.compute()
    _scores_close(result.score, expected.score)
    _scores_close(result.precision, expected.precision)
    assert result.signature == expected.signature
    assert result.count == len(PREDS)


WORKED_PREDS = [
    "Transformers Transformers are fast plus efficient",
    "Good Morning",
    "I am waiting for new Transformers",
]
WORKED_REFS = [
    [
        "HuggingFace Transformers are fast efficient plus awesome",
        "Transformers are awesome because they are fast to execute",
    ],
    ["Good Morning Transformers", "Morning Transformers"],
    ["People are eagerly waiting for new Transformer models", "People are very excited about new Transformers"],
]
WORKED = {
    "rouge1": 0.6659340659340659,
    "rouge2": 0.45454545454545453,
    "rougeL": 0.6146520146520146,
    "rougeLsum": 0.6146520146520146,
}


def test_worked_example_stateful():
    metric = ROUGE("rouge-score")
    metric.update(WORKED_PREDS[:1], WORKED_REFS[:1])
    metric.update(WORKED_PREDS[1:], WORKED_REFS[1:])
    assert metric.compute().score == WORKED


def test_forward_reset_merge_state_dict():
    metric = ROUGE("rouge-score", keep_segments=True)
    first = metric(PREDS[:3], REFS[:3])
    _scores_close(first.score, nlgmetrics.rouge(PREDS[:3], REFS[:3], preset="rouge-score").score)
    other = ROUGE("rouge-score", keep_segments=True)
    other.update(PREDS[3:], REFS[3:])
    metric.merge(other)
    full = nlgmetrics.rouge(PREDS, REFS, preset="rouge-score", segments=True)
    got = metric.compute()
    _scores_close(got.score, full.score)
    assert got.segments == full.segments
    state = json.loads(json.dumps(metric.state_dict()))
    restored = ROUGE("rouge-score", keep_segments=True)
    restored.load_state_dict(state)
    assert restored.compute() == got
    metric.reset()
    assert metric.compute().score == dict.fromkeys(full.score, 0.0)
    with pytest.raises(InvalidInputError, match="configurations differ"):
        ROUGE().merge(ROUGE("rouge-score"))
    with pytest.raises(InvalidInputError, match=r"cannot be loaded|was saved with"):
        ROUGE(rouge_types=["rouge1"]).load_state_dict(state)


def test_bootstrap_keeps_segments_in_the_stateful_metric():
    metric = ROUGE("rouge-score", bootstrap_samples=100, seed=1)
    assert metric.keep_segments
    metric.update(PREDS, REFS)
    metric.update(PREDS, REFS)
    expected = nlgmetrics.rouge(PREDS * 2, REFS * 2, preset="rouge-score", bootstrap_samples=100, seed=1)
    assert metric.compute().bootstrap == expected.bootstrap


def test_empty_updates_and_bad_input():
    metric = ROUGE()
    metric.update([], [])
    assert metric.compute().count == 0
    with pytest.raises(InvalidInputError, match="differ in length"):
        metric.update(["a", "b"], ["a"])
    with pytest.raises(InvalidInputError, match=r"references\[0\]\[1\]"):
        metric.update(["a"], [["a", None]])


# ---------------------------------------------------------------------------------------------------- torch adapter
torch = pytest.importorskip("torch")
torchmetrics = pytest.importorskip("torchmetrics")


import nlgmetrics.torch  # noqa: E402
from nlgmetrics.torch import sync_metric  # noqa: E402
from tests.stateful.ddp_harness import problems, run_scenarios  # noqa: E402


def _assert_dict(got: dict[str, Any], result: Any) -> None:
    want = result.headline_values()
    assert set(got) == set(want)
    for k, v in got.items():
        assert isinstance(v, torch.Tensor)
        assert v.dtype == torch.float64
        assert v.ndim == 0
        assert math.isclose(v.item(), want[k], rel_tol=1e-12, abs_tol=1e-12), k


def test_worked_example_torch():
    metric = nlgmetrics.torch.ROUGE("rouge-score")
    for i in range(3):
        metric.update(WORKED_PREDS[i : i + 1], WORKED_REFS[i : i + 1])
    out = metric.compute()
    assert {t: out[f"{t}_fmeasure"].item() for t in WORKED} == WORKED


@pytest.mark.parametrize("name", list(OPTIONS))
def test_torch_adapter_returns_torchmetrics_keys(name):
    preset, opts = _split(OPTIONS[name])
    metric = nlgmetrics.torch.ROUGE(preset, **opts)
    for i in range(0, len(PREDS), 4):
        batch = metric(PREDS[i : i + 4], REFS[i : i + 4])
        _assert_dict(batch, nlgmetrics.rouge(PREDS[i : i + 4], REFS[i : i + 4], preset=preset, **opts))
    expected = nlgmetrics.rouge(PREDS, REFS, preset=preset, **opts)
    _assert_dict(metric.compute(), expected)
    assert metric.compute_result().signature == expected.signature
    assert metric.precision.shape == (len(expected.score),)


@pytest.mark.filterwarnings("ignore:The ``compute`` method:UserWarning")  # loading a state is not an update
def test_torch_adapter_in_a_metric_collection_and_state_dict():
    collection = torchmetrics.MetricCollection(
        {"ours": nlgmetrics.torch.ROUGE("rouge-score", rouge_types=("rouge1", "rougeL"))}
    )
    collection.update(PREDS[:2], [r if isinstance(r, str) else r[0] for r in REFS[:2]])
    out = collection.compute()  # torchmetrics merges the keys of a metric that returns a dict
    assert set(out) == {f"{t}_{m}" for t in ("rouge1", "rougeL") for m in ("precision", "recall", "fmeasure")}
    assert (
        out["rouge1_fmeasure"].item()
        == nlgmetrics.rouge(
            PREDS[:2], [r if isinstance(r, str) else r[0] for r in REFS[:2]], preset="rouge-score"
        ).score["rouge1"]
    )
    metric = nlgmetrics.torch.ROUGE("rouge-score")
    metric.persistent(True)
    metric.update(PREDS, REFS)
    restored = nlgmetrics.torch.ROUGE("rouge-score")
    restored.persistent(True)
    restored.load_state_dict(metric.state_dict())
    _assert_dict(restored.compute(), metric.compute_result())


# ---------------------------------------------------------------------------------------------------- DDP
WORLD_SIZE = 2
TIMEOUT_S = 180


def _data() -> tuple[list[str], list[Any]]:
    rng = random.Random(7)
    vocab = ["the", "cat", "sat", "on", "mat", "dogs", "running", "ran", "police", "report", "東京", "天気", "über"]

    def sent() -> str:
        return " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 8)))

    preds, refs = [], []
    for i in range(40):
        preds.append("\n".join(sent() for _ in range(rng.randint(1, 3))) if i % 9 else "")
        r = ["\n".join(sent() for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3))]
        refs.append(r if len(r) > 1 or i % 2 else r[0])
    return preds, refs


DATA = _data()
BATCH = 3


@dataclasses.dataclass(frozen=True)
class Case:
    options: dict[str, Any]
    empty_rank: bool = False
    keep_segments: bool = False


CASES = {
    "default": Case({}),
    "rouge-score-stem": Case({"preset": "rouge-score", "use_stemmer": True}),
    "rouge155": Case({"preset": "rouge155", "use_stemmer": True, "rouge_types": ("rouge1", "rougeL", "rougeW")}),
    "empty-rank": Case({"rouge_types": ("rouge1", "rougeLsum")}, empty_rank=True),
    "segments": Case({"preset": "rouge-score"}, keep_segments=True),
}


def _shards(n: int, empty_rank: bool) -> list[list[tuple[int, int]]]:
    batches = [(i, min(i + BATCH, n)) for i in range(0, n, BATCH)]
    if empty_rank:
        return [batches, []]
    return [batches[r::WORLD_SIZE] for r in range(WORLD_SIZE)]


def _pick(idx: list[int]) -> tuple[list[str], list[Any]]:
    return [DATA[0][i] for i in idx], [DATA[1][i] for i in idx]


def _close(failures: list[str], what: str, got: dict[str, float], want: dict[str, float]) -> None:
    if got.keys() != want.keys() or not all(math.isclose(got[k], want[k], rel_tol=1e-12, abs_tol=1e-12) for k in got):
        failures.append(f"{what}: got {got}, expected {want}")


def _run(case: Case, rank: int) -> list[str]:
    preset, opts = _split(case.options)
    shards = _shards(len(DATA[0]), case.empty_rank)
    order = [i for batches in shards for a, b in batches for i in range(a, b)]
    failures: list[str] = []
    metric = nlgmetrics.torch.ROUGE(preset, keep_segments=case.keep_segments, **opts)
    plain = nlgmetrics.stateful.ROUGE(preset, keep_segments=case.keep_segments, **opts)
    for a, b in shards[rank]:
        batch = _pick(list(range(a, b)))
        got = {k: v.item() for k, v in metric(*batch).items()}
        _close(failures, f"forward {a}:{b}", got, nlgmetrics.rouge(*batch, preset=preset, **opts).headline_values())
        plain.update(*batch)
    metric.update([], [])
    expected = nlgmetrics.rouge(*_pick(order), preset=preset, segments=case.keep_segments, **opts)
    _close(failures, "synced compute()", {k: v.item() for k, v in metric.compute().items()}, expected.headline_values())
    result = metric.compute_result()
    if result.signature != expected.signature:
        failures.append("signature differs")
    if case.keep_segments and result.segments != expected.segments:
        failures.append(f"segments: {result.segments} != {expected.segments}")
    merged = sync_metric(plain).compute()
    _close(failures, "sync_metric", merged.headline_values(), expected.headline_values())
    if merged.count != len(order):
        failures.append(f"sync_metric count {merged.count}")
    return failures


SCENARIOS = {name: functools.partial(_run, case) for name, case in CASES.items()}


@pytest.fixture(scope="module")
def ddp_report(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, list[str]]]:
    return run_scenarios(
        __name__,
        tmp_path_factory.mktemp("rouge_ddp"),
        world=WORLD_SIZE,
        timeout_s=TIMEOUT_S,
        group_timeout_s=60,
    )


@pytest.mark.parametrize("scenario", list(CASES))
def test_two_gloo_processes_match_one_process(ddp_report: dict[int, dict[str, list[str]]], scenario: str) -> None:
    found = problems(ddp_report, scenario)
    assert not found, found


def test_the_ddp_data_has_multi_reference_and_multi_sentence_segments() -> None:
    assert any(isinstance(r, list) and len(r) > 1 for r in DATA[1])
    assert any("\n" in p for p in DATA[0])
    assert "" in DATA[0]
