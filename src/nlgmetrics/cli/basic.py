"""Subcommands of the ANLS families, ``anls`` and ``anls-star``, each named in its family's catalogue entry
(``cli=``): their flags are the config fields (see :func:`~nlgmetrics.cli.command.derived_options`), and a command
here only adds its input format (the DocVQA JSON layout; JSON values). ``nls``, ``edit-distance``, ``cer`` and
``wer`` are the generic command of their catalogue entries."""

from __future__ import annotations

from .command import FamilyCommand

__all__ = ["ANLS_COMMAND", "ANLS_STAR_COMMAND"]

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
