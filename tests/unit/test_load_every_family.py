"""``nlgmetrics.load(name)`` serves every catalogue family, derived from the catalogue and the family's declaration.

A family that an HF ``evaluate`` name maps to (``bleu``, ``rouge``, ``wer``, ...) keeps HF's keys and scales (see
``test_hf_facade.py`` and the parity tests); every other family is served by its own name, with its default preset,
its config fields as keyword options, its further inputs by keyword, and a dict of its headline and the result's
plain numbers. Both give the functional numbers, through ``compute`` and through ``add``/``add_batch``.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import pytest

import nlgmetrics
from nlgmetrics.algorithms.native import has_native
from nlgmetrics.errors import InvalidInputError, UnknownOptionError
from nlgmetrics.hf import HF_METRICS, FamilyMetric, HFMetric, supported
from nlgmetrics.metrics.catalog import CATALOG, get_family
from tests.unit.test_catalog import NAMES, _example, _same, _src

#: Families whose every call takes seconds (a JVM to start, a model to load): checked through compute only.
SLOW = {"meteor15", "bertscore"}


def _expected(
    name: str, metric: HFMetric | FamilyMetric, preds: list[Any], refs: list[Any], sources: Any, options: dict
) -> Any:
    """What ``load(name).compute`` must return: the functional result of the same config, through the output of the
    HF row (an HF name) or of the family (its own name)."""
    family = get_family(name)
    config, hf = metric.config_for(options)
    result = family.compute(preds, refs, config, segments=metric.spec.segments(hf), **_src(sources))
    return result, metric.spec.output(result, hf)


@pytest.mark.parametrize("name", NAMES)
def test_load_serves_every_family(name: str) -> None:
    preds, refs, sources, options = _example(name)
    metric = nlgmetrics.load(name)
    if name in HF_METRICS:
        assert type(metric) is HFMetric
        assert HF_METRICS[name].family == name
    else:
        assert type(metric) is FamilyMetric
    result, expected = _expected(name, metric, preds, refs, sources, options)
    out = metric.compute(predictions=preds, references=refs, **_src(sources), **options)
    assert _same(out, expected), (out, expected)
    if isinstance(metric, FamilyMetric):
        # the headline under the family's name (or the result's own headline keys), then its plain numbers
        headline = getattr(result, "headline_values", None)
        score = headline() if headline else result.score
        if isinstance(score, dict):
            assert all(_same(out[k], v) for k, v in score.items())
        else:
            assert next(iter(out)) == name
            assert _same(out[name], score)
        for field in dataclasses.fields(result):
            value = getattr(result, field.name)
            if type(value) in (int, float) and field.name not in ("score", "segments"):
                assert out[field.name] == value
    if name in SLOW:
        return
    # add then add_batch, then compute: the same numbers (the inputs are scored together, then cleared)
    metric.add(prediction=preds[0], reference=refs[0], **({"source": sources[0]} if sources else {}))
    metric.add_batch(predictions=preds[1:], references=refs[1:], **_src(sources and sources[1:]))
    assert _same(metric.compute(**options), expected)
    with pytest.raises(InvalidInputError, match="needs"):
        metric.compute()


def test_supported_lists_every_family_and_every_hf_name() -> None:
    assert set(supported(families=True)) == set(supported()) | set(CATALOG)
    assert set(supported()) == {n for n, s in HF_METRICS.items() if s.family in CATALOG}


def test_options_presets_and_inputs_are_the_familys() -> None:
    preds, refs = ["the cat sat on the mat", "a quick brown fox"], [["the cat is on the mat"], ["the quick fox"]]
    nist = nlgmetrics.load("nist", preset="mteval-13a").compute(predictions=preds, references=refs)
    assert nist["nist"] == nlgmetrics.nist(preds, refs, preset="mteval-13a").score
    gleu = nlgmetrics.load("gleu").compute(predictions=preds, references=refs, preset="hf-google-bleu")
    assert gleu["gleu"] == nlgmetrics.load("google_bleu").compute(predictions=preds, references=refs)["google_bleu"]
    per = nlgmetrics.load("nls", reduction="none").compute(predictions=preds, references=["the cat", "a fox"])
    assert per["nls"] == list(nlgmetrics.nls(preds, ["the cat", "a fox"], reduction="none").score)
    # the family's further inputs by keyword; no references where the family's function takes none
    logprobs, num_bytes = [[-0.5, -1.25], [-2.0]], [7, 3]
    ppl = nlgmetrics.load("perplexity")
    ppl.add_batch(predictions=logprobs[:1])
    ppl.add_batch(predictions=logprobs[1:])
    out = ppl.compute(num_bytes=num_bytes)
    assert out["bits_per_byte"] == nlgmetrics.perplexity(logprobs, num_bytes=num_bytes).bits_per_byte
    ppl.add_batch(predictions=logprobs[:1], num_bytes=num_bytes[:1])
    ppl.add_batch(predictions=logprobs[1:])
    with pytest.raises(InvalidInputError, match=r"num_bytes= was given with 1 of the 2 batches"):
        ppl.compute()
    lls, gold, choices = [[-1.5, -0.5, -3.0], [-2.0, -2.5]], [1, 0], [["a", "bb", "c"], ["dd", "e"]]
    mc = nlgmetrics.load("multiple_choice").compute(predictions=lls, references=gold, choices=choices)
    assert mc["acc_norm"] == nlgmetrics.multiple_choice(lls, gold, choices=choices).acc_norm
    mc_metric = nlgmetrics.load("multiple_choice")
    for ll, g, c in zip(lls, gold, choices, strict=True):
        mc_metric.add(prediction=ll, reference=g, choices=c)
    assert mc_metric.compute() == mc
    with pytest.raises(InvalidInputError, match="needs predictions= and references="):
        nlgmetrics.load("nls").compute(predictions=["a"])


def test_arrays_and_tensors_are_read_whole() -> None:
    np = pytest.importorskip("numpy")
    logprobs = np.array([[-0.5, -1.0, -0.25], [-2.0, -0.1, -0.3]])
    assert nlgmetrics.load("perplexity").compute(predictions=logprobs) == nlgmetrics.load("perplexity").compute(
        predictions=logprobs.tolist()
    )
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(0)
    logits, targets = torch.randn(2, 5, 11, generator=g, dtype=torch.float64), torch.randint(0, 11, (2, 5), generator=g)
    out = nlgmetrics.load("perplexity").compute(predictions=logits, references=targets)
    assert out["perplexity"] == nlgmetrics.perplexity(logits, targets).score
    ppl = nlgmetrics.load("perplexity")
    ppl.add_batch(predictions=logits[:1], references=targets[:1])
    ppl.add_batch(predictions=logits[1:], references=targets[1:])
    assert ppl.compute()["perplexity"] == pytest.approx(out["perplexity"], rel=1e-12)


def test_keywords_are_checked_with_the_nearest() -> None:
    with pytest.raises(UnknownOptionError, match=r"nist: keyword 'max_orders' is not supported \(nearest supported: "):
        nlgmetrics.load("nist", max_orders=3)
    with pytest.raises(InvalidInputError, match="model_id='gpt2' is not supported: nlgmetrics' perplexity runs no"):
        nlgmetrics.load("perplexity").compute(predictions=[[-0.5]], model_id="gpt2")
    with pytest.raises(InvalidInputError, match="model_id='gpt2' is not supported"):
        nlgmetrics.load("perplexity", model_id="gpt2")
    with pytest.raises(UnknownOptionError, match="keyword 'num_bytes' is not supported"):
        nlgmetrics.load("perplexity", num_bytes=[1])  # an input, not an option of the metric


def test_names_resolve_as_the_catalogue_and_unknown_ones_list_the_closest() -> None:
    assert nlgmetrics.load("edit-distance").name == "edit_distance"
    assert nlgmetrics.load("exact-match").name == "exact_match"  # the HF row, as "exact_match"
    with pytest.raises(
        UnknownOptionError, match=r"unknown HF evaluate metric 'nlss'.*catalogue family.*Did you mean 'nls' or "
    ):
        nlgmetrics.load("nlss")
    with pytest.raises(UnknownOptionError, match=r"'Nist'; .*Did you mean 'nist'\?"):
        nlgmetrics.load("Nist")


def test_a_new_family_is_served_with_no_other_edit(monkeypatch) -> None:
    from nlgmetrics.metrics import catalog
    from nlgmetrics.metrics.catalog import Entry

    monkeypatch.setitem(
        catalog.CATALOG, "nls_copy", Entry("nlgmetrics.metrics.nls:NLS", ("nls",), "NLSCopy", help="a copy")
    )
    out = nlgmetrics.load("nls_copy").compute(predictions=["abc"], references=["abd"])
    assert out["nls_copy"] == nlgmetrics.nls("abc", "abd").score


@pytest.mark.skipif(not has_native(), reason="without the compiled kernels the numpy paths count")
def test_one_pair_through_load_leaves_numpy_unloaded() -> None:
    """Where the function scores one pair without numpy, so does ``load(name).compute``."""
    code = (
        "import sys, nlgmetrics\n"
        "for name in ('nls', 'wer', 'cer', 'mer', 'wil', 'wip', 'anls', 'sacrebleu', 'chrf'):\n"
        "    nlgmetrics.load(name).compute(predictions=['the cat sat'], references=['the cat is here'])\n"
        "print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr
