"""HF ``evaluate``'s own docstring examples, run with ``evaluate.load`` replaced by ``nlgmetrics.load``.

``tests/fixtures/hf/hf_docstrings.json`` holds every example of the ``Examples:`` section of each metric script
that ``nlgmetrics.load`` serves, with what HF's script printed when it ran them (see ``record_docstrings.py``).
Each example must print the same here (the same numbers to the last bit; HF's
``np.float64(x)`` reprs read as ``x``). Where
HF's script could not run an example offline (``meteor``: NLTK's ``punkt_tab`` and WordNet data), the docstring's
own expected output is the reference. ``bertscore``'s example names ``lang="en"``, i.e. ``roberta-large``: it runs
only where that model is in the local Hugging Face cache; so does ``comet``'s (``Unbabel/wmt22-comet-da``), whose
rows were taken from the docstring without running HF's script (it needs unbabel-comet and that checkpoint).
"""

from __future__ import annotations

import ast
import doctest
import json
import re
import types
import warnings
from pathlib import Path
from typing import Any

import pytest

import nlgmetrics
from nlgmetrics.errors import MissingDependencyError, NlgMetricsError

RECORDED: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "hf" / "hf_docstrings.json").read_text("utf-8")
)
#: Scripts whose examples load a model (skipped where it is not in the local Hugging Face cache).
NEEDS_MODEL = {"bertscore": "lang='en': roberta-large", "comet": "Unbabel/wmt22-comet-da"}
_NP_SCALAR = re.compile(r"np\.(?:float|int)\d*\(([^()]*)\)")


def _value(text: str) -> Any:
    text = _NP_SCALAR.sub(r"\1", text.strip())
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


class _Checker(doctest.OutputChecker):
    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        return want == got or _close(_value(want), _value(got))


def _reference(row: dict[str, Any]) -> str:
    """What the example must print: HF's script's output, or the docstring's where the script could not run."""
    return row["got"] if row.get("got") is not None else row["want"]


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_hf_docstring_examples(name: str) -> None:
    rows = RECORDED[name]
    examples = [doctest.Example(r["source"], _reference(r)) for r in rows]
    shim = types.SimpleNamespace(load=nlgmetrics.load)
    test = doctest.DocTest(examples, {"evaluate": shim}, name, None, 0, None)
    failures: list[str] = []

    class Runner(doctest.DocTestRunner):
        def report_failure(self, out: Any, test: Any, example: doctest.Example, got: str) -> None:
            failures.append(f"{example.source.strip()}\n  HF: {example.want.strip()}\n  ours: {got.strip()}")

        def report_unexpected_exception(self, out: Any, test: Any, example: doctest.Example, exc_info: Any) -> None:
            err = exc_info[1]
            if name in NEEDS_MODEL and isinstance(err, (MissingDependencyError, NlgMetricsError, OSError)):
                pytest.skip(f"the example's model ({NEEDS_MODEL[name]}) is not available here: {err}")
            failures.append(f"{example.source.strip()}\n  raised {type(err).__name__}: {err}")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # meteor's load() notes its tokenizer: not this test's business
        Runner(checker=_Checker(), verbose=False).run(test, out=lambda s: None)
    assert not failures, "\n".join(failures)


def test_every_served_metric_has_recorded_examples() -> None:
    assert set(nlgmetrics.hf.supported()) <= set(RECORDED)
