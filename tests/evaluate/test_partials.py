"""The plumbing of the Spark and Ray engines, without either: every catalogued family, split into partitions of
any shape, shipped as bytes and summed in order, gives the one-process result bit for bit (per-segment scores
included)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlgmetrics.engines import _partials as partials
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.catalog import CATALOG, get_family
from tests.unit.test_catalog import TOLERANCE, _example

NAMES = sorted(CATALOG)


def _engine(name, preds, refs, sources, options, cuts, *, segments=True, fan_in=2):
    """What an engine does: per-partition exact totals (and batches) as bytes, an ordered sum, the formula."""
    family = get_family(name)
    config = family.make_config(**options)
    bounds = [0, *cuts, len(preds)]
    totals, batches = [], []
    for lo, hi in itertools.pairwise(bounds):
        src = None if sources is None else sources[lo:hi]
        batch = partials.partition_batch(family, config, preds[lo:hi], refs[lo:hi], src)
        totals.append(partials.decode_total(family, partials.encode_total(batch.exact_total())))
        batches.append(partials.decode_batch(family, partials.encode_batch(batch)))
    total = partials.ordered_sum(family, config, totals, fan_in=fan_in)
    return partials.finish(family, config, total, batches if segments else None)


def _one_process(name, preds, refs, sources, options, *, segments=True):
    family = get_family(name)
    return family.compute(preds, refs, family.make_config(**options), segments=segments, sources=sources)


@pytest.mark.parametrize("name", NAMES)
def test_every_family_any_partitioning(name):
    preds, refs, sources, options = _example(name)
    expected = _one_process(name, preds, refs, sources, options)
    n = len(preds)
    if name in TOLERANCE:  # a model's forward passes depend on the batch's composition: close, not identical
        got = _engine(name, preds, refs, sources, options, [1])
        assert got.score == pytest.approx(expected.score, abs=TOLERANCE[name])
        assert got.signature == expected.signature  # what the engines sign is what one call signs
        return
    for cuts in ([], [1], list(range(1, n)), [0, 0, n]):  # one, two, one per segment, empty partitions
        got = _engine(name, preds, refs, sources, options, sorted(cuts))
        assert repr(got) == repr(expected), cuts
        without = _engine(name, preds, refs, sources, options, sorted(cuts), segments=False)
        assert repr(without.score) == repr(_one_process(name, preds, refs, sources, options, segments=False).score)


TEXT_FAMILIES = [
    n
    for n in NAMES
    if not CATALOG[n].in_process
    and not get_family(n).uses_sources
    and all(isinstance(p, str) for p in (get_family(n).example or {"predictions": [""]})["predictions"])
    and n != "coco"  # its PTB tokenizer starts a Java process per call: covered on its example above
]
_WORDS = st.sampled_from(["the", "cat", "sat", "on", "a", "mat", "猫", "が", "座った", "ｃａｔ", ".", ",", "!", ""])
_TEXT = st.lists(_WORDS, max_size=8).map(" ".join)


@st.composite
def _corpus(draw):
    n = draw(st.integers(1, 9))
    preds = draw(st.lists(_TEXT, min_size=n, max_size=n))
    refs = draw(st.lists(st.one_of(_TEXT, st.lists(_TEXT, min_size=1, max_size=3)), min_size=n, max_size=n))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    return preds, refs, cuts


@pytest.mark.parametrize("name", TEXT_FAMILIES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_corpus(), fan_in=st.integers(2, 4))
def test_hypothesis_partitions_are_bit_identical(name, case, fan_in):
    preds, refs, cuts = case
    family = get_family(name)
    if family.single_reference:
        refs = [r if isinstance(r, str) else r[0] for r in refs]
    options = dict((family.example or {}).get("options", {}))
    try:
        expected = _one_process(name, preds, refs, None, options)
    except InvalidInputError:
        return  # an input the family refuses (checked in its own tests)
    got = _engine(name, preds, refs, None, options, cuts, fan_in=fan_in)
    assert repr(got) == repr(expected)


def test_totals_keep_exact_fractions_and_non_finite_sums():
    family = get_family("nls")
    zero = family.zero(family.make_config())
    exact = type(zero)(**{f: Fraction(1, 3) if isinstance(v, float) else v for f, v in zero.to_dict().items()})
    assert partials.decode_total(family, partials.encode_total(exact)) == exact
    inf = type(zero)(**{f: float("inf") if isinstance(v, float) else v for f, v in zero.to_dict().items()})
    assert partials.decode_total(family, partials.encode_total(inf)) == inf


def test_no_partition_gives_the_empty_corpus_result():
    family = get_family("wer")
    config = family.make_config()
    got = partials.finish(family, config, partials.ordered_sum(family, config, []), [])
    assert got.segments == ()
    assert repr(got.score) == repr(family.finalize(family.zero(config), config).score)


def test_bad_input_names_the_partition():
    family = get_family("wer")
    with pytest.raises(InvalidInputError, match=r"^partition 3: predictions\[1\] is None"):
        partials.partition_total(family, family.make_config(), ["a", None], ["a", "b"], where="partition 3")


def test_a_missing_column_names_the_columns_that_exist():
    with pytest.raises(InvalidInputError, match=r"no column 'refs' in the table; its columns are: prediction, ref"):
        partials.check_columns(["prediction", "ref"], ["prediction", "refs", None], "table")


def test_reduction_none_needs_the_segments():
    family = get_family("nls")
    config = family.make_config(reduction="none")
    with pytest.raises(InvalidInputError, match="pass segments=True"):
        partials.finish(family, config, family.zero(config))
