"""Perplexity: every accepted input shape gives the same numbers, bits per byte, and strict input checks whose
messages name the sequence and the token."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, UnknownOptionError

# two sequences: probabilities 1/2, 1/4, 1/8 and 1, 1/2; the second's last target is padding
PROBS = np.array(  # the zero: a logit of -inf, which only matters as a target's
    [
        [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.125, 0.125, 0.75]],
        [[1.0, 1e-300, 1e-300], [0.5, 0.5, 0.0], [1 / 3] * 3],
    ]
)
with np.errstate(divide="ignore"):
    LOGITS = np.log(PROBS)
TARGETS = np.array([[0, 0, 0], [0, 1, -100]])
LOGPROBS = [[math.log(0.5), math.log(0.25), math.log(0.125)], [0.0, math.log(0.5)]]
EXPECTED = math.exp((math.log(2) + math.log(4) + math.log(8) + 0 + math.log(2)) / 5)


def _logits_without_zeros():
    x = LOGITS.copy()
    x[~np.isfinite(x)] = -1e4  # a very unlikely but finite logit
    return x


def test_logits_targets_and_logprobs_agree():
    x = _logits_without_zeros()
    a = nm.perplexity(x, TARGETS, ignore_index=-100)
    b = nm.perplexity(LOGPROBS)
    c = nm.perplexity([x[0], x[1, :2]], [TARGETS[0], TARGETS[1, :2]])  # ragged, no padding at all
    d = nm.perplexity([np.array(s) for s in LOGPROBS])
    for r in (a, b, c, d):
        assert r.score == pytest.approx(EXPECTED, rel=1e-15)
        assert r.tokens == 5
        assert r.sequences == 2
    assert a.signature == f"perplexity|ign:-100|prec:auto|preset:torchmetrics|nlgmetrics:{nm.__version__}"
    assert b.nll == pytest.approx(math.log(EXPECTED), rel=1e-15)
    assert b.bits_per_token == pytest.approx(math.log2(EXPECTED), rel=1e-15)
    assert b.bits_per_byte is None


def test_torch_tensors_any_float_dtype():
    torch = pytest.importorskip("torch")
    x = torch.tensor(_logits_without_zeros())
    t = torch.tensor(TARGETS)
    assert nm.perplexity(x, t, ignore_index=-100).score == pytest.approx(EXPECTED, rel=1e-15)
    assert nm.perplexity(x.float(), t, ignore_index=-100).score == pytest.approx(EXPECTED, rel=1e-6)
    assert nm.perplexity(x.half(), t.int(), ignore_index=-100).score == pytest.approx(EXPECTED, rel=1e-2)
    assert nm.perplexity(x.float(), t, ignore_index=-100, precision="float64").signature.startswith(
        "perplexity|ign:-100|prec:float64|"
    )
    assert nm.perplexity([torch.tensor(s, dtype=torch.float64) for s in LOGPROBS]).score == pytest.approx(
        EXPECTED, rel=1e-15
    )


def test_bits_per_byte_and_segments():
    r = nm.perplexity(LOGPROBS, num_bytes=[7, 3], segments=True)
    nll = math.log(2) + math.log(4) + math.log(8) + math.log(2)
    assert r.bits_per_byte == pytest.approx(nll / (10 * math.log(2)), rel=1e-15)
    assert r.bytes == 10
    assert r.segments == pytest.approx((math.exp(math.log(64) / 3), math.exp(math.log(2) / 2)), rel=1e-15)
    # bits per byte only when every sequence came with its bytes
    m = nm.Perplexity()
    m.update(LOGPROBS[:1], num_bytes=[7])
    assert m.compute().bits_per_byte == pytest.approx(math.log(64) / (7 * math.log(2)), rel=1e-15)
    m.update(LOGPROBS[1:])
    assert m.compute().bits_per_byte is None


def test_a_target_whose_probability_underflows_stays_finite():
    # torchmetrics' log(softmax) gives inf here (the softmax underflows to 0); logsumexp does not
    x = np.array([[[0.0, 200.0]]], dtype=np.float32)
    r = nm.perplexity(x, np.array([[0]]))
    assert math.isfinite(r.nll)
    assert r.nll == pytest.approx(200.0, rel=1e-6)


def test_no_counted_target_is_nan():
    assert math.isnan(nm.perplexity(LOGITS[:1, :1], np.array([[-100]]), ignore_index=-100).score)
    assert math.isnan(nm.perplexity([[]]).score)
    assert math.isnan(nm.Perplexity().compute().score)


def _nan_at(index):
    x = _logits_without_zeros()
    x[index] = np.nan
    return x


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: nm.perplexity(LOGITS[0], TARGETS[0]),
            r"logits have shape \(3, 3\); expected \(batch, seq_len, vocab\)",
        ),
        (lambda: nm.perplexity(LOGITS, TARGETS[:1]), r"but targets \(1, 3\)"),
        (lambda: nm.perplexity(PROBS.astype(int), TARGETS), "logits have dtype int64; logits are floating point"),
        (lambda: nm.perplexity(LOGITS, TARGETS.astype(float)), "targets have dtype float64; target ids are integers"),
        (
            lambda: nm.perplexity(_logits_without_zeros(), TARGETS),
            r"targets\[1, 2\] is -100: a target id must be in \[0, 3\)",
        ),
        (
            lambda: nm.perplexity(_logits_without_zeros(), np.array([[0, 0, 3], [0, 0, -100]]), ignore_index=-100),
            r"targets\[0, 2\] is 3: .* \(ignore_index is -100\)",
        ),
        (
            lambda: nm.perplexity(_nan_at((0, 1, 2)), TARGETS, ignore_index=-100),
            r"logits at logits\[0, 1\] contain NaN \(at vocabulary id 2\)",
        ),
        (
            lambda: nm.perplexity(LOGITS, np.array([[0, 0, 0], [0, 2, -100]]), ignore_index=-100),
            r"the logit of the target 2 at logits\[1, 1\] is -inf: its probability is 0",
        ),
        (lambda: nm.perplexity([LOGITS[1, :2]], [[0, 2]]), r"target 2 at predictions\[0\]\[1\] is -inf"),
        (
            lambda: nm.perplexity([LOGITS[0]], [TARGETS[0][:2]]),
            r"predictions\[0\] has 3 rows of logits but references\[0\] has shape \(2,\)",
        ),
        (lambda: nm.perplexity([LOGITS[0]], []), "1 sequences of logits but 0 target sequences"),
        (lambda: nm.perplexity([[-0.5, 0.25]]), r"predictions\[0\]\[1\] is 0.25, positive"),
        (lambda: nm.perplexity([[-0.5], [], [-1.0, float("-inf")]]), r"predictions\[2\]\[1\] is -inf, infinite"),
        (lambda: nm.perplexity([[-0.5], [float("nan")]]), r"predictions\[1\]\[0\] is nan, NaN"),
        (lambda: nm.perplexity([[-0.5, None]]), r"predictions\[0\]\[1\] is None; expected a number"),
        (lambda: nm.perplexity([[-0.5, True]]), r"predictions\[0\]\[1\] is a value of type bool"),
        (lambda: nm.perplexity(np.zeros((2, 0))), None),
        (lambda: nm.perplexity(np.array([-0.5, -1.0])), r"log-probabilities have shape \(2,\)"),
        (lambda: nm.perplexity(["some text"], ["its reference"]), "not text \\(got the string 'some text'\\)"),
        (lambda: nm.perplexity("some text"), "logits or log-probabilities, not text"),
        (lambda: nm.perplexity([]), "predictions are empty"),
        (lambda: nm.perplexity(None), "predictions are None"),
        (lambda: nm.perplexity(LOGPROBS, num_bytes=[3]), "num_bytes has 1 values but there are 2 sequences"),
        (lambda: nm.perplexity(LOGPROBS, num_bytes=[3, -1]), r"num_bytes\[1\] is -1; a byte count cannot be negative"),
        (lambda: nm.perplexity(LOGPROBS, num_bytes=[3, 2.0]), r"num_bytes\[1\] is a value of type float"),
        (lambda: nm.perplexity(LOGPROBS, num_bytes=np.array([3.0, 2.0])), "num_bytes has shape"),
        (lambda: nm.perplexity(LOGPROBS, ignore_index=1.5), "ignore_index must be an integer or None"),
        (lambda: nm.Perplexity().update(LOGPROBS, sources=["x", "y"]), "perplexity takes no sources"),
        (
            lambda: nm.Perplexity().update(LOGPROBS, lengths=[1, 2]),
            "perplexity takes no lengths; its further inputs are: num_bytes",
        ),
    ],
)
def test_bad_input(call, message):
    if message is None:  # a 2-D array of zero-length rows: zero tokens, NaN, no error
        assert math.isnan(call().score)
        return
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_nan_in_an_ignored_row_is_never_read():
    x = _nan_at((1, 2, 0))  # the padded position
    assert nm.perplexity(x, TARGETS, ignore_index=-100).score == pytest.approx(EXPECTED, rel=1e-15)


def test_unknown_precision():
    with pytest.raises(UnknownOptionError, match="'auto', 'float64'"):
        nm.perplexity(LOGPROBS, precision="float16")


def test_chunks_give_the_rows_numbers(monkeypatch):
    from nlgmetrics.metrics import perplexity as module

    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 5, 11))
    t = rng.integers(0, 11, size=(3, 5))
    t[1, 3] = -100
    sparse = t.copy()
    sparse[:, 1:] = -100  # most rows ignored: the wanted rows are copied out
    whole = [nm.perplexity(x, y, ignore_index=-100, segments=True).segments for y in (t, sparse)]
    monkeypatch.setattr(module, "_CHUNK", 22)  # two rows per chunk
    monkeypatch.setattr(module, "_TORCH_ONE_CALL_BYTES", 0)  # the torch path chunks too, however small the batch
    chunked = [nm.perplexity(x, y, ignore_index=-100, segments=True).segments for y in (t, sparse)]
    assert chunked == whole
    torch = pytest.importorskip("torch")
    tensors = [nm.perplexity(torch.tensor(x), torch.tensor(y), ignore_index=-100, segments=True) for y in (t, sparse)]
    for r, w in zip(tensors, whole, strict=True):
        assert r.segments == pytest.approx(w, rel=1e-14)


def test_evaluate_refuses_text_with_a_way_out():
    from nlgmetrics.evaluate import Texts, evaluate

    with pytest.raises(InvalidInputError, match=r"call nlgmetrics\.perplexity or `nlgmetrics perplexity`"):
        evaluate(Texts(["a b"]), {"sys": ["a b"]}, ["perplexity"], bootstrap=0, test=None)


def _torch_cases():
    x = _logits_without_zeros()
    inf_at = x.copy()
    inf_at[1, 0, 2] = np.inf
    return [
        ("2-D logits", LOGITS[0], TARGETS[0], None),
        ("targets of another shape", LOGITS, TARGETS[:1], -100),
        ("integer logits", PROBS.astype(np.int64), TARGETS, -100),
        ("float targets", x, TARGETS.astype(np.float64), -100),
        ("-100 with no ignore_index", x, TARGETS, None),
        ("an id past the vocabulary", x, np.array([[0, 0, 3], [0, 0, -100]]), -100),
        ("a negative id that is not ignore_index", x, np.array([[0, -1, 0], [0, 0, -100]]), -100),
        ("NaN in a counted row", _nan_at((0, 1, 2)), TARGETS, -100),
        ("+inf in a counted row", inf_at, TARGETS, -100),
        ("a target logit of -inf", LOGITS, np.array([[0, 0, 0], [0, 2, -100]]), -100),
        ("ignore_index inside the vocabulary, all ids in range", x, np.array([[0, 1, 2], [0, 1, 0]]), 0),
    ]


@pytest.mark.parametrize(("what", "logits", "targets", "ignore"), _torch_cases(), ids=[c[0] for c in _torch_cases()])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_torch_tensors_give_the_numpy_checks_and_numbers(what, logits, targets, ignore, dtype):
    """CPU tensors are checked on the tensors themselves (a leaner path for small batches): the same errors, word
    for word, and the same statistics, bit for bit, as the same numbers given as numpy arrays in the precision
    that path computes in."""
    torch = pytest.importorskip("torch")
    from nlgmetrics.metrics.perplexity import PERPLEXITY, _perplexity_kernel
    from nlgmetrics.torch import Perplexity as TorchPerplexity

    x = torch.from_numpy(logits)
    if x.is_floating_point():
        x = x.to(getattr(torch, dtype))
    t = torch.from_numpy(targets)
    cfg = PERPLEXITY.make_config(ignore_index=ignore)
    expected: Any = None
    try:
        expected = nm.perplexity(x.numpy(), targets, ignore_index=ignore)
    except InvalidInputError as e:
        expected = e
    if isinstance(expected, InvalidInputError):
        with pytest.raises(InvalidInputError) as checked:
            _perplexity_kernel(x, t, cfg)  # the path that checks the targets in numpy
        # a torch dtype is named as torch names it
        assert str(checked.value).replace("torch.", "") == str(expected)
        with pytest.raises(InvalidInputError) as got:
            nm.perplexity(x, t, ignore_index=ignore)
        assert str(got.value) == str(checked.value)
        with pytest.raises(InvalidInputError) as got:
            TorchPerplexity(ignore_index=ignore).update(x, t)
        assert str(got.value) == str(checked.value)
        return
    general = _perplexity_kernel(x, t, cfg)  # the numpy-checked path, the softmax in torch
    assert PERPLEXITY.batch_stats(x, t, cfg).columns.keys() == general.columns.keys()
    for name, column in PERPLEXITY.batch_stats(x, t, cfg).columns.items():
        assert column.tolist() == general.columns[name].tolist()
    assert repr(nm.perplexity(x, t, ignore_index=ignore)) == repr(PERPLEXITY.finalize(general.total(), cfg))
    assert nm.perplexity(x, t, ignore_index=ignore).score == pytest.approx(expected.score, rel=1e-5)


def test_torch_small_batches_agree_with_the_checked_path():
    """Random batches in every floating dtype, with and without ignore_index and byte counts: the leaner path for
    small CPU batches gives the statistics of the path that checks them in numpy, bit for bit."""
    torch = pytest.importorskip("torch")
    from nlgmetrics.metrics.perplexity import PERPLEXITY, _perplexity_kernel

    rng = np.random.default_rng(7)
    for trial in range(120):
        b, t_len, v = int(rng.integers(1, 6)), int(rng.integers(1, 12)), int(rng.integers(2, 60))
        dtype = (torch.float32, torch.float64, torch.float16, torch.bfloat16)[trial % 4]
        x = torch.from_numpy(rng.normal(size=(b, t_len, v)) * rng.choice([0.5, 5.0, 60.0])).to(dtype)
        t = torch.from_numpy(rng.integers(0, v, size=(b, t_len)))
        ignore = (None, -100, 0)[trial % 3]
        if ignore is not None:
            t[torch.from_numpy(rng.random((b, t_len)) < 0.3)] = ignore
        num_bytes = None if trial % 5 else [int(n) for n in rng.integers(0, 50, size=b)]
        for precision in ("auto", "float64", "logits"):
            cfg = PERPLEXITY.make_config(ignore_index=ignore, precision=precision)
            fast = PERPLEXITY.batch_stats(x, t, cfg, num_bytes=num_bytes)
            checked = _perplexity_kernel(x, t, cfg, num_bytes=num_bytes)
            for name, column in checked.columns.items():
                assert [repr(v) for v in fast.columns[name].tolist()] == [repr(v) for v in column.tolist()], name
            result = nm.perplexity(x, t, ignore_index=ignore, precision=precision, num_bytes=num_bytes)
            assert repr(result) == repr(PERPLEXITY.finalize(checked.total(), cfg))


def test_torch_logits_that_require_grad():
    torch = pytest.importorskip("torch")
    x = torch.tensor(_logits_without_zeros(), requires_grad=True)
    t = torch.tensor(TARGETS)
    assert nm.perplexity(x, t, ignore_index=-100).score == pytest.approx(EXPECTED, rel=1e-15)
    assert nm.perplexity([x[0], x[1, :2]], [t[0], t[1, :2]]).score == pytest.approx(EXPECTED, rel=1e-15)
    from nlgmetrics.torch import Perplexity as TorchPerplexity

    m = TorchPerplexity(ignore_index=-100)
    m.update(x, t)
    assert float(m.compute()) == pytest.approx(EXPECTED, rel=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_probability_below_the_smallest_normal_float_is_computed_from_log_softmax(dtype):
    # log(softmax) loses the bits of a subnormal probability, and gives -inf once it underflows to 0
    torch = pytest.importorskip("torch")
    gap = {"float32": (95.0, 120.0), "float64": (720.0, 800.0)}[dtype]
    x = torch.zeros(1, 3, 4, dtype=getattr(torch, dtype))
    x[0, 0, 1] = gap[0]  # the target 0 has probability about e^-gap
    x[0, 1, 1] = gap[1]
    t = torch.tensor([[0, 0, 2]])
    exact = torch.nn.functional.cross_entropy(x[0].double(), t[0], reduction="sum").item() / 3
    padded = torch.cat([t, torch.full((1, 4), -100)], 1), torch.cat([x, torch.zeros(1, 4, 4, dtype=x.dtype)], 1)
    for r in (
        nm.perplexity(x, t),  # the small-batch path
        nm.perplexity(padded[1], padded[0], ignore_index=-100),  # mostly padding: the numpy-checked path
        nm.perplexity([x[0]], [t[0]]),
    ):
        assert math.isfinite(r.score)
        assert r.nll == pytest.approx(exact, rel=1e-6)


def test_torch_views_that_are_not_contiguous():
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(3)
    x = torch.randn(3, 5, 7, generator=g) * 30  # a few probabilities below the smallest normal float32
    t = torch.randint(7, (3, 5), generator=g)
    t[0, 0], t[2, 3] = x[0, 0].argmin(), x[2, 3].argmin()
    assert int((torch.softmax(x, 2).gather(2, t[..., None]) < torch.finfo(torch.float32).tiny).sum()) >= 2
    x_view = x.transpose(0, 1).contiguous().transpose(0, 1)
    t_view = t.t().contiguous().t()
    assert not x_view.is_contiguous()
    assert not t_view.is_contiguous()
    for ignore in (None, 6):
        expected = nm.perplexity(x, t, ignore_index=ignore, segments=True)
        got = nm.perplexity(x_view, t_view, ignore_index=ignore, segments=True)
        assert repr(got) == repr(expected)
        assert repr(nm.perplexity(x_view, t_view, ignore_index=ignore)) == repr(
            nm.perplexity(x, t, ignore_index=ignore)
        )


def test_the_gpu_path_gives_the_checked_statistics_or_hands_over():
    """The path for tensors on a GPU (run here on CPU tensors): the checked path's statistics (a sequence's sum in
    float64, within an ulp of its exactly rounded sum), or ``None`` (the checked path takes over) for a target out of
    range, a NaN or an infinity in a counted row, or a probability below the smallest normal number."""
    torch = pytest.importorskip("torch")
    from nlgmetrics.metrics.perplexity import PERPLEXITY, _perplexity_kernel, _torch_device_lists

    rng = np.random.default_rng(11)
    handed_over = 0
    for trial in range(80):
        b, t_len, v = int(rng.integers(1, 5)), int(rng.integers(1, 30)), int(rng.integers(2, 300))
        dtype = (torch.float32, torch.float64, torch.float16, torch.bfloat16)[trial % 4]
        x = torch.from_numpy(rng.normal(size=(b, t_len, v)) * rng.choice([0.5, 3.0, 40.0])).to(dtype)
        t = torch.from_numpy(rng.integers(0, v, size=(b, t_len)))
        ignore = (None, -100)[trial % 2]
        if ignore is not None:
            t[torch.from_numpy(rng.random((b, t_len)) < 0.3)] = ignore
        precision = ("auto", "float64", "logits")[trial % 3]
        cfg = PERPLEXITY.make_config(ignore_index=ignore, precision=precision)
        got = _torch_device_lists(x, t, cfg, None, force=True)
        expected = _perplexity_kernel(x, t, cfg)
        if got is None:
            handed_over += 1
            continue
        assert got["tokens"] == expected.columns["tokens"].tolist()
        assert got["nll"] == pytest.approx(expected.columns["nll"].tolist(), rel=1e-15, abs=1e-300)
    assert handed_over < 40
    cfg = PERPLEXITY.make_config(ignore_index=-100)
    x = torch.randn(2, 3, 7)
    for bad in (torch.tensor([[0, 7, 1], [2, 3, 4]]), torch.tensor([[0, -1, 1], [2, 3, 4]])):
        assert _torch_device_lists(x, bad, cfg, None, force=True) is None  # the checked path names it
    assert _torch_device_lists(x, torch.tensor([[0, -100, 1], [2, 3, 4]]), cfg, None, force=True) is not None
    nan = x.clone()
    nan[1, 2, 0] = math.nan
    assert _torch_device_lists(nan, torch.tensor([[0, 1, 1], [2, 3, 4]]), cfg, None, force=True) is None
    nan_ignored = _torch_device_lists(nan, torch.tensor([[0, 1, 1], [2, 3, -100]]), cfg, None, force=True)
    assert nan_ignored is not None  # NaN in a row whose target is ignored changes nothing, as in torchmetrics
    assert _torch_device_lists(x.numpy(), torch.zeros(2, 3, dtype=torch.long), cfg, None, force=True) is None
