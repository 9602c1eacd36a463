"""A new family is one module plus its catalogue line: ``tests/toy/unigram_precision.py`` (unigram precision, 88
lines: config, statistics, kernel, formula, declaration and its function) and the one :class:`Entry` below. With no
other source edit, every interface serves it: the function under ``nlgmetrics.``, the stateful class (split and
merged), the torchmetrics adapter, the subcommand with a flag per config field, ``evaluate`` and ``load()``."""

from __future__ import annotations

import json

import pytest

import nlgmetrics
import nlgmetrics.stateful
from nlgmetrics.cli.main import main
from nlgmetrics.metrics import catalog
from nlgmetrics.metrics.catalog import Entry, get_family

PREDS = ["the cat sat on the mat", "The dog barked", "猫 が 座った"]
REFS = [["the cat is on a mat", "a cat sat"], ["the dog barked loudly"], ["猫 が 座って いた"]]


@pytest.fixture
def toy(monkeypatch):
    entry = Entry(
        "tests.toy.unigram_precision:UNIGRAM_PRECISION",
        ("unigram_precision",),
        "UnigramPrecision",
        help="unigram precision: the share of prediction words found in the references (clipped counts)",
    )
    monkeypatch.setitem(catalog.CATALOG, "unigram_precision", entry)
    get_family.cache_clear()
    yield get_family("unigram_precision")
    get_family.cache_clear()
    for module, name in ((nlgmetrics, "unigram_precision"), (nlgmetrics.stateful, "UnigramPrecision")):
        module.__dict__.pop(name, None)


def test_a_family_is_one_module_and_its_catalogue_line(toy, tmp_path, capsys):
    expected = toy.compute(PREDS, REFS, toy.make_config())
    assert expected.score == 9 / 12  # the (once of twice), cat, sat, on, mat; dog, barked (not The); 猫, が
    # the function, exported from the catalogue line
    assert nlgmetrics.unigram_precision(PREDS, REFS).score == expected.score
    assert nlgmetrics.unigram_precision(PREDS, REFS, lowercase=True).score == 10 / 12
    # the stateful class: updates in two parts, then a state merged into a fresh instance
    metric = nlgmetrics.stateful.UnigramPrecision()
    metric.update(PREDS[:1], REFS[:1])
    other = nlgmetrics.stateful.UnigramPrecision()
    other.update(PREDS[1:], REFS[1:])
    metric.merge(other)
    assert metric.compute().score == expected.score
    restored = nlgmetrics.stateful.UnigramPrecision()
    restored.load_state_dict(metric.state_dict())
    assert restored.compute().score == expected.score
    # the subcommand: a flag per config field, with its help
    for name, lines in (("p.txt", PREDS), ("r.txt", [r[0] for r in REFS])):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    pred, ref = str(tmp_path / "p.txt"), str(tmp_path / "r.txt")
    assert main(["unigram-precision", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    for flag in ("--tokenizer", "--lowercase", "lowercase the words first"):
        assert flag in shown
    assert main(["unigram-precision", "--pred", pred, "--ref", ref, "--json", "--tokenizer", "13a"]) == 0
    out = json.loads(capsys.readouterr().out)
    single = nlgmetrics.unigram_precision(PREDS, [r[0] for r in REFS], tokenizer="13a")
    assert out["unigram_precision"] == pytest.approx(single.score)
    assert "tok:13a" in single.signature  # the one public name of that tokenisation
    # evaluate, and load() by the family's own name
    from nlgmetrics.evaluate import evaluate

    ev = evaluate(ref, {"a": pred}, ["unigram_precision"], bootstrap=0, test=None)
    assert ev.scores["unigram_precision"]["a"].score == nlgmetrics.unigram_precision(PREDS, [r[0] for r in REFS]).score
    loaded = nlgmetrics.load("unigram_precision").compute(predictions=PREDS, references=REFS)
    assert loaded["unigram_precision"] == expected.score


def test_the_toy_family_has_a_torchmetrics_adapter(toy):
    pytest.importorskip("torchmetrics")
    import nlgmetrics.torch

    cls = nlgmetrics.torch.torch_class("unigram_precision")
    metric = cls()
    metric.update(PREDS[:2], REFS[:2])
    metric.update(PREDS[2:], REFS[2:])
    assert float(metric.compute()) == pytest.approx(toy.compute(PREDS, REFS, toy.make_config()).score)
