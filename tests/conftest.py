"""Shared test fixtures: the location of the real evaluation data, and hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("NLGMETRICS_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))

settings.register_profile("default", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=200, deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real data folder (``../shared/data``, or ``$NLGMETRICS_SHARED_DATA``); skips when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"real evaluation data not found at {SHARED_DATA}: these parity tests need the shared data folder "
            "beside the repository (or NLGMETRICS_SHARED_DATA pointing to it)"
        )
    return SHARED_DATA
