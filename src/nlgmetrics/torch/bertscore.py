"""The BERTScore encoder kernel: token embeddings and greedy matching, bert-score 0.3.13's algorithm.

What bert-score does, and so what this does:

* each text is stripped, then tokenised with the model's special tokens and truncated to the tokenizer's maximum
  length (``model_max_length``, 512 for BERT);
* the model is cut after layer ``num_layers`` (layer 0 is the embeddings) and the last hidden state of the cut
  model is each token's embedding, L2-normalised;
* for a candidate ``x`` and a reference ``y`` (special tokens included), precision is the weighted mean over
  ``x``'s tokens of their best cosine similarity to a token of ``y``, recall the same the other way round, and
  ``F = 2PR / (P + R)``. Weights are 1 (0 for ``[CLS]`` and ``[SEP]``) or idf weights.

What is done differently, without changing the numbers (beyond float rounding, about 1e-7):

* texts are deduplicated (after stripping) and embedded once; they are sorted by *token* length, not word count,
  and each batch is padded only to its own longest text; a batch holds as many texts as fit a memory budget for
  the activations of one forward pass (:data:`FORWARD_BYTES`, turned into padded tokens from the model's width),
  or ``batch_size`` texts if that is fewer. Batches of a few thousand tokens keep a CPU fast (each operation of a
  forward pass synchronises its threads), and the budget keeps the peak memory bounded; everything runs under
  ``torch.inference_mode``;
* a text that is truncated is tokenised only as far as the kept tokens reach (a 10 MB text costs the
  tokenisation of a few thousand characters);
* the corpus is processed in chunks of consecutive pairs whose new texts fill at most :data:`CHUNK_BYTES` of
  embeddings (10,900 tokens for MiniLM-L6); a chunk's texts are sorted by length
  together, its embeddings sit in one buffer freed with the chunk, and a text's embedding is kept beyond its chunk
  only until the last chunk that uses it, so memory stays bounded on long corpora (bert-score holds every
  embedding of the call);
* reference embeddings are kept in a small LRU cache across calls (keyed by the text, the model, the layer, the
  dtype and the device), so scoring several systems against the same references embeds the references once;
* padding is masked out of the greedy maxima. bert-score fills the similarities of padding with 0, which changes
  a token's maximum only when all its true similarities are negative;
* a text without any token besides the special ones scores 0 without a warning from here (the metric warns) and
  without running the model; bert-score 0.3.13 crashes on it with transformers 5
  (``build_inputs_with_special_tokens`` is gone).

``long_inputs="window"`` (opt-in) embeds a text longer than the maximum length in overlapping windows of the
maximum length (stride half a window); each token takes its embedding from the window whose centre is nearest,
the leading special tokens from the first window and the trailing ones from the last. Each window's embeddings
go straight into the text's (no window is kept), and the whole text is then matched; a pair too long for one
similarity matrix within :data:`MATCH_ELEMENTS` is matched a block of rows at a time, so memory grows with the
length of the texts, never with its square. Texts that fit are embedded exactly as in the default mode.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import math
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence

from ..errors import InvalidInputError, MissingDependencyError
from ..metrics.bertscore_models import load_config, load_pretrained, load_tokenizer, model_depth, model_label

__all__ = [
    "DTYPES",
    "Encoder",
    "Scores",
    "Tokenization",
    "clear_caches",
    "get_encoder",
    "get_tokenization",
    "resolve_device",
    "score_corpus",
    "score_pairs",
    "similarity_matrix",
]

DTYPES: dict[str, torch.dtype] = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}

#: How many loaded models are kept (an LRU); each holds its own reference-embedding cache.
MAX_ENCODERS = 2
#: Default budget of each model's reference-embedding cache, in bytes.
CACHE_BYTES = 256 * 2**20
#: Memory budget of the activations of one forward pass on a CPU, in bytes. A batch holds at most as many padded
#: tokens as the model's width allows within it (:meth:`Encoder.token_budget`; 1,820 for MiniLM-L6 in float32, 910
#: for BERT-base), and at most ``batch_size`` texts when one is given. The budget keeps the peak memory bounded
#: whatever the texts. Measured on MiniLM-L6 (1,000 SummEval pairs, 2 threads, one fresh process per setting), 64 MiB
#: ran as fast as 128 MiB (every budget from 32 to 128 MiB measured alike, within the machine's ±10% noise) and
#: peaked at 734-737 MiB in three runs against 701-894 MiB in eight (bert-score: 810-910 MiB); 384 MiB was about
#: 15% slower. An earlier cap of 1,024 padded tokens per batch was 2× slower.
FORWARD_BYTES = 64 * 2**20
#: The same budget on a GPU or another accelerator, where larger batches keep the device busy (not measured here).
ACCELERATOR_FORWARD_BYTES = 384 * 2**20
#: What one more forward pass costs, counted in padded tokens, when batches are chosen (:func:`_batches`).
BATCH_OVERHEAD_TOKENS = 512
#: A text longer than this many characters is tokenised by growing prefixes when it is truncated, so that a 10 MB
#: text cut to 512 tokens costs the tokenisation of a few thousand characters, not of the whole text.
PREFIX_CHARS = 8192
#: Tokens beyond the kept ones that a truncated prefix must reach (so the cut cannot change a kept token).
PREFIX_MARGIN = 64
#: Budget of the embeddings of one chunk of pairs, in bytes: the embeddings held at a time are those of a chunk
#: (plus those reused by later chunks, and the reference cache), whatever the length of the corpus. 16 MiB measured
#: as fast as 32 and 128 MiB on 1,000 SummEval pairs (MiniLM-L6), with a lower peak.
CHUNK_BYTES = 16 * 2**20
#: At most this many pairs per chunk.
CHUNK_PAIRS = 8192
#: Upper bound on the similarity entries of one greedy-matching batch (pairs x layers x tokens x tokens).
MATCH_ELEMENTS = 2**22
#: A run embedding at least this many texts shows a progress bar (when ``progress`` is left to ``None``).
PROGRESS_MIN_TEXTS = 1000

_INSTALL = "pip install 'nlgmetrics[bertscore]'"


def resolve_device(device: str | None) -> str:
    """``device``, or bert-score's default: ``"cuda"`` when a GPU is available, else ``"cpu"``. A device this
    torch cannot use (``cuda`` on a CPU-only build or a machine without a GPU, ``cuda:3`` with two GPUs, ``mps``
    off a Mac) is an error that says so, before any model is loaded."""
    if device is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise InvalidInputError(
            f"device must be a torch device such as 'cpu', 'cuda' or 'cuda:1', got {device!r}"
        ) from None
    hint = "use device='cpu' (CLI: --device cpu), or leave device unset to take a GPU only when there is one"
    if dev.type == "cuda":
        if not torch.backends.cuda.is_built():
            raise InvalidInputError(
                f"device={device!r}, but this torch ({torch.__version__}) was built without CUDA: install a CUDA "
                f"build of torch, or {hint}"
            )
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise InvalidInputError(f"device={device!r}, but torch sees no CUDA GPU on this machine: {hint}")
        if dev.index is not None and dev.index >= count:
            raise InvalidInputError(
                f"device={device!r}, but torch sees {count} CUDA GPU(s) (cuda:0 to cuda:{count - 1}): {hint}"
            )
    elif dev.type != "cpu":
        backend = getattr(torch, dev.type, None) or getattr(torch.backends, dev.type, None)
        available = getattr(backend, "is_available", None)
        if callable(available) and not available():
            raise InvalidInputError(f"device={device!r}, but this torch cannot use {dev.type} here: {hint}")
    return str(device)


# ============================================================================================ the model
def _layer_stack(model: Any) -> tuple[str, Any, str] | None:
    """Where a model keeps its layers, probed in bert-score's order: ``("count" | "list", owner, attribute)``."""
    if hasattr(model, "n_layers"):  # XLM
        return "count", model, "n_layers"
    if hasattr(model, "layer"):  # XLNet
        return "list", model, "layer"
    encoder = getattr(model, "encoder", None)
    if encoder is not None:
        if hasattr(encoder, "albert_layer_groups"):  # ALBERT shares its layers; the count is in the config
            return "count", encoder.config, "num_hidden_layers"
        if hasattr(encoder, "block"):  # T5
            return "list", encoder, "block"
        if hasattr(encoder, "layer"):  # BERT, RoBERTa, ELECTRA, DeBERTa, ...
            return "list", encoder, "layer"
    transformer = getattr(model, "transformer", None)
    if transformer is not None and hasattr(transformer, "layer"):  # DistilBERT
        return "list", transformer, "layer"
    if hasattr(model, "layers"):  # BART-style encoders
        return "list", model, "layers"
    return None


def _depth(stack: tuple[str, Any, str]) -> int:
    kind, owner, attr = stack
    value = getattr(owner, attr)
    return int(value) if kind == "count" else len(value)


def _cut(stack: tuple[str, Any, str], num_layers: int) -> None:
    kind, owner, attr = stack
    if kind == "count":
        setattr(owner, attr, num_layers)
    else:
        setattr(owner, attr, torch.nn.ModuleList(list(getattr(owner, attr))[:num_layers]))


@dataclasses.dataclass
class _Entry:
    """One text's encoding: token ids (after truncation), embeddings ``(layers, tokens, dim)``, flags."""

    ids: list[int]
    embedding: torch.Tensor | None  # None for a text with no token besides the special ones
    truncated: bool

    @property
    def nbytes(self) -> int:
        return 0 if self.embedding is None else self.embedding.numel() * self.embedding.element_size()


def _own(entry: _Entry) -> _Entry:
    """``entry`` with an embedding of its own, not a view that keeps a whole buffer of embeddings alive."""
    emb = entry.embedding
    if emb is None or emb.untyped_storage().nbytes() == emb.numel() * emb.element_size():
        return entry
    return dataclasses.replace(entry, embedding=emb.clone())


class _LRU:
    """Reference embeddings by text, evicting the least recently used beyond a byte budget."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self.items: collections.OrderedDict[tuple[str, str], _Entry] = collections.OrderedDict()

    def get(self, key: tuple[str, str]) -> _Entry | None:
        entry = self.items.get(key)
        if entry is not None:
            self.items.move_to_end(key)
        return entry

    def put(self, key: tuple[str, str], entry: _Entry) -> None:
        if key in self.items or entry.nbytes > self.budget:
            return
        self.items[key] = entry
        self.used += entry.nbytes
        while self.used > self.budget:
            _, old = self.items.popitem(last=False)
            self.used -= old.nbytes

    def clear(self) -> None:
        self.items.clear()
        self.used = 0


class Tokenization:
    """How bert-score turns a model's texts into token ids: the model's tokenizer, stripping, special tokens,
    truncation to the maximum length (and, for ``long_inputs="window"``, the windows). Needs no model weights."""

    def __init__(self, model: str, allow_download: bool = False) -> None:
        try:
            import transformers
        except ImportError as err:
            raise MissingDependencyError("bertscore", _INSTALL) from err
        self.name = model
        self.allow_download = allow_download
        self.tokenizer = load_tokenizer(model, allow_download=allow_download)
        self.max_length = self._max_length(model)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        self.zero_weight_ids = np.asarray(
            [i for i in (self.tokenizer.sep_token_id, self.tokenizer.cls_token_id) if i is not None], dtype=np.int64
        )
        self._encode_kwargs: dict[str, Any] = {}
        gpt2, roberta = getattr(transformers, "GPT2Tokenizer", ()), getattr(transformers, "RobertaTokenizer", ())
        if isinstance(self.tokenizer, (gpt2, roberta)):
            self._encode_kwargs["add_prefix_space"] = True  # as bert-score's sent_encode
        self.prefix, self.suffix = self._template()
        if self.max_length - self.prefix - self.suffix < 2:
            raise InvalidInputError(f"model {model!r}: a maximum length of {self.max_length} leaves no room for text")

    def _max_length(self, model: str) -> int:
        limit = getattr(self.tokenizer, "model_max_length", None)
        if isinstance(limit, int) and 0 < limit < 1_000_000:
            return limit
        # The tokenizer does not say (bert-score would then pass a huge max_length and the model would fail on
        # long texts): use the model's number of positions.
        config = load_config(model, allow_download=self.allow_download)
        positions = getattr(config, "max_position_embeddings", None)
        if not isinstance(positions, int) or positions <= 0:
            return 512
        if getattr(config, "model_type", "") in {"roberta", "xlm-roberta", "camembert", "longformer", "bertweet"}:
            positions -= 2  # these models number positions from padding_idx + 1
        return positions

    def _template(self) -> tuple[int, int]:
        """How many special tokens the tokenizer puts before and after a text."""
        probe = self._encode(["a"], special=True)[0]
        bare = self._encode(["a"], special=False)[0]
        for start in range(len(probe) - len(bare) + 1):
            if probe[start : start + len(bare)] == bare:
                return start, len(probe) - start - len(bare)
        raise InvalidInputError(f"cannot tell where the special tokens of model {self.name!r} go")

    def _encode(self, texts: list[str], special: bool = True) -> list[list[int]]:
        out = self.tokenizer(
            texts,
            add_special_tokens=special,
            truncation=False,
            verbose=False,
            return_attention_mask=False,
            return_token_type_ids=False,
            **self._encode_kwargs,
        )
        return [list(ids) for ids in out["input_ids"]]

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text (stripped, with special tokens), *not* truncated."""
        stripped = [t.strip() for t in texts]
        keep = [i for i, t in enumerate(stripped) if t]
        empty = self._encode([""])[0] if len(keep) < len(stripped) else []
        out: list[list[int]] = [empty] * len(stripped)
        if keep:
            for i, ids in zip(keep, self._encode([stripped[i] for i in keep]), strict=True):
                out[i] = ids
        return out

    def truncate(self, ids: list[int]) -> tuple[list[int], bool]:
        """``ids`` cut to the maximum length as the tokenizer cuts them (text tokens dropped from the end)."""
        if len(ids) <= self.max_length:
            return ids, False
        keep = self.max_length - self.prefix - self.suffix
        return ids[: self.prefix + keep] + ids[len(ids) - self.suffix :], True

    def encode(self, texts: Sequence[str], long_inputs: str = "truncate") -> list[tuple[list[int], bool]]:
        """``(ids, truncated)`` of each text as it is scored: stripped, with special tokens, and (unless long texts
        are windowed) cut to the maximum length. A text of more than :data:`PREFIX_CHARS` characters that is cut
        is tokenised only as far as the kept tokens reach (:meth:`_truncated_prefix`)."""
        stripped = [t.strip() for t in texts]
        if long_inputs == "window":
            return [(ids, False) for ids in self.tokenize(stripped)]
        out: list[tuple[list[int], bool]] = [([], False)] * len(stripped)
        short = [i for i, t in enumerate(stripped) if len(t) <= PREFIX_CHARS]
        if short:
            for i, ids in zip(short, self.tokenize([stripped[i] for i in short]), strict=True):
                out[i] = self.truncate(ids)
        for i, text in enumerate(stripped):
            if len(text) > PREFIX_CHARS:
                out[i] = self._truncated_prefix(text)
        return out

    def _truncated_prefix(self, text: str) -> tuple[list[int], bool]:
        """``truncate(tokenize([text])[0])`` without tokenising all of a long text.

        Prefixes of the text, cut at a whitespace where there is one near the cut and doubling in length, are
        tokenised until two successive ones reach :data:`PREFIX_MARGIN` tokens past the kept ones and agree on the
        kept ones. The cut then cannot reach the kept tokens: tokenizers split words at whitespace, and a word's
        pieces never depend on text hundreds of tokens later. A text that never gets that long is tokenised
        whole."""
        keep = self.max_length - self.prefix - self.suffix
        size = PREFIX_CHARS
        previous: list[int] | None = None
        while size < len(text):
            ids = self._encode([text[: _cut_at_space(text, size)]])[0]
            if len(ids) - self.prefix - self.suffix >= keep + PREFIX_MARGIN:
                head = ids[: self.prefix + keep]
                if head == previous:
                    return head + ids[len(ids) - self.suffix :], True
                previous = head
            size *= 2
        return self.truncate(self._encode([text])[0])

    def idf_documents(self, texts: Sequence[str], long_inputs: str = "truncate") -> Iterator[list[int]]:
        """The token ids bert-score counts for idf: each text encoded as for scoring (truncated, unless long texts
        are windowed), tokenised in slices so that a large corpus is never held tokenised."""
        for lo in range(0, len(texts), 4096):
            for ids, _ in self.encode(texts[lo : lo + 4096], long_inputs):
                yield ids

    def content_length(self, ids: list[int]) -> int:
        return len(ids) - self.prefix - self.suffix

    def windows(self, ids: list[int]) -> tuple[list[list[int]], list[tuple[int, int, int]]]:
        """Overlapping windows of a long text and, per window, ``(start, lo, hi)``: it starts at text token
        ``start`` and gives their embeddings to text tokens ``lo:hi`` (those nearest its centre)."""
        p, s = self.prefix, self.suffix
        head, content, tail = ids[:p], ids[p : len(ids) - s], ids[len(ids) - s :]
        width = self.max_length - p - s
        n = len(content)
        stride = max(1, width // 2)
        starts = [*range(0, n - width, stride), n - width]
        plan = []
        lo = 0
        for k, a in enumerate(starts):
            hi = n if k + 1 == len(starts) else (a + starts[k + 1] + width - 1) // 2 + 1
            plan.append((a, lo, hi))
            lo = hi
        return [head + content[a : a + width] + tail for a in starts], plan

    def weights_plain(self, ids: list[int]) -> np.ndarray:
        """bert-score's weights without idf: 1 for every token, 0 for ``[CLS]`` and ``[SEP]``."""
        arr = np.asarray(ids, dtype=np.int64)
        return np.where(np.isin(arr, self.zero_weight_ids), 0.0, 1.0)


def _cut_at_space(text: str, size: int) -> int:
    """An end for a prefix of about ``size`` characters: just before the last whitespace within the last 512
    characters before ``size`` (a word boundary for every tokenizer), else ``size`` itself."""
    for i in range(size, max(0, size - 512), -1):
        if text[i].isspace() and not text[i - 1].isspace():
            return i
    return size


class Encoder(Tokenization):
    """A :class:`Tokenization` and a model cut after ``num_layers`` (or, with ``all_layers``, every layer), on a
    device and in a dtype. Built by :func:`get_encoder`, which keeps the last few."""

    def __init__(
        self,
        model: str,
        num_layers: int,
        device: str,
        dtype: str,
        all_layers: bool = False,
        allow_download: bool = False,
    ) -> None:
        super().__init__(model, allow_download)
        import transformers

        self.num_layers = num_layers
        self.device = torch.device(device)
        self.dtype = DTYPES[dtype]
        self.all_layers = all_layers
        # bert-score loads T5 models as encoders only, and takes the encoder of any encoder-decoder model
        loader = transformers.T5EncoderModel if "t5" in model.lower() else transformers.AutoModel
        net = load_pretrained(model, loader.from_pretrained, allow_download=allow_download)
        if hasattr(net, "decoder") and hasattr(net, "encoder"):
            net = net.encoder
        stack = _layer_stack(net)
        self.depth = _depth(stack) if stack is not None else model_depth(net.config)
        if not 0 <= num_layers <= self.depth:
            raise InvalidInputError(
                f"num_layers must be between 0 and {self.depth} for model {model!r}, got {num_layers}"
            )
        # Cut the model after the chosen layer, as bert-score does, so the layers above are never computed. A model
        # whose layers we cannot find is run whole and its hidden state of that layer is taken instead.
        self._hidden_index: int | None = None
        if all_layers:
            self._hidden_index = -1
        elif stack is not None:
            if num_layers < self.depth:
                _cut(stack, num_layers)
        else:
            self._hidden_index = num_layers
        net.eval()
        self.model = net.to(device=self.device, dtype=self.dtype)
        self.cache = _LRU(CACHE_BYTES)
        self.lock = threading.Lock()

    def _width(self) -> tuple[int, int]:
        """The model's hidden size and the inner size of its feed-forward layers."""
        config = self.model.config
        names = ("hidden_size", "d_model", "dim", "n_embd", "emb_dim")
        hidden = next((v for k in names if isinstance(v := getattr(config, k, None), int)), 1024)
        names = ("intermediate_size", "d_ff", "encoder_ffn_dim", "hidden_dim", "n_inner")
        inner = next((v for k in names if isinstance(v := getattr(config, k, None), int)), 4 * hidden)
        return hidden, inner

    def chunk_tokens(self) -> int:
        """How many tokens of new texts one chunk of pairs may hold: their embeddings (float32, every layer kept)
        fill at most :data:`CHUNK_BYTES` (10,900 tokens for MiniLM-L6, 5,460 for BERT-base)."""
        layers = self.depth + 1 if self.all_layers else 1
        return max(self.max_length, CHUNK_BYTES // (4 * self._width()[0] * layers))

    def token_budget(self) -> int:
        """How many padded tokens one forward pass may hold within :data:`FORWARD_BYTES` on a CPU
        (:data:`ACCELERATOR_FORWARD_BYTES` elsewhere), never fewer than one text of the maximum length: a pass keeps
        about ``4 * (intermediate + 2 * hidden)`` values per token alive (measured on MiniLM-L6: 27 KiB per token in
        float32, within the 36 KiB this estimate gives)."""
        hidden, inner = self._width()
        per_token = 4 * (inner + 2 * hidden) * torch.finfo(self.dtype).bits // 8
        budget = FORWARD_BYTES if self.device.type == "cpu" else ACCELERATOR_FORWARD_BYTES
        return max(self.max_length, budget // per_token)

    def forward(self, batch: list[list[int]]) -> list[torch.Tensor]:
        """Embeddings ``(layers, tokens, dim)``, L2-normalised float32, of a batch of token-id lists."""
        lengths = [len(ids) for ids in batch]
        width = max(lengths)
        ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for j, seq in enumerate(batch):
            ids[j, : len(seq)] = torch.as_tensor(seq, dtype=torch.long)
            mask[j, : len(seq)] = 1
        ids, mask = ids.to(self.device), mask.to(self.device)
        if self._hidden_index is None:
            hidden = self.model(input_ids=ids, attention_mask=mask)[0].unsqueeze(1)
        else:
            out = self.model(input_ids=ids, attention_mask=mask, output_hidden_states=True)
            states = out.hidden_states
            hidden = torch.stack(states, dim=1) if self._hidden_index == -1 else states[self._hidden_index].unsqueeze(1)
        hidden = hidden.float()
        hidden = hidden / hidden.norm(dim=-1, keepdim=True)
        return [hidden[j, :, :n] for j, n in enumerate(lengths)]


_ENCODERS: collections.OrderedDict[tuple[Any, ...], Encoder] = collections.OrderedDict()
_ENCODERS_LOCK = threading.Lock()


def _new_locks_in_child() -> None:
    """A forked child gets fresh locks (one held by another thread at the fork would never be released there)."""
    global _ENCODERS_LOCK
    _ENCODERS_LOCK = threading.Lock()
    for encoder in list(_ENCODERS.values()):
        encoder.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_locks_in_child)


def get_encoder(
    model: str,
    num_layers: int,
    *,
    device: str | None = None,
    dtype: str = "float32",
    all_layers: bool = False,
    allow_download: bool = False,
) -> Encoder:
    """The :class:`Encoder` for these settings, loaded once and kept (the last :data:`MAX_ENCODERS` of them);
    ``allow_download`` lets a model missing from the Hugging Face cache be downloaded."""
    if dtype not in DTYPES:
        raise InvalidInputError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    # a local folder by its content digest too: weights changed at the same path load again (the signature names
    # the new digest, so its scores must come from the new weights)
    key = (model, model_label(model), num_layers, resolve_device(device), dtype, all_layers)
    with _ENCODERS_LOCK:
        encoder = _ENCODERS.get(key)
        if encoder is not None:
            _ENCODERS.move_to_end(key)
            return encoder
    encoder = Encoder(model, num_layers, key[3], dtype, all_layers, allow_download)
    with _ENCODERS_LOCK:
        _ENCODERS[key] = encoder
        while len(_ENCODERS) > MAX_ENCODERS:
            _ENCODERS.popitem(last=False)
    return encoder


_TOKENIZATIONS: collections.OrderedDict[tuple[str, str], Tokenization] = collections.OrderedDict()


def get_tokenization(model: str, *, allow_download: bool = False) -> Tokenization:
    """The :class:`Tokenization` of ``model`` (that of a loaded encoder when there is one)."""
    label = model_label(model)
    with _ENCODERS_LOCK:
        for key, encoder in reversed(_ENCODERS.items()):
            if key[:2] == (model, label):
                return encoder
        found = _TOKENIZATIONS.get((model, label))
    if found is None:
        found = Tokenization(model, allow_download)
        with _ENCODERS_LOCK:
            _TOKENIZATIONS[(model, label)] = found
            while len(_TOKENIZATIONS) > MAX_ENCODERS:
                _TOKENIZATIONS.popitem(last=False)
    return found


def clear_caches() -> None:
    """Forget every loaded model and tokenizer and every cached reference embedding."""
    with _ENCODERS_LOCK:
        _ENCODERS.clear()
        _TOKENIZATIONS.clear()


# ============================================================================================ scoring
@dataclasses.dataclass
class Scores:
    """BERTScore of pairs or of segments, raw (not rescaled): ``precision``, ``recall``, ``f1``; ``empty`` (an
    empty text takes part) and ``truncated`` (a truncated text takes part); and how many distinct texts were
    truncated, empty, or had only zero weights.

    :func:`score_pairs` gives one row per pair, arrays ``(pairs, layers)`` and boolean flags;
    :func:`score_corpus` one value per segment, the best over its references (``empty`` when the prediction or
    every reference is empty), with int64 flags."""

    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    empty: np.ndarray
    truncated: np.ndarray
    truncated_texts: int
    empty_texts: int
    zero_weight_texts: int


def _progress(total: int, progress: bool | None) -> Any:
    from tqdm.auto import tqdm

    if progress is None:
        disable: bool | None = True if total < PROGRESS_MIN_TEXTS else None  # None: only on a terminal
    else:
        disable = not progress
    return tqdm(total=total, disable=disable, desc="BERTScore", unit="text", leave=False)


def _pad(embeddings: list[torch.Tensor]) -> torch.Tensor:
    """Embeddings ``(layers, tokens, dim)`` of several texts as one zero-padded ``(texts, layers, tokens, dim)``."""
    if embeddings[0].shape[0] == 1:
        return pad_sequence([e[0] for e in embeddings], batch_first=True).unsqueeze(1)
    out = embeddings[0].new_zeros(
        (len(embeddings), embeddings[0].shape[0], max(e.shape[1] for e in embeddings), embeddings[0].shape[2])
    )
    for j, e in enumerate(embeddings):
        out[j, :, : e.shape[1]] = e
    return out


def _match(
    hyps: list[torch.Tensor], refs: list[torch.Tensor], hyp_w: list[torch.Tensor], ref_w: list[torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor]:
    """Weighted greedy matching of pairs of embeddings ``(layers, tokens, dim)``: ``(P, R)``, each
    ``(pairs, layers)`` float64. Padding never takes part in a maximum."""
    lh = [x.shape[1] for x in hyps]
    lr = [x.shape[1] for x in refs]
    n_h, n_r = max(lh), max(lr)
    h, r = _pad(hyps), _pad(refs)  # (B, K, L, D), zeros on padding
    sim = torch.matmul(h, r.transpose(2, 3))  # (B, K, Lh, Lr)
    del h, r
    device = sim.device
    mask_h = torch.arange(n_h, device=device) < torch.tensor(lh, device=device)[:, None]  # (B, Lh)
    mask_r = torch.arange(n_r, device=device) < torch.tensor(lr, device=device)[:, None]
    # padding rows and columns to -inf, in place: a real row's maximum is over real columns, and vice versa
    sim.masked_fill_(~(mask_h[:, None, :, None] & mask_r[:, None, None, :]), -math.inf)
    best_h = sim.amax(dim=3).masked_fill_(~mask_h[:, None, :], 0.0).double()  # (B, K, Lh)
    best_r = sim.amax(dim=2).masked_fill_(~mask_r[:, None, :], 0.0).double()  # (B, K, Lr)
    wh = pad_sequence(hyp_w, batch_first=True)  # (B, Lh) float64, zero on padding
    wr = pad_sequence(ref_w, batch_first=True)
    precision = (best_h * wh[:, None, :]).sum(-1) / wh.sum(-1, keepdim=True)
    recall = (best_r * wr[:, None, :]).sum(-1) / wr.sum(-1, keepdim=True)
    return precision, recall


def _match_blocked(
    hyp: torch.Tensor, ref: torch.Tensor, hyp_w: torch.Tensor, ref_w: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`_match` of one pair, its similarities computed a block of hypothesis tokens at a time: each row's
    maximum is final within its block, each column's is kept as a running maximum. Memory stays within
    :data:`MATCH_ELEMENTS` similarities whatever the lengths (two texts of 100,000 tokens would need 40 GB at
    once)."""
    layers, n_h, _ = hyp.shape
    n_r = ref.shape[1]
    rows = max(1, MATCH_ELEMENTS // max(1, layers * n_r))
    best_h = torch.empty((layers, n_h), dtype=torch.float64, device=hyp.device)
    best_r = torch.full((layers, n_r), -math.inf, dtype=hyp.dtype, device=hyp.device)
    ref_t = ref.transpose(1, 2)
    for lo in range(0, n_h, rows):
        block = torch.matmul(hyp[:, lo : lo + rows], ref_t)  # (layers, rows, n_r)
        best_h[:, lo : lo + rows] = block.amax(dim=2).double()
        torch.maximum(best_r, block.amax(dim=1), out=best_r)
        del block
    precision = (best_h * hyp_w).sum(-1) / hyp_w.sum()
    recall = (best_r.double() * ref_w).sum(-1) / ref_w.sum()
    return precision[None], recall[None]


def score_pairs(
    encoder: Encoder,
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    weigh: Callable[[list[int]], np.ndarray] | None = None,
    long_inputs: str = "truncate",
    batch_size: int | None = None,
    progress: bool | None = None,
    cache: bool = True,
    chunk_pairs: int | None = None,
) -> Scores:
    """BERTScore of each pair ``(hypotheses[k], references[k])``, for every layer the encoder returns.

    ``weigh(ids)`` gives the weights of a text's tokens (default: bert-score's weights without idf). Texts are
    deduplicated after stripping. The pairs are processed in chunks: consecutive pairs whose new texts hold at most
    :meth:`Encoder.chunk_tokens` tokens (and at most ``chunk_pairs`` pairs), so that the embeddings held at a time
    are bounded and each chunk's texts can be sorted by length into batches that waste little padding.
    """
    if long_inputs not in ("truncate", "window"):
        raise InvalidInputError(f"long_inputs must be 'truncate' or 'window', got {long_inputs!r}")
    weigh = weigh or encoder.weights_plain
    chunk_pairs = max(1, chunk_pairs or CHUNK_PAIRS)
    n = len(hypotheses)
    # one id per distinct (stripped) text
    index: dict[str, int] = {}
    texts: list[str] = []

    def intern(text: str) -> int:
        key = text.strip()
        i = index.get(key)
        if i is None:
            i = index[key] = len(texts)
            texts.append(key)
        return i

    hyp_u = np.fromiter((intern(t) for t in hypotheses), dtype=np.int64, count=n)
    ref_u = np.fromiter((intern(t) for t in references), dtype=np.int64, count=n)
    is_ref = np.zeros(len(texts), dtype=bool)
    is_ref[ref_u] = True
    use_cache = cache and not encoder.all_layers
    hits: dict[int, _Entry] = {}  # references whose embeddings the cache holds
    if use_cache:
        for u in np.flatnonzero(is_ref).tolist():
            hit = encoder.cache.get((long_inputs, texts[u]))
            if hit is not None:
                hits[u] = hit
    with encoder.lock, torch.inference_mode():
        bounds, encoded = _plan_chunks(encoder, texts, hyp_u, ref_u, hits, long_inputs, chunk_pairs)
    chunk_of = np.searchsorted(bounds, np.arange(n), side="right") - 1
    last_use = np.full(len(texts), -1, dtype=np.int64)
    np.maximum.at(last_use, hyp_u, chunk_of)
    np.maximum.at(last_use, ref_u, chunk_of)

    layers = encoder.depth + 1 if encoder.all_layers else 1
    precision = np.zeros((n, layers))
    recall = np.zeros((n, layers))
    entries: dict[int, _Entry] = {}
    weights: dict[int, torch.Tensor] = {}
    zero_weight: set[int] = set()
    truncated_u = np.zeros(len(texts), dtype=bool)
    empty_u = np.zeros(len(texts), dtype=bool)
    seen = np.zeros(len(texts), dtype=bool)

    with encoder.lock, torch.inference_mode(), _progress(len(texts), progress) as bar:
        for c in range(len(bounds) - 1):
            lo, hi = int(bounds[c]), int(bounds[c + 1])
            needed = np.unique(np.concatenate([hyp_u[lo:hi], ref_u[lo:hi]]))
            todo = []
            for u in needed.tolist():
                if u in entries:
                    continue
                if u in hits:
                    entries[u] = hits[u]
                else:
                    todo.append(u)
            new = int(np.count_nonzero(~seen[needed]))
            shown = [0]  # texts of this chunk shown as done, advanced by the tokens embedded

            def advance(done_tokens: int, total_tokens: int, new: int = new, shown: list[int] = shown) -> None:
                step = new * done_tokens // max(1, total_tokens) - shown[0]
                if step > 0:
                    bar.update(step)
                    shown[0] += step

            _embed(encoder, texts, todo, entries, long_inputs, batch_size, encoded, advance)
            done = 0
            for u in needed.tolist():
                if not seen[u]:
                    seen[u] = True
                    entry = entries[u]
                    truncated_u[u] = entry.truncated
                    empty_u[u] = entry.embedding is None
                    done += 1
                if u not in weights and entries[u].embedding is not None:
                    w = np.asarray(weigh(entries[u].ids), dtype=np.float64)
                    if not w.sum() > 0:
                        zero_weight.add(u)
                    weights[u] = torch.as_tensor(w, device=encoder.device)
            # the bar moves after each forward pass by the share of the chunk's tokens embedded, so it neither
            # stands still for a whole chunk (often the whole corpus) nor starts from a rate of "1 text in 10 s"
            if done > shown[0]:
                bar.update(done - shown[0])
            _score_chunk(encoder, hyp_u, ref_u, lo, hi, entries, weights, precision, recall)
            for u in needed.tolist():
                if last_use[u] <= c:
                    entry = entries.pop(u)
                    weights.pop(u, None)
                    hits.pop(u, None)
                    if use_cache and is_ref[u] and entry.embedding is not None:
                        encoder.cache.put((long_inputs, texts[u]), _own(entry))
                else:
                    entries[u] = _own(entries[u])  # used by a later chunk: let this chunk's buffer go
    f1 = np.divide(
        2 * precision * recall, precision + recall, out=np.zeros_like(precision), where=precision + recall != 0
    )
    empty = empty_u[hyp_u] | empty_u[ref_u]
    return Scores(
        precision=precision,
        recall=recall,
        f1=f1,
        empty=empty,
        truncated=truncated_u[hyp_u] | truncated_u[ref_u],
        truncated_texts=int(truncated_u.sum()),
        empty_texts=int(empty_u.sum()),
        zero_weight_texts=len(zero_weight),
    )


def _plan_chunks(
    encoder: Encoder,
    texts: list[str],
    hyp_u: np.ndarray,
    ref_u: np.ndarray,
    hits: dict[int, _Entry],
    long_inputs: str,
    chunk_pairs: int,
) -> tuple[np.ndarray, dict[int, tuple[list[int], bool]]]:
    """Chunk boundaries (``bounds[c]:bounds[c + 1]`` are the pairs of chunk ``c``), and the token ids of the texts
    of the first chunks, kept so they are not tokenised twice.

    Every text to embed is tokenised once here, in order of first use, for its length; a new chunk starts where the
    tokens of the texts first used so far pass a multiple of :meth:`Encoder.chunk_tokens`, or after ``chunk_pairs``
    pairs. The ids are kept until they fill one chunk's budget; texts beyond it are tokenised again when embedded
    (a small cost next to the model's)."""
    n = len(hyp_u)
    first = np.full(len(texts), n, dtype=np.int64)
    np.minimum.at(first, hyp_u, np.arange(n))
    np.minimum.at(first, ref_u, np.arange(n))
    order = [u for u in np.argsort(first, kind="stable").tolist() if u not in hits]
    budget = encoder.chunk_tokens()
    tokens = np.zeros(len(texts), dtype=np.int64)
    encoded: dict[int, tuple[list[int], bool]] = {}
    kept = 0
    for lo in range(0, len(order), 4096):
        part = order[lo : lo + 4096]
        for u, (ids, cut) in zip(part, encoder.encode([texts[u] for u in part], long_inputs), strict=True):
            tokens[u] = len(ids)
            if kept >= 0 and kept + len(ids) <= budget:
                encoded[u] = (ids, cut)
                kept += len(ids)
            else:
                kept = -1  # keep a prefix only: these are the texts of the first chunk(s)
    per_pair = np.bincount(first, weights=tokens, minlength=n + 1)[:n]
    before = np.cumsum(per_pair) - per_pair
    by_tokens = np.flatnonzero(np.diff(before // budget)) + 1
    bounds = np.union1d(np.union1d(by_tokens, np.arange(0, n, chunk_pairs)), [0, n])
    return bounds.astype(np.int64), encoded


def _embed(
    encoder: Encoder,
    texts: list[str],
    todo: list[int],
    entries: dict[int, _Entry],
    long_inputs: str,
    batch_size: int | None,
    encoded: dict[int, tuple[list[int], bool]] | None = None,
    advance: Callable[[int, int], None] | None = None,
) -> None:
    """Embed the texts ``todo`` into ``entries``: sorted by token length, batches padded to their own longest.
    ``encoded`` holds token ids already computed for some of them (taken out as they are used); ``advance(done,
    total)`` is called after each forward pass with the tokens embedded so far and in all."""
    if not todo:
        return
    encoded = {} if encoded is None else encoded
    missing = [u for u in todo if u not in encoded]
    fresh = dict(zip(missing, encoder.encode([texts[u] for u in missing], long_inputs), strict=True))
    sequences: list[list[int]] = []  # what the model sees: whole texts, or windows of long ones
    places: list[tuple[int, int, int]] = []  # where each sequence's embedding goes: (src lo, src hi, dst offset)
    offsets: dict[int, int] = {}
    total = 0
    for u in todo:
        ids, cut = encoded.pop(u) if u in encoded else fresh.pop(u)
        entries[u] = _Entry(ids, None, cut)
        if encoder.content_length(ids) <= 0:
            continue
        offsets[u] = total
        total += len(ids)
        if long_inputs == "window" and len(ids) > encoder.max_length:
            # each window writes the tokens it is nearest the centre of straight into the text's embedding (the
            # first also the leading special tokens, the last the trailing ones): no window is kept
            pieces, plan = encoder.windows(ids)
            p, width = encoder.prefix, encoder.max_length - encoder.prefix - encoder.suffix
            for k, (piece, (start, lo, hi)) in enumerate(zip(pieces, plan, strict=True)):
                src_lo = p + lo - start if k else 0
                src_hi = p + hi - start if k + 1 < len(pieces) else p + width + encoder.suffix
                sequences.append(piece)
                places.append((src_lo, src_hi, offsets[u] + (p + lo if k else 0)))
        else:
            sequences.append(ids)
            places.append((0, len(ids), offsets[u]))
    if not sequences:
        return
    # All the embeddings of this call go into one buffer, each text a view of it: a few large allocations (as
    # in bert-score) rather than many small ones scattered between the activations of the forward passes.
    order = sorted(range(len(sequences)), key=lambda j: len(sequences[j]), reverse=True)
    store: torch.Tensor | None = None
    lengths = [len(s) for s in sequences]
    all_tokens, done_tokens = sum(lengths), 0
    for batch in _batches(order, lengths, batch_size, encoder.token_budget()):
        outputs = encoder.forward([sequences[j] for j in batch])
        done_tokens += sum(lengths[j] for j in batch)
        if store is None:
            layers, _, dim = outputs[0].shape
            store = outputs[0].new_empty((layers, total, dim))
        for j, emb in zip(batch, outputs, strict=True):
            lo, hi, dst = places[j]
            store[:, dst : dst + hi - lo] = emb[:, lo:hi]
        del outputs
        if advance is not None:
            advance(done_tokens, all_tokens)
    assert store is not None  # at least one sequence went through the model
    for u, start in offsets.items():
        entries[u].embedding = store[:, start : start + len(entries[u].ids)]


def _batches(order: list[int], lengths: list[int], batch_size: int | None, budget: int) -> Iterator[list[int]]:
    """Consecutive batches of ``order`` (longest first) of at most ``budget`` padded tokens (the activations of a
    forward pass set the peak memory) and, when given, at most ``batch_size`` texts.

    Where to cut is chosen by dynamic programming to minimise the padded tokens plus
    :data:`BATCH_OVERHEAD_TOKENS` per batch: few large batches keep a CPU's threads busy, but a batch padded to a
    text much longer than most of its texts wastes work (greedily filled batches of 128 SummEval pairs hold 41%
    padding; these, 12%)."""
    m = len(order)
    if m == 0:
        return
    size_cap = m if batch_size is None else max(1, batch_size)
    length = np.maximum(1, np.asarray([lengths[j] for j in order], dtype=np.int64))
    cost = np.full(m + 1, np.inf)
    cost[0] = 0.0
    prev = np.zeros(m + 1, dtype=np.int64)
    for i in range(m):
        size = int(max(1, min(budget // length[i], m - i, size_cap)))
        candidate = cost[i] + np.arange(1, size + 1) * float(length[i]) + BATCH_OVERHEAD_TOKENS
        window = cost[i + 1 : i + 1 + size]  # views: the updates below land in cost and prev
        better = candidate < window
        window[better] = candidate[better]
        prev[i + 1 : i + 1 + size][better] = i
    cuts = [m]
    while cuts[-1] > 0:
        cuts.append(int(prev[cuts[-1]]))
    cuts.reverse()
    for lo, hi in itertools.pairwise(cuts):
        yield order[lo:hi]


def _score_chunk(
    encoder: Encoder,
    hyp_u: np.ndarray,
    ref_u: np.ndarray,
    lo: int,
    hi: int,
    entries: dict[int, _Entry],
    weights: dict[int, torch.Tensor],
    precision: np.ndarray,
    recall: np.ndarray,
) -> None:
    pairs = [
        k for k in range(lo, hi) if entries[hyp_u[k]].embedding is not None and entries[ref_u[k]].embedding is not None
    ]
    if not pairs:
        return

    def size(k: int) -> tuple[int, int]:
        return (entries[hyp_u[k]].embedding.shape[1], entries[ref_u[k]].embedding.shape[1])  # type: ignore[union-attr]

    pairs.sort(key=lambda k: (size(k)[0] + size(k)[1], k))
    layers, _, dim = entries[hyp_u[pairs[0]]].embedding.shape  # type: ignore[union-attr]
    start = 0
    while start < len(pairs):
        # grow the group while its padded tensors (similarities, embeddings) stay within the budget; >= 1 pair
        end, long_h, long_r = start, 0, 0
        while end < len(pairs):
            len_h, len_r = size(pairs[end])
            grown_h, grown_r = max(long_h, len_h), max(long_r, len_r)
            per_pair = layers * max(grown_h * grown_r, (grown_h + grown_r) * dim)
            if end > start and (end - start + 1) * per_pair > MATCH_ELEMENTS:
                break
            long_h, long_r, end = grown_h, grown_r, end + 1
        group = pairs[start:end]
        hu, ru = [int(hyp_u[k]) for k in group], [int(ref_u[k]) for k in group]
        if len(group) == 1 and layers * long_h * long_r > MATCH_ELEMENTS:  # a long pair (window mode): in blocks
            p, r = _match_blocked(
                entries[hu[0]].embedding,  # type: ignore[arg-type]
                entries[ru[0]].embedding,  # type: ignore[arg-type]
                weights[hu[0]],
                weights[ru[0]],
            )
        else:
            p, r = _match(
                [entries[u].embedding for u in hu],  # type: ignore[misc]
                [entries[u].embedding for u in ru],  # type: ignore[misc]
                [weights[u] for u in hu],
                [weights[u] for u in ru],
            )
        rows = np.asarray(group)
        # a text whose weights are all 0 (idf: every token in every reference) gets 0, where bert-score gets NaN
        precision[rows] = np.nan_to_num(p.cpu().numpy(), nan=0.0)
        recall[rows] = np.nan_to_num(r.cpu().numpy(), nan=0.0)
        start = end


def score_corpus(
    encoder: Encoder,
    predictions: Sequence[str],
    references: Sequence[str],
    starts: np.ndarray | None,
    **kwargs: Any,
) -> Scores:
    """BERTScore of each segment: the prediction against each of its references (``references`` flat,
    ``starts[i]`` the first reference of segment ``i``, ``None`` for one each), then the element-wise best of
    P, R and F over the references, as bert-score does."""
    n = len(predictions)
    if starts is None:
        counts = np.ones(n, dtype=np.int64)
        offsets = np.arange(n, dtype=np.int64)
    else:
        offsets = np.asarray(starts, dtype=np.int64)
        counts = np.diff(np.append(offsets, len(references)))
    hyps = [predictions[i] for i in np.repeat(np.arange(n), counts).tolist()]
    pairs = score_pairs(encoder, hyps, references, **kwargs)

    def best(column: np.ndarray) -> np.ndarray:
        flat = column[:, 0]
        return flat if starts is None else np.maximum.reduceat(flat, offsets)

    empty = pairs.empty if starts is None else np.logical_and.reduceat(pairs.empty, offsets)
    truncated = pairs.truncated if starts is None else np.logical_or.reduceat(pairs.truncated, offsets)
    return dataclasses.replace(
        pairs,
        precision=best(pairs.precision),
        recall=best(pairs.recall),
        f1=best(pairs.f1),
        empty=empty.astype(np.int64),
        truncated=truncated.astype(np.int64),
    )


def similarity_matrix(
    encoder: Encoder, candidate: str, reference: str, long_inputs: str = "truncate"
) -> tuple[np.ndarray, list[str], list[str]]:
    """The cosine similarities of the candidate's tokens (rows) to the reference's (columns), special tokens
    left out, and the tokens as bert-score's ``plot_example`` labels them (``tokenizer.decode([id])``)."""
    entries: dict[int, _Entry] = {}
    with encoder.lock, torch.inference_mode():
        _embed(encoder, [candidate.strip(), reference.strip()], [0, 1], entries, long_inputs, 2)
    for u, what in ((0, "candidate"), (1, "reference")):
        if entries[u].embedding is None:
            raise InvalidInputError(f"the {what} is empty (no token besides the special ones): nothing to plot")
    hyp, ref = entries[0].embedding, entries[1].embedding
    assert hyp is not None  # checked just above
    assert ref is not None
    p, s = encoder.prefix, encoder.suffix
    sim = (hyp[0] @ ref[0].T).cpu().numpy().astype(np.float64)
    sim = sim[p : sim.shape[0] - s, p : sim.shape[1] - s]

    def tokens(ids: list[int]) -> list[str]:
        return [encoder.tokenizer.decode([i]) for i in ids[p : len(ids) - s]]

    return sim, tokens(entries[0].ids), tokens(entries[1].ids)
