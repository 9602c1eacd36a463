"""CIDEr and CIDEr-D: consensus-based image description evaluation, pycocoevalcap's numbers exactly.

Each candidate caption and each reference becomes a tf-idf vector of its n-grams (orders 1 to ``n``): the term
frequency times ``log(N) - log(max(1, df))``, where ``N`` is the number of images of the corpus and ``df`` the
number of images among whose references the n-gram occurs. Per order, the cosine of the candidate with each
reference; their sum over the references, averaged over the orders, divided by the number of references and
multiplied by ``scale`` is the image's score, and the corpus score is the mean over the images.

Presets and the exact calls they reproduce:

``cider-d`` (default)
    pycocoevalcap 1.2 ``Cider().compute_score(gts, res)`` (its ``Cider`` is CIDEr-D: ``CiderScorer(n=4,
    sigma=6.0)``) on captions tokenized by its ``PTBTokenizer`` (``tokenizer="coco"``, reproduced in pure
    Python by :mod:`nlgmetrics.text.ptb`): the candidate's tf-idf weights are clipped at the reference's
    (``min(c, r) * r``), and each order's cosine is multiplied by ``exp(-delta**2 / (2 sigma**2))`` with
    ``delta`` the difference of the two captions' *bigram* counts (pycocoevalcap counts the length there, so an
    empty caption is one word shorter than a one-word caption for it; this is kept); the score is multiplied by
    10.
``cider``
    The original CIDEr of the authors' repository (``vrama91/cider``, ``pyciderevalcap/cider``, ``df_mode=
    "corpus"``): no clipping and no length penalty (``c * r``), also multiplied by 10.

With ``tokenizer="none"`` the captions are taken as already tokenized (split on whitespace, as both scorers do
after their tokenizer), which is what ``Cider().compute_score`` alone does with pre-tokenized text.

Additivity. The document frequencies come from the references of the whole scored corpus, so a fixed set of
numbers per image cannot make the score. The statistics therefore carry each image's *tokenized candidate and
references* (:class:`~nlgmetrics.stats.Records`, one record per image: the tokenized caption strings, about the
size of the captions themselves), and the formula computes the n-grams, the document frequencies and every
image's score from all of them. Adding statistics concatenates the records, so batches, ``merge`` and DDP (the
records travel as bytes, gathered) give the number of one call; the cost is memory proportional to the text of
the corpus, and a formula that reads the whole corpus (a fraction of a second per 5,000 images x 5 references).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from .._inputs import ReferenceSets
from ..errors import InvalidInputError
from ..signature import sig_field
from ..stats import Carried, CarriedColumn, Records, Stats, StatsBatch
from ..text.tokenizers import choices, resolve, tokenizer_help
from .base import MAX_ORDER, Family, Result, check_integer, check_number, signature_of

__all__ = ["CIDER", "CiderConfig", "CiderResult", "CiderStats", "cider", "cider_scores"]

TOKENIZERS = choices("cider")


@dataclasses.dataclass(frozen=True)
class CiderConfig:
    """Options of CIDEr (see the module docstring).

    * ``tokenizer``: ``"coco"`` (pycocoevalcap's PTB tokenization and punctuation removal) or ``"none"``
      (captions already tokenized: split on whitespace).
    * ``n``: the highest n-gram order (4).
    * ``clip``: clip the candidate's tf-idf weights at the reference's (CIDEr-D).
    * ``length_penalty`` and ``sigma``: CIDEr-D's Gaussian penalty on the length difference, with its sigma (6).
    * ``scale``: the factor of the score (10).
    """

    tokenizer: str = sig_field(
        "tok",
        "coco",
        help=tokenizer_help("cider", "coco: pycocoevalcap's PTB tokenizer; none: already tokenized"),
        choices=TOKENIZERS,
    )
    n: int = sig_field("n", 4, help="highest n-gram order")
    clip: bool = sig_field("clip", True, help="clip candidate weights at the reference's (CIDEr-D)")
    length_penalty: bool = sig_field("lp", True, help="Gaussian length penalty (CIDEr-D)")
    sigma: float = sig_field("sigma", 6.0, help="sigma of the length penalty")
    scale: float = sig_field("scale", 10.0, help="factor of the score")
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokenizer", resolve(self.tokenizer, "cider"))
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise InvalidInputError(f"n must be a positive integer, got {self.n!r}")
        check_integer("n", self.n, minimum=1, maximum=MAX_ORDER)
        for flag in ("clip", "length_penalty"):
            if not isinstance(getattr(self, flag), (bool, np.bool_)):
                raise InvalidInputError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        check_number("sigma", self.sigma, maximum=1e6)
        if self.sigma <= 0:
            raise InvalidInputError(f"sigma must be > 0, got {self.sigma!r}")
        check_number("scale", self.scale, maximum=1e6)
        if self.scale <= 0:  # a negative scale would turn every ranking upside down
            raise InvalidInputError(f"scale must be > 0, got {self.scale!r}")


@dataclasses.dataclass(frozen=True)
class CiderStats(Stats):
    """``images``: one record per image, ``(tokenized candidate, (tokenized references, ...))``; ``references``:
    the number of references. Records concatenate, counts add (see the module docstring)."""

    images: Records
    references: int

    carried_fields: ClassVar[Mapping[str, type[Carried]]] = {"images": Records}


@dataclasses.dataclass(frozen=True, kw_only=True)
class CiderResult(Result):
    """``score``: the mean over the images; ``segments``: each image's score, in the order the images came
    (always filled: every image's score comes out of the same computation); ``images``, ``references``: counts.
    """

    images: int = 0
    references: int = 0


# ============================================================================================ kernel
def _tokenized(texts: Sequence[str], cfg: CiderConfig) -> list[str]:
    if cfg.tokenizer == "coco":
        from ..text.ptb import coco_tokenize_stream

        # pycocoevalcap tokenizes the predictions as one file and the references as another (see ptb)
        return coco_tokenize_stream(texts)
    return list(texts)


def _cider_kernel(preds: list[str], refs: ReferenceSets, cfg: CiderConfig) -> StatsBatch[CiderStats]:
    cand = _tokenized(preds, cfg)
    flat = _tokenized(refs.flat, cfg)
    if refs.starts is None:
        groups: list[tuple[str, ...]] = [(r,) for r in flat]
    else:
        bounds = [*refs.starts.tolist(), len(flat)]
        groups = [tuple(flat[a:b]) for a, b in itertools.pairwise(bounds)]
    records = CarriedColumn(Records, [Records(((c, g),)) for c, g in zip(cand, groups, strict=True)])
    return StatsBatch(CiderStats, {"images": records, "references": refs.counts().astype(np.int64)})


# ============================================================================================ formula
def _sorted_unique(x: np.ndarray) -> np.ndarray:
    """``np.unique(x)`` by sorting (numpy 2's hashing ``unique`` is several times slower on these keys)."""
    s = np.sort(x)
    if len(s) == 0:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def cider_scores(records: Sequence[tuple[str, Sequence[str]]], cfg: CiderConfig) -> np.ndarray:
    """Each image's CIDEr(-D) from ``(tokenized candidate, tokenized references)`` records of the whole corpus."""
    n_img = len(records)
    if n_img == 0:
        return np.zeros(0)
    texts: list[str] = [r[0] for r in records]
    ref_img: list[int] = []
    for i, r in enumerate(records):
        texts.extend(r[1])
        ref_img.extend([i] * len(r[1]))
    n_cap = len(texts)
    split = [t.split() for t in texts]
    lens = np.fromiter(map(len, split), dtype=np.int64, count=n_cap)
    words = list(itertools.chain.from_iterable(split))
    vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
    tokens = np.fromiter(map(vocab.__getitem__, words), dtype=np.int64, count=len(words))
    img_of_cap = np.concatenate([np.arange(n_img, dtype=np.int64), np.asarray(ref_img, dtype=np.int64)])
    n_refs = np.bincount(np.asarray(ref_img, dtype=np.int64), minlength=n_img)
    ref_len = math.log(float(n_img))
    bigrams = np.maximum(lens - 1, 0).astype(np.float64)  # pycocoevalcap's "length": the count of 2-grams
    val = np.zeros((n_cap - n_img, cfg.n), dtype=np.float64)  # per reference and order
    norms = np.zeros((n_cap, cfg.n), dtype=np.float64)
    n_tok = len(tokens)
    cap_of = np.repeat(np.arange(n_cap, dtype=np.int64), lens)
    first = np.cumsum(lens) - lens
    left = lens[cap_of] - (np.arange(n_tok, dtype=np.int64) - first[cap_of])  # tokens from here to the end
    gid = tokens.copy()
    width = len(vocab) + 1
    for k in range(1, cfg.n + 1):
        if k > 1:
            nxt = np.full(n_tok, 0, dtype=np.int64)
            if n_tok > k - 1:
                nxt[: n_tok - (k - 1)] = tokens[k - 1 :]
            ok = left >= k
            combined = gid[ok] * width + nxt[ok]
            gid = np.full(n_tok, -1, dtype=np.int64)
            if len(combined):
                uniq, inv = np.unique(combined, return_inverse=True)
                gid[ok] = inv.reshape(-1)
                n_gram = len(uniq)
            else:
                n_gram = 0
        else:
            n_gram = width
        mask = left >= k
        caps, grams = cap_of[mask], gid[mask]
        if len(caps) == 0:
            continue
        size = max(n_gram, 1)
        pair, tf = np.unique(caps * size + grams, return_counts=True)
        p_cap, p_gram = pair // size, pair % size
        is_ref = p_cap >= n_img
        # document frequency: the images among whose references the n-gram occurs
        img_gram = _sorted_unique(img_of_cap[p_cap[is_ref]] * size + p_gram[is_ref])
        df = np.bincount(img_gram % size, minlength=size).astype(np.float64)
        weight = tf.astype(np.float64) * (ref_len - np.log(np.maximum(1.0, df[p_gram])))
        norms[:, k - 1] = np.sqrt(np.bincount(p_cap, weights=weight * weight, minlength=n_cap))
        # each reference n-gram meets the candidate's weight for the same n-gram of its image (0 when absent)
        cand_keys = pair[~is_ref]  # sorted: candidate ids are below the references'
        cand_w = weight[~is_ref]
        query = img_of_cap[p_cap[is_ref]] * size + p_gram[is_ref]
        at = np.searchsorted(cand_keys, query)
        at_c = np.minimum(at, max(len(cand_keys) - 1, 0))
        hit = (at < len(cand_keys)) & (cand_keys[at_c] == query) if len(cand_keys) else np.zeros(len(query), bool)
        ref_w = weight[is_ref][hit]
        c_w = cand_w[at_c[hit]]
        contrib = np.minimum(c_w, ref_w) * ref_w if cfg.clip else c_w * ref_w
        val[:, k - 1] = np.bincount(p_cap[is_ref][hit] - n_img, weights=contrib, minlength=n_cap - n_img)
    ref_img_a = img_of_cap[n_img:]
    den = norms[ref_img_a] * norms[n_img:]
    val = np.divide(val, den, out=val, where=den != 0)
    if cfg.length_penalty:
        delta = bigrams[ref_img_a] - bigrams[n_img:]
        val *= (np.e ** (-(delta**2) / (2 * cfg.sigma**2)))[:, None]
    per_image = np.zeros((n_img, cfg.n), dtype=np.float64)
    for k in range(cfg.n):
        per_image[:, k] = np.bincount(ref_img_a, weights=val[:, k], minlength=n_img)
    scores = per_image.mean(axis=1) / np.maximum(n_refs, 1)
    return scores * cfg.scale


def cider_from_stats(stats: CiderStats, cfg: CiderConfig) -> CiderResult:
    """Every image's score from the records of the whole corpus, and their mean."""
    scores = cider_scores(stats.images, cfg)
    values = tuple(scores.tolist())
    score = math.fsum(values) / len(values) if values else 0.0
    return CiderResult(score=score, segments=values, images=len(values), references=int(stats.references))


class CiderFamily(Family[CiderConfig, CiderStats, CiderResult]):
    """CIDEr's per-image scores come from the corpus formula (the document frequencies are the corpus's)."""

    def segment_scores(self, batch: StatsBatch[CiderStats], config: CiderConfig) -> tuple[float, ...]:
        if len(batch) == 0:
            return ()
        return self.formula(batch.total(), config).segments or ()

    def finalize(
        self, total: CiderStats, config: CiderConfig, batch: StatsBatch[CiderStats] | None = None
    ) -> CiderResult:
        result = self.formula(total, config)
        return dataclasses.replace(result, signature=signature_of(self, config))


PRESETS: dict[str, dict[str, Any]] = {
    "cider-d": {"clip": True, "length_penalty": True, "sigma": 6.0, "n": 4, "scale": 10.0},
    "cider": {"clip": False, "length_penalty": False, "n": 4, "scale": 10.0},
}

CIDER = CiderFamily(
    name="cider",
    config_cls=CiderConfig,
    stats_cls=CiderStats,
    kernel=_cider_kernel,
    formula=cider_from_stats,
    presets=PRESETS,
    default_preset="cider-d",
    bounds=(0.0, None),
    example={
        "predictions": ["a man is riding a horse", "two dogs play in the snow", "a plate of food"],
        "references": [
            ["a man rides a horse on the beach", "a person riding a brown horse"],
            ["two dogs are playing in the snow", "dogs run through the snow"],
            ["a plate with food on it", "food on a white plate"],
        ],
    },
)


cider = CIDER.function(
    "cider",
    __name__,
    """CIDEr-D (default, pycocoevalcap's ``Cider``) or CIDEr (``preset="cider"``) of a corpus of captions.

    ``references`` holds one string or a list of strings per image. The document frequencies come from these
    references, so the score of an image depends on the whole corpus (score a corpus, not single captions).
    ``segments`` holds every image's score (always: they come out of the same computation; the ``segments``
    argument is accepted as in the other families).

    >>> preds = ["a man is riding a horse", "two dogs play in the snow", "a plate of food"]
    >>> refs = [["a man rides a horse on the beach", "a person riding a brown horse"],
    ...         ["two dogs are playing in the snow", "dogs run through the snow"],
    ...         ["a plate with food on it", "food on a white plate"]]
    >>> r = cider(preds, refs)  # pycocoevalcap: 2.1720966845578253, [1.99277643, 2.70612126, 1.81739236]
    >>> round(r.score, 6), [round(s, 6) for s in r.segments]
    (2.172097, [1.992776, 2.706121, 1.817392])
    >>> round(cider(preds, refs, preset="cider").score, 6)  # the original CIDEr: no clipping, no length penalty
    2.227358
    """,
    segments=True,
)
