"""``nlgmetrics.torch.BLEUScore`` & co. against torchmetrics' classes of the same names, with the same arguments:
on the inputs of torchmetrics' own text tests (``tests/unittests/text/inputs.py``: the two-batch, multi-reference
corpus) and on hypothesis-generated text. torchmetrics computes in float32 where nlgmetrics keeps float64."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
tm_text = pytest.importorskip("torchmetrics.text")

import nlgmetrics.torch as ours  # noqa: E402

# torchmetrics tests/unittests/text/inputs.py: _inputs_multiple_references (two batches of two)
PREDS = [
    ["the cat is on the mat", "There is a big tree near the park here"],
    ["The sun is shining", "It is a guide to action which ensures that the military always obeys the commands"],
]
TARGETS = [
    [["there is a cat on the mat", "a cat is on the mat"], ["A big tree is growing near the park here"]],
    [
        ["The sun shines brightly", "the sun is out"],
        [
            "It is a guide to action that ensures that the military will forever heed Party commands",
            "It is the guiding principle which guarantees the military forces always being under the command",
        ],
    ],
]
CASES: list[tuple[str, dict[str, Any]]] = [
    ("BLEUScore", {}),
    ("BLEUScore", {"n_gram": 2, "smooth": True}),
    ("BLEUScore", {"weights": [0.4, 0.3, 0.2, 0.1], "smooth": True}),
    ("SacreBLEUScore", {}),
    ("SacreBLEUScore", {"tokenize": "intl", "lowercase": True}),
    ("CHRFScore", {}),
    ("CHRFScore", {"n_word_order": 0, "lowercase": True}),
    ("CHRFScore", {"whitespace": True, "beta": 1.0}),
    ("TranslationEditRate", {}),
    ("TranslationEditRate", {"normalize": True, "no_punctuation": True, "lowercase": False}),
    ("ROUGEScore", {"rouge_keys": ("rouge1", "rouge2", "rougeL")}),
    ("ROUGEScore", {"rouge_keys": ("rouge1", "rougeL"), "use_stemmer": True}),
]


def _run(cls: Any, kwargs: dict[str, Any], batches: list[tuple[list[str], list[list[str]]]]) -> dict[str, float]:
    metric = cls(**kwargs)
    for preds, targets in batches:
        metric.update(preds, targets)
    value = metric.compute()
    if isinstance(value, dict):
        return {k: float(v) for k, v in value.items()}
    return {"score": float(value)}


def _compare(name: str, kwargs: dict[str, Any], batches: list[tuple[list[str], list[list[str]]]]) -> float:
    theirs = _run(getattr(tm_text, name), kwargs, batches)
    mine = _run(getattr(ours, name), kwargs, batches)
    assert set(mine) == set(theirs), (sorted(mine), sorted(theirs))
    return max(abs(mine[k] - theirs[k]) for k in theirs)


@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_torchmetrics_test_inputs(name: str, kwargs: dict[str, Any]) -> None:
    worst = _compare(name, kwargs, list(zip(PREDS, TARGETS, strict=True)))
    print(f"{name} {kwargs}: max abs diff {worst:.3g}")
    assert worst < 1e-6


WORDS = st.sampled_from(["the", "cat", "sat", "on", "mat", "a", "dog", "東京", "猫", "ＡＢＣ", ",", "!", "..."])
SENTENCE = st.lists(WORDS, min_size=1, max_size=10).map(" ".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(SENTENCE, st.lists(SENTENCE, min_size=1, max_size=2)), min_size=1, max_size=5),
    st.sampled_from([c for c in CASES if c[0] != "ROUGEScore"]),
)
def test_hypothesis_inputs(pairs: list[tuple[str, list[str]]], case: tuple[str, dict[str, Any]]) -> None:
    preds = [p for p, _ in pairs]
    targets = [r for _, r in pairs]
    name, kwargs = case
    assert _compare(name, kwargs, [(preds, targets)]) < 1e-5


def test_unsupported_argument_names_the_nearest() -> None:
    with pytest.raises(Exception, match=r"argument 'n_grams' is not supported \(nearest supported: 'n_gram'\)"):
        ours.BLEUScore(n_grams=2)
    with pytest.raises(Exception, match="accumulate='avg' is not supported"):
        ours.ROUGEScore(accumulate="avg")
