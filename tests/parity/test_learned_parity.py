"""Parity of the learned MT metrics with their reference code, on tiny random checkpoints the reference code wrote.

``tests/fixtures/learned`` holds checkpoints written by unbabel-comet 2.2.7 (``RegressionMetric``,
``UnifiedMetric``, ``XCOMETMetric``; BERT, XLM-R and MiniLM encoders; softmax, sparsemax and ``sparsemax_patch``
mixes; layer norm on and off; reference-based, QE and reference-only inputs) and by google-research/metricx's
``MT5ForRegression`` (commit fc4978e; tied and untied embeddings; gated-GELU and ReLU), with the scores their
``predict()`` gave (see the README there). Every segment must agree within 1e-6 (MetricX: 1e-5, a quarter of
what the reference itself moves when the same inputs are batched by 8 instead of 1), the system score likewise,
and XCOMET's error spans exactly (text, offsets, severity; confidence within 1e-6). Cases: English, Japanese,
Chinese, Korean, German; empty and whitespace-only inputs; inputs longer than the encoders' positions (both
truncations of the unified input); the WMT22 lines named in cases.json (``../shared/data``).
"""

from __future__ import annotations

import os
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import nlgmetrics as nm
from tests.learned_fixtures import (
    comet_options,
    comet_variants,
    hub_cache,
    load_cases,
    metricx_options,
    metricx_variants,
    recorded,
)

TOL = 1e-6
METRICX_TOL = 1e-5
FUNCTIONS = {"regression_metric": nm.comet, "unified_metric": nm.cometkiwi, "xcomet_metric": nm.xcomet}


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", hub_cache())
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:  # already imported: it read the cache folder then
        monkeypatch.setattr(constants, "HF_HUB_CACHE", hub_cache())


def _rows(part, shared):
    cases, real = load_cases(shared if part == "real" else None)
    return cases if part == "cases" else real


def _report(name, key, got, want, tol):
    deltas = [abs(a - b) for a, b in zip(got, want, strict=True)]
    bad = sum(d > tol for d in deltas)
    print(f"{name} {key}: {len(deltas)} segments, {bad} mismatches, max |delta| {max(deltas):.2e}")
    return bad


def _class_of(variant):
    import yaml

    from tests.learned_fixtures import FIXTURES

    hp = yaml.safe_load((FIXTURES / "comet" / variant / "hparams.yaml").read_text(encoding="utf-8"))
    return hp["class_identifier"]


@pytest.mark.parametrize("part", ["cases", "real"])
@pytest.mark.parametrize("variant", comet_variants())
def test_comet_variants(variant, part, request):
    shared = request.getfixturevalue("shared_data") if part == "real" else None
    rows = _rows(part, shared)
    fn = FUNCTIONS[_class_of(variant)]
    rec = recorded(variant)
    for key, entry in rec.items():
        if key == "reference" or not key.endswith("/" + part):
            continue
        mode = key.split("/")[0]
        preds = [r["mt"] for r in rows]
        refs = None if mode == "qe" else [r["ref"] for r in rows]
        srcs = None if mode == "refonly" else [r["src"] for r in rows]
        result = fn(preds, refs, sources=srcs, segments=True, **comet_options(variant))
        assert _report(variant, key, result.scores, entry["scores"], TOL) == 0
        assert abs(result.score - entry["system_score"]) <= TOL
        assert f"mix:{'sparsemax' if 'sparsemax' in variant else 'softmax'}" in result.signature
        spans = entry.get("metadata", {}).get("error_spans")
        if spans is not None:
            assert result.error_spans is not None
            for i, (got, want) in enumerate(zip(result.error_spans, spans, strict=True)):
                strip = [{k: v for k, v in s.items() if k != "confidence"} for s in got]
                assert strip == [{k: v for k, v in s.items() if k != "confidence"} for s in want], i
                for a, b in zip(got, want, strict=True):
                    assert abs(a["confidence"] - b["confidence"]) <= TOL
            assert any(spans), "the fixture has error spans to compare"


@pytest.mark.parametrize("part", ["cases", "real"])
@pytest.mark.parametrize("variant", metricx_variants())
def test_metricx_variants(variant, part, request):
    shared = request.getfixturevalue("shared_data") if part == "real" else None
    rows = _rows(part, shared)
    rec = recorded(variant)
    for key, entry in rec.items():
        if key == "reference" or not key.endswith("/" + part):
            continue
        mode, length, _ = key.split("/")
        refs = None if mode == "qe" else [r["ref"] for r in rows]
        result = nm.metricx(
            [r["mt"] for r in rows],
            refs,
            sources=[r["src"] for r in rows],
            max_input_length=int(length),
            segments=True,
            **metricx_options(variant),
        )
        assert _report(variant, key, result.scores, entry["scores"], METRICX_TOL) == 0
        assert abs(result.score - entry["system_score"]) <= METRICX_TOL
        assert f"qe:{'yes' if mode == 'qe' else 'no'}" in result.signature


def test_sparsemax_patch_runs_softmax():
    """COMET #195: a Hub checkpoint whose hparams.yaml says ``sparsemax_patch`` (its checkpoint: ``sparsemax``)
    is scored with softmax by unbabel-comet 2.2.7, and the signature says so."""
    cases, _ = load_cases(None)
    r = nm.cometkiwi(
        [c["mt"] for c in cases[:2]],
        sources=[c["src"] for c in cases[:2]],
        **comet_options("cometkiwi-xlmr-patch-noln"),
    )
    assert "|mix:softmax|" in r.signature


def test_minilm_tokenizer_from_the_cache():
    """The MiniLM encoder's tokenizer is ``xlm-roberta-base`` from the Hugging Face cache when not given."""
    options = comet_options("comet-minilm-softmax-ln")
    options.pop("tokenizer")
    cases, _ = load_cases(None)
    rec = recorded("comet-minilm-softmax-ln")["ref/cases"]
    r = nm.comet(
        [c["mt"] for c in cases], [c["ref"] for c in cases], sources=[c["src"] for c in cases], segments=True, **options
    )
    assert _report("minilm (cached tokenizer)", "ref/cases", r.scores, rec["scores"], TOL) == 0


def test_nothing_downloaded():
    assert os.environ["HF_HUB_OFFLINE"] == "1"
