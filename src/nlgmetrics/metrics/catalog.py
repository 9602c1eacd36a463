"""The catalogue: every metric family by name, and the names it is published under.

A family is declared once, in its own module under ``metrics/`` (a :class:`~nlgmetrics.metrics.base.Family`), and
listed here with one :class:`Entry`. Everything else is derived from these two places:

* ``nlgmetrics.<function>``: the functions the entry names, imported from the family's module on first use;
* ``nlgmetrics.<Class>`` / ``nlgmetrics.stateful.<Class>``: the stateful metric (:class:`~nlgmetrics.Metric`);
* ``nlgmetrics.torch.<Class>``: the torchmetrics adapter;
* ``nlgmetrics <command>``: the subcommand, with one flag per config field (or a custom command class);
* ``nlgmetrics evaluate --metric <name>``, the Dask/Spark/Ray paths and the significance tests.

Nothing here imports a metric: the table is plain data, so ``import nlgmetrics`` and ``nlgmetrics --help`` stay
cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import unknown_option

if TYPE_CHECKING:
    from .base import Family

__all__ = ["CATALOG", "FAMILIES", "IN_PROCESS", "Entry", "exports", "get_entry", "get_family", "lazy_module"]


class Entry(NamedTuple):
    """One family's line in the catalogue (a named tuple: immutable, and cheaper to define at import than a
    dataclass).

    * ``target``: ``"module:ATTRIBUTE"`` of the :class:`~nlgmetrics.metrics.base.Family`.
    * ``functions``: public functions of that module, exported as ``nlgmetrics.<name>``.
    * ``cls``: the class name of the stateful metric (``nlgmetrics.<cls>``) and of the torchmetrics adapter
      (``nlgmetrics.torch.<cls>``); ``None`` for neither.
    * ``help``: one line for ``nlgmetrics --help``.
    * ``command``: the subcommand; by default the name with ``-`` for ``_``; ``""`` for none.
    * ``cli``: ``"module:ATTRIBUTE"`` of a custom :class:`~nlgmetrics.cli.command.Command` instance; by default a
      generic command with one flag per config field.
    * ``label``: the name of the headline value in human-readable output (default: the family name).
    * ``in_process``: ``nlgmetrics evaluate`` runs it in the main process (a large model loads once, or one JVM
      starts once).
    * ``reader``: what the generic command reads: ``"text"`` (strings, one per line or per JSON Lines field),
      ``"docvqa"`` (that, or the DocVQA JSON layout given as ``--pred`` alone) or ``"json"`` (JSON values:
      objects, lists, numbers; several ``--ref`` files are alternatives).
    """

    target: str
    functions: tuple[str, ...] = ()
    cls: str | None = None
    help: str = ""
    command: str | None = None
    cli: str | None = None
    label: str | None = None
    in_process: bool = False
    reader: str = "text"

    @property
    def module(self) -> str:
        return self.target.partition(":")[0]


_E = Entry
CATALOG: dict[str, Entry] = {
    "anls": _E(
        "nlgmetrics.metrics.anls:ANLS",
        ("anls",),
        "ANLS",
        "Average Normalized Levenshtein Similarity (DocVQA, ST-VQA, InfographicVQA); reads the DocVQA JSON layout too",
        label="ANLS",
        reader="docvqa",
    ),
    "anls_star": _E(
        "nlgmetrics.metrics.anls_star:ANLS_STAR",
        ("anls_star", "anls_star_score"),
        "ANLSStar",
        "ANLS* over structured answers: one JSON value per line of JSON Lines (objects, lists, strings, numbers, "
        "null); several --ref files are alternatives",
        label="ANLS*",
        reader="json",
    ),
    "bertscore": _E(
        "nlgmetrics.metrics.bertscore:BERTSCORE",
        ("bertscore", "bertscore_idf"),
        "BERTScore",
        "BERTScore P/R/F, bert-score 0.3.13's numbers; offline first",
        cli="nlgmetrics.cli.bertscore:BERTSCORE_COMMAND",
        in_process=True,
    ),
    "bleu": _E(
        "nlgmetrics.metrics.bleu:BLEU",
        ("bleu", "sentence_bleu"),
        "BLEU",
        "BLEU as sacrebleu 2.6, NLTK 3.10, NLTK 3.2 or multi-bleu.perl",
        cli="nlgmetrics.cli.mt:BLEU_COMMAND",
    ),
    "cer": _E(
        "nlgmetrics.metrics.edit:CER",
        ("cer",),
        "CharErrorRate",
        "character error rate over the corpus, as jiwer.cer; one reference per segment",
        label="CER",
    ),
    "character": _E(
        "nlgmetrics.metrics.character:CHARACTER",
        ("character",),
        "CharacTER",
        "CharacTER, the cer package 1.2.0's numbers as HF evaluate's character metric",
    ),
    "chrf": _E(
        "nlgmetrics.metrics.chrf:CHRF",
        ("chrf", "sentence_chrf"),
        "CHRF",
        "chrF and chrF++, sacrebleu 2.6's numbers",
        cli="nlgmetrics.cli.mt:CHRF_COMMAND",
    ),
    "cider": _E(
        "nlgmetrics.metrics.cider:CIDER",
        ("cider",),
        "CIDEr",
        "CIDEr-D and CIDEr of image captions, pycocoevalcap 1.2's numbers",
        cli="nlgmetrics.cli.coco:CIDER_COMMAND",
    ),
    "coco": _E(
        "nlgmetrics.metrics.coco:COCO",
        ("coco", "read_coco"),
        "COCOEvalCap",
        "COCO caption evaluation: BLEU-1..4, ROUGE-L, CIDEr-D as pycocoevalcap 1.2 (pure Python tokenizer)",
        cli="nlgmetrics.cli.coco:COCO_COMMAND",
    ),
    "exact_match": _E(
        "nlgmetrics.metrics.exact_match:EXACT_MATCH",
        ("exact_match",),
        "ExactMatch",
        "exact match after named normalisers (SQuAD, HF evaluate, NFKC, width) and regex answer extraction",
    ),
    "comet": _E(
        "nlgmetrics.metrics.comet:COMET",
        ("comet",),
        "COMET",
        "COMET-22 (wmt22-comet-da, wmt20-comet-da, cometinho) from a local checkpoint, unbabel-comet 2.2.7's numbers",
        cli="nlgmetrics.cli.learned:COMET_COMMAND",
        in_process=True,
    ),
    "cometkiwi": _E(
        "nlgmetrics.metrics.comet:COMETKIWI",
        ("cometkiwi",),
        "CometKiwi",
        "CometKiwi quality estimation (sources, no references), unbabel-comet 2.2.7's numbers",
        cli="nlgmetrics.cli.learned:COMETKIWI_COMMAND",
        in_process=True,
    ),
    "edit_distance": _E(
        "nlgmetrics.metrics.edit:EDIT_DISTANCE",
        ("edit_distance",),
        "EditDistance",
        "exact character Levenshtein distance (torchmetrics' EditDistance); the closest reference counts",
        label="Edit distance",
    ),
    "eed": _E(
        "nlgmetrics.metrics.eed:EED",
        ("eed", "extended_edit_distance"),
        "ExtendedEditDistance",
        "Extended Edit Distance, torchmetrics' extended_edit_distance",
    ),
    "g_pass_at_k": _E(
        "nlgmetrics.metrics.sampling:G_PASS_AT_K",
        ("g_pass_at_k",),
        "GPassAtK",
        "G-Pass@k and mG-Pass@k from sample counts, lighteval's numbers (nothing is executed)",
        cli="nlgmetrics.cli.llm:G_PASS_AT_K_COMMAND",
    ),
    "gleu": _E(
        "nlgmetrics.metrics.gleu:GLEU",
        ("gleu", "sentence_gleu"),
        "GLEU",
        "Google-BLEU (GLEU) as NLTK 3.10's corpus_gleu or HF evaluate's google_bleu",
    ),
    "maj_at_n": _E(
        "nlgmetrics.metrics.sampling:MAJ_AT_N",
        ("maj_at_n",),
        "MajAtN",
        "maj@n and avg@n from each problem's sampled answers, lighteval's numbers",
        cli="nlgmetrics.cli.llm:MAJ_AT_N_COMMAND",
    ),
    "mer": _E(
        "nlgmetrics.metrics.edit:MER",
        ("mer",),
        "MatchErrorRate",
        "match error rate over the corpus, as jiwer.mer",
    ),
    "meteor": _E(
        "nlgmetrics.metrics.meteor.nltk:METEOR", ("meteor", "sentence_meteor"), "METEOR", "METEOR, NLTK 3.10's numbers"
    ),
    "meteor15": _E(
        "nlgmetrics.metrics.meteor.v15:METEOR15",
        ("meteor15",),
        "METEOR15",
        "METEOR 1.5 as pycocoevalcap 1.2 (its meteor-1.5.jar: needs Java and the coco-meteor extra)",
        cli="nlgmetrics.cli.coco:METEOR15_COMMAND",
        in_process=True,
    ),
    "metricx": _E(
        "nlgmetrics.metrics.metricx:METRICX",
        ("metricx",),
        "MetricX",
        "MetricX-24 hybrid error score (0-25, lower is better), with references or QE, google-research/metricx's",
        cli="nlgmetrics.cli.learned:METRICX_COMMAND",
        in_process=True,
    ),
    "multiple_choice": _E(
        "nlgmetrics.metrics.multiple_choice:MULTIPLE_CHOICE",
        ("multiple_choice",),
        "MultipleChoice",
        "acc, acc_norm, acc_mutual_info from per-choice log-likelihoods, lm-eval's numbers (reads its logs)",
        cli="nlgmetrics.cli.llm:MULTIPLE_CHOICE_COMMAND",
    ),
    "nist": _E(
        "nlgmetrics.metrics.nist:NIST",
        ("nist", "sentence_nist"),
        "NIST",
        "NIST as NLTK 3.10's corpus_nist or mteval-v13a.pl",
    ),
    "nls": _E(
        "nlgmetrics.metrics.nls:NLS",
        ("nls",),
        "NormalizedLevenshteinSimilarity",
        "normalised Levenshtein similarity, 1 - lev / max(len); the best of several references counts",
        label="NLS",
    ),
    "pass_at_k": _E(
        "nlgmetrics.metrics.sampling:PASS_AT_K",
        ("pass_at_k", "estimate_pass_at_k"),
        "PassAtK",
        "pass@k from sample counts, HF code_eval's estimator (nothing is executed)",
        cli="nlgmetrics.cli.llm:PASS_AT_K_COMMAND",
    ),
    "perplexity": _E(
        "nlgmetrics.metrics.perplexity:PERPLEXITY",
        ("perplexity",),
        "Perplexity",
        "perplexity and bits per byte from logits and targets or per-token log-probabilities, torchmetrics' numbers",
        cli="nlgmetrics.cli.lm:PERPLEXITY_COMMAND",
    ),
    "ribes": _E(
        "nlgmetrics.metrics.ribes:RIBES",
        ("ribes", "sentence_ribes"),
        "RIBES",
        "RIBES word-order score: RIBES.py 1.03.1 or NLTK 3.10",
    ),
    "rouge": _E(
        "nlgmetrics.metrics.rouge:ROUGE",
        ("rouge",),
        "ROUGE",
        "ROUGE-N/L/Lsum/W/S/SU: rouge-score 0.1.2 or ROUGE-1.5.5",
        cli="nlgmetrics.cli.rouge:ROUGE_COMMAND",
    ),
    "sari": _E(
        "nlgmetrics.metrics.sari:SARI",
        ("sari",),
        "SARI",
        "SARI for text simplification (sources, predictions, references), HF evaluate's numbers",
        label="SARI",
    ),
    "squad": _E(
        "nlgmetrics.metrics.squad:SQUAD",
        ("squad",),
        "SQuAD",
        "QA exact match and F1: SQuAD v1.1/v2.0, JSQuAD, CMRC 2018, llm-jp-eval",
        cli="nlgmetrics.cli.qa:SQUAD_COMMAND",
    ),
    "ter": _E(
        "nlgmetrics.metrics.ter:TER",
        ("ter", "sentence_ter"),
        "TER",
        "translation edit rate with Tercom shifts, sacrebleu 2.6's numbers",
        cli="nlgmetrics.cli.mt:TER_COMMAND",
    ),
    "wer": _E(
        "nlgmetrics.metrics.edit:WER",
        ("wer",),
        "WordErrorRate",
        "word error rate over the corpus, as jiwer.wer; one reference per segment",
        label="WER",
    ),
    "wil": _E(
        "nlgmetrics.metrics.edit:WIL",
        ("wil",),
        "WordInfoLost",
        "word information lost over the corpus, as jiwer.wil",
    ),
    "wip": _E(
        "nlgmetrics.metrics.edit:WIP",
        ("wip",),
        "WordInfoPreserved",
        "word information preserved over the corpus, as jiwer.wip",
    ),
    "xcomet": _E(
        "nlgmetrics.metrics.comet:XCOMET",
        ("xcomet",),
        "XCOMET",
        "XCOMET scores and error spans (sources and/or references), unbabel-comet 2.2.7's numbers",
        cli="nlgmetrics.cli.learned:XCOMET_COMMAND",
        in_process=True,
    ),
}

#: ``name -> "module:ATTRIBUTE"`` of every family (kept for callers that only need the location).
FAMILIES: dict[str, str] = {name: entry.target for name, entry in CATALOG.items()}

#: Families whose kernel holds a large model: the runner keeps them in the main process (one model load)
#: instead of shipping them to worker processes.
IN_PROCESS = frozenset(name for name, entry in CATALOG.items() if entry.in_process)


def _key(name: str) -> str:
    return name.replace("-", "_").lower()


def get_entry(name: str) -> Entry:
    """The catalogue entry of ``name`` (``"bleu"``, ``"edit-distance"``, …)."""
    key = _key(name)
    if key not in CATALOG:
        raise unknown_option("metric", name, list(CATALOG))
    return CATALOG[key]


@cache
def get_family(name: str) -> Family[Any, Any, Any]:
    """The family registered under ``name`` (``"bleu"``, ``"rouge"``, ``"anls"``, …)."""
    module, _, attr = get_entry(name).target.partition(":")
    family: Family[Any, Any, Any] = getattr(importlib.import_module(module), attr)
    return family


def exports() -> dict[str, tuple[str, str]]:
    """Every public name the catalogue publishes: ``name -> (kind, family)``, ``kind`` being ``"function"`` or
    ``"class"``."""
    out: dict[str, tuple[str, str]] = {}
    for name, entry in CATALOG.items():
        for fn in entry.functions:
            out[fn] = ("function", name)
        if entry.cls:
            out[entry.cls] = ("class", name)
    return out


def family_of_class(cls_name: str) -> str | None:
    """The family whose stateful/torch class is called ``cls_name``."""
    for name, entry in CATALOG.items():
        if entry.cls == cls_name:
            return name
    return None


def lazy_module(
    name: str, where: Callable[[str], str | None], namespace: dict[str, Any], names: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a module that exports ``names`` lazily: ``where(attr)`` names the
    module that defines ``attr`` (``None``: no such export); the value is imported on first use and kept in the
    module's ``namespace``, so the next lookup does not come here."""

    def __getattr__(attr: str) -> Any:
        module = where(attr)
        if module is None:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        value = getattr(importlib.import_module(module), attr)
        namespace[attr] = value
        return value

    def __dir__() -> list[str]:
        return names

    return __getattr__, __dir__
