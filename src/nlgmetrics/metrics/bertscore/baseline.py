"""Rescaling baselines for any model, computed the way bert-score computed its own.

bert-score's ``get_rescale_baseline/get_rescale_baseline.py`` reads up to 1,000,000 lines of monolingual text,
keeps the stripped lines of fewer than 32 space-separated words, draws two disjoint random halves of them
(``np.random.choice(len(lines), size=(2, len(lines) // 2), replace=False)``), scores each line of the first half
(as the candidate) against the line at the same position of the second half (as the reference) with every layer
of the model, without idf, and writes the mean P, R and F of each layer as ``LAYER,P,R,F``. The baseline of a
layer is thus the score two unrelated sentences get on average.

:func:`compute_baseline` does the same, with three differences: the draw is seeded (a local
``numpy.random.Generator``, seed 1 by default), empty lines are skipped (bert-score keeps them; with
transformers 5 it then crashes), and the mean is taken in float64 over all pairs at once (bert-score keeps a
float32 running mean over chunks of 1000 pairs). ``nlgmetrics bertscore-baseline --model PATH --corpus FILE``
writes the file; pass it as ``baseline_path`` to rescale with it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from ...errors import InvalidInputError, MissingDependencyError
from . import check_texts
from .models import check_model, resolve_model, write_baseline

__all__ = ["BaselineTable", "compute_baseline", "corpus_lines", "sample_pairs"]

#: bert-score reads at most this many lines of the corpus.
MAX_LINES = 1_000_000
#: bert-score keeps lines of fewer than this many space-separated words.
MAX_WORDS = 32


@dataclasses.dataclass(frozen=True)
class BaselineTable:
    """The mean ``(P, R, F)`` of random pairs at every layer (row ``i``: layer ``i``, row 0 the embeddings)."""

    model: str
    rows: tuple[tuple[float, float, float], ...]
    pairs: int
    lines: int
    seed: int

    def to_tsv(self) -> str:
        """The table in bert-score's format (``LAYER,P,R,F``, comma-separated, as its ``.tsv`` files are)."""
        return write_baseline(self.rows)


def corpus_lines(lines: Sequence[str], max_lines: int = MAX_LINES, max_words: int = MAX_WORDS) -> list[str]:
    """The lines bert-score samples from: the first ``max_lines`` lines, stripped, those of fewer than
    ``max_words`` space-separated words; empty lines are skipped.

    >>> corpus_lines(["  a b ", "", "x " * 40, "c"])
    ['a b', 'c']
    """
    kept = []
    for line in lines[:max_lines]:
        text = line.strip()
        if text and len(text.split(" ")) < max_words:
            kept.append(text)
    return kept


def sample_pairs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two disjoint random halves of ``range(n)``, position by position a pair (bert-score's draw, seeded).

    >>> a, b = sample_pairs(10, seed=1)
    >>> len(a), len(b), len(set(a) | set(b))
    (5, 5, 10)
    """
    rng = np.random.default_rng(seed)
    drawn = rng.choice(n, size=(2, n // 2), replace=False)
    return drawn[0], drawn[1]


def compute_baseline(
    corpus: Sequence[str],
    *,
    model: str | None = None,
    lang: str | None = None,
    seed: int = 1,
    max_lines: int = MAX_LINES,
    max_words: int = MAX_WORDS,
    batch_size: int | None = None,
    device: str | None = None,
    dtype: str = "float32",
    progress: bool | None = None,
    allow_download: bool = False,
) -> BaselineTable:
    """The baseline table of ``model`` (or the default model of ``lang``) on a corpus of monolingual lines.

    A few thousand lines give a baseline stable to about 1e-3; bert-score used up to a million. The model is
    loaded from a local folder or the Hugging Face cache (``allow_download=True`` lets it be downloaded).
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidInputError(f"seed must be an integer, got {seed!r}")
    sizes = [("max_lines", max_lines), ("max_words", max_words)]
    for name, value in [*sizes, *([("batch_size", batch_size)] if batch_size is not None else [])]:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    name = resolve_model(model, lang)
    check_model(name, allow_download=allow_download)
    lines = corpus_lines(corpus, max_lines, max_words)
    check_texts(lines)
    if len(lines) < 2:
        raise InvalidInputError(
            f"the corpus has {len(lines)} usable line(s) (non-empty, fewer than {max_words} words); a baseline needs "
            "at least 2, and a few thousand for a stable one"
        )
    first, second = sample_pairs(len(lines), seed)
    try:
        from .head import get_encoder, score_pairs
    except ImportError as err:
        raise MissingDependencyError("bertscore", "pip install 'nlgmetrics[bertscore]'") from err
    encoder = get_encoder(name, 0, device=device, dtype=dtype, all_layers=True, allow_download=allow_download)
    scores = score_pairs(
        encoder,
        [lines[i] for i in first.tolist()],
        [lines[i] for i in second.tolist()],
        batch_size=batch_size,
        progress=progress,
        cache=False,
    )
    columns = [scores.precision, scores.recall, scores.f1]  # each (pairs, layers)
    rows = tuple(
        tuple(math.fsum(col[:, layer].tolist()) / len(first) for col in columns) for layer in range(columns[0].shape[1])
    )
    return BaselineTable(model=name, rows=rows, pairs=len(first), lines=len(lines), seed=seed)  # type: ignore[arg-type]
