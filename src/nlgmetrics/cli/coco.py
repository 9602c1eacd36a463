"""The ``coco`` and ``cider`` subcommands.

``nlgmetrics coco --pred results.json --ref captions_val2014.json [--json] [--per-segment]`` scores a COCO results
file (a JSON list of ``{"image_id", "caption"}``) against the annotations file, as pycocoevalcap's
``COCOEvalCap`` does (BLEU-1..4, ROUGE-L, CIDEr-D; METEOR 1.5 with ``--meteor``); ``nlgmetrics cider`` and
``nlgmetrics meteor15`` take the same files. All three also read the
usual inputs (``--pred hyp.txt --ref ref1.txt --ref ref2.txt``, JSON Lines).

A file is COCO JSON when its name ends in ``.json`` or its whole content is one JSON list or object. COCO JSON is
read as COCO (:func:`nlgmetrics.metrics.coco.read_coco`: the results as ``--pred``, the one annotations file as
``--ref``) or refused with an error naming the file; it is never read as lines of text. ``--format text`` or
``--format jsonl`` reads the files that way instead.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Callable

from .._files import is_stream
from ..errors import InvalidInputError
from .command import FamilyCommand
from .io import CLIInputError, Column, read_text

__all__ = ["CIDER_COMMAND", "COCO_COMMAND", "METEOR15_COMMAND", "CocoCommand", "coco_columns"]

#: Suffixes read by their own readers (JSON Lines, tables), never taken for COCO JSON.
_OTHER_SUFFIXES = (".jsonl", ".csv", ".tsv", ".parquet")
_PEEK = 4096


def _looks_like_json(path: str) -> bool:
    """Whether ``path`` is COCO JSON: its name ends in ``.json``, or it is a regular file (not a stream, which
    can be read once) whose content starts with ``[`` or ``{`` and parses as one JSON list or object."""
    lower = path.lower()
    if lower.endswith(".json"):
        return True
    if lower.endswith(_OTHER_SUFFIXES) or is_stream(path) or not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(_PEEK)
    except OSError:
        return False  # the usual reader names the problem
    if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"[", b"{")):
        return False
    from ..metrics.coco import parse_coco_json

    try:
        return isinstance(parse_coco_json(read_text(path, "--pred"), path), (list, dict))
    except InvalidInputError:  # not JSON (or not UTF-8): lines of text, read and checked by the usual reader
        return False


def coco_columns(args: argparse.Namespace) -> tuple[Column, list[Column]] | None:
    """The predictions and references of COCO JSON files (see the module docstring), ``None`` when no input file
    is COCO JSON (text, JSON Lines, tables: the usual readers), or an error when only some are, or when the
    files do not pair one results file with one annotations file."""
    if args.format != "auto":
        return None
    refs: list[str] = list(args.ref or [])
    named = [("--pred", args.pred)] + [("--ref", r) for r in refs]
    flags = [(option, path, _looks_like_json(path)) for option, path in named]
    if not any(is_json for _, _, is_json in flags):
        return None
    if len(refs) != 1:
        raise CLIInputError(
            f"--pred {args.pred} is COCO JSON: give the one annotations file as --ref (it holds every reference "
            f"caption), got {len(refs)} --ref files"
            if flags[0][2]
            else f"--ref {next(p for o, p, j in flags if j)} is COCO JSON: give the COCO results as --pred and the one "
            f"annotations file as --ref, got {len(refs)} --ref files"
        )
    for option, path, is_json in flags:
        if not is_json:
            other = "--ref" if option == "--pred" else "--pred"
            raise CLIInputError(
                f"{option} {path} is not COCO JSON, but {other} is: give the COCO results as --pred and the "
                "annotations as --ref, both JSON (or --format text to read every file as lines of text)"
            )
    pred, ref = args.pred, refs[0]
    try:
        same = pred == ref or os.path.samefile(pred, ref)
    except OSError:
        same = False
    if same:
        raise CLIInputError(f"--pred and --ref name the same file ({ref}): give the system's results as --pred")
    from ..metrics.coco import _read_coco, parse_coco_json

    res = parse_coco_json(read_text(pred, "--pred"), f"--pred {pred}")
    ann = parse_coco_json(read_text(ref, "--ref"), f"--ref {ref}")
    ids, preds, coco_refs = _read_coco(res, ann, f"--pred {pred}", f"--ref {ref}")

    def image(name: str) -> Callable[[int], str]:
        return lambda i: f"{name}: image {ids[i]!r}"

    return Column(f"--pred {pred}", preds, image(pred)), [Column(f"--ref {ref}", list(coco_refs), image(ref))]


@dataclasses.dataclass(frozen=True)
class CocoCommand(FamilyCommand):
    """A family command that also reads the COCO results and annotations JSON files (``coco_json``)."""

    streams: bool = False  # read whole: see FamilyCommand.streams

    repeated: tuple[str, ...] = ("bleu", "rouge", "cider", "meteor")  # the families' own results: in the Python API


COCO_COMMAND = CocoCommand(
    "coco",
    "nlgmetrics.metrics.coco:COCO",
    key="coco",
    label="COCO",
    coco_json=True,
    help="COCO caption evaluation: BLEU-1..4, ROUGE-L, CIDEr-D (and METEOR 1.5 with --meteor) as pycocoevalcap "
    "1.2 computes them (--pred results.json --ref annotations.json, or the usual files)",
)

CIDER_COMMAND = CocoCommand(
    "cider",
    "nlgmetrics.metrics.cider:CIDER",
    key="cider",
    label="CIDEr",
    coco_json=True,
    help="CIDEr-D (--preset cider-d, pycocoevalcap's Cider) or CIDEr (--preset cider) of image captions",
)

METEOR15_COMMAND = CocoCommand(
    "meteor15",
    "nlgmetrics.metrics.meteor15:METEOR15",
    key="meteor15",
    label="METEOR",
    coco_json=True,
    help="METEOR 1.5 as pycocoevalcap 1.2's Meteor (its meteor-1.5.jar: needs Java and the coco-meteor extra)",
)
