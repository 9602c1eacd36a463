"""MetricX-24 (hybrid): google-research/metricx's numbers from a local checkpoint, without the metricx repository.

Preset ``metricx-24`` (the only one) reproduces

    ``python -m metricx24.predict --tokenizer google/mt5-xl --model_name_or_path MODEL --max_input_length 1536
    --batch_size 1 --input_file IN.jsonl --output_file OUT.jsonl [--qe]``

of google-research/metricx at commit fc4978e (``MT5ForRegression``, transformers 4.30.2 as its requirements pin):
each segment's ``prediction``, an error score in ``[0, 25]`` (lower is better); the system score is the mean.
Reference-based with references (``source: … candidate: … reference: …``), quality estimation without them
(``qe=True``: ``source: … candidate: …``), both from the same hybrid checkpoint. See
:mod:`nlgmetrics.metrics.metricx.model` and ``docs/learned.md``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from ...errors import InvalidInputError, unknown_option
from ...signature import build_signature, sig_field
from ...stats import StatsBatch
from ..comet.checkpoint import CheckpointError, ResolvedModel, file_digest
from ..learned import DTYPES, LearnedFamily, LearnedResult, LearnedStats, learned_formula, resolve_device
from ..learned_text import resolve_folder

__all__ = ["METRICX", "MetricXConfig", "metricx", "metricx_input"]

#: Known checkpoints: Hub id -> size of the download.
KNOWN_MODELS = {
    "google/metricx-24-hybrid-large-v2p6": "4.9 GB",
    "google/metricx-24-hybrid-xl-v2p6": "15 GB",
    "google/metricx-24-hybrid-xxl-v2p6": "52 GB",
    "google/metricx-24-hybrid-large-v2p6-bfloat16": "2.5 GB",
    "google/metricx-24-hybrid-xl-v2p6-bfloat16": "7.5 GB",
    "google/metricx-24-hybrid-xxl-v2p6-bfloat16": "26 GB",
}


def metricx_input(source: str, candidate: str, reference: str | None) -> str:
    """metricx24/predict.py's ``_make_input``."""
    if reference is None:
        return "source: " + source + " candidate: " + candidate
    return "source: " + source + " candidate: " + candidate + " reference: " + reference


def _model_folder(name: str, allow_download: bool) -> Path:
    hint = "pass model=<folder holding config.json and model.safetensors>"
    path = Path(name).expanduser()
    if path.is_file():
        path = path.parent
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise CheckpointError(f"MetricX model folder {path} holds no config.json")
        return path
    size = KNOWN_MODELS.get(name, "several GB")
    return resolve_folder(
        name,
        what="MetricX model",
        hint=f"{hint}; to fetch it: hf download {name}  (about {size}, Apache-2.0)",
        allow_download=allow_download,
    )


@dataclasses.dataclass(frozen=True)
class MetricXConfig(ResolvedModel):
    """Options of MetricX-24.

    * ``model``: a folder (``config.json`` + ``model.safetensors``) or a Hub id in the local Hugging Face cache
      (``google/metricx-24-hybrid-large-v2p6``); ``tokenizer``: mT5's tokenizer (default ``google/mt5-xl``, as
      the metricx README).
    * ``qe``: quality estimation (no references); ``None``: QE exactly when no references are given.
    * ``max_input_length``: tokens of the input (1,536 for MetricX-24).
    * ``dtype``: ``auto`` (the checkpoint's, as ``torch_dtype="auto"``), ``float32``, ``bfloat16``, ``float16``;
      ``device``; ``batch_size`` (at most this many inputs per forward pass; the numbers do not change);
      ``allow_download``.
    """

    model: str | None = sig_field(None, None, help="model folder or Hub id in the local cache")
    tokenizer: str = sig_field(None, "google/mt5-xl", help="mT5 tokenizer folder or cached Hub id")
    qe: bool | None = sig_field(None, None, help="quality estimation: no references")
    max_input_length: int = sig_field(None, 1536, help="tokens of the input")
    dtype: str = sig_field(None, "auto", help="model precision", choices=("auto", *DTYPES))
    device: str | None = sig_field(None, None, help="torch device (default: cuda when available)")
    batch_size: int | None = sig_field(None, None, help="at most this many inputs per forward pass")
    allow_download: bool = sig_field(None, False, help="download a model missing from the local cache")
    preset: str | None = sig_field(None, None)

    def __post_init__(self) -> None:
        if self.model is None or not isinstance(self.model, str) or not self.model:
            raise InvalidInputError("model= is required: a MetricX-24 model folder or a Hub id in the local cache")
        if self.dtype not in ("auto", *DTYPES):
            raise unknown_option("dtype", self.dtype, ("auto", *DTYPES))
        if self.qe is not None and not isinstance(self.qe, bool):
            raise InvalidInputError(f"qe must be True, False or None, got {self.qe!r}")
        n = self.max_input_length
        if isinstance(n, bool) or not isinstance(n, int) or n < 2:
            raise InvalidInputError(f"max_input_length must be an integer >= 2, got {n!r}")
        size = self.batch_size
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
            raise InvalidInputError(f"batch_size must be a positive integer or None, got {size!r}")
        folder = _model_folder(self.model, self.allow_download)
        tok = resolve_folder(
            self.tokenizer,
            what="MetricX tokenizer",
            hint="pass tokenizer=<folder with mT5's tokenizer files> (the metricx README uses google/mt5-xl)",
            allow_download=self.allow_download,
        )
        try:
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise CheckpointError(f"{folder / 'config.json'}: cannot read the model's config ({err})") from err
        dtype = self.dtype
        if dtype == "auto":
            dtype = str(config.get("torch_dtype") or config.get("dtype") or "float32")
            if dtype not in DTYPES:
                dtype = "float32"
        from .model import weight_files

        tok_files = [p for p in sorted(tok.iterdir()) if p.suffix in (".json", ".model")]
        resolved = {
            "folder": folder,
            "tokenizer_folder": tok,
            "digest": file_digest([folder / "config.json", *weight_files(folder)]),
            "tokenizer_digest": file_digest(tok_files),
            "dtype": dtype,
            "device": resolve_device(self.device),
        }
        self._set_resolved(resolved)

    def check_inputs_given(self, sources: bool, references: bool) -> None:
        if self.qe is True and references:
            raise InvalidInputError("metricx with qe=True takes no references (quality estimation); drop them")
        if self.qe is False and not references:
            raise InvalidInputError("metricx with qe=False needs references: pass one reference per prediction")

    def signature(self, qe: bool | str | None = None) -> str:
        r = self.resolved
        mode = self.qe if self.qe is not None else qe
        extra = {
            "ckpt": r["digest"],
            "tok": r["tokenizer_digest"],
            "qe": "auto" if mode is None else mode,
            "trunc": self.max_input_length,
            "dtype": r["dtype"],
            "dev": r["device"].split(":")[0],
        }
        return build_signature("metricx", None, extra)


@dataclasses.dataclass(frozen=True)
class MetricXStats(LearnedStats):
    """:class:`LearnedStats` plus how many segments were scored as quality estimation (without a reference), so
    that a result summed from partitions or merged states names the mode it was scored in, as one call does."""

    qe: int

    at_most: ClassVar[tuple[tuple[str, str | float], ...]] = (("qe", "count"),)


def _kernel(preds: list[str], refs: Any, cfg: MetricXConfig, *, sources: list[str] | None = None) -> StatsBatch[Any]:
    from .model import get_model

    assert sources is not None
    r = cfg.resolved
    model = get_model(r["folder"], r["tokenizer_folder"], device=r["device"], dtype=r["dtype"])
    if cfg.batch_size is not None:
        model.max_batch = cfg.batch_size
    if refs is None:
        inputs = [metricx_input(s, p, None) for s, p in zip(sources, preds, strict=True)]
    else:
        inputs = [metricx_input(s, p, t) for s, p, t in zip(sources, preds, refs.flat, strict=True)]
    scores = model.score(inputs, cfg.max_input_length)
    qe = [1 if refs is None else 0] * len(scores)
    return StatsBatch.from_lists(MetricXStats, {"score": scores, "count": [1] * len(scores), "qe": qe})


class _MetricXFamily(LearnedFamily):
    def finalize(self, total: Any, config: Any, batch: StatsBatch[Any] | None = None) -> LearnedResult:
        """The result, signed with the mode its segments were scored in (``qe:yes`` when none had a reference,
        ``qe:no`` when all had one; ``qe:auto`` for no segment, and ``qe:mixed`` for states of both kinds merged)."""
        result = super().finalize(total, config, batch)
        mode: bool | str | None = None
        if total.count:
            mode = True if total.qe == total.count else False if total.qe == 0 else "mixed"
        return dataclasses.replace(result, signature=config.signature(mode))


METRICX = _MetricXFamily(
    name="metricx",
    config_cls=MetricXConfig,
    stats_cls=MetricXStats,
    kernel=_kernel,
    formula=learned_formula,
    presets={"metricx-24": {"max_input_length": 1536}},
    default_preset="metricx-24",
    single_reference=True,
    vectorized=True,
    higher_is_better=False,
    bounds=(0.0, 25.0),
    uses_sources=True,
    needs_references=None,
    needs_sources=True,
    example={
        "predictions": ["猫がマットの上に座った。", "The weather is nice today."],
        "references": ["猫はマットの上に座っていた。", "Today the weather is beautiful."],
        "sources": ["The cat sat on the mat.", "Das Wetter ist heute schön."],
    },
)


def metricx(
    predictions: Sequence[str] | str,
    references: Sequence[str] | str | None = None,
    *,
    sources: Sequence[str] | str,
    model: str,
    tokenizer: str = "google/mt5-xl",
    qe: bool | None = None,
    max_input_length: int = 1536,
    segments: bool = False,
    device: str | None = None,
    dtype: str = "auto",
    batch_size: int | None = None,
    allow_download: bool = False,
    preset: str | None = None,
) -> LearnedResult:
    """MetricX-24 error scores (0 to 25, lower is better), as metricx24/predict.py: reference-based with
    ``references``, quality estimation without them. ``score`` is the mean, ``scores`` the segments'."""
    options = {
        "model": model,
        "tokenizer": tokenizer,
        "qe": qe,
        "max_input_length": max_input_length,
        "device": device,
        "dtype": dtype,
        "batch_size": batch_size,
        "allow_download": allow_download,
    }
    cfg = METRICX.make_config(preset, **options)
    return METRICX.compute(predictions, references, cfg, segments=segments, sources=sources)
