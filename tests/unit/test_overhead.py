"""The per-call plumbing: list-built batches, the cost guard without numpy, configs and signatures reused, and
small calls that never import numpy."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

import nlgmetrics as nm
from nlgmetrics.algorithms.guard import InputTooLongError, check_items, check_pairs, pair_limit
from nlgmetrics.metrics.anls import ANLS, ANLSConfig
from nlgmetrics.metrics.base import signature_of
from nlgmetrics.metrics.edit import NLSStats
from nlgmetrics.stats import StatsBatch


def test_small_calls_do_not_import_numpy() -> None:
    # (several references per segment keep their offsets in a numpy array: those calls import it)
    code = (
        "import sys, nlgmetrics as nm\n"
        "nm.nls(['hello world'], ['hello wrld']); nm.anls(['Denver'], [['denver']])\n"
        "nm.cer(['abc'], ['abd']); nm.wer(['a b'], ['a c']); nm.nls(['x'] * 100, ['y'] * 100)\n"
        "print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_list_batch_sums_like_columns() -> None:
    scores = [0.1, 0.2, 0.30000000000000004, 1e-17, 0.7]
    lists = StatsBatch.from_lists(NLSStats, {"score_sum": scores, "count": [1] * len(scores)})
    columns = StatsBatch(NLSStats, {k: __import__("numpy").asarray(v) for k, v in lists.columns.items()})
    assert lists.total() == columns.total()
    assert lists.total().score_sum == math.fsum(scores)
    assert lists[2] == NLSStats(0.30000000000000004, 1)
    assert len(lists) == 5
    one = StatsBatch.from_lists(NLSStats, {"score_sum": [0.25], "count": [1]})
    assert one.total() == NLSStats(0.25, 1)


def test_check_items_matches_check_pairs() -> None:
    preds, refs = ["a" * 3000, "b"], ["c" * 3000, "d"]
    with pair_limit(1e-6), pytest.raises(InputTooLongError) as from_items:
        check_items("nls", "levenshtein", preds, refs)
    with pair_limit(1e-6), pytest.raises(InputTooLongError) as from_lengths:
        check_pairs("nls", "levenshtein", [3000, 1], [3000, 1])
    assert str(from_items.value) == str(from_lengths.value)
    assert str(from_items.value).startswith("predictions[0] is too long for nls")
    check_items("nls", "levenshtein", preds, refs)  # within the default limit


def test_guard_names_the_segment_of_a_multi_reference_pair() -> None:
    with pair_limit(1e-6), pytest.raises(InputTooLongError, match=r"^predictions\[1\] is too long for anls"):
        nm.anls(["a", "b" * 3000], [["a", "x"], ["y", "c" * 3000]])


def test_signatures_of_equal_values_are_shared_but_types_kept_apart() -> None:
    assert signature_of(ANLS, ANLSConfig(threshold=0.0)).startswith("anls|tau:0.0|")
    assert signature_of(ANLS, ANLSConfig(threshold=-0.0)).startswith("anls|tau:-0.0|")
    assert signature_of(ANLS, ANLSConfig(threshold=0.0)) == signature_of(ANLS, ANLSConfig(threshold=0.0))


def test_repeated_options_reuse_the_config() -> None:
    first = ANLS.make_config("anls-pkg", threshold=0.5)
    assert ANLS.make_config("anls-pkg", threshold=0.5) is first
    assert ANLS.make_config("anls-pkg", threshold=0.4) is not first
    assert nm.nls(["ab"], ["ac"], reduction="sum").score == 0.5
    assert nm.nls(["ab"], ["ac"], reduction=None).score == (0.5,)


def test_nls_in_a_fresh_process_imports_only_its_own_family() -> None:
    # a reward loop's fresh process: NLS's module, not the other edit-distance families, their tokenizers or numpy
    code = (
        "import sys, nlgmetrics as nm\n"
        "nm.nls('kitten', 'sitting'); nm.nls(['a'] * 50, ['b'] * 50)\n"
        "print(sorted(m for m in ('numpy', 'nlgmetrics.metrics.edit', 'nlgmetrics.text') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
