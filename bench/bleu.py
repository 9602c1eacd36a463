"""bleu: cold (fresh process, import + first call; also the command line against sacrebleu's), latency per
segment at batch sizes 1/8/64/512 on fresh text, warm (labelled) and the torch adapter's ``update()``, against
sacrebleu and the other peers that offer it (see bench/_mt.py and bench/_harness.py).

Run: ``python bench/bleu.py`` or ``--quick`` (under a minute). WMT22 comes from ``../shared/data`` or
``$NLGMETRICS_SHARED_DATA``.
"""

import sys

from _mt import run

if __name__ == "__main__":
    sys.exit(run("bleu"))
