"""COMET, CometKiwi and XCOMET: unbabel-comet 2.2.7's numbers from a local checkpoint, without unbabel-comet.

Preset ``unbabel-comet`` (the only one) reproduces, in float32,

    ``comet.load_from_checkpoint(PATH).predict(samples, gpus=0)`` of unbabel-comet 2.2.7,

per segment (``scores``) and for the system (``system_score``, the mean), for the three architectures:

* ``comet``: ``RegressionMetric`` checkpoints (``Unbabel/wmt22-comet-da``, ``wmt20-comet-da``,
  ``eamt22-cometinho-da``): sources, translations and references;
* ``cometkiwi``: ``UnifiedMetric`` checkpoints (``Unbabel/wmt22-cometkiwi-da``, ``wmt23-cometkiwi-da-xl``):
  sources and translations (quality estimation), and references too when the checkpoint reads them;
* ``xcomet``: ``XCOMETMetric`` checkpoints (``Unbabel/XCOMET-XL``, ``XCOMET-XXL``): translations with sources
  and/or references; ``error_spans`` per segment.

The architectures are described in :mod:`nlgmetrics.metrics.comet.model` and ``docs/learned.md``. The layer mix
actually applied is the one unbabel-comet 2.2.7 applies (COMET #195: a Hub model whose hparams.yaml says
``sparsemax_patch`` runs softmax), and it is named in the signature.

The signature holds the checkpoint's digest (weights and hparams.yaml), the encoder's digest (config and tokenizer
files), the mix, the layer norm, the truncation (tokens per text), dtype and device: never a path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ...errors import InvalidInputError
from ...signature import build_signature, sig_field
from ...stats import CarriedColumn, Records, StatsBatch
from ..learned import (
    LearnedFamily,
    LearnedResult,
    LearnedStats,
    SpanStats,
    check_common,
    learned_formula,
    resolve_device,
    span_records,
)
from .checkpoint import (
    ARCHITECTURES,
    ENCODERS,
    CheckpointError,
    ResolvedModel,
    check_class,
    effective_mix,
    file_digest,
    find_checkpoint,
    read_hparams,
)

__all__ = [
    "COMET",
    "COMETKIWI",
    "XCOMET",
    "CheckpointError",
    "CometConfig",
    "comet",
    "cometkiwi",
    "xcomet",
]


@dataclasses.dataclass(frozen=True)
class CometConfig(ResolvedModel):
    """Options of the COMET families.

    * ``model``: a checkpoint folder (``hparams.yaml`` + ``checkpoints/model.ckpt``), the ``.ckpt`` file, or a
      Hub id (``Unbabel/wmt22-comet-da``) in the local Hugging Face cache.
    * ``encoder``: a folder (or cached Hub id) with the encoder's ``config.json`` and tokenizer files (default:
      hparams.yaml's ``pretrained_model``); ``tokenizer``: another folder for the tokenizer alone (default: the
      encoder's; ``xlm-roberta-base`` for a MiniLM encoder, as unbabel-comet).
    * ``dtype`` (``float32``; ``bfloat16``/``float16`` on a GPU) and ``device`` (default: ``cuda`` when
      available).
    * ``batch_size``: at most this many texts per forward pass (default: a token budget); ``cache``: keep the
      sentence embeddings of COMET-22 across calls (sources and references shared by several systems are encoded
      once); ``allow_download``: fetch what is neither local nor cached. These change no number.
    """

    model: str | None = sig_field(None, None, help="checkpoint folder, .ckpt file, or Hub id in the local cache")
    encoder: str | None = sig_field(None, None, help="folder with the encoder's config.json and tokenizer")
    tokenizer: str | None = sig_field(None, None, help="folder with the tokenizer (default: the encoder's)")
    dtype: str = sig_field(None, "float32", help="model precision", choices=("float32", "bfloat16", "float16"))
    device: str | None = sig_field(None, None, help="torch device (default: cuda when available)")
    batch_size: int | None = sig_field(None, None, help="at most this many texts per forward pass")
    cache: bool = sig_field(None, True, help="keep sentence embeddings across calls")
    allow_download: bool = sig_field(None, False, help="download a model missing from the local cache")
    preset: str | None = sig_field(None, None)

    #: the family this config is for (set by the family)
    family: str = dataclasses.field(default="comet", repr=False, metadata={"role": "internal"})

    def __post_init__(self) -> None:
        check_common(self)
        ckpt = find_checkpoint(self.model, allow_download=self.allow_download)  # type: ignore[arg-type]
        hp = read_hparams(ckpt.hparams_file)
        ident = check_class(hp, ckpt.hparams_file)
        wanted = ARCHITECTURES[ident]
        if wanted != self.family and not (self.family == "cometkiwi" and wanted == "xcomet"):
            raise InvalidInputError(
                f"{ckpt.hparams_file}: class_identifier {ident!r} is scored by {wanted}, not by {self.family} "
                f"(use nlgmetrics.{wanted} / `nlgmetrics {wanted}`)"
            )
        enc_name = hp.get("encoder_model", "XLM-RoBERTa")
        if enc_name not in ENCODERS:
            raise InvalidInputError(
                f"{ckpt.hparams_file}: unknown encoder_model {enc_name!r}; known: {', '.join(ENCODERS)}"
            )
        from ..learned_text import resolve_folder

        hint = "pass encoder=<folder holding the encoder's config.json and tokenizer files> (CLI: --encoder)"
        enc = resolve_folder(
            self.encoder or str(hp.get("pretrained_model", "xlm-roberta-large")),
            what="COMET encoder",
            hint=hint,
            allow_download=self.allow_download,
            base=ckpt.folder,
        )
        tok_name = self.tokenizer or ENCODERS[enc_name].tokenizer
        tok = (
            enc
            if tok_name is None
            else resolve_folder(
                tok_name,
                what="COMET tokenizer",
                hint="pass tokenizer=<folder with the tokenizer files> (CLI: --tokenizer)",
                allow_download=self.allow_download,
                base=ckpt.folder,
            )
        )
        import json

        try:
            enc_config = json.loads((enc / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise CheckpointError(f"{enc / 'config.json'}: cannot read the encoder's config ({err})") from err
        positions = int(enc_config.get("max_position_embeddings", 514)) - 2
        segments = list(hp.get("input_segments", ["mt", "src", "ref"]))
        if ident == "xcomet_metric":
            segments = ["mt", "src", "ref"]
        files = [p for p in sorted(enc.iterdir()) if p.name == "config.json"]
        files += [
            p for p in sorted(tok.iterdir()) if p.suffix in (".json", ".model", ".txt") and p.name != "config.json"
        ]
        resolved = {
            "checkpoint": ckpt,
            "class": ident,
            "encoder_folder": str(enc),
            "tokenizer_folder": str(tok),
            "digest": ckpt.digest(),
            "encoder_digest": file_digest(files),
            "mix": effective_mix(hp, hp) if hp.get("layer", hp.get("sent_layer", "mix")) == "mix" else "none",
            "layer_norm": bool(hp.get("layer_norm", True)),
            "truncation": positions - 2,
            "segments": segments,
            "device": resolve_device(self.device),
        }
        self._set_resolved(resolved)

    def check_inputs_given(self, sources: bool, references: bool) -> None:
        r = self.resolved
        segments = r["segments"]
        if r["class"] == "unified_metric":
            if references and "ref" not in segments:
                raise InvalidInputError(
                    f"this {self.family} checkpoint reads {' + '.join(segments)} (input_segments): it takes no "
                    "references; drop them"
                )
            if not sources and "src" in segments and not references:
                raise InvalidInputError(f"{self.family} needs sources: pass sources= (one source text per prediction)")
        if r["class"] == "xcomet_metric" and not sources and not references:
            raise InvalidInputError("xcomet needs sources=, references, or both")

    def signature(self) -> str:
        r = self.resolved
        extra = {
            "ckpt": r["digest"],
            "enc": r["encoder_digest"],
            "mix": r["mix"],
            "ln": r["layer_norm"],
            "trunc": r["truncation"],
            "dtype": self.dtype,
            "dev": r["device"].split(":")[0],
        }
        return build_signature(self.family, None, extra)


def _model(cfg: CometConfig) -> Any:
    from .model import get_model

    r = cfg.resolved
    m = get_model(
        r["checkpoint"],
        encoder=r["encoder_folder"],
        tokenizer=r["tokenizer_folder"],
        device=r["device"],
        dtype=cfg.dtype,
        allow_download=cfg.allow_download,
    )
    if cfg.batch_size is not None:
        m.max_batch = cfg.batch_size
    return m


def _regression_kernel(
    preds: list[str], refs: Any, cfg: CometConfig, *, sources: list[str] | None = None
) -> StatsBatch[LearnedStats]:
    assert sources is not None
    assert refs is not None
    model = _model(cfg)
    scores = model.regression(sources, preds, refs.flat, cache=cfg.cache)
    return StatsBatch.from_lists(LearnedStats, {"score": scores, "count": [1] * len(scores)})


def _unified_kernel(
    preds: list[str], refs: Any, cfg: CometConfig, *, sources: list[str] | None = None
) -> StatsBatch[SpanStats]:
    model = _model(cfg)
    scores, spans = model.unified(preds, sources, refs.flat if refs is not None else None)
    records = span_records(spans) if spans is not None else [Records(((),)) for _ in scores]
    return StatsBatch(
        SpanStats,
        {
            "score": _floats(scores),
            "count": _ones(len(scores)),
            "spans": CarriedColumn(Records, records),
        },
    )


def _floats(values: Sequence[float]) -> Any:
    import numpy as np

    return np.asarray(values, dtype=np.float64)


def _ones(n: int) -> Any:
    import numpy as np

    return np.ones(n, dtype=np.int64)


_PRESETS = {"unbabel-comet": {"dtype": "float32"}}


def _family(
    name: str, stats: type, kernel: Any, *, refs: bool | None, srcs: bool | None, example: Any
) -> LearnedFamily:
    return LearnedFamily(
        name=name,
        config_cls=_config_cls(name),
        stats_cls=stats,
        kernel=kernel,
        formula=learned_formula,
        presets=_PRESETS,
        default_preset="unbabel-comet",
        single_reference=True,
        vectorized=True,
        higher_is_better=True,
        uses_sources=True,
        example=example,
        needs_references=refs,
        needs_sources=srcs,
    )


def _config_cls(name: str) -> type:
    """A config class per family (the same options; the family name is what it checks the checkpoint against)."""

    @dataclasses.dataclass(frozen=True)
    class _Config(CometConfig):
        family: str = dataclasses.field(default=name, repr=False, metadata={"role": "internal"})

    _Config.__name__ = _Config.__qualname__ = {"comet": "CometConfig", "cometkiwi": "CometKiwiConfig"}.get(
        name, "XCOMETConfig"
    )
    return _Config


#: Two segments (English-Japanese and German-English) for the catalogue's interface tests.
EXAMPLE = {
    "predictions": ["猫がマットの上に座った。", "The weather is nice today."],
    "references": ["猫はマットの上に座っていた。", "Today the weather is beautiful."],
    "sources": ["The cat sat on the mat.", "Das Wetter ist heute schön."],
}

COMET = _family("comet", LearnedStats, _regression_kernel, refs=True, srcs=True, example=EXAMPLE)
COMETKIWI = _family("cometkiwi", SpanStats, _unified_kernel, refs=None, srcs=True, example=EXAMPLE)
XCOMET = _family("xcomet", SpanStats, _unified_kernel, refs=None, srcs=None, example=EXAMPLE)


def _run(
    family: LearnedFamily,
    predictions: Any,
    references: Any,
    sources: Any,
    segments: bool,
    options: dict[str, Any],
) -> LearnedResult:
    cfg = family.make_config(options.pop("preset", None), **options)
    return family.compute(predictions, references, cfg, segments=segments, sources=sources)


def comet(
    predictions: Sequence[str] | str,
    references: Sequence[str] | str,
    *,
    sources: Sequence[str] | str,
    model: str,
    encoder: str | None = None,
    tokenizer: str | None = None,
    segments: bool = False,
    device: str | None = None,
    dtype: str = "float32",
    batch_size: int | None = None,
    cache: bool = True,
    allow_download: bool = False,
    preset: str | None = None,
) -> LearnedResult:
    """COMET-22 (``RegressionMetric``) scores, as unbabel-comet 2.2.7's ``predict()``: ``score`` is the system
    score (the mean), ``scores`` the segment scores with ``segments=True``."""
    return _run(COMET, predictions, references, sources, segments, _options(locals()))


def cometkiwi(
    predictions: Sequence[str] | str,
    references: Sequence[str] | str | None = None,
    *,
    sources: Sequence[str] | str,
    model: str,
    encoder: str | None = None,
    tokenizer: str | None = None,
    segments: bool = False,
    device: str | None = None,
    dtype: str = "float32",
    batch_size: int | None = None,
    cache: bool = True,
    allow_download: bool = False,
    preset: str | None = None,
) -> LearnedResult:
    """CometKiwi (``UnifiedMetric``) scores: quality estimation from sources and translations (references only
    for a checkpoint that reads them), as unbabel-comet 2.2.7's ``predict()``."""
    return _run(COMETKIWI, predictions, references, sources, segments, _options(locals()))


def xcomet(
    predictions: Sequence[str] | str,
    references: Sequence[str] | str | None = None,
    *,
    sources: Sequence[str] | str | None = None,
    model: str,
    encoder: str | None = None,
    tokenizer: str | None = None,
    segments: bool = False,
    device: str | None = None,
    dtype: str = "float32",
    batch_size: int | None = None,
    cache: bool = True,
    allow_download: bool = False,
    preset: str | None = None,
) -> LearnedResult:
    """XCOMET scores and error spans, as unbabel-comet 2.2.7's ``predict()`` (with sources and references, or
    either alone); ``error_spans`` per segment with ``segments=True``."""
    return _run(XCOMET, predictions, references, sources, segments, _options(locals()))


def _options(values: dict[str, Any]) -> dict[str, Any]:
    skip = {"predictions", "references", "sources", "segments"}
    return {k: v for k, v in values.items() if k not in skip and not (k == "preset" and v is None)}
