"""Stateful BLEU, chrF and TER; their torchmetrics adapters; and two gloo processes giving one process's numbers.

The DDP part follows ``test_ddp.py``: the data is cut into batches of 4, rank ``r`` takes batches ``r, r + 2, …``,
every ``forward`` is compared with the functional result on its batch and the synced result with the functional
result on all the data (per-segment scores in rank order). The two processes are started once for the module.
"""

from __future__ import annotations

import functools
import json
import math
import random
from collections.abc import Callable
from typing import Any

import pytest

import nlgmetrics
import nlgmetrics.stateful
from nlgmetrics import InvalidInputError
from tests.stateful.ddp_harness import problems, run_scenarios


def _make_data() -> tuple[list[str], list[Any]]:
    rng = random.Random(20240611)
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", ",", ".", "über", "日本", "42"]

    def sentence(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n))

    refs: list[Any] = []
    preds = []
    for i in range(50):
        ref = [sentence(rng.randint(1, 10)) for _ in range(rng.randint(1, 3))]
        refs.append(ref if len(ref) > 1 or i % 2 else ref[0])
        base = ref[0].split()
        pred = [w if rng.random() < 0.7 else rng.choice(words) for w in base]
        preds.append(" ".join(pred) if i % 9 else "")
    return preds, refs


PREDS, REFS = _make_data()

# (class name, function name, options)
CASES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "bleu": ("BLEU", "bleu", {}),
    "bleu-nltk": ("BLEU", "bleu", {"preset": "nltk", "smoothing": "method3"}),
    "bleu-moses": ("BLEU", "bleu", {"preset": "moses"}),
    "chrf": ("CHRF", "chrf", {}),
    "chrf++": ("CHRF", "chrf", {"preset": "chrf++"}),
    "ter": ("TER", "ter", {"normalized": True}),
}


def _split(options: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    opts = dict(options)
    return opts.pop("preset", None), opts


def _close(a: float, b: float) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-12)


# ---------------------------------------------------------------------------------------------- stateful
@pytest.mark.parametrize("case", list(CASES))
def test_update_compute_reset_merge_state_dict(case):
    cls_name, fn_name, options = CASES[case]
    cls = getattr(nlgmetrics.stateful, cls_name)
    fn = getattr(nlgmetrics, fn_name)
    preset, opts = _split(options)
    expected = fn(PREDS, REFS, **options, segments=True)
    metric = cls(preset, keep_segments=True, **opts)
    for lo in range(0, len(PREDS), 7):
        metric.update(PREDS[lo : lo + 7], REFS[lo : lo + 7])
    metric.update([], [])
    got = metric.compute()
    assert _close(got.score, expected.score)
    assert got.signature == expected.signature
    assert got.segments == pytest.approx(expected.segments, rel=1e-12, abs=1e-12)
    restored = cls(preset, keep_segments=True, **opts)
    restored.load_state_dict(json.loads(json.dumps(metric.state_dict())))
    assert _close(restored.compute().score, expected.score)
    a, b = cls(preset, **opts), cls(preset, **opts)
    a.update(PREDS[:20], REFS[:20])
    b.update(PREDS[20:], REFS[20:])
    assert _close(a.merge(b).compute().score, expected.score)
    metric.reset()
    assert metric.compute().score == 0.0


def test_nltk_last_sentence_smoothing_in_the_stateful_metric():
    expected = nlgmetrics.bleu(PREDS, REFS, preset="nltk", smoothing="method7").score
    metric = nlgmetrics.stateful.BLEU("nltk", smoothing="method7")
    for lo in range(0, len(PREDS), 6):
        metric.update(PREDS[lo : lo + 6], REFS[lo : lo + 6])
    assert metric.compute().score == expected


def test_merge_refuses_other_settings():
    with pytest.raises(InvalidInputError, match="configurations differ"):
        nlgmetrics.stateful.BLEU().merge(nlgmetrics.stateful.BLEU(tokenizer="zh"))


# ---------------------------------------------------------------------------------------------- torch adapter
@pytest.mark.parametrize("case", list(CASES))
def test_torch_adapter(case):
    pytest.importorskip("torchmetrics")
    import torch

    import nlgmetrics.torch

    cls_name, fn_name, options = CASES[case]
    cls = getattr(nlgmetrics.torch, cls_name)
    fn = getattr(nlgmetrics, fn_name)
    preset, opts = _split(options)
    metric = cls(preset, **opts)
    for lo in range(0, len(PREDS), 8):
        batch = metric(PREDS[lo : lo + 8], REFS[lo : lo + 8])
        assert _close(batch, fn(PREDS[lo : lo + 8], REFS[lo : lo + 8], **options).score)
    value = metric.compute()
    assert value.dtype == torch.float64
    assert value.ndim == 0
    assert _close(value, fn(PREDS, REFS, **options).score)
    assert metric.compute_result().signature == fn(PREDS, REFS, **options).signature


def test_torch_adapter_keeps_nltk_last_sentence_over_updates():
    pytest.importorskip("torchmetrics")
    import nlgmetrics.torch

    options = {"preset": "nltk", "smoothing": "method5"}
    metric = nlgmetrics.torch.BLEU(**options)
    metric.update(PREDS[:10], REFS[:10])
    assert _close(metric.compute(), nlgmetrics.bleu(PREDS[:10], REFS[:10], **options).score)
    metric.update(PREDS[10:], REFS[10:])
    metric.update([], [])  # an empty batch keeps the last sentence it had
    assert _close(metric.compute(), nlgmetrics.bleu(PREDS, REFS, **options).score)
    later = metric(PREDS[:3], REFS[:3])  # forward: this batch's number, then its last sentence is the state's
    assert _close(later, nlgmetrics.bleu(PREDS[:3], REFS[:3], **options).score)
    assert _close(metric.compute(), nlgmetrics.bleu(PREDS + PREDS[:3], REFS + REFS[:3], **options).score)


# ---------------------------------------------------------------------------------------------- DDP
WORLD_SIZE = 2
BATCH_SIZE = 4
TIMEOUT_S = 120


def _shards(n: int) -> list[list[tuple[int, int]]]:
    batches = [(i, min(i + BATCH_SIZE, n)) for i in range(0, n, BATCH_SIZE)]
    return [batches[r::WORLD_SIZE] for r in range(WORLD_SIZE)]


def _rank_order(shards: list[list[tuple[int, int]]]) -> list[int]:
    return [i for rank in shards for lo, hi in rank for i in range(lo, hi)]


def _pick(idx: list[int]) -> tuple[list[str], list[Any]]:
    return [PREDS[i] for i in idx], [REFS[i] for i in idx]


def _run_adapter(case: str, rank: int, keep_segments: bool) -> list[str]:
    import nlgmetrics.torch

    cls_name, fn_name, options = CASES[case]
    cls = getattr(nlgmetrics.torch, cls_name)
    fn = getattr(nlgmetrics, fn_name)
    preset, opts = _split(options)
    shards = _shards(len(PREDS))
    failures: list[str] = []
    metric = cls(preset, keep_segments=keep_segments, **opts)
    for lo, hi in shards[rank]:
        got = metric(*_pick(list(range(lo, hi))))
        want = fn(*_pick(list(range(lo, hi))), **options).score
        if not _close(got, want):
            failures.append(f"forward {lo}:{hi}: {got} != {want}")
    final = metric.compute()
    result = metric.compute_result()
    expected = fn(*_pick(_rank_order(shards)), **options, segments=True)
    if not _close(final, expected.score) or not _close(result.score, expected.score):
        failures.append(f"synced: {final} / {result.score} != {expected.score}")
    if result.signature != expected.signature:
        failures.append(f"signature {result.signature} != {expected.signature}")
    if keep_segments and result.segments != pytest.approx(expected.segments, rel=1e-12, abs=1e-12):
        failures.append(f"segments {result.segments} != {expected.segments}")
    return failures


def _run_plain(case: str, rank: int) -> list[str]:
    from nlgmetrics.torch.distributed import sync_metric

    cls_name, fn_name, options = CASES[case]
    cls = getattr(nlgmetrics.stateful, cls_name)
    fn = getattr(nlgmetrics, fn_name)
    preset, opts = _split(options)
    shards = _shards(len(PREDS))
    metric = cls(preset, **opts)
    for lo, hi in shards[rank]:
        metric.update(*_pick(list(range(lo, hi))))
    merged = sync_metric(metric)
    expected = fn(*_pick(_rank_order(shards)), **options)
    got = merged.compute()
    failures = []
    if not _close(got.score, expected.score):
        failures.append(f"sync_metric: {got.score} != {expected.score}")
    return failures


SCENARIOS: dict[str, Callable[[int], list[str]]] = {
    **{f"adapter-{c}": functools.partial(_run_adapter, c, keep_segments=False) for c in CASES},
    "adapter-bleu-segments": functools.partial(_run_adapter, "bleu", keep_segments=True),
    "adapter-chrf-segments": functools.partial(_run_adapter, "chrf", keep_segments=True),
    **{f"sync_metric-{c}": functools.partial(_run_plain, c) for c in ("bleu", "chrf++", "ter")},
}


@pytest.fixture(scope="module")
def ddp_report(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, list[str]]]:
    pytest.importorskip("torch")
    pytest.importorskip("torchmetrics")
    return run_scenarios(
        __name__,
        tmp_path_factory.mktemp("ddp_bleu"),
        world=WORLD_SIZE,
        timeout_s=TIMEOUT_S,
        group_timeout_s=30,
    )


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_two_gloo_processes_match_one_process(ddp_report: dict[int, dict[str, list[str]]], scenario: str) -> None:
    found = problems(ddp_report, scenario)
    assert not found, found
