"""COMET's estimators on torch: unbabel-comet 2.2.7's ``RegressionMetric``, ``UnifiedMetric`` and ``XCOMETMetric``
at inference, re-implemented from their code (``comet/models``, ``comet/modules``, ``comet/encoders``).

* The encoder is the transformers model named by ``encoder_model`` (BERT, XLM-R, MiniLM, XLM-R XL, RemBERT), built
  from its config and loaded with the checkpoint's weights; every hidden state is kept (embeddings included).
* Texts are tokenised by the encoder's fast tokenizer with ``truncation=True, max_length=max_positions - 2``,
  where ``max_positions`` is the config's ``max_position_embeddings - 2``.
* The layer-wise mix (``LayerwiseAttention``): ``gamma * sum_k w_k h_k``, ``w = softmax(s)`` or ``sparsemax(s)``,
  each ``h_k`` normalised over the unpadded tokens of its sequence first when ``layer_norm`` is on. Layers whose
  sparsemax weight is exactly 0 add exactly 0, so the encoder stops at the last layer that is used.
* ``RegressionMetric``: average pooling (tokens equal to the pad id are zeroed, divided by the attention mask's
  count), then the estimator on ``[mt, ref, mt*ref, |mt-ref|, mt*src, |mt-src|]``.
* ``UnifiedMetric``: ``mt`` and ``src`` and/or ``ref`` concatenated (``<s> mt </s></s> src </s>`` for XLM-R,
  ``[CLS] mt [SEP] src [SEP]`` for BERT, with token type 0 over the mt part and 1 after it), cut to
  ``max_positions`` tokens when too long; the estimator on the mixed embedding of the first token; with both
  ``src`` and ``ref``, three passes (mt+src, mt+ref, mt+src+ref) whose scores are averaged.
* ``XCOMETMetric``: the same three passes (or one), each score capped at 1, weighted 0.12/0.33/0.33, plus 0.22 times
  an MQM-like score from the error spans: per-token label probabilities of the word layer (weights
  0.1667/0.3333/0.5 over the passes), argmax labels, runs of error labels decoded into spans; minor 1, major 5,
  critical 10 points, capped at 25, ``(25 - points) / 25``.

Sentence embeddings of COMET-22 depend on one text only, so each distinct text is encoded once per call and, with
``cache=True``, once per process (the sources and references of a test set are encoded once for all systems).

The forward passes run on the engine's :class:`~nlgmetrics.engine.Runner` (length-sorted batches in a token budget,
at most 32 shapes per call on an accelerator, one copy of the ids per call, outputs in input order); the heads here
only run the encoder and reduce its hidden states on the device. The unified passes of a call go through one runner
call, BERT's segment ids as its ``token_types``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ...algorithms.refcache import ReferenceCache
from ...engine.runner import Runner
from ...engine.shapes import Packed
from ...errors import InvalidInputError
from ..learned_text import FastTokenizer, resolve_folder
from .checkpoint import (
    ENCODERS,
    CheckpointError,
    CometCheckpoint,
    check_class,
    effective_mix,
    load_state,
    read_hparams,
)
from .encoder import build_encoder, linear, read_config

__all__ = ["CometModel", "Span", "get_model", "sparsemax"]

#: Default token budget of one forward pass (tokens incl. padding) on a CPU and on an accelerator. Every hidden
#: state of a batch is kept for the mix (25 of them for XLM-R large), so a CPU batch stays small: 2,048 tokens
#: keep an XLM-R base pass under 150 MB of activations, and larger batches are no faster on a CPU.
CPU_BUDGET = 2048
GPU_BUDGET = 65536
#: The most texts in one forward pass.
MAX_BATCH = 256

_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def sparsemax(x: torch.Tensor, dim: int = 0) -> torch.Tensor:
    """entmax 1.3's ``sparsemax`` (full sort), the same operations in the same order."""
    max_val, _ = x.max(dim=dim, keepdim=True)
    x = x - max_val
    topk, _ = torch.sort(x, dim=dim, descending=True)
    topk_cumsum = topk.cumsum(dim) - 1
    d = topk.size(dim)
    view = [1] * topk.dim()
    view[0] = -1
    rhos = torch.arange(1, d + 1, device=x.device, dtype=x.dtype).view(view).transpose(0, dim)
    support = rhos * topk > topk_cumsum
    support_size = support.sum(dim=dim).unsqueeze(dim)
    tau = topk_cumsum.gather(dim, support_size - 1)
    tau /= support_size.to(x.dtype)
    return torch.clamp(x - tau, min=0)


@dataclass(frozen=True)
class Span:
    """One error span of XCOMET: the decoded text, character offsets in the translation, severity, confidence."""

    text: str
    start: int
    end: int
    severity: str
    confidence: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "confidence": self.confidence,
            "severity": self.severity,
            "start": self.start,
            "end": self.end,
        }


def _activation(name: str) -> torch.nn.Module:
    """comet's ``FeedForward.build_activation``: ``torch.nn.<name.title()>``."""
    cls = getattr(torch.nn, name.title(), None)
    if cls is None:
        raise InvalidInputError(f"{name} is not a valid activation function (torch.nn has no {name.title()})")
    module: torch.nn.Module = cls()
    return module


def _feed_forward(state: dict[str, torch.Tensor], prefix: str, activations: str, final: str | None) -> torch.nn.Module:
    """comet's ``FeedForward`` from the checkpoint's ``<prefix>.ff.<i>`` linear layers (Linear, activation,
    dropout, ..., Linear[, final activation])."""
    index = sorted(
        {int(k[len(prefix) :].split(".")[0]) for k in state if k.startswith(prefix) and k.endswith(".weight")}
    )
    if not index:
        raise CheckpointError(f"the checkpoint has no {prefix.rstrip('.')} layers")
    modules: list[torch.nn.Module] = []
    for n, i in enumerate(index):
        modules.append(linear(state[f"{prefix}{i}.weight"].float(), state[f"{prefix}{i}.bias"].float()))
        if n < len(index) - 1:
            modules.append(_activation(activations))
    if final is not None:
        modules.append(_activation(final))
    return torch.nn.Sequential(*modules)


class CometModel:
    """A loaded COMET checkpoint, ready to score (one per checkpoint, device and dtype; see :func:`get_model`)."""

    def __init__(
        self,
        checkpoint: CometCheckpoint,
        *,
        encoder: str | None = None,
        tokenizer: str | None = None,
        device: str = "cpu",
        dtype: str = "float32",
        allow_download: bool = False,
    ) -> None:
        yaml_hp = read_hparams(checkpoint.hparams_file)
        check_class(yaml_hp, checkpoint.hparams_file)
        state, ckpt_hp = load_state(checkpoint.weights)
        # as Lightning's load_from_checkpoint: the checkpoint's own hyper-parameters, hparams.yaml only when the
        # checkpoint has none (a safetensors file) and for the class
        hp = dict(ckpt_hp) if ckpt_hp else dict(yaml_hp)
        self.kind = str(yaml_hp["class_identifier"])
        self.hparams = hp
        enc_name = hp.get("encoder_model", "XLM-RoBERTa")
        if enc_name not in ENCODERS:
            raise InvalidInputError(
                f"{checkpoint.hparams_file}: unknown encoder_model {enc_name!r}; known: {', '.join(ENCODERS)}"
            )
        self.encoder_kind = ENCODERS[enc_name]
        pretrained = str(hp.get("pretrained_model", "xlm-roberta-large"))
        hint = "pass encoder=<folder holding the encoder's config.json and tokenizer files> (CLI: --encoder)"
        enc_folder = resolve_folder(
            encoder or pretrained,
            what="COMET encoder",
            hint=hint,
            allow_download=allow_download,
            base=checkpoint.folder,
        )
        tok_name = tokenizer or self.encoder_kind.tokenizer
        tok_folder = (
            enc_folder
            if tok_name is None
            else resolve_folder(
                tok_name,
                what="COMET tokenizer",
                hint="pass tokenizer=<folder with the tokenizer files> (CLI: --tokenizer)",
                allow_download=allow_download,
                base=checkpoint.folder,
            )
        )
        bert_like = self.encoder_kind.size_separator == 1 and enc_name != "RemBERT"
        defaults = (
            {"cls": "[CLS]", "sep": "[SEP]", "pad": "[PAD]"}
            if bert_like
            else {"cls": "<s>", "sep": "</s>", "pad": "<pad>"}
        )
        self.tokenizer = FastTokenizer(tok_folder, defaults=defaults)
        if self.tokenizer.pad_id is None or self.tokenizer.cls_id is None or self.tokenizer.sep_id is None:
            raise CheckpointError(f"the tokenizer in {tok_folder} has no CLS, SEP or PAD token")
        enc_config = read_config(enc_folder)
        self.model = build_encoder(
            self.encoder_kind.model_class, self.encoder_kind.pooler, enc_folder, enc_config, state
        )
        self.num_layers = int(enc_config["num_hidden_layers"]) + 1
        self.max_positions = int(enc_config.get("max_position_embeddings", 514)) - 2
        self.word_level = self.kind == "xcomet_metric" or bool(hp.get("word_level_training", False))
        # ----------------------------------------------------------------- the layer-wise mix
        layer = hp.get("sent_layer", hp.get("layer", "mix")) if self.kind != "regression_metric" else hp.get("layer")
        if layer is None:
            layer = "mix"
        self.mix_fn = effective_mix(yaml_hp, hp)
        self.layer_norm = bool(hp.get("layer_norm", True))
        self.layer: int | None = None
        self.weights: list[float] | None = None
        self.weight_tensor: torch.Tensor | None = None
        self.gamma: torch.Tensor | None = None
        if layer == "mix":
            scalars = [state.get(f"layerwise_attention.scalar_parameters.{i}") for i in range(self.num_layers)]
            if any(s is None for s in scalars) or "layerwise_attention.gamma" not in state:
                raise CheckpointError(
                    f"the checkpoint's layer mix does not match the encoder's {self.num_layers} hidden states"
                )
            if f"layerwise_attention.scalar_parameters.{self.num_layers}" in state:
                raise CheckpointError(
                    f"the checkpoint's layer mix has more scalars than the encoder's {self.num_layers} hidden states"
                )
            w = torch.cat([s.float() for s in scalars])  # type: ignore[union-attr]
            normed = sparsemax(w, dim=0) if self.mix_fn == "sparsemax" else torch.softmax(w, dim=0)
            self.weight_tensor = normed
            self.weights = normed.tolist()
            self.gamma = state["layerwise_attention.gamma"].float().reshape(1)
        elif isinstance(layer, int) and 0 <= layer < self.num_layers:
            self.layer = layer
        else:
            raise InvalidInputError(f"{checkpoint.hparams_file}: invalid model layer {layer!r}")
        self.pool = str(hp.get("pool", "avg"))
        if self.kind == "regression_metric" and self.pool not in ("avg", "max", "cls", "default"):
            raise InvalidInputError(f"{checkpoint.hparams_file}: invalid pooling technique {self.pool!r}")
        self.estimator = _feed_forward(
            state, "estimator.ff.", str(hp.get("activations", "Tanh")), hp.get("final_activation")
        )
        self.hidden2tag: torch.nn.Module | None = None
        self.labels: list[str] = []
        self.word_layer: int | None = None
        if self.word_level:
            if "hidden2tag.weight" not in state:
                raise CheckpointError("the checkpoint is word-level but holds no hidden2tag layer")
            head = linear(state["hidden2tag.weight"].float(), state["hidden2tag.bias"].float())
            self.hidden2tag = head
            errors = (
                ["minor", "major", "critical"]
                if self.kind == "xcomet_metric"
                else list(hp.get("error_labels", ["minor", "major"]))
            )
            self.labels = ["O"] + [f"I-{e}" for e in errors]
            if head.out_features != len(self.labels):
                raise CheckpointError(
                    f"the checkpoint's word-level head has {head.out_features} labels, the hyper-parameters name "
                    f"{len(self.labels)}"
                )
            wl = hp.get("word_layer", 24)
            if not (isinstance(wl, int) and 0 <= wl < self.num_layers):
                raise InvalidInputError(f"{checkpoint.hparams_file}: invalid model word layer {wl!r}")
            self.word_layer = wl
        segments = hp.get("input_segments", ["mt", "src", "ref"])
        if self.kind == "xcomet_metric":
            segments = ["mt", "src", "ref"]
        self.input_segments = list(segments) if self.kind != "regression_metric" else ["mt", "src", "ref"]
        del state
        # ----------------------------------------------------------------- device, dtype, depth
        self.device = torch.device(device)
        self.dtype = _DTYPES[dtype]
        needed = [self.layer] if self.layer is not None else [i for i, v in enumerate(self.weights or []) if v != 0.0]
        if self.word_layer is not None:
            needed.append(self.word_layer)
        if self.kind == "regression_metric" and self.pool == "default":
            needed.append(self.num_layers - 1)  # the last layer's first token
        self.depth = max(needed) if needed else 0  # hidden states 0..depth are needed
        keep = max(self.depth, 1)  # one layer at least: transformers gives no hidden states without one
        stack: Any = self.model.layers
        if keep < len(stack):
            del stack[keep:]  # layers above the last one used change no number
        self.model.to(device=self.device, dtype=self.dtype)
        self.layer_params = int(sum(p.numel() for p in stack.parameters()))
        self.estimator.to(self.device)
        if self.hidden2tag is not None:
            self.hidden2tag.to(self.device)
        if self.weight_tensor is not None:
            self.weight_tensor = self.weight_tensor.to(self.device)
            assert self.gamma is not None
            self.gamma = self.gamma.to(self.device)
        self.budget = GPU_BUDGET if self.device.type != "cpu" else CPU_BUDGET
        self.max_batch = MAX_BATCH
        pad = self.tokenizer.pad_id
        assert pad is not None  # checked above
        self.runner = Runner(
            self.model,
            device=self.device,
            dtype=dtype,
            pad_id=pad,
            budget=self.budget,
            work_per_token=float(self.layer_params),
        )
        self._cache: OrderedDict[str, torch.Tensor] = OrderedDict()
        self._lock = threading.Lock()
        self.cache_size = 1 << 16

    # ------------------------------------------------------------------------------------- tokens
    @property
    def truncation(self) -> int:
        """The longest tokenised text (special tokens included): ``max_positions - 2``."""
        return self.max_positions - 2

    def tokenize(self, texts: Sequence[str]) -> list[Any]:
        return self.tokenizer.encode(list(texts), self.truncation)

    # ------------------------------------------------------------------------------------- forward
    def _run(self, sequences: Any, head: Any, kinds: Any, **options: Any) -> Any:
        """``sequences`` through the engine's runner: length-sorted batches within the token budget, one copy of
        the ids to the device per call, outputs in input order (its shapes in ``self.runner.shapes``)."""
        self.runner.reset_stats()
        return self.runner.run(sequences, head, kinds=kinds, batch_size=self.max_batch, **options)

    def _mix(self, hidden: tuple[Any, ...], mask: torch.Tensor) -> torch.Tensor:
        """``LayerwiseAttention.forward`` in float32 (only the layers with a non-zero weight: the others add 0)."""
        if self.layer is not None:
            return hidden[self.layer].float()
        assert self.weight_tensor is not None
        assert self.gamma is not None
        mask_f = mask.to(self.device).float()
        broadcast = mask_f.unsqueeze(-1)
        total: torch.Tensor | None = None
        for k, weight in enumerate(self.weights or []):
            if weight == 0.0:
                continue
            tensor = hidden[k].float()
            if self.layer_norm:
                batch_size, _, dim = tensor.size()
                masked = tensor * broadcast
                count = mask_f.sum(1) * dim
                mean = (masked.view(batch_size, -1).sum(1) / count).view(batch_size, 1, 1)
                var = (((masked - mean) * broadcast) ** 2).view(batch_size, -1).sum(1) / count
                tensor = (tensor - mean) / torch.sqrt(var + 1e-12).view(batch_size, 1, 1)
            piece = self.weight_tensor[k : k + 1] * tensor
            total = piece if total is None else total + piece
        if total is None:  # pragma: no cover - softmax weights are never all 0, sparsemax's sum to 1
            total = torch.zeros_like(hidden[0].float())
        return self.gamma * total

    # ------------------------------------------------------------------------------------- COMET-22
    def sentence_embeddings(self, texts: Sequence[str], *, cache: bool = True) -> dict[str, torch.Tensor]:
        """The pooled sentence embedding of each distinct text (``RegressionMetric.get_sentence_embedding``)."""
        unique = list(dict.fromkeys(texts))
        out: dict[str, torch.Tensor] = {}
        todo = []
        with self._lock:
            for t in unique:
                hit = self._cache.get(t) if cache else None
                if hit is not None:
                    self._cache.move_to_end(t)
                    out[t] = hit
                else:
                    todo.append(t)
        if todo:
            encodings = self.tokenize(todo)
            pooled = self._run([e.ids for e in encodings], self._sentence_head, "rows")
            for i, t in enumerate(todo):
                out[t] = pooled[i]
            if cache:
                with self._lock:
                    for t in todo:
                        self._cache[t] = out[t]
                    while len(self._cache) > self.cache_size:
                        self._cache.popitem(last=False)
        return out

    def _sentence_head(self, model: Any, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The runner's head of COMET-22: every hidden state, the layer mix, the pooling (one row per text)."""
        hidden = tuple(model(ids, mask, None))
        return self._pool(ids, self._mix(hidden, mask), mask, hidden)

    def _pool(self, ids: torch.Tensor, emb: torch.Tensor, mask: torch.Tensor, hidden: tuple[Any, ...]) -> torch.Tensor:
        pad = self.tokenizer.pad_id
        assert pad is not None  # checked when the model loaded
        if self.pool == "avg":
            word = emb.masked_fill(ids.eq(pad).unsqueeze(-1), 0.0)
            return word.sum(1) / mask.unsqueeze(-1).expand(emb.size()).float().sum(1)
        if self.pool == "max":
            return emb.masked_fill(ids.eq(pad).unsqueeze(-1), float("-inf")).max(dim=1)[0]
        if self.pool == "cls":
            return emb[:, 0, :]
        # "default": the encoder's sentemb: the pooler output for BERT (which unbabel-comet builds without a
        # pooler), the last layer's first token for the XLM-R family
        if self.encoder_kind.passes_token_types:
            raise InvalidInputError("pool='default' fails in unbabel-comet for a BERT encoder (it has no pooler)")
        return hidden[-1][:, 0, :].float()

    @torch.inference_mode()
    def regression(
        self, sources: Sequence[str], translations: Sequence[str], references: Sequence[str], *, cache: bool = True
    ) -> list[float]:
        emb = self.sentence_embeddings([*sources, *translations, *references], cache=cache)
        out: list[float] = []
        step = 4096
        for lo in range(0, len(translations), step):
            hi = min(lo + step, len(translations))
            src = torch.stack([emb[t] for t in sources[lo:hi]])
            mt = torch.stack([emb[t] for t in translations[lo:hi]])
            ref = torch.stack([emb[t] for t in references[lo:hi]])
            features = torch.cat((mt, ref, mt * ref, torch.abs(mt - ref), mt * src, torch.abs(mt - src)), dim=1)
            out += self.estimator(features).view(-1).tolist()
        return out

    # ------------------------------------------------------------------------------------- unified
    def _concat(self, parts: list[list[int]]) -> tuple[list[int], int]:
        """``Encoder.concat_sequences`` for one sample: the joined ids, and the length of the mt part."""
        cls_id, sep_id = self.tokenizer.cls_id, self.tokenizer.sep_id
        assert cls_id is not None
        assert sep_id is not None
        seps = [sep_id] * self.encoder_kind.size_separator
        lengths = [len(p[1:-1]) for p in parts]
        seq = parts[0]
        for nxt in parts[1:]:
            seq = [cls_id, *seq[1:-1], *seps, *nxt[1:-1], sep_id]
        special = 1 + len(parts) * self.encoder_kind.size_separator
        if sum(lengths) > self.max_positions - special:
            seq = seq[: self.max_positions]
        return seq, len(parts[0])

    def _unified_head(self, model: Any, ids: torch.Tensor, mask: torch.Tensor, types: Any = None) -> Any:
        """The runner's head of ``UnifiedMetric.forward``: the score from the mix's first token (one row per
        sequence) and, word-level, the label probabilities of the word layer (one row per token)."""
        hidden = tuple(model(ids, mask, types))
        score = self.estimator(self._mix(hidden, mask)[:, 0, :]).view(-1)
        if self.hidden2tag is None or self.word_layer is None:
            return score
        return score, torch.softmax(self.hidden2tag(hidden[self.word_layer].float()), dim=2)

    def _unified_passes(
        self, seqs: list[list[int]], mt_lengths: list[int], word_lengths: list[int], passes: int
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Every pass of ``UnifiedMetric.forward`` in one runner call over the joined sequences (pass after
        pass): the scores (float32, in input order) and, word-level, the label probabilities of each sequence's
        first ``word_lengths`` tokens, packed ``(passes, sum(word_lengths), labels)`` (every pass keeps the same
        tokens of the same translations)."""
        packed = Packed.of(seqs)
        types = None
        if self.encoder_kind.passes_token_types:  # 0 over the mt part, 1 after it
            lengths = packed.lengths
            within = np.arange(int(packed.starts[-1]), dtype=np.int64) - np.repeat(packed.starts[:-1], lengths)
            types = Packed(
                (within >= np.repeat(np.asarray(mt_lengths, dtype=np.int64), lengths)).astype(np.int64), packed.starts
            )
        if self.hidden2tag is None:
            return self._run(packed, self._unified_head, "rows", token_types=types), None
        keep = np.zeros((len(seqs), 2), dtype=np.int64)
        keep[:, 1] = np.tile(np.asarray(word_lengths, dtype=np.int64), passes)
        scores, probs = self._run(packed, self._unified_head, ("rows", "tokens"), keep=keep, token_types=types)
        data = probs.data
        return scores, data.view(passes, data.shape[0] // passes, *data.shape[1:])

    @torch.inference_mode()
    def unified(
        self,
        translations: Sequence[str],
        sources: Sequence[str] | None,
        references: Sequence[str] | None,
    ) -> tuple[list[float], list[list[Span]] | None]:
        """``predict()`` of a ``UnifiedMetric`` or ``XCOMETMetric``: the scores and (word-level) the error spans."""
        use_src = sources is not None and "src" in self.input_segments
        use_ref = references is not None and "ref" in self.input_segments
        mt_enc = self.tokenize(translations)
        mt_ids = [[t for t in e.ids if t != self.tokenizer.pad_id] for e in mt_enc]
        parts_list: list[list[list[int]]] = [mt_ids]
        if use_src:
            assert sources is not None
            parts_list.append([[t for t in e.ids if t != self.tokenizer.pad_id] for e in self.tokenize(sources)])
        if use_ref:
            assert references is not None
            parts_list.append([[t for t in e.ids if t != self.tokenizer.pad_id] for e in self.tokenize(references)])
        n = len(translations)
        combos = [(0, 1), (0, 2), (0, 1, 2)] if use_src and use_ref else [tuple(range(len(parts_list)))]
        word_lengths = [len(e.ids) for e in mt_enc]
        joined = [self._concat([parts_list[c][i] for c in combo]) for combo in combos for i in range(n)]
        scores, probs = self._unified_passes([j[0] for j in joined], [j[1] for j in joined], word_lengths, len(combos))
        score_list = [scores[k * n : (k + 1) * n] for k in range(len(combos))]
        spans: list[list[Span]] | None = None
        if self.word_level:
            assert probs is not None
            spans = self._spans(mt_enc, word_lengths, probs)
        if self.kind == "xcomet_metric":
            assert spans is not None
            mqm = _mqm(spans).to(self.device)
            weights = [0.12, 0.33, 0.33, 0.22]
            if len(score_list) == 3:
                reg = torch.stack(
                    [torch.where(s > 1.0, 1.0, s) * w for s, w in zip(score_list, weights[:3], strict=True)], dim=0
                ).sum(dim=0)
                final = reg + mqm * weights[3]
            else:
                reg1 = torch.where(score_list[0] > 1.0, 1.0, score_list[0])
                final = reg1 * sum(weights[:3]) + mqm * weights[3]
            return final.tolist(), spans
        if len(score_list) == 3:
            return torch.stack(score_list, dim=0).mean(dim=0).tolist(), spans
        return score_list[0].tolist(), spans

    def _spans(self, mt_enc: list[Any], word_lengths: list[int], probs: torch.Tensor) -> list[list[Span]]:
        """``UnifiedMetric.decode`` on the label probabilities ``(passes, tokens, labels)`` of every translation's
        tokens, one after the other (weighted over the passes when there are three), read back from the device
        once."""
        if len(probs) == 3:
            weights = torch.tensor([0.1667, 0.3333, 0.5])
            p = torch.sum(torch.stack([probs[k] * weights[k].to(probs.device) for k in range(3)]), dim=0)
        else:
            p = probs[0]
        labels_all = torch.argmax(p, dim=1).cpu().tolist()
        conf_all = p.max(dim=1)[0].cpu()
        out: list[list[Span]] = []
        start = 0
        for enc, count in zip(mt_enc, word_lengths, strict=True):
            labels = labels_all[start : start + count]
            spans: list[Span] = []
            current: dict[str, Any] | None = None
            for t, (token_id, label_id, offset) in enumerate(zip(enc.ids, labels, enc.offsets, strict=False)):
                label = self.labels[label_id]
                if label.startswith("I") and current is None:
                    current = {
                        "tokens": [token_id],
                        "severity": label.split("-")[1],
                        "offset": list(offset),
                        "conf": [start + t],
                    }
                elif label.startswith("I"):
                    assert current is not None
                    current["tokens"].append(token_id)
                    current["conf"].append(start + t)
                    current["offset"][1] = offset[1]
                elif current is not None:
                    spans.append(self._span(current, conf_all))
                    current = None
            out.append(spans)  # a span still open at the end is dropped, as unbabel-comet drops it
            start += count
        return out

    def _span(self, span: dict[str, Any], conf: torch.Tensor) -> Span:
        return Span(
            text=self.tokenizer.decode(span["tokens"]),
            start=int(span["offset"][0]),
            end=int(span["offset"][1]),
            severity=span["severity"],
            confidence=float(conf[torch.tensor(span["conf"])].mean().item()),
        )


def _mqm(spans: list[list[Span]]) -> torch.Tensor:
    points = {"minor": 1, "major": 5, "critical": 10}
    scores = []
    for sentence in spans:
        s = sum(points.get(span.severity, 0) for span in sentence)
        scores.append(min(s, 25))
    return (torch.tensor(scores) * -1 + 25) / 25


# ----------------------------------------------------------------------------------------- model cache
#: the two most recently used models (the least-recently-used cache that also keeps reference indexes)
_MODELS = ReferenceCache(maxsize=2)


def get_model(
    checkpoint: CometCheckpoint,
    *,
    encoder: str | None,
    tokenizer: str | None,
    device: str,
    dtype: str,
    allow_download: bool,
) -> CometModel:
    """The loaded model for these settings, kept for the next call (the two most recent ones are kept)."""
    st = checkpoint.weights.stat()
    key = (str(checkpoint.weights.resolve()), st.st_size, st.st_mtime_ns, encoder, tokenizer, device, dtype)
    model: CometModel = _MODELS.get(
        key,
        lambda: CometModel(
            checkpoint, encoder=encoder, tokenizer=tokenizer, device=device, dtype=dtype, allow_download=allow_download
        ),
    )
    return model


def clear_models() -> None:
    _MODELS.clear()
