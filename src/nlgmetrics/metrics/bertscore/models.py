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

import csv
import dataclasses
import io
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...engine import hub
from ...engine.hub import (
    ModelNotFoundError,
    cached_snapshot,
    fetch_command,
    hub_cache_dir,
    is_offline,
    model_digest,
    model_label,
)
from ...errors import InvalidInputError, warn

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
# Finding, loading and naming a model is the engine's (nlgmetrics.engine.hub); BERTScore's messages name it
# "BERTScore model".
_WHAT = "BERTScore model"


def check_model(model: str, *, allow_download: bool = False) -> None:
    """Fail fast, reading only the file system, when ``model`` is neither a local folder nor in the Hugging Face
    cache (and may not be downloaded); see :func:`nlgmetrics.engine.hub.check_model`."""
    hub.check_model(model, allow_download=allow_download, what=_WHAT)


def load_pretrained(model: str, loader: Callable[..., Any], *, allow_download: bool = False) -> Any:
    """``loader(model)`` offline first; see :func:`nlgmetrics.engine.hub.load_pretrained`."""
    return hub.load_pretrained(model, loader, allow_download=allow_download, what=_WHAT)


def load_config(model: str, *, allow_download: bool = False) -> Any:
    """The transformers config of ``model`` (offline first)."""
    return hub.load_config(model, allow_download=allow_download, what=_WHAT)


def load_tokenizer(model: str, *, allow_download: bool = False) -> Any:
    """The tokenizer of ``model`` (offline first), as bert-score loads it (``AutoTokenizer``, ``use_fast=False``;
    transformers 5 has one tokenizer class per model, so the flag changes nothing there)."""
    return hub.load_tokenizer(model, allow_download=allow_download, what=_WHAT)


# ------------------------------------------------------------------------------------------- baselines
@dataclasses.dataclass(frozen=True)
class Baseline:
    """Baseline values ``(P, R, F)`` of one layer, and where they came from."""

    values: tuple[float, float, float]
    source: str
    custom: bool


def bert_score_baseline_dir() -> Path | None:
    """The ``rescale_baseline`` folder of an installed ``bert_score`` package (found without importing it)."""
    from ..._files import package_path

    return package_path("bert_score", "rescale_baseline", want=Path.is_dir)


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
    if hub.looks_like_path(model) or Path(model).expanduser().is_dir():
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
