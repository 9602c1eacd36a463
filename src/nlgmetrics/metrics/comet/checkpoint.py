"""Finding and reading a COMET checkpoint, offline and without unpickling code. No torch at import.

A COMET model is a folder laid out as unbabel-comet writes it (and as the Hub repositories hold it)::

    <model>/hparams.yaml
    <model>/checkpoints/model.ckpt      (a Lightning checkpoint; or model.safetensors beside hparams.yaml)

``model=`` is that folder, the ``.ckpt`` file itself, or a Hub id (``Unbabel/wmt22-comet-da``) whose snapshot is
in the local Hugging Face cache. The checkpoint is read with ``torch.load(weights_only=True)`` (or safetensors):
nothing in it is unpickled as code. The encoder's config and tokenizer come from ``pretrained_model`` of the
hyper-parameters (a local folder, or a Hub id in the cache) or from an explicit ``encoder=``; the encoder's own
pretrained weights are never read (the checkpoint holds them).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from ...errors import InvalidInputError, NlgMetricsError

__all__ = [
    "ARCHITECTURES",
    "ENCODERS",
    "CheckpointError",
    "CometCheckpoint",
    "EncoderKind",
    "ResolvedModel",
    "effective_mix",
    "find_checkpoint",
    "read_hparams",
]


class CheckpointError(NlgMetricsError, FileNotFoundError):
    """A checkpoint that cannot be found or read (names the file, and how to get it)."""


#: ``class_identifier`` of hparams.yaml -> the family that scores it.
ARCHITECTURES = {
    "regression_metric": "comet",
    "unified_metric": "cometkiwi",
    "xcomet_metric": "xcomet",
}

#: Known checkpoints: Hub id -> (size of the download, licence, gated).
KNOWN_MODELS = {
    "Unbabel/wmt22-comet-da": ("2.3 GB", "Apache-2.0", False),
    "Unbabel/wmt20-comet-da": ("2.3 GB", "Apache-2.0", False),
    "Unbabel/eamt22-cometinho-da": ("0.5 GB", "Apache-2.0", False),
    "Unbabel/wmt22-cometkiwi-da": ("2.3 GB", "CC-BY-NC-SA-4.0", True),
    "Unbabel/wmt23-cometkiwi-da-xl": ("14 GB", "CC-BY-NC-SA-4.0", True),
    "Unbabel/wmt23-cometkiwi-da-xxl": ("43 GB", "CC-BY-NC-SA-4.0", True),
    "Unbabel/XCOMET-XL": ("14 GB", "CC-BY-NC-SA-4.0", True),
    "Unbabel/XCOMET-XXL": ("43 GB", "CC-BY-NC-SA-4.0", True),
}


@dataclasses.dataclass(frozen=True)
class EncoderKind:
    """How unbabel-comet 2.2.7 runs one ``encoder_model``: the transformers model class, whether it keeps a
    pooler, where its tokenizer comes from (``None``: ``pretrained_model``), the separator size when segments are
    concatenated, whether the concatenation builds token type ids, and whether the forward pass takes them."""

    model_class: str
    pooler: bool
    tokenizer: str | None
    size_separator: int
    builds_token_types: bool
    passes_token_types: bool


ENCODERS = {
    "BERT": EncoderKind("BertModel", False, None, 1, True, True),
    "XLM-RoBERTa": EncoderKind("XLMRobertaModel", False, None, 2, False, False),
    # comet/encoders/minilm.py: a BERT model whose tokenizer is always loaded from "xlm-roberta-base"
    "MiniLM": EncoderKind("BertModel", True, "xlm-roberta-base", 2, False, False),
    "XLM-RoBERTa-XL": EncoderKind("XLMRobertaXLModel", False, None, 2, False, False),
    "RemBERT": EncoderKind("RemBertModel", True, None, 1, True, False),
}


def effective_mix(yaml_hparams: dict[str, Any], hparams: dict[str, Any]) -> str:
    """The layer-mix function unbabel-comet 2.2.7 actually applies: ``sparsemax`` only when the hyper-parameters
    say exactly ``sparsemax``; hparams.yaml's ``sparsemax_patch`` (the Hub's fix for COMET #195, models trained
    while sparsemax was silently unused) and anything else give softmax."""
    if yaml_hparams.get("layer_transformation") == "sparsemax_patch":
        return "softmax"  # load_from_checkpoint overrides it (and LayerwiseAttention would use softmax anyway)
    return "sparsemax" if hparams.get("layer_transformation") == "sparsemax" else "softmax"


def read_hparams(path: Path) -> dict[str, Any]:
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise CheckpointError(f"cannot read {path}: {err}") from err
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise CheckpointError(f"{path} is not valid YAML: {err}") from err
    if not isinstance(data, dict):
        raise CheckpointError(f"{path} holds no hyper-parameters (a YAML mapping was expected)")
    return data


def _hub_cache() -> Path:
    from ...engine.hub import hub_cache_dir

    return hub_cache_dir()


def _cached_repo(model_id: str) -> Path | None:
    """The cached snapshot folder of a Hub model repository holding hparams.yaml, or ``None``."""
    from ...engine.hub import cached_snapshot

    return cached_snapshot(model_id, marker="hparams.yaml")


def _looks_like_path(name: str) -> bool:
    return name.startswith(("/", "./", "../", "~", "\\")) or name.count("/") != 1 or name.endswith(".ckpt")


def download_hint(model_id: str) -> str:
    size, licence, gated = KNOWN_MODELS.get(model_id, ("?", "see its model card", False))
    gate = " (gated: accept its licence on the Hub and log in with `hf auth login` first)" if gated else ""
    return f"hf download {model_id}  (about {size}; licence {licence}){gate}"


@dataclasses.dataclass(frozen=True)
class CometCheckpoint:
    """A located checkpoint: its folder, weights file and hparams.yaml."""

    folder: Path
    weights: Path
    hparams_file: Path

    def digest(self) -> str:
        """12 hex digits of SHA-256 over the weights file and hparams.yaml (cached by size and mtime)."""
        return file_digest([self.weights, self.hparams_file])


class ResolvedModel:
    """A frozen model config that finds its files once, when it is made (COMET's and MetricX's configs): it
    keeps what it found (the folders, their digests, the device) with ``_set_resolved``; ``resolved`` gives it."""

    def _set_resolved(self, found: dict[str, Any]) -> None:
        object.__setattr__(self, "_resolved", found)

    @property
    def resolved(self) -> dict[str, Any]:
        return self._resolved  # type: ignore[attr-defined,no-any-return]


def file_digest(files: list[Path]) -> str:
    """12 hex digits of SHA-256 over the files' names and contents, remembered on disk beside BERTScore's model
    digests (:func:`nlgmetrics.engine.hub.files_digest`)."""
    from ...engine.hub import files_digest

    return files_digest(files)


def find_checkpoint(model: str | os.PathLike[str], *, allow_download: bool = False) -> CometCheckpoint:
    """Locate a COMET checkpoint: a folder, a ``.ckpt``/``.safetensors`` file, or a Hub id in the local cache
    (downloaded only with ``allow_download=True``). Raises :class:`CheckpointError` naming what is missing."""
    name = os.fspath(model)
    path = Path(name).expanduser()
    if not path.exists():
        if _looks_like_path(name):
            raise CheckpointError(f"COMET checkpoint {name!r} not found: there is no such file or folder")
        snapshot = _cached_repo(name)
        if snapshot is None:
            if not allow_download:
                raise CheckpointError(
                    f"COMET model {name!r} is not a local folder and not in the Hugging Face cache "
                    f"({_hub_cache()}); nothing is downloaded unless you ask. Fetch it once with:  "
                    f"{download_hint(name)}  or pass allow_download=True (CLI: --allow-download), or "
                    "model=<folder holding hparams.yaml and checkpoints/model.ckpt>"
                )
            snapshot = _download(name)
        path = snapshot
    if path.is_file():
        weights = path
        folder = path.parent.parent if path.parent.name == "checkpoints" else path.parent
    else:
        folder = path
        candidates = [
            folder / "checkpoints" / "model.ckpt",
            folder / "checkpoints" / "model.safetensors",
            folder / "model.safetensors",
            folder / "model.ckpt",
        ]
        found = [c for c in candidates if c.is_file()]
        if not found:
            raise CheckpointError(
                f"COMET checkpoint folder {folder} holds no weights: expected checkpoints/model.ckpt (or "
                "model.safetensors)"
            )
        weights = found[0]
    hparams = folder / "hparams.yaml"
    if not hparams.is_file():
        raise CheckpointError(f"hparams.yaml file is missing from {folder} (a COMET model folder needs it)")
    return CometCheckpoint(folder, weights, hparams)


def _download(model_id: str) -> Path:
    try:
        from huggingface_hub import snapshot_download
    except ImportError as err:  # pragma: no cover - transformers brings it
        raise CheckpointError(f"cannot download {model_id!r}: huggingface_hub is not installed") from err
    try:
        return Path(snapshot_download(repo_id=model_id))
    except Exception as err:
        raise CheckpointError(
            f"downloading {model_id!r} failed ({err}); fetch it with:  {download_hint(model_id)}"
        ) from err


def load_state(weights: Path) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The state dict and (for a Lightning checkpoint) its ``hyper_parameters``, read without unpickling code."""
    if weights.suffix == ".safetensors":
        from safetensors.torch import load_file

        return load_file(str(weights)), None
    from ...engine.hub import read_checkpoint

    try:
        data = read_checkpoint(weights)
    except RuntimeError as err:
        raise CheckpointError(f"cannot read the checkpoint {weights}: {err}") from err
    except Exception as err:
        raise CheckpointError(
            f"the checkpoint {weights} cannot be read safely: it needs more than tensors and plain containers to "
            f"load, and nlgmetrics never unpickles code (torch.load(weights_only=True) said: {str(err)[:300]}). "
            "Convert it to safetensors with the tool that wrote it"
        ) from err
    if isinstance(data, dict) and "state_dict" in data:
        hp = data.get("hyper_parameters")
        return data["state_dict"], dict(hp) if isinstance(hp, dict) else None
    if isinstance(data, dict) and all(isinstance(k, str) for k in data):
        return data, None
    raise CheckpointError(f"{weights} holds no state dict (a Lightning checkpoint or a dict of tensors)")


def check_class(hparams: dict[str, Any], file: Path) -> str:
    ident = hparams.get("class_identifier")
    if ident not in ARCHITECTURES:
        known = ", ".join(sorted(ARCHITECTURES))
        raise InvalidInputError(
            f"{file}: unknown COMET architecture class_identifier={ident!r}; nlgmetrics scores {known}"
        )
    return str(ident)
