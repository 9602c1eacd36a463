"""ANLS*: input errors, the behaviours we reproduce (pinned, without the reference package), the family plumbing."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.anls_star import ANLS_STAR, ANLSStarStats, anls_star, anls_star_score
from nlgmetrics.stateful.metric import Metric

README_PRED = {"a": "hello!", "b": ["a", "test", "this", "be"]}
README_GT = {"a": ("hello", "world"), "b": ["this", "is", "a", "test"]}


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("predictions", "references", "message"),
    [
        (None, ["a"], r"predictions is None"),
        (["a"], None, r"references is None"),
        (["a", "b"], ["a"], r"differ in length: 2 predictions but 1 references"),
        ([], [], r"predictions is empty"),
        ("abc", "abc", r"predictions is a value of type str .*wrap a single sample in a list"),
        ({"a": "b"}, [{"a": "b"}], r"predictions is .*dict.*wrap a single sample"),
        (["a", "b", "c", {1, 2}], ["a"] * 4, r"predictions\[3\]: unsupported type set"),
        (["a"], [b"a"], r"references\[0\]: unsupported type bytes"),
        (
            ["a", {"k": [1, ("x", "y")]}],
            ["a", {"k": [1, 2]}],
            r"predictions\[1\]\['k'\]\[1\] is a tuple.*only in references",
        ),
        (["a", ("x",)], ["a", ("x",)], r"predictions\[1\] is a tuple"),
        ([{"k": "x"}], [{"k": ()}], r"references\[0\]\['k'\] is an empty tuple"),
        ([["x", np.float64(1.0)]], [["x", 1.0]], r"predictions\[0\]\[1\]: unsupported type float64 .*\.item\(\)"),
        (["ok", "x"], [["a"], []], r"references\[1\] is an empty list and predictions\[1\] is a string"),
    ],
)
def test_bad_input_names_the_sample(predictions, references, message):
    with pytest.raises(InvalidInputError, match=message):
        anls_star(predictions, references)


def test_invalid_input_is_a_value_error_and_the_single_pair_helper_checks_too():
    with pytest.raises(ValueError, match=r"predictions\[0\]: unsupported type set"):
        anls_star_score({1}, "x")
    with pytest.raises(InvalidInputError, match=r"predictions\[0\] is a tuple"):
        anls_star_score(("x",), ("x",))


def test_bad_options():
    with pytest.raises(InvalidInputError, match=r"threshold must be <= 1\.0"):
        anls_star(["a"], ["a"], threshold=1.5)
    with pytest.raises(InvalidInputError, match="list_as_alternatives must be True or False"):
        anls_star(["a"], ["a"], list_as_alternatives="yes")


def test_empty_list_reference_with_a_non_string_prediction_is_a_plain_list():
    # only a *string* prediction turns a list of strings into alternatives; [] vs [] is fine (1.0)
    assert anls_star_score([], []) == 1.0
    assert anls_star_score("x", [], list_as_alternatives=False) == 0.0


# ---------------------------------------------------------------------------------------------- behaviour
def test_readme_example_and_closest_ground_truth():
    r = anls_star([README_PRED], [README_GT], return_closest_gt=True)
    assert r.score == 0.7666666666666667
    assert r.closest_gt == ({"a": "hello", "b": ["a", "test", "this", "is"]},)


def test_leaves_are_compared_as_normalised_strings_with_threshold():
    assert anls_star_score("Hello Wrld", "Hello World") == 0.9090909090909091
    assert anls_star_score("  HELLO   world ", "hello world") == 1.0
    assert anls_star_score("ac", "ab") == 0.5  # exactly τ is kept
    assert anls_star_score("acd", "abc") == 0.0  # 1/3 < τ
    assert anls_star_score(11, 10) == 0.5  # numbers too: "11" vs "10"
    assert anls_star_score(1, 1.0) == 0.0  # "1" vs "1.0"
    assert anls_star_score("true", True) == 1.0
    assert anls_star_score(True, 1) == 0.0  # True == 1 in Python, but "true" != "1"
    assert anls_star_score("acd", "abc", threshold=0.0) == pytest.approx(1 / 3)
    assert anls_star_score("Hello Wrld", "Hello World", threshold=1.0) == 0.0


def test_none_handling_is_asymmetric():
    for none_like in (None, "", [], {}):
        assert anls_star_score(none_like, None) == 1.0
    for none_like in ("", [], {}):
        assert anls_star_score(None, none_like) == 0.0
    assert anls_star_score({}, {"a": None}) == 1.0  # a missing key is None
    assert anls_star_score({}, {"a": []}) == 0.0


def test_hallucinated_none_like_keys_still_count_in_the_length():
    for none_like in (None, "", [], {}):
        assert anls_star_score({"a": "x", "b": none_like}, {"a": "x"}) == 0.5
    assert anls_star_score({"a": "x", "b": "y"}, {"a": "x"}) == 0.5
    assert anls_star_score({"a": "x", "b": ["1", "2", "3"]}, {"a": "x"}) == 0.25


def test_zero_size_type_mismatches_score_one():
    assert anls_star_score([], []) == 1.0
    assert anls_star_score({}, {}) == 1.0
    assert anls_star_score({}, []) == 1.0
    assert anls_star_score([], {}) == 1.0
    assert anls_star_score({"a": [], "b": "x"}, {"a": {}, "b": "x"}) == 1.0
    assert anls_star_score(["a"], "a") == 0.0


def test_list_of_strings_reads_as_alternatives_at_top_level_only():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # unlike the package, we do not warn
        r = anls_star(["x", "y"], [["x", "y"], ["x", "y"]])
    assert r.score == 1.0
    assert r.alternatives == 2
    assert anls_star_score({"a": "x"}, {"a": ["x", "y"]}) == 0.0
    assert anls_star_score(1, ["1", "2"]) == 0.0
    assert anls_star_score("x", ["x", "y"], list_as_alternatives=False) == 0.0
    assert anls_star_score(["x"], ["x", "y"]) == 0.5


def test_tuples_pick_the_best_alternative():
    assert anls_star_score("world", ("hello", "world")) == 1.0
    assert anls_star_score({"a": ["x", "y"]}, {"a": (["x", "y", "z", "w"], ["x", "y"])}) == 1.0
    # nested alternatives
    assert anls_star_score("b", ("a", ("c", "b"))) == 1.0


def test_threshold_applies_to_leaves_not_to_averages():
    assert anls_star_score(["a", "c"], ["a", "b"]) == 0.5
    assert anls_star_score(["a", "x", "y", "z"], ["a", "b", "c", "d"]) == 0.25


def test_tuple_choice_is_local_to_the_tuple():
    # the first option has the better own score (0.75 vs 0.625) and wins, although the second would give the
    # higher overall score (3.75 / 16 instead of 3 / 14) next to ten wrong keys
    pred = {**{f"k{i}": "zzz" for i in range(10)}, "l": ["a", "b", "c", "dddd"]}
    first, second = ["a", "b", "c", "q"], ["a", "b", "c", "ddde", "x", "y"]
    wrong = {f"k{i}": "yyy" for i in range(10)}
    assert anls_star_score(pred, {**wrong, "l": (first, second)}) == pytest.approx(3 / 14)
    assert anls_star_score(pred, {**wrong, "l": (second,)}) == pytest.approx(3.75 / 16)


def test_tied_matchings_make_the_score_depend_on_list_order():
    # the four pairs inside "l" all score 0, so every matching is optimal, but they differ in length
    pred = {"k": "v", "l": ["q", ["w", "e", "r"]]}
    assert anls_star_score(pred, {"k": "v", "l": [["x", "y"], "z"]}) == pytest.approx(1 / 6)
    assert anls_star_score(pred, {"k": "v", "l": ["z", ["x", "y"]]}) == pytest.approx(1 / 5)


def test_inputs_are_not_mutated_and_numpy_object_arrays_are_accepted():
    preds = [README_PRED, {"x": [1, 2, None]}]
    refs = [README_GT, {"x": [2, 1]}]
    before = copy.deepcopy((preds, refs))
    a = anls_star(preds, refs, segments=True)
    assert (preds, refs) == before
    b = anls_star(np.array(preds, dtype=object), tuple(refs), segments=True)
    assert a.segments == b.segments


# ---------------------------------------------------------------------------------------------- plumbing
def test_result_fields_segments_and_signature():
    r = anls_star(["Hello Wrld", None, "x"], [["Hello World", "hi"], None, "y"], segments=True)
    assert r.segments == (0.9090909090909091, 1.0, 0.0)
    assert r.score == pytest.approx(sum(r.segments) / 3)
    assert (r.count, r.perfect, r.alternatives) == (3, 1, 1)
    assert r.signature == f"anls_star|tau:0.5|alt:yes|nlgmetrics:{nm.__version__}"
    assert r.closest_gt is None
    assert nm.anls_star is anls_star


def test_statistics_add():
    preds = [README_PRED, "x", {"a": [1, 2]}, None]
    refs = [README_GT, ("x", "y"), {"a": [2, 3]}, ""]
    cfg = ANLS_STAR.make_config()
    whole = ANLS_STAR.batch_stats(preds, refs, cfg).total()
    halves = (
        ANLS_STAR.batch_stats(preds[:2], refs[:2], cfg).total()
        + ANLS_STAR.batch_stats(preds[2:], refs[2:], cfg).total()
    )
    assert isinstance(whole, ANLSStarStats)
    assert whole.count == halves.count == 4
    assert whole.score_sum == pytest.approx(halves.score_sum)


def test_a_generic_stateful_metric_works_on_the_family():
    class ANLSStar(Metric):
        family = ANLS_STAR

    m = ANLSStar()
    m.update([README_PRED], [README_GT])
    m.update([], [])
    m.update(["x"], [["x", "y"]])
    assert m.compute().score == pytest.approx((0.7666666666666667 + 1.0) / 2)
    with pytest.raises(InvalidInputError, match=r"predictions\[0\] is a tuple"):
        m.update([("x",)], ["x"])
