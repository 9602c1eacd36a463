"""The text and JSON output of a single-metric command (shared by the commands that run on their own)."""

from __future__ import annotations

import json
from typing import Any

from .command import Command, Outcome

__all__ = ["format_human", "format_json"]


def _fmt(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        # five decimals, unless that shows a score that is not 0 as 0 (NLTK's BLEU of 1.38e-231): then its digits
        return f"{value:.5f}" if value == 0 or abs(value) >= 5e-6 or value != value else f"{value:.6g}"
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=_json_default)
    return str(value)


def _segment(value: Any) -> str:
    """A segment's score, or its headline values side by side (BERTScore: ``precision 0.95126  recall …``)."""
    if isinstance(value, dict) and all(isinstance(v, float) for v in value.values()):
        return "\t".join(f"{k} {_fmt(v)}" for k, v in value.items())
    return _fmt(value)


def _json_default(value: Any) -> Any:
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def format_human(command: Command, out: Outcome, per_segment: bool) -> str:
    """The text output: the headline value(s) with the signature (once), the diagnostics on one line, and with
    ``--explain`` the explanation in place of the diagnostics it spells out."""
    lines = []
    segments = out.segments if per_segment else None
    heads = command.headlines(out)
    several = len(heads) > 1
    for _, label, value in heads:
        sig = "" if several else f" ({out.signature})"
        if isinstance(value, (list, tuple)):  # reduction "none": the score is per segment
            lines.append(f"{label}: {len(value)} per-segment scores (reduction: none){sig}")
            segments = list(value)
        elif isinstance(value, str):  # a result that is a file written (a baseline)
            lines.append(f"{label} {value}{sig}")
        else:
            lines.append(f"{label} = {_fmt(value)}{sig}")
    if several:
        lines.append(f"signature: {out.signature}")
    shown = {k: v for k, v in out.diagnostics.items() if v is not None}
    explanation = shown.pop("explanation", None)
    if explanation is not None:  # it spells out the counts, the smoothing and the reason: say them once
        shown = {k: v for k, v in shown.items() if k.startswith("confidence")}
    if shown:
        lines.append(", ".join(f"{k}: {_fmt(v)}" for k, v in shown.items()))
    if explanation is not None:
        lines.append(str(explanation).strip("\n"))
    if segments is not None:
        lines.extend(f"{i}\t{_segment(v)}" for i, v in enumerate(segments, 1))
    return "\n".join(lines) + "\n"


def format_json(command: Command, out: Outcome, per_segment: bool) -> str:
    obj: dict[str, Any] = {key: value for key, _, value in command.headlines(out)}
    obj.update(signature=out.signature, settings=out.settings)
    for k, v in out.diagnostics.items():
        obj.setdefault(k, v)
    if per_segment:
        obj["segments"] = out.segments
    return json.dumps(obj, ensure_ascii=False, default=_json_default) + "\n"
