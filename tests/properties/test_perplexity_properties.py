"""Hypothesis properties of perplexity: statistics add, a sequence's statistics are its own whatever its batch
and padding (bit for bit), batch splits and merge order change nothing, scores stay in bounds, sequences are never
mispaired."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nlgmetrics as nm
from nlgmetrics.metrics.perplexity import PERPLEXITY

logprob = st.floats(-30.0, 0.0, allow_nan=False) | st.sampled_from([0.0, -1e-300, -700.0])
sequences = st.lists(st.lists(logprob, max_size=12), min_size=1, max_size=8)


@st.composite
def logit_batches(draw):
    b, t, v = draw(st.integers(1, 5)), draw(st.integers(1, 7)), draw(st.integers(2, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    logits = rng.normal(size=(b, t, v)) * draw(st.sampled_from([0.5, 4.0]))
    targets = rng.integers(0, v, size=(b, t))
    lengths = rng.integers(0, t + 1, size=b)
    for i, n in enumerate(lengths):
        targets[i, n:] = -100  # right padding
    return logits, targets, lengths


@settings(max_examples=80)
@given(sequences, st.data())
def test_statistics_add(seqs, data):
    cut = data.draw(st.integers(0, len(seqs)))
    cfg = PERPLEXITY.make_config()
    whole = PERPLEXITY.batch_stats(seqs, None, cfg).total()
    a = PERPLEXITY.batch_stats(seqs[:cut], None, cfg, allow_empty=True).total()
    b = PERPLEXITY.batch_stats(seqs[cut:], None, cfg, allow_empty=True).total()
    total = a + b
    assert (total.tokens, total.sequences) == (whole.tokens, whole.sequences)
    assert math.isclose(total.nll, whole.nll, rel_tol=1e-15, abs_tol=1e-300)


@settings(max_examples=80)
@given(logit_batches())
def test_a_sequence_is_its_own_whatever_its_batch_and_padding(batch):
    logits, targets, lengths = batch
    padded = PERPLEXITY.batch_stats(logits, targets, PERPLEXITY.make_config(ignore_index=-100))
    for i, n in enumerate(lengths):
        alone = PERPLEXITY.batch_stats([logits[i, :n]], [targets[i, :n]], PERPLEXITY.make_config())
        assert alone[0] == padded[i]  # bit for bit


@settings(max_examples=60)
@given(sequences, st.data())
def test_batch_split_and_merge_order_change_nothing(seqs, data):
    expected = nm.perplexity(seqs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(seqs)), max_size=3)))
    bounds = [0, *cuts, len(seqs)]
    parts = []
    for lo, hi in itertools.pairwise(bounds):
        m = nm.Perplexity()
        m.update(seqs[lo:hi])
        parts.append(m)
    order = data.draw(st.permutations(range(len(parts))))
    merged = nm.Perplexity().merge(*(parts[i] for i in order)).compute()
    if math.isnan(expected.score):
        assert math.isnan(merged.score)
    else:  # the mean NLL to the last bits (exp() then magnifies a last-bit difference by the NLL itself)
        assert math.isclose(merged.nll, expected.nll, rel_tol=1e-14)


@settings(max_examples=60)
@given(sequences, st.data())
def test_bounds_and_permutation(seqs, data):
    r = nm.perplexity(seqs, segments=True)
    assert math.isnan(r.score) or r.score >= 1.0
    assert all(math.isnan(s) or s >= 1.0 for s in r.segments)
    perm = data.draw(st.permutations(range(len(seqs))))
    q = nm.perplexity([seqs[i] for i in perm], segments=True)
    assert [str(x) for x in q.segments] == [str(r.segments[i]) for i in perm]


@settings(max_examples=60)
@given(logit_batches(), st.sampled_from(["float32", "float64"]))
def test_a_sequence_is_its_own_whatever_its_batch_and_padding_in_torch(batch, dtype):
    # the small-batch torch path (one padded batch) against sequences scored alone, and against the numpy-checked
    # path that ragged lists and mostly padded batches take
    torch = pytest.importorskip("torch")
    logits, targets, lengths = batch
    x, t = torch.from_numpy(logits).to(getattr(torch, dtype)), torch.from_numpy(targets)
    padded = PERPLEXITY.batch_stats(x, t, PERPLEXITY.make_config(ignore_index=-100))
    ragged = PERPLEXITY.batch_stats(
        [x[i, :n] for i, n in enumerate(lengths)], [t[i, :n] for i, n in enumerate(lengths)], PERPLEXITY.make_config()
    )
    for i, n in enumerate(lengths):
        alone = PERPLEXITY.batch_stats(x[i : i + 1, :n], t[i : i + 1, :n], PERPLEXITY.make_config()) if n else None
        assert padded[i] == ragged[i]  # bit for bit
        assert alone is None or alone[0] == padded[i]
