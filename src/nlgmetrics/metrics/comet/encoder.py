"""The COMET encoders on plain torch: BERT, XLM-R and MiniLM (a BERT), as transformers runs them.

transformers takes seconds to import; a checkpoint of these three encoders needs none of it. :class:`NativeEncoder`
is transformers' ``BertModel`` / ``XLMRobertaModel`` forward (absolute positions; XLM-R's positions counted
from the pad id over the non-pad tokens), the same operations in the same order, returning every hidden state
(the embeddings' output first). Any other encoder (XLM-R XL, RemBERT, a config with relative positions) runs on
transformers' own class through :class:`TransformersEncoder`, which gives the same interface.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

__all__ = ["NativeEncoder", "TransformersEncoder", "build_encoder", "read_config"]

_ACTIVATIONS = {
    "gelu": lambda x: F.gelu(x),
    "gelu_new": lambda x: 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * torch.pow(x, 3.0)))),
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "relu": F.relu,
}
_NATIVE_TYPES = {"bert": False, "xlm-roberta": True, "roberta": True}


def read_config(folder: Path) -> dict[str, Any]:
    from .checkpoint import CheckpointError

    try:
        data = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise CheckpointError(f"{folder / 'config.json'}: cannot read the encoder's config ({err})") from err
    if not isinstance(data, dict):
        raise CheckpointError(f"{folder / 'config.json'} is not a JSON object")
    return data


def linear(weight: torch.Tensor, bias: torch.Tensor | None) -> torch.nn.Linear:
    """A ``Linear`` holding these tensors, built without initialising anything (an initialisation costs time,
    and on the meta device imports torch's compiler)."""
    module = torch.nn.Linear.__new__(torch.nn.Linear)
    torch.nn.Module.__init__(module)
    module.in_features, module.out_features = int(weight.shape[1]), int(weight.shape[0])
    module.weight = torch.nn.Parameter(weight, requires_grad=False)
    module.register_parameter("bias", None if bias is None else torch.nn.Parameter(bias, requires_grad=False))
    return module


def _layer_norm(weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.nn.LayerNorm:
    module = torch.nn.LayerNorm.__new__(torch.nn.LayerNorm)
    torch.nn.Module.__init__(module)
    module.normalized_shape = (int(weight.shape[0]),)
    module.eps = eps
    module.elementwise_affine = True
    module.weight = torch.nn.Parameter(weight, requires_grad=False)
    module.bias = torch.nn.Parameter(bias, requires_grad=False)
    return module


def _embedding(weight: torch.Tensor) -> torch.nn.Embedding:
    return torch.nn.Embedding.from_pretrained(weight, freeze=True)


_LAYER_KEYS = {
    "query": "attention.self.query",
    "key": "attention.self.key",
    "value": "attention.self.value",
    "attn_out": "attention.output.dense",
    "attn_norm": "attention.output.LayerNorm",
    "inter": "intermediate.dense",
    "out": "output.dense",
    "out_norm": "output.LayerNorm",
}


class NativeEncoder(torch.nn.Module):
    """BERT / XLM-R forward with every hidden state; weights from a state dict in transformers' names."""

    def __init__(self, config: dict[str, Any], weights: dict[str, torch.Tensor], *, roberta: bool) -> None:
        super().__init__()
        from .checkpoint import CheckpointError

        self.config = config
        self.roberta = roberta
        hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.head_dim = hidden // self.heads
        eps = float(config.get("layer_norm_eps", 1e-12))
        self.pad = int(config.get("pad_token_id", 1 if self.roberta else 0) or 0)
        self.act = _ACTIVATIONS[str(config.get("hidden_act", "gelu"))]

        def take(name: str) -> torch.Tensor:
            if name not in weights:
                raise CheckpointError(f"the checkpoint does not fit the encoder's config: it lacks {name}")
            return weights[name]

        self.word = _embedding(take("embeddings.word_embeddings.weight"))
        self.position = _embedding(take("embeddings.position_embeddings.weight"))
        self.token_type = _embedding(take("embeddings.token_type_embeddings.weight"))
        self.norm = _layer_norm(take("embeddings.LayerNorm.weight"), take("embeddings.LayerNorm.bias"), eps)
        layers = []
        for i in range(int(config["num_hidden_layers"])):
            layer = torch.nn.Module()
            for ours, theirs in _LAYER_KEYS.items():
                w, b = take(f"encoder.layer.{i}.{theirs}.weight"), take(f"encoder.layer.{i}.{theirs}.bias")
                setattr(layer, ours, _layer_norm(w, b, eps) if ours.endswith("norm") else linear(w, b))
            layers.append(layer)
        self.layers = torch.nn.ModuleList(layers)
        self.eval()

    def positions(self, ids: torch.Tensor) -> torch.Tensor:
        if self.roberta:  # create_position_ids_from_input_ids
            mask = ids.ne(self.pad).int()
            return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + self.pad
        return torch.arange(ids.shape[1], device=ids.device).unsqueeze(0).expand_as(ids)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor | None) -> tuple[torch.Tensor, ...]:
        if types is None:
            types = torch.zeros_like(ids)
        x = self.word(ids) + self.token_type(types)
        x = x + self.position(self.positions(ids))
        x = self.norm(x)
        hidden = [x]
        dtype = x.dtype
        extended = (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min
        b, n, _ = x.shape
        scale = self.head_dim**-0.5
        layer: Any
        for layer in self.layers:
            q = layer.query(x).view(b, n, self.heads, self.head_dim).transpose(1, 2)
            k = layer.key(x).view(b, n, self.heads, self.head_dim).transpose(1, 2)
            v = layer.value(x).view(b, n, self.heads, self.head_dim).transpose(1, 2)
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=extended, dropout_p=0.0, scale=scale)
            a = a.transpose(1, 2).reshape(b, n, -1)
            x = layer.attn_norm(layer.attn_out(a) + x)
            h = self.act(layer.inter(x))
            x = layer.out_norm(layer.out(h) + x)
            hidden.append(x)
        return tuple(hidden)


class TransformersEncoder(torch.nn.Module):
    """Any other encoder: transformers' own model class, built on the meta device and given the checkpoint's
    weights (no random initialisation)."""

    def __init__(self, model_class: str, pooler: bool, folder: Path, weights: dict[str, torch.Tensor]) -> None:
        super().__init__()
        import transformers

        from ...engine.hub import quiet_transformers
        from .checkpoint import CheckpointError

        with quiet_transformers():
            hf_config = transformers.AutoConfig.from_pretrained(str(folder))
        cls = getattr(transformers, model_class)
        with torch.device("meta"):
            model = cls(hf_config, add_pooling_layer=pooler)
        missing, _unexpected = model.load_state_dict(weights, strict=False, assign=True)
        params = {name for name, _ in model.named_parameters()}
        lacking = [m for m in missing if m in params]
        if lacking:
            raise CheckpointError(
                f"the checkpoint does not fit the encoder {model_class} of {folder}: it lacks {lacking[:3]}"
                f"{' ...' if len(lacking) > 3 else ''} (is encoder= the encoder it was trained on?)"
            )
        for name, buf in list(model.named_buffers()):
            if buf.is_meta:
                owner = model.get_submodule(name.rpartition(".")[0]) if "." in name else model
                leaf = name.rpartition(".")[2]
                if leaf == "position_ids":
                    value = torch.arange(buf.shape[-1]).expand(buf.shape).clone()
                else:
                    value = torch.zeros(buf.shape, dtype=buf.dtype)
                owner.register_buffer(leaf, value, persistent=False)
        self.model = model.eval()
        self.layers = model.encoder.layer

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor | None) -> tuple[torch.Tensor, ...]:
        kwargs: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if types is not None:
            kwargs["token_type_ids"] = types
        out = self.model(**kwargs, output_hidden_states=True, return_dict=True)
        return tuple(out.hidden_states)


def build_encoder(
    model_class: str, pooler: bool, folder: Path, config: dict[str, Any], state: dict[str, torch.Tensor]
) -> torch.nn.Module:
    """The encoder of a checkpoint: native for BERT / XLM-R / MiniLM, transformers' class otherwise."""
    from .checkpoint import CheckpointError

    prefix = "encoder.model."
    weights = {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}
    if not weights:
        raise CheckpointError("the checkpoint holds no encoder weights (no 'encoder.model.*' entries)")
    native = (
        model_class in ("BertModel", "XLMRobertaModel")
        and config.get("model_type", "bert") in _NATIVE_TYPES
        and config.get("position_embedding_type", "absolute") == "absolute"
        and str(config.get("hidden_act", "gelu")) in _ACTIVATIONS
    )
    if native:
        return NativeEncoder(config, weights, roberta=model_class == "XLMRobertaModel")
    return TransformersEncoder(model_class, pooler, folder, weights)
