"""Finding and loading a model, offline first, and naming it by its content.

Every model metric (BERTScore, COMET, MetricX) finds its checkpoint the same way:

* a **local folder** is loaded as it is; a **Hub name** is loaded from the Hugging Face cache with
  ``local_files_only=True``, so no connection is ever opened;
* a model in neither place fails at once, from the file system alone, before torch or transformers is imported
  (:func:`check_model`, :class:`ModelNotFoundError` naming ``model=``, the ``allow_download=True`` opt-in,
  ``HF_HUB_OFFLINE`` and the command that fetches it). It is downloaded only with that opt-in, and never while
  ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) is set;
* a signature names a local folder by its name and a digest of its config, tokenizer and weights
  (:func:`model_label`), never by its path; :func:`file_digest` does the same for a single checkpoint file;
* weights are read without unpickling code: safetensors, or ``torch.load(weights_only=True)``
  (:func:`load_weights`).

Nothing here imports torch or transformers at import time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, MissingDependencyError, NlgMetricsError

__all__ = [
    "ModelNotFoundError",
    "cached_snapshot",
    "check_model",
    "fetch_command",
    "file_digest",
    "hub_cache_dir",
    "is_offline",
    "load_config",
    "load_pretrained",
    "load_tokenizer",
    "load_weights",
    "looks_like_path",
    "model_digest",
    "model_folder",
    "model_label",
    "quiet_transformers",
    "read_checkpoint",
]

_INSTALL = "pip install 'nlgmetrics[bertscore]'"


class ModelNotFoundError(NlgMetricsError, FileNotFoundError):
    """A model is neither a local folder nor in the Hugging Face cache (and was not downloaded)."""


# ------------------------------------------------------------------------------------------- where a model is
_TRUE = {"1", "ON", "YES", "TRUE"}


def is_offline() -> bool:
    """Whether the Hugging Face Hub is switched off (``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE``)."""
    return any(os.environ.get(name, "").strip().upper() in _TRUE for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def fetch_command(model: str) -> str:
    """The command that puts ``model`` into the Hugging Face cache."""
    return f"hf download {model}"


def hub_cache_dir() -> Path:
    """The Hugging Face hub cache folder, by huggingface_hub's own rule (``HF_HUB_CACHE``, else ``HF_HOME/hub``,
    else ``$XDG_CACHE_HOME/huggingface/hub``, else ``~/.cache/huggingface/hub``), found without importing it."""
    loaded = sys.modules.get("huggingface_hub.constants")
    if loaded is not None and isinstance(getattr(loaded, "HF_HUB_CACHE", None), str):
        return Path(loaded.HF_HUB_CACHE)  # what transformers will read, if the environment changed since
    env = os.environ
    home = env.get("HF_HOME") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface"
    )
    cache = env.get("HF_HUB_CACHE") or env.get("HUGGINGFACE_HUB_CACHE") or os.path.join(home, "hub")
    return Path(os.path.expandvars(os.path.expanduser(cache)))


def cached_snapshot(model: str, *, marker: str = "config.json") -> Path | None:
    """The folder of ``model``'s cached snapshot (its ``main`` revision) when the Hugging Face cache holds its
    ``marker`` file (``config.json``; a COMET checkpoint's is ``hparams.yaml``); ``None`` otherwise. Only the file
    system is read."""
    repo = hub_cache_dir() / ("models--" + model.replace("/", "--"))
    try:
        revision = (repo / "refs" / "main").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    snapshot = repo / "snapshots" / revision
    return snapshot if revision and (snapshot / marker).is_file() else None


def looks_like_path(name: str) -> bool:
    """Whether ``name`` is meant as a path (absolute, relative with ``./``, or with more than one ``/``), not a Hub
    name such as ``org/model``."""
    if name.startswith(("/", "./", "../", "~", "\\")) or "\\" in name or (len(name) > 1 and name[1] == ":"):
        return True
    return name.count("/") > 1


_FOLDER = "a local folder holding config.json, the tokenizer files and the weights"


def _not_a_folder(model: str, reason: str, what: str) -> ModelNotFoundError:
    return ModelNotFoundError(f"{what} {model!r} is not available: {reason}; model= (CLI: --model) must be {_FOLDER}")


def _not_cached(model: str, *, allow_download: bool, what: str, detail: str = "") -> ModelNotFoundError:
    where = f"not in the Hugging Face cache ({hub_cache_dir()})"
    if allow_download:  # the opt-in was given, but the Hub is switched off
        reason = (
            f"it is {where}, and allow_download=True (CLI: --allow-download) cannot download it while "
            "HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) is set: unset it for this run, or fetch the model once with:  "
            f"{fetch_command(model)}"
        )
    else:
        reason = (
            f"it is not a local folder and it is {where}; nothing is downloaded unless you ask. Fetch it once "
            f"with:  {fetch_command(model)}  (with HF_HUB_OFFLINE unset), or let this run download it with "
            "allow_download=True (CLI: --allow-download), or pass model=<folder> (CLI: --model FOLDER), "
            f"{_FOLDER}"
        )
    return ModelNotFoundError(f"{what} {model!r} is not available: {reason}{detail}")


def check_model(model: str, *, allow_download: bool = False, what: str = "model") -> None:
    """Fail fast, reading only the file system, when ``model`` can be neither loaded from a local folder or the
    Hugging Face cache nor (``allow_download=True``, the Hub on) downloaded. Never touches the network. ``what``
    names the model in the message (``"BERTScore model"``, ``"COMET encoder"``)."""
    path = Path(model).expanduser()
    if path.exists():
        if not path.is_dir():
            raise _not_a_folder(model, f"{model} is a file, not a model folder", what)
        if not (path / "config.json").is_file():
            raise _not_a_folder(model, f"the folder {model} holds no config.json", what)
        return
    if looks_like_path(model):
        raise _not_a_folder(model, f"there is no folder {model}", what)
    if cached_snapshot(model) is not None:
        return
    if not allow_download or is_offline():
        raise _not_cached(model, allow_download=allow_download, what=what)


def model_folder(model: str) -> Path | None:
    """The folder ``model`` is read from without a download: itself when it is a local folder, else its snapshot
    in the Hugging Face cache; ``None`` when neither exists."""
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    return None if looks_like_path(model) else cached_snapshot(model)


# ------------------------------------------------------------------------------------------- loading
@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' own logging and progress bars while loading (our warnings go through ``warnings``)."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError as err:  # pragma: no cover - transformers is checked before this runs
        raise MissingDependencyError("bertscore", _INSTALL) from err
    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def load_pretrained(
    model: str, loader: Callable[..., Any], *, allow_download: bool = False, what: str = "model"
) -> Any:
    """``loader(model)`` (a ``from_pretrained``), offline first.

    A local folder is loaded as it is. A Hub name is loaded from the Hugging Face cache with
    ``local_files_only=True``, so no connection is ever opened, unless ``allow_download`` is true (and
    ``HF_HUB_OFFLINE`` unset): then what the cache lacks is downloaded. A model that is not available raises
    :class:`ModelNotFoundError`, which names the download command, the opt-in and the ``model=`` folder.
    """
    check_model(model, allow_download=allow_download, what=what)
    path = Path(model).expanduser()
    with quiet_transformers():
        if path.exists():
            return loader(str(path))
        try:
            return loader(model, local_files_only=True)
        except (OSError, ValueError) as err:
            if not allow_download or is_offline():
                detail = f" (the cache holds an incomplete copy: {err})" if cached_snapshot(model) else ""
                raise _not_cached(model, allow_download=allow_download, what=what, detail=detail) from err
        try:
            return loader(model)
        except (OSError, ValueError) as err:
            raise ModelNotFoundError(
                f"{what} {model!r} is not available: it is not in the Hugging Face cache and the "
                f"download failed ({err}); fetch it with:  {fetch_command(model)}  or pass model=<folder> "
                f"(CLI: --model FOLDER), {_FOLDER}"
            ) from err


def _transformers() -> Any:
    try:
        import transformers
    except ImportError as err:
        raise MissingDependencyError("bertscore", _INSTALL) from err
    return transformers


def load_config(model: str, *, allow_download: bool = False, what: str = "model") -> Any:
    """The transformers config of ``model`` (offline first)."""
    return load_pretrained(model, _transformers().AutoConfig.from_pretrained, allow_download=allow_download, what=what)


def load_tokenizer(model: str, *, allow_download: bool = False, what: str = "model", **kwargs: Any) -> Any:
    """The tokenizer of ``model`` (offline first): ``AutoTokenizer`` with ``use_fast=False`` unless ``kwargs`` say
    otherwise (bert-score's call; transformers 5 has one, fast, tokenizer class per model, so the flag changes
    nothing there)."""
    auto = _transformers().AutoTokenizer
    options = {"use_fast": False, **kwargs}

    def loader(name: str, **extra: Any) -> Any:
        return auto.from_pretrained(name, **options, **extra)

    return load_pretrained(model, loader, allow_download=allow_download, what=what)


def read_checkpoint(path: str | os.PathLike[str]) -> Any:
    """Everything a torch checkpoint file holds, read with ``torch.load(weights_only=True)`` (tensors and plain
    containers only: no code is ever unpickled), memory-mapped where the file's format allows it (a zip
    checkpoint; an old one is read whole). torch's own exception is raised for a file it cannot read that way."""
    import torch

    name = os.fspath(path)
    try:
        return torch.load(name, map_location="cpu", weights_only=True, mmap=True)
    except RuntimeError as err:
        if "mmap" not in str(err):
            raise
    return torch.load(name, map_location="cpu", weights_only=True)


def load_weights(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The tensors of a checkpoint file, read without unpickling code: a ``.safetensors`` file with safetensors,
    anything else with ``torch.load(weights_only=True)`` (a Lightning ``.ckpt`` gives its ``state_dict``). A file
    that needs more than tensors and plain containers is an error that names it."""
    name = str(path)
    if not Path(path).is_file():
        raise ModelNotFoundError(f"there is no checkpoint file {name}")
    if name.endswith(".safetensors"):
        try:
            from safetensors.torch import load_file
        except ImportError as err:  # pragma: no cover - transformers brings safetensors
            raise MissingDependencyError("safetensors", "pip install safetensors") from err
        return dict(load_file(name))
    import pickle

    try:
        data = read_checkpoint(name)
    except pickle.UnpicklingError as err:
        raise InvalidInputError(
            f"{name}: the checkpoint holds more than tensors (Python objects that only unpickling code could "
            f"restore), and nlgmetrics never unpickles code: save its state_dict with safetensors instead ({err})"
        ) from None
    if isinstance(data, dict) and isinstance(data.get("state_dict"), dict):
        data = data["state_dict"]
    if not isinstance(data, dict):
        raise InvalidInputError(f"{name}: expected a dict of tensors (a state_dict), got {type(data).__name__}")
    return data


# ------------------------------------------------------------------------------------------- identity
#: Files of a model folder that its digest covers (besides the weights): the config and the tokenizer's files.
_IDENTITY_SUFFIXES = (".json", ".txt", ".model", ".tiktoken", ".yaml")
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack", ".ckpt")
_DIGESTS: dict[tuple[str, tuple[tuple[str, int, int], ...]], str] = {}
_DIGEST_FILE = "model-digests.json"


def _identity_stamp(folder: str) -> tuple[tuple[tuple[str, int, int], ...], list[str]]:
    """The files that make a model folder's numbers: config, tokenizer files and the weights transformers loads
    (the ``.safetensors`` files when there are any, else the other weight formats; sub-folders are left out), as
    ``(name, size, mtime)`` stamps and their names, from one directory scan (a call that finds the digest
    remembered costs only this scan)."""
    entries: dict[str, os.stat_result] = {}
    with os.scandir(folder) as scan:
        for entry in scan:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_file():
                    entries[entry.name] = entry.stat()
            except OSError:
                continue
    names = sorted(entries)
    weights = [n for n in names if n.endswith(_WEIGHT_SUFFIXES)]
    safetensors = [n for n in weights if n.endswith(".safetensors")]
    chosen = sorted([n for n in names if n.endswith(_IDENTITY_SUFFIXES)] + (safetensors or weights))
    return tuple((n, entries[n].st_size, entries[n].st_mtime_ns) for n in chosen), chosen


def _digest_cache_path() -> Path:
    env = os.environ
    base = env.get("NLGMETRICS_CACHE_DIR") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "nlgmetrics"
    )
    return Path(base) / _DIGEST_FILE


def _read_digest_cache() -> dict[str, Any]:
    try:
        data = json.loads(_digest_cache_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_digest_cache(key: str, stamp: list[Any], digest: str) -> None:
    """Remember a digest on disk (best effort: a read-only home changes nothing but the time of the next run)."""
    path = _digest_cache_path()
    data = _read_digest_cache()
    data[key] = {"files": stamp, "digest": digest}
    if len(data) > 256:  # keep the file small: forget the oldest entries
        data = dict(list(data.items())[-256:])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".model-digests-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(tmp)


def _digest_of(key: str, stamp: tuple[tuple[str, int, int], ...], paths: list[str]) -> str:
    """The 12-hex-digit digest of the files ``paths`` (SHA-256 of each one's name and of its content's SHA-256),
    remembered under ``key`` per file state (``stamp``: name, size, modification time) in this process and on
    disk."""
    found = _DIGESTS.get((key, stamp))
    if found is not None:
        return found
    stored = _read_digest_cache().get(key)
    if isinstance(stored, dict) and stored.get("files") == [list(s) for s in stamp]:
        digest = str(stored.get("digest", ""))
    else:
        digest = ""
    if len(digest) != 12:
        h = hashlib.sha256()
        for path in paths:
            h.update(os.path.basename(path).encode("utf-8") + b"\0")
            part = hashlib.sha256()
            with open(path, "rb") as fh:
                while block := fh.read(1 << 22):
                    part.update(block)
            h.update(part.digest())
        digest = h.hexdigest()[:12]
        _write_digest_cache(key, [list(s) for s in stamp], digest)
    _DIGESTS[(key, stamp)] = digest
    return digest


def model_digest(folder: str | os.PathLike[str]) -> str:
    """A 12-hex-digit digest of a model folder's config, tokenizer files and weights (SHA-256 of their names and
    contents). It is computed once per folder and file state (name, size, modification time), then remembered in
    this process and in ``$NLGMETRICS_CACHE_DIR/model-digests.json`` (default ``~/.cache/nlgmetrics``), so a
    model of several GB is not read again on every call."""
    path = os.path.realpath(os.path.expanduser(os.fspath(folder)))
    stamp, names = _identity_stamp(path)
    return _digest_of(path, stamp, [os.path.join(path, n) for n in names])


def files_digest(files: Sequence[str | os.PathLike[str]]) -> str:
    """The digest of checkpoint files (their names and contents, in the order given), remembered like
    :func:`model_digest`: a checkpoint of several GB is not read again by every process."""
    paths = [os.path.realpath(os.path.expanduser(os.fspath(f))) for f in files]
    stamp = tuple((p, (st := os.stat(p)).st_size, st.st_mtime_ns) for p in paths)
    return _digest_of("files:" + "|".join(paths), stamp, paths)


def file_digest(path: str | os.PathLike[str]) -> str:
    """The digest of one checkpoint file (its name and content), remembered like :func:`model_digest`."""
    return files_digest([path])


def model_label(model: str) -> str:
    """How signatures name ``model``: a Hub name as it is; a local folder by its name and the digest of its
    config, tokenizer and weights (``all-MiniLM-L6-v2@1a2b3c4d5e6f``), never by its path.

    >>> model_label("bert-base-multilingual-cased")
    'bert-base-multilingual-cased'
    """
    path = os.path.expanduser(model)
    if not os.path.isdir(path):
        return model
    real = os.path.realpath(path)
    return f"{os.path.basename(real) or 'model'}@{model_digest(real)}"
