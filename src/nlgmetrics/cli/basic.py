"""Subcommands of the edit-distance and ANLS families: ``nls``, ``edit-distance``, ``cer``, ``wer``, ``anls`` and
``anls-star``. Each is named in its family's catalogue entry (``cli=``)."""

from __future__ import annotations

from .command import FamilyCommand, Opt

__all__ = [
    "ANLS_COMMAND",
    "ANLS_STAR_COMMAND",
    "CER_COMMAND",
    "EDIT_DISTANCE_COMMAND",
    "NLS_COMMAND",
    "WER_COMMAND",
]

_EDIT = "nlgmetrics.metrics.edit"
SUBSTITUTION_COST = Opt("substitution_cost", help="cost of a substitution; insertions and deletions cost 1")
REDUCTION = Opt("reduction", choices=("mean", "sum", "none"), help="how to reduce the per-segment values")
NORMALIZER = Opt(
    "normalizer",
    choices=("whisper-english", "whisper-basic"),
    help="OpenAI Whisper's text normaliser, applied to both sides first (as ASR leaderboards report WER)",
)

NLS_COMMAND = FamilyCommand(
    "nls",
    "nlgmetrics.metrics.nls:NLS",
    key="nls",
    label="NLS",
    options=(SUBSTITUTION_COST, REDUCTION),
    help="normalised Levenshtein similarity, 1 - lev / max(len); the best of several references counts",
)
EDIT_DISTANCE_COMMAND = FamilyCommand(
    "edit-distance",
    f"{_EDIT}:EDIT_DISTANCE",
    key="edit_distance",
    label="Edit distance",
    options=(SUBSTITUTION_COST, REDUCTION),
    help="exact character Levenshtein distance (torchmetrics' EditDistance); the closest reference counts",
)
CER_COMMAND = FamilyCommand(
    "cer",
    f"{_EDIT}:CER",
    key="cer",
    label="CER",
    options=(SUBSTITUTION_COST, NORMALIZER),
    help="character error rate over the corpus, as jiwer.cer; one reference per segment",
)
WER_COMMAND = FamilyCommand(
    "wer",
    f"{_EDIT}:WER",
    key="wer",
    label="WER",
    options=(SUBSTITUTION_COST, NORMALIZER),
    help="word error rate over the corpus, as jiwer.wer; one reference per segment",
)
ANLS_COMMAND = FamilyCommand(
    "anls",
    "nlgmetrics.metrics.anls:ANLS",
    key="anls",
    label="ANLS",
    docvqa=True,
    options=(Opt("threshold", help="the threshold tau under which a question scores 0"),),
    help="Average Normalized Levenshtein Similarity (DocVQA, ST-VQA, InfographicVQA); reads the DocVQA JSON layout too",
)
ANLS_STAR_COMMAND = FamilyCommand(
    "anls-star",
    "nlgmetrics.metrics.anls_star:ANLS_STAR",
    key="anls_star",
    label="ANLS*",
    structured=True,
    options=(
        Opt("threshold", help="the threshold tau under which a leaf similarity counts 0"),
        Opt("list_as_alternatives", help="read a list-of-strings reference of a string prediction as alternatives"),
    ),
    help="ANLS* over structured answers: one JSON value per line of JSON Lines (objects, lists, strings, "
    "numbers, null); several --ref files are alternatives",
)
