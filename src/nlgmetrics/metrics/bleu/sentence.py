"""BLEU averaged over sentences, the convention of supervised fine-tuning scripts.

With ``average="sentence"`` the ``bleu`` family's corpus score is the mean of each segment's own BLEU (the same
formula on the segment's statistics), each optionally rounded to ``sentence_round`` decimals first, instead of BLEU
of the summed statistics. The per-segment values travel in the additive ``sentence_sum`` statistic, so batching,
merging, DDP and the significance tests see the sentence-level mean too.

Preset ``llamafactory`` reproduces LLaMA-Factory 0.9.5's ``ComputeSimilarity`` "bleu-4" (ModelScope swift's is the
same call): ``round(sentence_bleu([list(label)], list(pred), smoothing_function=SmoothingFunction().method3) *
100, 4)`` per sentence with NLTK 3.10, on Python characters (spaces are tokens too), averaged with ``np.mean``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .config import AVERAGES, BLEUConfig, check_average

if TYPE_CHECKING:
    import numpy as np

__all__ = ["AVERAGES", "check_average", "sentence_scores"]


def sentence_scores(
    columns: dict[str, np.ndarray], cfg: BLEUConfig, stats_cls: type, formula: Callable[[Any, Any], Any]
) -> np.ndarray:
    """Each segment's BLEU (the family's ``formula`` on its own ``stats_cls`` statistics), rounded as configured.
    (The BLEU module passes its statistics class and formula, so this module does not import it back.)"""
    import numpy as np

    n = len(columns["hyp_len"])
    if cfg.average != "sentence" or n == 0:
        return np.zeros(n, dtype=np.float64)
    corpus_cfg = dataclasses.replace(cfg, average="corpus", sentence_round=None)
    names = [f.name for f in dataclasses.fields(stats_cls) if f.name != "sentence_sum"]
    rows: dict[str, list[Any]] = {k: columns[k].tolist() for k in names}
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        values: dict[str, Any] = {k: tuple(rows[k][i]) if isinstance(rows[k][i], list) else rows[k][i] for k in names}
        stats = stats_cls(**values, sentence_sum=0.0)
        value = float(formula(stats, corpus_cfg).score)
        out[i] = round(value, cfg.sentence_round) if cfg.sentence_round is not None else value
    return out
