"""Tokenizers of the learned metrics (COMET, MetricX), read from a model folder without running any code.

The reference tools load Hugging Face *fast* tokenizers, i.e. the ``tokenizers`` library driven by the folder's
``tokenizer.json``; :class:`FastTokenizer` drives the same library from the same file, so the token ids, the
truncation and the offsets are the reference's whatever the installed transformers version. A folder without
``tokenizer.json`` is converted once by transformers (from its SentencePiece or vocabulary files).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from ..engine.hub import cached_snapshot, is_offline
from ..errors import MissingDependencyError

__all__ = ["FastTokenizer", "clean_up_tokenization", "resolve_folder"]

_INSTALL = "pip install 'nlgmetrics[learned]'"


def clean_up_tokenization(text: str) -> str:
    """transformers' ``clean_up_tokenization`` (what ``decode`` applies when ``clean_up_tokenization_spaces``)."""
    return (
        text.replace(" .", ".")
        .replace(" ?", "?")
        .replace(" !", "!")
        .replace(" ,", ",")
        .replace(" ' ", "'")
        .replace(" n't", "n't")
        .replace(" 'm", "'m")
        .replace(" 's", "'s")
        .replace(" 've", "'ve")
        .replace(" 're", "'re")
    )


def resolve_folder(name: str, *, what: str, hint: str, allow_download: bool = False, base: Path | None = None) -> Path:
    """A local folder for ``name``: the folder itself (absolute, relative to the working directory or to
    ``base``), or the snapshot of a Hub id in the Hugging Face cache (downloaded only with ``allow_download``)."""
    from .comet.checkpoint import CheckpointError

    for candidate in (Path(name).expanduser(), *((base / name,) if base is not None else ())):
        if candidate.is_dir():
            if not (candidate / "config.json").is_file() and not _has_tokenizer(candidate):
                raise CheckpointError(f"{what} folder {candidate} holds neither config.json nor tokenizer files")
            return candidate
    snapshot = cached_snapshot(name)
    if snapshot is not None:
        return snapshot
    if allow_download and not is_offline():
        try:
            from huggingface_hub import snapshot_download

            return Path(snapshot_download(repo_id=name, allow_patterns=["*.json", "*.model", "*.txt"]))
        except Exception as err:
            raise CheckpointError(f"{what} {name!r}: the download failed ({err}); {hint}") from err
    raise CheckpointError(
        f"{what} {name!r} is neither a local folder nor in the Hugging Face cache; nothing is downloaded unless you "
        f"ask. Fetch its config and tokenizer (not its weights) with:  hf download {name} --include '*.json' "
        f"'*.model' '*.txt'  (a few MB), or {hint}"
    )


def _has_tokenizer(folder: Path) -> bool:
    return any(
        (folder / f).is_file() for f in ("tokenizer.json", "sentencepiece.bpe.model", "spiece.model", "vocab.txt")
    )


def _token(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


class FastTokenizer:
    """A ``tokenizers.Tokenizer`` from a model folder, with the special tokens transformers would use."""

    def __init__(self, folder: Path, *, defaults: dict[str, str]) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError as err:
            raise MissingDependencyError("learned metrics", _INSTALL) from err
        self.folder = folder
        config: dict[str, Any] = {}
        for name in ("special_tokens_map.json", "tokenizer_config.json"):
            try:
                data = json.loads((folder / name).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                config.update(data)
        self.config = config
        file = folder / "tokenizer.json"
        if file.is_file():
            self.backend = Tokenizer.from_file(str(file))
        else:
            self.backend = self._convert(folder)
        self.backend.no_padding()
        self.backend.no_truncation()
        self._truncation: int | None = None
        self._lock = threading.Lock()
        ids = {}
        for role in ("cls", "sep", "pad", "eos"):
            token = _token(config.get(f"{role}_token")) or defaults.get(role)
            ids[role] = None if token is None else self.backend.token_to_id(token)
        self.cls_id, self.sep_id, self.pad_id, self.eos_id = ids["cls"], ids["sep"], ids["pad"], ids["eos"]
        self.clean_up = bool(config.get("clean_up_tokenization_spaces", False))

    @staticmethod
    def _convert(folder: Path) -> Any:
        try:
            from transformers import AutoTokenizer
        except ImportError as err:
            raise MissingDependencyError("learned metrics", _INSTALL) from err
        from ..engine.hub import quiet_transformers

        with quiet_transformers():
            tok = AutoTokenizer.from_pretrained(str(folder))
        backend = getattr(tok, "backend_tokenizer", None)
        if backend is None:
            from .comet.checkpoint import CheckpointError

            raise CheckpointError(f"{folder}: no tokenizer.json and transformers gives no fast tokenizer for it")
        return backend

    def __len__(self) -> int:
        return int(self.backend.get_vocab_size(with_added_tokens=True))

    def encode(self, texts: list[str], max_length: int | None) -> list[Any]:
        """``tokenizer(texts, truncation=True, max_length=max_length)`` of transformers' fast tokenizers: special
        tokens added, right truncation of the whole sequence (``longest_first``) to ``max_length``."""
        with self._lock:
            if max_length != self._truncation:
                if max_length is None:
                    self.backend.no_truncation()
                else:
                    self.backend.enable_truncation(max_length, stride=0, strategy="longest_first", direction="right")
                self._truncation = max_length
            return list(self.backend.encode_batch(texts, add_special_tokens=True))

    def decode(self, ids: list[int]) -> str:
        """transformers' ``tokenizer.decode(ids)`` (special tokens kept)."""
        text = self.backend.decode(ids, skip_special_tokens=False)
        return clean_up_tokenization(text) if self.clean_up else text
