"""The torchmetrics adapter: same numbers as the functional API, torchmetrics semantics for the rest."""

from __future__ import annotations

import copy
import pickle
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
torchmetrics = pytest.importorskip("torchmetrics")

import nlgmetrics  # noqa: E402
from nlgmetrics import InvalidInputError, UnknownOptionError  # noqa: E402
from nlgmetrics.metrics.edit import NLS  # noqa: E402
from nlgmetrics.torch import (  # noqa: E402
    ANLS,
    CharErrorRate,
    EditDistance,
    NormalizedLevenshteinSimilarity,
    TorchMetric,
    WordErrorRate,
    torch_metric,
)

from .test_stateful import ANLS_PREDS, ANLS_REFS, PREDS, REFS  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src" / "nlgmetrics"

# (adapter class, functional, options, predictions, references)
CASES: dict[str, tuple[type[TorchMetric], Any, dict[str, Any], list[str], list[Any]]] = {
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
    "edit-sum": (EditDistance, nlgmetrics.edit_distance, {"reduction": "sum"}, PREDS, REFS),
    "edit-none": (EditDistance, nlgmetrics.edit_distance, {"reduction": "none"}, PREDS, REFS),
    # torchmetrics' names: torchmetrics' preset (its tokens), which the functional API names
    "cer": (CharErrorRate, nlgmetrics.cer, {"preset": "torchmetrics"}, PREDS, REFS),
    "wer": (WordErrorRate, nlgmetrics.wer, {"preset": "torchmetrics"}, PREDS, REFS),
    "wer-jiwer": (WordErrorRate, nlgmetrics.wer, {"preset": "jiwer"}, PREDS, REFS),
    "anls": (ANLS, nlgmetrics.anls, {}, ANLS_PREDS, ANLS_REFS),
    "anls-pkg": (ANLS, nlgmetrics.anls, {"preset": "anls-pkg"}, ANLS_PREDS, ANLS_REFS),
}


def _make(cls: type[TorchMetric], options: dict[str, Any], **extra: Any) -> TorchMetric:
    opts = dict(options)
    if "preset" in opts:  # by keyword: torchmetrics' names take torchmetrics' arguments by position
        return cls(**opts, **extra)
    return cls(None, **opts, **extra)


def _expected(fn: Any, options: dict[str, Any], preds: list[str], refs: list[Any], **extra: Any) -> Any:
    return fn(preds, refs, **options, **extra)


def _assert_score(got: Any, expected: Any) -> None:
    assert isinstance(got, torch.Tensor)
    assert got.dtype == torch.float64
    if isinstance(expected, tuple):
        assert got.ndim == 1
        torch.testing.assert_close(got, torch.tensor(expected, dtype=torch.float64), rtol=1e-12, atol=1e-12)
    else:
        assert got.ndim == 0
        assert got.item() == pytest.approx(float(expected), rel=1e-12, abs=1e-12)


def _batches(preds: list[str], refs: list[Any], size: int) -> list[tuple[list[str], list[Any]]]:
    return [(preds[i : i + size], refs[i : i + size]) for i in range(0, len(preds), size)]


# ---------------------------------------------------------------------- the seed example
def test_seed_example_reduction_none() -> None:
    metric = NormalizedLevenshteinSimilarity(reduction=None)
    metric.update(["rain", "lnaguaeg"], ["shine", "language"])
    out = metric.compute()
    torch.testing.assert_close(out, torch.tensor([0.4, 0.5], dtype=torch.float64))


def test_seed_example_mean() -> None:
    metric = NormalizedLevenshteinSimilarity()
    metric.update(["rain", "lnaguaeg"], ["shine", "language"])
    out = metric.compute()
    assert out.shape == ()
    assert out.item() == pytest.approx(0.45)


def test_seed_example_in_a_metric_collection() -> None:
    collection = torchmetrics.MetricCollection(
        {
            "nls": NormalizedLevenshteinSimilarity(),
            "nls_none": NormalizedLevenshteinSimilarity(reduction=None),
            "edit": EditDistance(),
            "cer": CharErrorRate(),
        }
    )
    batch = collection(["rain", "lnaguaeg"], ["shine", "language"])
    assert batch["nls"].item() == pytest.approx(0.45)
    torch.testing.assert_close(batch["nls_none"], torch.tensor([0.4, 0.5], dtype=torch.float64))
    assert batch["edit"].item() == pytest.approx(3.5)
    collection.update(["hello"], ["hello"])
    out = collection.compute()
    assert out["nls"].item() == pytest.approx(
        nlgmetrics.nls(["rain", "lnaguaeg", "hello"], ["shine", "language", "hello"]).score
    )
    torch.testing.assert_close(out["nls_none"], torch.tensor([0.4, 0.5, 1.0], dtype=torch.float64))
    assert out["edit"].item() == pytest.approx(7 / 3)
    assert out["cer"].item() == pytest.approx(
        nlgmetrics.cer(["rain", "lnaguaeg", "hello"], ["shine", "language", "hello"]).score
    )
    collection.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # compute before update
        assert collection.compute()["nls"].item() == 0.0


def test_metric_collection_never_groups_metrics_whose_kernels_differ() -> None:
    # On this first batch CER and WER (and the two substitution costs) give identical statistics; torchmetrics
    # would put such metrics in one compute group and then update only one of them.
    collection = torchmetrics.MetricCollection(
        {
            "cer": CharErrorRate(),
            "wer": WordErrorRate(),
            "nls1": NormalizedLevenshteinSimilarity(),
            "nls2": NormalizedLevenshteinSimilarity(substitution_cost=2),
        }
    )
    collection.update(["a"], ["a"])
    collection.update(["hello world", "abc"], ["hello there world", "abd"])
    out = collection.compute()
    preds, refs = ["a", "hello world", "abc"], ["a", "hello there world", "abd"]
    assert out["cer"].item() == pytest.approx(nlgmetrics.cer(preds, refs).score)
    assert out["wer"].item() == pytest.approx(nlgmetrics.wer(preds, refs).score)
    assert out["nls1"].item() == pytest.approx(nlgmetrics.nls(preds, refs).score)
    assert out["nls2"].item() == pytest.approx(nlgmetrics.nls(preds, refs, substitution_cost=2).score)


# ---------------------------------------------------------------------- same numbers as the functional API
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("batch_size", [1, 3, 100])
def test_update_compute_equals_functional(case: str, batch_size: int) -> None:
    cls, fn, options, preds, refs = CASES[case]
    metric = _make(cls, options)
    for p, r in _batches(preds, refs, batch_size):
        metric.update(p, r)
    expected = _expected(fn, options, preds, refs)
    _assert_score(metric.compute(), expected.score)
    result = metric.compute_result()
    assert type(result) is type(expected)
    assert result.signature == expected.signature
    got = result.to_dict()
    for key, value in expected.to_dict().items():
        if value is None or isinstance(value, str):
            assert got[key] == value, key
        else:
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
        if isinstance(value, int):  # counts stay integers
            assert type(got[key]) is type(value), key


@pytest.mark.parametrize("case", list(CASES))
def test_forward_returns_batch_values_and_accumulates(case: str) -> None:
    cls, fn, options, preds, refs = CASES[case]
    metric = _make(cls, options)
    for p, r in _batches(preds, refs, 3):
        _assert_score(metric(p, r), _expected(fn, options, p, r).score)
    _assert_score(metric.compute(), _expected(fn, options, preds, refs).score)


@pytest.mark.parametrize("case", list(CASES))
def test_keep_segments(case: str) -> None:
    cls, fn, options, preds, refs = CASES[case]
    metric = _make(cls, options, keep_segments=True)
    for p, r in _batches(preds, refs, 4):
        metric.update(p, r)
    expected = _expected(fn, options, preds, refs, segments=True)
    result = metric.compute_result()
    assert result.segments == pytest.approx(expected.segments, rel=1e-12, abs=1e-12)
    _assert_score(metric.compute(), expected.score)


def test_reduction_none_with_one_segment_stays_1d() -> None:
    metric = NormalizedLevenshteinSimilarity(reduction=None)
    out = metric(["rain"], ["shine"])
    assert out.shape == (1,)
    assert metric.compute().shape == (1,)


def test_reset() -> None:
    metric = NormalizedLevenshteinSimilarity(reduction=None)
    metric.update(["rain", "lnaguaeg"], ["shine", "language"])
    metric.reset()
    metric.update(["abc"], ["abd"])
    torch.testing.assert_close(metric.compute(), torch.tensor([2 / 3], dtype=torch.float64))
    metric.reset()
    assert metric.count.item() == 0
    with pytest.warns(UserWarning, match="before the ``update``"):
        out = metric.compute()
    assert out.shape == (0,)


def test_compute_with_no_samples_is_zero() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for cls in (NormalizedLevenshteinSimilarity, EditDistance, CharErrorRate, WordErrorRate, ANLS):
            out = cls().compute()
            assert out.shape == ()
            assert out.item() == 0.0
        empty = NormalizedLevenshteinSimilarity(reduction=None).compute()
    assert empty.shape == (0,)
    assert empty.dtype == torch.float64


def test_empty_update_is_allowed() -> None:
    metric = NormalizedLevenshteinSimilarity(reduction=None)
    metric.update([], [])
    assert metric.compute().shape == (0,)
    metric.update(["rain", "lnaguaeg"], ["shine", "language"])
    metric.update([], [])
    torch.testing.assert_close(metric.compute(), torch.tensor([0.4, 0.5], dtype=torch.float64))


def test_single_string_is_one_segment() -> None:
    metric = NormalizedLevenshteinSimilarity()
    metric.update("rain", "shine")
    assert metric.compute().item() == pytest.approx(0.4)


@pytest.mark.filterwarnings("ignore:The ``compute`` method:UserWarning")  # loading a state is not an update
@pytest.mark.parametrize("case", ["nls-none", "cer", "anls"])
def test_state_dict_round_trip(case: str) -> None:
    cls, fn, options, preds, refs = CASES[case]
    metric = _make(cls, options)
    metric.persistent(True)
    metric.update(preds[:4], refs[:4])
    state = metric.state_dict()
    assert "count" in state or "hits" in state
    restored = _make(cls, options)
    restored.persistent(True)
    restored.load_state_dict(state)
    torch.testing.assert_close(restored.compute(), metric.compute())
    restored.update(preds[4:], refs[4:])
    _assert_score(restored.compute(), _expected(fn, options, preds, refs).score)


def test_state_dict_of_another_configuration_is_refused() -> None:
    metric = NormalizedLevenshteinSimilarity()
    metric.persistent(True)
    metric.update(["a"], ["b"])
    other = NormalizedLevenshteinSimilarity(substitution_cost=2)
    other.persistent(True)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        other.load_state_dict(metric.state_dict())


def test_states_are_float64_sums() -> None:
    metric = CharErrorRate()
    for name in metric.stats.to_dict():
        assert getattr(metric, name).dtype == torch.float64
        assert metric._reductions[name] is torchmetrics.utilities.dim_zero_sum
    none = NormalizedLevenshteinSimilarity(reduction=None)
    assert none._reductions["segment_score_sum"] is torchmetrics.utilities.dim_zero_cat
    assert "segment_score_sum" not in NormalizedLevenshteinSimilarity()._defaults


def test_integer_statistics_come_back_as_int() -> None:
    metric = WordErrorRate()
    metric.update(["hello duck", "i like python"], ["hello world", "i like monthy python"])
    stats = metric.stats
    assert all(type(v) is int for v in stats.to_dict().values())
    result = metric.compute_result()
    assert (result.substitutions, result.deletions, result.insertions) == (1, 1, 0)
    assert metric.compute().item() == pytest.approx(2 / 6)  # jiwer.wer gives 0.333…


def test_merge_state_and_clone_and_pickle() -> None:
    a = NormalizedLevenshteinSimilarity(reduction=None)
    b = NormalizedLevenshteinSimilarity(reduction=None)
    a.update(PREDS[:3], REFS[:3])
    b.update(PREDS[3:], REFS[3:])
    a.merge_state(b)
    # torchmetrics' merge_state puts the incoming metric's list states first
    order = list(range(3, len(PREDS))) + list(range(3))
    expected_scores = nlgmetrics.nls([PREDS[i] for i in order], [REFS[i] for i in order], reduction=None).score
    expected = torch.tensor(expected_scores, dtype=torch.float64)
    torch.testing.assert_close(a.compute(), expected)
    for twin in (a.clone(), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        torch.testing.assert_close(twin.compute(), expected)
        twin.update(["x"], ["x"])
        assert twin.compute().shape == (len(PREDS) + 1,)
    with pytest.raises(ValueError, match="same class and configuration"):
        NormalizedLevenshteinSimilarity().merge_state(NormalizedLevenshteinSimilarity(substitution_cost=2))


def test_class_attributes() -> None:
    assert NormalizedLevenshteinSimilarity.higher_is_better is True
    assert ANLS.higher_is_better is True
    assert EditDistance.higher_is_better is False
    assert CharErrorRate.higher_is_better is False
    assert WordErrorRate.higher_is_better is False
    for cls in (NormalizedLevenshteinSimilarity, EditDistance, CharErrorRate, WordErrorRate, ANLS):
        assert issubclass(cls, torchmetrics.Metric)
        assert cls.full_state_update is False
        assert cls.is_differentiable is False
        assert cls.__module__ == "nlgmetrics.torch"


def test_options_and_torchmetrics_kwargs() -> None:
    metric = ANLS("anls-pkg", threshold=0.4, dist_sync_on_step=False, compute_with_cache=False)
    assert metric.config.threshold == 0.4
    assert metric.config.threshold_on == "distance"
    assert metric.compute_with_cache is False
    with pytest.raises(UnknownOptionError, match="valid options"):
        NormalizedLevenshteinSimilarity(beam=3)
    with pytest.raises(UnknownOptionError):
        NormalizedLevenshteinSimilarity(reduction="median")
    with pytest.raises(UnknownOptionError):
        ANLS("squad")


def test_bad_input_raises_invalid_input() -> None:
    metric = NormalizedLevenshteinSimilarity()
    with pytest.raises(InvalidInputError):
        metric.update(["a", "b"], ["a"])
    with pytest.raises(InvalidInputError):
        metric.update([1], ["a"])
    with pytest.raises(InvalidInputError):
        WordErrorRate().update(["a"], [["a", "b"]])  # WER takes one reference per segment


def test_factory_builds_a_new_adapter_in_one_line() -> None:
    Similarity = torch_metric(NLS, "Similarity", higher_is_better=True)
    metric = Similarity(reduction="sum")
    metric.update(["rain", "lnaguaeg"], ["shine", "language"])
    assert metric.compute().item() == pytest.approx(0.9)
    assert Similarity.__name__ == "Similarity"
    assert Similarity.__module__ == __name__


def _imports_torch_at_the_top(path: Path) -> bool:
    """Whether a module imports torch or torchmetrics when it is imported (not inside a function)."""
    return bool(re.search(r"^(import|from)\s+(torch|torchmetrics)\b", path.read_text(encoding="utf-8"), re.MULTILINE))


LEARNED_MODEL_MODULES = ("encoder.py", "model.py")


def test_only_nlgmetrics_torch_imports_torch() -> None:
    # torch is imported by nlgmetrics.torch (the adapters), by the encoder engine's device, runner and parallel
    # modules, and by the model families' heads (metrics/<family>/head.py); nothing else imports it, even lazily
    # inside a function, except through those modules
    pattern = re.compile(r"^\s*(import|from)\s+(torch|torchmetrics)\b", re.MULTILINE)

    def allowed(rel: Path) -> bool:
        if rel.parts[0] in ("torch", "engine") or (rel.parts[0] == "metrics" and rel.name == "head.py"):
            return True
        # the learned metrics' model modules (their encoders and heads), imported only when one of them scores
        return rel.parts[:2] in (("metrics", "comet"), ("metrics", "metricx")) and rel.name in LEARNED_MODEL_MODULES

    offenders = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if not allowed(path.relative_to(SRC)) and pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    # and only at the top of modules that importing nlgmetrics (or its engine) never loads
    eager = [str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if _imports_torch_at_the_top(p)]
    assert all(allowed(Path(e)) for e in eager), eager
    code = "import sys, nlgmetrics, nlgmetrics.engine, nlgmetrics.metrics.bertscore; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_missing_torch_gives_an_install_hint() -> None:
    code = (
        "import sys\n"
        "sys.modules['torchmetrics'] = None\n"
        "import nlgmetrics.torch\n"  # torch alone is enough for the package (the BERTScore kernel needs no more)
        "try:\n"
        "    from nlgmetrics.torch import NormalizedLevenshteinSimilarity\n"
        "except ImportError as err:\n"
        "    from nlgmetrics.errors import MissingDependencyError\n"
        "    assert isinstance(err, MissingDependencyError), type(err)\n"
        "    print(err)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'nlgmetrics[torch]'" in out.stdout
