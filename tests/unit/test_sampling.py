"""pass@k, G-Pass@k and maj@n/avg@n against the reference tools' own numbers (recorded in
``tests/fixtures/llm/sampling.json`` by ``record.py``: HF ``code_eval``'s ``estimate_pass_at_k`` and lighteval 0.13's
``PassAtK``/``GPassAtK``/``MajAtN``/``AvgAtN``), their additivity, and their errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.sampling import G_PASS_AT_K, MAJ_AT_N, PASS_AT_K, estimate_pass_at_k

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "llm" / "sampling.json").read_text())
N = np.asarray(FIXTURE["n"])
C = np.asarray(FIXTURE["c"])


@pytest.mark.parametrize("k", FIXTURE["k"])
def test_pass_at_k_is_code_evals_estimate_bit_for_bit(k: int) -> None:
    ok = ~((k > N) & (C == 0))  # the problems code_eval's estimator cannot estimate: refused here (below)
    ours = estimate_pass_at_k(N[ok], C[ok], k)
    for name in ("code_eval", "lighteval_pass_at_k"):
        ref = np.asarray(FIXTURE[name][str(k)])[ok]
        mismatches = int((ours != ref).sum())
        print(f"pass@{k} vs {name}: {ok.sum()} problems, {mismatches} mismatches")
        assert mismatches == 0
    mean = nm.pass_at_k(N[ok], C[ok], k=k).score[f"pass@{k}"]
    # code_eval averages with numpy's pairwise mean; the sum here is correctly rounded (math.fsum)
    assert mean == math.fsum(ours) / len(ours)
    assert abs(mean - ref.mean()) <= 2 * np.spacing(mean)


def test_g_pass_at_k_is_lightevals() -> None:
    r = nm.g_pass_at_k(N, C, k=FIXTURE["g_k"], thresholds=FIXTURE["thresholds"], segments=True)
    mismatches = 0
    for ours, ref in zip(r.segments, FIXTURE["lighteval_g_pass_at_k"], strict=True):
        assert list(ours) == list(ref)  # lighteval's names, in its order
        mismatches += sum(ours[key] != ref[key] for key in ref)
    print(f"G-Pass@k: {len(N)} problems x {len(FIXTURE['lighteval_g_pass_at_k'][0])} values, {mismatches} mismatches")
    assert mismatches == 0


def test_maj_and_avg_at_n_are_lightevals() -> None:
    batch = MAJ_AT_N.batch_stats(FIXTURE["samples"], FIXTURE["golds"], MAJ_AT_N.make_config())
    assert batch.columns["maj"].tolist() == FIXTURE["lighteval_maj_at_n"]
    assert batch.columns["avg"].tolist() == FIXTURE["lighteval_avg_at_n"]
    r = nm.maj_at_n(FIXTURE["samples"], FIXTURE["golds"])
    assert r.score == sum(FIXTURE["lighteval_maj_at_n"]) / len(FIXTURE["golds"])


def test_maj_at_n_first_n_and_normalizers() -> None:
    assert nm.maj_at_n([["7", "8", "8"]], ["7"], n=1).score == 1.0
    assert nm.maj_at_n([["8", "7", "7", "8"]], ["8"]).score == 1.0  # a tie: the answer that appears first
    assert nm.maj_at_n([[" 7", "7 "]], ["7"], normalizers=["strip-whitespace"]).avg == 1.0
    with pytest.raises(InvalidInputError, match=r"predictions\[0\] has 2 samples but n=3"):
        nm.maj_at_n([["7", "8"]], ["7"], n=3)
    with pytest.raises(InvalidInputError, match=r"references\[0\] is .*one gold answer"):
        nm.maj_at_n([["7"]], [["7", "8"]])
    with pytest.raises(InvalidInputError, match=r"predictions\[0\] is '7'; expected the problem's sampled answers"):
        nm.maj_at_n(["7"], ["7"])
    with pytest.raises(InvalidInputError, match="unknown maj_at_n normalizer 'whisper'"):
        nm.maj_at_n([["7"]], ["7"], normalizers=["whisper"])


def test_k_larger_than_n() -> None:
    # a problem with a correct sample passes whatever k: the estimator's 1.0
    assert estimate_pass_at_k([3], [1], 10).tolist() == [1.0]
    with pytest.raises(InvalidInputError, match=r"pass@10: problem 1 has 3 samples, fewer than k=10, and none"):
        nm.pass_at_k([20, 3], [0, 0], k=[1, 10])
    # lighteval's G-Pass@k counts k > n as 0
    assert nm.g_pass_at_k([3], [3], k=10, thresholds=[0.5]).score == {"g-pass@10_0.5": 0.0, "mg-pass@10": 0.0}


def test_bad_counts_name_the_problem() -> None:
    with pytest.raises(InvalidInputError, match=r"num_correct\[1\] is 6 but problem 1 has 5 samples"):
        nm.pass_at_k([5, 5], [1, 6])
    with pytest.raises(InvalidInputError, match=r"num_correct\[0\] is -1"):
        nm.pass_at_k([5], [-1])
    with pytest.raises(InvalidInputError, match=r"num_samples\[0\] is 0; a problem needs between 1"):
        nm.pass_at_k([0], [0])
    with pytest.raises(InvalidInputError, match=r"num_correct\[0\] is 2\.0; expected an integer"):
        nm.pass_at_k([5], [2.0])
    with pytest.raises(InvalidInputError, match=r"num_samples\[1\]\[0\] is 'yes'; expected True/False"):
        nm.pass_at_k([[True], ["yes"]])
    with pytest.raises(InvalidInputError, match="differ in length: 2 problems but 1 counts"):
        nm.pass_at_k([5, 5], [1])
    with pytest.raises(InvalidInputError, match=r"k must be integers between 1 and"):
        nm.pass_at_k([5], [1], k=0)
    with pytest.raises(InvalidInputError, match=r"thresholds must be numbers between 0 and 1"):
        nm.g_pass_at_k([5], [1], thresholds=[1.5])
    with pytest.raises(InvalidInputError, match="no problems to score"):
        nm.pass_at_k([], [])


def test_counts_correctness_and_one_n_for_all() -> None:
    a = nm.pass_at_k([[True, False, False], [False, False, True]], k=2)
    b = nm.pass_at_k([3, 3], [1, 1], k=2)
    c = nm.pass_at_k(3, [1, 1], k=2)  # code_eval's estimate_pass_at_k takes one n for every problem too
    assert a.score == b.score == c.score
    assert a.signature == b.signature


@given(
    st.lists(st.tuples(st.integers(1, 60), st.integers(0, 60)), min_size=2, max_size=30),
    st.integers(1, 29),
)
def test_statistics_add(pairs: list[tuple[int, int]], cut: int) -> None:
    n = [p[0] for p in pairs]
    c = [min(p[1], p[0]) for p in pairs]
    cut = cut % (len(pairs) - 1) + 1
    c = [max(ci, 1) if ni < 5 else ci for ni, ci in zip(n, c, strict=True)]  # k=5 needs 5 samples or a correct one
    cfg = PASS_AT_K.make_config(k=(1, 5))
    whole = PASS_AT_K.batch_stats(n, c, cfg)
    parts = [PASS_AT_K.batch_stats(n[:cut], c[:cut], cfg), PASS_AT_K.batch_stats(n[cut:], c[cut:], cfg)]
    assert whole.columns["sums"].tolist() == np.concatenate([p.columns["sums"] for p in parts]).tolist()
    total = parts[0].total() + parts[1].total()
    assert total.count == whole.total().count
    assert np.allclose(total.sums, whole.total().sums, rtol=1e-15, atol=1e-15)
    # permuting the problems permutes the per-problem values
    perm = list(reversed(range(len(n))))
    rev = PASS_AT_K.batch_stats([n[i] for i in perm], [c[i] for i in perm], cfg)
    assert rev.columns["sums"].tolist() == whole.columns["sums"][perm].tolist()
    g = G_PASS_AT_K.batch_stats(n, c, G_PASS_AT_K.make_config(k=(2, 4)))
    assert ((g.columns["sums"] >= 0) & (g.columns["sums"] <= 1 + 1e-12)).all()
