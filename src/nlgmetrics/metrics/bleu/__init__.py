"""BLEU: corpus and sentence BLEU under every common convention, each reproduced exactly.

The statistics of a segment are its clipped n-gram matches and n-gram totals per order, its length and the
length of its closest reference; the corpus score comes from their sum. Four *conventions* turn summed statistics
into a score; the presets pick one together with the tokenizer and smoothing of its reference tool:

``sacrebleu`` (default; scale 0-100)
    ``sacrebleu.BLEU(...).corpus_score(hyps, [refs])`` of sacrebleu 2.6.0 (``sacrebleu -tok 13a``), and with
    :func:`sentence_bleu` its ``sentence_score`` / ``sacrebleu.sentence_bleu`` (effective order on). Tokenizers
    ``13a`` (default), ``intl``, ``zh``, ``char``, ``ja-mecab``, ``ko-mecab``, ``none``; smoothing ``exp``
    (default), ``floor``, ``add-k``, ``none``; ``effective_order``; ``lowercase``. The result also carries the
    signature sacrebleu prints (``sacrebleu_signature``).
``nltk`` (scale 0-1)
    ``nltk.translate.bleu_score.corpus_bleu(list_of_references, hypotheses, weights, smoothing_function,
    auto_reweigh)`` of NLTK 3.10 on whitespace-split text, and :func:`sentence_bleu` its ``sentence_bleu``.
    Smoothing ``method0`` (default) ... ``method7`` of ``SmoothingFunction(epsilon, alpha, k)``, any weights,
    ``auto_reweigh``. NLTK counts ``max(1, #n-grams)`` in each segment's denominator, replaces a zero precision
    by ``sys.float_info.min`` without smoothing (hence scores like 1.4e-231), and smooths a corpus with the
    length and 5-gram precision of its *last* sentence (methods 5-7); all of this is reproduced.
``nltk-3.2`` (scale 0-1)
    NLTK 3.2's ``corpus_bleu`` without smoothing, which stopped the geometric mean at the first order without a
    match (``sentence_bleu([["a", "b", "c"]], ["a", "d", "a"])`` gave ``exp(log(1/3) / 4) = 0.7598``).
``moses`` (scale 0-100)
    ``multi-bleu.perl [-lc] reference < hypothesis`` of Moses: text split on ASCII whitespace as Perl splits,
    ``-lc`` lowercasing ASCII letters only, no smoothing (any precision of 0 makes BLEU 0), and the script's
    closest-reference rule (a reference more than 9999 tokens away is never the closest).
``nmt`` (scale 0-1)
    tensorflow/nmt's ``compute_bleu(reference_corpus, translation_corpus, max_order, smooth)``
    (``nmt/scripts/bleu.py`` on its ``master``, 0be8642), which Hugging Face ``evaluate``'s ``bleu`` fetches as
    ``nmt_bleu.py`` and runs after its copy of sacrebleu's 13a tokenizer
    (``evaluate.load("bleu").compute(predictions, references, max_order, smooth)``): the *shortest* reference
    length, precisions ``matches / possible`` (0 for an order without n-grams), BLEU 0 when any precision is 0,
    ``smoothing="add-one"`` for its ``smooth=True`` (``(m + 1) / (p + 1)`` for every order, unigrams included),
    and ``BP = exp(1 - 1 / ratio)``.
``torchmetrics`` (scale 0-1)
    torchmetrics' ``bleu_score`` / ``BLEUScore(n_gram, smooth, weights)`` (whitespace tokens) and, with a sacrebleu
    tokenizer, ``SacreBLEUScore(tokenize, lowercase)``: BLEU 0 as soon as one order has no match,
    ``smoothing="add-k"`` for its ``smooth=True`` (``(m + 1) / (p + 1)`` from bigrams on), weights, and the
    closest reference length with ties going to the *first* reference (not the shorter one). torchmetrics sums in
    float32; these numbers are the float64 ones (they agree to float32 precision).
``coco`` (scale 0-1)
    pycocoevalcap 1.2 ``Bleu(4).compute_score(gts, res)`` (the COCO caption evaluation) on captions tokenized by
    its ``PTBTokenizer`` (tokenizer ``coco``): the closest reference length (ties to the shorter), and its
    arithmetic ``prod_k (matches_k + 1e-15) / (total_k + 1e-9)`` to the power ``1/n``, times
    ``exp(1 - 1/ratio)`` when ``ratio = (hyp_len + 1e-15) / (ref_len + 1e-9)`` is below 1. BLEU-1 ... BLEU-3
    are the same arithmetic with ``max_order`` 1 ... 3 (what :func:`nlgmetrics.coco` reports); the per-segment
    scores are pycocoevalcap's per-image scores.

Why the conventions disagree on the same input, with a table, is in ``docs/bleu.md``.

Additivity of the statistics: every count adds. NLTK's ``corpus_bleu`` also reads the *last* sentence of the
corpus (smoothing methods 5-7); that information travels in four ``tail_*`` fields that do not add: ``+`` keeps
the right operand's tail (the later data), and a batch's total keeps its last segment's. So the statistics of a
corpus are still the ordered sum of its segments', batching changes nothing, and the stateful metric reproduces
NLTK exactly; a sum that cannot know the last sentence (a torch/DDP all-reduce) is detected (``tail`` > 1) and
refused by those three methods only.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..._inputs import ReferenceSets
from ..._np import loaded
from ...algorithms.native import has_native, native
from ...algorithms.refcache import ReferenceCache, disk_cache_set
from ...errors import InvalidInputError, unknown_option
from ...signature import sig_field
from ...stats import Stats, StatsBatch
from ...text import get_tokenizer
from ...text.coverage import warn_unsplit_cjk
from ...text.mt_tokenize import (
    SACREBLEU_TOKENIZERS,
    SACREBLEU_VERSION,
    perl_lowercase,
    perl_split,
    sacrebleu_tokenizer,
)
from ...text.registry import check_tokenizer_name, resolve_ja_mecab
from ...text.spm import SPM_MODELS, SPM_NAMES, canonical, spm_tokenizer
from ..base import MAX_ORDER, Family, Result, check_integer, check_number

# numpy (and the n-gram index built on it) is imported where a path needs it: a fresh process scoring a corpus on
# the compiled counters takes the row path and never imports it
if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "BLEU",
    "CONVENTIONS",
    "SACREBLEU_VERSION",
    "BLEUConfig",
    "BLEUResult",
    "BLEUStats",
    "bleu",
    "bleu_from_stats",
    "sentence_bleu",
]


CONVENTIONS = ("sacrebleu", "nltk", "nltk-3.2", "moses", "coco", "nmt", "torchmetrics")
_SMOOTHING = {
    "sacrebleu": ("exp", "floor", "add-k", "none"),
    "nltk": tuple(f"method{i}" for i in range(8)),
    "nltk-3.2": ("method0",),
    "moses": ("none",),
    "nmt": ("none", "add-one"),
    "torchmetrics": ("none", "add-k"),
    "coco": ("none",),
}
_DEFAULTS = {  # convention -> (tokenizer, smoothing, scale)
    "sacrebleu": ("13a", "exp", 100.0),
    "nltk": ("whitespace", "method0", 1.0),
    "nltk-3.2": ("whitespace", "method0", 1.0),
    "moses": ("perl-whitespace", "none", 100.0),
    "nmt": ("13a", "none", 1.0),
    "torchmetrics": ("whitespace", "none", 1.0),
    "coco": ("coco", "none", 1.0),
}
#: Default smoothing values: sacrebleu's floor and add-k; NLTK's SmoothingFunction(epsilon=0.1, alpha=5, k=5).
_SMOOTH_DEFAULTS: dict[str, float | int] = {
    "floor": 0.1,
    "add-k": 1,
    "method1": 0.1,
    "method4": 5,
    "method6": 5,
    "method7": 5,
}
_REF_LENGTHS = ("closest", "shortest", "longest")
_MY_LOG_ZERO = -9999999999  # sacrebleu's and multi-bleu.perl's log(0)
_TAIL_ORDER = 5  # NLTK's method5 reads the last sentence's 5-gram precision, whatever the maximum order


# ====================================================================== config
def sacrebleu_name(tokenizer: str | None) -> str | None:
    """sacrebleu's name of a BLEU tokenizer (``"ja-mecab-ipadic"`` is its ``"ja-mecab"``), or ``None`` for a
    tokenizer sacrebleu does not have."""
    if tokenizer == "ja-mecab-ipadic":
        return "ja-mecab"
    if tokenizer in SPM_MODELS:  # spBLEU: sacrebleu's flores101, flores200, spBLEU-1K (text/spm.py)
        return tokenizer
    return tokenizer if tokenizer in SACREBLEU_TOKENIZERS and tokenizer != "ja-mecab" else None


def _VALID_TOKENIZERS() -> list[str]:
    from ...text.registry import public_tokenizers

    return sorted({*SACREBLEU_TOKENIZERS, *SPM_NAMES, "whitespace", "perl-whitespace", *public_tokenizers()})


@dataclasses.dataclass(frozen=True)
class BLEUConfig:
    """Options of BLEU. ``None`` means "the convention's default".

    * ``convention``: ``"sacrebleu"``, ``"nltk"``, ``"nltk-3.2"``, ``"moses"``, ``"nmt"`` (tensorflow/nmt, HF
      evaluate's ``bleu``) or ``"torchmetrics"`` (how statistics become a score).
    * ``tokenizer``: a sacrebleu tokenizer (``"13a"``, ``"intl"``, ``"zh"``, ``"char"``, ``"ja-mecab"`` — stored
      and signed as ``"ja-mecab-ipadic"``, MeCab with the IPA dictionary as in sacrebleu —,
      ``"ko-mecab"``, ``"none"``), ``"whitespace"`` (``str.split``), ``"perl-whitespace"`` (Perl's ``split``)
      or any registered tokenizer.
    * ``lowercase``: lowercase first (ASCII letters only under ``moses``, as Perl's ``lc`` on bytes).
    * ``max_order`` and ``weights`` (one per order; default uniform).
    * ``smoothing`` and ``smooth_value``: sacrebleu's ``exp``/``floor``/``add-k``/``none`` with the floor value or
      k; NLTK's ``method0``-``method7`` with epsilon (method1), k (methods 4, 7) or alpha (method 6); nmt's
      ``add-one``; torchmetrics' ``add-k`` (k = 1 by default).
    * ``effective_order`` (sacrebleu): leave out the orders no n-gram of the hypothesis reaches.
    * ``auto_reweigh`` (NLTK): uniform weights over the hypothesis length when it is shorter than 4 tokens and the
      weights are the default (0.25, 0.25, 0.25, 0.25).
    * ``ref_length``: ``"closest"`` (every convention; ties go to the shorter reference, under ``torchmetrics`` to
      the first one), ``"shortest"``
      (tensorflow/nmt and the ``bleu`` of HF evaluate) or ``"longest"``.
    * ``scale``: 100 (scores in 0-100) or 1 (in 0-1).
    """

    convention: str = sig_field("conv", "sacrebleu")
    tokenizer: str | None = sig_field("tok", None)
    lowercase: bool = sig_field("lc", False)
    max_order: int | None = sig_field("n", None)
    weights: tuple[float, ...] | None = sig_field("w", None)
    smoothing: str | None = sig_field("smooth", None)
    smooth_value: float | None = sig_field("sv", None)
    effective_order: bool = sig_field("eff", False)
    auto_reweigh: bool = sig_field("rew", False)
    ref_length: str = sig_field("ref", "closest")
    scale: float | None = sig_field("scale", None)
    average: str = sig_field("avg", "corpus", choices=("corpus", "sentence"))  # metrics/bleu/sentence.py
    sentence_round: int | None = sig_field("sround", None)
    preset: str | None = sig_field("preset", None)
    #: spBLEU: the SentencePiece model file of the flores101/flores200/spBLEU-1K tokenizers (default: the file
    #: sacrebleu would use); never in the signature, which names the model by its digest (``spm``)
    spm_model: str | None = sig_field(
        None, None, help="spBLEU's SentencePiece model file (default: where sacrebleu keeps it; never downloaded)"
    )
    spm: str | None = sig_field("spm", None, metadata={"cli": False, "omit_none": True})

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise unknown_option("BLEU convention", self.convention, list(CONVENTIONS))
        tokenizer, smoothing, scale = _DEFAULTS[self.convention]
        _set = object.__setattr__
        if self.tokenizer is None:
            _set(self, "tokenizer", tokenizer)
        if self.smoothing is None:
            _set(self, "smoothing", smoothing)
        if self.scale is None:
            _set(self, "scale", scale)
        if not isinstance(self.tokenizer, str):
            raise InvalidInputError(f"tokenizer must be a name, got {self.tokenizer!r}")
        check_tokenizer_name(self.tokenizer, _VALID_TOKENIZERS())
        # "ja-mecab" is sacrebleu's: MeCab with the IPA dictionary; the signature names the dictionary
        _set(self, "tokenizer", resolve_ja_mecab(self.tokenizer, "ja-mecab-ipadic"))
        if self.tokenizer in SPM_NAMES:  # spBLEU: the model is loaded now (a missing file fails here)
            digest = spm_tokenizer(self.tokenizer, self.spm_model).digest  # errors name the tokenizer as given
            _set(self, "tokenizer", canonical(self.tokenizer))
            if self.spm is not None and self.spm != digest:
                raise InvalidInputError(
                    f"spm={self.spm!r} names another SentencePiece model than the one loaded (digest {digest})"
                )
            _set(self, "spm", digest)
        elif self.spm_model is not None or self.spm is not None:
            raise InvalidInputError(
                f"spm_model is the model of the SentencePiece tokenizers ({', '.join(SPM_MODELS)}); the "
                f"{self.tokenizer!r} tokenizer takes none"
            )
        sacre = sacrebleu_name(self.tokenizer)
        if self.tokenizer in SPM_MODELS:
            pass
        elif sacre is not None:
            sacrebleu_tokenizer(sacre)  # fail early: unknown name or missing MeCab
        else:
            get_tokenizer(self.tokenizer)
        for flag in ("lowercase", "effective_order", "auto_reweigh"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidInputError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        self._check_orders()
        valid = _SMOOTHING[self.convention]
        if self.smoothing not in valid:
            raise unknown_option(f"smoothing for the {self.convention} convention", self.smoothing, list(valid))
        if self.smooth_value is not None:
            check_number("smooth_value", self.smooth_value, minimum=0.0, maximum=1e6)
            if self.smoothing not in _SMOOTH_DEFAULTS:
                raise InvalidInputError(f"smoothing {self.smoothing!r} takes no smooth_value")
            if self.smoothing in ("method4", "method6", "method7"):
                if self.smooth_value <= 0:
                    raise InvalidInputError(f"smooth_value of {self.smoothing} must be > 0, got {self.smooth_value!r}")
                if isinstance(self.smooth_value, float) and self.smooth_value.is_integer():
                    # NLTK's k and alpha are integers; 5.0 from a command line means SmoothingFunction(k=5)
                    _set(self, "smooth_value", int(self.smooth_value))
        if self.effective_order and self.convention != "sacrebleu":
            raise InvalidInputError(
                "effective_order is sacrebleu's option; NLTK's counterpart is auto_reweigh, Moses has none"
            )
        if self.auto_reweigh and self.convention != "nltk":
            raise InvalidInputError("auto_reweigh is NLTK's (3.10) option; sacrebleu's counterpart is effective_order")
        if self.ref_length not in _REF_LENGTHS:
            raise unknown_option("ref_length", self.ref_length, list(_REF_LENGTHS))
        if self.scale not in (1, 100) or isinstance(self.scale, bool):
            raise InvalidInputError(f"scale must be 1 (scores in 0-1) or 100 (scores in 0-100), got {self.scale!r}")
        _set(self, "scale", float(self.scale))
        if self.convention == "nltk-3.2" and self.weights is not None and any(w <= 0 for w in self.weights):
            raise InvalidInputError("the nltk-3.2 convention needs positive weights")
        from .sentence import check_average

        check_average(self)

    def _check_orders(self) -> None:
        weights = self.weights
        if weights is not None:
            if isinstance(weights, (str, bytes)) or not isinstance(weights, (tuple, list)) or not weights:
                raise InvalidInputError(f"weights must be a non-empty sequence of numbers, got {weights!r}")
            for w in weights:
                check_number("each weight", w, minimum=0.0, maximum=1e6)
            if not any(weights):
                raise InvalidInputError(
                    f"weights must not all be 0 (they weigh the n-gram precisions), got {weights!r}"
                )
            object.__setattr__(self, "weights", tuple(weights))
            if self.max_order is not None and self.max_order != len(weights):
                raise InvalidInputError(
                    f"max_order={self.max_order} but {len(weights)} weights were given (one weight per order)"
                )
            object.__setattr__(self, "max_order", len(weights))
        elif self.max_order is None:
            object.__setattr__(self, "max_order", 4)
        if isinstance(self.max_order, bool) or not isinstance(self.max_order, int) or self.max_order < 1:
            raise InvalidInputError(f"max_order must be a positive integer, got {self.max_order!r}")
        check_integer("max_order", self.max_order, minimum=1, maximum=MAX_ORDER)

    # ------------------------------------------------------------------ derived settings
    @property
    def order(self) -> int:
        assert self.max_order is not None
        return self.max_order

    @property
    def needs_tail5(self) -> bool:
        """NLTK methods 5 and 7 read the last sentence's 5-gram precision."""
        return self.convention == "nltk" and self.smoothing in ("method5", "method7")

    @property
    def value(self) -> float | int | None:
        """The smoothing value in force (its default when ``smooth_value`` is None)."""
        if self.smooth_value is not None:
            return self.smooth_value
        return _SMOOTH_DEFAULTS.get(self.smoothing or "")


# ====================================================================== statistics
_TAIL_FIELDS = ("tail", "tail_hyp_len", "tail_matches5", "tail_total5")


@dataclasses.dataclass(frozen=True)
class BLEUStats(Stats):
    """Sufficient statistics of BLEU.

    ``matches``/``totals``: clipped matches and number of hypothesis n-grams per order; ``short``: number of
    segments too short for an n-gram of the order (NLTK counts 1 in their denominator); ``hyp_len``,
    ``ref_len``: hypothesis length and reference length (by the ``ref_length`` rule); ``n_segments``,
    ``n_refs``, ``n_refs_sq``: segments, references and the sum of squared reference counts (a constant count
    makes ``n_segments * n_refs_sq == n_refs**2``: sacrebleu's ``nrefs`` in the signature). The ``tail_*`` fields
    hold the last segment (``tail`` is 1 when set); they are kept, not added (see the module docstring).
    """

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (
        ("matches", "totals"),
        ("totals", "hyp_len"),
        ("short", "n_segments"),
        ("n_segments", "n_refs"),
        ("n_refs", "n_refs_sq"),
        ("tail_matches5", "tail_total5"),
        ("tail_total5", "tail_hyp_len"),
    )

    tuple_fields: ClassVar[Mapping[str, int]] = {"matches": 4, "totals": 4, "short": 4}
    kept_fields: ClassVar[frozenset[str]] = frozenset(_TAIL_FIELDS)

    matches: tuple[int, ...]
    totals: tuple[int, ...]
    short: tuple[int, ...]
    hyp_len: int
    ref_len: int
    n_segments: int
    n_refs: int
    n_refs_sq: int
    tail: int
    tail_hyp_len: int
    tail_matches5: int
    tail_total5: int
    sentence_sum: float = 0.0  # the sum of per-segment BLEU under average="sentence" (metrics/bleu/sentence.py)

    def __add__(self, other: Any) -> BLEUStats:
        if type(other) is not type(self):
            return NotImplemented
        total = super().__add__(other)
        last = other if other.tail else self  # the later data's last segment
        tail: dict[str, Any] = {name: getattr(last, name) for name in _TAIL_FIELDS}
        return dataclasses.replace(total, **tail)


class _BLEUBatch(StatsBatch[BLEUStats]):
    """Per-segment BLEU statistics whose total keeps the last segment's tail instead of adding tails."""

    def total(self) -> BLEUStats:
        rows = self._rows
        if rows is not None and len(rows) == 1:
            return rows[0]  # one segment: its own statistics, tail included
        return self._keep_tail(super().total())

    def exact_total(self) -> BLEUStats:
        return self._keep_tail(super().exact_total())

    def __iter__(self) -> Iterator[BLEUStats]:
        if self._rows is not None:
            yield from self._rows
            return
        if self._lists is not None:
            lists = self._lists
            for values in zip(*(lists[name] for name in BLEUStats.field_names()), strict=True):
                yield BLEUStats(*values)
            return
        # every column to Python numbers at once: per-segment results (sentence_bleu of a list) read every row
        names = list(self.columns)
        for values in zip(*(column.tolist() for column in self.columns.values()), strict=True):
            row: dict[str, Any] = {k: tuple(v) if type(v) is list else v for k, v in zip(names, values, strict=True)}
            yield BLEUStats(**row)

    def _keep_tail(self, out: BLEUStats) -> BLEUStats:
        if len(self) == 0:
            return out
        if len(self) == 1 and (self._rows is not None or self._lists is not None):
            return out  # one segment: its own tail
        last = self[len(self) - 1]
        tail: dict[str, Any] = {name: int(getattr(last, name)) for name in _TAIL_FIELDS}
        return dataclasses.replace(out, **tail)


# ====================================================================== kernel
_CACHE = ReferenceCache(maxsize=4)


def _lower(lines: list[str], cfg: BLEUConfig) -> list[str]:
    if not cfg.lowercase:
        return lines
    if cfg.convention == "moses":
        return [perl_lowercase(line) for line in lines]
    return [line.lower() for line in lines]


def tokenize(lines: list[str], cfg: BLEUConfig) -> list[list[str]]:
    """The tokens of each line as the config's convention and tokenizer produce them (lowercasing included)."""
    lines = _lower(lines, cfg)
    name = cfg.tokenizer
    assert name is not None
    if name in SPM_MODELS:
        return _spm(cfg).batch([line.rstrip() for line in lines])  # sacrebleu strips right first
    sacre = sacrebleu_name(name)
    if sacre is not None:
        return sacrebleu_tokenizer(sacre).batch([line.rstrip() for line in lines])  # sacrebleu strips right first
    if name == "whitespace":
        return [line.split() for line in lines]
    if name == "perl-whitespace":
        return [perl_split(line) for line in lines]
    tok = get_tokenizer(name)
    return [list(tok(line)) for line in lines]


def _spm(cfg: BLEUConfig) -> Any:
    """The SentencePiece tokenizer of ``cfg``, checked to be the model its signature names."""
    tok = spm_tokenizer(str(cfg.tokenizer), cfg.spm_model)
    if tok.digest != cfg.spm:
        raise InvalidInputError(
            f"the SentencePiece model of the {cfg.tokenizer} tokenizer changed since this configuration was made "
            f"(digest {tok.digest}, the signature says {cfg.spm}); make the configuration again"
        )
    return tok


def _uses_codepoints(cfg: BLEUConfig) -> bool:
    # one token per non-space character: code points serve as token ids, no vocabulary needed
    return cfg.tokenizer == "char"


def _char_texts(lines: list[str], cfg: BLEUConfig) -> list[str]:
    return ["".join(line.rstrip().split()) for line in _lower(lines, cfg)]


def _reference_index(refs: ReferenceSets, cfg: BLEUConfig, orders: int) -> tuple[Any, dict[Any, int] | None]:
    import numpy as np

    from ...algorithms.ngrams import TokenStreams, build_index, codepoint_streams, stored_vocabulary_streams

    if refs.starts is None:
        unit = np.arange(len(refs.flat), dtype=np.int64)
    else:
        unit = np.repeat(np.arange(len(refs), dtype=np.int64), refs.counts())
    if _uses_codepoints(cfg):
        streams = codepoint_streams(_char_texts(refs.flat, cfg), unit)
        return build_index(streams, len(refs), orders, 0x110000), None
    ids, lengths, vocabulary = stored_vocabulary_streams(
        _tokens_namespace(cfg), refs.flat, lambda texts: tokenize(list(texts), cfg)
    )
    streams = TokenStreams(ids, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64), unit)
    return build_index(streams, len(refs), orders, max(len(vocabulary), 1)), vocabulary


def _tokens_namespace(cfg: BLEUConfig) -> str:
    """Everything besides the text that changes BLEU's tokens, for the on-disk token cache: the settings and the
    tokenizer's own identity (a MeCab dictionary's version)."""
    name = cfg.tokenizer or ""
    if name in SPM_MODELS:
        return f"bleu|{_token_settings(cfg)!r}|{name}:{cfg.spm}"
    sacre = sacrebleu_name(name)
    tok: Any = sacrebleu_tokenizer(sacre) if sacre is not None else None
    if tok is None and name not in ("whitespace", "perl-whitespace"):
        tok = get_tokenizer(name)
    identity = getattr(tok, "signature", None) or getattr(tok, "version", None) or ""
    return f"bleu|{_token_settings(cfg)!r}|{identity}"


def _token_settings(cfg: BLEUConfig) -> tuple[Any, ...]:
    return (cfg.convention == "moses" and cfg.lowercase, cfg.lowercase, cfg.tokenizer)


#: Batches of at most this many segments are counted segment by segment by the compiled kernel, their statistics
#: kept as Python rows: indexing their references with numpy would cost more than it saves.
SMALL = 32  # on fresh text rows cost less up to ~128-256 segments, but larger batches keep the reference caches
#: Under the 13a tokenizer, batches of at most this many segments keep their statistics as Python rows (their
#: per-segment results come from rows cheaper than from numpy columns); larger ones get numpy columns.
ROWS_13A = 256
#: Whether the 13a tokenizer's batches go to the compiled one-pass kernel (``_native.bleu_13a``: tokens and
#: clipped counts at once, at every batch size). The tests turn it off to hold it to the numpy path.
NATIVE_13A = True


def _uses_native_13a(cfg: BLEUConfig) -> bool:
    # with a cache directory (evaluate's reruns) the references' tokens come from disk: the numpy path reads them
    return NATIVE_13A and cfg.tokenizer == "13a" and not disk_cache_set() and has_native()


def _closest_lengths(
    ref_lens: list[int], hyp_lens: list[int], refs: ReferenceSets, cfg: BLEUConfig
) -> tuple[list[int], list[int]]:
    """Each segment's reference length by the ``ref_length`` rule (``closest``: ties to the shorter; torchmetrics'
    multi-reference rule: the first closest), and its number of references, on Python integers (no numpy). The one
    implementation of the rule: the numpy paths turn its result into a column."""
    moses = cfg.convention == "moses" and cfg.ref_length == "closest"
    offsets = refs.offsets
    if offsets is None and not moses:
        return ref_lens, [1] * len(hyp_lens)  # one reference: its length, whatever the rule
    counts = refs.count_list()
    rule = cfg.ref_length
    first_tie = cfg.convention == "torchmetrics" and offsets is not None
    out = []
    at = 0
    for h, k in zip(hyp_lens, counts, strict=True):
        lens = ref_lens[at : at + k]
        at += k
        if k == 1 and not moses:
            out.append(lens[0])
        elif rule == "shortest":
            out.append(min(lens))
        elif rule == "longest":
            out.append(max(lens))
        elif first_tie:  # torchmetrics: list.index(min(differences)), the first closest reference wins a tie
            diffs = [abs(r - h) for r in lens]
            out.append(lens[diffs.index(min(diffs))])
        else:  # the closest, ties to the shorter; multi-bleu.perl starts from (diff, length) = (9999, 9999)
            best = min([(abs(r - h), r) for r in lens])
            out.append(9999 if moses and best > (9999, 9999) else best[1])
    return out, counts


def _length_row(h: int, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The n-gram totals of orders 1..n of a hypothesis of ``h`` tokens, and whether it is too short for each."""
    return tuple([h - k if h > k else 0 for k in range(n)]), tuple([int(h <= k) for k in range(n)])


def _rows(
    matches: list[Any], hyp_lens: list[int], ref_lens: list[int], refs: ReferenceSets, cfg: BLEUConfig, orders: int
) -> StatsBatch[BLEUStats]:
    """Per-segment statistics as Python lists, one per field (no numpy); ``matches[seg]`` are the clipped matches of
    orders 1..orders (a tuple or a list)."""
    closest, counts = _closest_lengths(ref_lens, hyp_lens, refs, cfg)
    n = cfg.order
    tail = cfg.needs_tail5
    if len(hyp_lens) == 1:  # one segment (a one-pair call): its row, without the lists around it
        h, m, k = hyp_lens[0], matches[0], counts[0]
        totals, short = _length_row(h, n)
        tail5 = (m[_TAIL_ORDER - 1], max(h - _TAIL_ORDER + 1, 0)) if tail else (0, 0)
        row = BLEUStats(tuple(m[:n]), totals, short, h, closest[0], 1, k, k * k, 1, h, *tail5)
        return _BLEUBatch.from_rows(BLEUStats, [row])
    n_seg = len(hyp_lens)
    by_length = {h: _length_row(h, n) for h in set(hyp_lens)}  # the totals depend on the length only
    ones = [1] * n_seg
    if tail:
        tail_matches = [m[_TAIL_ORDER - 1] for m in matches]
        tail_totals = [max(h - _TAIL_ORDER + 1, 0) for h in hyp_lens]
    else:
        tail_matches = tail_totals = [0] * n_seg
    lists: dict[str, list[Any]] = {  # in field order
        "matches": [tuple(m[:n]) for m in matches] if orders != n or type(matches[0]) is not tuple else matches,
        "totals": [by_length[h][0] for h in hyp_lens],
        "short": [by_length[h][1] for h in hyp_lens],
        "hyp_len": hyp_lens,
        "ref_len": closest,
        "n_segments": ones,
        "n_refs": counts,
        "n_refs_sq": counts if refs.offsets is None else [k * k for k in counts],
        "tail": ones,
        "tail_hyp_len": hyp_lens,
        "tail_matches5": tail_matches,
        "tail_total5": tail_totals,
        "sentence_sum": [0.0] * n_seg,
    }
    return _BLEUBatch.from_lists(BLEUStats, lists)


def _small_batch(preds: list[str], refs: ReferenceSets, cfg: BLEUConfig, orders: int) -> StatsBatch[BLEUStats]:
    """The statistics of a few segments: the same counts as the corpus path (``algorithms.ngrams``), from the
    compiled small-batch counter, without numpy arrays (the reference-length rule is the corpus path's)."""
    if _uses_codepoints(cfg):
        hyp: list[Any] = _char_texts(preds, cfg)
        ref: list[Any] = _char_texts(refs.flat, cfg)
    else:  # one tokenizer call for both sides (lines are tokenized independently): half its fixed cost
        both = tokenize(preds + refs.flat, cfg)
        hyp, ref = both[: len(preds)], both[len(preds) :]
    matches = [m[0] for m in native().clipped_matches(hyp, ref, refs.offsets or [], orders, False)]
    return _rows(matches, [len(h) for h in hyp], [len(r) for r in ref], refs, cfg, orders)


def _native_13a(preds: list[str], refs: ReferenceSets, cfg: BLEUConfig, orders: int) -> StatsBatch[BLEUStats]:
    """13a tokens and clipped counts from the compiled one-pass kernel (lowercasing done here, as ``tokenize``):
    Python rows for small batches, and at any size while numpy is not loaded; numpy columns otherwise."""
    flat, hyp_lens, ref_lens = native().bleu_13a(_lower(preds, cfg), _lower(refs.flat, cfg), refs.offsets or [], orders)
    n_seg = len(preds)
    if (n_seg <= ROWS_13A or loaded() is None) and cfg.average != "sentence":
        n = cfg.order  # the orders the statistics keep (the kernel may count a 5th for NLTK's tail)
        if orders == n:
            matches = [tuple(flat[i : i + n]) for i in range(0, n_seg * n, n)]
        else:
            matches = [flat[i : i + orders] for i in range(0, n_seg * orders, orders)]
        return _rows(matches, hyp_lens, ref_lens, refs, cfg, orders)
    import numpy as np

    hyp = np.asarray(hyp_lens, dtype=np.int64)
    ref_len = np.asarray(_closest_lengths(ref_lens, hyp_lens, refs, cfg)[0], dtype=np.int64)
    return _columns(np.asarray(flat, dtype=np.int64).reshape(n_seg, orders), hyp, ref_len, refs, cfg, orders)


#: tokenizers that split on spaces and punctuation only: Chinese and Japanese stay whole phrases
_UNSPLIT_CJK = frozenset(("13a", "intl", "none", "whitespace", "perl-whitespace", "coco"))


def _cjk_fix(japanese: bool) -> str:
    if japanese:
        return "use tokenizer='ja-mecab' (sacrebleu -tok ja-mecab, WMT's en-ja) or 'char'"
    return "use tokenizer='zh' (sacrebleu -tok zh, WMT's en-zh) or 'char'"


def _bleu_kernel(preds: list[str], refs: ReferenceSets, cfg: BLEUConfig) -> StatsBatch[BLEUStats]:
    if cfg.tokenizer in _UNSPLIT_CJK:
        warn_unsplit_cjk("bleu", cfg.tokenizer, preds, refs, _cjk_fix)
    n_seg = len(preds)
    orders = max(cfg.order, _TAIL_ORDER) if cfg.needs_tail5 else cfg.order
    if _uses_native_13a(cfg):
        return _native_13a(preds, refs, cfg, orders)
    # average="sentence" also needs each segment's own BLEU (sentence_sum), which the corpus path computes. While
    # numpy is not loaded, a batch of any size is counted by the small-batch counter: importing numpy would cost a
    # fresh process more than the reference index saves it (the counts are the same)
    if (n_seg <= SMALL or loaded() is None) and has_native() and cfg.average != "sentence":
        return _small_batch(preds, refs, cfg, orders)
    import numpy as np

    from ...algorithms.ngrams import clipped_counts, codepoint_streams, vocabulary_streams

    key = (
        "bleu",
        _token_settings(cfg),
        orders,
        tuple(refs.flat),
        None if refs.starts is None else refs.starts.tobytes(),
    )
    index, vocabulary = _CACHE.get(key, lambda: _reference_index(refs, cfg, orders))
    seg = np.arange(n_seg, dtype=np.int64)
    if vocabulary is None:
        hyp = codepoint_streams(_char_texts(preds, cfg), seg)
    else:
        hyp = vocabulary_streams(tokenize(preds, cfg), seg, vocabulary, grow=False)
    hyp_lens = hyp.lengths
    matches = clipped_counts(index, hyp, orders)[:, :, 0]
    closest = _closest_lengths(index.stream_lengths.tolist(), hyp_lens.tolist(), refs, cfg)[0]
    return _columns(matches, hyp_lens, np.asarray(closest, dtype=np.int64), refs, cfg, orders)


def _columns(
    matches: np.ndarray, hyp_lens: np.ndarray, ref_len: np.ndarray, refs: ReferenceSets, cfg: BLEUConfig, orders: int
) -> StatsBatch[BLEUStats]:
    """Per-segment statistics as numpy columns (and each segment's own BLEU under ``average="sentence"``)."""
    import numpy as np

    n_seg = len(hyp_lens)
    order_range = np.arange(1, orders + 1, dtype=np.int64)
    totals = np.maximum(hyp_lens[:, None] - order_range[None, :] + 1, 0)
    counts = refs.counts()
    n = cfg.order
    ones = np.ones(n_seg, dtype=np.int64)
    zeros = np.zeros(n_seg, dtype=np.int64)
    columns = {
        "matches": matches[:, :n],
        "totals": totals[:, :n],
        "short": (totals[:, :n] == 0).astype(np.int64),
        "hyp_len": hyp_lens,
        "ref_len": ref_len.astype(np.int64),
        "n_segments": ones,
        "n_refs": counts.astype(np.int64),
        "n_refs_sq": (counts * counts).astype(np.int64),
        "tail": ones,
        "tail_hyp_len": hyp_lens,
        "tail_matches5": matches[:, _TAIL_ORDER - 1] if cfg.needs_tail5 else zeros,
        "tail_total5": totals[:, _TAIL_ORDER - 1] if cfg.needs_tail5 else zeros,
    }
    from .sentence import sentence_scores

    columns["sentence_sum"] = sentence_scores(columns, cfg, BLEUStats, bleu_from_stats)
    return _BLEUBatch(BLEUStats, columns)


# ====================================================================== formula
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
            "were summed without order (an all-reduce across processes, or the torch adapter over several "
            "updates). Score the corpus in one call, or with the stateful nlgmetrics.BLEU metric, which keeps it."
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


def _nrefs(stats: BLEUStats) -> Any:
    n, refs, refs_sq = int(stats.n_segments), int(stats.n_refs), int(stats.n_refs_sq)
    if n == 0:
        return 0
    return refs // n if n * refs_sq == refs * refs else "var"


def _sacrebleu_signature(stats: BLEUStats, cfg: BLEUConfig) -> str | None:
    sacre = sacrebleu_name(cfg.tokenizer)
    if cfg.convention != "sacrebleu" or sacre is None or cfg.weights is not None:
        return None
    nrefs = _nrefs(stats)
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


# ====================================================================== family and presets
def _sizes(cfg: BLEUConfig) -> dict[str, int]:
    return {"matches": cfg.order, "totals": cfg.order, "short": cfg.order}


def _bounds(cfg: BLEUConfig) -> tuple[float | None, float | None]:
    return (0.0, float(cfg.scale or 1))


def _segment_config(cfg: BLEUConfig) -> BLEUConfig:
    """Per-segment BLEU: sacrebleu's ``sentence_bleu`` arithmetic (effective order on; exp smoothing unless the
    config chose sacrebleu's floor or add-k) on the corpus run's own counts, tokens and scale. Under every corpus
    convention, a segment shorter than 4 tokens would otherwise score 0 even when it equals its reference (a
    4-gram precision of 0/0), and NLTK's unsmoothed ``sys.float_info.min`` gives 1e-231-like numbers."""
    keep = cfg.convention == "sacrebleu" and cfg.smoothing in ("exp", "floor", "add-k")
    return dataclasses.replace(
        cfg,
        convention="sacrebleu",
        smoothing=cfg.smoothing if keep else "exp",
        smooth_value=cfg.smooth_value if keep else None,
        effective_order=True,
        auto_reweigh=False,
    )


BLEU: Family[BLEUConfig, BLEUStats, BLEUResult] = Family(
    cache_configs=True,
    name="bleu",
    bounds=(0.0, None),
    config_bounds=_bounds,
    segment_config_of=_segment_config,
    config_cls=BLEUConfig,
    stats_cls=BLEUStats,
    kernel=_bleu_kernel,
    formula=bleu_from_stats,
    presets={
        "sacrebleu": {"convention": "sacrebleu"},
        "nltk": {"convention": "nltk"},
        "nltk-3.2": {"convention": "nltk-3.2"},
        "moses": {"convention": "moses"},
        "nmt": {"convention": "nmt", "ref_length": "shortest"},
        "torchmetrics": {"convention": "torchmetrics"},
        "coco": {"convention": "coco"},
        "llamafactory": {
            "convention": "nltk",
            "tokenizer": "char-list",
            "smoothing": "method3",
            "scale": 100,
            "average": "sentence",
            "sentence_round": 4,
        },
    },
    default_preset="sacrebleu",
    option_aliases={"tokenize": "tokenizer"},  # sacrebleu's name of the option
    stats_sizes=_sizes,
)


#: The configs of calls without options, by (preset, sentence-level): a one-pair call resolves none again.
_PLAIN_CONFIGS: dict[tuple[str | None, bool], BLEUConfig] = {}


def _config(preset: str | None, options: dict[str, Any], sentence: bool) -> BLEUConfig:
    plain = not options and (preset is None or type(preset) is str)
    if plain:
        hit = _PLAIN_CONFIGS.get((preset, sentence))
        if hit is not None:
            return hit
    cfg = BLEU.make_config(preset, **options)
    if sentence and cfg.convention == "sacrebleu" and "effective_order" not in options:
        cfg = BLEU.make_config(preset, **options, effective_order=True)  # sacrebleu.sentence_bleu's default
    if plain and len(_PLAIN_CONFIGS) < 64:
        _PLAIN_CONFIGS[(preset, sentence)] = cfg
    return cfg


def bleu(
    predictions: Sequence[str] | str,
    references: Sequence[str | Sequence[str]] | str,
    *,
    preset: str | None = None,
    segments: bool = False,
    **options: Any,
) -> BLEUResult:
    """Corpus BLEU of ``predictions`` against ``references`` (one string or a list of strings per segment).

    ``preset`` picks the convention: ``"sacrebleu"`` (default, 0-100), ``"nltk"`` (0-1), ``"nltk-3.2"`` (0-1),
    ``"moses"`` (0-100); ``options`` are :class:`BLEUConfig` fields and win over the preset. ``segments=True``
    adds each segment's score (the same formula on the segment's statistics).

    >>> r = bleu(["the cat sat on the mat"], [["the cat is on the mat", "a cat sat on the mat"]])
    >>> round(r.score, 4), r.matches, r.totals
    (84.0896, (6, 5, 3, 2), (6, 5, 4, 3))
    >>> bleu(["a d a"], ["a b c"], preset="nltk").score  # NLTK 3.10's 1.38e-231
    1.384292958842266e-231
    >>> bleu(["a d a"], ["a b c"], preset="moses").score
    0.0
    """
    return BLEU.compute(predictions, references, _config(preset, options, False), segments=segments)


def sentence_bleu(
    prediction: str | Sequence[str],
    references: str | Sequence[str] | Sequence[str | Sequence[str]],
    *,
    preset: str | None = None,
    **options: Any,
) -> BLEUResult | tuple[BLEUResult, ...]:
    """Sentence BLEU with the sentence-level defaults of the preset's tool (sacrebleu: ``effective_order=True``,
    as ``sacrebleu.sentence_bleu``; NLTK's ``sentence_bleu`` is its ``corpus_bleu`` of one sentence).

    With one prediction (a string), ``references`` are that sentence's references (a string or a list) and one
    result is returned; with a list of predictions, ``references`` hold one entry per prediction and a tuple of
    results comes back, one per sentence.

    >>> round(sentence_bleu("the cat sat on the mat", ["the cat is on the mat"]).score, 4)
    37.9918
    >>> sentence_bleu("a d a", "a b c", preset="nltk-3.2").score  # exp(log(1/3) / 4)
    0.7598356856515925
    """
    cfg = _config(preset, options, True)
    if isinstance(prediction, str):
        refs: Any
        if isinstance(references, str):
            refs = references  # one pair of strings: the inputs' fast path
        elif len(references) == 1 and type(references[0]) is str:
            refs = references[0]  # one reference: the plain layout
        else:
            refs = [list(references)]
        batch = BLEU.batch_stats(prediction if type(refs) is str else [prediction], refs, cfg)
        return BLEU.finalize(batch.total(), cfg)
    batch = BLEU.batch_stats(prediction, references, cfg)
    return tuple(BLEU.finalize(s, cfg) for s in batch)
