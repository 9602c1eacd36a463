"""Evaluation runs: many systems × many metrics, streamed, parallel, with confidence intervals, paired
significance against a baseline, JSON output and an HTML report.

>>> from nlgmetrics.evaluate import evaluate
"""

from .report import render_report, write_report
from .runner import Evaluation, SystemScore, evaluate
from .spec import MetricSpec, load_config, parse_metric

__all__ = [
    "Evaluation",
    "MetricSpec",
    "SystemScore",
    "evaluate",
    "load_config",
    "parse_metric",
    "render_report",
    "write_report",
]
