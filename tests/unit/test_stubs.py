"""The typed stubs of ``nlgmetrics`` and ``nlgmetrics.functional`` are the generator's output, and type checkers
read them: ``nm.bleu(preds, refs, tokenzier=...)`` is an error to mypy, ``tokenizer=`` and its alias ``tokenize=``
are not.

A family added or changed without regenerating fails the first test: run ``PYTHONPATH=src python
scripts/gen_stubs.py``.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import nlgmetrics as nm
from nlgmetrics.metrics.catalog import CATALOG, get_family
from nlgmetrics.signature import field_role

ROOT = Path(__file__).resolve().parents[2]
STUB = ROOT / "src" / "nlgmetrics" / "__init__.pyi"
STATEFUL_STUB = ROOT / "src" / "nlgmetrics" / "stateful" / "__init__.pyi"
TORCH_STUB = ROOT / "src" / "nlgmetrics" / "torch" / "__init__.pyi"
REGENERATE = "PYTHONPATH=src python scripts/gen_stubs.py"
NOT_OPTIONS = {"resolved", "internal"}


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("_gen_stubs", ROOT / "scripts" / "gen_stubs.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_stubs_are_what_the_generator_writes() -> None:
    pytest.importorskip("ruff")
    for rel, text in _generator().render().items():
        path = ROOT / rel
        assert path.exists(), f"{rel} is missing; run: {REGENERATE}"
        assert path.read_text(encoding="utf-8") == text, f"{rel} is stale; run: {REGENERATE}"


def _stub_defs() -> dict[str, ast.FunctionDef]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _options(family: Any) -> set[str]:
    """What a caller may give a family's ``make_config``: the config fields but the resolved and internal ones, and
    the option aliases."""
    fields = {f.name for f in dataclasses.fields(family.config_cls) if field_role(f) not in NOT_OPTIONS}
    return fields | set(family.option_aliases)


def test_every_function_taking_options_has_its_config_fields_as_keywords() -> None:
    """Each ``**options`` function is spelled out in the stub with exactly what it takes at run time: its own
    parameters, its family's config fields (but the ``resolved``/``internal`` ones) and the option aliases."""
    defs = _stub_defs()
    typed = 0
    for name, entry in CATALOG.items():
        family = get_family(name)
        for fn_name in entry.functions:
            params = inspect.signature(getattr(nm, fn_name)).parameters.values()
            if not any(p.kind is p.VAR_KEYWORD for p in params):
                assert fn_name not in defs  # re-exported from its module, whose annotations mypy reads
                continue
            typed += 1
            node = defs[fn_name]
            assert node.args.kwarg is None, fn_name
            expected = {p.name for p in params if p.kind is not p.VAR_KEYWORD} | _options(family)
            got = {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
            assert got == expected, fn_name
            positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
            assert [a.arg for a in node.args.args] == positional, fn_name
    assert typed >= 20


def test_every_stateful_class_takes_its_config_fields() -> None:
    tree = ast.parse(STATEFUL_STUB.read_text(encoding="utf-8"))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    expected_classes = {entry.cls: name for name, entry in CATALOG.items() if entry.cls}
    assert set(classes) == set(expected_classes)
    for cls, name in expected_classes.items():
        (init,) = [node for node in classes[cls].body if isinstance(node, ast.FunctionDef)]
        args = init.args
        assert args.kwarg is None, cls
        assert [a.arg for a in args.args] == ["self", "preset"], cls
        assert {a.arg for a in args.kwonlyargs} == {"keep_segments"} | _options(get_family(name)) - {"preset"}, cls


def test_every_torch_adapter_takes_its_config_fields_and_torchmetrics_keywords() -> None:
    nt = pytest.importorskip("nlgmetrics.torch")
    from nlgmetrics.torch.adapter import TORCHMETRICS_KWARGS

    tree = ast.parse(TORCH_STUB.read_text(encoding="utf-8"))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    assert set(classes) == {n for n in nt.__all__ if n[0].isupper() and n != "TorchMetric"}
    for name, entry in CATALOG.items():
        if not entry.cls or entry.cls in nt.TORCHMETRICS_NAMES or name in nt._OWN_CLASSES:
            continue
        (init,) = [node for node in classes[entry.cls].body if isinstance(node, ast.FunctionDef)]
        assert init.args.kwarg is None, entry.cls
        expected = {"keep_segments"} | TORCHMETRICS_KWARGS | _options(get_family(name)) - {"preset"}
        assert {a.arg for a in init.args.kwonlyargs} == expected, entry.cls
    for name in nt.TORCHMETRICS_NAMES:  # torchmetrics' own arguments: left open
        (init,) = [node for node in classes[name].body if isinstance(node, ast.FunctionDef)]
        assert init.args.kwarg is not None, name


def test_mypy_reads_the_options_of_a_lazy_export(tmp_path: Path) -> None:
    api = pytest.importorskip("mypy.api")
    sample = tmp_path / "sample.py"
    sample.write_text(
        textwrap.dedent(
            """\
            import nlgmetrics as nm
            from nlgmetrics.functional import chrf

            P = ["the cat sat on the mat"]
            R = [["the cat is on the mat"]]
            nm.bleu(P, R, tokenizer="13a", lowercase=True)
            nm.bleu(P, R, tokenize="13a", preset="nltk")
            chrf(P, R, word_order=2)
            m = nm.BLEU("nltk", keep_segments=True, tokenize="13a")
            nm.bleu(P, R, tokenzier="13a")
            nm.bleu(P, R, preset="sacrebleu2")
            nm.CHRF(word_ordr=2)
            from nlgmetrics.torch import CHRF as TorchCHRF
            TorchCHRF("chrf++", dist_sync_on_step=True)
            TorchCHRF(word_ordr=2)
            """
        ),
        encoding="utf-8",
    )
    # the stubs only (imports of .py modules skipped), a fresh cache: a few seconds
    config = tmp_path / "mypy.ini"
    config.write_text(
        f"[mypy]\nmypy_path = {ROOT / 'src'}\nfollow_imports = skip\ncache_dir = {tmp_path / 'cache'}\n"
        f"python_version = {sys.version_info.major}.{sys.version_info.minor}\n",
        encoding="utf-8",
    )
    stdout, stderr, status = api.run(["--config-file", str(config), "--no-error-summary", str(sample)])
    errors = [line for line in stdout.splitlines() if ": error:" in line]
    assert status == 1, stdout + stderr
    assert len(errors) == 4, stdout
    assert errors[0].startswith(f'{sample}:10: error: Unexpected keyword argument "tokenzier" for "bleu"')
    assert errors[1].startswith(f'{sample}:11: error: Argument "preset" to "bleu"')
    assert errors[2].startswith(f'{sample}:12: error: Unexpected keyword argument "word_ordr" for "CHRF"')
    assert errors[3].startswith(f'{sample}:15: error: Unexpected keyword argument "word_ordr" for "CHRF"')
