"""Spark (local mode) gives the one-process numbers bit for bit, whatever the partitioning."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.catalog import get_family

PREDS = [f"the cat sat on mat {i} and {i % 7} dogs" for i in range(60)]
REFS = [[f"the cat sat on the mat {i}", f"a cat on mat {i % 5}"] for i in range(60)]


def _frame(spark, preds, refs, partitions):
    rows = list(zip(preds, refs, strict=True))
    kind = "string" if all(isinstance(r, str) for r in refs) else "array<string>"
    return spark.createDataFrame(rows, f"prediction string, references {kind}").repartition(partitions)


def _expected(metric, preds, refs, *, segments=False, preset=None, **options):
    family = get_family(metric)
    return family.compute(preds, refs, family.make_config(preset, **options), segments=segments)


@pytest.mark.parametrize(
    ("metric", "preset"), [("bleu", None), ("chrf", "chrf++"), ("ter", None), ("nist", "mteval-13a"), ("cider", None)]
)
def test_partitionings_give_identical_results(spark, metric, preset):
    from nlgmetrics.engines.spark import score_dataframe

    expected = _expected(metric, PREDS, REFS, preset=preset)
    # a repartition shuffles rows, so the per-segment order is checked below on ordered frames
    for partitions in (1, 3, 7):
        got = score_dataframe(_frame(spark, PREDS, REFS, partitions), metric, preset=preset, fan_in=2)
        assert repr(got.score) == repr(expected.score), partitions
        assert got.signature == expected.signature


def test_segments_in_input_order(spark):
    from nlgmetrics.engines.spark import score_dataframe

    rows = list(zip(PREDS, REFS, strict=True))
    frame = spark.createDataFrame(rows, "prediction string, references array<string>")  # keeps the list's order
    for metric in ("rouge", "cider"):
        got = score_dataframe(frame.coalesce(3), metric, segments=True)
        assert repr(got) == repr(_expected(metric, PREDS, REFS, segments=True))


_WORDS = st.sampled_from(["the", "cat", "sat", "猫", "が", "座った", "ｃａｔ", ".", ""])
_TEXT = st.lists(_WORDS, max_size=6).map(" ".join)


@settings(max_examples=4, deadline=None)
@given(
    pairs=st.lists(st.tuples(_TEXT, _TEXT), min_size=1, max_size=12),
    slices=st.integers(1, 4),
    metric=st.sampled_from(["bleu", "chrf", "wer", "nls", "rouge"]),
)
def test_hypothesis_inputs_and_slices(spark, pairs, slices, metric):
    from nlgmetrics.engines.spark import score_dataframe

    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    rows = spark.sparkContext.parallelize(pairs, slices)  # consecutive slices, in order
    frame = spark.createDataFrame(rows, "prediction string, references string")
    got = score_dataframe(frame, metric, segments=True)
    assert repr(got) == repr(_expected(metric, preds, refs, segments=True))


def test_custom_column_names(spark):
    from nlgmetrics.engines.spark import stats_of_dataframe

    frame = spark.createDataFrame([("a b c", "a b d")], "hyp string, ref string")
    family = get_family("wer")
    got = stats_of_dataframe(frame, "wer", prediction="hyp", references="ref")
    assert got == family.batch_stats(["a b c"], ["a b d"], family.make_config()).total()


def test_bad_input(spark):
    from nlgmetrics.engines.spark import score_dataframe

    frame = spark.createDataFrame([("a", "a")], "hyp string, ref string")
    with pytest.raises(InvalidInputError, match="no column 'prediction' in the DataFrame; its columns are: hyp, ref"):
        score_dataframe(frame, "wer")
    with pytest.raises(InvalidInputError, match="unknown option"):
        score_dataframe(frame, "wer", prediction="hyp", references="ref", colour="red")
    with pytest.raises(InvalidInputError, match=r"^Spark partition \d+, rows from 0: references\[0\] is None"):
        score_dataframe(
            spark.createDataFrame([("a", None)], "hyp string, ref string"), "wer", prediction="hyp", references="ref"
        )
