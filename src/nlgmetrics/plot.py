"""The BERTScore similarity heatmap, with real glyphs for Japanese and Chinese tokens.

:func:`bertscore_heatmap` draws what bert-score's ``plot_example`` draws: the cosine similarity of every candidate
token (rows) to every reference token (columns), special tokens left out, each cell annotated, optionally rescaled
with the F baseline. It writes a PNG with matplotlib's Agg canvas: no window, no pyplot state, no global style
change.

Fonts: matplotlib's default font (DejaVu Sans) has no CJK glyphs, so Japanese tokens come out as boxes with a
"Glyph … missing" warning. Here the labels use a fallback list of fonts: DejaVu Sans first, then a CJK font for
the characters it lacks: the IPAexGothic font bundled with the ``matplotlib-fontja`` package (located without
importing it, since importing it changes matplotlib's global font), then CJK fonts found on the system (Noto
Sans CJK, Source Han Sans, WenQuanYi, Droid Sans Fallback, IPA, Takao, Hiragino, Yu Gothic, MS Gothic, SimHei,
Microsoft YaHei, PingFang, …), chosen by which characters they actually cover. A character no font covers is
drawn as U+FFFD with one warning naming it, so matplotlib never warns about a missing glyph.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InvalidInputError, MissingDependencyError, warn

__all__ = ["Heatmap", "bertscore_heatmap", "cjk_fonts", "draw_heatmap"]

#: Families of CJK fonts worth trying when they are installed, in order of preference.
CJK_FAMILIES = (
    "IPAexGothic",
    "Noto Sans CJK JP",
    "Noto Sans CJK SC",
    "Noto Sans CJK TC",
    "Noto Sans CJK KR",
    "Noto Sans JP",
    "Noto Sans SC",
    "Source Han Sans",
    "Source Han Sans JP",
    "Source Han Sans SC",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Droid Sans Fallback",
    "IPAGothic",
    "IPAPGothic",
    "TakaoGothic",
    "TakaoPGothic",
    "VL Gothic",
    "Hiragino Sans",
    "Hiragino Kaku Gothic ProN",
    "Yu Gothic",
    "Meiryo",
    "MS Gothic",
    "SimHei",
    "Microsoft YaHei",
    "PingFang SC",
    "Arial Unicode MS",
)
_REPLACEMENT = "\ufffd"
_INSTALL = "pip install 'nlgmetrics[plot]'"


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError as err:
        raise MissingDependencyError("the BERTScore heatmap", _INSTALL) from err
    return matplotlib


def _fontja_path() -> Path | None:
    """IPAexGothic from the ``matplotlib-fontja`` package, found without importing the package."""
    from ._files import package_path

    return package_path("matplotlib_fontja", "fonts", "ipaexg.ttf", want=Path.is_file)


@functools.cache
def _charmap(path: str) -> frozenset[int]:
    from matplotlib.ft2font import FT2Font

    try:
        return frozenset(FT2Font(path).get_charmap())
    except (OSError, RuntimeError, ValueError):
        return frozenset()


@functools.cache
def cjk_fonts() -> tuple[tuple[str, str], ...]:
    """``(family, file)`` of the CJK fonts available: ``matplotlib-fontja``'s, then the system's."""
    _matplotlib()
    from matplotlib import font_manager

    found: list[tuple[str, str]] = []
    bundled = _fontja_path()
    if bundled is not None:
        font_manager.fontManager.addfont(str(bundled))
        found.append((font_manager.FontProperties(fname=str(bundled)).get_name(), str(bundled)))
    by_name: dict[str, str] = {}
    for entry in font_manager.fontManager.ttflist:
        by_name.setdefault(entry.name, entry.fname)
    for family in CJK_FAMILIES:
        if family in by_name and all(family != f for f, _ in found):
            found.append((family, by_name[family]))
    return tuple(found)


def _families(texts: Sequence[str]) -> tuple[list[str], set[str]]:
    """The font family list that covers ``texts`` (default font first), and the characters nothing covers."""
    from matplotlib import font_manager, rcParams

    default = (
        rcParams["font.sans-serif"][0] if rcParams["font.family"] == ["sans-serif"] else rcParams["font.family"][0]
    )
    default_file = font_manager.findfont(font_manager.FontProperties(family=default))
    needed = {ord(ch) for text in texts for ch in text if not ch.isspace()} - _charmap(default_file)
    families = [default]
    if needed:
        for family, path in cjk_fonts():
            covered = needed & _charmap(path)
            if covered:
                families.append(family)
                needed -= covered
            if not needed:
                break
        if needed:  # any other installed font, before giving up on a character
            for entry in font_manager.fontManager.ttflist:
                if entry.name.startswith("Last Resort"):  # its "glyphs" are boxes naming the Unicode block
                    continue
                covered = needed & _charmap(entry.fname)
                if covered and entry.name not in families:
                    families.append(entry.name)
                    needed -= covered
                if not needed:
                    break
    return families, {chr(c) for c in needed}


@dataclasses.dataclass(frozen=True)
class Heatmap:
    """What was drawn: the similarity matrix (candidate tokens x reference tokens), the tokens, the file."""

    similarity: np.ndarray
    candidate_tokens: list[str]
    reference_tokens: list[str]
    path: Path
    fonts: tuple[str, ...]


def draw_heatmap(
    similarity: np.ndarray,
    candidate_tokens: Sequence[str],
    reference_tokens: Sequence[str],
    output: str | Path,
    *,
    title: str = "Similarity Matrix",
    annotate: bool | None = None,
    dpi: int = 100,
) -> tuple[str, ...]:
    """Write the heatmap PNG; return the font families used. ``annotate`` (default: when both sides have at most
    40 tokens) writes each cell's value, as bert-score does."""
    matplotlib = _matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    sim = np.asarray(similarity, dtype=np.float64)
    if sim.shape != (len(candidate_tokens), len(reference_tokens)):
        raise InvalidInputError(
            f"the similarity matrix is {sim.shape}, but there are {len(candidate_tokens)} candidate and "
            f"{len(reference_tokens)} reference tokens"
        )
    families, missing = _families([*candidate_tokens, *reference_tokens, title])
    if missing:
        warn(
            f"bertscore heatmap: no installed font has the character(s) {''.join(sorted(missing))!r}; they are drawn "
            "as U+FFFD. Install a font that covers them (for example: pip install matplotlib-fontja, or the Noto "
            "Sans CJK fonts)",
        )

    def clean(text: str) -> str:
        return "".join(_REPLACEMENT if ch in missing else ch for ch in text)

    cand = [clean(t) for t in candidate_tokens]
    ref = [clean(t) for t in reference_tokens]
    n_h, n_r = sim.shape
    if annotate is None:
        annotate = max(n_h, n_r) <= 40
    width = min(max(n_r * 0.9, 4.0), 60.0) + 2.0
    height = min(max(n_h * 0.6, 3.0), 60.0) + 1.5
    with matplotlib.rc_context({"font.family": families, "axes.unicode_minus": False}):
        # constrained layout leaves room for the colorbar's tick labels (tight_layout cut them off)
        fig = Figure(figsize=(width, height), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        image = ax.imshow(sim, cmap="Blues", vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(np.arange(n_r))
        ax.set_yticks(np.arange(n_h))
        ax.set_xticklabels(ref, fontsize=10, rotation=45, ha="right", rotation_mode="anchor")
        ax.set_yticklabels(cand, fontsize=10)
        ax.set_xlabel("Reference (tokenized)", fontsize=14)
        ax.set_ylabel("Candidate (tokenized)", fontsize=14)
        ax.set_title(clean(title), fontsize=14)
        fig.colorbar(image, ax=ax, fraction=0.03, pad=0.02)
        if annotate:
            for i in range(n_h):
                for j in range(n_r):
                    ax.text(j, i, f"{sim[i, j]:.3f}", ha="center", va="center", color="k" if sim[i, j] < 0.5 else "w")
        fig.savefig(str(output), dpi=dpi, format="png")
    return tuple(families)


def bertscore_heatmap(
    candidate: str,
    reference: str,
    output: str | Path,
    *,
    model: str | None = None,
    num_layers: int | None = None,
    lang: str | None = None,
    rescale_with_baseline: bool = False,
    baseline_path: str | None = None,
    device: str | None = None,
    dtype: str = "float32",
    long_inputs: str = "truncate",
    annotate: bool | None = None,
    allow_download: bool = False,
) -> Heatmap:
    """Write the token-similarity heatmap of one candidate and one reference to ``output`` (PNG), like
    bert-score's ``plot_example``: rows are candidate tokens, columns reference tokens, ``[CLS]``/``[SEP]`` left
    out; with ``rescale_with_baseline`` the similarities are rescaled with the F baseline.
    """
    from ._inputs import ReferenceSets
    from .metrics.bertscore import BERTSCORE, check_texts

    for what, value in (("candidate", candidate), ("reference", reference)):
        if not isinstance(value, str):
            raise InvalidInputError(f"the {what} must be a string, got {type(value).__name__}")
    check_texts([candidate], ReferenceSets([reference]))
    cfg = BERTSCORE.corpus_config(
        model=model,
        num_layers=num_layers,
        lang=lang,
        rescale_with_baseline=rescale_with_baseline,
        baseline_path=baseline_path,
        device=device,
        dtype=dtype,
        long_inputs=long_inputs,
        allow_download=allow_download,
    )
    assert cfg.model is not None  # resolved by the config
    assert cfg.num_layers is not None
    from .torch.bertscore import get_encoder, similarity_matrix

    encoder = get_encoder(
        cfg.model, cfg.num_layers, device=cfg.device, dtype=cfg.dtype, allow_download=cfg.allow_download
    )
    sim, cand_tokens, ref_tokens = similarity_matrix(encoder, candidate, reference, cfg.long_inputs)
    title = "Similarity Matrix"
    if cfg.baseline is not None:
        b = cfg.baseline[2]
        sim = (sim - b) / (1 - b)
        title += " (after Rescaling)"
    path = Path(output)
    fonts = draw_heatmap(sim, cand_tokens, ref_tokens, path, title=title, annotate=annotate)
    return Heatmap(sim, cand_tokens, ref_tokens, path, fonts)
