"""BERTScore's head on the encoder engine: the model cut after a layer, and greedy matching on the device, batched.

What bert-score does, and so what this does:

* each text is stripped, then tokenised with the model's special tokens and truncated to the tokenizer's maximum
  length (``model_max_length``, 512 for BERT);
* the model is cut after layer ``num_layers`` (layer 0 is the embeddings) and the last hidden state of the cut
  model is each token's embedding, L2-normalised;
* for a candidate ``x`` and a reference ``y`` (special tokens included), precision is the weighted mean over
  ``x``'s tokens of their best cosine similarity to a token of ``y``, recall the same the other way round, and
  ``F = 2PR / (P + R)``. Weights are 1 (0 for ``[CLS]`` and ``[SEP]``) or idf weights.

What is done differently, without changing the numbers (beyond float rounding, about 1e-7):

* texts are deduplicated (after stripping), tokenised once, and embedded once by the engine's
  :class:`~nlgmetrics.engine.runner.Runner`: length-sorted batches within a token budget (padded to each batch's
  longest on a CPU; on an accelerator to at most 16 width buckets and two batch sizes per width, so at most 32
  forward shapes per call); everything runs under ``torch.inference_mode``;
* the corpus is processed in chunks of consecutive pairs whose new texts fill at most :data:`CHUNK_BYTES` of
  embeddings on a CPU (10,900 tokens for MiniLM-L6), :data:`ACCELERATOR_CHUNK_BYTES` on an accelerator. A chunk's
  embeddings sit in **one device buffer** (token rows, never a tensor per text), which also holds the texts kept
  from earlier chunks (those used again) and the cached references; it is freed with the chunk, so memory stays
  bounded on long corpora (bert-score holds every embedding of the call);
* **greedy matching runs on the device, a block of pairs at a time**: one gather of the block's padded token rows
  from the chunk's buffer (the indices and masks built on the device from each pair's offset and length, sent in
  one copy per chunk), one batched product for the similarities, masked maxima and weighted means, and the P and R
  of the block written into the call's result on the device. There is no per-pair Python and no
  ``pad_sequence``; a block holds at most :data:`MATCH_ELEMENTS` similarities, and a pair too long for that alone
  (window mode) is matched a block of rows at a time. The results come back in one copy at the end;
* reference embeddings are kept in a small LRU cache across calls (keyed by the text, the model, the layer, the
  dtype and the device), so scoring several systems against the same references embeds the references once;
* padding is masked out of the greedy maxima. bert-score fills the similarities of padding with 0, which changes
  a token's maximum only when all its true similarities are negative;
* a text without any token besides the special ones scores 0 without a warning from here (the metric warns) and
  without running the model; bert-score 0.3.13 crashes on it with transformers 5
  (``build_inputs_with_special_tokens`` is gone);
* several devices (``device="cuda:0,cuda:1"`` or ``"cuda:all"``) score one contiguous share of the pairs each, in
  parallel, and the scores come back in input order (:func:`nlgmetrics.engine.parallel.map_devices`).

``long_inputs="window"`` (opt-in) embeds a text longer than the maximum length in overlapping windows of the
maximum length (stride half a window); each token takes its embedding from the window whose centre is nearest,
the leading special tokens from the first window and the trailing ones from the last (the engine keeps only those
tokens of each window, so a text's rows are contiguous in the buffer), and the whole text is then matched.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from ...engine.device import DTYPES, check_dtype, cpu_threads, devices_of, resolve_device
from ...engine.parallel import map_devices
from ...engine.runner import Runner, model_widths, prepare
from ...engine.shapes import Packed
from ...engine.text import PREFIX_CHARS, PREFIX_MARGIN, Tokenizer
from ...errors import InvalidInputError, MissingDependencyError
from .models import load_config, load_pretrained, load_tokenizer, model_depth, model_label

__all__ = [
    "DTYPES",
    "PREFIX_CHARS",
    "PREFIX_MARGIN",
    "Encoder",
    "Scores",
    "Tokenization",
    "clear_caches",
    "get_encoder",
    "get_encoders",
    "get_tokenization",
    "resolve_device",
    "score_corpus",
    "score_pairs",
    "similarity_matrix",
]

#: How many loaded models are kept (an LRU); each holds its own reference-embedding cache.
MAX_ENCODERS = 2
#: Default budget of each model's reference-embedding cache, in bytes.
CACHE_BYTES = 256 * 2**20
#: Budget of the embeddings of one chunk of pairs on a CPU, in bytes: the embeddings held at a time are those of a
#: chunk (plus those reused by later chunks, and the reference cache), whatever the length of the corpus. 16 MiB
#: measured as fast as 32 and 128 MiB on 1,000 SummEval pairs (MiniLM-L6), with a lower peak.
CHUNK_BYTES = 16 * 2**20
#: The same on an accelerator: 256 MiB (87,000 tokens of a 768-wide model), so that a call of 10,000 pairs is a
#: chunk or two, and its forward passes share their shapes (bert-score keeps every embedding of a call: 445 MB for
#: the 145,000 tokens of 10,000 SummEval pairs on a 768-wide model).
ACCELERATOR_CHUNK_BYTES = 256 * 2**20
#: At most this many pairs per chunk.
CHUNK_PAIRS = 8192
#: Upper bound on the similarity entries of one greedy-matching block (pairs x layers x tokens x tokens).
MATCH_ELEMENTS = 2**22
#: A run embedding at least this many texts shows a progress bar (when ``progress`` is left to ``None``).
PROGRESS_MIN_TEXTS = 1000

_INSTALL = "pip install 'nlgmetrics[bertscore]'"


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
class _Cached:
    """A cached reference: its token ids, its embedding rows ``(tokens, layers, dim)`` (a view of a block shared
    with the other references of its chunk), whether it was truncated."""

    ids: np.ndarray
    embedding: torch.Tensor
    truncated: bool

    @property
    def nbytes(self) -> int:
        return self.embedding.numel() * self.embedding.element_size()


class _LRU:
    """Reference embeddings by text, evicting the least recently used beyond a byte budget."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self.items: collections.OrderedDict[tuple[str, str], _Cached] = collections.OrderedDict()

    def get(self, key: tuple[str, str]) -> _Cached | None:
        entry = self.items.get(key)
        if entry is not None:
            self.items.move_to_end(key)
        return entry

    def put(self, key: tuple[str, str], entry: _Cached) -> None:
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


class Tokenization(Tokenizer):
    """How bert-score turns a model's texts into token ids: the model's tokenizer, stripping, special tokens,
    truncation to the maximum length (and, for ``long_inputs="window"``, the windows). Needs no model weights."""

    def __init__(self, model: str, allow_download: bool = False) -> None:
        try:
            import transformers
        except ImportError as err:
            raise MissingDependencyError("bertscore", _INSTALL) from err
        self.allow_download = allow_download
        tokenizer = load_tokenizer(model, allow_download=allow_download)
        kwargs: dict[str, Any] = {}
        gpt2, roberta = getattr(transformers, "GPT2Tokenizer", ()), getattr(transformers, "RobertaTokenizer", ())
        if isinstance(tokenizer, (gpt2, roberta)):
            kwargs["add_prefix_space"] = True  # as bert-score's sent_encode
        self.tokenizer = tokenizer
        super().__init__(tokenizer, self._max_length(model), name=model, **kwargs)
        self.zero_weight_ids = np.asarray(
            [i for i in (tokenizer.sep_token_id, tokenizer.cls_token_id) if i is not None], dtype=np.int64
        )

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

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text (stripped, with special tokens), *not* truncated."""
        return super().tokenize([t.strip() for t in texts])

    def encode(self, texts: Sequence[str], long_inputs: str = "truncate") -> list[tuple[list[int], bool]]:
        """``(ids, truncated)`` of each text as it is scored: stripped, with special tokens, and (unless long texts
        are windowed) cut to the maximum length, tokenising only what is kept."""
        return super().encode([t.strip() for t in texts], long_inputs)

    def idf_documents(self, texts: Sequence[str], long_inputs: str = "truncate") -> Any:
        """The token ids bert-score counts for idf: each text encoded as for scoring (truncated, unless long texts
        are windowed), tokenised in slices so that a large corpus is never held tokenised."""
        return self.iter_encoded(texts, long_inputs)

    def weights_plain(self, ids: Sequence[int]) -> np.ndarray:
        """bert-score's weights without idf: 1 for every token, 0 for ``[CLS]`` and ``[SEP]``."""
        arr = np.asarray(ids, dtype=np.int64)
        weights = np.ones(len(arr), dtype=np.float64)
        for special in self.zero_weight_ids.tolist():  # one or two ids: a comparison each, not np.isin's sort
            weights[arr == special] = 0.0
        return weights


class Encoder(Tokenization):
    """A :class:`Tokenization` and a model cut after ``num_layers`` (or, with ``all_layers``, every layer), on a
    device and in a dtype, with the engine's :class:`~nlgmetrics.engine.runner.Runner`. Built by
    :func:`get_encoder`, which keeps the last few."""

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

        check_dtype(dtype, device, what="BERTScore's model")
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
        self.model = prepare(net, self.device, self.dtype)
        self.layers = self.depth + 1 if all_layers else 1
        self.hidden = model_widths(self.model.config)[0]
        self.runner = Runner(self.model, device=self.device, dtype=dtype, pad_id=self.pad_id)
        self.cache = _LRU(CACHE_BYTES)
        self.lock = threading.Lock()

    def head(self, model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """The engine's forward head: embeddings ``(batch, width, layers, dim)``, L2-normalised float32."""
        if self._hidden_index is None:
            hidden = model(input_ids=input_ids, attention_mask=attention_mask)[0].unsqueeze(2)
        else:
            states = model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True).hidden_states
            index = self._hidden_index
            hidden = torch.stack(states, dim=2) if index == -1 else states[index].unsqueeze(2)
        hidden = hidden.float()
        return hidden / hidden.norm(dim=-1, keepdim=True)

    def forward(self, batch: Sequence[Sequence[int]]) -> list[torch.Tensor]:
        """Embeddings ``(layers, tokens, dim)``, L2-normalised float32, of token-id lists (views of one buffer)."""
        with torch.inference_mode():
            out = self.runner.run(batch, self.head, kinds="tokens")
        return [out[i].transpose(0, 1) for i in range(len(out))]

    def chunk_tokens(self) -> int:
        """How many tokens of new texts one chunk of pairs may hold: their embeddings (float32, every layer kept)
        fill at most :data:`CHUNK_BYTES` on a CPU (10,900 tokens for MiniLM-L6, 5,460 for BERT-base),
        :data:`ACCELERATOR_CHUNK_BYTES` elsewhere."""
        budget = CHUNK_BYTES if self.device.type == "cpu" else ACCELERATOR_CHUNK_BYTES
        return max(self.max_length, budget // (4 * self.hidden * self.layers))

    def token_budget(self) -> int:
        """Padded tokens per forward pass (the engine's :func:`~nlgmetrics.engine.runner.token_budget`), never
        fewer than one text of the maximum length."""
        return self.runner.token_budget(self.max_length)


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
    ``allow_download`` lets a model missing from the Hugging Face cache be downloaded. ``device`` is one device
    (the first of a list)."""
    if dtype not in DTYPES:
        raise InvalidInputError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    # a local folder by its content digest too: weights changed at the same path load again (the signature names
    # the new digest, so its scores must come from the new weights)
    key = (model, model_label(model), num_layers, devices_of(resolve_device(device))[0], dtype, all_layers)
    with _ENCODERS_LOCK:
        encoder = _ENCODERS.get(key)
        if encoder is not None:
            _ENCODERS.move_to_end(key)
            return encoder
    encoder = Encoder(model, num_layers, key[3], dtype, all_layers, allow_download)
    with _ENCODERS_LOCK:
        _ENCODERS[key] = encoder
        while len(_ENCODERS) > max(MAX_ENCODERS, len({k[3] for k in _ENCODERS})):
            _ENCODERS.popitem(last=False)
    return encoder


def get_encoders(
    model: str,
    num_layers: int,
    *,
    device: str | None = None,
    dtype: str = "float32",
    all_layers: bool = False,
    allow_download: bool = False,
) -> list[Encoder]:
    """One :class:`Encoder` per device of ``device`` (``"cuda:0,cuda:1"``, ``"cuda:all"``, or one device)."""
    return [
        get_encoder(model, num_layers, device=d, dtype=dtype, all_layers=all_layers, allow_download=allow_download)
        for d in devices_of(resolve_device(device))
    ]


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


def _match_blocked(
    hyp: torch.Tensor, ref: torch.Tensor, hyp_w: torch.Tensor, ref_w: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy matching of one pair of embeddings ``(tokens, layers, dim)``, its similarities computed a block of
    hypothesis tokens at a time: each row's maximum is final within its block, each column's is kept as a running
    maximum. Memory stays within :data:`MATCH_ELEMENTS` similarities whatever the lengths (two texts of 100,000
    tokens would need 40 GB at once). ``(P, R)``, each ``(layers,)`` float64."""
    hyp, ref = hyp.transpose(0, 1), ref.transpose(0, 1)  # (layers, tokens, dim)
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
    return precision, recall


def match_pairs(
    embeddings: torch.Tensor,
    weights: torch.Tensor,
    hyp: tuple[np.ndarray, np.ndarray],
    ref: tuple[np.ndarray, np.ndarray],
    rows: np.ndarray,
    precision: torch.Tensor,
    recall: torch.Tensor,
) -> int:
    """Weighted greedy matching of pairs of texts held in one buffer, on its device, a block of pairs at a time.

    ``embeddings`` ``(tokens, layers, dim)`` and ``weights`` ``(tokens,)`` float64 hold the texts' rows; pair ``k``
    is the text at rows ``hyp[0][k]:hyp[0][k] + hyp[1][k]`` against the one at ``ref[0][k]`` (offsets and lengths,
    numpy). Its P and R (one per layer, float64) are written at row ``rows[k]`` of ``precision`` and ``recall``
    ``(n, layers)``. Pairs are sorted by length and grouped into blocks of at most :data:`MATCH_ELEMENTS`
    similarities; a block is one gather of its padded rows (indices and masks built on the device), one batched
    product, masked maxima (padding never takes part) and weighted sums. Returns the number of blocks."""
    h_at, h_len = (np.asarray(a, dtype=np.int64) for a in hyp)
    r_at, r_len = (np.asarray(a, dtype=np.int64) for a in ref)
    n = len(h_at)
    if n == 0:
        return 0
    layers, dim = int(embeddings.shape[1]), int(embeddings.shape[2])
    order = np.lexsort((np.arange(n), h_len + r_len))
    # greedy blocks along the sorted pairs: grow while the padded similarities and gathered rows fit the budget
    blocks: list[tuple[int, int, int, int]] = []
    start = 0
    sorted_h, sorted_r = h_len[order], r_len[order]
    while start < n:
        end, long_h, long_r = start, 0, 0
        while end < n:
            grown_h, grown_r = max(long_h, int(sorted_h[end])), max(long_r, int(sorted_r[end]))
            per_pair = layers * max(grown_h * grown_r, (grown_h + grown_r) * dim)
            if end > start and (end - start + 1) * per_pair > MATCH_ELEMENTS:
                break
            long_h, long_r, end = grown_h, grown_r, end + 1
        blocks.append((start, end, long_h, long_r))
        start = end
    device = embeddings.device
    host = np.stack([h_at[order], h_len[order], r_at[order], r_len[order], np.asarray(rows, dtype=np.int64)[order]])
    table = torch.from_numpy(host)
    if device.type == "cuda":
        table = table.pin_memory().to(device, non_blocking=True)
    elif device.type != "cpu":
        table = table.to(device)
    positions = torch.arange(max(max(b[2], b[3]) for b in blocks), device=device)
    for lo, hi, long_h, long_r in blocks:
        out_rows = table[4, lo:hi]
        if hi - lo == 1 and layers * long_h * long_r > MATCH_ELEMENTS:  # one long pair (window mode): in blocks
            k = int(order[lo])
            p, r = _match_blocked(
                embeddings[int(h_at[k]) : int(h_at[k] + h_len[k])],
                embeddings[int(r_at[k]) : int(r_at[k] + r_len[k])],
                weights[int(h_at[k]) : int(h_at[k] + h_len[k])],
                weights[int(r_at[k]) : int(r_at[k] + r_len[k])],
            )
            precision.index_copy_(0, out_rows, p[None])
            recall.index_copy_(0, out_rows, r[None])
            continue
        size = hi - lo
        valid_h = positions[:long_h][None, :] < table[1, lo:hi, None]  # (B, Lh)
        valid_r = positions[:long_r][None, :] < table[3, lo:hi, None]
        at_h = (table[0, lo:hi, None] + positions[:long_h][None, :]).masked_fill_(~valid_h, 0).view(-1)
        at_r = (table[2, lo:hi, None] + positions[:long_r][None, :]).masked_fill_(~valid_r, 0).view(-1)
        h = embeddings.index_select(0, at_h).view(size, long_h, layers, dim).permute(2, 0, 1, 3)  # (K, B, Lh, D)
        r = embeddings.index_select(0, at_r).view(size, long_r, layers, dim).permute(2, 0, 3, 1)  # (K, B, D, Lr)
        sim = torch.matmul(h, r)  # (K, B, Lh, Lr)
        del h, r
        # padding rows and columns to -inf: a real row's maximum is over real columns, and vice versa
        sim.masked_fill_(~(valid_h[:, :, None] & valid_r[:, None, :]), -math.inf)
        best_h = sim.amax(dim=3).masked_fill_(~valid_h, 0.0).double()  # (K, B, Lh)
        best_r = sim.amax(dim=2).masked_fill_(~valid_r, 0.0).double()  # (K, B, Lr)
        del sim
        w_h = weights.index_select(0, at_h).view(size, long_h).masked_fill_(~valid_h, 0.0)
        w_r = weights.index_select(0, at_r).view(size, long_r).masked_fill_(~valid_r, 0.0)
        precision.index_copy_(0, out_rows, ((best_h * w_h).sum(-1) / w_h.sum(-1)).T)
        recall.index_copy_(0, out_rows, ((best_r * w_r).sum(-1) / w_r.sum(-1)).T)
    return len(blocks)


def _sequences_of(
    encoder: Encoder, packed: Packed, texts: np.ndarray, long_inputs: str
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """What the model sees for ``texts`` (indices into ``packed``, each with content): the texts themselves, or
    the windows of those longer than the maximum length; which of each sequence's tokens to keep, so that a
    text's kept tokens are contiguous, in order, and as many as its ids; and the text (position in ``texts``) each
    sequence belongs to."""
    sequences: list[np.ndarray] = []
    keep: list[tuple[int, int]] = []
    owner: list[int] = []
    for k_text, u in enumerate(texts.tolist()):
        ids = packed[u]
        if long_inputs == "window" and len(ids) > encoder.max_length:
            # each window keeps the tokens it is nearest the centre of (the first also the leading special tokens,
            # the last the trailing ones)
            pieces, plan = encoder.windows(ids.tolist())
            p, width = encoder.prefix, encoder.max_length - encoder.prefix - encoder.suffix
            for k, (piece, (start, lo, hi)) in enumerate(zip(pieces, plan, strict=True)):
                src_lo = p + lo - start if k else 0
                src_hi = p + hi - start if k + 1 < len(pieces) else p + width + encoder.suffix
                sequences.append(np.asarray(piece, dtype=np.int64))
                keep.append((src_lo, src_hi))
                owner.append(k_text)
        else:
            sequences.append(ids)
            keep.append((0, len(ids)))
            owner.append(k_text)
    return sequences, np.asarray(keep, dtype=np.int64).reshape(-1, 2), np.asarray(owner, dtype=np.int64)


def _chunk_bounds(n: int, first: np.ndarray, tokens: np.ndarray, budget: int, chunk_pairs: int) -> np.ndarray:
    """Chunk boundaries (``bounds[c]:bounds[c + 1]`` are the pairs of chunk ``c``): a new chunk starts where the
    tokens of the texts first used so far pass a multiple of ``budget``, or after ``chunk_pairs`` pairs."""
    per_pair = np.bincount(first, weights=tokens, minlength=n + 1)[:n]
    before = np.cumsum(per_pair) - per_pair
    by_tokens = np.flatnonzero(np.diff(before // budget)) + 1
    bounds = np.union1d(np.union1d(by_tokens, np.arange(0, n, chunk_pairs)), [0, n])
    return bounds.astype(np.int64)


def _place(
    chunks: int, first_chunk: np.ndarray, last_use: np.ndarray, tokens: np.ndarray, texts: np.ndarray
) -> tuple[np.ndarray, int]:
    """Rows for every text of ``texts`` in one pool for the whole call, each text's rows held from the chunk of its
    first use to the chunk of its last: first fit, a text's rows given back after its last chunk. Planned on the
    host before anything runs; returns each text's first row (by text id) and the pool's size."""
    at = np.full(len(first_chunk), -1, dtype=np.int64)
    by_first: dict[int, list[int]] = collections.defaultdict(list)
    by_last: dict[int, list[int]] = collections.defaultdict(list)
    for u in texts.tolist():
        by_first[int(first_chunk[u])].append(u)
        by_last[int(last_use[u])].append(u)
    free: list[tuple[int, int]] = []  # (start, length), sorted by start, adjacent ones merged
    size = 0
    for c in range(chunks):
        for u in by_first.get(c, ()):
            need = int(tokens[u])
            for k, (start, length) in enumerate(free):
                if length >= need:
                    at[u] = start
                    free[k : k + 1] = [(start + need, length - need)] if length > need else []
                    break
            else:
                if free and free[-1][0] + free[-1][1] == size:  # grow the pool from the free space at its end
                    at[u] = free[-1][0]
                    size = at[u] + need
                    free.pop()
                else:
                    at[u] = size
                    size += need
        for u in by_last.get(c, ()):
            free.append((int(at[u]), int(tokens[u])))
        free.sort()
        merged: list[tuple[int, int]] = []
        for start, length in free:
            if merged and merged[-1][0] + merged[-1][1] == start:
                merged[-1] = (merged[-1][0], merged[-1][1] + length)
            else:
                merged.append((start, length))
        free = merged
    return at, size


def _score_shard(
    encoder: Encoder,
    texts: list[str],
    hyp_u: np.ndarray,
    ref_u: np.ndarray,
    *,
    weigh: Callable[[Any], np.ndarray],
    long_inputs: str,
    batch_size: int | None,
    bar: Any,
    use_cache: bool,
    chunk_pairs: int,
    flags: dict[str, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """P and R ``(pairs, layers)`` of the pairs ``(hyp_u[k], ref_u[k])`` (indices into ``texts``) on one encoder;
    sets ``flags["truncated" | "empty" | "zero_weight"][u]`` for the texts it meets.

    Every text is tokenised once, up front. The pairs go in chunks; each text's embedding rows are placed, before
    anything runs, in one device pool for the call (:func:`_place`), where they stay from the chunk of its first use
    to the chunk of its last. The engine writes a chunk's new texts straight into their rows, cached references
    are copied in with one kernel, and the chunk's pairs are matched from the pool: no text is ever copied from one
    buffer to another."""
    n = len(hyp_u)
    layers = encoder.layers
    device = encoder.device
    needed = np.unique(np.concatenate([hyp_u, ref_u]))
    is_ref = np.zeros(len(texts), dtype=bool)
    is_ref[ref_u] = True
    hits: dict[int, _Cached] = {}
    if use_cache:
        for u in needed[is_ref[needed]].tolist():
            hit = encoder.cache.get((long_inputs, texts[u]))
            if hit is not None:
                hits[u] = hit
    todo = np.asarray([u for u in needed.tolist() if u not in hits], dtype=np.int64)
    packed, cut = encoder.encode_packed([texts[u] for u in todo.tolist()], long_inputs)
    slot = np.full(len(texts), -1, dtype=np.int64)  # where a text is in `packed`
    slot[todo] = np.arange(len(todo))
    tokens = np.zeros(len(texts), dtype=np.int64)
    tokens[todo] = packed.lengths
    flags["truncated"][todo] |= cut
    flags["empty"][todo[tokens[todo] - encoder.prefix - encoder.suffix <= 0]] = True
    for u, hit in hits.items():
        tokens[u] = len(hit.ids)
        flags["truncated"][u] |= hit.truncated
    first = np.full(len(texts), n, dtype=np.int64)
    np.minimum.at(first, hyp_u, np.arange(n))
    np.minimum.at(first, ref_u, np.arange(n))
    fresh = np.zeros(len(texts), dtype=np.int64)
    fresh[todo] = tokens[todo]
    bounds = _chunk_bounds(n, first, fresh, encoder.chunk_tokens(), chunk_pairs)
    chunks = len(bounds) - 1
    chunk_of = np.searchsorted(bounds, np.arange(n), side="right") - 1
    last_use = np.full(len(texts), -1, dtype=np.int64)
    np.maximum.at(last_use, hyp_u, chunk_of)
    np.maximum.at(last_use, ref_u, chunk_of)
    first_chunk = np.full(len(texts), -1, dtype=np.int64)
    first_chunk[needed] = chunk_of[np.minimum(first[needed], n - 1)]
    held = needed[~flags["empty"][needed]]  # every text with rows
    at, pool_rows = _place(chunks, first_chunk, last_use, tokens, held)
    embed_all = held[slot[held] >= 0]
    # the call's width buckets (accelerators): every forward pass of every chunk shares them
    widths = None
    if encoder.runner.bucketed and len(embed_all):
        seq_lengths = [len(q) for q in _sequences_of(encoder, packed, slot[embed_all], long_inputs)[0]]
        widths = encoder.runner.widths(seq_lengths)
    pool = torch.empty((pool_rows, layers, encoder.hidden), dtype=torch.float32, device=device)
    host_w = np.zeros(pool_rows, dtype=np.float64)
    precision = torch.zeros((n, layers), dtype=torch.float64, device=device)
    recall = torch.zeros((n, layers), dtype=torch.float64, device=device)
    for c in range(chunks):
        lo, hi = int(bounds[c]), int(bounds[c + 1])
        arriving = held[first_chunk[held] == c]
        new = arriving[slot[arriving] >= 0]
        cached = [u for u in arriving.tolist() if u in hits]
        shown = [0]  # texts of this chunk shown as done, advanced by the tokens embedded

        def advance(done: int, total: int, count: int = len(new), shown: list[int] = shown) -> None:
            # the bar moves after each forward pass by the share of the chunk's new texts embedded
            step = count * done // max(1, total) - shown[0]
            if step > 0:
                bar.update(step)
                shown[0] += step

        if len(new):
            sequences, keep, owner = _sequences_of(encoder, packed, slot[new], long_inputs)
            kept = keep[:, 1] - keep[:, 0]
            # a window's rows follow those of the text's windows before it
            within = np.cumsum(kept) - kept - (np.cumsum(tokens[new]) - tokens[new])[owner]
            encoder.runner.run(
                sequences,
                encoder.head,
                kinds="tokens",
                keep=keep,
                widths=widths,
                batch_size=batch_size,
                out=pool,
                at=at[new][owner] + within,
                advance=advance,
            )
        if len(new) > shown[0]:
            bar.update(len(new) - shown[0])
        if cached:
            lengths = tokens[cached]
            rows = np.repeat(at[cached] - (np.cumsum(lengths) - lengths), lengths) + np.arange(int(lengths.sum()))
            pool.index_copy_(0, torch.from_numpy(rows).to(device), torch.cat([hits[u].embedding for u in cached]))
        for u in arriving.tolist():
            ids = hits[u].ids if u in hits else packed[int(slot[u])]
            w = np.asarray(weigh(ids), dtype=np.float64)
            if not w.sum() > 0:
                flags["zero_weight"][u] = True
            host_w[at[u] : at[u] + len(w)] = w
        weights = torch.from_numpy(host_w).to(device, non_blocking=device.type == "cuda")
        pairs = np.arange(lo, hi)
        pairs = pairs[~flags["empty"][hyp_u[lo:hi]] & ~flags["empty"][ref_u[lo:hi]]]
        with cpu_threads(device):
            match_pairs(
                pool,
                weights,
                (at[hyp_u[pairs]], tokens[hyp_u[pairs]]),
                (at[ref_u[pairs]], tokens[ref_u[pairs]]),
                pairs,
                precision,
                recall,
            )
        if use_cache and layers == 1:  # new references go to the cache, as views of one block
            new_refs = [u for u in new.tolist() if is_ref[u]]
            block, block_at = _gather(pool, at, tokens, new_refs)
            for u in new_refs:
                view = block[block_at[u] : block_at[u] + int(tokens[u])]  # type: ignore[index]
                entry = _Cached(packed[int(slot[u])].copy(), view, bool(cut[slot[u]]))
                encoder.cache.put((long_inputs, texts[u]), entry)
        del weights
    # one copy back, at the end; a text whose weights are all 0 (idf: every token in every reference) gets 0, where
    # bert-score gets NaN
    out = torch.stack([precision, recall]).nan_to_num_(nan=0.0)
    if device.type == "cuda":
        host = torch.empty(out.shape, dtype=out.dtype, pin_memory=True)
        host.copy_(out, non_blocking=True)
        torch.cuda.current_stream(device).synchronize()
        out = host
    values = out.cpu().numpy()
    return values[0], values[1]


def _gather(
    buffer: torch.Tensor, at: np.ndarray, tokens: np.ndarray, texts: list[int]
) -> tuple[torch.Tensor | None, dict[int, int]]:
    """The rows of ``texts`` copied out of ``buffer`` into one new tensor (one kernel), and where each starts."""
    if not texts:
        return None, {}
    idx = np.asarray(texts, dtype=np.int64)
    lengths = tokens[idx]
    starts = np.cumsum(lengths) - lengths
    rows = np.repeat(at[idx] - starts, lengths) + np.arange(int(lengths.sum()), dtype=np.int64)
    index = torch.from_numpy(rows).to(buffer.device)
    return buffer.index_select(0, index), dict(zip(texts, starts.tolist(), strict=True))


def score_pairs(
    encoder: Encoder | Sequence[Encoder],
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    weigh: Callable[[Any], np.ndarray] | None = None,
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
    are bounded and each chunk's texts can be sorted by length into batches that waste little padding. Several
    encoders (one per device) score a contiguous share of the pairs each, in parallel threads; the scores are in
    input order whatever the split.
    """
    if long_inputs not in ("truncate", "window"):
        raise InvalidInputError(f"long_inputs must be 'truncate' or 'window', got {long_inputs!r}")
    encoders = [encoder] if isinstance(encoder, Encoder) else list(encoder)
    weigh = weigh or encoders[0].weights_plain
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
    use_cache = cache and not encoders[0].all_layers
    flags = {name: np.zeros(len(texts), dtype=bool) for name in ("truncated", "empty", "zero_weight")}
    shard_flags: list[dict[str, np.ndarray]] = []
    flags_lock = threading.Lock()

    with _progress(len(texts), progress) as bar:

        def run(device: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            enc = next(e for e in encoders if str(e.device) == str(torch.device(device)))
            mine = {name: np.zeros(len(texts), dtype=bool) for name in flags}
            with flags_lock:
                shard_flags.append(mine)
            if len(rows) == 0:
                return np.zeros((0, enc.layers)), np.zeros((0, enc.layers))
            with enc.lock, torch.inference_mode():
                return _score_shard(
                    enc,
                    texts,
                    hyp_u[rows],
                    ref_u[rows],
                    weigh=weigh,
                    long_inputs=long_inputs,
                    batch_size=batch_size,
                    bar=bar,
                    use_cache=use_cache,
                    chunk_pairs=chunk_pairs,
                    flags=mine,
                )

        cost = np.fromiter(
            (len(h) + len(r) for h, r in zip(hypotheses, references, strict=True)), dtype=np.float64, count=n
        )
        devices = [str(e.device) for e in encoders]
        if n == 0:
            precision = recall = np.zeros((0, encoders[0].layers))
        else:
            precision, recall = map_devices(n, devices, run, cost=cost)
    for mine in shard_flags:
        for name in flags:
            flags[name] |= mine[name]
    f1 = np.divide(
        2 * precision * recall, precision + recall, out=np.zeros_like(precision), where=precision + recall != 0
    )
    return Scores(
        precision=precision,
        recall=recall,
        f1=f1,
        empty=flags["empty"][hyp_u] | flags["empty"][ref_u],
        truncated=flags["truncated"][hyp_u] | flags["truncated"][ref_u],
        truncated_texts=int(flags["truncated"].sum()),
        empty_texts=int(flags["empty"].sum()),
        zero_weight_texts=int(flags["zero_weight"].sum()),
    )


def score_corpus(
    encoder: Encoder | Sequence[Encoder],
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
    packed, _ = encoder.encode_packed([candidate.strip(), reference.strip()], long_inputs)
    for u, what in ((0, "candidate"), (1, "reference")):
        if encoder.content_length(packed[u]) <= 0:
            raise InvalidInputError(f"the {what} is empty (no token besides the special ones): nothing to plot")
    with encoder.lock, torch.inference_mode():
        sequences, keep, _ = _sequences_of(encoder, packed, np.arange(2), long_inputs)
        out = encoder.runner.run(sequences, encoder.head, kinds="tokens", keep=keep)
        # a text's rows are contiguous: the kept tokens of its sequences, in order
        n_cand = len(packed[0])
        hyp, ref = out.data[:n_cand, 0], out.data[n_cand:, 0]
        p, s = encoder.prefix, encoder.suffix
        sim = (hyp @ ref.T).cpu().numpy().astype(np.float64)
    sim = sim[p : sim.shape[0] - s, p : sim.shape[1] - s]

    def tokens(ids: np.ndarray) -> list[str]:
        return [encoder.tokenizer.decode([int(i)]) for i in ids[p : len(ids) - s]]

    return sim, tokens(packed[0]), tokens(packed[1])
