"""No public name, signature, flag or number changes: the package against its recorded surface.

``tests/fixtures/public_surface.json`` holds the public surface (see ``tests/surface.py`` for what is in it). These
tests accept only additions:

* new public names, families, presets, subcommands and flags, ``state_dict`` keys;
* new keyword-only parameters with a default (or a new ``*args``/``**kwargs``) after the recorded ones;
* a family that the file does not hold (a new family) is not checked here at all;
* the tokenizer renames listed in :data:`TOKENIZER_RENAMES`, in result signatures.

A family or preset recorded as ``unavailable`` (its model, Java or package was missing where the file was
recorded), or unavailable here, is skipped. To change the surface on purpose, re-record the file and say why in
the commit: ``PYTHONPATH=src python scripts/record_surface.py`` (it prints the sections that changed).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests import surface

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "public_surface.json"
RECORDED: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))

#: The only signature changes allowed: a tokenisation signed under its one public name (issue 26, "one public name
#: per tokenisation"). Each row is ``(family, old name, new name)``: a recorded signature of that family has its
#: ``tok:<old>`` replaced by ``tok:<new>`` before the comparison. GLEU, METEOR, NIST and RIBES signed sacrebleu's
#: tokenizers by internal names; ``ja-mecab`` and ``char`` are stored and signed under the explicit name of what
#: they mean in the family (``nlgmetrics.text.tokenizers``; tests/unit/test_tokenizer_names.py checks that this
#: table is exactly what the resolver maps).
_SACREBLEU_RENAMES = (
    ("sacrebleu-13a", "13a"),
    ("sacrebleu-intl", "intl"),
    ("sacrebleu-zh", "zh"),
    ("sacrebleu-ko-mecab", "ko-mecab"),
    ("sacrebleu-ja-mecab", "ja-mecab-ipadic"),
    ("sacrebleu-none", "whitespace"),
)
TOKENIZER_RENAMES: tuple[tuple[str, str, str], ...] = (
    *((family, old, new) for family in ("gleu", "meteor", "nist", "ribes") for old, new in _SACREBLEU_RENAMES),
    ("meteor", "sacrebleu-char", "char"),
    ("ribes", "sacrebleu-char", "char"),
    *((family, "ja-mecab", "ja-mecab-unidic-lite") for family in ("gleu", "meteor", "nist", "ribes")),
    ("sari", "ja-mecab", "ja-mecab-ipadic"),
    *((family, "char", "char-list") for family in ("gleu", "nist", "cer", "wer", "mer", "wil", "wip")),
)

#: Families whose numbers come from model forward passes: compared to this relative tolerance, not by ``repr``.
TOLERANCE: dict[str, float] = {"bertscore": 1e-6}
#: Families whose example takes seconds (a model to load, a JVM to start).
SLOW = {"bertscore", "meteor15"}

_NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|-?inf|nan")


def _renamed(family: str, signature: str, renames: tuple[tuple[str, str, str], ...] = TOKENIZER_RENAMES) -> str:
    for name, old, new in renames:
        if name == family:
            signature = re.sub(rf"(?<=tok:){re.escape(old)}(?=[|,)\]]|$)", new, signature)
    return signature


def _same_score(recorded: str, current: str, tol: float | None) -> bool:
    if tol is None or recorded == current:
        return recorded == current
    if _NUMBER.sub("#", recorded) != _NUMBER.sub("#", current):
        return False
    a, b = _NUMBER.findall(recorded), _NUMBER.findall(current)
    pairs = [(float(x), float(y)) for x, y in zip(a, b, strict=True)]
    return all(x == y or abs(x - y) <= tol * max(abs(x), abs(y)) for x, y in pairs)


def _missing(recorded: list[str], current: list[str]) -> list[str]:
    return sorted(set(recorded) - set(current))


# ------------------------------------------------------------------------------------------------ names
def test_public_names_are_kept():
    current = surface.names()
    for module, names in RECORDED["names"].items():
        assert not _missing(names, current[module]), f"{module} lost public names"


def test_torch_names_are_kept():
    pytest.importorskip("torch")
    if RECORDED["torch_names"] is None:
        pytest.skip("the surface was recorded without torch")
    assert not _missing(RECORDED["torch_names"], surface.torch_names()), "nlgmetrics.torch lost public names"


# ------------------------------------------------------------------------------------------------ signatures
def _parameter_changes(recorded: list[list[str]], current: list[list[str]]) -> list[str]:
    """What changed in a callable's parameters beyond additions (empty: nothing)."""
    by_name = {p[0]: (i, p) for i, p in enumerate(current)}
    problems = []
    last = -1
    for name, kind, default in recorded:
        if name not in by_name:
            problems.append(f"parameter {name!r} is gone")
            continue
        i, (_, now_kind, now_default) = by_name[name]
        if now_kind != kind:
            problems.append(f"parameter {name!r} is {now_kind}, was {kind}")
        if now_default != default:
            problems.append(f"parameter {name!r} defaults to {now_default or 'nothing'}, was {default or 'nothing'}")
        if i < last:
            problems.append(f"parameter {name!r} moved")
        last = max(last, i)
    known = {p[0] for p in recorded}
    for name, kind, default in current:
        if name in known or kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            continue
        if kind != "KEYWORD_ONLY" or not default:
            problems.append(f"new parameter {name!r} is {kind}{'' if default else ' without a default'}")
    return problems


def test_function_signatures_are_kept():
    current = surface.signatures()
    problems = []
    for name, params in RECORDED["signatures"].items():
        if name not in current:
            problems.append(f"{name}: no signature any more")
            continue
        problems += [f"{name}: {p}" for p in _parameter_changes(params, current[name])]
    assert not problems, "\n".join(problems)


def test_the_parameter_check_accepts_only_additions():
    old = [["a", "POSITIONAL_OR_KEYWORD", ""], ["k", "KEYWORD_ONLY", "1"], ["options", "VAR_KEYWORD", ""]]
    assert _parameter_changes(old, [*old[:2], ["new", "KEYWORD_ONLY", "None"], old[2]]) == []
    assert _parameter_changes(old, [old[0], ["k", "KEYWORD_ONLY", "2"], old[2]])
    assert _parameter_changes(old, old[:2])
    assert _parameter_changes(old, [*old, ["b", "POSITIONAL_OR_KEYWORD", ""]])
    assert _parameter_changes(old, [old[1], old[0], old[2]])


# ------------------------------------------------------------------------------------------------ command line
def test_cli_flags_are_kept():
    current = surface.cli_flags()
    problems = []
    for command, flags in RECORDED["cli"].items():
        if command not in current:
            problems.append(f"subcommand {command!r} is gone")
        elif _missing(flags, current[command]):
            problems.append(f"{command}: lost {', '.join(_missing(flags, current[command]))}")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------------------------ families
def _family_params() -> list[Any]:
    return [
        pytest.param(name, marks=pytest.mark.slow) if name in SLOW else pytest.param(name)
        for name in sorted(RECORDED["families"])
    ]


@pytest.mark.parametrize("name", _family_params())
def test_family_numbers_and_signatures_are_kept(name):
    recorded = RECORDED["families"][name]
    assert name in surface.family_names(), f"the {name} family is gone from the catalogue"
    if "unavailable" in recorded:
        pytest.skip(f"not recorded: {recorded['unavailable']}")
    try:
        current = surface.family_surface(name)
    except surface.Unavailable as why:
        pytest.skip(str(why))
    assert not _missing(recorded["presets"], current["presets"]), f"{name} lost presets"
    problems = []
    tol = TOLERANCE.get(name)
    for preset, was in recorded["results"].items():
        now = current["results"][preset]
        if "unavailable" in was or "unavailable" in now:
            continue
        if was.get("error") != now.get("error") or was.get("input") != now.get("input"):
            problems.append(f"{preset}: the example gives {now}, was {was}")
            continue
        if "signature" in was and _renamed(name, was["signature"]) != now["signature"]:
            problems.append(f"{preset}: signature {now['signature']}, was {was['signature']}")
        if "score" in was and not _same_score(was["score"], now["score"], tol):
            problems.append(f"{preset}: score {now['score']}, was {was['score']}")
    if recorded["state_dict"] is not None:
        lost = _missing(recorded["state_dict"], current["state_dict"] or [])
        if lost:
            problems.append(f"state_dict() lost {', '.join(lost)}")
    assert not problems, f"{name}:\n" + "\n".join(problems)


def test_renames_apply_to_the_tokenizer_field_only():
    renames = (("gleu", "sacrebleu-13a", "13a"),)
    assert _renamed("gleu", "gleu|tok:sacrebleu-13a|n:4", renames) == "gleu|tok:13a|n:4"
    assert _renamed("gleu", "gleu|n:4|tok:sacrebleu-13a", renames) == "gleu|n:4|tok:13a"
    assert _renamed("gleu", "gleu|tok:sacrebleu-13a-x|n:4", renames) == "gleu|tok:sacrebleu-13a-x|n:4"
    assert _renamed("nist", "nist|tok:sacrebleu-13a", renames) == "nist|tok:sacrebleu-13a"


def test_scores_compare_by_repr_or_within_tolerance():
    assert _same_score("0.5", "0.5", None)
    assert not _same_score("0.5", "0.5000000001", None)
    assert _same_score("(0.5, 1e-07)", "(0.5000000001, 1e-07)", 1e-6)
    assert not _same_score("(0.5, 0.25)", "(0.5, 0.26)", 1e-6)
    assert not _same_score("{'f1': 0.5}", "{'p': 0.5}", 1e-6)
