"""Tables in and out: results as pandas / Arrow / Parquet / CSV / JSON Lines, inputs from tables and eval logs.

**Out.** Every result (:class:`~nlgmetrics.metrics.base.Result`, whatever the family) becomes a table with one row per
segment: a ``segment`` column (0-based) and one column per per-segment value (``score``; ROUGE's
``rouge1.precision``, ...). The signature and the settings it spells out are metadata: ``df.attrs`` in pandas, the
schema metadata in Arrow and Parquet, a constant ``signature`` column in CSV and JSON Lines (formats without
metadata). An :class:`~nlgmetrics.evaluate.Evaluation` becomes one row per (system, metric) cell.

**In.** :func:`read_table` takes a Parquet, CSV/TSV or JSON Lines file, a pandas DataFrame, a pyarrow Table, a
``datasets.Dataset`` or a dict of columns, and the column names; :func:`read_lm_eval` reads lm-evaluation-harness'
``samples_<task>_<date>.jsonl`` (``--log_samples``) and :func:`read_lighteval` lighteval's
``details_<task>_<date>.parquet`` (``--save-details``). Each returns :class:`Inputs`, which unpacks as
``(predictions, references)``, the order every metric takes::

    nlgmetrics.bleu(*nlgmetrics.read_table("data.parquet", predictions="hyp", references="refs"))

pandas and pyarrow are optional (``pip install 'nlgmetrics[tables]'``): CSV and JSON Lines need neither, Parquet
and Arrow need pyarrow, ``to_pandas`` needs pandas.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import threading
from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, Mapping, Sequence, ValuesView
from typing import Any

from ._table_inputs import Inputs
from .errors import InvalidInputError, MissingDependencyError

__all__ = [
    "TABLE_SUFFIXES",
    "Inputs",
    "read_lighteval",
    "read_lm_eval",
    "read_table",
    "result_metadata",
    "result_to_arrow",
    "result_to_pandas",
    "write_table",
]

#: File suffixes :func:`write_table` writes (and :func:`read_table` reads, with ``.tsv`` and ``.jsonl``).
TABLE_SUFFIXES = (".parquet", ".csv", ".jsonl")
_INSTALL = "pip install 'nlgmetrics[tables]'"
#: Default column names, the same as the command line's JSON Lines fields.
PREDICTION_COLUMNS = ("prediction",)
REFERENCE_COLUMNS = ("references", "reference")
SOURCE_COLUMNS = ("source",)


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise MissingDependencyError("a pandas DataFrame", _INSTALL) from None
    return pandas


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise MissingDependencyError("Arrow and Parquet", _INSTALL) from None
    return pyarrow


def _json_default(value: Any) -> Any:
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return value.tolist()
    if hasattr(value, "_asdict"):
        return value._asdict()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=_json_default)


# ================================================================================================ out: results
def parse_signature(signature: str) -> tuple[str, dict[str, str]]:
    """The metric name and the settings (``key -> value`` as written; an old tokenizer name under today's public
    name: :func:`nlgmetrics.signature.parse`) of a signature.

    >>> parse_signature("chrF2|nrefs:1|case:mixed|nc:6|nlgmetrics:0.1.0")
    ('chrF2', {'nrefs': '1', 'case': 'mixed', 'nc': '6', 'nlgmetrics': '0.1.0'})
    """
    from .signature import parse

    return parse(signature)


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    """One segment's value as flat columns: a number is ``score``; a mapping, named tuple or dataclass gives
    ``key`` (nested: ``key.field``) columns."""
    items: Any = None
    if isinstance(value, Mapping):
        items = value.items()
    elif hasattr(value, "_asdict"):
        items = value._asdict().items()
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
    if items is None:
        if hasattr(value, "item") and not hasattr(value, "__len__"):
            value = value.item()  # a numpy scalar
        out[prefix or "score"] = value
        return
    for key, v in items:
        _flatten(v, f"{prefix}.{key}" if prefix else str(key), out)


def segment_columns(segments: Sequence[Any]) -> dict[str, list[Any]]:
    """Per-segment values as columns: ``segment`` (0-based), then the flattened values (missing ones: ``None``)."""
    rows = []
    for value in segments:
        row: dict[str, Any] = {}
        _flatten(value, "", row)
        rows.append(row)
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    columns: dict[str, list[Any]] = {"segment": list(range(len(rows)))}
    for name in names:
        columns[name if name != "segment" else "segment.value"] = [row.get(name) for row in rows]
    return columns


def _segments_of(result: Any) -> Sequence[Any]:
    segments = getattr(result, "segments", None)
    if segments is None and isinstance(getattr(result, "score", None), (list, tuple)):
        segments = result.score  # reduction="none"
    if segments is None:
        raise InvalidInputError(
            "this result holds no per-segment scores: compute it with segments=True "
            "(e.g. nlgmetrics.chrf(predictions, references, segments=True)) to get one row per segment"
        )
    return segments


def result_metadata(result: Any) -> dict[str, Any]:
    """The metadata of a result's table: ``metric``, ``signature``, ``settings`` (parsed from the signature),
    ``score`` (the corpus score) and ``result`` (every corpus-level field, JSON-able)."""
    corpus = dict(result.to_dict())
    corpus.pop("segments", None)
    return corpus_metadata(corpus)


def corpus_metadata(corpus: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`result_metadata` from a result's corpus-level fields (``score``, ``signature``, ...)."""
    corpus = dict(corpus)
    signature = str(corpus.pop("signature", "") or "")
    metric, settings = parse_signature(signature)
    score = corpus.get("score")
    return {
        "metric": metric,
        "signature": signature,
        "settings": settings,
        "score": None if isinstance(score, (list, tuple)) else score,
        "result": json.loads(_dumps(corpus)),
    }


def result_to_pandas(result: Any) -> Any:
    """A pandas DataFrame: one row per segment, the metadata in ``df.attrs``."""
    pd = _pandas()
    df = pd.DataFrame(segment_columns(_segments_of(result)))
    df.attrs.update(result_metadata(result))
    return df


def _arrow_metadata(meta: Mapping[str, Any]) -> dict[str, str]:
    """Arrow schema metadata: strings as they are, everything else as JSON."""
    return {k: v if isinstance(v, str) else _dumps(v) for k, v in meta.items()}


def _arrow_table(columns: Mapping[str, list[Any]], meta: Mapping[str, Any]) -> Any:
    pa = _pyarrow()
    table = pa.table({k: _arrow_values(v) for k, v in columns.items()})
    return table.replace_schema_metadata(_arrow_metadata(meta))


def _arrow_values(values: list[Any]) -> list[Any]:
    """Values Arrow takes as one column type: mixed or nested values become JSON strings."""
    kinds = {type(v) for v in values if v is not None}
    if kinds <= {int, float, bool} or kinds <= {str}:
        return values
    if kinds <= {list, tuple} and all(isinstance(x, (int, float)) for v in values if v for x in v):
        return values
    return [None if v is None else _dumps(v) for v in values]


def result_to_arrow(result: Any) -> Any:
    """A pyarrow Table: one row per segment, the metadata in the schema's metadata (JSON for non-strings)."""
    return _arrow_table(segment_columns(_segments_of(result)), result_metadata(result))


# ============================================================================================ out: evaluations
def evaluation_columns(evaluation: Any) -> dict[str, list[Any]]:
    """An evaluation as columns, one row per (system, metric): ``system``, ``metric``, ``score``, the interval
    (``ci``, ``ci_lower``, ``ci_upper``) and the paired test (``difference``, ``p_value``) when computed, and the
    metric's ``signature``."""
    rows: list[dict[str, Any]] = []
    for system in evaluation.systems:
        for column in evaluation.metrics:
            cell = evaluation.scores[column.label][system]
            row: dict[str, Any] = {"system": system, "metric": column.label, "score": cell.score}
            if cell.ci is not None:
                row.update(ci=cell.ci["ci"], ci_lower=cell.ci["lower"], ci_upper=cell.ci["upper"])
            if cell.paired is not None:
                row.update(difference=cell.paired["difference"], p_value=cell.paired["p_value"])
            row["signature"] = evaluation.signatures[column.label]
            rows.append(row)
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    if "signature" in names:  # last, as in every table this module writes
        del names["signature"]
        names["signature"] = None
    return {name: [row.get(name) for row in rows] for name in names}


def evaluation_metadata(evaluation: Any) -> dict[str, Any]:
    d = evaluation.to_dict()
    return {
        "nlgmetrics": d["nlgmetrics"],
        "segments": d["segments"],
        "baseline": d["baseline"],
        "settings": d["settings"],
        "metrics": d["metrics"],
    }


def evaluation_to_pandas(evaluation: Any) -> Any:
    pd = _pandas()
    df = pd.DataFrame(evaluation_columns(evaluation))
    df.attrs.update(evaluation_metadata(evaluation))
    return df


def evaluation_to_arrow(evaluation: Any) -> Any:
    return _arrow_table(evaluation_columns(evaluation), evaluation_metadata(evaluation))


# ================================================================================================ out: files
def _suffix(path: str | os.PathLike[str]) -> str:
    return os.path.splitext(os.fspath(path))[1].lower()


def is_table_path(path: Any) -> bool:
    """Whether ``path`` names a file :func:`write_table` writes (by its suffix)."""
    return isinstance(path, (str, os.PathLike)) and _suffix(path) in TABLE_SUFFIXES


def write_table(data: Any, path: str | os.PathLike[str]) -> None:
    """Write a result (one row per segment) or an evaluation (one row per system and metric) to ``path``, by its
    suffix: ``.parquet`` (the metadata in the schema), ``.csv`` or ``.jsonl`` (with a ``signature`` column).

    A result needs per-segment scores (``segments=True``)."""
    if hasattr(data, "systems") and hasattr(data, "scores"):
        columns, meta = evaluation_columns(data), evaluation_metadata(data)
    else:
        columns, meta = segment_columns(_segments_of(data)), result_metadata(data)
        if "signature" not in columns:
            columns["signature"] = [meta["signature"]] * len(columns["segment"])
    write_columns(columns, meta, path)


def write_columns(columns: Mapping[str, list[Any]], meta: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Write columns (and, in Parquet, the metadata) to ``path`` by its suffix."""
    suffix = _suffix(path)
    if suffix == ".parquet":
        _pyarrow()  # first: without pyarrow, the error that names the extra to install
        import pyarrow.parquet as pq

        pq.write_table(_arrow_table(columns, meta), os.fspath(path))
        return
    names = list(columns)
    n = len(next(iter(columns.values()))) if columns else 0
    if suffix == ".csv":
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(names)
            for i in range(n):
                writer.writerow(_csv_cell(columns[k][i]) for k in names)
        return
    if suffix == ".jsonl":
        with open(path, "w", encoding="utf-8") as fh:
            for i in range(n):
                fh.write(_dumps({k: columns[k][i] for k in names}) + "\n")
        return
    raise InvalidInputError(
        f"cannot write a table to {os.fspath(path)}: the file name must end in {', '.join(TABLE_SUFFIXES)}"
    )


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)  # every digit: the numbers read back exactly
    if isinstance(value, (list, tuple, dict)):
        return _dumps(value)
    return value


# ================================================================================================= in: tables
@dataclasses.dataclass
class _Table:
    """Columns by name, read lazily, and how to name row ``i`` in a message."""

    name: str
    names: list[str]
    get: Callable[[str], list[Any]]
    locate: Callable[[int], str]

    def column(self, names: Sequence[str], what: str, option: str = "") -> tuple[str, list[Any]]:
        for n in names:
            if n in self.names:
                if self.names.count(n) > 1:
                    raise InvalidInputError(
                        f"{self.name}: {self.names.count(n)} columns are named {n!r}; rename them, so that it is "
                        f"clear which one holds the {what}"
                    )
                return n, self.get(n)
        wanted = " or ".join(repr(n) for n in names)
        present = ", ".join(repr(n) for n in self.names) or "none"
        hint = f"; choose one with {option}" if option else ""
        raise InvalidInputError(f"{self.name}: no column {wanted} for the {what} (columns: {present}{hint})")


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or type(value).__name__ == "NAType"


def _text(value: Any, table: _Table, i: int, column: str) -> str:
    if isinstance(value, str):
        return value
    if _is_missing(value):
        raise InvalidInputError(f"{table.locate(i)}: column {column!r} is null (a missing value); expected a string")
    raise InvalidInputError(f"{table.locate(i)}: column {column!r} is {type(value).__name__}; expected a string")


def _reference(value: Any, table: _Table, i: int, column: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):
        value = value.tolist()  # a numpy array: list cells of a DataFrame read from Parquet
    if isinstance(value, (list, tuple)):
        if not value:
            raise InvalidInputError(
                f"{table.locate(i)}: column {column!r} is an empty list; every segment needs a reference"
            )
        for j, item in enumerate(value):
            if not isinstance(item, str):
                what = "null" if _is_missing(item) else type(item).__name__
                raise InvalidInputError(f"{table.locate(i)}: column {column!r} item {j} is {what}; expected a string")
        return list(value)
    return [_text(value, table, i, column)]


def _open_table(data: Any) -> _Table:
    """A :class:`_Table` over a file path or an in-memory table."""
    if isinstance(data, (str, os.PathLike)):
        return _open_file(os.fspath(data))
    kind = type(data).__module__.split(".", 1)[0]
    if kind == "pandas" and hasattr(data, "columns"):
        index = list(data.index)
        return _Table(
            "DataFrame",
            [str(c) for c in data.columns],
            lambda c: data[c].tolist(),
            lambda i: f"DataFrame row {index[i]!r}",
        )
    if kind == "pyarrow" and hasattr(data, "column_names"):
        return _Table("Table", list(data.column_names), lambda c: data.column(c).to_pylist(), lambda i: f"row {i}")
    if kind == "datasets":
        if not hasattr(data, "column_names") or isinstance(data.column_names, Mapping):
            splits = ", ".join(repr(k) for k in data) if isinstance(data, Mapping) else "?"
            raise InvalidInputError(f"a DatasetDict holds several splits ({splits}); pass one, e.g. dataset['test']")
        return _Table("Dataset", list(data.column_names), lambda c: list(data[c]), lambda i: f"Dataset row {i}")
    if isinstance(data, Mapping):
        return _Table("columns", [str(k) for k in data], lambda c: _mapping_column(data, c), lambda i: f"row {i}")
    raise InvalidInputError(
        "expected a table: a .parquet, .csv, .tsv or .jsonl file, a pandas DataFrame, a pyarrow Table, a "
        f"datasets.Dataset or a dict of columns; got {type(data).__name__}"
    )


def _mapping_column(data: Mapping[Any, Any], name: str) -> list[Any]:
    """A column of a dict of columns, as a list: a set, a dict or one string is refused (a set's order depends on
    the hash seed, so its rows would meet other rows' references; a string would be a column of characters)."""
    key = next(k for k in data if str(k) == name)
    values = data[key]
    if isinstance(values, (set, frozenset, Mapping, KeysView, ValuesView, ItemsView)):
        raise InvalidInputError(
            f"column {name!r} is a {type(values).__name__}: its order is arbitrary (it depends on the hash seed), so "
            "rows would be paired at random; pass a list"
        )
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidInputError(f"column {name!r} is {type(values).__name__}; expected a list of values, one per row")
    return values.tolist() if hasattr(values, "tolist") else list(values)


def _open_file(path: str) -> _Table:
    if not os.path.isfile(path):
        raise InvalidInputError(f"cannot read {path}: no such file")
    suffix = _suffix(path)
    if suffix == ".parquet":
        return _read_parquet(path)
    if suffix in (".csv", ".tsv"):
        return _read_csv(path, "\t" if suffix == ".tsv" else ",")
    if suffix == ".jsonl":
        return _read_jsonl_table(path)
    raise InvalidInputError(
        f"cannot read a table from {path}: the file name must end in .parquet, .csv, .tsv or .jsonl"
    )


def _read_parquet(path: str) -> _Table:
    """A Parquet file, read column by column on demand; a file that is not Parquet (or is damaged) is an error
    naming it, never a traceback."""
    pa = _pyarrow()
    import pyarrow.parquet as pq

    def failed(err: BaseException) -> InvalidInputError:
        return InvalidInputError(f"cannot read {path} as Parquet: {err}")

    try:
        names = list(pq.read_schema(path).names)
    except (pa.ArrowException, OSError, ValueError) as err:
        raise failed(err) from None
    cache: dict[str, list[Any]] = {}

    def get(c: str) -> list[Any]:
        if c not in cache:
            try:
                cache[c] = pq.read_table(path, columns=[c]).column(c).to_pylist()
            except (pa.ArrowException, OSError, ValueError) as err:
                raise failed(err) from None
        return cache[c]

    return _Table(path, names, get, lambda i: f"{path}: row {i}")


#: CSV fields may be as long as text lines may (no limit of their own); csv's default limit is 128 KiB.
_CSV_FIELD_LIMIT = 2**31 - 1
_CSV_LOCK = threading.Lock()


def _read_csv(path: str, delimiter: str) -> _Table:
    """CSV with a header row; every cell is a string (an empty cell is an empty segment, never a missing one).
    Strict UTF-8 (an error names the line and the byte), strict quoting, fields of any length, and a header that
    names each column once (two columns of one name would leave it to chance which one is read)."""
    from ._files import read_text

    text = read_text(path, "")
    # strict: a quote that is never closed is an error, not the rest of the file swallowed into one cell
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows, lines = [], []
    with _CSV_LOCK:  # csv's field limit is process-wide: raised for this file only, then restored
        previous = csv.field_size_limit(_CSV_FIELD_LIMIT)
        try:
            header = next(reader, None)
            if header is None:
                raise InvalidInputError(f"{path}: empty file; a CSV table needs a header row naming its columns")
            for row in reader:
                if len(row) != len(header):
                    raise InvalidInputError(
                        f"{path}:{reader.line_num}: {len(row)} cells but the header names {len(header)} columns"
                    )
                rows.append(row)
                lines.append(reader.line_num)
        except csv.Error as err:
            hint = ""
            if "end of data" in str(err):
                hint = f" (a quoted cell opened after line {lines[-1] if lines else 1} is never closed)"
            raise InvalidInputError(f"{path}:{reader.line_num}: not valid CSV: {err}{hint}") from None
        finally:
            csv.field_size_limit(previous)
    position: dict[str, int] = {}
    for k, name in enumerate(header):
        if name in position:
            raise InvalidInputError(
                f"{path}:1: the header names column {name!r} twice (columns {position[name] + 1} and {k + 1}); "
                "rename one, so that it is clear which one to read"
            )
        position[name] = k
    return _Table(
        path,
        header,
        lambda c: [r[position[c]] for r in rows],
        lambda i: f"{path}:{lines[i]} (row {i})",
    )


def _read_jsonl_table(path: str) -> _Table:
    records = _jsonl_records(path)
    names: dict[str, None] = {}
    for rec in records:
        names.update(dict.fromkeys(rec))
    return _Table(path, list(names), lambda c: [rec.get(c) for rec in records], lambda i: f"{path}:{i + 1}")


def _jsonl_records(path: str) -> list[dict[str, Any]]:
    """The objects of a JSON Lines file, one per line; invalid JSON or UTF-8, JSON nested too deeply and a line
    that is not an object are errors naming the line."""
    from ._files import iter_lines, parse_json

    records = []
    for lineno, line in enumerate(iter_lines(path, ""), 1):
        obj = parse_json(line, f"{path}:{lineno}", error=InvalidInputError)
        if not isinstance(obj, dict):
            raise InvalidInputError(f"{path}:{lineno}: expected a JSON object")
        records.append(obj)
    return records


def _names(value: str | Sequence[str] | None, default: Sequence[str]) -> list[str]:
    if value is None:
        return list(default)
    return [value] if isinstance(value, str) else list(value)


def read_table(
    data: Any,
    predictions: str | None = None,
    references: str | Sequence[str] | None = None,
    *,
    sources: str | None = None,
) -> Inputs:
    """Predictions and references from the named columns of a table.

    ``data`` is a ``.parquet``, ``.csv``, ``.tsv`` or ``.jsonl`` file, a pandas DataFrame, a pyarrow Table, a
    ``datasets.Dataset`` or a dict of columns. ``predictions`` names the prediction column (default
    ``"prediction"``); ``references`` the reference column (default ``"references"`` or ``"reference"``), whose
    cells are a string or a list of strings, or a list of column names (several references per segment, one per
    column); ``sources`` a source column. A missing column names the columns there are; a null cell names its row.

    >>> inputs = read_table({"hyp": ["the cat sat"], "ref": ["the cat sat down"]}, "hyp", "ref")
    >>> list(inputs)
    [['the cat sat'], [['the cat sat down']]]
    """
    table = _open_table(data)
    pred_col, pred_values = table.column(_names(predictions, PREDICTION_COLUMNS), "predictions")
    preds = [_text(v, table, i, pred_col) for i, v in enumerate(pred_values)]
    if isinstance(references, (list, tuple)) and len(references) > 1:
        ref_columns = [table.column([r], "references") for r in references]
    else:
        ref_columns = [table.column(_names(references, REFERENCE_COLUMNS), "references")]
    refs: list[list[str]] = [[] for _ in preds]
    for col, values in ref_columns:
        _same_length(table, pred_col, len(preds), col, values)
        for i, v in enumerate(values):
            refs[i].extend(_reference(v, table, i, col))
    srcs = None
    if sources is not None:
        src_col, src_values = table.column([sources], "sources")
        _same_length(table, pred_col, len(preds), src_col, src_values)
        srcs = [_text(v, table, i, src_col) for i, v in enumerate(src_values)]
    return Inputs(preds, refs, srcs, name=table.name)


def _same_length(table: _Table, first: str, n: int, column: str, values: Sequence[Any]) -> None:
    if len(values) != n:
        raise InvalidInputError(
            f"{table.name}: column {column!r} has {len(values)} rows but column {first!r} has {n}; every column "
            "needs one value per row"
        )


# ================================================================================================ in: eval logs
# lm-eval samples and lighteval details: nlgmetrics.eval_logs (re-exported here, where they were first)
from .eval_logs import read_lighteval, read_lm_eval, sniff  # noqa: E402


# ============================================================================================ evaluate's inputs
def evaluate_source(value: Any, *, field: str | None = None, allow_list: bool = False) -> Any:
    """A :class:`~nlgmetrics.evaluate.sources.Source` over a table, for :func:`~nlgmetrics.evaluate`'s inputs, or
    ``None`` when ``value`` is not one (a text or JSON Lines file, a list).

    Tables are Parquet/CSV/TSV files, DataFrames, Arrow tables, ``datasets.Dataset`` objects (``field`` names the
    column: by default ``prediction``, or for references ``references``/``reference``), lm-eval samples and
    lighteval details files (predictions and references by their own layout); a column object (a pandas Series, a
    numpy or Arrow array, a ``datasets`` column) is taken as the values of one column.
    """
    kind = type(value).__module__.split(".", 1)[0]
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        suffix = _suffix(path)
        if suffix not in (".parquet", ".csv", ".tsv", ".jsonl") or not os.path.isfile(path):
            return None
        log = sniff(path) if field is None else None
        if log is not None:
            inputs = read_lm_eval(path) if log == "lm-eval" else read_lighteval(path)
            values: list[Any] = inputs.references if allow_list else inputs.predictions
            source = _column_source(values, path, path, log, lambda i: f"{path}: row {i}")
            source.ids = inputs.ids  # two systems' logs are paired by doc_id: check_same_documents
            source.lm_eval_filter = getattr(inputs.predictions, "lm_eval_filter", None)
            return source
        if suffix == ".jsonl":
            return None  # plain JSON Lines: read line by line by the evaluate module
        table = _open_table(path)
    elif (
        kind in ("pandas", "pyarrow", "datasets", "numpy")
        and not hasattr(value, "column_names")
        and not (hasattr(value, "columns") and hasattr(value, "iloc"))
    ):
        # one column: a Series, an array, a datasets Column
        values = value.to_pylist() if hasattr(value, "to_pylist") else list(value)
        name = str(getattr(value, "name", None) or "<column>")
        return _column_source(values, name, None, "", lambda i: f"{name}[{i}]")
    elif kind in ("pandas", "pyarrow", "datasets") or (
        isinstance(value, Mapping) and value and all(isinstance(v, (list, tuple)) for v in value.values())
    ):
        table = _open_table(value)
    else:
        return None
    if allow_list:
        col, raw = table.column(_names(field, REFERENCE_COLUMNS), "references", "--ref-field")
        values = [_reference(v, table, i, col) for i, v in enumerate(raw)]
    else:
        col, raw = table.column(_names(field, PREDICTION_COLUMNS), "predictions", "--pred-field")
        values = [_text(v, table, i, col) for i, v in enumerate(raw)]
    path = table.name if isinstance(value, (str, os.PathLike)) else None
    return _column_source(values, f"{table.name} column {col!r}", path, col, table.locate)


def _column_source(values: list[Any], name: str, path: str | None, field: str, locate: Callable[[int], str]) -> Any:
    return TableColumn(values=values, name=name, path=path, field=field, locator=locate)


@dataclasses.dataclass
class TableColumn:
    """One column of a table, already read and checked: a :class:`~nlgmetrics.evaluate.sources.Source` (the
    same interface: ``name``, iteration, ``locate``); ``path`` and ``field`` key evaluate's statistics cache."""

    values: list[Any]
    name: str
    path: str | None = None
    field: str = ""
    locator: Callable[[int], str] | None = None
    #: The documents' ids, for an eval log (lm-eval's ``doc_id``): runs pair logs by them (see
    #: :func:`nlgmetrics.eval_logs.check_same_documents`).
    ids: list[Any] | None = None
    #: The lm-eval filter an lm-eval log's answers went through (see :func:`nlgmetrics.eval_logs.carried_specs`).
    lm_eval_filter: str | None = None

    def __iter__(self) -> Iterator[Any]:
        return iter(self.values)

    def locate(self, index: int) -> str:
        return self.locator(index) if self.locator is not None else f"{self.name}[{index}]"
