"""``nlgmetrics.torch.BERTScore``: torchmetrics' ``BERTScore`` (its arguments, and ``compute()``'s dict of one value
per sentence), with bert-score 0.3.13's numbers.

torchmetrics' own ``BERTScore`` computes the same formula differently (its tokenisation, batching, padding and
idf differ), and its F1 differed from bert-score's by up to 0.135 on the same model (``docs/bertscore.md``). This class
is the BERTScore family's torchmetrics adapter with torchmetrics' signature on top:

* ``compute()`` returns ``{"precision", "recall", "f1"}``, each a float64 tensor with one value per sentence, in the
  order of the updates (rank by rank under DDP, as torchmetrics gathers them); ``reduction="mean"`` gives means;
  ``return_hash=True`` adds ``"hash"``, bert-score's hash of the settings;
* ``model_name_or_path``, ``num_layers``, ``verbose``, ``idf``, ``device``, ``batch_size``, ``lang``,
  ``rescale_with_baseline`` and ``baseline_path`` mean what they mean there (``lang`` picks bert-score's default
  model and baseline; ``batch_size`` caps the texts per forward pass; torchmetrics' default of 64 is not applied);
* ``idf=True`` takes the weights over the references of every update, as torchmetrics does: the texts are kept
  (as UTF-8 bytes in ``cat`` states, so DDP gathers them) and scored at ``compute()``. With ``idf_references=`` (or
  ``idf_weights=``) the weights are known up front and each update is scored as it comes;
* ``max_length`` (other than torchmetrics' 512), ``all_layers=True``, ``model``, ``user_tokenizer``,
  ``user_forward_fn`` and ``baseline_url`` are refused with a message (texts are cut at the tokenizer's own maximum,
  as bert-score does; nothing is downloaded); ``num_threads`` and ``truncation`` change nothing (texts over the
  maximum are truncated with a warning, as bert-score truncates them);
* every option of :func:`nlgmetrics.bertscore` (``model=``, ``dtype=``, ``long_inputs=``, ``cache=``, ...) and the
  ``torchmetrics.Metric`` keyword arguments are accepted too.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from .._inputs import check_pairs
from ..errors import InvalidInputError
from ..metrics.catalog import get_family
from .adapter import TORCHMETRICS_KWARGS, TorchMetric, torch_metric

__all__ = ["bertscore_class"]

_TEXT_STATES = ("_text_pred_bytes", "_text_pred_lens", "_text_ref_bytes", "_text_ref_lens", "_text_ref_counts")


def _refused(name: str, value: Any, allowed: Any, why: str) -> None:
    if value != allowed and not (allowed is None and value is None):
        raise InvalidInputError(f"BERTScore: {name}={value!r} is not supported: {why}")


def _encode(texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
    raw = [t.encode("utf-8") for t in texts]
    data = np.frombuffer(b"".join(raw), dtype=np.uint8).copy()
    return torch.from_numpy(data), torch.tensor([len(r) for r in raw], dtype=torch.int64)


def _decode(data: torch.Tensor, lengths: torch.Tensor) -> list[str]:
    raw = data.cpu().numpy().tobytes()
    out, pos = [], 0
    for n in lengths.cpu().tolist():
        out.append(raw[pos : pos + n].decode("utf-8"))
        pos += n
    return out


def _cat(state: Any, dtype: torch.dtype) -> torch.Tensor:
    if isinstance(state, torch.Tensor):
        return state
    return torch.cat(state) if state else torch.zeros(0, dtype=dtype)


def bertscore_class() -> type[TorchMetric]:
    """The class ``nlgmetrics.torch.BERTScore`` (built once by :func:`nlgmetrics.torch.torch_class`)."""
    family = get_family("bertscore")
    base = torch_metric(
        family,
        "BERTScore",
        higher_is_better=True,
        plot_bounds=family.bounds,
        doc="torchmetrics' ``BERTScore`` (arguments, and a dict of one value per sentence from ``compute()``), with "
        "bert-score 0.3.13's numbers: :func:`nlgmetrics.bertscore`.",
        module="nlgmetrics.torch",
    )

    def __init__(
        self: Any,
        model_name_or_path: str | None = None,
        num_layers: int | None = None,
        all_layers: bool = False,
        model: Any = None,
        user_tokenizer: Any = None,
        user_forward_fn: Any = None,
        verbose: bool = False,
        idf: bool = False,
        device: str | torch.device | None = None,
        max_length: int = 512,
        batch_size: int | None = None,
        num_threads: int = 0,
        return_hash: bool = False,
        lang: str | None = None,
        rescale_with_baseline: bool = False,
        baseline_path: str | None = None,
        baseline_url: str | None = None,
        truncation: bool = False,
        *,
        preset: str | None = None,
        keep_segments: bool = False,
        **options: Any,
    ) -> None:
        _refused("all_layers", all_layers, False, "one layer is scored (num_layers=); see compute_baseline for all")
        if isinstance(model, (str, os.PathLike)):  # nlgmetrics' model= (a name or a folder), not a torch module
            options.setdefault("model", os.fspath(model))
            model = None
        for name, value in (("model", model), ("user_tokenizer", user_tokenizer), ("user_forward_fn", user_forward_fn)):
            _refused(name, value, None, "give the model as a local folder or a Hub name (model_name_or_path=)")
        _refused("max_length", max_length, 512, "texts are cut at the tokenizer's own maximum, as bert-score does")
        _refused("baseline_url", baseline_url, None, "nothing is downloaded: give baseline_path=<local file>")
        del num_threads, truncation  # no effect: no data-loader workers; texts over the maximum are truncated
        if model_name_or_path is not None:
            options.setdefault("model", model_name_or_path)
        if "model" not in options and lang is None:
            lang = "en"  # torchmetrics' default model is roberta-large, bert-score's for English
        if device is not None:
            options.setdefault("device", str(device))
        options.setdefault("reduction", None)
        extra = {
            "num_layers": num_layers,
            "progress": bool(verbose) if verbose else None,
            "batch_size": batch_size,
            "lang": lang,
            "rescale_with_baseline": rescale_with_baseline,
            "baseline_path": baseline_path,
        }
        for key, value in extra.items():
            if value is not None:
                options.setdefault(key, value)
        # idf over the references of every update, scored at compute(), unless the weights are given up front
        self._deferred = bool(idf) and options.get("idf_references") is None and options.get("idf_weights") is None
        if idf and not self._deferred:
            options["idf"] = True
        base.__init__(self, preset, keep_segments=keep_segments, **options)
        self.return_hash = bool(return_hash)
        self._options = {k: v for k, v in options.items() if k not in TORCHMETRICS_KWARGS}
        self._preset = preset
        if self._deferred:
            for name in _TEXT_STATES:
                self.add_state(name, default=[], dist_reduce_fx="cat")

    def update(self: Any, preds: Any, target: Any = None, **inputs: Any) -> None:
        if not self._deferred:
            base.update(self, preds, target, **inputs)
            return
        batch_preds, refs = check_pairs(preds, target, allow_empty=True)
        if not batch_preds:
            return
        from ..metrics.bertscore import check_texts

        check_texts(batch_preds, refs)
        starts = refs.starts if refs.starts is not None else np.arange(len(batch_preds))
        counts = np.diff(np.append(starts, len(refs.flat)))
        for name, value in zip(_TEXT_STATES[:2], _encode(list(batch_preds)), strict=True):
            getattr(self, name).append(value)
        for name, value in zip(_TEXT_STATES[2:4], _encode(list(refs.flat)), strict=True):
            getattr(self, name).append(value)
        self._text_ref_counts.append(torch.as_tensor(counts, dtype=torch.int64))

    def _texts(self: Any) -> tuple[list[str], list[list[str]]]:
        preds = _decode(_cat(self._text_pred_bytes, torch.uint8), _cat(self._text_pred_lens, torch.int64))
        flat = _decode(_cat(self._text_ref_bytes, torch.uint8), _cat(self._text_ref_lens, torch.int64))
        counts = _cat(self._text_ref_counts, torch.int64).tolist()
        refs, pos = [], 0
        for n in counts:
            refs.append(flat[pos : pos + n])
            pos += n
        return preds, refs

    def _idf_config(self: Any) -> Any:
        options = {k: v for k, v in self._options.items() if k not in ("idf", "idf_references", "idf_weights")}
        return family.corpus_config(self._preset, **{**options, "idf": True})  # type: ignore[attr-defined]

    def _result(self: Any) -> Any:
        if not self._deferred:
            return base._result(self)
        preds, refs = self._texts()
        config = self._idf_config()
        if not preds:
            return family.finalize(family.zero(config), config, family.empty_batch(config))
        return family.compute(preds, refs, config)

    def compute(self: Any) -> Any:
        value = base.compute(self)
        if self.return_hash and isinstance(value, dict):
            value = {**value, "hash": self._hash()}
        return value

    def _hash(self: Any) -> str:
        from ..metrics.bertscore import bertscore_hash

        return bertscore_hash(self._idf_config() if self._deferred else self.config)

    def _sync_dist(self: Any, dist_sync_fn: Any = None, process_group: Any = None) -> None:
        if self._deferred:  # a process that saw nothing offers typed empty tensors to the gather
            for name in _TEXT_STATES:
                state = getattr(self, name)
                if isinstance(state, list) and not state:
                    dtype = torch.uint8 if name.endswith("bytes") else torch.int64
                    state.append(torch.zeros(0, dtype=dtype, device=self.device))
        base._sync_dist(self, dist_sync_fn=dist_sync_fn, process_group=process_group)

    namespace = {
        "__init__": __init__,
        "update": update,
        "compute": compute,
        "_texts": _texts,
        "_idf_config": _idf_config,
        "_result": _result,
        "_hash": _hash,
        "_sync_dist": _sync_dist,
        "__module__": "nlgmetrics.torch",
        "__doc__": base.__doc__,
    }
    return type("BERTScore", (base,), namespace)
