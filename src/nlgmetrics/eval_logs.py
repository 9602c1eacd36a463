"""Eval logs in: lm-evaluation-harness samples and lighteval details, read the way the harness scored them.

* :func:`read_lm_eval` reads ``samples_<task>_<date>.jsonl`` (``lm_eval ... --log_samples``, lm-eval 0.4). A
  generation task gives the filtered answers and the targets; a multiple-choice task gives the per-choice
  log-likelihoods, the gold index (or indices) and the choices (``nlgmetrics.multiple_choice(*log,
  **log.keywords)``).
* :func:`read_lighteval` reads ``details_<task>_<date>.parquet`` (``lighteval ... --save-details``).

The predictions come as :class:`LoggedAnswers`: a list, as every metric takes it, that also records what the
harness did to them (the lm-eval filter that extracted the answers, the document ids, the per-document values the
harness logged). A metric that extracts answers itself (``exact_match`` with ``extract``, its ``gsm8k`` presets)
reads the filter from it and never extracts twice; a metric whose number disagrees with what the harness logged
says so (:func:`logged_disagreement`).

Documents are keyed by ``doc_id``, as lm-eval writes it (an integer; a string that spells an integer is that
integer, so ``1`` and ``"1"`` are one document and a file holding both is refused). Rows come out in ``doc_id``
order; :func:`check_same_documents` refuses two logs of one task whose documents differ, naming the missing and
the extra ids.
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, SupportsIndex, overload

from ._table_inputs import Inputs
from .errors import InvalidInputError, MissingDependencyError

__all__ = [
    "FILTER_OF_PATTERN",
    "LoggedAnswers",
    "carried_options",
    "carried_specs",
    "check_same_documents",
    "doc_key",
    "logged_disagreement",
    "read_lighteval",
    "read_lm_eval",
    "sniff",
]

#: The lm-eval filter that each ready-made extraction pattern of ``exact_match`` reproduces (lm-eval's ``gsm8k``
#: task: ``strict-match`` is ``regex #### (\-?[0-9\.\,]+)`` then ``take_first``; ``flexible-extract`` is
#: ``regex (-?[$0-9.,]{2,})|(-?[0-9]+)`` with ``group_select: -1`` then ``take_first``).
FILTER_OF_PATTERN: dict[str, str] = {"gsm8k": "strict-match", "gsm8k-flexible": "flexible-extract"}
#: What lm-eval writes in ``filtered_resps`` when its regex filter finds nothing.
INVALID = "[invalid]"


class LoggedAnswers(list):  # type: ignore[type-arg]
    """The predictions of an eval log: a plain list to every metric, plus what the harness did to them.

    * ``lm_eval_filter``: the lm-eval filter these answers are the output of (``"strict-match"``,
      ``"flexible-extract"``, ...; ``"none"``: the model's text as generated); ``None`` for lighteval;
    * ``task``: the task, from the file name (``samples_<task>_<date>.jsonl``), when it has that shape;
    * ``ids``: the documents' ids, in the same order;
    * ``logged``: the per-document metric values the harness logged, ``{"exact_match": [1.0, 0.0, ...]}``;
    * ``keywords``: the further per-segment inputs of the metric the log was made for (a multiple-choice log's
      ``choices``), as :attr:`~nlgmetrics.tables.Inputs.keywords`.

    A slice keeps them (for its items)."""

    def __init__(
        self,
        values: Iterable[Any] = (),
        *,
        lm_eval_filter: str | None = None,
        task: str | None = None,
        ids: list[Any] | None = None,
        logged: Mapping[str, list[Any]] | None = None,
        keywords: Mapping[str, list[Any]] | None = None,
    ) -> None:
        super().__init__(values)
        self.lm_eval_filter = lm_eval_filter
        self.task = task
        self.ids = ids
        self.logged: dict[str, list[Any]] = dict(logged or {})
        self.keywords: dict[str, list[Any]] = dict(keywords or {})

    @overload
    def __getitem__(self, index: SupportsIndex) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> LoggedAnswers: ...
    def __getitem__(self, index: Any) -> Any:
        item = super().__getitem__(index)
        if not isinstance(index, slice):
            return item
        return LoggedAnswers(
            item,
            lm_eval_filter=self.lm_eval_filter,
            task=self.task,
            ids=None if self.ids is None else self.ids[index],
            logged={k: v[index] for k, v in self.logged.items()},
            keywords={k: v[index] for k, v in self.keywords.items()},
        )

    @property
    def extracted(self) -> bool:
        """Whether a filter of the harness already extracted the answers (any lm-eval filter but ``none``)."""
        return self.lm_eval_filter not in (None, "none")


# ---------------------------------------------------------------------------------------------------- doc ids
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")


def doc_key(doc_id: Any, where: str) -> int | str:
    """A document id as one key: an integer, or a string that spells one (``"1"`` is ``1``; ``"01"`` is not),
    or another string. Anything else (a bool, a float, null, a list) is refused, naming ``where``."""
    if isinstance(doc_id, bool) or not isinstance(doc_id, (int, str)):
        kind = "null" if doc_id is None else type(doc_id).__name__
        raise InvalidInputError(f"{where}: doc_id is {kind} ({doc_id!r:.40}); expected an integer or a string")
    if isinstance(doc_id, str) and _INTEGER.match(doc_id):
        return int(doc_id)
    return doc_id


def _order(key: int | str) -> tuple[int, Any]:
    return (0, key) if isinstance(key, int) else (1, key)


def check_same_documents(columns: Sequence[Any]) -> None:
    """Refuse logs of one task that hold different documents: two systems' files are paired by ``doc_id``, and
    every file must hold the same documents (each reader gives them in ``doc_id`` order). ``columns`` are the
    inputs of one run; those without document ids (text files, lists, tables) are left alone."""
    keyed = [c for c in columns if getattr(c, "ids", None) is not None]
    if len(keyed) < 2:
        return
    first = keyed[0]
    expected = set(first.ids)
    for other in keyed[1:]:
        if other.ids == first.ids:
            continue
        have = set(other.ids)
        missing = sorted(expected - have, key=_order)
        extra = sorted(have - expected, key=_order)
        parts = []
        if missing:
            parts.append(f"lacks doc_id {_some(missing)}")
        if extra:
            parts.append(f"has doc_id {_some(extra)} that {first.name} lacks")
        raise InvalidInputError(
            f"{other.name} and {first.name} do not hold the same documents: {other.name} {' and '.join(parts)}; "
            "segments are paired by doc_id, so every file must hold the same documents (run the same task on the "
            "same --limit, or give the documents both have)"
        )


def _some(ids: list[Any], n: int = 8) -> str:
    shown = ", ".join(repr(i) for i in ids[:n])
    return shown + (f" and {len(ids) - n} more" if len(ids) > n else "")


# ---------------------------------------------------------------------------------------------------- JSON
def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(ValueError):
    pass


def _records(path: str) -> list[dict[str, Any]]:
    """The JSON object on each line; a line that is not one, or that names a field twice (JSON keeps the last
    silently), is refused naming the file and the line."""
    records = []
    if not os.path.isfile(path):
        raise InvalidInputError(f"cannot read {path}: no such file")
    with open(path, encoding="utf-8-sig") as fh:
        try:
            for lineno, line in enumerate(fh, 1):
                where = f"{path}:{lineno}"
                try:
                    obj = json.loads(line, object_pairs_hook=_unique_keys)
                except _DuplicateKey as err:
                    raise InvalidInputError(
                        f"{where}: the field {err.args[0]!r} appears twice in one object; which one is meant is "
                        "ambiguous (JSON readers keep the last)"
                    ) from None
                except json.JSONDecodeError as err:
                    raise InvalidInputError(f"{where}: invalid JSON at column {err.colno}: {err.msg}") from None
                except RecursionError:
                    raise InvalidInputError(f"{where}: the JSON is nested too deeply to read") from None
                if not isinstance(obj, dict):
                    raise InvalidInputError(f"{where}: expected a JSON object")
                records.append(obj)
        except UnicodeDecodeError as err:
            raise InvalidInputError(f"{path}: not UTF-8 (byte {err.start} of a block: {err.reason})") from None
    return records


# ---------------------------------------------------------------------------------------------------- lm-eval
_SAMPLES_NAME = re.compile(r"samples_(.+)_\d{4}-\d\d-\d\dT[0-9-]+(?:\.\d+)?\.jsonl\Z")


def task_of(path: str) -> str | None:
    """The task in an lm-eval samples file name, ``samples_<task>_<date>.jsonl`` (``None`` for another name)."""
    m = _SAMPLES_NAME.match(os.path.basename(path))
    return m.group(1) if m else None


def _literal_list(text: str) -> list[Any] | None:
    """lm-eval writes a list target as ``str(list)`` (Python's repr): read it back as the list it was."""
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        return None
    try:
        value = ast.literal_eval(stripped)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    return value if isinstance(value, list) and value else None


def _is_pair(value: Any) -> bool:
    """``[log-likelihood, is_greedy]`` as lm-eval logs one continuation (as strings since 0.4.3)."""
    return isinstance(value, list) and len(value) == 2 and not isinstance(value[0], (list, dict))


def _number(value: Any, where: str) -> float:
    """A log-likelihood as logged: a number, or the string ``str(float)`` lm-eval writes."""
    if isinstance(value, bool):
        raise InvalidInputError(f"{where} is a boolean; expected a log-likelihood (a number)")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    raise InvalidInputError(f"{where} is {value!r:.40}; expected a log-likelihood (a number)")


def _arguments(rec: Mapping[str, Any], n: int, where: str) -> list[tuple[str, str]] | None:
    """The ``(context, continuation)`` of each request: ``arguments`` as lm-eval 0.4.3+ writes it (``{"gen_args_0":
    {"arg_0": ctx, "arg_1": cont}, ...}``) or as a list of pairs (earlier); ``None`` when absent."""
    args = rec.get("arguments")
    if args is None:
        return None
    pairs: list[Any]
    if isinstance(args, Mapping):
        pairs = []
        for i in range(len(args)):
            item = args.get(f"gen_args_{i}")
            if not isinstance(item, Mapping):
                raise InvalidInputError(f"{where}: arguments has no gen_args_{i}")
            pairs.append([item.get("arg_0"), item.get("arg_1")])
    elif isinstance(args, list):
        pairs = list(args)
    else:
        raise InvalidInputError(f"{where}: arguments is {type(args).__name__}; expected an object or a list")
    out = []
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, list) and len(pair) >= 2 and isinstance(pair[0], str) and isinstance(pair[1], str)):
            raise InvalidInputError(f"{where}: arguments[{i}] is not a (context, continuation) pair of strings")
        out.append((pair[0], pair[1]))
    if len(out) != n:
        raise InvalidInputError(f"{where}: {len(out)} arguments but {n} responses")
    return out


def _gold(target: Any, choices: list[str], where: str) -> int | list[int]:
    """The gold of a multiple-choice document from its logged target (``str(target)``): an index, a list of
    indices, or the text of a choice, as lm-eval's ``process_results`` takes them."""
    if isinstance(target, bool):
        raise InvalidInputError(f"{where}: target is a boolean; expected a choice index")
    if isinstance(target, int):
        return target
    if isinstance(target, list):
        value: Any = target
    elif isinstance(target, str):
        text = target.strip()
        if _INTEGER.match(text):
            return int(text)  # lm-eval's doc_to_target reads a digit string as the index
        value = _literal_list(text)
        if value is None:
            if target in choices:
                return choices.index(target)
            raise InvalidInputError(
                f"{where}: target {target!r:.60} is neither a choice index nor one of the {len(choices)} choices"
            )
    else:
        raise InvalidInputError(f"{where}: target is {type(target).__name__}; expected a choice index")
    if not value or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise InvalidInputError(f"{where}: target {target!r:.60} is not a list of choice indices")
    return list(value)


def read_lm_eval(path: str | os.PathLike[str], *, filter: str | None = None, target_delimiter: str = " ") -> Inputs:
    """The samples of an lm-evaluation-harness ``samples_<task>_<date>.jsonl`` file (``lm_eval ...
    --log_samples``; lm-eval 0.4), as :class:`~nlgmetrics.tables.Inputs`.

    * **Generation tasks** (``generate_until``): the prediction of a document is its filtered response
      (``filtered_resps``: the output of the filter, e.g. the number ``strict-match`` extracted, or ``[invalid]``),
      its reference the ``target`` (a list target, written as Python's ``str(list)``, gives several references).
      A task with several filters (gsm8k's ``strict-match`` and ``flexible-extract``) logs each document once per
      filter: choose one with ``filter=``. The predictions remember the filter (:class:`LoggedAnswers`), so the
      ``gsm8k`` presets of ``exact_match`` do not extract again.
    * **Multiple-choice tasks**: the predictions are the per-choice log-likelihoods (``filtered_resps``'
      ``[log-likelihood, is_greedy]`` pairs), the references the gold (an index, or a list of indices), and
      ``keywords`` holds the ``choices`` (each request's continuation less the task's ``target_delimiter``,
      lm-eval's default ``" "``) and, when the task logged them for ``acc_mutual_info``, the ``unconditional``
      log-likelihoods: ``nlgmetrics.multiple_choice(*log, **log.keywords)``.

    Rows come out in ``doc_id`` order (``ids``).
    """
    path = os.fspath(path)
    records = _records(path)
    if not records:
        raise InvalidInputError(f"{path}: no samples; there is nothing to score (an empty corpus)")
    for lineno, rec in enumerate(records, 1):
        missing = [k for k in ("doc_id", "filtered_resps", "target") if k not in rec]
        if missing:
            raise InvalidInputError(
                f"{path}:{lineno}: not an lm-eval samples file: no field {', '.join(repr(m) for m in missing)} "
                f"(fields: {', '.join(repr(k) for k in rec)})"
            )
    filters = list(dict.fromkeys(str(rec.get("filter", "none")) for rec in records))
    if filter is None:
        if len(filters) > 1:
            raise InvalidInputError(
                f"{path}: the samples were logged under {len(filters)} filters ({', '.join(filters)}); "
                "choose one with filter= (--lm-eval-filter on the command line)"
            )
        filter = filters[0]
    elif filter not in filters:
        raise InvalidInputError(f"{path}: no samples under filter {filter!r}; filters: {', '.join(filters)}")
    chosen: list[tuple[int | str, str, dict[str, Any]]] = []
    seen: dict[int | str, str] = {}
    for lineno, rec in enumerate(records, 1):
        if str(rec.get("filter", "none")) != filter:
            continue
        where = f"{path}:{lineno}"
        key = doc_key(rec["doc_id"], where)
        if key in seen:
            raise InvalidInputError(
                f"{where}: doc_id {rec['doc_id']!r} is the document of {seen[key]} again (under filter {filter!r}); "
                "each document is logged once per filter"
            )
        seen[key] = where
        chosen.append((key, where, rec))
    chosen.sort(key=lambda item: _order(item[0]))
    first = chosen[0][2]["filtered_resps"]
    multiple_choice = isinstance(first, list) and bool(first) and all(_is_pair(r) for r in first)
    reader = _multiple_choice_rows if multiple_choice else _generation_rows
    preds, refs, keywords = reader(chosen, target_delimiter)
    logged: dict[str, list[Any]] = {}
    names = {str(m) for _, _, rec in chosen for m in (rec.get("metrics") or ()) if isinstance(m, str)}
    for name in sorted(names):
        values = [rec.get(name) for _, _, rec in chosen]
        numbers = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if len(numbers) == len(values):
            logged[name] = numbers
    ids = [key for key, _, _ in chosen]
    answers = LoggedAnswers(preds, lm_eval_filter=filter, task=task_of(path), ids=ids, logged=logged, keywords=keywords)
    return Inputs(answers, refs, ids=ids, name=path, keywords=keywords)


def _generation_rows(
    chosen: list[tuple[int | str, str, dict[str, Any]]], target_delimiter: str
) -> tuple[list[Any], list[Any], dict[str, list[Any]]]:
    preds: list[str] = []
    refs: list[list[str]] = []
    for _, where, rec in chosen:
        resp = rec["filtered_resps"]
        while isinstance(resp, list) and resp:
            resp = resp[0]  # one entry per request, then (with repeats) one per sample: the first
        if not isinstance(resp, str):
            what = "null" if resp is None else f"{type(resp).__name__} {resp!r:.40}"
            raise InvalidInputError(
                f"{where}: filtered_resps holds {what}, not generated text (a generation task's) nor the "
                "[log-likelihood, is_greedy] pairs of a multiple-choice task's choices"
            )
        target = rec["target"]
        if isinstance(target, str):
            listed = _literal_list(target)
            ref = listed if listed is not None and all(isinstance(t, str) for t in listed) else [target]
        elif isinstance(target, list) and target and all(isinstance(t, str) for t in target):
            ref = list(target)  # lm-eval 0.4.0-0.4.2 wrote the target as it was
        else:
            what = "null" if target is None else type(target).__name__
            raise InvalidInputError(f"{where}: target is {what}; expected a string or a list of strings")
        preds.append(resp)
        refs.append(ref)
    return preds, refs, {}


def _multiple_choice_rows(
    chosen: list[tuple[int | str, str, dict[str, Any]]], target_delimiter: str
) -> tuple[list[Any], list[Any], dict[str, list[Any]]]:
    lls: list[list[float]] = []
    golds: list[Any] = []
    choices: list[list[str]] = []
    unconditional: list[list[float]] = []
    for _, where, rec in chosen:
        resps = rec["filtered_resps"]
        if not isinstance(resps, list) or not resps or not all(_is_pair(r) for r in resps):
            raise InvalidInputError(
                f"{where}: filtered_resps is not a list of [log-likelihood, is_greedy] pairs, as the other "
                "documents' (a multiple-choice task's) are"
            )
        values = [_number(r[0], f"{where}: filtered_resps[{j}][0]") for j, r in enumerate(resps)]
        args = _arguments(rec, len(values), where)
        if args is None:
            raise InvalidInputError(
                f"{where}: no arguments field: the choices (the requests' continuations) are needed for acc_norm"
            )
        conts = [cont[len(target_delimiter) :] if cont.startswith(target_delimiter) else cont for _, cont in args]
        metrics = rec.get("metrics") or ()
        half = len(values) // 2
        if (
            "acc_mutual_info" in metrics
            and len(values) % 2 == 0
            and all(ctx == "" for ctx, _ in args[half:])
            and conts[:half] == conts[half:]
        ):
            unconditional.append(values[half:])
            values, conts = values[:half], conts[:half]
        elif unconditional:
            raise InvalidInputError(f"{where}: no unconditional log-likelihoods, as the other documents have")
        if len(values) < 2:
            raise InvalidInputError(
                f"{where}: one log-likelihood; a multiple-choice document has a choice per response (a "
                "loglikelihood task's single continuation is not multiple choice)"
            )
        lls.append(values)
        choices.append(conts)
        golds.append(_gold(rec["target"], conts, where))
    if unconditional and len(unconditional) != len(lls):
        raise InvalidInputError(f"{chosen[0][1]}: no unconditional log-likelihoods, as the other documents have")
    keywords: dict[str, list[Any]] = {"choices": choices}
    if unconditional:
        keywords["unconditional"] = unconditional
    return lls, golds, keywords


# ---------------------------------------------------------------------------------------------------- lighteval
def _strings(value: Any, what: str, where: str) -> list[str]:
    """A list of strings as lighteval writes one (``model_response.text``, ``doc.choices``); a bare string, which
    would be read character by character, is refused."""
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple, str)):
        value = value.tolist()
    if isinstance(value, str):
        raise InvalidInputError(
            f"{where}: {what} is a string ({value!r:.40}); lighteval writes a list of strings there (one per "
            "sample or choice)"
        )
    if not isinstance(value, (list, tuple)):
        kind = "null" if value is None else type(value).__name__
        raise InvalidInputError(f"{where}: {what} is {kind}; expected a list of strings")
    for j, item in enumerate(value):
        if not isinstance(item, str):
            kind = "null" if item is None else type(item).__name__
            raise InvalidInputError(f"{where}: {what}[{j}] is {kind}; expected a string")
    return list(value)


def _read_lighteval_flat(table: _Parquet, path: str) -> Inputs:
    """The flat details of lighteval 0.9 and earlier: ``predictions`` (a list, its first item the text) and
    ``gold`` (the gold targets) per row."""
    preds: list[str] = []
    refs: list[list[str]] = []
    for i, (pred, gold) in enumerate(zip(table.get("predictions"), table.get("gold"), strict=True)):
        where = table.locate(i)
        texts = _strings(pred, "predictions", where)
        if not texts:
            raise InvalidInputError(f"{where}: predictions is an empty list; it holds no generated text")
        preds.append(texts[0])
        if isinstance(gold, str):
            gold = [gold]
        golds = _strings(gold, "gold", where)
        if not golds:
            raise InvalidInputError(f"{where}: gold is an empty list; every segment needs a reference")
        refs.append(golds)
    if not preds:
        raise InvalidInputError(f"{path}: no rows; there is nothing to score (an empty corpus)")
    return Inputs(LoggedAnswers(preds), refs, name=path)


class _Parquet:
    """The columns of a Parquet file by name, each read whole on first use, and how to name row ``i``."""

    def __init__(self, path: str) -> None:
        if not os.path.isfile(path):
            raise InvalidInputError(f"cannot read {path}: no such file")
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise MissingDependencyError("Arrow and Parquet", "pip install 'nlgmetrics[tables]'") from None
        self.path = path
        self._pq = pq
        try:
            self.names = list(pq.read_schema(path).names)
        except Exception as err:  # pyarrow raises its own errors for a file that is not Parquet
            raise InvalidInputError(f"{path}: not a Parquet file ({err})") from None
        self._cache: dict[str, list[Any]] = {}

    def get(self, name: str) -> list[Any]:
        if name not in self._cache:
            self._cache[name] = self._pq.read_table(self.path, columns=[name]).column(name).to_pylist()
        return self._cache[name]

    def column(self, name: str, what: str) -> list[Any]:
        if name not in self.names:
            present = ", ".join(repr(n) for n in self.names) or "none"
            raise InvalidInputError(f"{self.path}: no column {name!r} for the {what} (columns: {present})")
        return self.get(name)

    def locate(self, i: int) -> str:
        return f"{self.path}: row {i}"


def read_lighteval(path: str | os.PathLike[str]) -> Inputs:
    """Predictions and references from a lighteval details file, ``details_<task>_<date>.parquet`` (written with
    ``--save-details``; lighteval 0.10 and later: columns ``doc``, ``model_response``, ``metric``; the flat
    ``predictions``/``gold`` columns of 0.9 and earlier are read too).

    The prediction is the model's final text (``model_response.text_post_processed`` when the task
    post-processes, else ``model_response.text``; the first of them), the references are the gold choices
    (``doc.choices`` at ``doc.gold_index``, an index or a list of them). Every field is checked for its type: a
    string where lighteval writes a list of strings is refused, never read character by character. When every
    document has an id (``doc.id``), rows come out in id order (``ids``) and files are paired by it.
    """
    path = os.fspath(path)
    table = _Parquet(path)
    duplicated = sorted({n for n in table.names if table.names.count(n) > 1})
    if duplicated:
        raise InvalidInputError(
            f"{path}: the column {duplicated[0]!r} appears more than once; which one is meant is ambiguous"
        )
    if "doc" not in table.names and {"predictions", "gold"} <= set(table.names):
        return _read_lighteval_flat(table, path)
    docs = table.column("doc", "documents (lighteval's doc)")
    responses = table.column("model_response", "model responses (lighteval's model_response)")
    metrics = table.get("metric") if "metric" in table.names else None
    preds: list[str] = []
    refs: list[list[str]] = []
    doc_ids: list[Any] = []
    for i, (doc, resp) in enumerate(zip(docs, responses, strict=True)):
        where = table.locate(i)
        if not isinstance(resp, Mapping) or not isinstance(doc, Mapping):
            raise InvalidInputError(f"{where}: doc and model_response must be structs (lighteval 0.10 details)")
        field = "model_response.text_post_processed"
        texts = resp.get("text_post_processed")
        if texts is None:
            field, texts = "model_response.text", resp.get("text")
        texts = _strings(texts, field, where)
        if not texts:
            raise InvalidInputError(f"{where}: {field} is an empty list; it holds no generated text")
        choices = _strings(doc.get("choices"), "doc.choices", where)
        gold = doc.get("gold_index")
        indices: list[Any] = list(gold) if isinstance(gold, (list, tuple)) else [gold]
        if not indices or any(
            isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(choices) for k in indices
        ):
            raise InvalidInputError(
                f"{where}: doc.gold_index {gold!r} does not pick one of the {len(choices)} doc.choices"
            )
        preds.append(texts[0])
        refs.append([choices[int(k)] for k in indices])
        doc_ids.append(doc.get("id"))
    if not preds:
        raise InvalidInputError(f"{path}: no rows; there is nothing to score (an empty corpus)")
    logged: dict[str, list[Any]] = {}
    if metrics is not None and all(isinstance(m, Mapping) for m in metrics):
        for name in sorted({k for m in metrics for k in m}):
            values = [m.get(name) for m in metrics]
            numbers = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if len(numbers) == len(values):
                logged[name] = numbers
    ids: list[Any] | None = None
    if all(isinstance(d, (str, int)) and not isinstance(d, bool) and d != "" for d in doc_ids):
        # every document names itself (lighteval's doc.id): rows in id order, paired by id across files
        keys = [doc_key(d, table.locate(i)) for i, d in enumerate(doc_ids)]
        seen: dict[Any, int] = {}
        for i, key in enumerate(keys):
            if key in seen:
                raise InvalidInputError(f"{table.locate(i)}: doc.id {doc_ids[i]!r} is row {seen[key]}'s again")
            seen[key] = i
        order = sorted(range(len(keys)), key=lambda i: _order(keys[i]))
        preds, refs = [preds[i] for i in order], [refs[i] for i in order]
        logged = {k: [v[i] for i in order] for k, v in logged.items()}
        ids = [keys[i] for i in order]
    return Inputs(LoggedAnswers(preds, logged=logged, ids=ids), refs, ids=ids, name=path)


# ---------------------------------------------------------------------------------------------------- checks
#: Per family, the logged metric each per-segment statistic reproduces: ``{logged name: statistics field}``.
LOGGED_FIELDS: dict[str, dict[str, str]] = {
    "exact_match": {"exact_match": "match", "em": "match"},
    "multiple_choice": {"acc": "acc", "acc_norm": "acc_norm", "acc_mutual_info": "acc_mutual_info"},
}


def logged_disagreement(family: str, columns: Mapping[str, Any], predictions: Any) -> str | None:
    """How this run's per-document values differ from those the harness logged for the same documents, or
    ``None`` when they agree (or the predictions carry no logged values for this family). ``columns`` are the
    run's per-segment statistics (``StatsBatch.columns``)."""
    logged = getattr(predictions, "logged", None)
    if not logged:
        return None
    for name, field in LOGGED_FIELDS.get(family, {}).items():
        values = logged.get(name)
        if values is None or field not in columns:
            continue
        ours = [float(v) for v in list(columns[field])]
        if len(ours) != len(values):
            continue
        differ = [i for i, (a, b) in enumerate(zip(ours, values, strict=True)) if not math.isclose(a, b, abs_tol=1e-9)]
        if not differ:
            continue
        ids = getattr(predictions, "ids", None) or list(range(len(values)))
        n = len(values)
        shown = ", ".join(f"doc {ids[i]!r}: logged {values[i]:g}, here {ours[i]:g}" for i in differ[:3])
        where = getattr(predictions, "lm_eval_filter", None)
        under = f" under filter {where!r}" if where not in (None, "none") else ""
        return (
            f"the harness logged {name} {math.fsum(values) / n:.4g} for these {n} documents{under}, but this "
            f"scoring gives {math.fsum(ours) / n:.4g}: {len(differ)} of {n} documents differ ({shown})"
        )
    return None


def harness_hint(predictions: Any, references: Any) -> str:
    """What to do when a score disagrees with the harness's: the preset of the filter, for gsm8k-like logs."""
    flt = getattr(predictions, "lm_eval_filter", None)
    gsm8k = any("#### " in r for refs in references[:50] for r in (refs if isinstance(refs, list) else [refs]))
    if gsm8k:
        preset = {"strict-match": "gsm8k", "flexible-extract": "gsm8k-flexible"}.get(str(flt))
        if preset is not None:
            return (
                f"lm-eval scored these {flt} answers with its gsm8k metric settings (ignore_case, regexes_to_ignore "
                f"',', '\\$', '(?s).*#### ', '\\.$'); use the {preset!r} preset (--preset {preset})"
            )
        return (
            "lm-eval scored them with its gsm8k metric settings: use the 'gsm8k' preset for the strict-match "
            "filter or 'gsm8k-flexible' for flexible-extract"
        )
    return "lm-eval scored them with its task's own metric settings (see the task's metric_list in its results file)"


def carried_options(predictions: Any, option_names: Iterable[str]) -> dict[str, Any]:
    """The options an eval log's predictions carry for a metric that has them: the lm-eval filter they are the
    output of (``lm_eval_filter``), so that a command line building its config before reading the file scores
    them as the functions do."""
    known = getattr(predictions, "lm_eval_filter", None)
    return {"lm_eval_filter": known} if known is not None and "lm_eval_filter" in set(option_names) else {}


def carried_specs(specs: Sequence[Any], systems: Sequence[Any]) -> list[Any]:
    """An evaluation run's metric specs, with the options the systems' eval logs carry (:func:`carried_options`)
    added where a spec does not give them: every system of a run is read the same way, so logs whose answers went
    through different lm-eval filters are refused."""
    import dataclasses

    filters: set[str] = {str(f) for s in systems if (f := getattr(s, "lm_eval_filter", None)) is not None}
    if not filters:
        return list(specs)
    if len(filters) > 1:
        raise InvalidInputError(
            f"the systems' lm-eval logs hold the answers of different filters ({', '.join(sorted(filters))}); "
            "compare systems under one filter"
        )
    flt = filters.pop()
    out = []
    for spec in specs:
        names = [f.name for f in dataclasses.fields(spec.family().config_cls)]
        carried = carried_options(_Filtered(flt), names)
        if carried and not carried.keys() <= set(spec.options):
            spec = dataclasses.replace(spec, options={**carried, **spec.options})
        out.append(spec)
    return out


class _Filtered:
    def __init__(self, lm_eval_filter: str) -> None:
        self.lm_eval_filter = lm_eval_filter


# ---------------------------------------------------------------------------------------------------- sniffing
def sniff(path: str) -> str | None:
    """The eval-log format of a file, from its content: ``"lm-eval"``, ``"lighteval"``, or ``None``."""
    suffix = os.path.splitext(path)[1].lower()
    try:
        if suffix == ".jsonl":
            with open(path, encoding="utf-8-sig") as fh:
                line = fh.readline()
            if '"filtered_resps"' not in line:
                return None  # not parsed: the input checks of the JSON Lines reader deal with the rest
            first = json.loads(line)
            if isinstance(first, dict) and {"doc_id", "filtered_resps", "target"} <= first.keys():
                return "lm-eval"
        elif suffix == ".parquet":
            import pyarrow.parquet as pq

            names = set(pq.read_schema(path).names)
            if {"doc", "model_response"} <= names or {"predictions", "gold", "full_prompt"} <= names:
                return "lighteval"
    except (OSError, ValueError, ImportError, RecursionError):
        return None
    return None
