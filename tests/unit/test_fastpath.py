"""The fast-path policy: one table of rules that every decision site asks, and ``forced`` for tests and benchmarks."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from nlgmetrics.algorithms import fastpath as fp

SRC = Path(__file__).resolve().parents[2] / "src" / "nlgmetrics"


def test_a_rule_keeps_rows_up_to_its_size_and_at_any_size_while_numpy_is_not_loaded():
    rule = fp.Rule(4, None, "")
    assert rule.rows(4, True)
    assert not rule.rows(5, True)
    assert rule.rows(10**9, False)
    capped = fp.Rule(4, 8, "")
    assert capped.rows(8, False)
    assert not capped.rows(9, False)


def test_every_rule_says_why():
    for name, rule in fp.RULES.items():
        assert len(rule.why) > 40, name
        assert rule.rows_while_unloaded is None or rule.rows_while_unloaded >= rule.rows_up_to, name


def test_forced_holds_the_answers_and_restores_them():
    assert fp.numpy_loaded() == ("numpy" in sys.modules)
    before = {name: fp.rows(name, 10**6) for name in fp.RULES}
    with fp.forced(rows=True):
        assert all(fp.rows(name, 10**6) for name in fp.RULES)
        with fp.forced(rows=False, kernels={"bleu"}):
            assert not fp.rows("bleu", 1)
            assert fp.rows("chrf", 10**6)
    with fp.forced(numpy=False):
        assert not fp.numpy_loaded()
        assert fp.rows("edit", 10**6)
        assert not fp.rows("perplexity", 3)
    with fp.forced(native=False, kernels={"bleu.13a"}):
        assert not fp.use_native("bleu.13a")
        assert fp.use_native("bleu") == fp.has_native()
    with fp.forced(native=False):
        assert not fp.has_native()
        assert not fp.use_native("sari")
    assert {name: fp.rows(name, 10**6) for name in fp.RULES} == before


def test_forced_refuses_an_unknown_kernel():
    with pytest.raises(ValueError, match="unknown fast-path kernel"), fp.forced(rows=True, kernels={"blue"}):
        pass


def test_the_table_names_every_decision_site():
    """Every name a module asks for is in the table, and every rule and compiled kernel is asked for somewhere."""
    asked_rows: set[str] = set()
    asked_native: set[str] = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        asked_rows.update(re.findall(r"\brows\(\s*\"([\w.-]+)\"", text))
        asked_native.update(re.findall(r"\buse_native\(\s*\"([\w.-]+)\"", text))
    assert asked_rows == set(fp.RULES)
    assert asked_native == set(fp.NATIVE)


def test_families_fill_in_the_hooks_instead_of_overriding_the_plumbing():
    """A family whose input is not strings fills in ``Family.prepare`` (and a fast path ``shortcut``, a call's
    extras ``complete``); ``batch_stats`` and ``compute`` stay the base class's, which own the checks' order."""
    from nlgmetrics.metrics.base import Family
    from nlgmetrics.metrics.catalog import CATALOG, get_family

    for name in CATALOG:
        kind = type(get_family(name))
        assert kind.compute is Family.compute, name
        assert kind.batch_stats is Family.batch_stats, name
