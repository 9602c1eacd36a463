"""TER: translation edit rate with Tercom's shifts, exactly as sacrebleu 2.6 computes it.

Preset ``sacrebleu`` (the only one) reproduces ``sacrebleu.metrics.TER(normalized, no_punct, asian_support,
case_sensitive)``'s ``corpus_score`` (``sacrebleu -m ter``): the text is normalised by Tercom's rules
(lowercased unless ``case_sensitive``; with ``normalized`` punctuation is tokenized, with ``asian_support`` CJK
characters split; with ``no_punct`` punctuation removed), the edits of each segment are the fewest over its
references, the reference length is the average of its references' lengths, and
``TER = 100 * sum(edits) / sum(reference lengths)`` (100 when the references are empty and the hypotheses are
not, 0 when both are). Lower is better.

The shift search and the beam edit distance are sacrebleu's (:mod:`nlgmetrics.algorithms.ter`); segments are
independent, so ``workers`` > 1 spreads them over processes (it changes the time, never the number).

Preset ``torchmetrics`` (``convention="torchmetrics"``) reproduces torchmetrics' ``translation_edit_rate`` /
``TranslationEditRate(normalize, no_punctuation, lowercase, asian_support)`` (there on 0-1). torchmetrics runs the
same Tercom search with the two sides exchanged (``_translation_edit_rate(tgt_words, pred_words)``: the reference
is shifted towards the prediction), and an empty prediction then costs no edit at all; both are reproduced (which
is why its TER of a segment can differ from sacrebleu's), and so is its 0-1 scale.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import multiprocessing
import os
import sys
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .._inputs import ReferenceSets
from ..algorithms.guard import check_pairs
from ..algorithms.ter import ter_edits
from ..errors import InvalidInputError, unknown_option
from ..signature import sacrebleu_nrefs, sig_field
from ..stats import Stats, StatsBatch
from ..text.coverage import warn_unsplit_cjk
from ..text.mt_tokenize import SACREBLEU_VERSION, tercom_normalize
from .base import MAX_WORKERS, Family, Result

__all__ = ["TER", "TERConfig", "TERResult", "TERStats", "sentence_ter", "ter", "ter_from_stats"]

#: Below this many segment-reference pairs, worker processes cost more than they save.
_MIN_PAIRS_FOR_PROCESSES = 400
CONVENTIONS = ("sacrebleu", "torchmetrics")


@dataclasses.dataclass(frozen=True)
class TERConfig:
    """Options of TER (sacrebleu's): ``normalized``, ``no_punct``, ``asian_support``, ``case_sensitive``.
    ``workers``: processes for large inputs (1: none; ``None``: one per CPU); it never changes the score."""

    normalized: bool = sig_field("norm", False, help="Tercom normalisation: tokenize punctuation")
    no_punct: bool = sig_field("nopunct", False, help="remove punctuation")
    asian_support: bool = sig_field(
        "asian", False, help="split CJK characters (with --normalized), remove CJK punctuation (with --no-punct)"
    )
    case_sensitive: bool = sig_field("case", False, help="do not lowercase")
    convention: str = sig_field(
        "conv",
        "sacrebleu",
        help="sacrebleu (2.6) or torchmetrics (its sides exchanged)",
        choices=CONVENTIONS,
        role="convention",
    )
    preset: str | None = sig_field("preset", None)
    workers: int | None = sig_field(None, 1, help="processes for large inputs (never changes the score)")

    def __post_init__(self) -> None:
        for flag in ("normalized", "no_punct", "asian_support", "case_sensitive"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidInputError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.convention not in CONVENTIONS:
            raise unknown_option("TER convention", self.convention, list(CONVENTIONS))
        if self.workers is not None and (
            isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1
        ):
            raise InvalidInputError(f"workers must be a positive integer or None, got {self.workers!r}")
        if self.workers is not None and self.workers > MAX_WORKERS:
            raise InvalidInputError(f"workers must be <= {MAX_WORKERS}, got {self.workers!r}")


@dataclasses.dataclass(frozen=True)
class TERStats(Stats):
    """The fewest edits over the segment's references, the average length of its references, and the number
    of segments and references (with the sum of squared reference counts, for sacrebleu's ``nrefs``)."""

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (("n_segments", "n_refs"), ("n_refs", "n_refs_sq"))

    edits: int
    ref_length: float
    n_segments: int
    n_refs: int
    n_refs_sq: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class TERResult(Result):
    """TER (0-100 and beyond; lower is better) with the summed ``num_edits`` and ``ref_length``, and the
    signature sacrebleu prints (``sacrebleu_signature``)."""

    num_edits: Any = 0
    ref_length: Any = 0.0
    sacrebleu_signature: str | None = None


def _rate(edits: Any, ref_length: Any) -> Any:
    if isinstance(ref_length, np.ndarray):
        out = np.where(edits > 0, 1.0, 0.0)
        return 100 * np.divide(edits, ref_length, out=out, where=ref_length > 0)
    if ref_length > 0:
        score = edits / ref_length
    elif edits > 0:
        score = 1.0  # empty reference(s) and a non-empty hypothesis
    else:
        score = 0.0
    return 100 * score


def ter_from_stats(stats: TERStats, cfg: TERConfig) -> TERResult:
    """sacrebleu's TER formula on summed statistics (or, vectorised, per segment); torchmetrics' is the same."""
    score = _rate(stats.edits, stats.ref_length)
    if cfg.convention == "torchmetrics":  # torchmetrics' TER is on 0-1
        score = score / 100
    if isinstance(score, np.ndarray) or cfg.convention != "sacrebleu":
        return TERResult(score=score, num_edits=stats.edits, ref_length=stats.ref_length)
    yes = {True: "yes", False: "no"}
    signature = (
        f"nrefs:{sacrebleu_nrefs(stats)}|case:{'mixed' if cfg.case_sensitive else 'lc'}|tok:tercom"
        f"|norm:{yes[cfg.normalized]}"
        f"|punct:{yes[not cfg.no_punct]}|asian:{yes[cfg.asian_support]}|version:{SACREBLEU_VERSION}"
    )
    return TERResult(
        score=score, num_edits=int(stats.edits), ref_length=stats.ref_length, sacrebleu_signature=signature
    )


def _words(lines: Sequence[str], cfg: TERConfig) -> list[list[str]]:
    options = {
        "normalized": cfg.normalized,
        "no_punct": cfg.no_punct,
        "asian_support": cfg.asian_support,
        "case_sensitive": cfg.case_sensitive,
    }
    return [tercom_normalize(line.rstrip(), **options).split() for line in lines]


def _edits_of_pairs(pairs: list[tuple[list[str], list[str]]]) -> list[int]:
    return [ter_edits(h, r) for h, r in pairs]


def _pool_size(cfg: TERConfig, n_pairs: int) -> int:
    workers = cfg.workers if cfg.workers is not None else (os.cpu_count() or 1)
    return workers if workers > 1 and n_pairs >= _MIN_PAIRS_FOR_PROCESSES else 1


def _all_edits(pairs: list[tuple[list[str], list[str]]], cfg: TERConfig) -> list[int]:
    workers = _pool_size(cfg, len(pairs))
    if workers == 1:
        return _edits_of_pairs(pairs)
    # interleaved chunks balance long and short segments; results come back in order
    chunks = [pairs[k::workers] for k in range(workers)]
    # fork where it is safe and cheap (Linux: the workers run pure Python and rapidfuzz), spawn elsewhere
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    context = multiprocessing.get_context(method)
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        parts = list(pool.map(_edits_of_pairs, chunks))
    out = [0] * len(pairs)
    for k, part in enumerate(parts):
        out[k::workers] = part
    return out


def _ter_cjk_fix(japanese: bool) -> str:
    return "use asian_support=True (sacrebleu --ter-asian-support; HF evaluate: support_zh_ja_chars=True)"


def _ter_kernel(preds: list[str], refs: ReferenceSets, cfg: TERConfig) -> StatsBatch[TERStats]:
    if not cfg.asian_support:
        warn_unsplit_cjk("ter", "tercom", preds, refs, _ter_cjk_fix)
    hyp_words = _words(preds, cfg)
    ref_words = _words(refs.flat, cfg)
    counts = refs.counts().astype(np.int64)
    seg_of_ref = np.repeat(np.arange(len(preds), dtype=np.int64), counts).tolist()
    hyp_len = np.fromiter(map(len, hyp_words), dtype=np.int64, count=len(hyp_words))
    ref_len = np.fromiter(map(len, ref_words), dtype=np.int64, count=len(ref_words))
    check_pairs("ter", "ter", hyp_len[seg_of_ref], ref_len, seg_of_ref)
    if cfg.convention == "torchmetrics":  # the sides exchanged; an empty prediction costs nothing
        pairs = [(ref_words[k], hyp_words[s]) for k, s in enumerate(seg_of_ref)]
    else:
        pairs = [(hyp_words[s], ref_words[k]) for k, s in enumerate(seg_of_ref)]
    edits = _all_edits(pairs, cfg)
    if cfg.convention == "torchmetrics":
        edits = [e if hyp_words[s] else 0 for e, s in zip(edits, seg_of_ref, strict=True)]
    best = [0] * len(preds)
    total_len = [0] * len(preds)
    seen = [False] * len(preds)
    for k, s in enumerate(seg_of_ref):
        if not seen[s] or edits[k] < best[s]:
            best[s] = edits[k]
            seen[s] = True
        total_len[s] += len(ref_words[k])
    ref_length = np.asarray(total_len, dtype=np.float64) / counts  # sacrebleu: sum / number of references
    ones = np.ones(len(preds), dtype=np.int64)
    return StatsBatch(
        TERStats,
        {
            "edits": np.asarray(best, dtype=np.int64),
            "ref_length": ref_length,
            "n_segments": ones,
            "n_refs": counts,
            "n_refs_sq": counts * counts,
        },
    )


TER: Family[TERConfig, TERStats, TERResult] = Family(
    cache_configs=True,
    name="ter",
    higher_is_better=False,
    bounds=(0.0, None),
    config_cls=TERConfig,
    stats_cls=TERStats,
    kernel=_ter_kernel,
    formula=ter_from_stats,
    presets={"sacrebleu": {}, "torchmetrics": {"convention": "torchmetrics"}},
    default_preset="sacrebleu",
    vectorized=True,
)


ter = TER.function(
    "ter",
    __name__,
    """Corpus TER, identical to sacrebleu 2.6 (lower is better).

    >>> r = ter(["a b c d e"], ["c d a b e"])
    >>> r.score, r.num_edits, r.ref_length
    (20.0, 1, 5.0)
    """,
)


def sentence_ter(
    prediction: str, references: str | Sequence[str], *, preset: str | None = None, **options: Any
) -> TERResult:
    """TER of one sentence against its reference(s) (sacrebleu's ``sentence_ter``)."""
    cfg = TER.make_config(preset, **options)
    refs = [references] if isinstance(references, str) else [list(references)]
    return TER.finalize(TER.batch_stats([prediction], refs, cfg).total(), cfg)
