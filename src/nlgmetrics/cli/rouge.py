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
from typing import Any

from .command import FamilyCommand, Opt, Outcome

__all__ = ["ROUGE_COMMAND", "ROUGE_OPTIONS", "RougeCommand"]

ROUGE_OPTIONS = (
    Opt("rouge_types", help="types to compute: rouge1..rouge9, rougeL, rougeLsum, rougeW, rougeS4, rougeSU*, ..."),
    Opt("use_stemmer", help="stem tokens longer than 3 characters (Porter; ROUGE-1.5.5's -m under rouge155)"),
    Opt("tokenizer", help="unicode (default), rouge-score, rouge155, ja-mecab, zh-jieba, char, whitespace"),
    Opt("stemmer", choices=("porter", "rouge155", "rouge155-porter"), help="which stemmer --use-stemmer uses"),
    Opt("remove_stopwords", help="drop the SMART stop words first (ROUGE-1.5.5's -s)"),
    Opt(
        "multi_ref",
        choices=("best", "average", "max-pr"),
        help="several references: the best one, pooled (-f B / -f A), or the best P and best R (pycocoevalcap)",
    ),
    Opt("sentence_split", choices=("newline", "rules", "auto"), help="sentences of rougeLsum"),
    Opt("sentence_separator", help="a string that marks sentence breaks in one-line summaries, e.g. '\\n' or '<n>'"),
    Opt("scoring", choices=("rouge-score", "rouge155"), help="whose arithmetic (set by the presets)"),
    Opt("beta", help="F-beta: recall counts beta times as much as precision"),
    Opt("alpha", help="ROUGE-1.5.5's -p: F = PR / ((1 - alpha) P + alpha R)"),
    Opt("length_limit", help="ROUGE-1.5.5's -l: only the first N words of each summary"),
    Opt("byte_limit", help="ROUGE-1.5.5's -b: only the first N bytes of each summary"),
    Opt("weight", help="weight of rougeW (ROUGE-1.5.5's -w)"),
    Opt("bootstrap_samples", help="add a bootstrap confidence interval over N resamples"),
    Opt("confidence", help="level of that interval (default 0.95)"),
    Opt("seed", help="seed of the resampling"),
    Opt("workers", help="processes for large inputs (never changes a number)"),
)


@dataclasses.dataclass(frozen=True)
class RougeCommand(FamilyCommand):
    """``nlgmetrics rouge``: one headline value per ROUGE type."""

    def headlines(self, out: Outcome) -> list[tuple[str, str, Any]]:
        return [(name, name, value) for name, value in out.score.items()]

    def outcome(self, result: Any, config: Any, batch: Any) -> Outcome:
        out = super().outcome(result, config, batch)
        out.diagnostics.pop("f1", None)  # the headline values again
        return out


ROUGE_COMMAND = RougeCommand(
    "rouge",
    "nlgmetrics.metrics.rouge:ROUGE",
    key="rouge",
    label="ROUGE",
    options=ROUGE_OPTIONS,
    help="ROUGE-N/L/Lsum/W/S/SU P/R/F: rouge-score 0.1.2 (--preset rouge-score) or ROUGE-1.5.5 (--preset "
    "rouge155); by default letters of every script are kept and CJK split into characters",
)
