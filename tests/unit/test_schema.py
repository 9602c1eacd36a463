"""One statistics schema per family: every layout consumer (rows and matrices, JSON, bytes, torch) round-trips
every catalogued family's example statistics, with the dtypes the annotations declare."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest

from nlgmetrics.engines import _partials
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.catalog import CATALOG, get_family
from nlgmetrics.stats import Carried, RunningSum, Stats
from tests.unit.test_catalog import _example

NAMES = sorted(CATALOG)


@pytest.fixture(scope="module", params=NAMES)
def example(request):
    name = request.param
    preds, refs, sources, options = _example(name)
    family = get_family(name)
    config = family.make_config(**options)
    batch = family.batch_stats(preds, refs, config, sources=sources)
    return family, config, batch


def _same(a, b):
    """Equal, NaN equal to NaN, numpy scalars equal to Python numbers."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (float, np.floating)) and math.isnan(a):
        return isinstance(b, (float, np.floating)) and math.isnan(b)
    if isinstance(a, Carried):
        return type(a) is type(b) and a.to_bytes() == b.to_bytes()
    if isinstance(a, RunningSum):
        return isinstance(b, RunningSum) and a.anchored == b.anchored and _same(float(a), float(b))
    return bool(a == b) and (isinstance(a, int) == isinstance(b, int) or isinstance(a, (Fraction, np.generic)))


def _stats_equal(a: Stats, b: Stats) -> bool:
    return type(a) is type(b) and all(_same(getattr(a, n), getattr(b, n)) for n in a.field_names())


def test_rows(example):
    family, config, batch = example
    schema = family.schema(config)
    total = batch.total()
    carried = {f.name: getattr(total, f.name) for f in schema.carried}
    row = schema.to_row(total)
    assert len(row) == schema.width
    assert _stats_equal(schema.from_row(row, carried), total)


def test_exact_totals_as_bytes(example):
    family, config, batch = example
    schema = family.schema(config)
    exact = batch.exact_total()
    assert _stats_equal(schema.decode_total(schema.encode_total(exact)), exact)
    summed = schema.ordered_sum([schema.exact_zero(), exact]).rounded()
    assert repr(family.finalize(summed, config).score) == repr(family.finalize(exact.rounded(), config).score)


def test_batches_as_bytes_and_json(example):
    family, config, batch = example
    schema = family.schema(config)
    for back in (
        schema.decode_batch(schema.encode_batch(batch)),
        schema.columns_from_json(schema.columns_to_json(batch)),
    ):
        assert len(back) == len(batch)
        assert all(_stats_equal(a, b) for a, b in zip(back, batch, strict=True))


def test_json(example):
    family, config, batch = example
    schema = family.schema(config)
    total = batch.total()
    assert _stats_equal(schema.from_json(schema.to_json(total)), total)
    assert _stats_equal(type(total).from_dict(total.to_dict()), total)


def test_matrix_and_columns(example):
    family, config, batch = example
    schema = family.schema(config)
    matrix = schema.matrix(batch)
    assert matrix.shape == (len(batch), schema.width)
    columns = schema.columns(matrix)
    for f in schema.numeric:
        assert columns[f.name].dtype == f.dtype
        assert np.array_equal(columns[f.name], batch.columns[f.name])
    ones = np.ones((1, len(batch)), dtype=np.int64)
    summed, total = schema.sum_rows(ones, matrix)[0].tolist(), schema.to_row(batch.total())
    added = [k for f in schema.numeric if f.kind != "kept" for k in range(f.start, f.stop)]  # kept: not added
    assert [summed[k] for k in added] == pytest.approx([total[k] for k in added], rel=1e-12)


def test_dtypes_are_the_annotations(example):
    family, config, batch = example
    schema = family.schema(config)
    empty = family.empty_batch(config)
    for f in schema.numeric:
        annotation = str(next(x.type for x in dataclasses.fields(family.stats_cls) if x.name == f.name))
        assert ("int" in annotation) == f.integer, f.name
        assert batch.columns[f.name].dtype == f.dtype, f.name  # what the kernel gives is what is declared
        assert empty.columns[f.name].dtype == f.dtype, f.name
        assert empty.columns[f.name].shape[1:] == (() if f.size is None else (f.size,))
    total = batch.total()
    for f in schema.numeric:
        values = getattr(total, f.name)
        for v in values if isinstance(values, tuple) else (values,):
            assert isinstance(v, int) == f.integer, f.name


def test_a_bad_value_names_the_field(example):
    family, config, batch = example
    schema = family.schema(config)
    data = schema.to_json(batch.total())
    f = schema.numeric[0]
    bad = dict(data, **{f.name: "x" if f.size is None else ["x"] * f.size})
    with pytest.raises(InvalidInputError, match=repr(f.name)):
        schema.from_json(bad, where="state")
    columns = dict(schema.columns_to_json(batch), **{f.name: [[-1.5] * (f.size or 1)] * len(batch)})
    with pytest.raises(InvalidInputError, match=repr(f.name)):
        schema.columns_from_json(columns, where="segs")


def test_torch_round_trip(example):
    pytest.importorskip("torch")
    from nlgmetrics.torch._layout import StatsLayout

    batch = example[2]
    total = batch.total()
    layout = StatsLayout.of(total)
    carried = {f.name: getattr(total, f.name) for f in layout.schema.carried}
    assert _stats_equal(layout.from_tensor(layout.to_tensor(total), carried), total)
    rows = layout.rows_to_tensor(batch.columns)
    columns = layout.columns_from_rows(rows)
    for f in layout.schema.numeric:
        assert np.array_equal(columns[f.name], batch.columns[f.name])


def test_a_field_of_another_type_is_refused_when_the_schema_is_built():
    @dataclasses.dataclass(frozen=True)
    class Odd(Stats):
        count: int
        label: str

    with pytest.raises(TypeError, match=r"Odd\.label"):
        Odd.schema()


def test_bleu_kept_tail_is_summed_in_order_by_every_engine():
    """NLTK's smoothing 5 reads the last segment's tail: a two-partition corpus summed as the Spark and Ray
    engines sum it gives the one-call number (as Dask's ``+`` and the stateful merge give it)."""
    family = get_family("bleu")
    config = family.make_config("nltk", smoothing="method5")
    preds = ["the cat sat on the mat", "a quick brown fox jumps over it", "hello there general kenobi"]
    refs = ["the cat is on the mat", "the quick brown fox jumps over the dog", "hello there"]
    expected = family.compute(preds, refs, config).score
    schema = family.schema(config)
    parts = [family.batch_stats(preds[:2], refs[:2], config), family.batch_stats(preds[2:], refs[2:], config)]
    totals = [schema.decode_total(schema.encode_total(p.exact_total())) for p in parts]
    total = schema.ordered_sum([schema.exact_zero(), *totals])
    assert family.finalize(total.rounded(), config).score == expected
    assert family.finalize((parts[0].total() + parts[1].total()), config).score == expected
    # the Spark and Ray plumbing itself, two partitions summed in partition order
    encoded = [
        _partials.encode_total(_partials.partition_total(family, config, preds[a:b], refs[a:b]))
        for a, b in ((0, 2), (2, 3))
    ]
    assert _partials.finish(family, config, _partials.sum_encoded(family, config, encoded)).score == expected
