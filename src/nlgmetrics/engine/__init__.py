"""The encoder engine shared by every model metric (BERTScore, COMET, CometKiwi, XCOMET and MetricX).

A metric brings only its *head*; the engine does the rest, the same way for every model:

* :mod:`~nlgmetrics.engine.hub`: find a model offline first (a local folder or the Hugging Face cache; a missing
  one fails fast, naming how to get it), load its config, tokenizer and weights (safetensors, or
  ``torch.load(weights_only=True)``; nothing is unpickled), and name it by a digest of its content;
* :mod:`~nlgmetrics.engine.text`: token ids, truncation that tokenises only what it keeps, windows;
* :mod:`~nlgmetrics.engine.shapes`: length-sorted, token-budget batches; on an accelerator widths rounded up to at
  most 16 buckets and two batch sizes per width, so at most 32 forward shapes per call;
* :mod:`~nlgmetrics.engine.runner`: :class:`Runner` runs the head ``forward(model, input_ids, attention_mask)``
  over the batches on the device and returns its outputs in input order (per token, packed in one device buffer;
  or one row per sequence), with one host-to-device copy per call;
* :mod:`~nlgmetrics.engine.device`: device and dtype checks, the attention backend (no cuDNN attention on CUDA),
  threads on a busy CPU;
* :mod:`~nlgmetrics.engine.parallel`: one call over several devices, or ``torch.distributed`` ranks, with output
  in input order.

Importing this package imports neither torch nor transformers; the names that need torch load it on first use.
See ``docs/engine.md`` for the API a metric author uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the types of the lazy exports below (F401: ruff cannot read the computed __all__)
    from .device import DTYPES, attention_backends, check_dtype, cpu_threads, devices_of, resolve_device  # noqa: F401
    from .hub import (  # noqa: F401
        ModelNotFoundError,
        cached_snapshot,
        check_model,
        fetch_command,
        file_digest,
        files_digest,
        hub_cache_dir,
        is_offline,
        load_config,
        load_pretrained,
        load_tokenizer,
        load_weights,
        model_digest,
        model_folder,
        model_label,
    )
    from .parallel import distributed_map, map_devices, shards  # noqa: F401
    from .runner import Runner, TokenOutputs, model_widths, prepare, token_budget  # noqa: F401
    from .shapes import MAX_WIDTHS, Batch, Packed, fit_widths, plan_batches, row_sizes, shape_grid, width_grid  # noqa: F401
    from .text import Tokenizer  # noqa: F401

_WHERE = {
    **dict.fromkeys(
        (
            "ModelNotFoundError",
            "cached_snapshot",
            "check_model",
            "fetch_command",
            "file_digest",
            "files_digest",
            "hub_cache_dir",
            "is_offline",
            "load_config",
            "load_pretrained",
            "load_tokenizer",
            "load_weights",
            "model_digest",
            "model_folder",
            "model_label",
        ),
        ".hub",
    ),
    **dict.fromkeys(
        ("MAX_WIDTHS", "Batch", "Packed", "fit_widths", "plan_batches", "row_sizes", "shape_grid", "width_grid"),
        ".shapes",
    ),
    "Tokenizer": ".text",
    **dict.fromkeys(
        ("DTYPES", "attention_backends", "check_dtype", "cpu_threads", "devices_of", "resolve_device"), ".device"
    ),
    **dict.fromkeys(("Runner", "TokenOutputs", "model_widths", "prepare", "token_budget"), ".runner"),
    **dict.fromkeys(("distributed_map", "map_devices", "shards"), ".parallel"),
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'nlgmetrics.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
