"""Where the function scores one pair without importing numpy, the stateful class and ``load(name)`` do too.

numpy cannot be unloaded, so each pinned family runs in a fresh interpreter of its own (started together, so the
whole file takes about as long as the slowest one). Each checks, in order, the functional one-pair call (so the
pinned list cannot go stale: a family whose function comes to import numpy fails here and must be unpinned, with
a reason), ``load(name).compute`` on one pair, and the stateful ``update`` / ``compute`` on one pair.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from nlgmetrics.algorithms.native import has_native
from nlgmetrics.metrics.catalog import CATALOG

pytestmark = pytest.mark.skipif(not has_native(), reason="without the compiled kernels the numpy paths count")

#: The families whose functional one-pair call leaves numpy unloaded (the others import it for their kernels:
#: SQuAD, perplexity, the count-based families, the model families).
PINNED = ("anls", "bleu", "cer", "chrf", "gleu", "mer", "nls", "rouge", "sari", "wer", "wil", "wip")
#: Options of ``load(name).compute``: HF's ROUGE aggregate is rouge-score's bootstrap (1,000 resamples drawn with
#: numpy), which the function does not run; its per-segment scores are the function's.
LOAD_OPTIONS: dict[str, dict[str, Any]] = {"rouge": {"use_aggregator": False}}

SCRIPT = r"""
import json, sys
import nlgmetrics as nm
from nlgmetrics.metrics.catalog import CATALOG

name, load_options = sys.argv[1], json.loads(sys.argv[2])
pred, ref, source = "the cat sat on the mat", "the cat is on the mat", "a cat sat on a mat"
entry = CATALOG[name]
sources = {"sources": [source]} if name == "sari" else {}
out = {}
getattr(nm, entry.functions[0])(pred, ref, *([source] if sources else []))
out["functional"] = "numpy" in sys.modules
nm.load(name).compute(predictions=[pred], references=[ref], **sources, **load_options)
out["load"] = "numpy" in sys.modules
import nlgmetrics.stateful.metric
out["stateful import"] = "numpy" in sys.modules
metric = getattr(nm, entry.cls)()
metric.update([pred], [ref], **sources)
metric.compute()
out["stateful"] = "numpy" in sys.modules
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runs() -> dict[str, subprocess.Popen[str]]:
    """One fresh interpreter per pinned family, all started at once."""
    started = {}
    for name in PINNED:
        options = json.dumps(LOAD_OPTIONS.get(name, {}))
        command = [sys.executable, "-c", SCRIPT, name, options]
        started[name] = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    yield started
    for process in started.values():
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_pinned_families_are_catalogued_with_a_stateful_class():
    for name in PINNED:
        assert CATALOG[name].cls is not None, name


@pytest.mark.parametrize("name", PINNED)
def test_one_pair_leaves_numpy_unloaded_in_every_interface(runs, name):
    stdout, stderr = runs[name].communicate(timeout=120)
    assert runs[name].returncode == 0, stderr
    loaded = json.loads(stdout)
    assert not loaded["functional"], f"nm.{CATALOG[name].functions[0]} on one pair imports numpy: unpin {name}?"
    assert not loaded["load"], f"load({name!r}).compute on one pair imports numpy"
    assert not loaded["stateful import"], "importing nlgmetrics.stateful.metric imports numpy"
    assert not loaded["stateful"], f"the stateful {CATALOG[name].cls} on one pair imports numpy"
