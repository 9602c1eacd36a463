"""The ``nlgmetrics`` command line: ``nlgmetrics <metric> --pred FILE --ref FILE [options] [--json]``.

:mod:`~nlgmetrics.cli.main` parses arguments and prints, :mod:`~nlgmetrics.cli.io` reads the input files and
:mod:`~nlgmetrics.cli.registry` declares the subcommands, one declaration per metric.
"""

from __future__ import annotations

from .main import main

__all__ = ["main"]
