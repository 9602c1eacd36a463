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
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .. import __version__
from ..errors import InvalidInputError, warn
from ..metrics.catalog import IN_PROCESS
from ..stats import CarriedColumn, StatsBatch
from .sources import Source, as_source, chunked_rows
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

    def table(self) -> str:
        """A plain-text table: systems × metrics, with ``± ci`` and, against the baseline, the difference with
        its direction (``better``/``worse``, whatever the p-value) and the p-value (``*`` marks p < 0.05)."""
        header = ["system", *[f"{m.label} {_arrow(m)}".rstrip() for m in self.metrics]]
        rows = []
        for s in self.systems:
            row = [s + (" (baseline)" if s == self.baseline else "")]
            for m in self.metrics:
                row.append(format_cell(self.scores[m.label][s], m.spec.family().higher_is_better))
            rows.append(row)
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False)).rstrip()]
        lines.append("  ".join("-" * w for w in widths))
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in rows]
        notes = []
        up = [m.label for m in self.metrics if m.spec.family().higher_is_better is True]
        down = [m.label for m in self.metrics if m.spec.family().higher_is_better is False]
        if up:
            notes.append(f"higher is better (↑): {', '.join(up)}")
        if down:
            notes.append(f"lower is better (↓): {', '.join(down)}")
        if self.baseline is not None and any(
            self.scores[m.label][s].paired for m in self.metrics for s in self.systems
        ):
            notes.append(
                f"vs {self.baseline}: the difference, 'better' or 'worse' by the metric's direction; "
                "p from the paired test, * p < 0.05"
            )
        return "\n".join([*lines, "", *notes]) if notes else "\n".join(lines)


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
        if category is UserWarning:
            warn(message)  # attributed to the caller of evaluate()
        else:
            warnings.warn(message, category, stacklevel=4)


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
    if (
        isinstance(references, (list, tuple))
        and references
        and all(isinstance(r, (str, bytes)) or hasattr(r, "__fspath__") for r in references)
        and not _looks_like_segments(references)
    ):
        return [as_source(r, field=ref_field, allow_list=True) for r in references]
    return [as_source(references, field=ref_field, allow_list=True)]


def _source_column(sources: Any, field: str | None) -> Source:
    """The sources: a text file, a JSON Lines file (field ``source`` unless ``field`` says otherwise) or a list."""
    is_jsonl = isinstance(sources, (str, os.PathLike)) and os.fspath(sources).endswith(".jsonl")
    # a table (a file or an object with named columns): the same default column name
    is_jsonl = is_jsonl or _is_table(sources)
    return as_source(sources, field=field or ("source" if is_jsonl else None))


def _is_table(value: Any) -> bool:
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value).endswith((".parquet", ".csv", ".tsv"))
    return not isinstance(value, (list, tuple))


def _looks_like_segments(values: Sequence[Any]) -> bool:
    """A list of strings is a list of reference *files* when every string names an existing file."""
    import os

    return not all(isinstance(v, str) and os.path.isfile(v) for v in values)


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
    simplified: the metrics that use them (SARI) receive them, the others never see them.

    >>> ev = evaluate([["the cat sat"], ["a dog"]], {"a": ["the cat sat", "a dog"], "b": ["the cat", "dog"]},
    ...               ["wer", "nls"], baseline="a", bootstrap=0, test=None)
    >>> ev.scores["wer"]["b"].score
    0.4
    """
    specs = parse_metrics(metrics)
    if not systems:
        raise InvalidInputError("no system given: pass at least one system output")
    names = list(systems)
    if baseline is not None and baseline not in systems:
        raise InvalidInputError(f"baseline {baseline!r} is not one of the systems: {', '.join(names)}")
    if jobs < 1:
        raise InvalidInputError(f"jobs must be >= 1, got {jobs}")
    if chunk_size < 1:
        raise InvalidInputError(f"chunk_size must be >= 1, got {chunk_size}")
    if test not in (None, "bs", "ar"):
        raise InvalidInputError(f"unknown paired test {test!r}; valid values are 'bs', 'ar' or None")
    ref_sources = _reference_sources(references, ref_field)
    sys_sources = [as_source(systems[n], field=pred_field) for n in names]
    needs_sources = [s.label for s in specs if s.family().uses_sources]
    if needs_sources and sources is None:
        raise InvalidInputError(f"{', '.join(needs_sources)} need(s) the sources: pass sources= (--src FILE)")
    src_sources = [] if sources is None else [_source_column(sources, src_field)]
    need_segments = keep_segments or bootstrap > 0 or (baseline is not None and test is not None)
    families = {s.label: s.family() for s in specs}
    configs = {s.label: s.config() for s in specs}

    from ..algorithms.ngrams import persist_reference_indexes

    # the tokenised references (reference n-gram indexes) go to the cache directory too, so a re-run with one
    # more system does not tokenise the references again
    index_dir = None if cache_dir is None else os.path.join(cache_dir, "references")
    pool: Any = _Inline()
    inline = _Inline()
    if jobs > 1:
        pool = cf.ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=persist_reference_indexes,
            initargs=(index_dir,),
        )
    chunks: dict[tuple[str, str], list[dict[str, np.ndarray]]] = {(s.label, n): [] for s in specs for n in names}
    totals: dict[tuple[str, str], Any] = {
        (s.label, n): families[s.label].zero(configs[s.label]) for s in specs for n in names
    }
    pending: deque[tuple[tuple[str, str], cf.Future[Any]]] = deque()
    limit = 4 * jobs * len(specs) * len(names)
    n_segments = 0
    bar = _progress_bar(progress, ref_sources + sys_sources, len(specs) * len(names))

    def add(key: tuple[str, str], cols: dict[str, np.ndarray]) -> None:
        batch = StatsBatch(families[key[0]].stats_cls, cols)
        totals[key] = totals[key] + batch.total()
        if need_segments or cache is not None:
            chunks[key].append(cols)
        if bar is not None:
            bar.update(len(batch))

    def collect(block: bool) -> None:
        while pending and (block or pending[0][1].done() or len(pending) > limit):
            key, fut = pending.popleft()
            cols, caught = fut.result()
            _warn_again(caught)
            add(key, cols)

    cache = (
        _StatsCache(
            cache_dir,
            specs,
            configs,
            ref_sources + src_sources,
            dict(zip(names, sys_sources, strict=True)),
            chunk_size,
        )
        if (cache_dir)
        else None
    )
    cached = set()
    if cache is not None:
        for spec in specs:
            for name in names:
                stored = cache.load(spec, name)
                if stored is not None:
                    cached.add((spec.label, name))
                    for cols in stored:
                        add((spec.label, name), cols)

    previous_index_dir = persist_reference_indexes(index_dir)
    try:
        n_refs = len(ref_sources)
        n_in = n_refs + len(src_sources)  # references, then the sources (if any), then the systems
        for rows in chunked_rows(ref_sources + src_sources + sys_sources, chunk_size):
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
            for k, name in enumerate(names):
                preds = [row[n_in + k] for row in rows]
                for i, p in enumerate(preds):
                    _check_value(p, sys_sources[k], n_segments + i, reference=False)
                for spec in specs:
                    if (spec.label, name) in cached:
                        continue
                    task_sources = srcs_chunk if families[spec.label].uses_sources else None
                    if spec.name not in IN_PROCESS:
                        pending.append(
                            ((spec.label, name), pool.submit(_stats_task, spec, preds, refs_chunk, task_sources))
                        )
                        continue
                    # a model family runs here, in pieces, so that the progress bar moves while it works
                    for lo in range(0, len(preds), _IN_PROCESS_PIECE):
                        hi = lo + _IN_PROCESS_PIECE
                        piece_sources = None if task_sources is None else task_sources[lo:hi]
                        pending.append(
                            (
                                (spec.label, name),
                                inline.submit(_stats_task, spec, preds[lo:hi], refs_chunk[lo:hi], piece_sources),
                            )
                        )
                        collect(block=False)
            n_segments += len(rows)
            collect(block=False)
        collect(block=True)
    finally:
        pool.shutdown()
        persist_reference_indexes(previous_index_dir)
        if bar is not None:
            bar.close()
    if n_segments == 0:
        raise InvalidInputError("the inputs hold no segment: there is nothing to score (an empty corpus)")
    if cache is not None:
        for key, stored in chunks.items():
            if key not in cached:
                cache.save(next(sp for sp in specs if sp.label == key[0]), key[1], stored)

    from ..metrics.significance import bootstrap_ci_from_stats, paired_test_from_stats

    batches: dict[tuple[str, str], StatsBatch[Any]] = {}
    for key, parts in chunks.items():
        if need_segments:
            fam = families[key[0]]
            batches[key] = (
                StatsBatch.concat([StatsBatch(fam.stats_cls, c) for c in parts])
                if parts
                else fam.empty_batch(configs[key[0]])
            )
    scores: dict[str, dict[str, SystemScore]] = {}
    segment_scores: dict[str, dict[str, tuple[float, ...]]] = {}
    signatures: dict[str, str] = {}
    segment_signatures: dict[str, str] = {}
    columns_of: dict[str, list[tuple[str, str | None]]] = {}
    for spec in specs:
        fam, cfg = families[spec.label], configs[spec.label]
        for name in names:
            key = (spec.label, name)
            result = fam.finalize(totals[key], cfg)
            if spec.label not in columns_of:
                columns_of[spec.label] = _columns(spec, result)
            for column, select in columns_of[spec.label]:
                signatures[column] = result.signature
                ci = paired = None
                if bootstrap > 0:
                    ci = bootstrap_ci_from_stats(
                        fam, cfg, batches[key], n_samples=bootstrap, seed=seed, confidence=confidence, score=select
                    ).to_dict()
                if baseline is not None and test is not None and name != baseline:
                    paired = paired_test_from_stats(
                        fam,
                        cfg,
                        batches[(spec.label, baseline)],
                        batches[key],
                        test=test,
                        n_samples=paired_samples,
                        seed=seed,
                        score=select,
                    ).to_dict()
                d = result.to_dict()
                d.pop("signature", None)
                d.pop("segments", None)
                value = d.pop("score")
                if select is not None:
                    value = value[select]
                scores.setdefault(column, {})[name] = SystemScore(score=value, result=d, ci=ci, paired=paired)
                if keep_segments:
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
    settings = {
        "bootstrap": bootstrap,
        "confidence": confidence,
        "test": test,
        "paired_samples": paired_samples,
        "seed": seed,
        "chunk_size": chunk_size,
    }
    table_columns = tuple(
        Column(label=column, spec=spec, select=select) for spec in specs for column, select in columns_of[spec.label]
    )
    return Evaluation(
        systems=tuple(names),
        metrics=table_columns,
        signatures=signatures,
        scores=scores,
        n_segments=n_segments,
        baseline=baseline,
        settings=settings,
        segment_scores=segment_scores,
        segment_signatures=segment_signatures,
    )


class _StatsCache:
    """Per-segment statistics on disk, keyed by signature, chunk size and input digests."""

    def __init__(
        self,
        root: str,
        specs: Sequence[MetricSpec],
        configs: Mapping[str, Any],
        ref_sources: Sequence[Source],
        sys_sources: Mapping[str, Source],
        chunk_size: int,
    ) -> None:
        import hashlib
        import os

        from ..metrics.base import signature_of

        self.root = root
        os.makedirs(root, exist_ok=True)
        refs_digest = "+".join(_digest(src) for src in ref_sources)
        self.keys: dict[tuple[str, str], str] = {}
        for name, src in sys_sources.items():
            sys_digest = _digest(src)
            for spec in specs:
                sig = signature_of(spec.family(), configs[spec.label])
                raw = f"{sig}|{spec.key()!r}|chunk:{chunk_size}|refs:{refs_digest}|sys:{sys_digest}"
                self.keys[(spec.label, name)] = hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def _path(self, spec: MetricSpec, name: str) -> str:
        import os

        return os.path.join(self.root, f"{spec.name}-{self.keys[(spec.label, name)][:32]}.npz")

    def load(self, spec: MetricSpec, name: str) -> list[dict[str, Any]] | None:
        import os

        path = self._path(spec, name)
        if not os.path.isfile(path):
            return None
        stats_cls = spec.family().stats_cls
        with np.load(path, allow_pickle=False) as data:
            n = int(data["n_chunks"])
            carried = stats_cls.carried_fields
            return [
                {
                    f: CarriedColumn.from_bytes(carried[f], data[f"{i}:{f}"].tobytes())
                    if f in carried
                    else data[f"{i}:{f}"]
                    for f in stats_cls.field_names()
                }
                for i in range(n)
            ]

    def save(self, spec: MetricSpec, name: str, chunks: Sequence[dict[str, np.ndarray]]) -> None:
        import os
        import tempfile

        arrays: dict[str, np.ndarray] = {"n_chunks": np.asarray(len(chunks))}
        for i, cols in enumerate(chunks):
            for f, v in cols.items():
                # carried values (NIST's tables, CIDEr's records) are stored as bytes: object arrays need pickle
                arrays[f"{i}:{f}"] = np.frombuffer(v.to_bytes(), np.uint8) if isinstance(v, CarriedColumn) else v
        fd, tmp = tempfile.mkstemp(dir=self.root, suffix=".npz")
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, self._path(spec, name))  # atomic: a reader never sees half a file


def _digest(source: Source) -> str:
    """A content digest of a source: its bytes for files, its values for lists."""
    import hashlib

    h = hashlib.sha256()
    path = getattr(source, "path", None)
    if path is not None:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        h.update(f"|field:{getattr(source, 'field', '')}".encode())
    else:
        h.update(json.dumps(list(source), ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()


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
        import warnings

        warnings.warn("progress bars need tqdm: pip install tqdm", stacklevel=3)
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
