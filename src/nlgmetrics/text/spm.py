"""SentencePiece tokenizers of spBLEU: sacrebleu's ``flores101``, ``flores200`` and ``spBLEU-1K``.

Multilingual MT reports BLEU over SentencePiece pieces ("spBLEU"): sacrebleu's ``tokenizer_spm`` joins
``EncodeAsPieces(line)`` with spaces, and BLEU counts those pieces. The model is a file: sacrebleu downloads it to
``$SACREBLEU/models/`` (default ``~/.sacrebleu/models/``); **nothing is downloaded here**. The model comes from
``spm_model=PATH`` (command line: ``--spm-model PATH``) or, without it, from the file sacrebleu itself would use
(the same folder and file name), so a machine where sacrebleu has run once needs no option. Without either, the
error names the URL sacrebleu downloads it from and the option to pass.

``sentencepiece`` is an optional dependency (``pip install 'nlgmetrics[spm]'``). The signature names the
tokenizer as sacrebleu does (``tok:flores200``) and the model by the first 16 hex digits of its SHA-256
(``spm:...``): a different file under the same name gives a different signature, never a path.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInputError, MissingDependencyError

__all__ = ["SPM_MODELS", "SPM_NAMES", "SpmTokenizer", "default_model_path", "model_digest", "spm_tokenizer"]


@dataclass(frozen=True)
class SpmModel:
    """sacrebleu's ``SPM_MODELS`` entry: where it downloads the model and the name its signature gives."""

    url: str
    signature: str

    @property
    def filename(self) -> str:
        return os.path.basename(self.url)  # the file name sacrebleu stores the download under


#: sacrebleu 2.6's models (``tokenizers/tokenizer_spm.py``), by the tokenizer name.
SPM_MODELS: dict[str, SpmModel] = {
    "flores101": SpmModel(
        "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model", "flores101"
    ),
    "flores200": SpmModel("https://tinyurl.com/flores200sacrebleuspm", "flores200"),
    "spBLEU-1K": SpmModel("https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model", "spBLEU-1K"),
}
#: The public names: ``spm`` is sacrebleu's older name of ``flores101`` (configs store, and signatures show,
#: ``flores101``).
SPM_NAMES = (*SPM_MODELS, "spm")
_INSTALL = "pip install 'nlgmetrics[spm]'"


def canonical(name: str) -> str:
    """``"spm"`` is ``"flores101"``; any other name unchanged."""
    return "flores101" if name == "spm" else name


def default_model_path(name: str) -> str:
    """The file sacrebleu would load for ``name``: ``$SACREBLEU/models/<file>`` (default ``~/.sacrebleu``)."""
    root = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
    return os.path.join(root, "models", SPM_MODELS[canonical(name)].filename)


def resolve_model(name: str, path: str | os.PathLike[str] | None) -> str:
    """The model file for tokenizer ``name``: ``path`` if given, else sacrebleu's; an error naming the URL and the
    option when there is none (nothing is downloaded)."""
    model = SPM_MODELS[canonical(name)]
    if path is not None:
        given = os.fspath(path)
        if not os.path.isfile(given):
            raise InvalidInputError(
                f"spm_model={given!r} (--spm-model): no such file; the {model.signature} SentencePiece model is "
                f"the file sacrebleu downloads from {model.url}"
            )
        return given
    default = default_model_path(name)
    if os.path.isfile(default):
        return default
    raise InvalidInputError(
        f"the {name!r} tokenizer needs its SentencePiece model, and nlgmetrics never downloads: get the file "
        f"sacrebleu downloads from {model.url} and pass it as spm_model=PATH (command line: --spm-model PATH), or "
        f"put it where sacrebleu keeps it ({default}; $SACREBLEU/models/ when SACREBLEU is set)"
    )


_DIGESTS: dict[tuple[str, int, int], str] = {}
_LOCK = threading.Lock()


def _key(path: str) -> tuple[str, int, int]:
    st = os.stat(path)
    return (os.path.realpath(path), st.st_mtime_ns, st.st_size)


def model_digest(path: str) -> str:
    """The first 16 hex digits of the SHA-256 of a model file (computed once per file version)."""
    key = _key(path)
    digest = _DIGESTS.get(key)
    if digest is None:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        digest = _DIGESTS[key] = h.hexdigest()[:16]
    return digest


class SpmTokenizer:
    """sacrebleu's ``TokenizerSPM`` over one model file: ``text(line)`` is ``" ".join(EncodeAsPieces(line))``;
    ``batch`` encodes a corpus in one SentencePiece call."""

    def __init__(self, name: str, path: str) -> None:
        try:
            import sentencepiece
        except ImportError:
            raise MissingDependencyError(f"the {name} tokenizer (spBLEU)", _INSTALL) from None
        self.name = canonical(name)
        self.signature = SPM_MODELS[self.name].signature
        self.digest = model_digest(path)
        self.processor: Any = sentencepiece.SentencePieceProcessor()
        try:
            self.processor.Load(path)
        except (OSError, RuntimeError) as err:
            raise InvalidInputError(f"{path}: not a SentencePiece model ({err})") from None

    def text(self, line: str) -> str:
        return " ".join(self.processor.EncodeAsPieces(line))

    def __call__(self, line: str) -> list[str]:
        return self.text(line).split()

    def batch(self, lines: Sequence[str]) -> list[list[str]]:
        pieces = self.processor.Encode(list(lines), out_type=str)
        # sacrebleu's BLEU splits the joined pieces on whitespace (a model that does not escape spaces can make
        # pieces that hold some): the same here, one join and split per line
        return [" ".join(p).split() for p in pieces]


_BUILT: dict[tuple[str, tuple[str, int, int]], SpmTokenizer] = {}


def spm_tokenizer(name: str, path: str | os.PathLike[str] | None) -> SpmTokenizer:
    """The tokenizer ``name`` over its model (``path``, or sacrebleu's file), loaded once per file version."""
    if canonical(name) not in SPM_MODELS:
        from ..errors import unknown_option

        raise unknown_option("SentencePiece tokenizer", name, list(SPM_NAMES))
    resolved = resolve_model(name, path)
    key = (canonical(name), _key(resolved))
    tok = _BUILT.get(key)
    if tok is None:
        with _LOCK:
            tok = _BUILT.get(key)
            if tok is None:
                tok = _BUILT[key] = SpmTokenizer(name, resolved)
    return tok
