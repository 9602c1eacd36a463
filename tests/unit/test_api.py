"""The public API: every exported name resolves, lazily, without optional dependencies."""

from __future__ import annotations

import subprocess
import sys

import nlgmetrics


def test_every_export_resolves():
    assert set(nlgmetrics.__all__) == {*nlgmetrics._EXPORTS, "__version__"}
    for name in nlgmetrics.__all__:
        assert getattr(nlgmetrics, name) is not None


def test_import_is_light():
    code = "import sys, nlgmetrics; print(any(m in sys.modules for m in ('torch', 'scipy', 'rapidfuzz')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_version_is_in_signatures():
    assert nlgmetrics.nls(["a"], ["a"]).signature.endswith(f"nlgmetrics:{nlgmetrics.__version__}")
