"""MetricX-24 on torch: google-research/metricx's ``MT5ForRegression`` at inference (metricx24/models.py and
predict.py, commit fc4978e), re-implemented on transformers' mT5 encoder and decoder stacks.

* Input: ``"source: " + src + " candidate: " + hyp`` (QE), with ``" reference: " + ref`` appended otherwise;
  tokenised with truncation to ``max_input_length`` tokens (1,536 for MetricX-24), then the last token (the EOS)
  removed, as ``get_dataset`` does.
* One decoder step from token 0 over the encoder's output; the decoder's output (times ``d_model ** -0.5`` when
  the config ties the word embeddings) against row 250,089 of ``lm_head`` (``<extra_id_10>``); clamped to
  ``[0, 25]``. Lower is better. Only that row of ``lm_head`` is read from the checkpoint.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from ...algorithms.refcache import ReferenceCache
from ...engine.runner import Runner
from ...errors import InvalidInputError
from ..comet.checkpoint import CheckpointError
from ..learned_text import FastTokenizer

__all__ = ["TOKEN", "MetricXModel", "get_model", "weight_files"]

#: The logit MT5ForRegression reads: ``<extra_id_10>`` of mT5's vocabulary.
TOKEN = 250089
CPU_BUDGET = 16384
GPU_BUDGET = 131072
MAX_BATCH = 256
_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def weight_files(folder: Path) -> list[Path]:
    """The weight files of a MetricX model folder (safetensors, sharded or not; else pytorch_model.bin)."""
    for index in ("model.safetensors.index.json", "pytorch_model.bin.index.json"):
        if (folder / index).is_file():
            data = json.loads((folder / index).read_text(encoding="utf-8"))
            return [folder / f for f in sorted(set(data.get("weight_map", {}).values()))]
    for name in ("model.safetensors", "pytorch_model.bin"):
        if (folder / name).is_file():
            return [folder / name]
    raise CheckpointError(f"MetricX model folder {folder} holds no weights (model.safetensors or pytorch_model.bin)")


def _read(files: list[Path]) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """Every weight but ``lm_head`` and ``lm_head``'s row :data:`TOKEN`, without unpickling code."""
    state: dict[str, torch.Tensor] = {}
    row: torch.Tensor | None = None
    for f in files:
        if f.suffix == ".safetensors":
            from safetensors import safe_open

            with safe_open(str(f), framework="pt") as fh:
                for key in fh.keys():  # noqa: SIM118 - safe_open has no __iter__
                    if key == "lm_head.weight":
                        row = fh.get_slice(key)[TOKEN : TOKEN + 1][0]
                    else:
                        state[key] = fh.get_tensor(key)
        else:
            try:
                data = torch.load(str(f), map_location="cpu", weights_only=True, mmap=True)
            except Exception as err:
                raise CheckpointError(
                    f"the checkpoint {f} cannot be read safely (torch.load(weights_only=True): {str(err)[:300]}); "
                    "nlgmetrics never unpickles code"
                ) from err
            for key, value in data.items():
                if key == "lm_head.weight":
                    row = value[TOKEN].clone()
                else:
                    state[key] = value
    if row is None:
        raise CheckpointError(f"the MetricX checkpoint in {files[0].parent} has no lm_head.weight")
    return state, row


class MetricXModel:
    """A loaded MetricX-24 checkpoint (see :func:`get_model`)."""

    def __init__(self, folder: Path, tokenizer: Path, *, device: str, dtype: str) -> None:
        import transformers

        from ...engine.hub import quiet_transformers

        with quiet_transformers():
            config = transformers.MT5Config.from_pretrained(str(folder))
        if config.vocab_size <= TOKEN:
            raise CheckpointError(
                f"{folder / 'config.json'}: vocab_size {config.vocab_size} has no token {TOKEN}, the logit "
                "MT5ForRegression reads (is it a MetricX-24 checkpoint?)"
            )
        state, row = _read(weight_files(folder))
        # eager attention, as MT5 runs in transformers 4.30 (the reference's): scores + position bias, softmax in
        # float32; SDPA rounds differently (a few 1e-7 relative, amplified by the regression row)
        config._attn_implementation = "eager"
        with torch.device("meta"):
            model = transformers.MT5Model(config)
        model.load_state_dict(state, strict=False, assign=True)
        shared = model.shared
        for stack in (model.encoder, model.decoder):
            if stack.embed_tokens.weight.is_meta:
                stack.embed_tokens = shared
        lacking = [n for n, p in model.named_parameters() if p.is_meta]
        if lacking:
            raise CheckpointError(f"the MetricX checkpoint in {folder} lacks {lacking[:3]}")
        for name, buf in list(model.named_buffers()):
            if buf.is_meta:
                owner = model.get_submodule(name.rpartition(".")[0]) if "." in name else model
                owner.register_buffer(
                    name.rpartition(".")[2], torch.zeros(buf.shape, dtype=buf.dtype), persistent=False
                )
        self.device = torch.device(device)
        self.dtype = _DTYPES[dtype]
        self.model = model.eval().to(device=self.device, dtype=self.dtype)
        self.row = row.to(device=self.device, dtype=self.dtype)
        self.layer_params = sum(p.numel() for p in model.encoder.block.parameters()) + sum(
            p.numel() for p in model.decoder.block.parameters()
        )
        # read from the file: transformers 5's MT5Config reports tie_word_embeddings=True for a file saying false;
        # MT5Config's own default (transformers 4.30) is False
        raw = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        tied = bool(raw.get("tie_word_embeddings", False))
        self.scale = float(config.d_model) ** -0.5 if tied else None
        self.tokenizer = FastTokenizer(tokenizer, defaults={"pad": "<pad>", "eos": "</s>"})
        self.pad_id = 0 if self.tokenizer.pad_id is None else self.tokenizer.pad_id
        self.budget = GPU_BUDGET if self.device.type != "cpu" else CPU_BUDGET
        self.max_batch = MAX_BATCH
        self.runner = Runner(
            self.model,
            device=self.device,
            dtype=dtype,
            pad_id=self.pad_id,
            budget=self.budget,
            work_per_token=float(self.layer_params),
        )

    def _head(self, model: Any, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The runner's head of ``MT5ForRegression``: the encoder, one decoder step from token 0, the logit of
        :data:`TOKEN`, clamped (one row per input)."""
        enc = model.encoder(input_ids=ids, attention_mask=mask, return_dict=True).last_hidden_state
        start = torch.zeros((ids.shape[0], 1), dtype=torch.long, device=ids.device)
        dec = model.decoder(
            input_ids=start,
            encoder_hidden_states=enc,
            encoder_attention_mask=mask,
            use_cache=False,
            return_dict=True,
        ).last_hidden_state
        seq = dec[:, 0, :]
        if self.scale is not None:
            seq = seq * self.scale
        logits = torch.nn.functional.linear(seq, self.row.unsqueeze(0))[:, 0]
        return torch.clamp(logits, 0, 25).float()

    @torch.inference_mode()
    def score(self, inputs: Sequence[str], max_input_length: int) -> list[float]:
        encodings = self.tokenizer.encode(list(inputs), max_input_length)
        seqs = [e.ids[:-1] for e in encodings]  # get_dataset's _remove_eos
        empty = next((i for i, s in enumerate(seqs) if not s), None)
        if empty is not None:
            raise InvalidInputError(f"input {empty} has no token left once cut to max_input_length={max_input_length}")
        self.runner.reset_stats()
        out = self.runner.run(seqs, self._head, kinds="rows", batch_size=self.max_batch)
        return [float(x) for x in out.cpu().tolist()]


#: the two most recently used models (the least-recently-used cache that also keeps reference indexes)
_MODELS = ReferenceCache(maxsize=2)


def get_model(folder: Path, tokenizer: Path, *, device: str, dtype: str) -> MetricXModel:
    files = weight_files(folder)
    key = (
        str(folder.resolve()),
        tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files),
        str(tokenizer),
        device,
        dtype,
    )
    model: MetricXModel = _MODELS.get(key, lambda: MetricXModel(folder, tokenizer, device=device, dtype=dtype))
    return model
