"""Further keyword inputs (``Family.inputs``: perplexity's ``num_bytes``, SQuAD's ``na_probs``) are one mechanism:
every family, whether or not it overrides ``batch_stats``, refuses a keyword it does not declare with a message that
names the ones it takes, and a declared one reaches the kernel from the stateful class and the torch adapter as
from the functional API."""

from __future__ import annotations

from typing import Any

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.metrics.catalog import CATALOG, get_family
from tests.unit.test_catalog import DEFAULT_EXAMPLE, TEST_OPTIONS


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_an_undeclared_keyword_input_is_refused_by_name(name):
    family = get_family(name)
    ex: dict[str, Any] = dict(family.example or DEFAULT_EXAMPLE)
    refs = ex["references"]
    if family.single_reference:
        refs = [r if isinstance(r, str) else r[0] for r in refs]
    valid = ", ".join(family.inputs) if family.inputs else "none"
    message = f"{name} takes no lengths; its further inputs are: {valid}"
    if name == "bertscore":  # its config needs a model; it keeps the base batch_stats, which checks first
        with pytest.raises(InvalidInputError, match=message):
            family.check_inputs({"lengths": [1, 2]})
        return
    config = family.make_config(None, **{**ex.get("options", {}), **TEST_OPTIONS.get(name, {})})
    with pytest.raises(InvalidInputError, match=message):
        family.batch_stats(ex["predictions"], refs, config, sources=ex.get("sources"), lengths=[1, 2])


def test_squad_no_answer_probabilities_reach_every_interface():
    preds, refs, probs = ["", "Paris", "1976"], [[], ["Paris"], ["in 1976"]], [0.9, 0.2, 0.4]
    expected = nm.squad(preds, refs, preset="squad-v2", no_answer_probabilities=probs).official()
    stateful = nm.stateful.SQuAD(preset="squad-v2")
    stateful.update(preds[:1], refs[:1], na_probs=probs[:1])
    stateful.update(preds[1:], refs[1:], na_probs=probs[1:])
    assert stateful.compute().official() == expected
    assert expected["best_f1_thresh"] == 0.4  # the probabilities took part
    torch_metrics = pytest.importorskip("nlgmetrics.torch", exc_type=ImportError)
    adapter = torch_metrics.SQuAD(preset="squad-v2")
    adapter.update(preds, refs, na_probs=probs)
    assert float(adapter.compute()["f1"]) == expected["f1"]
