"""A self-contained HTML report of an evaluation run.

One file, no external resources: the table (systems × metrics, intervals, paired tests), per-segment score
distributions per metric and system (inline SVG drawn by matplotlib when it is installed, with text left as text
so the browser renders every script with its own fonts), the worst segments of each system with the prediction
and the references side by side, and every signature. Japanese and Chinese text is declared UTF-8 and set in a
font stack that names the common CJK fonts.
"""

from __future__ import annotations

import html
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import __version__
from .runner import Evaluation, format_cell, iter_lines
from .sources import as_source

__all__ = ["render_report", "write_report"]

_CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK JP", "Noto Sans JP",
       "Hiragino Sans", "Yu Gothic", "IPAexGothic", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif;
       margin: 2rem; color: #1b1f24; line-height: 1.45; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; } h3 { font-size: 1rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #d0d7de; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.sig { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 0.85rem; word-break: break-all; }
.plots { display: flex; flex-wrap: wrap; gap: 1rem; }
.plot { border: 1px solid #d0d7de; padding: 0.3rem; }
.plot figcaption { font-size: 0.85rem; text-align: center; }
.seg td { max-width: 32rem; white-space: pre-wrap; word-break: break-word; }
.seg td.num { white-space: nowrap; }
.muted { color: #57606a; font-size: 0.9rem; }
"""


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _histogram_svg(scores: Sequence[float], title: str) -> str:
    """An inline SVG histogram. matplotlib when available (text kept as text); a plain SVG otherwise."""
    values = np.asarray(scores, dtype=np.float64)
    values = values[np.isfinite(values)]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return _bars_svg(values, title)
    with matplotlib.rc_context({"svg.fonttype": "none", "font.size": 9}):
        fig, ax = plt.subplots(figsize=(3.4, 2.2), dpi=100)
        ax.hist(values, bins=20, color="#4c72b0")
        ax.set_xlabel("segment score")
        ax.set_ylabel("segments")
        fig.tight_layout()
        buf = io.StringIO()
        # no metadata block: no date (the report is reproducible) and no links
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
        plt.close(fig)
    svg = buf.getvalue()
    return svg[svg.index("<svg") :]


def _bars_svg(values: np.ndarray, title: str) -> str:
    counts, _ = np.histogram(values, bins=20) if values.size else (np.zeros(20, dtype=int), None)
    top = max(int(counts.max()), 1)
    bars = "".join(
        f'<rect x="{10 + i * 14}" y="{110 - 100 * c / top:.1f}" width="12" height="{100 * c / top:.1f}" '
        'fill="#4c72b0"/>'
        for i, c in enumerate(counts.tolist())
    )
    head = f'<svg xmlns="http://www.w3.org/2000/svg" width="300" height="120" role="img" aria-label="{_esc(title)}">'
    return head + bars + "</svg>"


def render_report(
    evaluation: Evaluation,
    references: Any,
    systems: Mapping[str, Any],
    *,
    worst: int = 5,
    title: str = "nlgmetrics evaluation",
    ref_field: str | None = None,
    pred_field: str | None = None,
) -> str:
    """The report as an HTML string. ``references`` and ``systems`` are the inputs of the run (files are read
    again, streamed, only for the worst segments' texts). The evaluation must have been run with
    ``keep_segments=True``."""
    ev = evaluation
    if not ev.segment_scores:
        raise ValueError("render_report needs an evaluation run with keep_segments=True")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_esc(title)}</h1>",
        f'<p class="muted">{ev.n_segments} segments · {len(ev.systems)} systems · {len(ev.metrics)} metrics · '
        f"nlgmetrics {__version__}" + (f" · baseline <b>{_esc(ev.baseline)}</b>" if ev.baseline else "") + "</p>",
        "<h2>Scores</h2>",
        _table_html(ev),
        '<p class="muted">± is half the bootstrap confidence interval; p is the paired test against the baseline '
        "(* p &lt; 0.05).</p>",
        "<h2>Per-segment score distributions</h2>",
    ]
    for m in ev.metrics:
        parts.append(f"<h3>{_esc(m.label)}</h3><div class='plots'>")
        for s in ev.systems:
            svg = _histogram_svg(ev.segment_scores[m.label][s], f"{m.label} — {s}")
            parts.append(f"<figure class='plot'>{svg}<figcaption>{_esc(s)}</figcaption></figure>")
        parts.append("</div>")
    parts.append("<h2>Worst segments</h2>")
    parts.append(_worst_html(ev, references, systems, worst, ref_field, pred_field))
    parts.append("<h2>Signatures</h2><table><tr><th>metric</th><th>signature</th></tr>")
    for m in ev.metrics:
        parts.append(f"<tr><td>{_esc(m.label)}</td><td class='sig'>{_esc(ev.signatures[m.label])}</td></tr>")
    parts.append("</table></body></html>")
    return "\n".join(parts)


def _table_html(ev: Evaluation) -> str:
    rows = ["<table><tr><th>system</th>" + "".join(f"<th>{_esc(m.label)}</th>" for m in ev.metrics) + "</tr>"]
    for s in ev.systems:
        name = _esc(s) + (" <span class='muted'>(baseline)</span>" if s == ev.baseline else "")
        cells = "".join(f"<td class='num'>{_esc(format_cell(ev.scores[m.label][s]))}</td>" for m in ev.metrics)
        rows.append(f"<tr><td>{name}</td>{cells}</tr>")
    rows.append("</table>")
    return "".join(rows)


def _worst_html(
    ev: Evaluation,
    references: Any,
    systems: Mapping[str, Any],
    worst: int,
    ref_field: str | None,
    pred_field: str | None,
) -> str:
    from .runner import _reference_sources

    ref_sources = _reference_sources(references, ref_field)
    out = []
    for m in ev.metrics:
        higher_is_better = _higher_is_better(m.name)
        for s in ev.systems:
            seg = np.asarray(ev.segment_scores[m.label][s], dtype=np.float64)
            order = np.argsort(seg if higher_is_better else -seg, kind="stable")[:worst]
            idx = sorted(int(i) for i in order)
            preds = dict(iter_lines(as_source(systems[s], field=pred_field), idx))
            refs: dict[int, list[str]] = {i: [] for i in idx}
            for src in ref_sources:
                for i, v in iter_lines(src, idx):
                    refs[i].extend(v if isinstance(v, list) else [v])
            out.append(f"<h3>{_esc(m.label)} — {_esc(s)}</h3><table class='seg'>")
            out.append("<tr><th>#</th><th>score</th><th>prediction</th><th>references</th></tr>")
            for i in (int(j) for j in order):
                ref_html = "<hr>".join(_esc(r) for r in refs.get(i, []))
                out.append(
                    f"<tr><td class='num'>{i + 1}</td><td class='num'>{_score_text(seg[i])}</td>"
                    f"<td lang='und'>{_esc(preds.get(i, ''))}</td><td lang='und'>{ref_html}</td></tr>"
                )
            out.append("</table>")
    return "".join(out)


def _score_text(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.4f}"


def _higher_is_better(name: str) -> bool:
    return name not in ("ter", "wer", "cer", "edit_distance")


def write_report(evaluation: Evaluation, path: str, references: Any, systems: Mapping[str, Any], **kwargs: Any) -> None:
    """Write :func:`render_report` to ``path`` (UTF-8), atomically: the page is rendered first, so a failure
    leaves no empty or partial file; a lone surrogate in the inputs (from a JSON escape) is written as U+FFFD."""
    from .._files import write_text

    write_text(path, render_report(evaluation, references, systems, **kwargs), "--report")
