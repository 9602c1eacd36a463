"""Regular expressions with a time limit, and Python's ``re`` semantics kept exactly.

A user's pattern (``extract=``, ``regexes_to_ignore=``) can backtrack for hours on one text: ``(a+)+$`` on 30
``a`` and a ``b``. :func:`timed_map` runs a pattern over texts and stops a text that runs beyond the cost limit
of :mod:`nlgmetrics.algorithms.guard` (30 s by default, the limit of one pair of a quadratic kernel), raising
:class:`RegexTimeoutError` with the pattern, the text and how to go ahead: ``NLGMETRICS_PAIR_LIMIT=off`` (or a
number of seconds) in the environment, or ``with nlgmetrics.algorithms.guard.pair_limit(None):`` in Python, which
lift every cost limit, this one included.

How: the patterns run in Python's own ``re``, because the references that nlgmetrics reproduces (lm-evaluation-
harness, Hugging Face ``evaluate``) use ``re``. The ``regex`` package's ``timeout=`` was not used: its ``\\w``,
``\\s`` and ``\\b`` follow other Unicode properties than ``re``'s (``"e\\u0301"`` is one ``\\w+`` there, two
pieces in ``re``), which would change the numbers. ``re`` checks for signals while it matches, so an interval
timer (``SIGALRM``) stops it. That needs the main thread of a POSIX process with the timer free; elsewhere (other
threads, Windows, a program that uses ``SIGALRM`` itself) the patterns run without a limit.
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from ..algorithms.guard import ENV, InputTooLongError, limit_seconds

__all__ = ["RegexTimeoutError", "can_limit", "limited", "timed_map"]

T = TypeVar("T")


class RegexTimeoutError(InputTooLongError):
    """A regular expression that ran beyond the time limit on one text."""


class _Expired(BaseException):
    """Raised by the timer's handler inside the matching; never leaves :func:`timed_map`."""


class _Clock:
    """The limit, and when the text being matched started (``inf`` between texts: nothing to stop)."""

    __slots__ = ("limit", "started")

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.started = math.inf


_ACTIVE: list[_Clock] = []


def _on_alarm(signum: int, frame: Any) -> None:
    if _ACTIVE and time.monotonic() - _ACTIVE[-1].started > _ACTIVE[-1].limit:
        raise _Expired


def can_limit() -> bool:
    """Whether a time limit can be enforced here: the main thread of a POSIX process whose interval timer and
    ``SIGALRM`` handler are free (or already ours)."""
    if _ACTIVE:
        return True
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return False
    return signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None) and signal.getitimer(signal.ITIMER_REAL) == (
        0.0,
        0.0,
    )


@contextlib.contextmanager
def limited() -> Iterator[None]:
    """Within the block, the :func:`timed_map` calls share one timer (arming it costs some microseconds: a call
    that runs several patterns arms it once). Outside any ``timed_map`` the timer stops nothing."""
    limit = limit_seconds()
    if limit is None or _ACTIVE or not can_limit():
        yield
        return
    clock = _Clock(limit)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    interval = min(1.0, max(0.005, limit / 8))
    _ACTIVE.append(clock)
    try:
        signal.setitimer(signal.ITIMER_REAL, interval, interval)
        yield
    finally:
        clock.started = math.inf  # a tick that arrives now finds nothing to stop
        signal.setitimer(signal.ITIMER_REAL, 0.0, 0.0)
        _ACTIVE.pop()
        signal.signal(signal.SIGALRM, previous)


#: Texts shorter than this run a linear-time pattern without the timer: at most milliseconds each.
LINEAR_UNTIMED = 100_000


def timed_map(
    function: Callable[[str], T],
    texts: Sequence[str],
    pattern: str,
    option: str,
    where: Callable[[int], str] = lambda i: f"text {i}",
    *,
    linear: bool = False,
) -> list[T]:
    """``[function(t) for t in texts]``, where ``function`` matches ``pattern`` (the option ``option``) in one
    text; a text that takes longer than the limit raises :class:`RegexTimeoutError` naming ``where(i)``.
    ``linear``: the pattern is known to run in time linear in the text (the ready-made ones), so texts shorter
    than :data:`LINEAR_UNTIMED` characters need no timer (the few microseconds of arming it are saved)."""
    if len(texts) == 0:
        return []
    if linear and max(map(len, texts)) < LINEAR_UNTIMED:
        return [function(t) for t in texts]
    if not _ACTIVE:
        if limit_seconds() is None or not can_limit():
            return [function(t) for t in texts]
        with limited():
            return _run(function, texts, _ACTIVE[-1], pattern, option, where)
    return _run(function, texts, _ACTIVE[-1], pattern, option, where)


def _run(
    function: Callable[[str], T],
    texts: Sequence[str],
    clock: _Clock,
    pattern: str,
    option: str,
    where: Callable[[int], str],
) -> list[T]:
    out: list[T] = []
    i = 0
    try:
        for i in range(len(texts)):
            clock.started = time.monotonic()
            out.append(function(texts[i]))
    except _Expired:
        clock.started = math.inf
        raise RegexTimeoutError(
            f"{where(i)}: the regular expression {option}={pattern!r} ran beyond the limit of {clock.limit:g} s on "
            f"this text ({len(texts[i]):,} characters) and was stopped: it backtracks too much (nested quantifiers "
            f"such as (a+)+ do). To let it run, set {ENV}=off (or a number of seconds) in the environment, or in "
            "Python wrap the call in `with nlgmetrics.algorithms.guard.pair_limit(None):`"
        ) from None
    clock.started = math.inf
    return out
