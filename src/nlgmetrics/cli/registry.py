"""The subcommand table.

Every family of the catalogue (:data:`nlgmetrics.metrics.catalog.CATALOG`) is a subcommand: the command its
entry names (``cli="module:ATTRIBUTE"``), or else a generic :class:`~nlgmetrics.cli.command.FamilyCommand` with
one flag per config field. The commands that are not one family (``bertscore-plot``, ``bertscore-baseline``,
``compare``, ``evaluate``) are registered below. Subcommand modules import :mod:`nlgmetrics.cli.command`, never
this module, so there is no import circle; nothing here imports a metric.
"""

from __future__ import annotations

from ..metrics.catalog import CATALOG
from .command import Command, FamilyCommand, Opt, Outcome, load

__all__ = ["COMMANDS", "Command", "FamilyCommand", "Opt", "Outcome", "register"]

COMMANDS: dict[str, Command] = {}


def register(command: Command) -> Command:
    COMMANDS[command.name] = command
    return command


def _family_command(name: str) -> Command:
    entry = CATALOG[name]
    if entry.cli:
        command: Command = load(entry.cli)
        return command
    return FamilyCommand(
        entry.command or name.replace("_", "-"),
        entry.target,
        key=name,
        label=entry.label or name,
        help=entry.help,
    )


for _name, _entry in CATALOG.items():
    if _entry.command != "":
        register(_family_command(_name))

# commands that are not one family
from .bertscore import BASELINE_OPTIONS, PLOT_OPTIONS, BERTScoreBaselineCommand, BERTScorePlotCommand  # noqa: E402
from .evaluate import EvaluateCommand  # noqa: E402
from .mt import COMPARE_OPTIONS, CompareCommand  # noqa: E402
from .sacrebleu import SacreBLEUCommand  # noqa: E402

register(
    BERTScorePlotCommand(
        "bertscore-plot",
        "nlgmetrics.metrics.bertscore:BERTSCORE",
        key="f1",
        label="BERTScore F1",
        options=PLOT_OPTIONS,
        derive_options=False,
        help="PNG heatmap of the token similarities of one segment (CJK tokens drawn with a CJK font)",
    )
)
register(
    BERTScoreBaselineCommand(
        "bertscore-baseline",
        "nlgmetrics.metrics.bertscore_baseline:compute_baseline",
        key="baseline",
        label="BERTScore baseline written to",
        options=BASELINE_OPTIONS,
        help="rescaling baseline (LAYER,P,R,F) of any model from a monolingual corpus, as bert-score made its own",
    )
)
register(
    CompareCommand(
        "compare",
        "nlgmetrics.metrics.significance:paired_test_from_stats",
        key="p_value",
        label="p-value",
        options=COMPARE_OPTIONS,
        help="paired significance test of --pred against --baseline (bootstrap or approximate randomization), "
        "sacrebleu's p-values for the same seed",
    )
)
register(
    EvaluateCommand(
        "evaluate",
        "nlgmetrics.evaluate:evaluate",
        key="evaluate",
        label="evaluate",
        help="score several systems on several metrics at once, with bootstrap intervals, paired significance "
        "against a baseline, JSON and an HTML report",
    )
)
register(
    SacreBLEUCommand(
        "sacrebleu",
        "nlgmetrics.cli.sacrebleu:SacreBLEUCommand",
        key="sacrebleu",
        label="sacrebleu",
        help="sacrebleu 2.6.0's command line (REF... -i HYP -m bleu chrf ter -tok zh ...): its arguments, output "
        "and signatures, byte for byte",
    )
)
