"""Subcommands of the edit-distance and ANLS families: ``nls``, ``edit-distance``, ``cer``, ``wer``, ``anls`` and
``anls-star``. Each is named in its family's catalogue entry (``cli=``); their flags are the config fields (see
:func:`~nlgmetrics.cli.command.derived_options`), and a command here only adds an input format or its help."""

from __future__ import annotations

from .command import FamilyCommand

__all__ = [
    "ANLS_COMMAND",
    "ANLS_STAR_COMMAND",
    "CER_COMMAND",
    "EDIT_DISTANCE_COMMAND",
    "NLS_COMMAND",
    "WER_COMMAND",
]

_EDIT = "nlgmetrics.metrics.edit"

NLS_COMMAND = FamilyCommand(
    "nls",
    "nlgmetrics.metrics.nls:NLS",
    key="nls",
    label="NLS",
    help="normalised Levenshtein similarity, 1 - lev / max(len); the best of several references counts",
)
EDIT_DISTANCE_COMMAND = FamilyCommand(
    "edit-distance",
    f"{_EDIT}:EDIT_DISTANCE",
    key="edit_distance",
    label="Edit distance",
    help="exact character Levenshtein distance (torchmetrics' EditDistance); the closest reference counts",
)
CER_COMMAND = FamilyCommand(
    "cer",
    f"{_EDIT}:CER",
    key="cer",
    label="CER",
    help="character error rate over the corpus, as jiwer.cer; one reference per segment",
)
WER_COMMAND = FamilyCommand(
    "wer",
    f"{_EDIT}:WER",
    key="wer",
    label="WER",
    help="word error rate over the corpus, as jiwer.wer; one reference per segment",
)
ANLS_COMMAND = FamilyCommand(
    "anls",
    "nlgmetrics.metrics.anls:ANLS",
    key="anls",
    label="ANLS",
    docvqa=True,
    help="Average Normalized Levenshtein Similarity (DocVQA, ST-VQA, InfographicVQA); reads the DocVQA JSON layout too",
)
ANLS_STAR_COMMAND = FamilyCommand(
    "anls-star",
    "nlgmetrics.metrics.anls_star:ANLS_STAR",
    key="anls_star",
    label="ANLS*",
    structured=True,
    help="ANLS* over structured answers: one JSON value per line of JSON Lines (objects, lists, strings, "
    "numbers, null); several --ref files are alternatives",
)
