"""The one-pair path (``Family.pair_kernel``, taken by ``compute`` on two strings) against the batch path.

Every catalogued family that declares a ``pair_kernel`` must give, on one pair, exactly what its batch kernel gives
on a batch of that one pair: the same statistics, the same result (compared by ``repr``, so ``-0.0`` against
``0.0`` or ``1`` against ``1.0`` would show), the same signature, and the same errors.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nlgmetrics.algorithms.guard import InputTooLongError, pair_limit
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.catalog import CATALOG, get_family

PAIR_FAMILIES = sorted(name for name in CATALOG if get_family(name).pair_kernel is not None)

# the settings that change what the pair kernel computes (costs, thresholds and their ties, length bases,
# normalisers, tokenizers) and what the formula does with it (reductions)
OPTIONS: dict[str, list[tuple[str | None, dict[str, object]]]] = {
    "nls": [
        (None, {}),
        (None, {"substitution_cost": 2}),
        (None, {"substitution_cost": 0, "reduction": "sum"}),
        (None, {"reduction": None}),
    ],
    "edit_distance": [(None, {}), (None, {"substitution_cost": 2, "reduction": "sum"}), (None, {"reduction": None})],
    "anls": [
        (None, {}),
        ("anls-pkg", {}),
        ("docvqa", {"threshold": 0.0}),
        ("anls-pkg", {"threshold": 1.0}),
        (None, {"length_basis": "normalized", "threshold": 0.25}),
        (None, {"normalizer": "none", "threshold_on": "distance"}),
    ],
    "cer": [(None, {}), (None, {"substitution_cost": 2}), (None, {"tokenizer": "char"})],
    "wer": [(None, {}), (None, {"substitution_cost": 3}), (None, {"tokenizer": "whitespace"})],
    "mer": [(None, {})],
    "wil": [(None, {})],
    "wip": [(None, {})],
}

# ASCII, spaces and tabs, case pairs whose upper or lower form changes the length (ß, İ), CJK, full-width forms and
# punctuation; plus whole strings that are empty, blank or punctuation only
_ALPHABET = "abcAB \t\u3000ßİ日本語の文字ＡＢ１２！？.,!?-/"
text = st.one_of(
    st.text(alphabet=_ALPHABET, max_size=14),
    st.sampled_from(["", " ", "  \t ", "...", "!?", "！？。", "、", "ＡＢＣ", "日本語", "ß", "İ"]),
)


def test_the_edit_families_have_a_pair_path() -> None:
    assert {"nls", "anls", "cer", "wer", "edit_distance"} <= set(PAIR_FAMILIES)
    assert set(PAIR_FAMILIES) <= set(OPTIONS), "give the options to try for every family with a pair_kernel"


def _configs(name: str) -> list[object]:
    family = get_family(name)
    return [family.make_config(preset, **options) for preset, options in OPTIONS[name]]


@pytest.mark.parametrize("name", PAIR_FAMILIES)
@given(prediction=text, reference=text)
def test_one_pair_is_the_batch_of_one_pair(name: str, prediction: str, reference: str) -> None:
    family = get_family(name)
    for config in _configs(name):
        batch = family.batch_stats([prediction], [reference], config)
        values = family.pair_kernel(prediction, reference, config)
        assert repr(family.stats_cls(*values)) == repr(batch[0]) == repr(batch.total())
        for segments in (False, True):
            one = family.compute(prediction, reference, config, segments=segments)
            listed = family.compute([prediction], [reference], config, segments=segments)
            assert type(one) is type(listed)
            assert repr(one) == repr(listed), (config, segments)
            assert one.signature == listed.signature


@pytest.mark.parametrize("name", PAIR_FAMILIES)
def test_public_function_on_one_pair(name: str) -> None:
    import nlgmetrics as nm

    fn = getattr(nm, CATALOG[name].functions[0])
    one, listed = fn("Ｄenver  Broncos!", "denver broncos"), fn(["Ｄenver  Broncos!"], ["denver broncos"])
    assert repr(one) == repr(listed)
    assert type(one).__name__.endswith("Result")


def _error(call: object) -> str:
    with pytest.raises(InvalidInputError) as info:
        call()  # type: ignore[operator]
    return f"{type(info.value).__name__}: {info.value}"


@pytest.mark.parametrize("name", PAIR_FAMILIES)
@pytest.mark.parametrize(
    ("predictions", "references"),
    [(None, "a"), ("a", None), (1, "a"), ("a", 2.5), (b"a", "a"), ("a", ["a", "b", "c"]), ("a", [])],
)
def test_bad_one_pair_input_fails_as_in_a_batch(name: str, predictions: object, references: object) -> None:
    # anything but two strings takes the batch path's checks: the same message, naming the index
    family = get_family(name)
    config = family.make_config()
    single = _error(lambda: family.compute(predictions, references, config))
    assert single == _error(lambda: family.batch_stats(predictions, references, config))
    assert single.startswith("InvalidInputError: predictions") or single.startswith("InvalidInputError: references")


@pytest.mark.parametrize("name", PAIR_FAMILIES)
def test_the_cost_guard_refuses_one_pair_as_in_a_batch(name: str) -> None:
    family = get_family(name)
    config = family.make_config()
    prediction, reference = "ab c" * 500, "ba d" * 500
    with pair_limit(1e-6):
        with pytest.raises(InputTooLongError) as one:
            family.compute(prediction, reference, config)
        with pytest.raises(InputTooLongError) as listed:
            family.compute([prediction], [reference], config)
    assert str(one.value) == str(listed.value)
    assert str(one.value).startswith("predictions[0] is too long for ")
    within = family.compute(prediction, reference, config)
    assert repr(within) == repr(family.compute([prediction], [reference], config))


def test_one_pair_builds_no_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    import nlgmetrics as nm
    from nlgmetrics.stats import StatsBatch

    def no_batch(*args: object, **kwargs: object) -> None:
        raise AssertionError("a one-pair call built a batch")

    monkeypatch.setattr(StatsBatch, "from_lists", no_batch)
    assert nm.nls("kitten", "sitting").score == pytest.approx(1 - 3 / 7)
    assert nm.anls("Denver", "denver").score == 1.0
    assert nm.cer("abc", "abd").substitutions == 1
    with pytest.raises(AssertionError, match="built a batch"):
        nm.nls(["kitten"], ["sitting"])
