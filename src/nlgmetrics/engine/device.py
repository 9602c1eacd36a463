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
* :func:`cpu_threads` runs CPU work on fewer threads when other processes keep the cores busy, and follows the
  load between forward passes. torch's OpenMP threads meet at a barrier after every operation; on an
  oversubscribed machine each barrier waits for a thread the scheduler has put aside. On a 2-core machine with a
  load of 7-9, 300 SummEval pairs took 14-26 s on one thread and 47-50 s on two (bert-score: 20-31 s and 36-37 s);
  at a load of 3-4, 8.6-11 s on one thread and 14-21 s on two; on the idle machine 7.1 s on one and 4.1 s on two.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
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


_SDPA_LOCK = threading.Lock()


class _SdpaUsers:
    """How many blocks are inside :func:`attention_backends`, and the flag to give back when the last one leaves."""

    inside = 0
    restore = True


_SDPA_USERS = _SdpaUsers()


@contextlib.contextmanager
def attention_backends(device: torch.device) -> Iterator[None]:
    """Scaled-dot-product attention without cuDNN's kernels on CUDA (flash, memory-efficient, math: none of them
    builds a plan per shape); torch's own choice on any other device. The switch is torch's global flag, so blocks
    running at once in several threads (one per GPU) share it: the first sets it, the last one out restores it."""
    if device.type != "cuda":
        yield
        return
    backends = torch.backends.cuda
    with _SDPA_LOCK:
        if _SDPA_USERS.inside == 0:
            _SDPA_USERS.restore = backends.cudnn_sdp_enabled()
            backends.enable_cudnn_sdp(False)
        _SDPA_USERS.inside += 1
    try:
        yield
    finally:
        with _SDPA_LOCK:
            _SDPA_USERS.inside -= 1
            if _SDPA_USERS.inside == 0:
                backends.enable_cudnn_sdp(_SDPA_USERS.restore)


#: ``NLGMETRICS_CPU_THREADS``: ``auto`` (the default: fewer threads when the cores are busy), or a number.
THREADS_ENV = "NLGMETRICS_CPU_THREADS"
#: Below this many multiply-adds, a forward pass on a CPU runs on one thread (:class:`~nlgmetrics.engine.Runner`'s
#: ``work_per_token``): on a shared, loaded machine the threads of a small pass spend longer waiting for each
#: other than computing (a tiny encoder's 22 sequences: 1.3 s on 2 threads under load against 0.13 s on one).
SMALL_PASS_WORK = 3e8
_THREADS_LOCK = threading.Lock()


def _busy_elsewhere() -> float:
    """How many cores other processes keep busy right now: the runnable tasks in ``/proc/loadavg`` (this thread
    included, hence the 1 taken off), the median of three readings a millisecond apart (a passing process is not a
    load, a steady one is); 0 where it cannot be read. The first guess of a call, before :class:`_CpuMeter` has an
    interval to measure."""
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
    return float(max(0, sorted(readings)[1]))


class _CpuMeter:
    """The cores other processes used over the last interval: all CPUs' busy time (``/proc/stat``: user, nice,
    system, interrupts and time stolen by a hypervisor) minus this process's CPU time (``os.times``), over the wall
    time between two readings (at least 50 ms apart; a reading older than 10 s starts afresh), smoothed over the
    last few intervals. Its own threads, spinning at a barrier or not, are this process's time, so they never
    count as others."""

    def __init__(self) -> None:
        self.last: tuple[float, float, float] | None = None
        self.estimate: float | None = None
        self.lock = threading.Lock()
        try:
            self.tick = float(os.sysconf("SC_CLK_TCK"))
        except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
            self.tick = 100.0

    def _read(self) -> tuple[float, float, float] | None:
        try:
            with open("/proc/stat", encoding="ascii") as fh:
                fields = [int(v) for v in fh.readline().split()[1:9]]
        except (OSError, ValueError):
            return None
        busy = (fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]) / self.tick
        own = os.times()
        return time.monotonic(), busy, own[0] + own[1]

    def others(self) -> float | None:
        """Cores busy elsewhere (smoothed), or ``None`` while there is no interval to measure."""
        now = self._read()
        if now is None:
            return None
        with self.lock:
            last = self.last
            if last is None or now[0] - last[0] > 10.0:
                self.last, self.estimate = now, None
            elif now[0] - last[0] >= 0.05:
                wall = now[0] - last[0]
                seen = max(0.0, (now[1] - last[1]) - (now[2] - last[2])) / wall
                self.estimate = seen if self.estimate is None else 0.5 * self.estimate + 0.5 * seen
                self.last = now
            return self.estimate


_METER = _CpuMeter()


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def threads_for_load(current: int) -> int:
    """How many of ``current`` torch threads to use now: all of them on an idle machine; as many as the cores
    other processes leave free (at least 1) when they keep some busy (measured by :class:`_CpuMeter`, or at the
    start of a call from the runnable tasks). ``NLGMETRICS_CPU_THREADS=N`` fixes it."""
    setting = os.environ.get(THREADS_ENV, "auto").strip().lower()
    if setting not in ("", "auto"):
        try:
            return max(1, int(setting))
        except ValueError:
            raise InvalidInputError(f"{THREADS_ENV} must be 'auto' or a number of threads, got {setting!r}") from None
    if current <= 1:
        return current
    others = _METER.others()
    if others is None:
        others = _busy_elsewhere()
    free = math.floor(_cpu_count() - others + 0.5)
    return max(1, min(current, free))


class CpuThreads:
    """The torch threads of a block of CPU work: chosen when it starts and again at each :meth:`adjust` (between
    forward passes), given back to torch's setting when it ends."""

    def __init__(self, device: torch.device) -> None:
        self.active = device.type == "cpu"
        self.before = torch.get_num_threads()
        self.used = self.before

    def _set(self, at_most: int | None = None) -> None:
        use = threads_for_load(self.before)
        if at_most is not None:
            use = max(1, min(use, at_most))
        if use != self.used:
            with _THREADS_LOCK:
                torch.set_num_threads(use)
            self.used = use

    def __enter__(self) -> CpuThreads:
        if self.active:
            self._set()
        return self

    def adjust(self, at_most: int | None = None) -> None:
        """Measure the machine's load again and change the number of threads if it calls for it (to no more
        than ``at_most``: 1 for a small pass)."""
        if self.active:
            self._set(at_most)

    def __exit__(self, *exc: object) -> None:
        if self.active and self.used != self.before:
            with _THREADS_LOCK:
                torch.set_num_threads(self.before)
            self.used = self.before


def cpu_threads(device: torch.device) -> CpuThreads:
    """A context for CPU work on :func:`threads_for_load` torch threads (elsewhere nothing changes): torch gets
    its thread count back after; ``adjust()`` between forward passes follows a changing load."""
    return CpuThreads(device)


def describe(device: str) -> dict[str, Any]:
    """What a benchmark reports about a device: its name and, on CUDA, the card."""
    dev = torch.device(devices_of(device)[0])
    out: dict[str, Any] = {"device": device}
    if dev.type == "cuda":
        out["name"] = torch.cuda.get_device_name(dev)
    return out
