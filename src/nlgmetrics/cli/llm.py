"""Subcommands of the LLM evaluation families: ``pass-at-k``, ``g-pass-at-k``, ``maj-at-n`` and
``multiple-choice``. Their inputs are numbers or lists, one problem (or document) per line of a JSON Lines file:

* ``pass-at-k`` / ``g-pass-at-k``: ``{"num_samples": 200, "num_correct": 17}``, or ``{"correct": [true, false,
  ...]}`` (the correctness of each sample);
* ``maj-at-n``: ``{"samples": ["42", "41", "42"], "gold": "42"}``;
* ``multiple-choice``: ``{"loglikelihoods": [-1.2, -0.4], "gold": 1, "choices": ["yes", "no"]}`` (``choices``
  for ``acc_norm``; ``unconditional``, the choices' log-likelihoods without the question, for
  ``acc_mutual_info``), or an lm-eval ``samples_<task>_<date>.jsonl`` of a multiple-choice task as it is.

``--pred-field`` / ``--ref-field`` rename the two main fields (``prediction`` and ``references`` are read too, the
field names of every other command). Nothing is executed: a code benchmark's samples are run by you, and their
counts scored here.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from typing import Any

from .command import FamilyCommand, Outcome, outcome_of
from .io import CLIInputError, jsonl_objects

__all__ = ["G_PASS_AT_K_COMMAND", "MAJ_AT_N_COMMAND", "MULTIPLE_CHOICE_COMMAND", "PASS_AT_K_COMMAND", "FieldsCommand"]


@dataclasses.dataclass(frozen=True)
class FieldsCommand(FamilyCommand):
    """A family whose inputs are JSON values read by field name from JSON Lines: ``pred_fields`` and
    ``ref_fields`` (the first present is taken; ``--pred-field``/``--ref-field`` override), ``alternative`` a field
    that replaces both (pass@k's per-sample ``correct``), ``input_fields`` the family's further per-segment inputs
    (multiple choice's ``choices``); an lm-eval samples log is read as such."""

    pred_fields: tuple[str, ...] = ()
    ref_fields: tuple[str, ...] = ()
    alternative: str | None = None
    input_fields: tuple[str, ...] = ()
    reads_logs: bool = False
    structured: bool = True

    def read_inputs(self, args: argparse.Namespace) -> tuple[Any, Any] | None:
        if args.ref:
            raise CLIInputError(f"{self.name} reads one JSON Lines file (--pred) holding both fields; drop --ref")
        if self.reads_logs:
            from .tables import table_format

            if table_format(args.pred, args.format, args.pred_field) in ("lm-eval", "lighteval"):
                return None  # an eval log: read by the tables reader (its keywords go to the metric)
        pred_names = [args.pred_field] if args.pred_field else list(self.pred_fields)
        ref_names = [args.ref_field] if args.ref_field else list(self.ref_fields)
        preds: list[Any] = []
        refs: list[Any] = []
        extra: dict[str, list[Any]] = {name: [] for name in self.input_fields}
        alternative = False
        for where, obj in jsonl_objects(args.pred, "--pred"):
            if self.alternative and self.alternative in obj and not args.pred_field:
                alternative = True
                preds.append(obj[self.alternative])
                continue
            preds.append(_pick(obj, pred_names, where, "--pred-field"))
            refs.append(_pick(obj, ref_names, where, "--ref-field"))
            for name in self.input_fields:
                extra[name].append(obj.get(name))
        if not preds:
            raise CLIInputError(f"--pred {args.pred} is empty: there is nothing to score")
        if alternative and refs:
            raise CLIInputError(
                f"--pred {args.pred}: some lines give {self.alternative!r} and others {pred_names[0]!r}: give one "
                "layout for every line"
            )
        keywords = {}
        for name, values in extra.items():
            given = [v is not None for v in values]
            if any(given) and not all(given):
                first = given.index(False)
                raise CLIInputError(f"{args.pred}:{first + 1}: no field {name!r}, which other lines have")
            if all(given):
                keywords[name] = values
        if keywords:
            from ..eval_logs import LoggedAnswers

            preds = LoggedAnswers(preds, keywords=keywords)
        return preds, (None if alternative else refs)

    def compute(
        self,
        predictions: list[Any],
        references: list[Any],
        config: Any,
        segments: bool,
        sources: Any = None,
        **inputs: Any,
    ) -> Outcome:
        result = self.metric().compute(predictions, references, config, segments=segments, **inputs)
        out = outcome_of(result, dataclasses.asdict(config))
        out.diagnostics.pop(self.key, None)  # the headline value again
        return out


def _pick(obj: dict[str, Any], names: Sequence[str], where: str, option: str) -> Any:
    for name in names:
        if name in obj:
            return obj[name]
    wanted = " or ".join(repr(n) for n in names)
    present = ", ".join(repr(k) for k in obj) or "none"
    raise CLIInputError(f"{where}: no field {wanted} (fields present: {present}; choose one with {option})")


def _counts_command(name: str, key: str, label: str, help: str) -> FieldsCommand:
    """A command over counts per problem, pass-at-k's layout (JSON Lines: num_samples and num_correct, or
    correct: a list of booleans); its family is the sampling module's ``key.upper()`` (``PASS_AT_K``)."""
    return FieldsCommand(
        name,
        f"nlgmetrics.metrics.sampling:{key.upper()}",
        key=key,
        label=label,
        pred_fields=("num_samples", "n", "prediction"),
        ref_fields=("num_correct", "c", "references"),
        alternative="correct",
        help=help,
    )


PASS_AT_K_COMMAND = _counts_command(
    "pass-at-k",
    "pass_at_k",
    "pass@k",
    "pass@k of code or math samples, HF code_eval's estimator, from counts per problem (JSON Lines: "
    "num_samples and num_correct, or correct: a list of booleans); nothing is executed",
)
G_PASS_AT_K_COMMAND = _counts_command(
    "g-pass-at-k",
    "g_pass_at_k",
    "G-Pass@k",
    "G-Pass@k_tau and mG-Pass@k, lighteval's numbers, from counts per problem (as pass-at-k)",
)
MAJ_AT_N_COMMAND = FieldsCommand(
    "maj-at-n",
    "nlgmetrics.metrics.sampling:MAJ_AT_N",
    key="maj_at_n",
    label="maj@n",
    pred_fields=("samples", "prediction"),
    ref_fields=("gold", "references", "reference"),
    help="maj@n and avg@n, lighteval's numbers, from each problem's sampled answers (JSON Lines: samples, gold)",
)
MULTIPLE_CHOICE_COMMAND = FieldsCommand(
    "multiple-choice",
    "nlgmetrics.metrics.multiple_choice:MULTIPLE_CHOICE",
    key="acc",
    label="acc",
    pred_fields=("loglikelihoods", "prediction"),
    ref_fields=("gold", "references"),
    input_fields=("choices", "unconditional"),
    reads_logs=True,
    help="acc, acc_norm, acc_bytes and acc_mutual_info from per-choice log-likelihoods, lm-eval's numbers "
    "(JSON Lines: loglikelihoods, gold, choices; or an lm-eval samples log of a multiple-choice task)",
)
