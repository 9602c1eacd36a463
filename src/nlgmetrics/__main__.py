"""``python -m nlgmetrics``: the same as the ``nlgmetrics`` command."""

from __future__ import annotations

import sys

from nlgmetrics.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
