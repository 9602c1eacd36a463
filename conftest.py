"""Root pytest configuration: doctests of optional modules are collected only when their dependency exists."""

from __future__ import annotations

import importlib.util

collect_ignore_glob: list[str] = []
if importlib.util.find_spec("torch") is None or importlib.util.find_spec("torchmetrics") is None:
    collect_ignore_glob.append("src/nlgmetrics/torch/*")
