"""The ``coco`` and ``cider`` subcommands.

``nlgmetrics coco --pred results.json --ref captions_val2014.json [--json] [--per-segment]`` scores a COCO results
file (a JSON list of ``{"image_id", "caption"}``) against the annotations file, as pycocoevalcap's
``COCOEvalCap`` does (BLEU-1..4, ROUGE-L, CIDEr-D; METEOR 1.5 with ``--meteor``); ``nlgmetrics cider`` and
``nlgmetrics meteor15`` take the same files. All three also read the
usual inputs (``--pred hyp.txt --ref ref1.txt --ref ref2.txt``, JSON Lines).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .command import FamilyCommand, Outcome

__all__ = ["CIDER_COMMAND", "COCO_COMMAND", "METEOR15_COMMAND", "CocoCommand"]


@dataclasses.dataclass(frozen=True)
class CocoCommand(FamilyCommand):
    """A family command that also reads the COCO results and annotations JSON files (``coco_json``); for the
    suite, one headline value per score."""

    streams: bool = False  # read whole: see FamilyCommand.streams

    several: bool = False

    def headlines(self, out: Outcome) -> list[tuple[str, str, Any]]:
        if self.several:
            return [(name, name, value) for name, value in out.score.items()]
        return super().headlines(out)

    def outcome(self, result: Any, config: Any, batch: Any) -> Outcome:
        out = super().outcome(result, config, batch)
        for key in ("bleu", "rouge", "cider", "meteor"):  # the families' own results: in the Python API
            out.diagnostics.pop(key, None)
        return out


COCO_COMMAND = CocoCommand(
    "coco",
    "nlgmetrics.metrics.coco:COCO",
    key="coco",
    label="COCO",
    derive_options=True,
    coco_json=True,
    several=True,
    help="COCO caption evaluation: BLEU-1..4, ROUGE-L, CIDEr-D (and METEOR 1.5 with --meteor) as pycocoevalcap "
    "1.2 computes them (--pred results.json --ref annotations.json, or the usual files)",
)

CIDER_COMMAND = CocoCommand(
    "cider",
    "nlgmetrics.metrics.cider:CIDER",
    key="cider",
    label="CIDEr",
    derive_options=True,
    coco_json=True,
    help="CIDEr-D (--preset cider-d, pycocoevalcap's Cider) or CIDEr (--preset cider) of image captions",
)

METEOR15_COMMAND = CocoCommand(
    "meteor15",
    "nlgmetrics.metrics.meteor15:METEOR15",
    key="meteor15",
    label="METEOR",
    derive_options=True,
    coco_json=True,
    help="METEOR 1.5 as pycocoevalcap 1.2's Meteor (its meteor-1.5.jar: needs Java and the coco-meteor extra)",
)
