"""Modules that moved into packages stay importable under their old paths, as the very modules they became."""

from __future__ import annotations

import importlib

import pytest

ALIASES = {
    "nlgmetrics.metrics.bleu_sentence": "nlgmetrics.metrics.bleu.sentence",
    "nlgmetrics.metrics.meteor15": "nlgmetrics.metrics.meteor.v15",
    "nlgmetrics.metrics.meteor_jar": "nlgmetrics.metrics.meteor.jar",
    "nlgmetrics.metrics.rouge_bootstrap": "nlgmetrics.metrics.rouge.bootstrap",
    "nlgmetrics.metrics.rouge_kernel": "nlgmetrics.metrics.rouge.kernel",
    "nlgmetrics.metrics.rouge_scores": "nlgmetrics.metrics.rouge.scores",
    "nlgmetrics.metrics.rouge_sets": "nlgmetrics.metrics.rouge.sets",
    "nlgmetrics.spark": "nlgmetrics.engines.spark",
    "nlgmetrics.ray": "nlgmetrics.engines.ray",
    "nlgmetrics.evaluate.dask": "nlgmetrics.engines.dask",
    "nlgmetrics.evaluate.partials": "nlgmetrics.engines._partials",
}


@pytest.mark.parametrize("old", sorted(ALIASES))
def test_an_old_path_is_the_moved_module(old: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(ALIASES[old])


def test_the_meteor_package_serves_the_nltk_family_names() -> None:
    from nlgmetrics.metrics import meteor
    from nlgmetrics.metrics.meteor import nltk

    for name in nltk.__all__:
        assert getattr(meteor, name) is getattr(nltk, name)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = meteor.nothing


def test_meteor15_loads_without_the_nltk_family() -> None:
    import subprocess
    import sys

    code = "import sys, nlgmetrics.metrics.meteor15; print('nlgmetrics.metrics.meteor.nltk' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("path", ["nlgmetrics.spark", "nlgmetrics.ray", "nlgmetrics.evaluate.dask"])
def test_the_scale_out_modules_keep_their_paths(path: str) -> None:
    module = importlib.import_module(path)
    assert all(callable(getattr(module, name)) for name in module.__all__)


def test_importing_the_engines_starts_no_engine() -> None:
    import subprocess
    import sys

    code = (
        "import sys, nlgmetrics.engines, nlgmetrics.spark, nlgmetrics.ray, nlgmetrics.evaluate.dask; "
        "print(sorted(m for m in ('pyspark', 'ray', 'dask') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
