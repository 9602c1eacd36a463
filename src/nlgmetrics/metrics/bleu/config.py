"""BLEU's configuration: the conventions, their defaults, and the checks of every option (the sentence
average's included)."""

from __future__ import annotations

import dataclasses

from ..._np import is_numpy_number
from ...errors import InvalidInputError, unknown_option
from ...signature import sig_field
from ...text.mt_tokenize import (
    SACREBLEU_TOKENIZERS,
    sacrebleu_tokenizer,
)
from ...text.spm import SPM_MODELS, spm_tokenizer
from ...text.tokenizers import resolve, tokenizer_help
from ...text.tokenizers import tokenizer as tokenizer_of
from ..base import MAX_ORDER, check_integer, check_number

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


# ====================================================================== config
def sacrebleu_name(tokenizer: str | None) -> str | None:
    """sacrebleu's name of a BLEU tokenizer (``"ja-mecab-ipadic"`` is its ``"ja-mecab"``), or ``None`` for a
    tokenizer sacrebleu does not have."""
    if tokenizer == "ja-mecab-ipadic":
        return "ja-mecab"
    if tokenizer in SPM_MODELS:  # spBLEU: sacrebleu's flores101, flores200, spBLEU-1K (text/spm.py)
        return tokenizer
    return tokenizer if tokenizer in SACREBLEU_TOKENIZERS and tokenizer != "ja-mecab" else None


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

    convention: str = sig_field(
        "conv",
        "sacrebleu",
        help="whose arithmetic: smoothing, brevity penalty, ties",
        choices=CONVENTIONS,
        role="convention",
    )
    tokenizer: str | None = sig_field(
        "tok", None, help=tokenizer_help("bleu", "how text becomes tokens (default: the convention's)")
    )
    lowercase: bool = sig_field("lc", False, help="lowercase first (ASCII letters only under the moses preset)")
    max_order: int | None = sig_field("n", None, help="largest n-gram order (default: 4, or the number of weights)")
    weights: tuple[float, ...] | None = sig_field("w", None, help="one weight per order (default: uniform)")
    smoothing: str | None = sig_field(
        "smooth", None, help="exp, floor, add-k, none (sacrebleu); method0..method7 (nltk); add-one (nmt)"
    )
    smooth_value: float | None = sig_field("sv", None, help="floor value, k, epsilon or alpha of the smoothing")
    effective_order: bool = sig_field("eff", False, help="sacrebleu: leave out the orders no n-gram reaches")
    auto_reweigh: bool = sig_field("rew", False, help="nltk: uniform weights over a hypothesis shorter than 4 tokens")
    ref_length: str = sig_field(
        "ref", "closest", help="which reference length counts", choices=("closest", "shortest", "longest")
    )
    scale: float | None = sig_field("scale", None, help="100 (scores in 0-100) or 1 (in 0-1)")
    average: str = sig_field(  # metrics/bleu/sentence.py
        "avg",
        "corpus",
        help="corpus: BLEU of the summed counts; sentence: the mean of each segment's own BLEU (fine-tuning scripts)",
        choices=("corpus", "sentence"),
    )
    sentence_round: int | None = sig_field(
        "sround",
        None,
        help="round each segment's BLEU to this many decimals before the mean (average sentence)",
        role="convention",
    )
    preset: str | None = sig_field("preset", None)
    #: spBLEU: the SentencePiece model file of the flores101/flores200/spBLEU-1K tokenizers (default: the file
    #: sacrebleu would use); never in the signature, which names the model by its digest (``spm``)
    spm_model: str | None = sig_field(
        None, None, help="spBLEU's SentencePiece model file (default: where sacrebleu keeps it; never downloaded)"
    )
    spm: str | None = sig_field("spm", None, role="resolved", metadata={"omit_none": True})

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
        # "ja-mecab" is sacrebleu's: MeCab with the IPA dictionary; the signature names the dictionary
        given = self.tokenizer
        _set(self, "tokenizer", resolve(given, "bleu"))
        if self.tokenizer in SPM_MODELS:  # spBLEU: the model is loaded now (a missing file fails here)
            digest = spm_tokenizer(given, self.spm_model).digest  # errors name the tokenizer as given
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
            sacrebleu_tokenizer(sacre)  # fail early: missing MeCab
        else:
            tokenizer_of(self.tokenizer)
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


# ---------------------------------------------------------------------- the sentence average (sentence.py)
AVERAGES = ("corpus", "sentence")


def check_average(cfg: BLEUConfig) -> None:
    if cfg.average not in AVERAGES:
        raise unknown_option("BLEU average", cfg.average, list(AVERAGES))
    r = cfg.sentence_round
    if r is not None:
        if isinstance(r, bool) or not (isinstance(r, int) or is_numpy_number(r, "i")) or r < 0:
            raise InvalidInputError(f"sentence_round must be a number of decimals >= 0, got {r!r}")
        if cfg.average != "sentence":
            raise InvalidInputError("sentence_round rounds each sentence's BLEU: it needs average='sentence'")
