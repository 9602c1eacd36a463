"""The ``rouge`` subcommand.

``nlgmetrics rouge --pred hyp.txt --ref ref.txt [--ref ref2.txt ...] [--rouge-types rouge1 rouge2 rougeL rougeLsum]
[--use-stemmer] [--preset rouge-score|rouge155|rouge155-empty-db] [--json] [--per-segment]`` prints the mean F of
each type (``--json``: also precision and recall), exactly as :func:`nlgmetrics.rouge` computes them.

Summaries hold several sentences, which ``rougeLsum`` needs one per line. In plain-text input (one summary per
line) write them with a separator between sentences and name it with ``--sentence-separator`` (``'\\n'``, the
two characters backslash and n, or ``'<n>'``...), or let ``--sentence-split rules`` find the sentences; JSON Lines
input (``.jsonl``) holds real newlines in its strings.
"""

from __future__ import annotations

import dataclasses

from .command import FamilyCommand, Opt

__all__ = ["ROUGE_COMMAND", "ROUGE_OPTIONS", "RougeCommand"]

# the flags are the config fields (FamilyCommand), with the fields' own help: nothing to add
ROUGE_OPTIONS: tuple[Opt, ...] = ()


@dataclasses.dataclass(frozen=True)
class RougeCommand(FamilyCommand):
    """``nlgmetrics rouge``: one headline value per ROUGE type (the score holds one per type), shown once."""

    repeated: tuple[str, ...] = ("f1",)  # the headline values again


ROUGE_COMMAND = RougeCommand(
    "rouge",
    "nlgmetrics.metrics.rouge:ROUGE",
    key="rouge",
    label="ROUGE",
    options=ROUGE_OPTIONS,
    help="ROUGE-N/L/Lsum/W/S/SU P/R/F: rouge-score 0.1.2 (--preset rouge-score) or ROUGE-1.5.5 (--preset "
    "rouge155); by default letters of every script are kept and CJK split into characters",
)
