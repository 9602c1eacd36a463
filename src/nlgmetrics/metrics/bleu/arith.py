"""BLEU's formula: the arithmetic of each convention (smoothing, brevity penalty, NLTK's last-sentence tail),
the explanation of a score, and sacrebleu's signature."""

from __future__ import annotations

import dataclasses
import math
import sys
from typing import Any

from ...errors import InvalidInputError
from ...signature import sacrebleu_nrefs
from ...text.mt_tokenize import (
    SACREBLEU_VERSION,
    sacrebleu_tokenizer,
)
from ...text.spm import SPM_MODELS
from ..base import Result
from .config import BLEUConfig, sacrebleu_name
from .stats import BLEUStats

# ====================================================================== formula
_MY_LOG_ZERO = -9999999999  # sacrebleu's and multi-bleu.perl's log(0)


@dataclasses.dataclass(frozen=True, kw_only=True)
class BLEUResult(Result):
    """A BLEU score with the account of how it came about.

    ``precisions`` are the n-gram precisions the geometric mean used (after smoothing), on the result's
    ``scale``; ``matches``/``totals`` the clipped matches and the denominators per order (NLTK's denominators
    count 1 for a segment too short for the order); ``bp`` the brevity penalty; ``hyp_len``/``ref_len`` the
    lengths; ``smoothing`` the method applied and ``smoothed_orders`` the orders whose precision it changed;
    ``effective_order`` how many orders entered the mean; ``reason`` a plain-language account when the score is
    0 or tiny (``None`` otherwise). ``sacrebleu_signature`` is the signature sacrebleu prints for these settings
    (sacrebleu convention only).
    """

    precisions: tuple[float, ...] = ()
    matches: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    bp: float = 0.0
    hyp_len: int = 0
    ref_len: int = 0
    ratio: float = 0.0
    smoothing: str = ""
    smoothed_orders: tuple[int, ...] = ()
    effective_order: int = 0
    scale: float = 100.0
    convention: str = ""
    reason: str | None = None
    sacrebleu_signature: str | None = None

    def explain(self) -> str:
        """The diagnostics as a few lines of plain text (what ``nlgmetrics bleu --explain`` prints).

        >>> from nlgmetrics import bleu
        >>> print(bleu(["a d a"], ["a b c"], preset="moses").explain())  # doctest: +NORMALIZE_WHITESPACE
        BLEU = 0 (moses convention, scale 0-100)
          = BP x exp(sum of w_n log p_n), over 4 order(s)
          order  matches/total  precision
          1      1/3            33.3333
          2      0/2            0
          3      0/1            0
          4      0/0            0
          brevity penalty 1 (hypothesis 3 tokens, reference 3, ratio 1)
          smoothing: none (changed no order)
          why: no prediction is long enough for a 4-gram (the longest has 3); no 2-grams, 3-grams of the
          predictions match the references; multi-bleu.perl has no smoothing: any n-gram precision of 0 makes BLEU 0
        """
        scale = "0-100" if self.scale == 100 else "0-1"
        lines = [
            f"BLEU = {self.score:.6g} ({self.convention} convention, scale {scale})",
            f"  = BP x exp(sum of w_n log p_n), over {self.effective_order} order(s)",
            "  order  matches/total  precision",
        ]
        for n, (m, t, p) in enumerate(zip(self.matches, self.totals, self.precisions, strict=False), 1):
            lines.append(f"  {n:<6} {f'{m}/{t}':<14} {p:.6g}")
        lines.append(
            f"  brevity penalty {self.bp:.6g} (hypothesis {self.hyp_len} tokens, reference {self.ref_len}, "
            f"ratio {self.ratio:.6g})"
        )
        changed = ", ".join(map(str, self.smoothed_orders)) if self.smoothed_orders else "no order"
        lines.append(f"  smoothing: {self.smoothing} (changed {changed})")
        if self.reason:
            lines.append(f"  why: {self.reason}")
        if self.sacrebleu_signature:
            lines.append(f"  sacrebleu signature: {self.sacrebleu_signature}")
        return "\n".join(lines)


@dataclasses.dataclass
class _Arith:
    """What one convention's arithmetic produced, on its native scale (``native``: 100 or 1)."""

    score: float
    native: float
    precision_scale: float
    precisions: list[Any]
    denominators: list[Any]
    bp: float
    used: int
    smoothed: list[int]
    note: str | None = None


def _my_log(value: Any) -> Any:
    return _MY_LOG_ZERO if value == 0.0 else math.log(value)


def _sacrebleu_arith(stats: BLEUStats, cfg: BLEUConfig) -> _Arith:
    """sacrebleu 2.6 ``BLEU.compute_bleu``, step by step (the same operations in the same order, so that
    numpy float32 statistics, as sacrebleu's bootstrap feeds them, give sacrebleu's float32 numbers too)."""
    n_max = cfg.order
    correct = list(stats.matches)
    total = list(stats.totals)
    sys_len, ref_len = int(stats.hyp_len), int(stats.ref_len)
    method = cfg.smoothing
    value: Any = cfg.value
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    precisions: list[Any] = [0.0] * n_max
    if not any(correct):
        return _Arith(0.0, 100.0, 100.0, precisions, total, bp, n_max, [])
    smoothed: list[int] = []
    smooth_mteval = 1.0
    eff_order = n_max
    for n in range(1, n_max + 1):
        if method == "add-k" and n > 1:
            correct[n - 1] += value
            total[n - 1] += value
            smoothed.append(n)
        if total[n - 1] == 0:
            break
        if cfg.effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            if method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
                smoothed.append(n)
            elif method == "floor":
                precisions[n - 1] = 100.0 * value / total[n - 1]  # type: ignore[operator]
                smoothed.append(n)
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    logs = [_my_log(p) for p in precisions[:eff_order]]
    if cfg.weights is None:
        score = bp * math.exp(sum(logs) / eff_order)
    else:
        w = cfg.weights[:eff_order]
        score = bp * math.exp(math.fsum(wi * li for wi, li in zip(w, logs, strict=True)) / math.fsum(w))
    return _Arith(score, 100.0, 100.0, precisions, total, bp, eff_order, sorted(set(smoothed)))


def _nltk_arith(stats: BLEUStats, cfg: BLEUConfig) -> _Arith:
    """NLTK 3.10 ``corpus_bleu`` (and NLTK 3.2's unsmoothed variant), with NLTK's exact mix of ``Fraction`` and
    float arithmetic: each smoothing method keeps or replaces the same values by the same operations."""
    from fractions import Fraction  # only here: its import costs a fresh process more than a small call

    n_max = cfg.order
    weights = cfg.weights if cfg.weights is not None else (1 / n_max,) * n_max
    nums = [int(x) for x in stats.matches]
    dens = [int(t) + int(s) for t, s in zip(stats.totals, stats.short, strict=True)]  # sum of max(1, #n-grams)
    hyp_len, ref_len = int(stats.hyp_len), int(stats.ref_len)
    bp: float = 1 if hyp_len > ref_len else (0 if hyp_len == 0 else math.exp(1 - ref_len / hyp_len))
    method = cfg.smoothing
    if nums[0] == 0:  # NLTK returns 0 before smoothing
        return _Arith(0.0, 1.0, 1.0, [Fraction(0)] * n_max, dens, bp, n_max, [])
    p_n: list[Any] = [Fraction(a, b) for a, b in zip(nums, dens, strict=True)]
    smoothed: list[int] = []
    value: Any = cfg.value
    legacy = cfg.convention == "nltk-3.2"
    if method == "method0":
        if legacy:  # NLTK 3.2: stop the mean at the first order without a match
            cut = next((i for i, a in enumerate(nums) if a == 0), n_max)
            p_n = p_n[:cut]
        else:
            for i, a in enumerate(nums):
                if a == 0:
                    p_n[i] = sys.float_info.min
                    smoothed.append(i + 1)
    elif method == "method1":
        for i, a in enumerate(nums):
            if a == 0:
                p_n[i] = (a + value) / dens[i]
                smoothed.append(i + 1)
    elif method == "method2":
        for i in range(1, n_max):
            p_n[i] = Fraction(nums[i] + 1, dens[i] + 1)
            smoothed.append(i + 1)
    elif method == "method3":
        k = 1
        for i, a in enumerate(nums):
            if a == 0:
                p_n[i] = 1 / (2**k * dens[i])
                k += 1
                smoothed.append(i + 1)
    if method in ("method4", "method7"):
        k = 1
        for i, a in enumerate(nums):
            if a == 0 and hyp_len > 1:
                numerator = 1 / (2**k * value / math.log(hyp_len))  # type: ignore[operator]
                p_n[i] = numerator / dens[i]
                k += 1
                smoothed.append(i + 1)
    if method in ("method5", "method7"):
        _check_tail(stats, method)
        p5 = Fraction(int(stats.tail_matches5), max(1, int(stats.tail_total5)))
        plus1 = [*p_n, p5]
        m: dict[int, Any] = {-1: p_n[0] + 1}
        for i, p_i in enumerate(list(p_n)):
            p_n[i] = (m[i - 1] + p_i + plus1[i + 1]) / 3
            m[i] = p_n[i]
        smoothed = list(range(1, n_max + 1))
    if method == "method6":
        _check_tail(stats, method)
        if n_max < 3 or nums[2] == 0:
            raise InvalidInputError(
                "NLTK's smoothing method6 needs a non-zero trigram precision (NLTK asserts it: 'This smoothing "
                "method requires non-zero precision for bigrams.')"
            )
        last_len = int(stats.tail_hyp_len)
        for i in range(2, n_max):
            pi0 = 0 if p_n[i - 2] == 0 else p_n[i - 1] ** 2 / p_n[i - 2]
            length = max(0, last_len - i)  # the number of (i+1)-grams of the last hypothesis
            p_n[i] = (nums[i] + value * pi0) / (length + value)  # type: ignore[operator]
            smoothed.append(i + 1)
    weight = weights
    if cfg.auto_reweigh and hyp_len < 4 and weights == (0.25, 0.25, 0.25, 0.25):
        weight = (1 / hyp_len,) * hyp_len
    if legacy:
        s = [w * math.log(p) for w, p in zip(weight, p_n, strict=False)]
    else:
        s = [w * math.log(p) for w, p in zip(weight, p_n, strict=False) if p > 0]
    score = bp * math.exp(math.fsum(s))
    used = min(len(weight), len(p_n))
    return _Arith(score, 1.0, 1.0, p_n + [Fraction(0)] * (n_max - len(p_n)), dens, bp, used, smoothed)


def _check_tail(stats: BLEUStats, method: str) -> None:
    if int(stats.tail) > 1:
        raise InvalidInputError(
            f"NLTK's smoothing {method} reads the corpus's last sentence, which these statistics cannot tell: they "
            "were summed without order (a bootstrap resample, or statistics added by hand). Score the corpus in one "
            "call, with the stateful or torch metric, or on an engine: each keeps it."
        )


def _moses_arith(stats: BLEUStats, cfg: BLEUConfig) -> _Arith:
    """multi-bleu.perl's final lines, in its order of operations."""
    n_max = cfg.order
    correct, total = [int(x) for x in stats.matches], [int(x) for x in stats.totals]
    precisions = [c / t if t else 0 for c, t in zip(correct, total, strict=True)]
    hyp_len, ref_len = int(stats.hyp_len), int(stats.ref_len)
    if ref_len == 0:
        note = "the reference length is 0: multi-bleu.perl prints 'BLEU = 0' and exits with status 1"
        return _Arith(0.0, 100.0, 1.0, precisions, total, 0.0, n_max, [], note)
    bp = 1.0
    if hyp_len < ref_len:
        if hyp_len == 0:
            note = "the hypotheses are empty: multi-bleu.perl dies here ('Illegal division by zero')"
            return _Arith(0.0, 100.0, 1.0, precisions, total, 0.0, n_max, [], note)
        bp = math.exp(1 - ref_len / hyp_len)
    logs = [_my_log(p) for p in precisions]
    if cfg.weights is None:
        bleu_value = bp * math.exp(sum(logs) / n_max)
    else:
        bleu_value = bp * math.exp(math.fsum(w * lg for w, lg in zip(cfg.weights, logs, strict=True)))
    return _Arith(100 * bleu_value, 100.0, 1.0, precisions, total, bp, n_max, [])


def _nmt_arith(stats: BLEUStats, cfg: BLEUConfig) -> _Arith:
    """tensorflow/nmt ``compute_bleu`` (HF evaluate's ``bleu``), in its order of operations."""
    n_max = cfg.order
    matches, possible = [int(x) for x in stats.matches], [int(x) for x in stats.totals]
    add_one = cfg.smoothing == "add-one"
    precisions = [0.0] * n_max
    for i in range(n_max):
        if add_one:  # every order, unigrams included (tensorflow/nmt master, as HF evaluate runs it)
            precisions[i] = (matches[i] + 1.0) / (possible[i] + 1.0)
        elif possible[i] > 0:
            precisions[i] = float(matches[i]) / possible[i]
    smoothed = list(range(1, n_max + 1)) if add_one else []
    weights = cfg.weights if cfg.weights is not None else (1.0 / n_max,) * n_max
    geo_mean = (
        math.exp(sum(w * math.log(p) for w, p in zip(weights, precisions, strict=True))) if min(precisions) > 0 else 0.0
    )
    hyp_len, ref_len = int(stats.hyp_len), int(stats.ref_len)
    if hyp_len == 0 or ref_len == 0:
        side = "hypotheses" if hyp_len == 0 else "references"
        note = f"the {side} are empty: tensorflow/nmt's compute_bleu (HF evaluate's bleu) divides by zero here"
        return _Arith(0.0, 1.0, 1.0, precisions, possible, 0.0, n_max, smoothed, note)
    ratio = float(hyp_len) / ref_len
    bp = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
    return _Arith(geo_mean * bp, 1.0, 1.0, precisions, possible, bp, n_max, smoothed)


def _torchmetrics_arith(stats: BLEUStats, cfg: BLEUConfig) -> _Arith:
    """torchmetrics ``_bleu_score_compute`` (``BLEUScore``, ``SacreBLEUScore``), in float64."""
    n_max = cfg.order
    num, den = [int(x) for x in stats.matches], [int(x) for x in stats.totals]
    hyp_len, ref_len = int(stats.hyp_len), int(stats.ref_len)
    bp = 1.0 if hyp_len > ref_len else (math.exp(1 - ref_len / hyp_len) if hyp_len else 0.0)
    if min(num) == 0:
        return _Arith(0.0, 1.0, 1.0, [n / d if d else 0.0 for n, d in zip(num, den, strict=True)], den, bp, n_max, [])
    k: Any = cfg.value if cfg.smoothing == "add-k" else None
    precisions = [num[0] / den[0]] + [
        (n + k) / (d + k) if k is not None else n / d for n, d in zip(num[1:], den[1:], strict=True)
    ]
    smoothed = list(range(2, n_max + 1)) if k is not None else []
    weights = cfg.weights if cfg.weights is not None else (1.0 / n_max,) * n_max
    score = bp * math.exp(math.fsum(w * math.log(p) for w, p in zip(weights, precisions, strict=True)))
    return _Arith(score, 1.0, 1.0, precisions, den, bp, n_max, smoothed)


def _coco_arith(stats: BLEUStats, cfg: BLEUConfig) -> _Arith:
    """pycocoevalcap's ``BleuScorer.compute_score``: the running product of ``(matches + tiny) / (total + small)``
    and its ``1/k``-th power, then the brevity penalty from ``(hyp_len + tiny) / (ref_len + small)``."""
    if cfg.weights is not None:
        raise InvalidInputError("the coco convention has no weights (pycocoevalcap's BLEU-n is a plain geometric mean)")
    small, tiny = 1e-9, 1e-15
    correct, total = [int(x) for x in stats.matches], [int(x) for x in stats.totals]
    product = 1.0
    for k in range(cfg.order):
        product *= float(correct[k] + tiny) / (total[k] + small)
    score = product ** (1.0 / cfg.order)
    ratio = (int(stats.hyp_len) + tiny) / (int(stats.ref_len) + small)
    bp = math.exp(1 - 1 / ratio) if ratio < 1 else 1.0
    if ratio < 1:
        score *= bp
    precisions = [c / t if t else 0.0 for c, t in zip(correct, total, strict=True)]
    return _Arith(score, 1.0, 1.0, precisions, total, bp, cfg.order, [])


_ARITHMETIC = {
    "sacrebleu": _sacrebleu_arith,
    "nltk": _nltk_arith,
    "nltk-3.2": _nltk_arith,
    "moses": _moses_arith,
    "nmt": _nmt_arith,
    "torchmetrics": _torchmetrics_arith,
    "coco": _coco_arith,
}


def _reason(stats: BLEUStats, cfg: BLEUConfig, arith: _Arith, score: float) -> str | None:
    """A plain-language account of a score of 0 or a tiny score (under 1e-4 of the scale)."""
    if score != 0 and abs(score) >= 1e-4 * float(cfg.scale or 1):
        return None
    parts = []
    if arith.note:
        parts.append(arith.note)
    hyp_len, matches, totals = int(stats.hyp_len), [int(x) for x in stats.matches], [int(x) for x in stats.totals]
    if int(stats.n_segments) == 0:
        return "no segment was scored"
    if hyp_len == 0:
        parts.append("the predictions hold no token, so nothing can match")
    elif matches[0] == 0:
        parts.append("no unigram of the predictions appears in the references")
    else:
        missing = [n for n in range(1, cfg.order + 1) if totals[n - 1] == 0]
        zero = [n for n in range(1, cfg.order + 1) if matches[n - 1] == 0 and totals[n - 1] > 0]
        if missing:
            parts.append(
                f"no prediction is long enough for a {missing[0]}-gram (the longest has {hyp_len}"
                f"{'' if int(stats.n_segments) == 1 else ' tokens in total'})"
            )
        if zero:
            orders = ", ".join(f"{n}-grams" for n in zero)
            parts.append(f"no {orders} of the predictions match the references")
        parts.append(_convention_effect(cfg, arith, missing, zero))
    if arith.bp < 0.5 and hyp_len:
        parts.append(
            f"the predictions are much shorter than the references ({hyp_len} vs {int(stats.ref_len)} tokens): "
            f"the brevity penalty is {arith.bp:.3g}"
        )
    return "; ".join(p for p in parts if p) or None


def _convention_effect(cfg: BLEUConfig, arith: _Arith, missing: list[int], zero: list[int]) -> str:
    if cfg.convention == "sacrebleu":
        if cfg.smoothing == "none" and (zero or missing) and not cfg.effective_order:
            return "without smoothing sacrebleu takes log(0) as -9999999999, so the geometric mean is 0"
        if missing and not cfg.effective_order:
            return (
                f"sacrebleu stops at the first order without n-grams and, without effective_order, counts the "
                f"orders from {missing[0]} on as 0, so the score is 0"
            )
        if zero and cfg.smoothing == "exp":
            return f"exp smoothing replaces each zero precision by 1/(2^k · total) (orders {arith.smoothed})"
        return ""
    if cfg.convention == "moses":
        return "multi-bleu.perl has no smoothing: any n-gram precision of 0 makes BLEU 0"
    if cfg.convention == "nmt":
        return "tensorflow/nmt (HF evaluate's bleu) gives 0 when any n-gram precision is 0 (smooth=True avoids it)"
    if cfg.convention == "torchmetrics":
        return "torchmetrics gives 0 as soon as one order has no match, even with smooth=True"
    if cfg.convention == "nltk-3.2":
        return f"NLTK 3.2 stops the geometric mean at the first order without a match (after {arith.used} order(s))"
    if cfg.smoothing == "method0" and (zero or missing):
        return (
            "without smoothing NLTK replaces each zero precision by sys.float_info.min (2.2e-308), so the score is "
            "tiny rather than 0 (NLTK 3.2 stopped at the first zero order instead; see the nltk-3.2 preset)"
        )
    return ""


def _sacrebleu_signature(stats: BLEUStats, cfg: BLEUConfig) -> str | None:
    sacre = sacrebleu_name(cfg.tokenizer)
    if cfg.convention != "sacrebleu" or sacre is None or cfg.weights is not None:
        return None
    nrefs = sacrebleu_nrefs(stats)
    cached = cfg.__dict__.get("_nlgm_sacrebleu_signature")
    if cached is not None and cached[0] == nrefs:
        return cached[1]  # type: ignore[no-any-return]
    signature = _build_sacrebleu_signature(nrefs, cfg)
    object.__setattr__(cfg, "_nlgm_sacrebleu_signature", (nrefs, signature))
    return signature


def _build_sacrebleu_signature(nrefs: Any, cfg: BLEUConfig) -> str:
    smooth = str(cfg.smoothing)
    if smooth in ("floor", "add-k"):
        smooth += f"[{cfg.value:.2f}]"
    sacre = sacrebleu_name(cfg.tokenizer)
    assert sacre is not None  # checked by the caller
    tok = SPM_MODELS[sacre].signature if sacre in SPM_MODELS else sacrebleu_tokenizer(sacre).signature
    return (
        f"nrefs:{nrefs}|case:{'lc' if cfg.lowercase else 'mixed'}|eff:{'yes' if cfg.effective_order else 'no'}"
        f"|tok:{tok}|smooth:{smooth}|version:{SACREBLEU_VERSION}"
    )


def convention_score(stats: BLEUStats, cfg: BLEUConfig) -> float:
    """The score of ``cfg.convention``'s arithmetic alone, at its native scale: no counts and no explanation (what a
    suite scoring each segment needs, e.g. COCO's per-image BLEU-1..4)."""
    return _ARITHMETIC[cfg.convention](stats, cfg).score


def bleu_from_stats(stats: BLEUStats, cfg: BLEUConfig) -> BLEUResult:
    """The BLEU formula of ``cfg.convention`` applied to summed statistics."""
    arith = _ARITHMETIC[cfg.convention](stats, cfg)
    scale = float(cfg.scale or 1)
    factor = scale / arith.native
    score = arith.score * factor if factor != 1 else arith.score
    if cfg.average == "sentence":  # the mean of the segments' own BLEU (metrics/bleu/sentence.py)
        score = stats.sentence_sum / int(stats.n_segments) if int(stats.n_segments) else 0.0
    hyp_len, ref_len = int(stats.hyp_len), int(stats.ref_len)
    p_factor = scale / arith.precision_scale
    return BLEUResult(
        score=score,
        precisions=tuple([float(p) * p_factor for p in arith.precisions]),
        matches=tuple([int(x) for x in stats.matches]),
        totals=tuple([int(x) for x in arith.denominators]),
        bp=float(arith.bp),
        hyp_len=hyp_len,
        ref_len=ref_len,
        ratio=hyp_len / ref_len if ref_len else 0.0,
        smoothing=str(cfg.smoothing),
        smoothed_orders=tuple(arith.smoothed),
        effective_order=arith.used,
        scale=scale,
        convention=cfg.convention,
        reason=_reason(stats, cfg, arith, score),
        sacrebleu_signature=_sacrebleu_signature(stats, cfg),
    )
