"""BERTScore's model tables, offline-first model loading, and rescaling baselines.

* :data:`LANG2MODEL` and :data:`MODEL2LAYERS` are bert-score 0.3.13's tables (``bert_score.utils.lang2model`` and
  ``model2layers``): the default model of a language (``ja`` and every language not listed get
  ``bert-base-multilingual-cased``) and the layer tuned for each known model (9 for that one).
* A model is loaded from a local folder or from the Hugging Face cache, with no network call. When it is in
  neither, :func:`check_model` says so at once, from the file system alone (:class:`ModelNotFoundError`, naming
  ``model=``/``--model``, the opt-in, ``HF_HUB_OFFLINE`` and the command that fetches it). It is downloaded only
  with the explicit opt-in ``allow_download=True`` (CLI ``--allow-download``), and never while ``HF_HUB_OFFLINE``
  (or ``TRANSFORMERS_OFFLINE``) is set.
* Signatures name a local model folder by its name and a digest of its config, tokenizer and weights
  (:func:`model_label`), never by its path.
* A model that is not in the layer table (a local folder, say) gets its last layer, with a warning that names
  ``num_layers`` (bert-score raises ``KeyError`` there).
* Baselines are bert-score's files (``LAYER,P,R,F``, one row per layer, comma-separated despite the ``.tsv`` name).
  They are looked up in ``baseline_path``, then in ``$NLGMETRICS_BERTSCORE_BASELINES/<lang>/<model>.tsv`` (a local
  model by its folder name), then in the baselines shipped inside an installed ``bert_score`` package. Nothing is
  ever downloaded. When no baseline exists, rescaling is an error that says how to compute one
  (``nlgmetrics bertscore-baseline``), never a silent no-op as in bert-score.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import hashlib
import importlib.util
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, MissingDependencyError, NlgMetricsError, warn

__all__ = [
    "BASELINE_ENV",
    "DEFAULT_MODEL",
    "LANG2MODEL",
    "MODEL2LAYERS",
    "Baseline",
    "ModelNotFoundError",
    "baseline_name",
    "bert_score_baseline_dir",
    "cached_snapshot",
    "check_model",
    "default_model",
    "fetch_command",
    "find_baseline",
    "hub_cache_dir",
    "is_offline",
    "known_layers",
    "load_config",
    "load_pretrained",
    "load_tokenizer",
    "model_depth",
    "model_digest",
    "model_label",
    "read_baseline",
    "resolve_model",
    "resolve_num_layers",
    "write_baseline",
]

#: The model of every language not in :data:`LANG2MODEL` (bert-score's default too).
DEFAULT_MODEL = "bert-base-multilingual-cased"

#: Default model per language, as in bert-score 0.3.13.
LANG2MODEL: Mapping[str, str] = {
    "en": "roberta-large",
    "zh": "bert-base-chinese",
    "tr": "dbmdz/bert-base-turkish-cased",
    "en-sci": "allenai/scibert_scivocab_uncased",
}

#: The layer bert-score 0.3.13 uses for each known model (tuned on WMT16 to-English data).
MODEL2LAYERS: Mapping[str, int] = {
    "bert-base-uncased": 9,
    "bert-large-uncased": 18,
    "bert-base-cased-finetuned-mrpc": 9,
    "bert-base-multilingual-cased": 9,
    "bert-base-chinese": 8,
    "roberta-base": 10,
    "roberta-large": 17,
    "roberta-large-mnli": 19,
    "roberta-base-openai-detector": 7,
    "roberta-large-openai-detector": 15,
    "xlnet-base-cased": 5,
    "xlnet-large-cased": 7,
    "xlm-mlm-en-2048": 6,
    "xlm-mlm-100-1280": 10,
    "allenai/scibert_scivocab_uncased": 8,
    "allenai/scibert_scivocab_cased": 9,
    "nfliu/scibert_basevocab_uncased": 9,
    "distilroberta-base": 5,
    "distilbert-base-uncased": 5,
    "distilbert-base-uncased-distilled-squad": 4,
    "distilbert-base-multilingual-cased": 5,
    "albert-base-v1": 10,
    "albert-large-v1": 17,
    "albert-xlarge-v1": 16,
    "albert-xxlarge-v1": 8,
    "albert-base-v2": 9,
    "albert-large-v2": 14,
    "albert-xlarge-v2": 13,
    "albert-xxlarge-v2": 8,
    "xlm-roberta-base": 9,
    "xlm-roberta-large": 17,
    "google/electra-small-generator": 9,
    "google/electra-small-discriminator": 11,
    "google/electra-base-generator": 10,
    "google/electra-base-discriminator": 9,
    "google/electra-large-generator": 18,
    "google/electra-large-discriminator": 14,
    "google/bert_uncased_L-2_H-128_A-2": 1,
    "google/bert_uncased_L-2_H-256_A-4": 1,
    "google/bert_uncased_L-2_H-512_A-8": 1,
    "google/bert_uncased_L-2_H-768_A-12": 2,
    "google/bert_uncased_L-4_H-128_A-2": 3,
    "google/bert_uncased_L-4_H-256_A-4": 3,
    "google/bert_uncased_L-4_H-512_A-8": 3,
    "google/bert_uncased_L-4_H-768_A-12": 3,
    "google/bert_uncased_L-6_H-128_A-2": 5,
    "google/bert_uncased_L-6_H-256_A-4": 5,
    "google/bert_uncased_L-6_H-512_A-8": 5,
    "google/bert_uncased_L-6_H-768_A-12": 5,
    "google/bert_uncased_L-8_H-128_A-2": 7,
    "google/bert_uncased_L-8_H-256_A-4": 7,
    "google/bert_uncased_L-8_H-512_A-8": 6,
    "google/bert_uncased_L-8_H-768_A-12": 7,
    "google/bert_uncased_L-10_H-128_A-2": 8,
    "google/bert_uncased_L-10_H-256_A-4": 8,
    "google/bert_uncased_L-10_H-512_A-8": 9,
    "google/bert_uncased_L-10_H-768_A-12": 8,
    "google/bert_uncased_L-12_H-128_A-2": 10,
    "google/bert_uncased_L-12_H-256_A-4": 11,
    "google/bert_uncased_L-12_H-512_A-8": 10,
    "google/bert_uncased_L-12_H-768_A-12": 9,
    "amazon/bort": 0,
    "facebook/bart-base": 6,
    "facebook/bart-large": 10,
    "facebook/bart-large-cnn": 10,
    "facebook/bart-large-mnli": 11,
    "facebook/bart-large-xsum": 9,
    "t5-small": 6,
    "t5-base": 11,
    "t5-large": 23,
    "vinai/bertweet-base": 9,
    "microsoft/deberta-base": 9,
    "microsoft/deberta-base-mnli": 9,
    "microsoft/deberta-large": 16,
    "microsoft/deberta-large-mnli": 18,
    "microsoft/deberta-xlarge": 18,
    "microsoft/deberta-xlarge-mnli": 40,
    "YituTech/conv-bert-base": 10,
    "YituTech/conv-bert-small": 10,
    "YituTech/conv-bert-medium-small": 9,
    "microsoft/mpnet-base": 8,
    "squeezebert/squeezebert-uncased": 9,
    "squeezebert/squeezebert-mnli": 9,
    "squeezebert/squeezebert-mnli-headless": 9,
    "tuner007/pegasus_paraphrase": 15,
    "google/pegasus-large": 8,
    "google/pegasus-xsum": 11,
    "sshleifer/tiny-mbart": 2,
    "facebook/mbart-large-cc25": 12,
    "facebook/mbart-large-50": 12,
    "facebook/mbart-large-en-ro": 12,
    "facebook/mbart-large-50-many-to-many-mmt": 12,
    "facebook/mbart-large-50-one-to-many-mmt": 12,
    "allenai/led-base-16384": 6,
    "facebook/blenderbot_small-90M": 7,
    "facebook/blenderbot-400M-distill": 2,
    "microsoft/prophetnet-large-uncased": 4,
    "microsoft/prophetnet-large-uncased-cnndm": 7,
    "SpanBERT/spanbert-base-cased": 8,
    "SpanBERT/spanbert-large-cased": 17,
    "microsoft/xprophetnet-large-wiki100-cased": 7,
    "ProsusAI/finbert": 10,
    "Vamsi/T5_Paraphrase_Paws": 12,
    "ramsrigouthamg/t5_paraphraser": 11,
    "microsoft/deberta-v2-xlarge": 10,
    "microsoft/deberta-v2-xlarge-mnli": 17,
    "microsoft/deberta-v2-xxlarge": 21,
    "microsoft/deberta-v2-xxlarge-mnli": 22,
    "allenai/longformer-base-4096": 7,
    "allenai/longformer-large-4096": 14,
    "allenai/longformer-large-4096-finetuned-triviaqa": 14,
    "zhiheng-huang/bert-base-uncased-embedding-relative-key": 4,
    "zhiheng-huang/bert-base-uncased-embedding-relative-key-query": 7,
    "zhiheng-huang/bert-large-uncased-whole-word-masking-embedding-relative-key-query": 19,
    "google/mt5-small": 8,
    "google/mt5-base": 11,
    "google/mt5-large": 19,
    "google/mt5-xl": 24,
    "google/bigbird-roberta-base": 10,
    "google/bigbird-roberta-large": 14,
    "google/bigbird-base-trivia-itc": 8,
    "princeton-nlp/unsup-simcse-bert-base-uncased": 10,
    "princeton-nlp/unsup-simcse-bert-large-uncased": 18,
    "princeton-nlp/unsup-simcse-roberta-base": 8,
    "princeton-nlp/unsup-simcse-roberta-large": 13,
    "princeton-nlp/sup-simcse-bert-base-uncased": 10,
    "princeton-nlp/sup-simcse-bert-large-uncased": 18,
    "princeton-nlp/sup-simcse-roberta-base": 10,
    "princeton-nlp/sup-simcse-roberta-large": 16,
    "dbmdz/bert-base-turkish-cased": 10,
    "dbmdz/distilbert-base-turkish-cased": 4,
    "google/byt5-small": 1,
    "google/byt5-base": 17,
    "google/byt5-large": 30,
    "microsoft/deberta-v3-xsmall": 10,
    "microsoft/deberta-v3-small": 4,
    "microsoft/deberta-v3-base": 9,
    "microsoft/mdeberta-v3-base": 10,
    "microsoft/deberta-v3-large": 12,
    "khalidalt/DeBERTa-v3-large-mnli": 18,
}

#: Organisation prefixes the Hugging Face Hub added to the legacy model names bert-score's tables use
#: ("google-bert/bert-base-multilingual-cased" is "bert-base-multilingual-cased").
_LEGACY_ORGS = (
    "google-bert/",
    "FacebookAI/",
    "distilbert/",
    "albert/",
    "openai-community/",
    "google-t5/",
    "xlnet/",
)

#: Environment variable naming a folder of baselines laid out as ``<lang>/<model>.tsv``.
BASELINE_ENV = "NLGMETRICS_BERTSCORE_BASELINES"

_INSTALL = "pip install 'nlgmetrics[bertscore]'"


class ModelNotFoundError(NlgMetricsError, FileNotFoundError):
    """A BERTScore model is neither a local folder nor in the Hugging Face cache (and was not downloaded)."""


# ------------------------------------------------------------------------------------------- the tables
def table_name(model: str) -> str:
    """The name bert-score's tables know ``model`` by (the Hub's organisation prefix of legacy names dropped)."""
    for org in _LEGACY_ORGS:
        if model.startswith(org) and model[len(org) :] in MODEL2LAYERS:
            return model[len(org) :]
    return model


def default_model(lang: str) -> str:
    """The model bert-score uses for ``lang``: ``roberta-large`` for English, ``bert-base-multilingual-cased``
    for Japanese and every language without a model of its own.

    >>> default_model("ja"), default_model("en"), default_model("ZH")
    ('bert-base-multilingual-cased', 'roberta-large', 'bert-base-chinese')
    """
    return LANG2MODEL.get(lang.lower(), DEFAULT_MODEL)


def known_layers(model: str) -> int | None:
    """The layer bert-score uses for ``model``, or ``None`` when the model is not in its table.

    >>> known_layers("bert-base-multilingual-cased"), known_layers("google-bert/bert-base-multilingual-cased")
    (9, 9)
    """
    return MODEL2LAYERS.get(table_name(model))


def resolve_model(model: str | None, lang: str | None) -> str:
    """``model`` itself, or the default model of ``lang``."""
    if model is not None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidInputError(f"model must be a model name or a folder, got {model!r}")
        return model
    if lang is None:
        raise InvalidInputError(
            "bertscore needs a model or a language: pass model='<name or folder>' or lang='<code>' "
            "(lang='ja' uses bert-base-multilingual-cased at layer 9, as `bert-score --lang ja` does)"
        )
    if not isinstance(lang, str) or not lang.strip():
        raise InvalidInputError(f"lang must be a language code such as 'en' or 'ja', got {lang!r}")
    return default_model(lang)


def resolve_num_layers(model: str, num_layers: int | None, *, allow_download: bool = False) -> int:
    """``num_layers`` itself, the layer of bert-score's table, or (for a model it does not know) the model's last
    layer, with a warning that names ``num_layers``."""
    if num_layers is not None:
        if isinstance(num_layers, bool) or not isinstance(num_layers, int) or num_layers < 0:
            raise InvalidInputError(
                f"num_layers must be a non-negative integer (0 is the embeddings), got {num_layers!r}"
            )
        return num_layers
    layers = known_layers(model)
    if layers is not None:
        return layers
    depth = model_depth(load_config(model, allow_download=allow_download))
    warn(
        f"bertscore: no tuned layer is known for model {model!r}, so its last layer ({depth}) is used; pass "
        f"num_layers=<layer> (CLI: --num-layers) to choose one (bert-score raises KeyError here)"
    )
    return depth


def model_depth(config: Any) -> int:
    """The number of (encoder) layers of a model, from its transformers config."""
    names = ("encoder_layers", "num_layers", "num_hidden_layers", "n_layers", "n_layer")
    if not getattr(config, "is_encoder_decoder", False):
        names = ("num_hidden_layers", "n_layers", "n_layer", "num_layers", "encoder_layers")
    for name in names:
        value = getattr(config, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    raise InvalidInputError(
        f"cannot tell how many layers the model of type {getattr(config, 'model_type', '?')!r} has: pass num_layers"
    )


# ------------------------------------------------------------------------------------------- loading
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


def cached_snapshot(model: str) -> Path | None:
    """The folder of ``model``'s cached snapshot (its ``main`` revision) when the Hugging Face cache holds its
    ``config.json``; ``None`` otherwise. Only the file system is read."""
    repo = hub_cache_dir() / ("models--" + model.replace("/", "--"))
    try:
        revision = (repo / "refs" / "main").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    snapshot = repo / "snapshots" / revision
    return snapshot if revision and (snapshot / "config.json").is_file() else None


def _looks_like_path(name: str) -> bool:
    if name.startswith(("/", "./", "../", "~", "\\")) or "\\" in name or (len(name) > 1 and name[1] == ":"):
        return True
    return name.count("/") > 1


_FOLDER = "a local folder holding config.json, the tokenizer files and the weights"


def _not_a_folder(model: str, reason: str) -> ModelNotFoundError:
    return ModelNotFoundError(
        f"BERTScore model {model!r} is not available: {reason}; model= (CLI: --model) must be {_FOLDER}"
    )


def _not_cached(model: str, *, allow_download: bool, detail: str = "") -> ModelNotFoundError:
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
    return ModelNotFoundError(f"BERTScore model {model!r} is not available: {reason}{detail}")


def check_model(model: str, *, allow_download: bool = False) -> None:
    """Fail fast, reading only the file system, when ``model`` can be neither loaded from a local folder or the
    Hugging Face cache nor (``allow_download=True``, the Hub on) downloaded. Never touches the network."""
    path = Path(model).expanduser()
    if path.exists():
        if not path.is_dir():
            raise _not_a_folder(model, f"{model} is a file, not a model folder")
        if not (path / "config.json").is_file():
            raise _not_a_folder(model, f"the folder {model} holds no config.json")
        return
    if _looks_like_path(model):
        raise _not_a_folder(model, f"there is no folder {model}")
    if cached_snapshot(model) is not None:
        return
    if not allow_download or is_offline():
        raise _not_cached(model, allow_download=allow_download)


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


def load_pretrained(model: str, loader: Callable[..., Any], *, allow_download: bool = False) -> Any:
    """``loader(model)`` (a ``from_pretrained``), offline first.

    A local folder is loaded as it is. A Hub name is loaded from the Hugging Face cache with
    ``local_files_only=True``, so no connection is ever opened, unless ``allow_download`` is true (and
    ``HF_HUB_OFFLINE`` unset): then what the cache lacks is downloaded. A model that is not available raises
    :class:`ModelNotFoundError`, which names the download command, the opt-in and the ``model=`` folder.
    """
    check_model(model, allow_download=allow_download)
    path = Path(model).expanduser()
    with quiet_transformers():
        if path.exists():
            return loader(str(path))
        try:
            return loader(model, local_files_only=True)
        except (OSError, ValueError) as err:
            if not allow_download or is_offline():
                detail = f" (the cache holds an incomplete copy: {err})" if cached_snapshot(model) else ""
                raise _not_cached(model, allow_download=allow_download, detail=detail) from err
        try:
            return loader(model)
        except (OSError, ValueError) as err:
            raise ModelNotFoundError(
                f"BERTScore model {model!r} is not available: it is not in the Hugging Face cache and the "
                f"download failed ({err}); fetch it with:  {fetch_command(model)}  or pass model=<folder> "
                f"(CLI: --model FOLDER), {_FOLDER}"
            ) from err


def _transformers() -> Any:
    try:
        import transformers
    except ImportError as err:
        raise MissingDependencyError("bertscore", _INSTALL) from err
    return transformers


def load_config(model: str, *, allow_download: bool = False) -> Any:
    """The transformers config of ``model`` (offline first)."""
    return load_pretrained(model, _transformers().AutoConfig.from_pretrained, allow_download=allow_download)


def load_tokenizer(model: str, *, allow_download: bool = False) -> Any:
    """The tokenizer of ``model`` (offline first), as bert-score loads it (``AutoTokenizer``, ``use_fast=False``;
    transformers 5 has one tokenizer class per model, so the flag changes nothing there)."""
    auto = _transformers().AutoTokenizer

    def loader(name: str, **kwargs: Any) -> Any:
        return auto.from_pretrained(name, use_fast=False, **kwargs)

    return load_pretrained(model, loader, allow_download=allow_download)


# ------------------------------------------------------------------------------------------- model identity
#: Files of a model folder that its digest covers (besides the weights): the config and the tokenizer's files.
_IDENTITY_SUFFIXES = (".json", ".txt", ".model", ".tiktoken")
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack")
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


def model_digest(folder: str | os.PathLike[str]) -> str:
    """A 12-hex-digit digest of a model folder's config, tokenizer files and weights (SHA-256 of their names and
    contents). It is computed once per folder and file state (name, size, modification time), then remembered in
    this process and in ``$NLGMETRICS_CACHE_DIR/model-digests.json`` (default ``~/.cache/nlgmetrics``), so a
    model of several GB is not read again on every call."""
    return _digest_of(os.path.realpath(os.path.expanduser(os.fspath(folder))))


def _digest_of(path: str) -> str:
    """:func:`model_digest` of a resolved folder path."""
    stamp, names = _identity_stamp(path)
    key = (path, stamp)
    found = _DIGESTS.get(key)
    if found is not None:
        return found
    stored = _read_digest_cache().get(path)
    if isinstance(stored, dict) and stored.get("files") == [list(s) for s in stamp]:
        digest = str(stored.get("digest", ""))
    else:
        digest = ""
    if len(digest) != 12:
        h = hashlib.sha256()
        for name in names:
            h.update(name.encode("utf-8") + b"\0")
            part = hashlib.sha256()
            with open(os.path.join(path, name), "rb") as fh:
                while block := fh.read(1 << 20):
                    part.update(block)
            h.update(part.digest())
        digest = h.hexdigest()[:12]
        _write_digest_cache(path, [list(s) for s in stamp], digest)
    _DIGESTS[key] = digest
    return digest


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
    return f"{os.path.basename(real) or 'model'}@{_digest_of(real)}"


# ------------------------------------------------------------------------------------------- baselines
@dataclasses.dataclass(frozen=True)
class Baseline:
    """Baseline values ``(P, R, F)`` of one layer, and where they came from."""

    values: tuple[float, float, float]
    source: str
    custom: bool


def bert_score_baseline_dir() -> Path | None:
    """The ``rescale_baseline`` folder of an installed ``bert_score`` package (found without importing it)."""
    try:
        spec = importlib.util.find_spec("bert_score")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "rescale_baseline"
        if folder.is_dir():
            return folder
    return None


def read_baseline(path: str | os.PathLike[str]) -> list[tuple[float, float, float]]:
    """The rows ``(P, R, F)`` of a baseline file in bert-score's format, row ``i`` being layer ``i``.

    bert-score writes ``LAYER,P,R,F`` with commas (pandas' ``to_csv``) despite the ``.tsv`` name; tabs are read
    too. Like bert-score (``pd.read_csv(path).iloc[num_layers]``), row *positions* are layers.
    """
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as err:
        raise InvalidInputError(f"cannot read the baseline file {name}: {err.strerror or err}") from None
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise InvalidInputError(f"the baseline file {name} is empty")
    delimiter = "\t" if "\t" in lines[0] else ","
    rows = list(csv.reader(lines, delimiter=delimiter))
    header = [h.strip() for h in rows[0]]
    missing = [c for c in ("P", "R", "F") if c not in header]
    if missing:
        raise InvalidInputError(
            f"the baseline file {name} has no column {', '.join(missing)} in its header {header}; expected "
            "bert-score's format: LAYER,P,R,F"
        )
    cols = [header.index(c) for c in ("P", "R", "F")]
    table = []
    for i, row in enumerate(rows[1:], start=2):
        try:
            p, r, f = (float(row[c]) for c in cols)
        except (ValueError, IndexError):
            raise InvalidInputError(f"{name}:{i}: expected numbers in the P, R and F columns, got {row}") from None
        table.append((p, r, f))
    return table


def write_baseline(rows: Sequence[tuple[float, float, float]]) -> str:
    """A baseline table in bert-score's format (``LAYER,P,R,F``, comma-separated), row ``i`` being layer ``i``."""
    out = io.StringIO()
    out.write("LAYER,P,R,F\n")
    for i, (p, r, f) in enumerate(rows):
        out.write(f"{i},{p!r},{r!r},{f!r}\n")
    return out.getvalue()


def baseline_name(model: str) -> str:
    """The file name (without ``.tsv``) a baseline of ``model`` has under ``$NLGMETRICS_BERTSCORE_BASELINES/<lang>/``:
    a Hub name as it is (``org/name`` is a sub-folder, as in bert-score's files), a local folder by its name.

    >>> baseline_name("bert-base-multilingual-cased"), baseline_name("/models/my-bert/")
    ('bert-base-multilingual-cased', 'my-bert')
    """
    if _looks_like_path(model) or Path(model).expanduser().is_dir():
        return Path(model.rstrip("/\\")).name or "model"
    return model


def _candidates(model: str, lang: str) -> list[tuple[Path, str, bool]]:
    """Where a baseline may be: ``(path, source, custom)``; ``custom`` as bert-score's hash means it."""
    names = dict.fromkeys([baseline_name(model), table_name(model)])
    found = []
    env = os.environ.get(BASELINE_ENV)
    if env:
        found += [(Path(env) / lang / f"{name}.tsv", f"{BASELINE_ENV}:{lang}/{name}", True) for name in names]
    shipped = bert_score_baseline_dir()
    if shipped is not None:
        found += [(shipped / lang / f"{name}.tsv", f"bert_score:{lang}/{name}", False) for name in names]
    return found


def _compute_hint(model: str, lang: str | None) -> str:
    name = baseline_name(model)
    shown = model if " " not in model else repr(model)
    env = os.environ.get(BASELINE_ENV)
    if env and lang:
        where = str(Path(env) / lang / f"{name}.tsv")
        use = f"rescaling then finds it there by language ({BASELINE_ENV}), or pass baseline_path=<that file>"
    else:
        where = f"{name.replace('/', '_')}-{lang}.tsv" if lang else f"{name.replace('/', '_')}.tsv"
        use = "and pass baseline_path=<that file>"
    return (
        f"compute one from a text corpus in the language with:  nlgmetrics bertscore-baseline --model {shown} "
        f"--corpus CORPUS.txt --output {where}  {use} (CLI: --baseline-path)"
    )


def _no_baseline(model: str, lang: str) -> InvalidInputError:
    shipped = bert_score_baseline_dir()
    if shipped is None:
        where = "the bert_score package, whose baselines are used when installed, is not installed"
    else:
        langs = sorted(p.parent.name for p in shipped.glob(f"*/{table_name(model)}.tsv"))
        where = "bert_score ships none for it" + (f" (it has this model for: {', '.join(langs)})" if langs else "")
    return InvalidInputError(
        f"no rescaling baseline for model {model!r} in language {lang!r}: {where}; {_compute_hint(model, lang)}"
    )


def find_baseline(model: str, lang: str | None, num_layers: int, baseline_path: str | None = None) -> Baseline:
    """The baseline ``(P, R, F)`` of ``model`` at ``num_layers``, or an error that says how to get one."""
    if baseline_path is not None:
        table = read_baseline(baseline_path)
        source, custom = f"custom:{Path(baseline_path).name}", True
    else:
        if lang is None:
            raise InvalidInputError(
                "rescale_with_baseline needs lang= (bert-score's baselines are per language) or baseline_path=<file>"
            )
        lang = lang.lower()
        found = next(((p, s, c) for p, s, c in _candidates(model, lang) if p.is_file()), None)
        if found is None:
            raise _no_baseline(model, lang)
        path, source, custom = found
        table = read_baseline(path)
    if not 0 <= num_layers < len(table):
        raise InvalidInputError(
            f"the baseline {source} has rows for layers 0..{len(table) - 1}, but num_layers={num_layers}"
        )
    return Baseline(table[num_layers], source, custom)
