"""Devices, dtypes, the attention backend and CPU threads: where and how a model runs.

* :func:`resolve_device` checks a device before any model loads (``cuda`` without a GPU is a clear error, not
  torch's ``AssertionError``). Several devices are a comma-separated list (``"cuda:0,cuda:1"``) or ``"cuda:all"``
  (every visible GPU): one call is then scored data-parallel (:mod:`nlgmetrics.engine.parallel`).
* :func:`check_dtype` warns, once, where a half-precision dtype will not pay off: on a CPU without AMX, bfloat16
  and float16 matrix products run no faster than float32 (measured 1.6× slower on an AVX512-BF16 CPU).
* :func:`attention_backends` chooses the scaled-dot-product-attention kernels deliberately. On CUDA it allows
  flash, memory-efficient and math attention, and not cuDNN's: torch picks cuDNN attention for bfloat16 on Hopper,
  and cuDNN builds an execution plan for every new (batch, width) shape. On an H200 that planning took 10.5 s of
  a 16.7 s first call (6.8 ms per call, 1,548 calls), while every CUDA kernel of the call took 0.28 s; flash and
  memory-efficient attention plan nothing per shape. Elsewhere torch's own choice stands.
* :func:`cpu_threads` runs a CPU call on fewer threads when other processes keep the cores busy. torch's OpenMP
  threads meet at a barrier after every operation; on an oversubscribed machine each barrier waits for a thread
  the scheduler has put aside. On a 2-core machine with a load of 7-9, 300 SummEval pairs took 14-26 s on one
  thread and 47-50 s on two (bert-score: 20-31 s and 36-37 s).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

import torch

from ..errors import InvalidInputError, warn

__all__ = [
    "DTYPES",
    "attention_backends",
    "check_dtype",
    "cpu_threads",
    "devices_of",
    "fast_half_precision",
    "resolve_device",
]

DTYPES: dict[str, torch.dtype] = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}

_HINT = "use device='cpu' (CLI: --device cpu), or leave device unset to take a GPU only when there is one"


def _check_one(device: str) -> str:
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise InvalidInputError(
            f"device must be a torch device such as 'cpu', 'cuda' or 'cuda:1', got {device!r}"
        ) from None
    if dev.type == "cuda":
        if not torch.backends.cuda.is_built():
            raise InvalidInputError(
                f"device={device!r}, but this torch ({torch.__version__}) was built without CUDA: install a CUDA "
                f"build of torch, or {_HINT}"
            )
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise InvalidInputError(f"device={device!r}, but torch sees no CUDA GPU on this machine: {_HINT}")
        if dev.index is not None and dev.index >= count:
            raise InvalidInputError(
                f"device={device!r}, but torch sees {count} CUDA GPU(s) (cuda:0 to cuda:{count - 1}): {_HINT}"
            )
    elif dev.type != "cpu":
        backend = getattr(torch, dev.type, None) or getattr(torch.backends, dev.type, None)
        available = getattr(backend, "is_available", None)
        if callable(available) and not available():
            raise InvalidInputError(f"device={device!r}, but this torch cannot use {dev.type} here: {_HINT}")
    return device


def resolve_device(device: str | None) -> str:
    """``device``, or bert-score's default: ``"cuda"`` when a GPU is available, else ``"cpu"``. A device this torch
    cannot use (``cuda`` on a CPU-only build or a machine without a GPU, ``cuda:3`` with two GPUs, ``mps`` off a
    Mac) is an error that says so, before any model is loaded. ``"cuda:all"`` is every visible GPU, and a
    comma-separated list names several devices (``"cuda:0,cuda:1"``); both come back as that list."""
    if device is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    if not isinstance(device, str):
        raise InvalidInputError(f"device must be a string such as 'cpu', 'cuda' or 'cuda:1', got {device!r}")
    text = device.strip()
    if text == "cuda:all":
        _check_one("cuda")
        return ",".join(f"cuda:{i}" for i in range(torch.cuda.device_count()))
    parts = [p.strip() for p in text.split(",")]
    if len(parts) > 1 and any(not p for p in parts):
        raise InvalidInputError(f"device={device!r}: an empty name in the list of devices")
    for part in parts:
        _check_one(part)
    return ",".join(parts) if len(parts) > 1 else parts[0]


def devices_of(device: str) -> list[str]:
    """The devices of a resolved ``device`` string (one, or the members of a comma-separated list)."""
    return [p.strip() for p in device.split(",")]


def fast_half_precision(dtype: torch.dtype, device: torch.device) -> bool:
    """Whether ``dtype`` matrix products are fast on ``device``: always on an accelerator; on a CPU only with
    Intel AMX (and oneDNN not capped below it by ``ONEDNN_MAX_CPU_ISA``)."""
    if dtype == torch.float32 or device.type != "cpu":
        return True
    capped = os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper()
    if capped and "AMX" not in capped and capped != "ALL" and capped != "DEFAULT":
        return False
    cpu = getattr(torch, "cpu", None)
    probe = "_is_amx_fp16_supported" if dtype == torch.float16 else "_is_amx_tile_supported"
    check = getattr(cpu, probe, None)
    try:
        return bool(check()) if callable(check) else False
    except RuntimeError:  # pragma: no cover - probes that fail mean no
        return False


_WARNED: set[tuple[str, str]] = set()
_WARNED_LOCK = threading.Lock()


def check_dtype(dtype: str, device: str, *, what: str = "the model") -> None:
    """Warn, once per (dtype, device type), when ``dtype`` is a half precision that will not be faster than
    float32 where it runs: a CPU without AMX (the numbers are fine, only the time is)."""
    if dtype not in DTYPES:
        raise InvalidInputError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    dev = torch.device(devices_of(device)[0])
    if fast_half_precision(DTYPES[dtype], dev):
        return
    key = (dtype, dev.type)
    with _WARNED_LOCK:
        if key in _WARNED:
            return
        _WARNED.add(key)
    warn(
        f"dtype={dtype!r} on this CPU: it has no Intel AMX (or oneDNN is capped below it), so {dtype} matrix "
        f"products in {what} run no faster than float32, usually slower (1.6x slower on an AVX512-BF16 CPU); "
        "the numbers are correct, but dtype='float32' is the faster choice here"
    )


@contextlib.contextmanager
def attention_backends(device: torch.device) -> Iterator[None]:
    """Scaled-dot-product attention without cuDNN's kernels on CUDA (flash, memory-efficient, math: none of them
    builds a plan per shape); torch's own choice on any other device."""
    if device.type != "cuda":
        yield
        return
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
        yield


#: ``NLGMETRICS_CPU_THREADS``: ``auto`` (the default: fewer threads when the cores are busy), or a number.
THREADS_ENV = "NLGMETRICS_CPU_THREADS"
_THREADS_LOCK = threading.Lock()


def _busy_elsewhere() -> float:
    """How many cores other processes keep busy right now: the runnable tasks in ``/proc/loadavg`` (this thread
    included, hence the 1 taken off), the least of three readings a millisecond apart; 0 where it cannot be read."""
    readings = []
    for k in range(3):
        try:
            with open("/proc/loadavg", encoding="ascii") as fh:
                running = int(fh.read().split()[3].split("/")[0])
        except (OSError, ValueError, IndexError):
            return 0.0
        readings.append(running - 1)
        if k < 2:
            threading.Event().wait(0.001)
    return float(max(0, min(readings)))


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def threads_for_load(current: int) -> int:
    """How many of ``current`` torch threads to use now: all of them on an idle machine; as many as the cores
    other processes leave free (at least 1) when they keep some busy. ``NLGMETRICS_CPU_THREADS=N`` fixes it."""
    setting = os.environ.get(THREADS_ENV, "auto").strip().lower()
    if setting not in ("", "auto"):
        try:
            return max(1, int(setting))
        except ValueError:
            raise InvalidInputError(f"{THREADS_ENV} must be 'auto' or a number of threads, got {setting!r}") from None
    if current <= 1:
        return current
    free = _cpu_count() - _busy_elsewhere()
    return int(max(1, min(current, free)))


@contextlib.contextmanager
def cpu_threads(device: torch.device) -> Iterator[int]:
    """Run the block on :func:`threads_for_load` torch threads (on a CPU; elsewhere nothing changes), and give
    torch its thread count back after. Yields the threads used."""
    if device.type != "cpu":
        yield torch.get_num_threads()
        return
    with _THREADS_LOCK:
        before = torch.get_num_threads()
        use = threads_for_load(before)
        if use != before:
            torch.set_num_threads(use)
    try:
        yield use
    finally:
        if use != before:
            with _THREADS_LOCK:
                torch.set_num_threads(before)


def describe(device: str) -> dict[str, Any]:
    """What a benchmark reports about a device: its name and, on CUDA, the card."""
    dev = torch.device(devices_of(device)[0])
    out: dict[str, Any] = {"device": device}
    if dev.type == "cuda":
        out["name"] = torch.cuda.get_device_name(dev)
    return out
