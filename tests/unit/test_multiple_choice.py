"""Multiple-choice accuracy: against a restatement of lm-evaluation-harness's ``process_results`` on generated
log-likelihoods (ties, CJK and full-width choices, several golds, -inf), and its errors. The real package's own
numbers on its own logs are in ``test_eval_logs.py``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.multiple_choice import MULTIPLE_CHOICE


def lm_eval_process_results(lls, gold, choices, unconditional=None):  # type: ignore[no-untyped-def]
    """The numeric part of ``ConfigurableTask.process_results`` for ``multiple_choice`` (lm-evaluation-harness
    0.4.13, ``lm_eval/api/task.py``, MIT licence), restated for this test: argmax of the log-likelihoods, of their
    ratio to the choices' lengths in characters and in bytes, and of their difference to the unconditional ones;
    ``pred in gold`` for a list of golds."""
    completion_len = np.array([float(len(i)) for i in choices])
    byte_length = np.array([float(len(i.encode("utf-8"))) for i in choices])
    lls = tuple(lls)
    pred = np.argmax(lls)
    pred_norm = np.argmax(lls / completion_len)
    pred_byte = np.argmax(lls / byte_length)
    if isinstance(gold, list):
        out = {"acc": pred in gold, "acc_norm": pred_norm in gold, "acc_bytes": pred_byte in gold}
    else:
        out = {"acc": pred == gold, "acc_norm": pred_norm == gold, "acc_bytes": pred_byte == gold}
    if unconditional is not None:
        mi = [c - u for c, u in zip(lls, unconditional, strict=True)]
        out["acc_mutual_info"] = np.argmax(mi) in (gold if isinstance(gold, list) else [gold])
    return {k: float(v) for k, v in out.items()}


CHOICES = ["Paris", "a very long answer", "東京", "ＡＢＣ", "x", "It rains.", "上海市", "no", "🙂 ok"]
LL = st.sampled_from([0.0, -0.25, -0.5, -1.0, -2.0, -7.5, -30.0, float("-inf")]) | st.floats(-50, 0)


@st.composite
def documents(draw):  # type: ignore[no-untyped-def]
    k = draw(st.integers(1, 6))
    choices = draw(st.lists(st.sampled_from(CHOICES), min_size=k, max_size=k))
    lls = draw(st.lists(LL, min_size=k, max_size=k))
    uncond = draw(st.lists(st.floats(-50, 0), min_size=k, max_size=k))
    if draw(st.booleans()):
        gold = draw(st.integers(0, k - 1))
    else:
        gold = sorted(set(draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=k))))
    return lls, gold, choices, uncond


@given(st.lists(documents(), min_size=1, max_size=25))
def test_per_document_values_are_lm_evals(docs):  # type: ignore[no-untyped-def]
    lls, golds, choices, uncond = (list(x) for x in zip(*docs, strict=True))
    batch = MULTIPLE_CHOICE.batch_stats(
        lls, golds, MULTIPLE_CHOICE.make_config(), choices=choices, unconditional=uncond
    )
    for i, doc in enumerate(docs):
        expected = lm_eval_process_results(*doc)
        for key, value in expected.items():
            assert batch.columns[key][i] == value, (key, doc)
    # batches add, and a permutation permutes
    half = len(docs) // 2
    if half:
        a = MULTIPLE_CHOICE.batch_stats(lls[:half], golds[:half], MULTIPLE_CHOICE.make_config(), choices=choices[:half])
        b = MULTIPLE_CHOICE.batch_stats(lls[half:], golds[half:], MULTIPLE_CHOICE.make_config(), choices=choices[half:])
        whole = MULTIPLE_CHOICE.batch_stats(lls, golds, MULTIPLE_CHOICE.make_config(), choices=choices)
        assert a.total() + b.total() == whole.total()


def test_rectangular_numpy_input_and_ties() -> None:
    lls = np.array([[-1.0, -1.0, -2.0], [-3.0, -0.5, -0.5]])
    r = nm.multiple_choice(lls, [0, 2], segments=True)
    assert r.acc == 0.5
    assert r.segments == (1.0, 0.0)
    assert r.acc_norm is None
    assert r.acc_mutual_info is None


def test_acc_norm_counts_characters_not_bytes() -> None:
    # "東京" is 2 characters (6 bytes); "Tokyo" 5: -3/2 = -1.5 < -4/5 = -0.8, but per byte -0.5 > -0.8
    r = nm.multiple_choice([[-3.0, -4.0]], [1], choices=[["東京", "Tokyo"]])
    assert (r.acc, r.acc_norm, r.acc_bytes) == (0.0, 1.0, 0.0)


def test_bad_input_names_the_document() -> None:
    with pytest.raises(InvalidInputError, match=r"loglikelihoods\[1\]\[0\] is NaN"):
        nm.multiple_choice([[-1.0, -2.0], [float("nan"), -1.0]], [0, 0])
    with pytest.raises(InvalidInputError, match=r"loglikelihoods\[0\]\[1\] is \+inf"):
        nm.multiple_choice([[-1.0, float("inf")]], [0])
    with pytest.raises(InvalidInputError, match=r"gold\[1\] is 2 but the document has 2 choices"):
        nm.multiple_choice([[-1.0, -2.0], [-1.0, -2.0]], [0, 2])
    with pytest.raises(InvalidInputError, match=r"gold\[0\]\[1\] is -1"):
        nm.multiple_choice([[-1.0, -2.0]], [[0, -1]])
    with pytest.raises(InvalidInputError, match=r"gold\[0\] is True; expected a choice index"):
        nm.multiple_choice([[-1.0, -2.0]], [True])
    with pytest.raises(InvalidInputError, match=r"choices\[0\] has 3 choices but loglikelihoods\[0\] has 2 .*ragged"):
        nm.multiple_choice([[-1.0, -2.0]], [0], choices=[["a", "b", "c"]])
    with pytest.raises(InvalidInputError, match=r"choices\[0\]\[1\] is empty"):
        nm.multiple_choice([[-1.0, -2.0]], [0], choices=[["a", ""]])
    with pytest.raises(InvalidInputError, match=r"unconditional\[0\] has 1 log-likelihoods"):
        nm.multiple_choice([[-1.0, -2.0]], [0], unconditional=[[-1.0]])
    with pytest.raises(InvalidInputError, match=r"unconditional\[0\]\[0\] is NaN"):
        nm.multiple_choice([[-1.0, -2.0]], [0], unconditional=[[float("nan"), -1.0]])
    with pytest.raises(InvalidInputError, match="not text"):
        nm.multiple_choice(["A", "B"], [0, 1])
    with pytest.raises(InvalidInputError, match=r"loglikelihoods\[0\]\[0\] is 'x'"):
        nm.multiple_choice([["x", -1.0]], [0])
    with pytest.raises(InvalidInputError, match="2 documents but 1 gold"):
        nm.multiple_choice([[-1.0], [-1.0]], [0])
    with pytest.raises(InvalidInputError, match=r"multiple_choice takes no sources"):
        MULTIPLE_CHOICE.compute([[-1.0]], [0], MULTIPLE_CHOICE.make_config(), sources=["s"])


@given(st.integers(1, 5), st.lists(st.tuples(st.integers(0, 99), st.booleans()), min_size=1, max_size=20))
def test_the_rectangular_path_is_the_general_one(k: int, rows: list[tuple[int, bool]]) -> None:
    lls = [[-float((seed * 7 + j * 3) % 5) for j in range(k)] for seed, _ in rows]
    golds = [seed % k for seed, _ in rows]
    choices = [[CHOICES[(seed + j) % len(CHOICES)] for j in range(k)] for seed, _ in rows]
    uncond = [[-1.0] * k for _ in rows]
    cfg = MULTIPLE_CHOICE.make_config()
    fast = MULTIPLE_CHOICE.batch_stats(lls, golds, cfg, choices=choices, unconditional=uncond)
    general = MULTIPLE_CHOICE.batch_stats(  # tuples: the row-by-row path
        [tuple(r) for r in lls], golds, cfg, choices=[tuple(c) for c in choices], unconditional=uncond
    )
    array = MULTIPLE_CHOICE.batch_stats(np.array(lls), np.array(golds), cfg, choices=choices, unconditional=uncond)
    assert fast.total() == general.total() == array.total()
    assert all((fast.columns[n] == general.columns[n]).all() for n in fast.columns)
