"""EED: torchmetrics' documented example, options, the C and Python kernels, bad input."""

from __future__ import annotations

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics import eed as eed_module


def test_torchmetrics_example():
    preds = ["this is the prediction", "here is an other sample"]
    target = ["this is the reference", "here is another one"]
    r = nm.eed(preds, target, segments=True)
    assert round(r.score, 4) == 0.3078
    assert r.score == sum(r.segments) / 2
    assert nm.extended_edit_distance is nm.eed
    assert r.signature.startswith("eed|lang:en|alpha:2.0|rho:0.3|del:0.2|ins:1.0|red:mean|preset:torchmetrics|")


def test_several_references_take_the_lowest():
    one = nm.eed(["a cat"], ["a dog"]).score
    assert nm.eed(["a cat"], [["a dog", "a cat"]]).score < one
    assert nm.eed(["a cat"], [["a cat", "a dog"]]).score == nm.eed(["a cat"], ["a cat"]).score


def test_c_kernel_is_built_and_agrees_with_python():
    # the extension is optional at install time; where it is built it must give the Python loop's numbers
    if eed_module._PAIR is eed_module.eed_pair_python:
        pytest.skip("the C kernel is not built in this installation")
    for hyp, ref in [(" a b ", " a c "), ("", ""), ("日本語", "日本"), (" x  y ", " y x ")]:
        assert eed_module._PAIR(hyp, ref, 2.0, 0.3, 0.2, 1.0) == eed_module.eed_pair_python(
            hyp, ref, 2.0, 0.3, 0.2, 1.0
        )


def test_japanese_preprocessing_is_nfkc():
    assert nm.eed(["ＡＢＣ"], ["ABC"], language="ja").score == nm.eed(["ABC"], ["ABC"], language="ja").score


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"language": "de"}, "language must be one of en, ja"),
        ({"alpha": -1}, "alpha must be >= 0"),
        ({"rho": float("nan")}, "rho must be a finite number"),
        ({"deletion": "0.2"}, "deletion must be a number"),
        ({"reduction": "max"}, "reduction"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(InvalidInputError, match=message):
        nm.eed(["a"], ["a"], **options)


def test_empty_reference_without_coverage_cost_is_refused():
    assert nm.eed([""], [""], language="ja").score == 1.0  # coverage alone: (0 + 0.3) / (0 + 0.3)
    with pytest.raises(InvalidInputError, match="segment 1: an empty reference with rho=0"):
        nm.eed(["a", ""], ["a", ""], language="ja", rho=0)


def test_bad_input_names_the_index():
    with pytest.raises(InvalidInputError, match="1"):
        nm.eed(["a", 3], ["a", "b"])
