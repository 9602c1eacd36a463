"""The evaluation runner: many systems × many metrics, streamed, parallel, with confidence and significance.

Inputs are read chunk by chunk (``chunk_size`` segments at a time) and never held whole. Each chunk of each
system is turned into per-segment statistics by the metric's own family kernel, in worker processes when
``jobs > 1``. Chunks are fixed by ``chunk_size`` alone and put back in order, so the numbers — and the JSON — are
identical for every ``jobs``. Corpus scores are the family formula on summed statistics; bootstrap confidence
intervals and paired tests against a baseline come from :mod:`nlgmetrics.metrics.significance` on the same
per-segment statistics, so no metric is computed twice.

Memory: the texts are streamed. What is kept per system and metric is the running sum of the statistics and,
when confidence intervals, significance, a report or per-segment scores are asked for, the per-segment
statistics as numpy columns (a few numbers per segment, never text; CIDEr, whose document frequencies need the
whole corpus, keeps each segment's tokenized captions).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import multiprocessing
import os
import textwrap
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .._inputs import relocate
from .._store import MAX_OPEN_WRITERS, EntryError, Store
from .._version import __version__
from ..errors import InvalidInputError, warn
from ..metrics.catalog import IN_PROCESS
from ..stats import StatsBatch
from .config import RunConfig
from .sources import JsonlField, Lines, Memory, Source, chunked_rows, open_source
from .spec import MetricSpec, parse_metrics

__all__ = ["Column", "Evaluation", "SystemScore", "evaluate"]


# ---------------------------------------------------------------------------------------------- results
@dataclasses.dataclass(frozen=True)
class SystemScore:
    """One cell of the table: a system's result on one metric, with its interval and paired test."""

    score: Any
    result: dict[str, Any]
    ci: dict[str, Any] | None = None
    paired: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"score": self.score}
        if self.ci is not None:
            out["ci"] = self.ci
        if self.paired is not None:
            out["paired"] = self.paired
        out["result"] = self.result
        return out


@dataclasses.dataclass(frozen=True)
class Column:
    """A column of the table: a metric spec and, for metrics whose score holds several values (ROUGE types),
    which one."""

    label: str
    spec: MetricSpec
    select: str | None = None

    @property
    def name(self) -> str:
        return self.spec.name


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """Everything an evaluation run computed. ``scores[metric_label][system]`` is a :class:`SystemScore`."""

    systems: tuple[str, ...]
    metrics: tuple[Column, ...]
    signatures: dict[str, str]
    scores: dict[str, dict[str, SystemScore]]
    n_segments: int
    baseline: str | None
    settings: dict[str, Any]
    segment_scores: dict[str, dict[str, tuple[float, ...]]] = dataclasses.field(default_factory=dict)
    #: The signature of the settings the per-segment scores used (``Family.segment_config``), per column.
    segment_signatures: dict[str, str] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "nlgmetrics": __version__,
            "segments": self.n_segments,
            "baseline": self.baseline,
            "settings": self.settings,
            "metrics": {
                m.label: {
                    "name": m.name,
                    "preset": m.spec.preset,
                    "options": {k: list(v) if isinstance(v, tuple) else v for k, v in m.spec.options.items()},
                    **({"score": m.select} if m.select is not None else {}),
                    "signature": self.signatures[m.label],
                }
                for m in self.metrics
            },
            "systems": {s: {m.label: self.scores[m.label][s].to_dict() for m in self.metrics} for s in self.systems},
        }

    def to_pandas(self) -> Any:
        """A pandas DataFrame with one row per (system, metric): score, interval, paired test and signature; the
        run's settings in ``df.attrs`` (see :mod:`nlgmetrics.tables`; needs the ``tables`` extra)."""
        from ..tables import evaluation_to_pandas

        return evaluation_to_pandas(self)

    def to_arrow(self) -> Any:
        """A pyarrow Table with the rows of :meth:`to_pandas`, the run's settings in the schema metadata."""
        from ..tables import evaluation_to_arrow

        return evaluation_to_arrow(self)

    def to_json(self, **kwargs: Any) -> str:
        """Deterministic JSON (the same bytes for any ``jobs``)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=kwargs.pop("indent", 2), **kwargs)

    def shown_columns(self) -> list[tuple[Column, str]]:
        """The columns a table shows, with their headings: a ``rougeLsum`` column whose scores, intervals and
        tests equal its ``rougeL`` column's for every system (one sentence per segment: the summary-level LCS is
        the LCS) is shown once, as ``<label>-rougeL/Lsum``."""
        by_label = {m.label: m for m in self.metrics}
        folded: set[str] = set()
        names: dict[str, str] = {}
        for m in self.metrics:
            if m.select != "rougeLsum":
                continue
            twin = next(
                (c for c in self.metrics if c.spec is m.spec and c.select == "rougeL" and c.label in by_label), None
            )
            if twin is not None and all(
                _same_cell(self.scores[m.label][s], self.scores[twin.label][s]) for s in self.systems
            ):
                folded.add(m.label)
                names[twin.label] = twin.label + "/Lsum"
        return [(m, names.get(m.label, m.label)) for m in self.metrics if m.label not in folded]

    def table(self, width: int = 120) -> str:
        """A plain-text table: systems × metrics, with ``± ci`` and, against the baseline, the difference with
        its direction (``better``/``worse``, whatever the p-value) and the p-value (``*`` marks p < 0.05).
        Lines stay within ``width`` characters where they can: the metrics go in blocks of as many columns as
        fit, each block repeating the system column."""
        shown = self.shown_columns()
        names = [s + (" (baseline)" if s == self.baseline else "") for s in self.systems]
        columns = []
        for m, heading in shown:
            cells = [format_cell(self.scores[m.label][s], m.spec.family().higher_is_better) for s in self.systems]
            columns.append([f"{heading} {_arrow(m)}".rstrip(), *cells])
        first = ["system", *names]
        first_w = max(map(len, first))
        blocks: list[list[list[str]]] = []
        used = first_w
        for col in columns:
            w = max(map(len, col))
            if blocks and used + 2 + w <= width:
                blocks[-1].append(col)
                used += 2 + w
            else:
                blocks.append([col])
                used = first_w + 2 + w
        lines: list[str] = []
        for b, block in enumerate(blocks or [[]]):
            if b:
                lines.append("")
            table = [first, *block]
            widths = [max(map(len, col)) for col in table]
            for i in range(len(first)):
                lines.append("  ".join(col[i].ljust(w) for col, w in zip(table, widths, strict=True)).rstrip())
                if i == 0:
                    lines.append("  ".join("-" * w for w in widths))
        notes = []
        up = [h for m, h in shown if m.spec.family().higher_is_better is True]
        down = [h for m, h in shown if m.spec.family().higher_is_better is False]
        if up:
            notes.append(f"higher is better (↑): {', '.join(up)}")
        if down:
            notes.append(f"lower is better (↓): {', '.join(down)}")
        folded = [h for _, h in shown if h.endswith("rougeL/Lsum")]
        if folded:
            notes.append(
                f"{', '.join(folded)}: rougeL and rougeLsum are equal for every system (one sentence per segment)"
            )
        if self.baseline is not None and any(
            self.scores[m.label][s].paired for m in self.metrics for s in self.systems
        ):
            notes.append(
                f"vs {self.baseline}: the difference, 'better' or 'worse' by the metric's direction; "
                "p from the paired test, * p < 0.05"
            )
        notes = [textwrap.fill(n, width, subsequent_indent="  ") for n in notes]
        return "\n".join([*lines, "", *notes]) if notes else "\n".join(lines)


def _same_cell(a: SystemScore, b: SystemScore) -> bool:
    return bool(a.score == b.score and a.ci == b.ci and a.paired == b.paired)


def _arrow(column: Column) -> str:
    return {True: "↑", False: "↓"}.get(column.spec.family().higher_is_better, "")


def _digits(value: Any) -> int:
    return 4 if isinstance(value, float) and abs(value) < 10 else 2


def _fmt(value: Any, digits: int) -> str:
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def signed(value: float, digits: int) -> str:
    """``value`` with its sign and ``digits`` decimals, or two significant digits where those decimals would
    show a non-zero difference as ``+0.00``."""
    text = f"{value:+.{digits}f}"
    if value and float(text) == 0:
        text = f"{value:+.2g}"
    return text


def verdict(difference: float, higher_is_better: bool | None) -> str:
    """``"better"``, ``"worse"`` or ``"same"``: the direction of a difference against the baseline, by the
    metric's direction (``""`` when the metric has none). Significance is a separate question."""
    if higher_is_better is None or difference != difference:
        return ""
    if difference == 0:
        return "same"
    return "better" if (difference > 0) == higher_is_better else "worse"


def format_cell(cell: SystemScore, higher_is_better: bool | None = None) -> str:
    """``score ± ci (Δ d better|worse, p=…)``: the interval with the score's precision; the difference against
    the baseline says by its sign *and* in words whether the system is better or worse (``higher_is_better``
    gives the metric's direction); ``*`` marks p < 0.05."""
    digits = _digits(cell.score)
    text = _fmt(cell.score, digits)
    if cell.ci is not None:
        text += f" ± {_fmt(cell.ci['ci'], digits)}"
    if cell.paired is not None:
        p = cell.paired["p_value"]
        diff = float(cell.paired["difference"])
        word = verdict(diff, higher_is_better)
        text += f" (Δ {signed(diff, digits)}{' ' + word if word else ''}, p={p:.4f}{'*' if p < 0.05 else ''})"
    return text


# ---------------------------------------------------------------------------------------------- workers
_CONFIGS: dict[tuple[Any, ...], Any] = {}


def _config(spec: MetricSpec) -> Any:
    """The spec's config, built once per process."""
    key = spec.key()
    if key not in _CONFIGS:
        _CONFIGS[key] = spec.config()
    return _CONFIGS[key]


def _stats_task(
    spec: MetricSpec, predictions: list[Any], references: list[Any], sources: list[Any] | None = None
) -> tuple[dict[str, np.ndarray], list[tuple[type[Warning], str]]]:
    """Per-segment statistics of one chunk of one system (runs in a worker process), and the warnings it raised:
    they are given back to be raised again in the main process (a worker would print them raw, pointing at the
    executor's code, past the command line's one-line format)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        batch = spec.family().batch_stats(predictions, references, _config(spec), sources=sources)
    return batch.columns, [(w.category, str(w.message)) for w in caught]


def _warn_again(caught: Sequence[tuple[type[Warning], str]]) -> None:
    for category, message in caught:
        warn(message, category)  # attributed to the caller of evaluate(), however deep the run raises it again


#: Segments per call of an in-process (model) family: the progress bar advances after each.
_IN_PROCESS_PIECE = 128


class _Inline:
    """An executor that runs tasks at once in this process (``jobs=1``, and in-process families)."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> cf.Future[Any]:
        fut: cf.Future[Any] = cf.Future()
        try:
            fut.set_result(fn(*args))
        except BaseException as err:  # re-raised by .result() in order
            fut.set_exception(err)
        return fut

    def shutdown(self) -> None:
        pass


# ---------------------------------------------------------------------------------------------- inputs
def _reference_sources(references: Any, ref_field: str | None) -> list[Source]:
    """The reference columns: one file (a path or a Source), a list of files (several references per
    segment), or text in memory: :class:`~nlgmetrics.evaluate.sources.Texts`, or a list of per-segment lists.
    A string is always a path, never the text itself."""
    if isinstance(references, (str, os.PathLike, Source)):
        return [open_source(references, field=ref_field, allow_list=True, option="references")]
    if isinstance(references, (list, tuple)):
        from ..tables import TableColumn

        if references and all(isinstance(r, (str, os.PathLike, Source, TableColumn)) for r in references):
            out: list[Source] = []
            for i, r in enumerate(references):
                if isinstance(r, TableColumn):  # read already (the command line's tables)
                    out.append(r)  # type: ignore[arg-type]
                    continue
                try:
                    out.append(open_source(r, field=ref_field, allow_list=True, option=f"references[{i}]"))
                except InvalidInputError as err:
                    if isinstance(r, str) and not isinstance(r, Source):
                        raise InvalidInputError(
                            f"{err} (a string in references is a file name; to pass the reference texts "
                            "themselves, wrap them: Texts([...]))"
                        ) from None
                    raise
            return out
        return [Memory(references)]
    table = _table_source(references, ref_field, allow_list=True)
    if table is not None:
        return [table]
    raise InvalidInputError(
        f"references: expected a file path, a list of file paths or Texts([...]), got {type(references).__name__}"
    )


def _table_source(value: Any, field: str | None, *, allow_list: bool) -> Source | None:
    """A DataFrame, Arrow table, ``datasets.Dataset`` or one of their columns (:mod:`nlgmetrics.tables`)."""
    from ..tables import TableColumn, evaluate_source

    if isinstance(value, TableColumn):  # read already (the command line's tables)
        return value  # type: ignore[return-value]
    return evaluate_source(value, field=field, allow_list=allow_list)  # type: ignore[no-any-return]


def _system_source(name: str, value: Any, pred_field: str | None) -> Source:
    """A system: a path (always a file name, never the text) or a Source, or its predictions in a list."""
    if isinstance(value, (str, os.PathLike, Source, list, tuple)):
        return open_source(value, field=pred_field, option=f"systems[{name!r}]")
    table = _table_source(value, pred_field, allow_list=False)
    if table is not None:
        return table
    raise InvalidInputError(
        f"systems[{name!r}]: expected a file path or a list of predictions, got {type(value).__name__}"
    )


def _source_column(sources: Any, field: str | None) -> Source:
    """The sources: a text file, a JSON Lines file (field ``source`` unless ``field`` says otherwise) or a list."""
    is_jsonl = isinstance(sources, (str, os.PathLike)) and os.fspath(sources).endswith(".jsonl")
    # a table (a file or an object with named columns): the same default column name
    is_jsonl = is_jsonl or _is_table(sources)
    return open_source(sources, field=field or ("source" if is_jsonl else None), option="sources")


def _is_table(value: Any) -> bool:
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value).endswith((".parquet", ".csv", ".tsv"))
    return not isinstance(value, (list, tuple))


def _locate_error(message: str, offset: int, refs: Sequence[Source], srcs: Sequence[Source], system: Source) -> str:
    """A kernel's message about ``predictions[i]`` of a chunk, rewritten to name the file and the line (or the
    list and the index) of the whole input."""

    def many(index: int) -> str:
        return f"segment {index + 1} of {', '.join(r.name for r in refs)}"

    where = {
        "predictions": system.locate,
        "references": refs[0].locate if len(refs) == 1 else many,
        "sources": srcs[0].locate if srcs else None,
    }
    return relocate(message, where, offset)


def _check_value(value: Any, source: Source, index: int, *, reference: bool) -> None:
    if isinstance(value, str):
        return
    if reference and isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return
    kind = "a string or a non-empty list of strings" if reference else "a string"
    raise InvalidInputError(f"{source.locate(index)}: expected {kind}, got {type(value).__name__}")


# ---------------------------------------------------------------------------------------------- the run
def evaluate(
    references: Any,
    systems: Mapping[str, Any],
    metrics: Sequence[str | Mapping[str, Any] | MetricSpec],
    *,
    baseline: str | None = None,
    bootstrap: int = 1000,
    confidence: float = 0.95,
    test: str | None = "bs",
    paired_samples: int | None = None,
    seed: int = 12345,
    jobs: int = 1,
    chunk_size: int = 1000,
    ref_field: str | None = None,
    pred_field: str | None = None,
    keep_segments: bool = False,
    progress: bool = False,
    cache_dir: str | None = None,
    sources: Any = None,
    src_field: str | None = None,
    cache_max_size: int | str | None = None,
) -> Evaluation:
    """Score every system on every metric.

    ``references`` is a file (text, or JSON Lines with ``ref_field``), a list of files (several references per
    segment), or a list of per-segment references. ``systems`` maps a name to a file or a list of predictions.
    ``metrics`` are names or specs (see :func:`~nlgmetrics.evaluate.spec.parse_metric`). ``bootstrap`` resamples
    give each score a confidence interval (0 turns them off); with a ``baseline``, every other system gets a
    paired test (``test="bs"`` paired bootstrap, ``"ar"`` approximate randomization, ``None`` none) with
    ``paired_samples`` resamples (sacrebleu's defaults when ``None``). ``jobs`` worker processes share the work;
    the result does not depend on it. With ``cache_dir``, the per-segment statistics of every (metric, system)
    are stored under a key made of the metric's signature, the chunk size and digests of the reference and
    system contents; a re-run (say, with one more system) loads them instead of tokenising and counting again,
    and a change of any setting or input changes the key, so nothing stale is ever reused. ``sources`` (a file,
    or a list of strings, one per segment; ``src_field`` in JSON Lines) are the inputs the systems translated or
    simplified: the metrics that use them (SARI) receive them, the others never see them. ``cache_max_size``
    (bytes, or a size such as ``"4G"``) is the cache directory's budget: the least recently used entries are
    removed beyond it. The cache holds numbers only and verifies every entry before use (see
    :mod:`nlgmetrics._store`). The settings are the fields of :class:`~nlgmetrics.evaluate.config.RunConfig`,
    which checks them and declares each one's flag and config-file key.

    >>> ev = evaluate([["the cat sat"], ["a dog"]], {"a": ["the cat sat", "a dog"], "b": ["the cat", "dog"]},
    ...               ["wer", "nls"], baseline="a", bootstrap=0, test=None)
    >>> ev.scores["wer"]["b"].score
    0.4
    """
    run = RunConfig(
        baseline=baseline,
        bootstrap=bootstrap,
        confidence=confidence,
        test=test,
        paired_samples=paired_samples,
        seed=seed,
        jobs=jobs,
        chunk_size=chunk_size,
        ref_field=ref_field,
        pred_field=pred_field,
        keep_segments=keep_segments,
        progress=progress,
        cache_dir=cache_dir,
        src_field=src_field,
        cache_max_size=cache_max_size,
    )
    specs = parse_metrics(metrics)
    inputs = _open_inputs(run, references, systems, specs, sources)
    scoring = _Scoring(run, inputs)
    scoring.score()
    return _results(run, inputs, scoring)


@dataclasses.dataclass(frozen=True)
class _Inputs:
    """The opened inputs of a run, and the metrics with their families and configs."""

    names: list[str]
    specs: list[MetricSpec]
    refs: list[Source]
    systems: list[Source]
    srcs: list[Source]
    families: dict[str, Any]
    configs: dict[str, Any]

    @property
    def keys(self) -> list[tuple[str, str]]:
        """Every (metric label, system name), metric-major."""
        return [(s.label, n) for s in self.specs for n in self.names]


def _open_inputs(
    run: RunConfig, references: Any, systems: Mapping[str, Any], specs: list[MetricSpec], sources: Any
) -> _Inputs:
    """Open every input (nothing is read yet) and check what can be checked before reading: the systems, the
    baseline, documents paired by id, the sources the metrics need."""
    if not systems:
        raise InvalidInputError("no system given: pass at least one system output")
    names = list(systems)
    if run.baseline is not None and run.baseline not in systems:
        raise InvalidInputError(f"baseline {run.baseline!r} is not one of the systems: {', '.join(names)}")
    ref_sources = _reference_sources(references, run.ref_field)
    sys_sources = [_system_source(n, systems[n], run.pred_field) for n in names]
    from ..eval_logs import carried_specs, check_same_documents

    check_same_documents([*ref_sources, *sys_sources])  # eval logs are paired by doc_id, never by position
    specs = carried_specs(specs, sys_sources)  # lm-eval's filtered answers: never extracted twice
    needs_sources = [s.label for s in specs if s.family().uses_sources]
    if needs_sources and sources is None:
        raise InvalidInputError(f"{', '.join(needs_sources)} need(s) the sources: pass sources= (--src FILE)")
    src_sources = [] if sources is None else [_source_column(sources, run.src_field)]
    return _Inputs(
        names=names,
        specs=specs,
        refs=ref_sources,
        systems=sys_sources,
        srcs=src_sources,
        families={s.label: s.family() for s in specs},
        configs={s.label: s.config() for s in specs},
    )


class _Scoring:
    """The scoring pass of a run: the inputs read chunk by chunk, each chunk of each system turned into
    per-segment statistics (in worker processes when ``jobs > 1``), put back in order, summed exactly and, when
    the run needs them, kept per segment; a cache directory serves and stores them."""

    def __init__(self, run: RunConfig, inputs: _Inputs) -> None:
        self.run, self.inputs = run, inputs
        keys = inputs.keys
        self.chunks: dict[tuple[str, str], list[dict[str, np.ndarray]]] = {key: [] for key in keys}
        # exact sums (fractions for float fields, running sums in order): how the segments are chunked cannot
        # change a bit of the total
        self.totals: dict[tuple[str, str], Any] = {
            key: _exact_zero(inputs.families[key[0]], inputs.configs[key[0]]) for key in keys
        }
        self.pending: deque[tuple[tuple[str, str], int, cf.Future[Any]]] = deque()
        self.limit = 4 * run.jobs * len(keys)
        self.n_segments = 0
        self.writers: dict[tuple[str, str], Any] = {}
        self.cached: set[tuple[str, str]] = set()
        self.sources_of = dict(zip(inputs.names, inputs.systems, strict=True))
        self.cache: _StatsCache | None = None
        self.bar: Any = None

    def score(self) -> None:
        """Read every input once and sum the statistics of every (metric, system)."""
        run, inp = self.run, self.inputs
        from ..algorithms.ngrams import persist_reference_indexes

        cache_max_bytes = run.cache_max_bytes()
        if run.cache_dir is not None:
            self.cache = _StatsCache(
                run.cache_dir,
                cache_max_bytes,
                inp.specs,
                inp.configs,
                inp.refs + inp.srcs,
                self.sources_of,
                run.chunk_size,
            )
        # the tokenised references go to the cache directory too, so a re-run with one more system does not
        # tokenise the references again
        index_dir = None if self.cache is None else self.cache.store.root
        pool: Any = _Inline()
        if run.jobs > 1:
            pool = cf.ProcessPoolExecutor(
                max_workers=run.jobs,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=persist_reference_indexes,
                initargs=(index_dir, cache_max_bytes),
            )
        self.bar = _progress_bar(run.progress, inp.refs + inp.systems, len(inp.specs) * len(inp.names))
        previous_index_dir = persist_reference_indexes(index_dir, cache_max_bytes)
        try:
            if self.cache is not None:
                self._load_cached(self.cache)
            self._read(pool)
            self._collect(block=True)
            if self.n_segments == 0:
                raise InvalidInputError("the inputs hold no segment: there is nothing to score (an empty corpus)")
            if self.cache is not None:
                for writer in self.writers.values():
                    self.cache.commit(writer, self.n_segments)
                self.writers.clear()
                self.cache.store.evict()
        finally:
            for writer in self.writers.values():
                writer.abort()
            pool.shutdown()
            persist_reference_indexes(previous_index_dir)
            if self.bar is not None:
                self.bar.close()
        self.totals = {key: _settle(total).rounded() for key, total in self.totals.items()}

    def _load_cached(self, cache: _StatsCache) -> None:
        """Take what the cache holds; open a cache entry for the rest."""
        inp = self.inputs
        for spec in inp.specs:
            family, config = inp.families[spec.label], inp.configs[spec.label]
            for name in inp.names:
                key = (spec.label, name)
                stored = cache.load(spec, name, family, config, self.run.need_segments)
                if stored is not None:
                    self.cached.add(key)
                    self.totals[key], self.chunks[key], count = stored
                    if self.bar is not None:
                        self.bar.update(count)
                else:
                    pending_write = cache.writer(spec, name, family, config)
                    if pending_write is not None:
                        self.writers[key] = pending_write

    def _read(self, pool: Any) -> None:
        """The chunk loop: check every value, submit each (metric, system) chunk not served by the cache."""
        inp = self.inputs
        inline = _Inline()
        ref_sources, src_sources, sys_sources = inp.refs, inp.srcs, inp.systems
        n_refs = len(ref_sources)
        n_in = n_refs + len(src_sources)  # references, then the sources (if any), then the systems
        for rows in chunked_rows(ref_sources + src_sources + sys_sources, self.run.chunk_size):
            n_segments = self.n_segments
            refs_chunk: list[Any] = []
            for i, row in enumerate(rows):
                for j in range(n_refs):
                    _check_value(row[j], ref_sources[j], n_segments + i, reference=True)
                refs_chunk.append(row[0] if n_refs == 1 else list(row[:n_refs]))
            srcs_chunk = None
            if src_sources:
                srcs_chunk = [row[n_refs] for row in rows]
                for i, v in enumerate(srcs_chunk):
                    _check_value(v, src_sources[0], n_segments + i, reference=False)
            for k, name in enumerate(inp.names):
                preds = [row[n_in + k] for row in rows]
                for i, p in enumerate(preds):
                    _check_value(p, sys_sources[k], n_segments + i, reference=False)
                for spec in inp.specs:
                    key = (spec.label, name)
                    if key in self.cached:
                        continue
                    task_sources = srcs_chunk if inp.families[spec.label].uses_sources else None
                    if spec.name not in IN_PROCESS:
                        future = pool.submit(_stats_task, spec, preds, refs_chunk, task_sources)
                        self.pending.append((key, n_segments, future))
                        continue
                    # a model family runs here, in pieces, so that the progress bar moves while it works
                    for lo in range(0, len(preds), _IN_PROCESS_PIECE):
                        hi = lo + _IN_PROCESS_PIECE
                        piece_sources = None if task_sources is None else task_sources[lo:hi]
                        future = inline.submit(_stats_task, spec, preds[lo:hi], refs_chunk[lo:hi], piece_sources)
                        self.pending.append((key, n_segments + lo, future))
                        self._collect(block=False)
            self.n_segments += len(rows)
            self._collect(block=False)

    def _add(self, key: tuple[str, str], cols: dict[str, np.ndarray]) -> None:
        batch = StatsBatch(self.inputs.families[key[0]].stats_cls, cols)
        self.totals[key] = _add_exact(self.totals[key], batch.exact_total())
        if self.run.need_segments:
            self.chunks[key].append(cols)
        writer = self.writers.get(key)
        if writer is not None and self.cache is not None and not self.cache.append(writer, cols):
            del self.writers[key]
        if self.bar is not None:
            self.bar.update(len(batch))

    def _collect(self, block: bool) -> None:
        """Add the finished results in order (all of them with ``block``, or while too many are pending)."""
        pending = self.pending
        while pending and (block or pending[0][2].done() or len(pending) > self.limit):
            key, offset, fut = pending.popleft()
            try:
                cols, caught = fut.result()
            except InvalidInputError as err:
                inp = self.inputs
                where = _locate_error(str(err), offset, inp.refs, inp.srcs, self.sources_of[key[1]])
                raise InvalidInputError(f"{key[0]} on system {key[1]!r}: {where}") from None
            _warn_again(caught)
            self._add(key, cols)

    def batches(self) -> dict[tuple[str, str], StatsBatch[Any]]:
        """The per-segment statistics of every (metric, system), when the run keeps them."""
        if not self.run.need_segments:
            return {}
        inp = self.inputs
        out: dict[tuple[str, str], StatsBatch[Any]] = {}
        for key, parts in self.chunks.items():
            fam = inp.families[key[0]]
            out[key] = (
                StatsBatch.concat([StatsBatch(fam.stats_cls, c) for c in parts])
                if parts
                else fam.empty_batch(inp.configs[key[0]])
            )
        return out


def _results(run: RunConfig, inp: _Inputs, scoring: _Scoring) -> Evaluation:
    """The formula on the summed statistics, the intervals and paired tests on the per-segment ones, and the
    per-segment scores the run keeps."""
    from ..metrics.significance import bootstrap_ci_from_stats, paired_test_from_stats

    totals, batches = scoring.totals, scoring.batches()
    scores: dict[str, dict[str, SystemScore]] = {}
    segment_scores: dict[str, dict[str, tuple[float, ...]]] = {}
    signatures: dict[str, str] = {}
    segment_signatures: dict[str, str] = {}
    columns_of: dict[str, list[tuple[str, str | None]]] = {}
    for spec in inp.specs:
        fam, cfg = inp.families[spec.label], inp.configs[spec.label]
        for name in inp.names:
            key = (spec.label, name)
            result = fam.finalize(totals[key], cfg)
            if spec.label not in columns_of:
                columns_of[spec.label] = _columns(spec, result)
            for column, select in columns_of[spec.label]:
                signatures[column] = result.signature
                ci = paired = None
                if run.bootstrap > 0:
                    ci = bootstrap_ci_from_stats(
                        fam,
                        cfg,
                        batches[key],
                        n_samples=run.bootstrap,
                        seed=run.seed,
                        confidence=run.confidence,
                        score=select,
                    ).to_dict()
                if run.baseline is not None and run.test is not None and name != run.baseline:
                    paired = paired_test_from_stats(
                        fam,
                        cfg,
                        batches[(spec.label, run.baseline)],
                        batches[key],
                        test=run.test,
                        n_samples=run.paired_samples,
                        seed=run.seed,
                        score=select,
                    ).to_dict()
                d = result.to_dict()
                d.pop("signature", None)
                d.pop("segments", None)
                value = d.pop("score")
                if select is not None:
                    value = value[select]
                scores.setdefault(column, {})[name] = SystemScore(score=value, result=d, ci=ci, paired=paired)
                if run.keep_segments:
                    # per-segment scores with the family's per-segment settings (BLEU: sentence_bleu's), from
                    # the same statistics
                    seg_cfg = fam.segment_config(cfg)
                    if column not in segment_signatures:
                        same = seg_cfg == cfg
                        segment_signatures[column] = (
                            result.signature if same else fam.finalize(totals[key], seg_cfg).signature
                        )
                    per = fam.segment_scores(batches[key], seg_cfg)
                    segment_scores.setdefault(column, {})[name] = tuple(_segment_value(v, select) for v in per)
    table_columns = tuple(
        Column(label=column, spec=spec, select=select)
        for spec in inp.specs
        for column, select in columns_of[spec.label]
    )
    return Evaluation(
        systems=tuple(inp.names),
        metrics=table_columns,
        signatures=signatures,
        scores=scores,
        n_segments=scoring.n_segments,
        baseline=run.baseline,
        settings=run.settings(),
        segment_scores=segment_scores,
        segment_signatures=segment_signatures,
    )


class _StatsCache:
    """Per-segment statistics on disk (see :mod:`nlgmetrics._store`), one entry per (metric, system), keyed by
    the metric's signature (:meth:`Family.config_signature`: a model by its content digest, never a path), the
    chunk size and content digests of every input. An entry is verified before use (its manifest and digests,
    then its key, segment and chunk counts and every column's shape); one that fails is rebuilt with a
    warning."""

    def __init__(
        self,
        root: str,
        max_bytes: int | None,
        specs: Sequence[MetricSpec],
        configs: Mapping[str, Any],
        ref_sources: Sequence[Source],
        sys_sources: Mapping[str, Source],
        chunk_size: int,
    ) -> None:
        self.store = Store(root, max_bytes=max_bytes)
        self._said_full = False
        self.chunk_size = chunk_size
        refs = [_digest(src) for src in ref_sources]
        refs_digest = "+".join(d for d, _, _ in refs)
        counts = {c for _, c, _ in refs}
        #: bytes of every input: what a chunk's carried record (NIST's tables, CIDEr's records) is bounded by
        self.input_bytes = sum(b for _, _, b in refs)
        self.keys: dict[tuple[str, str], str] = {}
        self.expected: dict[str, int | None] = {}
        for name, src in sys_sources.items():
            sys_digest, sys_count, sys_bytes = _digest(src)
            self.input_bytes += sys_bytes
            self.expected[name] = sys_count if counts <= {sys_count} else None
            for spec in specs:
                # what the result's signature shows, and nothing else: every setting that changes a number, a
                # model by the digest of its content (its weights changed at the same path change the key), never
                # a path (a moved input or model folder still hits)
                sig = spec.family().config_signature(configs[spec.label])
                self.keys[(spec.label, name)] = f"stats|{sig}|chunk:{chunk_size}|refs:{refs_digest}|sys:{sys_digest}"

    def load(
        self, spec: MetricSpec, name: str, family: Any, config: Any, keep: bool
    ) -> tuple[Any, list[dict[str, Any]], int] | None:
        """``(exact total, chunks (when ``keep``), segments)`` of a verified entry, or ``None``."""
        key = self.keys[(spec.label, name)]
        schema = family.schema(config)
        fields = schema.record_fields()
        expected = self.expected[name]
        if expected is None:
            return None
        try:
            max_rows = min(self.chunk_size, expected)
            widths = max((f.width for f in schema.numeric), default=1)
            max_record = max_rows * max(widths, 1) * 8 + 4096
            if schema.carried:  # the bytes of tables or records: a few KiB per segment, and up to ~1000x the text
                bound = max_rows * _CARRIED_PER_SEGMENT + _CARRIED_PER_BYTE * self.input_bytes
                max_record = max(max_record, min(bound, _MAX_CARRIED_RECORD))
            entry = self.store.read("stats", key, max_record=max_record)
            if entry is None:
                return None
            meta = entry.meta
            rows = meta.get("chunks")
            # chunks of chunk_size rows, or smaller pieces (a model family is scored in pieces)
            if (
                meta.get("segments") != expected
                or meta.get("fields") != fields
                or not isinstance(rows, list)
                or not all(isinstance(r, int) and not isinstance(r, bool) and 0 < r <= max_rows for r in rows)
                or sum(rows) != expected
                or len(entry.manifest.get("records") or ()) != len(rows) * len(fields)
            ):
                entry.close()
                raise EntryError("its segment or chunk counts do not match the inputs")
            total = _exact_zero(family, config)
            kept: list[dict[str, Any]] = []
            arrays = entry.arrays()
            for n_rows in rows:
                cols: dict[str, Any] = {}
                for f in fields:
                    try:
                        cols[f] = schema.from_record(f, next(arrays), n_rows)
                    except ValueError as err:
                        raise EntryError(str(err)) from None
                total = _add_exact(total, StatsBatch(family.stats_cls, cols).exact_total())
                if keep:
                    kept.append(cols)
            for _ in arrays:  # the payload digest is checked at the end
                raise EntryError("it holds more records than its manifest lists")
        except (EntryError, StopIteration) as err:
            reason = "it holds fewer records than its manifest lists" if isinstance(err, StopIteration) else err
            warn(f"cache entry {self.store.path('stats', key)} failed verification ({reason}); recomputing it")
            self.store.discard("stats", key)
            return None
        return _settle(total), kept, expected

    def writer(self, spec: MetricSpec, name: str, family: Any, config: Any) -> _CacheWrite | None:
        try:
            writer = self.store.writer("stats", self.keys[(spec.label, name)])
        except OSError as err:
            if self.store.open_writers >= MAX_OPEN_WRITERS:
                if not self._said_full:
                    self._said_full = True
                    warn(
                        f"more than {MAX_OPEN_WRITERS} (metric, system) pairs to cache: the first {MAX_OPEN_WRITERS} "
                        "are cached in this run, the others in the next runs"
                    )
                return None
            warn(f"cannot write to the cache directory {self.store.root} ({err.strerror or err}); not caching")
            return None
        return _CacheWrite(writer, family.schema(config))

    def append(self, pending: _CacheWrite, cols: Mapping[str, Any]) -> bool:
        """Write one chunk's columns out (so they need not be held); ``False`` when the entry had to be given
        up. Carried columns (NIST's tables, CIDEr's records) are written as their bytes (a uint8 array), data
        covered by the entry's digest like every other record: never an object array, never a pickle."""
        try:
            for f in pending.fields:  # carried bytes as they are; integer columns in their smallest dtype
                compact = pending.schema.field(f).carried is None
                pending.writer.add(pending.schema.to_record(f, cols[f]), compact=compact)
        except OSError as err:
            pending.abort()
            warn(f"cannot write to the cache directory {self.store.root} ({err.strerror or err}); not caching")
            return False
        pending.rows.append(len(cols[pending.fields[0]]))
        return True

    def commit(self, pending: _CacheWrite, n_segments: int) -> None:
        meta = {"segments": n_segments, "chunks": pending.rows, "fields": list(pending.fields)}
        try:
            pending.writer.commit(meta)
        except OSError as err:
            warn(f"cannot write to the cache directory {self.store.root} ({err.strerror or err}); not caching")


#: The largest record of carried bytes a cache entry may hold (a bound on what one read allocates).
_MAX_CARRIED_RECORD = 1 << 30
#: What a chunk's carried record may hold per segment and per byte of input (NIST's per-segment tables measure
#: ~30 KiB for one-word segments and up to ~1,200x the text; CIDEr's records ~1.6x).
_CARRIED_PER_SEGMENT = 64 << 10
_CARRIED_PER_BYTE = 4096


@dataclasses.dataclass
class _CacheWrite:
    """An entry being written: its writer, the statistics' schema and the rows of each chunk."""

    writer: Any
    schema: Any
    rows: list[int] = dataclasses.field(default_factory=list)

    @property
    def fields(self) -> list[str]:
        """The column names, in record order."""
        return self.schema.record_fields()  # type: ignore[no-any-return]

    def abort(self) -> None:
        self.writer.abort()


def _exact_zero(family: Any, config: Any) -> list[Any]:
    """Where a (metric, system)'s exact total starts: the parts to add, in input order, from
    :meth:`Stats.exact_zero` (fractions and running sums; a float 0.0 would make every later addition round).
    :func:`_settle` adds them once (adding each chunk's carried table to the running one would copy it every
    time)."""
    return [family.schema(config).exact_zero()]


def _add_exact(total: list[Any], part: Any) -> list[Any]:
    """``total`` with the exact total of the next part (:meth:`StatsBatch.exact_total`)."""
    total.append(part)
    return total


def _settle(total: Any) -> Any:
    """The exact total itself: the parts added in input order (:meth:`Schema.ordered_sum`)."""
    return total[0].layout().ordered_sum(total) if isinstance(total, list) else total


def _digest(source: Source) -> tuple[str, int, int]:
    """A content digest of a source, its number of segments and its size in bytes: its bytes for a text or JSON
    Lines file, its values for lists and tables."""
    import hashlib

    h = hashlib.sha256()
    if isinstance(source, (Lines, JsonlField)):  # a text file, one segment per line: its bytes
        n, last, size = 0, b"\n", 0
        with open(source.path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
                n += block.count(b"\n")
                size += len(block)
                last = block[-1:]
        h.update(f"|field:{getattr(source, 'field', '')}".encode())
        return h.hexdigest(), n + (last != b"\n"), size
    # values in memory, or read already: a table's column (Parquet, CSV), digested by its rows, not by its file's
    # bytes and lines (a CSV's header and quoted newlines, Parquet's binary) so that a rerun finds its entry
    n = size = 0
    for value in source:
        data = json.dumps(value, ensure_ascii=True).encode("ascii")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
        n += 1
        size += len(data)
    return h.hexdigest(), n, size


def _columns(spec: MetricSpec, result: Any) -> list[tuple[str, str | None]]:
    """The table columns of one metric: one, or one per value when the score holds several (ROUGE types),
    unless the spec picks one with ``score=``."""
    select = spec.select
    if isinstance(result.score, Mapping):
        if select is not None:
            if select not in result.score:
                raise InvalidInputError(f"{spec.label}: score={select!r} is not one of {', '.join(result.score)}")
            return [(spec.label, select)]
        return [(f"{spec.label}-{k}" if len(result.score) > 1 else spec.label, k) for k in result.score]
    return [(spec.label, None)]


def _segment_value(value: Any, select: str | None) -> float:
    if select is not None and isinstance(value, Mapping):
        value = value[select]
    if hasattr(value, "fmeasure"):
        value = value.fmeasure
    return float(value)


def _progress_bar(enabled: bool, sources: Sequence[Source], per_segment: int) -> Any:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        warn("progress bars need tqdm: pip install tqdm")  # attributed to the caller of evaluate()
        return None
    total = _count_segments(sources[0])
    return tqdm(total=None if total is None else total * per_segment, unit="seg", desc="evaluate")


def _count_segments(source: Source) -> int | None:
    values = getattr(source, "values", None)
    if values is not None:
        return len(values)
    path = getattr(source, "path", None)
    if path is None:
        return None
    n, last = 0, b"\n"
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            n += block.count(b"\n")
            last = block[-1:]
    return n + (last != b"\n")


def iter_lines(source: Source, indices: Sequence[int]) -> Iterator[tuple[int, Any]]:
    """Stream ``source`` once and yield ``(index, value)`` for the wanted indices (for the report's worst
    segments, so texts are never all held in memory)."""
    wanted = set(indices)
    for i, value in enumerate(source):
        if i in wanted:
            yield i, value
