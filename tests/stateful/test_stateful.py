"""The plain, torch-free stateful Metric: update / compute / reset / merge / state_dict / forward."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

import nlgmetrics
from nlgmetrics import InvalidInputError
from nlgmetrics.stateful import (
    ANLS,
    CharErrorRate,
    EditDistance,
    Metric,
    NormalizedLevenshteinSimilarity,
    WordErrorRate,
)

PREDS = ["rain", "lnaguaeg", "hello world", "", "kitten sat", "the cat sat on the mat", "ab", "été"]
REFS = ["shine", "language", "hello there world", "x", "sitting cat", "a cat sat on a mat", "", "ete"]

ANLS_PREDS = ["Denver Broncos", "12/15/89", " the answer ", "", "42", "Paris"]
ANLS_REFS = [
    ["denver broncos", "Denver R. Broncos"],
    ["12/15/88"],
    ["The  Answer", "answer"],
    ["nothing"],
    ["42", "forty two", "fourty-two"],
    "paris, france",
]

# (stateful class, functional, options, predictions, references)
CASES: dict[str, tuple[type[Metric[Any, Any, Any]], Any, dict[str, Any], list[str], list[Any]]] = {
    "nls-mean": (NormalizedLevenshteinSimilarity, nlgmetrics.nls, {}, PREDS, REFS),
    "nls-none": (NormalizedLevenshteinSimilarity, nlgmetrics.nls, {"reduction": None}, PREDS, REFS),
    "nls-sum-sub2": (
        NormalizedLevenshteinSimilarity,
        nlgmetrics.nls,
        {"reduction": "sum", "substitution_cost": 2},
        PREDS,
        REFS,
    ),
    "edit-mean": (EditDistance, nlgmetrics.edit_distance, {}, PREDS, REFS),
    "edit-none": (EditDistance, nlgmetrics.edit_distance, {"reduction": "none"}, PREDS, REFS),
    "cer": (CharErrorRate, nlgmetrics.cer, {}, PREDS, REFS),
    "wer": (WordErrorRate, nlgmetrics.wer, {}, PREDS, REFS),
    "anls": (ANLS, nlgmetrics.anls, {}, ANLS_PREDS, ANLS_REFS),
    "anls-pkg": (ANLS, nlgmetrics.anls, {"preset": "anls-pkg"}, ANLS_PREDS, ANLS_REFS),
}


def _split(options: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    opts = dict(options)
    return opts.pop("preset", None), opts


def _make(cls: type[Metric[Any, Any, Any]], options: dict[str, Any], **extra: Any) -> Metric[Any, Any, Any]:
    preset, opts = _split(options)
    return cls(preset, **opts, **extra)


def _functional(fn: Any, options: dict[str, Any], preds: list[str], refs: list[Any], **extra: Any) -> Any:
    preset, opts = _split(options)
    if preset is not None:
        opts["preset"] = preset
    return fn(preds, refs, **opts, **extra)


def _assert_same_score(got: Any, expected: Any) -> None:
    if isinstance(expected, tuple):
        assert isinstance(got, tuple)
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    else:
        assert float(got) == pytest.approx(float(expected), rel=1e-12, abs=1e-12)


def _batches(preds: list[str], refs: list[Any], size: int) -> list[tuple[list[str], list[Any]]]:
    return [(preds[i : i + size], refs[i : i + size]) for i in range(0, len(preds), size)]


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("batch_size", [1, 3, 100])
def test_update_compute_equals_functional(case: str, batch_size: int) -> None:
    cls, fn, options, preds, refs = CASES[case]
    metric = _make(cls, options)
    for p, r in _batches(preds, refs, batch_size):
        metric.update(p, r)
    got = metric.compute()
    expected = _functional(fn, options, preds, refs)
    _assert_same_score(got.score, expected.score)
    assert got.signature == expected.signature


def test_seed_example() -> None:
    metric = NormalizedLevenshteinSimilarity(reduction=None)
    metric.update(["rain", "lnaguaeg"], ["shine", "language"])
    assert metric.compute().score == pytest.approx((0.4, 0.5))
    mean = NormalizedLevenshteinSimilarity()
    mean.update(["rain", "lnaguaeg"], ["shine", "language"])
    assert float(mean.compute()) == pytest.approx(0.45)


@pytest.mark.parametrize("case", list(CASES))
def test_keep_segments_gives_segment_scores(case: str) -> None:
    cls, fn, options, preds, refs = CASES[case]
    metric = _make(cls, options, keep_segments=True)
    for p, r in _batches(preds, refs, 2):
        metric.update(p, r)
    got = metric.compute()
    expected = _functional(fn, options, preds, refs, segments=True)
    assert got.segments == pytest.approx(expected.segments, rel=1e-12, abs=1e-12)
    assert len(got.segments) == len(preds)


@pytest.mark.parametrize("case", list(CASES))
def test_reset_forgets_everything(case: str) -> None:
    cls, fn, options, preds, refs = CASES[case]
    metric = _make(cls, options)
    metric.update(preds[:3], refs[:3])
    metric.reset()
    metric.update(preds[3:], refs[3:])
    _assert_same_score(metric.compute().score, _functional(fn, options, preds[3:], refs[3:]).score)
    metric.reset()
    assert metric.stats == metric.family.zero(metric.config)


@pytest.mark.parametrize("case", list(CASES))
def test_merge_equals_one_metric_on_all_data(case: str) -> None:
    cls, fn, options, preds, refs = CASES[case]
    a, b, c = (_make(cls, options) for _ in range(3))
    a.update(preds[:2], refs[:2])
    b.update(preds[2:5], refs[2:5])
    c.update(preds[5:], refs[5:])
    merged = a.merge(b, c)
    assert merged is a
    whole = _make(cls, options)
    whole.update(preds, refs)
    _assert_same_score(merged.compute().score, whole.compute().score)
    _assert_same_score(merged.compute().score, _functional(fn, options, preds, refs).score)
    # b and c are unchanged
    _assert_same_score(b.compute().score, _functional(fn, options, preds[2:5], refs[2:5]).score)


def test_merge_order_of_segments_follows_merge_order() -> None:
    a = NormalizedLevenshteinSimilarity(reduction=None)
    b = NormalizedLevenshteinSimilarity(reduction=None)
    a.update(PREDS[:3], REFS[:3])
    b.update(PREDS[3:], REFS[3:])
    expected = nlgmetrics.nls(PREDS, REFS, reduction=None).score
    assert a.merge(b).compute().score == pytest.approx(expected)


def test_merge_of_different_configs_raises() -> None:
    a = NormalizedLevenshteinSimilarity()
    with pytest.raises(InvalidInputError, match="configurations differ"):
        a.merge(NormalizedLevenshteinSimilarity(substitution_cost=2))
    with pytest.raises(InvalidInputError, match="configurations differ"):
        a.merge(NormalizedLevenshteinSimilarity(reduction="sum"))
    with pytest.raises(InvalidInputError):
        CharErrorRate().merge(WordErrorRate())  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        ANLS().merge(ANLS("anls-pkg"))


def test_merge_without_segments_into_one_with_segments_raises() -> None:
    keep = NormalizedLevenshteinSimilarity(keep_segments=True)
    plain = NormalizedLevenshteinSimilarity()
    plain.update(["a"], ["b"])
    with pytest.raises(InvalidInputError, match="per-segment"):
        keep.merge(plain)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("via_json", [False, True])
def test_state_dict_round_trip(case: str, via_json: bool) -> None:
    cls, _fn, options, preds, refs = CASES[case]
    metric = _make(cls, options, keep_segments=True)
    metric.update(preds[:4], refs[:4])
    state = metric.state_dict()
    if via_json:
        state = json.loads(json.dumps(state))
    restored = _make(cls, options, keep_segments=True)
    restored.load_state_dict(state)
    assert restored.stats == metric.stats
    assert restored.compute() == metric.compute()
    # and it keeps accumulating like the original
    metric.update(preds[4:], refs[4:])
    restored.update(preds[4:], refs[4:])
    assert restored.compute() == metric.compute()


def test_load_state_dict_checks_family_and_config() -> None:
    state = NormalizedLevenshteinSimilarity().state_dict()
    with pytest.raises(InvalidInputError):
        EditDistance().load_state_dict(state)
    with pytest.raises(InvalidInputError):
        NormalizedLevenshteinSimilarity(substitution_cost=3).load_state_dict(state)


@pytest.mark.parametrize("case", list(CASES))
def test_forward_returns_the_batch_result_and_accumulates(case: str) -> None:
    cls, fn, options, preds, refs = CASES[case]
    metric = _make(cls, options)
    for p, r in _batches(preds, refs, 3):
        batch_result = metric(p, r)
        _assert_same_score(batch_result.score, _functional(fn, options, p, r).score)
    _assert_same_score(metric.compute().score, _functional(fn, options, preds, refs).score)


def test_compute_with_no_samples() -> None:
    assert NormalizedLevenshteinSimilarity().compute().score == 0.0
    assert NormalizedLevenshteinSimilarity(reduction=None).compute().score == ()
    assert EditDistance().compute().score == 0.0
    assert ANLS().compute().score == 0.0
    assert WordErrorRate().compute().score == 0.0
    assert CharErrorRate().compute().score == 0.0


def test_empty_update_is_allowed_and_changes_nothing() -> None:
    metric = NormalizedLevenshteinSimilarity(reduction=None)
    metric.update([], [])
    assert metric.compute().score == ()
    metric.update(["rain", "lnaguaeg"], ["shine", "language"])
    metric.update([], [])
    assert metric.compute().score == pytest.approx((0.4, 0.5))
    assert metric.forward([], []).score == ()


def test_bad_input_raises_and_leaves_the_state_alone() -> None:
    metric = NormalizedLevenshteinSimilarity()
    metric.update(["rain"], ["shine"])
    before = metric.stats
    with pytest.raises(InvalidInputError):
        metric.update(["a", "b"], ["a"])
    with pytest.raises(InvalidInputError):
        metric.update([None], ["a"])
    assert metric.stats == before


def test_stateful_api_needs_no_torch() -> None:
    code = (
        "import sys\n"
        "sys.modules['torch'] = None\n"
        "sys.modules['torchmetrics'] = None\n"
        "from nlgmetrics import NormalizedLevenshteinSimilarity as N\n"
        "m = N(reduction=None)\n"
        "m.update(['rain', 'lnaguaeg'], ['shine', 'language'])\n"
        "print(m.compute().score)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(0.4, 0.5)"
