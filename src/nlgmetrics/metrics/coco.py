"""The COCO caption evaluation: BLEU-1..4, ROUGE-L and CIDEr-D as pycocoevalcap 1.2's ``COCOEvalCap`` reports them.

``coco(predictions, references)`` tokenizes every caption once, as pycocoevalcap's ``PTBTokenizer`` does
(:mod:`nlgmetrics.text.ptb`, pure Python), and scores the tokens with the library's own families, each in its
pycocoevalcap convention, so that no metric is implemented twice:

* ``Bleu_1`` ... ``Bleu_4``: the BLEU family, ``convention="coco"`` (``Bleu(4)``: closest reference length, its
  ``1e-15``/``1e-9`` arithmetic), one set of statistics for the four orders;
* ``ROUGE_L``: the ROUGE family, preset ``coco`` (``Rouge()``: LCS, beta 1.2, the best precision and the best
  recall over the references);
* ``CIDEr``: the CIDEr family, preset ``cider-d`` (``Cider()``).

* ``METEOR`` (only with ``meteor=True``): the METEOR 1.5 family (:mod:`nlgmetrics.metrics.meteor.v15`), which runs
  pycocoevalcap's own ``meteor-1.5.jar`` (Java, the ``coco-meteor`` extra) for each image's statistics.

This is ``COCOEvalCap(coco, coco.loadRes(results)).evaluate()`` with ``params["image_id"]`` the images of the
results (pycocoevalcap's example), without SPICE, which downloads Stanford CoreNLP on first use, as nlgmetrics
never does (see ``docs/coco.md``). :func:`read_coco` reads the results and annotations JSON files.

The statistics are the three families' statistics side by side, so they add (CIDEr's carry the tokenized
captions, see :mod:`nlgmetrics.metrics.cider`): batches, ``merge`` and DDP give the numbers of one call.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from .._inputs import ReferenceSets
from ..errors import InvalidInputError
from ..signature import sig_field
from ..stats import Carried, Records, Stats, StatsBatch
from ..text.tokenizers import choices, resolve, tokenizer_help
from .base import Family, Result, signature_of
from .bleu import BLEU, BLEUStats, bleu_from_stats
from .bleu.arith import convention_score
from .cider import CIDER, CiderStats, cider_from_stats
from .meteor.v15 import METEOR15, STATS_LENGTH, Meteor15Stats, meteor15_from_stats
from .rouge import ROUGE, RougeStats, rouge_from_stats

__all__ = ["COCO", "CocoConfig", "CocoResult", "CocoStats", "coco", "read_coco"]

TOKENIZERS = choices("coco")
#: pycocoevalcap's names of the scores (the keys of ``COCOEvalCap.eval``), METEOR with ``meteor=True``.
NAMES = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr")


@dataclasses.dataclass(frozen=True)
class CocoConfig:
    """``tokenizer``: ``"coco"`` (pycocoevalcap's PTB tokenization) or ``"none"`` (captions already tokenized,
    as pycocoevalcap's scorers receive them). ``meteor``: also METEOR 1.5, from pycocoevalcap's
    ``meteor-1.5.jar`` (needs Java and ``pip install 'nlgmetrics[coco-meteor]'``; starts a JVM)."""

    tokenizer: str = sig_field(
        "tok",
        "coco",
        help=tokenizer_help("coco", "coco: pycocoevalcap's PTB tokenizer; none: already tokenized"),
        choices=TOKENIZERS,
    )
    meteor: bool = sig_field(
        "meteor", False, help="also METEOR 1.5 (pycocoevalcap's meteor-1.5.jar: needs Java and the coco-meteor extra)"
    )
    preset: str | None = sig_field("preset", None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokenizer", resolve(self.tokenizer, "coco"))
        if not isinstance(self.meteor, bool):
            raise InvalidInputError(f"meteor must be True or False, got {self.meteor!r}")


@dataclasses.dataclass(frozen=True)
class CocoStats(Stats):
    """The statistics of the three families side by side: BLEU's matches, totals and lengths; ROUGE-L's sums of
    the per-image precision, recall and F (each in two exact parts, see :class:`~nlgmetrics.metrics.rouge.
    RougeStats`); CIDEr's records; METEOR 1.5's statistics (the jar's 23 counts, zeros without ``meteor=True``);
    and the number of images and references."""

    matches: tuple[int, ...]
    totals: tuple[int, ...]
    hyp_len: int
    ref_len: int
    rouge_precision: float
    rouge_recall: float
    rouge_fmeasure: float
    rouge_precision_low: float
    rouge_recall_low: float
    rouge_fmeasure_low: float
    images: Records
    meteor: tuple[int, ...]
    count: int
    references: int
    #: ROUGE's remainders may be negative (as in RougeStats)
    signed_fields: ClassVar[frozenset[str]] = frozenset(
        {"rouge_precision_low", "rouge_recall_low", "rouge_fmeasure_low"}
    )

    tuple_fields: ClassVar[Mapping[str, int]] = {"matches": 4, "totals": 4, "meteor": STATS_LENGTH}
    carried_fields: ClassVar[Mapping[str, type[Carried]]] = {"images": Records}


@dataclasses.dataclass(frozen=True, kw_only=True)
class CocoResult(Result):
    """``score`` maps pycocoevalcap's names (``Bleu_1`` ... ``Bleu_4``, ``METEOR`` with ``meteor=True``,
    ``ROUGE_L``, ``CIDEr``) to the corpus scores (``COCOEvalCap.eval``); ``segments`` (with ``segments=True``)
    holds one such dict per image (``COCOEvalCap.imgToEval``). ``bleu``, ``meteor``, ``rouge`` and ``cider`` are
    the families' own results (BLEU-4's with its counts, ...)."""

    bleu: tuple[Any, ...] = ()
    meteor: Any = None
    rouge: Any = None
    cider: Any = None
    images: int = 0
    references: int = 0
    segments: tuple[dict[str, float], ...] | None = None  # type: ignore[assignment]

    def headline_values(self) -> dict[str, float]:
        return dict(self.score)

    def __getitem__(self, name: str) -> float:
        return float(self.score[name])

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"score": dict(self.score), "signature": self.signature}
        out["images"], out["references"] = self.images, self.references
        out["bleu"] = {f"Bleu_{k + 1}": r.to_dict() for k, r in enumerate(self.bleu)}
        out["meteor"] = self.meteor.to_dict() if self.meteor is not None else None
        out["rouge"] = self.rouge.to_dict() if self.rouge is not None else None
        cider = self.cider.to_dict() if self.cider is not None else None
        if cider is not None:
            cider.pop("segments", None)
        out["cider"] = cider
        out["segments"] = None if self.segments is None else [dict(s) for s in self.segments]
        return out


# ============================================================================================ the families' configs
def _configs(cfg: CocoConfig) -> tuple[Any, Any, Any]:
    bleu_cfg = BLEU.make_config("coco", tokenizer="whitespace")  # on the tokenized captions: str.split()
    rouge_cfg = ROUGE.make_config("coco", tokenizer="coco-rouge-tokenized")
    cider_cfg = CIDER.make_config("cider-d", tokenizer="none")
    return bleu_cfg, rouge_cfg, cider_cfg


def _kernel(preds: list[str], refs: ReferenceSets, cfg: CocoConfig) -> StatsBatch[CocoStats]:
    if cfg.tokenizer == "coco":
        from ..text.ptb import coco_tokenize_stream

        # pycocoevalcap tokenizes the predictions as one file and the references as another (see ptb)
        preds = coco_tokenize_stream(preds)
        refs = ReferenceSets(coco_tokenize_stream(refs.flat), refs.starts)
    bleu_cfg, rouge_cfg, cider_cfg = _configs(cfg)
    b = BLEU.kernel(preds, refs, bleu_cfg).columns
    r = ROUGE.kernel(preds, refs, rouge_cfg).columns
    c = CIDER.kernel(preds, refs, cider_cfg).columns
    if cfg.meteor:
        from .meteor.v15 import stats_rows

        meteor = stats_rows(preds, refs, _meteor_config())
    else:
        meteor = np.zeros((len(preds), STATS_LENGTH), dtype=np.int64)
    columns = {
        "matches": b["matches"],
        "totals": b["totals"],
        "hyp_len": b["hyp_len"],
        "ref_len": b["ref_len"],
        "images": c["images"],
        "meteor": meteor,
        "count": r["count"],
        "references": c["references"],
    }
    for m in ("precision", "recall", "fmeasure"):
        columns[f"rouge_{m}"] = r[m][:, 0]
        columns[f"rouge_{m}_low"] = r[f"{m}_low"][:, 0]
    return StatsBatch(CocoStats, columns)


def _meteor_config() -> Any:
    return METEOR15.make_config("pycocoevalcap")


def _meteor_stats(meteor: Any, count: Any) -> Meteor15Stats:
    """METEOR 1.5's statistics from the jar's 23 counts (a tuple, or an ``(n, 23)`` array of columns)."""
    from .meteor.v15 import stats_columns

    rows = np.asarray(meteor, dtype=np.int64).reshape(-1, STATS_LENGTH)
    columns: dict[str, Any] = dict(stats_columns(rows))
    if np.ndim(count) == 0:
        columns = {k: tuple(int(x) for x in v[0]) if v.ndim == 2 else int(v[0]) for k, v in columns.items()}
    return Meteor15Stats(**columns, count=count)


def _bleu_stats(stats: CocoStats, order: int) -> BLEUStats:
    n = int(stats.count)
    return BLEUStats(
        matches=tuple(int(x) for x in stats.matches[:order]),
        totals=tuple(int(x) for x in stats.totals[:order]),
        short=(0,) * order,
        hyp_len=int(stats.hyp_len),
        ref_len=int(stats.ref_len),
        n_segments=n,
        n_refs=int(stats.references),
        n_refs_sq=0,
        tail=0,
        tail_hyp_len=0,
        tail_matches5=0,
        tail_total5=0,
    )


def coco_from_stats(stats: CocoStats, cfg: CocoConfig) -> CocoResult:
    """BLEU-1..4, ROUGE-L and CIDEr-D from the summed statistics, by each family's own formula."""
    bleu_cfg, rouge_cfg, cider_cfg = _configs(cfg)
    bleus = tuple(
        bleu_from_stats(_bleu_stats(stats, k), dataclasses.replace(bleu_cfg, max_order=k)) for k in range(1, 5)
    )
    rouge_stats = RougeStats(
        precision=(stats.rouge_precision,),
        recall=(stats.rouge_recall,),
        fmeasure=(stats.rouge_fmeasure,),
        precision_low=(stats.rouge_precision_low,),
        recall_low=(stats.rouge_recall_low,),
        fmeasure_low=(stats.rouge_fmeasure_low,),
        count=int(stats.count),
    )
    rouge = rouge_from_stats(rouge_stats, rouge_cfg)
    cider = cider_from_stats(CiderStats(images=stats.images, references=int(stats.references)), cider_cfg)
    score = {f"Bleu_{k + 1}": float(b.score) for k, b in enumerate(bleus)}
    meteor = None
    if cfg.meteor:
        meteor = meteor15_from_stats(_meteor_stats(stats.meteor, int(stats.count)), _meteor_config())
        score["METEOR"] = float(meteor.score)
    score["ROUGE_L"] = float(rouge.f1["rougeL"])
    score["CIDEr"] = float(cider.score)
    return CocoResult(
        score=score,
        bleu=bleus,
        meteor=meteor,
        rouge=rouge,
        cider=cider,
        images=int(stats.count),
        references=int(stats.references),
    )


class CocoFamily(Family[CocoConfig, CocoStats, CocoResult]):
    """Per-image scores: BLEU and ROUGE-L from each image's statistics, CIDEr from the corpus formula."""

    def segment_scores(self, batch: StatsBatch[CocoStats], config: CocoConfig) -> tuple[Any, ...]:  # type: ignore[override]
        if len(batch) == 0:
            return ()
        _, _, cider_cfg = _configs(config)
        cider = cider_from_stats(CiderStats(images=batch.columns["images"].total(), references=0), cider_cfg)
        cols = batch.columns
        rouge = (cols["rouge_fmeasure"] + cols["rouge_fmeasure_low"]).tolist()
        matches, totals = cols["matches"].tolist(), cols["totals"].tolist()
        hyp, ref = cols["hyp_len"].tolist(), cols["ref_len"].tolist()
        bleu_cfg = _configs(config)[0]
        meteor: list[float] = []
        if config.meteor:
            per_image = _meteor_stats(cols["meteor"], cols["count"])
            meteor = np.asarray(meteor15_from_stats(per_image, _meteor_config()).score, dtype=np.float64).tolist()
        out = []
        for i, c in enumerate(cider.segments or ()):
            row: dict[str, float] = {}
            for k in range(1, 5):
                stats = BLEUStats(
                    tuple(matches[i][:k]), tuple(totals[i][:k]), (0,) * k, hyp[i], ref[i], 1, 1, 1, 0, 0, 0, 0
                )
                row[f"Bleu_{k}"] = convention_score(stats, dataclasses.replace(bleu_cfg, max_order=k))
            if meteor:
                row["METEOR"] = meteor[i]
            row["ROUGE_L"] = rouge[i]
            row["CIDEr"] = c
            out.append(row)
        return tuple(out)

    def finalize(self, total: CocoStats, config: CocoConfig, batch: StatsBatch[CocoStats] | None = None) -> CocoResult:
        result = self.formula(total, config)
        changes: dict[str, Any] = {"signature": signature_of(self, config)}
        if batch is not None:
            changes["segments"] = self.segment_scores(batch, config)
        return dataclasses.replace(result, **changes)


COCO = CocoFamily(
    name="coco",
    config_cls=CocoConfig,
    stats_cls=CocoStats,
    kernel=_kernel,
    formula=coco_from_stats,
    presets={"pycocoevalcap": {"tokenizer": "coco"}},
    default_preset="pycocoevalcap",
    bounds=(0.0, None),
    stats_sizes=lambda cfg: {"matches": 4, "totals": 4, "meteor": STATS_LENGTH},
    example=CIDER.example,  # the same three captioned images
)


def coco(
    predictions: Sequence[str] | str,
    references: Sequence[str | Sequence[str]] | str,
    *,
    segments: bool = False,
    **options: Any,
) -> CocoResult:
    """BLEU-1..4, ROUGE-L and CIDEr-D of image captions, as pycocoevalcap 1.2's ``COCOEvalCap`` computes them.

    ``references`` holds one string or a list of strings per image. ``segments=True`` adds each image's scores
    (``COCOEvalCap.imgToEval``). ``meteor=True`` adds ``METEOR`` (METEOR 1.5 from pycocoevalcap's
    ``meteor-1.5.jar``: needs Java and ``pip install 'nlgmetrics[coco-meteor]'``; the first call of a process
    starts the JVM, a few seconds). For the COCO results and annotations JSON files, see :func:`read_coco`.

    >>> preds = ["a man is riding a horse", "two dogs play in the snow", "a plate of food"]
    >>> refs = [["a man rides a horse on the beach", "a person riding a brown horse"],
    ...         ["two dogs are playing in the snow", "dogs run through the snow"],
    ...         ["a plate with food on it", "food on a white plate"]]
    >>> {k: round(v, 4) for k, v in coco(preds, refs).score.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'Bleu_1': 0.8125, 'Bleu_2': 0.6614, 'Bleu_3': 0.3524, 'Bleu_4': 0.0, 'ROUGE_L': 0.6682, 'CIDEr': 2.1721}
    """
    cfg = COCO.make_config(None, **options)
    return COCO.compute(predictions, references, cfg, segments=segments)


# ============================================================================================ COCO JSON files
def parse_coco_json(text: str, name: str) -> Any:
    """The JSON value of a COCO file's text, or :class:`InvalidInputError` naming ``name`` and the line (JSON
    nested too deeply for the parser and numbers too long to convert are errors too, never tracebacks)."""
    from .._files import parse_json

    too_deep = "the JSON is nested too deeply to read (a COCO file nests 3 levels)"
    return parse_json(text, name, at_line=name, error=InvalidInputError, too_deep=too_deep)


def _load_json(value: Any, what: str) -> tuple[Any, str]:
    """``(the JSON value, how messages name it)`` of a path or of already loaded JSON."""
    if isinstance(value, (str, os.PathLike)):
        from .._files import InputFileError, read_text

        path = os.fspath(value)
        try:
            text = read_text(path, what)
        except InputFileError as e:
            raise InvalidInputError(str(e)) from None
        return parse_coco_json(text, path), f"{what} {path}"
    return value, what


def _image_id(value: Any, where: str, field: str = "image_id") -> int | str:
    """An image id as pycocotools keys images: an integer or a string (a list, an object, a float, a boolean or
    null is an error naming ``where``)."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    kind = {dict: "an object", list: "a list", float: "a number", bool: "a boolean", type(None): "null"}
    shown = f" ({value!r:.40})" if value is not None else ""
    raise InvalidInputError(
        f"{where}: {field} is {kind.get(type(value), type(value).__name__)}{shown}; expected an integer or a string"
    )


def read_coco(results: Any, annotations: Any) -> tuple[list[Any], list[str], list[list[str]]]:
    """The images, predictions and references of a COCO caption evaluation.

    ``results`` is the results file (or its loaded JSON): a list of ``{"image_id": ..., "caption": ...}``, one
    caption per image, as pycocotools' ``COCO.loadRes`` takes it; the same list under an ``"annotations"`` key
    (``{"annotations": [...]}``, the layout of the annotations file) is read the same way. ``annotations`` is
    the annotations file (``captions_val2014.json``): a JSON object whose ``"annotations"`` list holds
    ``{"image_id", "caption"}``, several per image, and whose optional ``"images"`` list holds ``{"id"}``. The
    images scored are those of the results, in the order of the annotations' ``"images"`` list (``loadRes``), as
    pycocoevalcap's example scores them.

    Anything else is an error that names the file and the entry, never read another way: a file that is not one
    of these layouts, an image id that is not an integer or a string, a caption that is not a string, an image of
    the results that the annotations do not know, an image with two captions in the results, an image without
    reference captions, and results that are the annotations themselves. Empty captions are scored as
    pycocoevalcap scores them.

    Returns ``(image_ids, predictions, references)``: ``coco(*read_coco(r, a)[1:])``.
    """
    res, res_name = _load_json(results, "the results")
    ann, ann_name = _load_json(annotations, "the annotations")
    return _read_coco(res, ann, res_name, ann_name)


def _read_coco(res: Any, ann: Any, res_name: str, ann_name: str) -> tuple[list[Any], list[str], list[list[str]]]:
    res_list = res.get("annotations") if isinstance(res, dict) else res
    if not isinstance(res_list, list):
        raise InvalidInputError(
            f'{res_name}: the results must be a JSON list of {{"image_id": ..., "caption": ...}} objects (or that '
            'list under an "annotations" key)'
        )
    if not isinstance(ann, dict) or not isinstance(ann.get("annotations"), list):
        raise InvalidInputError(
            f'{ann_name}: the annotations must be a JSON object with an "annotations" list (COCO captions)'
        )
    if res_list and res_list == ann["annotations"]:
        raise InvalidInputError(
            f"{res_name}: these results are the reference captions of {ann_name} themselves; give the captions of "
            "the system to score"
        )
    refs: dict[Any, list[str]] = {}
    for i, a in enumerate(ann["annotations"]):
        where = f"{ann_name}: annotations[{i}]"
        if not isinstance(a, dict) or "image_id" not in a or "caption" not in a:
            raise InvalidInputError(f'{where} has no "image_id" and "caption"')
        img = _image_id(a["image_id"], where)
        if not isinstance(a["caption"], str):
            raise InvalidInputError(f"{where}: the caption (image {img!r}) is not a string")
        refs.setdefault(img, []).append(a["caption"])
    images = ann.get("images", [])
    if not isinstance(images, list):
        raise InvalidInputError(f'{ann_name}: "images" must be a list of {{"id": ...}} objects')
    known: list[Any] = []
    for i, entry in enumerate(images):
        if not isinstance(entry, dict) or "id" not in entry:
            raise InvalidInputError(f'{ann_name}: images[{i}] has no "id"')
        known.append(_image_id(entry["id"], f"{ann_name}: images[{i}]", "id"))
    known_set = set(known) | set(refs)
    preds: dict[Any, str] = {}
    for i, r in enumerate(res_list):
        if not isinstance(r, dict) or "image_id" not in r or "caption" not in r:
            raise InvalidInputError(f'{res_name}: item {i} has no "image_id" and "caption"')
        img = _image_id(r["image_id"], f"{res_name}: item {i}")
        cap = r["caption"]
        if not isinstance(cap, str):
            raise InvalidInputError(f"{res_name}: the caption of image {img!r} (item {i}) is not a string")
        if img not in known_set:
            raise InvalidInputError(f"{res_name}: image {img!r} (item {i}) is not in the annotations")
        if img in preds:
            raise InvalidInputError(f"{res_name}: image {img!r} has more than one caption (item {i})")
        preds[img] = cap
    if not preds:
        raise InvalidInputError(f"{res_name} holds no caption: there is nothing to score")
    order = [i for i in dict.fromkeys(known) if i in preds] if known else []
    seen = set(order)
    order += [i for i in preds if i not in seen]
    for img in order:
        if not refs.get(img):
            raise InvalidInputError(f"{ann_name}: image {img!r} has no reference caption")
    return order, [preds[i] for i in order], [refs[i] for i in order]
