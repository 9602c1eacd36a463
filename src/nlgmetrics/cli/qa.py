"""The ``squad`` subcommand: question answering EM and F1, reading SQuAD's own JSON files as well.

``nlgmetrics squad --dataset dev-v2.0.json --pred predictions.json [--na-prob-file na_prob.json] --preset squad-v2``
takes the files of the official scripts: the dataset (``{"data": [{"paragraphs": [{"qas": [{"id", "answers":
[{"text"}]}]}]}]}``; CMRC 2018's layouts too), the predictions (``{question id: answer}``) and optionally the
no-answer probabilities (``{question id: probability}``). Questions are scored in the dataset's order. A question
without a prediction is an error (the v1.1 script counts it 0, the v2.0 script fails); predictions for questions
the dataset does not hold are ignored with a warning. Without ``--dataset`` the usual inputs apply (JSON Lines
with a list of accepted answers per line, or ``--ref`` files).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from typing import Any

from .._files import parse_json
from ..errors import warn
from .command import FamilyCommand, Outcome
from .io import CLIInputError, read_text

__all__ = ["SQUAD_COMMAND", "SquadCommand", "read_squad_dataset"]


def _load_json(path: str, option: str) -> Any:
    return parse_json(read_text(path, option), f"{option} {path}", at_line=path)


def read_squad_dataset(path: str) -> list[tuple[str, list[str]]]:
    """``(question id, accepted answers)`` of every question of a SQuAD-layout dataset, in order."""
    data = _load_json(path, "--dataset")
    articles = data.get("data", data) if isinstance(data, dict) else data
    if not isinstance(articles, list):
        raise CLIInputError(f"{path}: expected SQuAD's layout, {{'data': [{{'paragraphs': [{{'qas': [...]}}]}}]}}")
    out: list[tuple[str, list[str]]] = []
    for a, article in enumerate(articles):
        paragraphs = article.get("paragraphs", [article]) if isinstance(article, dict) else None
        if not isinstance(paragraphs, list):
            raise CLIInputError(f"{path}: data[{a}] is not an article with 'paragraphs'")
        for p, para in enumerate(paragraphs):
            qas = para.get("qas") if isinstance(para, dict) else None
            if not isinstance(qas, list):
                raise CLIInputError(f"{path}: data[{a}].paragraphs[{p}] has no list 'qas'")
            for q, qa in enumerate(qas):
                where = f"{path}: data[{a}].paragraphs[{p}].qas[{q}]"
                if not isinstance(qa, dict):
                    raise CLIInputError(f"{where} is not an object")
                qid = qa.get("id", qa.get("query_id"))
                if not isinstance(qid, str):
                    raise CLIInputError(f"{where} has no string 'id'")
                answers = qa.get("answers")
                if isinstance(answers, dict):  # the HF layout: {"text": [...], "answer_start": [...]}
                    answers = answers.get("text")
                if not isinstance(answers, list):
                    raise CLIInputError(f"{where} (id {qid!r}) has no list 'answers'")
                texts = [x.get("text") if isinstance(x, dict) else x for x in answers]
                for j, t in enumerate(texts):
                    if not isinstance(t, str):
                        raise CLIInputError(f"{where} (id {qid!r}): answers[{j}] has no string 'text'")
                out.append((qid, [str(t) for t in texts]))
    return out


def _id_map(path: str, option: str, number: bool) -> dict[str, Any]:
    data = _load_json(path, option)
    if not isinstance(data, dict):
        raise CLIInputError(
            f"{option} {path}: expected a JSON object {{question id: {'probability' if number else 'answer'}}}"
        )
    for qid, value in data.items():
        ok = _finite(value) if number else isinstance(value, str)
        if not ok:
            kind = "a finite number" if number else "a string"
            raise CLIInputError(f"{option} {path}: the value of {qid!r} is {value!r}; expected {kind}")
    return data


def _finite(value: Any) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False


@dataclasses.dataclass(frozen=True)
class SquadCommand(FamilyCommand):
    """``nlgmetrics squad``: EM and F1 headlines, and SQuAD's dataset/predictions/na-prob files."""

    streams: bool = False  # read whole: see FamilyCommand.streams

    def add_arguments(
        self, parser: argparse._ActionsContainer, conventions: argparse._ActionsContainer | None = None
    ) -> None:
        super().add_arguments(parser, conventions)
        parser.add_argument(
            "--dataset",
            metavar="FILE",
            help="SQuAD-layout dataset JSON (the official scripts' first argument); --pred is then the predictions "
            "JSON {id: answer}",
        )
        parser.add_argument(
            "--na-prob-file", metavar="FILE", help="no-answer probabilities JSON {id: probability} (squad-v2, jsquad)"
        )

    def read_inputs(self, args: argparse.Namespace) -> tuple[list[Any], list[Any]] | None:
        if args.dataset is None:
            if args.na_prob_file is not None:
                raise CLIInputError("--na-prob-file needs --dataset (the probabilities are keyed by question id)")
            return None
        if args.ref:
            raise CLIInputError("--dataset holds the accepted answers; drop --ref")
        questions = read_squad_dataset(args.dataset)
        if not questions:
            raise CLIInputError(f"--dataset {args.dataset} holds no question: there is nothing to score")
        preds = _id_map(args.pred, "--pred", number=False)
        probs = _id_map(args.na_prob_file, "--na-prob-file", number=True) if args.na_prob_file else None
        missing = [qid for qid, _ in questions if qid not in preds]
        if missing:
            raise CLIInputError(
                f"--pred {args.pred} has no prediction for {len(missing)} question(s) of the dataset, the first "
                f"{missing[0]!r} (the v1.1 script would count them 0, the v2.0 script fails)"
            )
        if probs is not None:
            lacking = [qid for qid, _ in questions if qid not in probs]
            if lacking:
                raise CLIInputError(
                    f"--na-prob-file {args.na_prob_file} has no probability for {len(lacking)} question(s), the first "
                    f"{lacking[0]!r}"
                )
        from ..metrics.squad import NO_ANSWER, first_repeated, last_occurrences

        convention = getattr(args, "opt_convention", None) or getattr(args, "preset", None) or "squad-v1"
        ids = [qid for qid, _ in questions]
        keep = last_occurrences(ids) if convention in NO_ANSWER else None
        if keep is not None:  # the v2.0 script (and JSQuAD's) keys its scores by id: the last occurrence counts
            warn(
                f"squad: {len(questions) - len(keep)} question(s) of {args.dataset} repeat an id (the first: "
                f"{first_repeated(ids)!r}); as the official {convention} evaluation, each id is scored once, with "
                "its last occurrence"
            )
            questions = [questions[k] for k in keep]
        unanswerable = next((qid for qid, answers in questions if not answers), None)
        if unanswerable is not None and convention not in NO_ANSWER:
            raise CLIInputError(
                f"--dataset {args.dataset}: question {unanswerable!r} has no answer; an empty answer list means "
                f"'no answer' only under squad-v2 and jsquad (--preset squad-v2), not under {convention}"
            )
        known = {qid for qid, _ in questions}
        extra = sum(1 for qid in preds if qid not in known)
        if extra:
            warn(f"squad: {extra} prediction(s) in {args.pred} answer no question of {args.dataset}; ignored")
        predictions: list[Any] = [
            preds[qid] if probs is None else {"prediction_text": preds[qid], "no_answer_probability": probs[qid]}
            for qid, _ in questions
        ]
        return predictions, [answers for _, answers in questions]

    def headlines(self, out: Outcome) -> list[tuple[str, str, Any]]:
        if isinstance(out.score, (list, tuple)):
            return [("f1", "F1", out.score)]
        return [("exact_match", "EM", out.diagnostics.get("exact_match")), ("f1", "F1", out.score)]

    def compute(
        self, predictions: list[Any], references: list[Any], config: Any, segments: bool, sources: Any = None
    ) -> Outcome:
        out = super().compute(predictions, references, config, segments, sources)
        out.diagnostics.pop("f1", None)  # the headline value again
        return out


SQUAD_COMMAND = SquadCommand(
    "squad",
    "nlgmetrics.metrics.squad:SQUAD",
    key="f1",
    label="F1",
    help="question answering EM and F1 (SQuAD v1.1/v2.0, torchmetrics, JSQuAD, CMRC 2018, llm-jp-eval); reads "
    "SQuAD's dataset, predictions and na-prob JSON files with --dataset",
)
