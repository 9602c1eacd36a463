"""Perplexity parity with torchmetrics 1.9 ``Perplexity`` / ``perplexity`` (``ignore_index`` included).

On float64 logits both compute in float64: the numbers agree within float64 rounding (relative 1e-12; the largest
differences are printed). On float32 logits both compute the normaliser in float32 (torchmetrics as
``log(softmax)``, nlgmetrics as ``logsumexp``): they agree within float32 rounding. The one place they differ on
purpose, a target whose softmax probability underflows, is checked too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")
from torchmetrics.functional.text.perplexity import perplexity as tm_perplexity  # noqa: E402
from torchmetrics.text import Perplexity as TMPerplexity  # noqa: E402

IGNORE = -100


def report(what: str, ours, theirs, rel: float, *, show: bool = False) -> int:
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    d = np.abs(ours - theirs)
    r = d / np.abs(theirs)
    bad = int((r > rel).sum())
    if show:
        log_d = np.abs(np.log(ours) - np.log(theirs)).max()  # the mean negative log-likelihood per token
        print(
            f"{what}: {d.size} values, {bad} beyond relative {rel:g}; max abs difference {d.max():.3g} "
            f"(relative {r.max():.3g}); in the mean NLL per token {log_d:.3g}"
        )
    return bad


def _random_batch(rng: np.random.Generator, dtype=torch.float64) -> tuple:
    b, t, v = int(rng.integers(1, 5)), int(rng.integers(1, 9)), int(rng.integers(2, 41))
    logits = torch.from_numpy(rng.normal(size=(b, t, v)) * rng.choice([0.1, 1.0, 5.0])).to(dtype)
    target = torch.from_numpy(rng.integers(0, v, size=(b, t)))
    pad = torch.from_numpy(rng.random((b, t)) < 0.3)
    pad[0, 0] = False
    return logits, target.masked_fill(pad, IGNORE)


def test_sweep_summary():
    """200 seeded batches in each precision, one line each: the figures quoted in the docs."""
    rng = np.random.default_rng(20240611)
    for dtype, rel in ((torch.float64, 1e-12), (torch.float32, 1e-5)):
        ours, theirs = [], []
        for _ in range(200):
            logits, target = _random_batch(rng, dtype)
            theirs.append(float(tm_perplexity(logits, target, ignore_index=IGNORE)))
            ours.append(nm.perplexity(logits, target, ignore_index=IGNORE).score)
        assert report(f"torchmetrics vs nlgmetrics, {dtype}", ours, theirs, rel, show=True) == 0


@st.composite
def batches(draw, dtype=torch.float64):
    b, t, v = draw(st.integers(1, 4)), draw(st.integers(1, 8)), draw(st.integers(2, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    scale = draw(st.sampled_from([0.1, 1.0, 5.0]))
    g = torch.Generator().manual_seed(seed)
    logits = (torch.randn(b, t, v, generator=g, dtype=torch.float64) * scale).to(dtype)
    target = torch.randint(v, (b, t), generator=g)
    pad = torch.rand(b, t, generator=g) < draw(st.sampled_from([0.0, 0.3]))
    pad[0, 0] = False  # at least one counted target
    return logits, target.masked_fill(pad, IGNORE)


@settings(max_examples=60)
@given(st.lists(batches(), min_size=1, max_size=3))
def test_float64_functional_and_class(data):
    ours_f, theirs_f = [], []
    metric = TMPerplexity(ignore_index=IGNORE).set_dtype(torch.float64)  # float64 states: no float32 sum
    ours_m = nm.Perplexity(ignore_index=IGNORE)
    for logits, target in data:
        theirs_f.append(float(tm_perplexity(logits, target, ignore_index=IGNORE)))
        ours_f.append(nm.perplexity(logits, target, ignore_index=IGNORE).score)
        ours_f.append(nm.perplexity(logits.numpy(), target.numpy(), ignore_index=IGNORE).score)
        theirs_f.append(theirs_f[-1])
        metric.update(logits, target)
        ours_m.update(logits, target)
    assert report("functional, float64", ours_f, theirs_f, 1e-12) == 0
    assert report("class over batches, float64", [ours_m.compute().score], [float(metric.compute())], 1e-12) == 0


@settings(max_examples=40)
@given(batches(torch.float32))
def test_float32(batch):
    logits, target = batch
    theirs = float(tm_perplexity(logits, target, ignore_index=IGNORE))
    ours = nm.perplexity(logits, target, ignore_index=IGNORE)
    assert report("float32", [ours.score], [theirs], 1e-5) == 0
    exact = float(tm_perplexity(logits.double(), target, ignore_index=IGNORE))
    assert nm.perplexity(logits, target, ignore_index=IGNORE, precision="float64").score == pytest.approx(
        exact, rel=1e-12
    )


def test_logprobs_give_the_logits_number():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 7, 50, generator=g, dtype=torch.float64)
    target = torch.randint(50, (3, 7), generator=g)
    target[1, 4:] = IGNORE
    logprobs = torch.log_softmax(logits, dim=-1).gather(2, target.clamp(min=0)[..., None])[..., 0]
    per_sequence = [row[t != IGNORE].tolist() for row, t in zip(logprobs, target, strict=True)]
    theirs = float(tm_perplexity(logits, target, ignore_index=IGNORE))
    assert report("from log-probabilities", [nm.perplexity(per_sequence).score], [theirs], 1e-12) == 0


def test_where_torchmetrics_underflows():
    logits = torch.tensor([[[0.0, 120.0], [1.0, 0.0]]])
    target = torch.tensor([[0, 0]])
    assert math.isinf(float(tm_perplexity(logits, target)))  # softmax(…)[0] is 0 in float32
    ours = nm.perplexity(logits, target)
    assert math.isfinite(ours.score)
    assert ours.nll == pytest.approx((120.0 + math.log1p(math.exp(-120.0)) + math.log1p(math.exp(-1.0))) / 2)
