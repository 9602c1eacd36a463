"""The subcommand table.

Every family of the catalogue (:data:`nlgmetrics.metrics.catalog.CATALOG`) is a subcommand: the command its
entry names (``cli="module:ATTRIBUTE"``), or else a generic :class:`~nlgmetrics.cli.command.FamilyCommand` with
one flag per config field. The commands that are not one family (``bertscore-plot``, ``bertscore-baseline``,
``compare``, ``evaluate``) are registered below. Subcommand modules import :mod:`nlgmetrics.cli.command`, never
this module, so there is no import circle; nothing here imports a metric.

:data:`COMMANDS` reads the catalogue when it is asked, so a family added to the catalogue is a subcommand without
any edit here.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping

from ..metrics.catalog import CATALOG, Entry
from .command import Command, FamilyCommand, Opt, Outcome, load

__all__ = ["COMMANDS", "Command", "FamilyCommand", "Opt", "Outcome", "register"]


class _Commands(MutableMapping[str, Command]):
    """``name -> Command``: one per family of the catalogue (built on first use, rebuilt when its entry changes),
    then the commands registered by name, which also replace a family's."""

    def __init__(self) -> None:
        self._registered: dict[str, Command] = {}
        self._built: dict[str, tuple[Entry, Command]] = {}

    @staticmethod
    def _families() -> dict[str, str]:
        """``command name -> family name`` of every catalogued family that has a command."""
        return {entry.command or name.replace("_", "-"): name for name, entry in CATALOG.items() if entry.command != ""}

    def __getitem__(self, name: str) -> Command:
        if name in self._registered:
            return self._registered[name]
        family = self._families().get(name)
        if family is None:
            raise KeyError(name)
        entry = CATALOG[family]
        built = self._built.get(family)
        if built is None or built[0] is not entry:
            built = (entry, _family_command(family))
            self._built[family] = built
        return built[1]

    def __setitem__(self, name: str, command: Command) -> None:
        self._registered[name] = command

    def __delitem__(self, name: str) -> None:
        del self._registered[name]

    def __iter__(self) -> Iterator[str]:
        families = self._families()
        yield from families
        yield from (name for name in self._registered if name not in families)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, name: object) -> bool:
        return name in self._registered or name in self._families()


COMMANDS: MutableMapping[str, Command] = _Commands()


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
        docvqa=entry.reader == "docvqa",
        structured=entry.reader == "json",
    )


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
