"""Issue 23, concurrency: a fork taken while another thread was inside ``update()`` left the child waiting for
the instance lock forever (5 of 180 trials). ``os.register_at_fork`` now gives every instance a new lock in the
child."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

import nlgmetrics.stateful as st

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32", reason="needs os.fork")


def _child_result(pid: int, timeout: float = 20.0) -> int | None:
    """The child's exit status, or ``None`` (killed) when it is still running after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return None


@pytest.mark.parametrize("cls", [st.WordErrorRate, st.BLEU, st.NIST])
def test_a_fork_while_another_thread_holds_the_lock(cls):
    metric = cls()
    metric.update(["the cat sat"], [["the cat sat on the mat"]])
    held, release = threading.Event(), threading.Event()

    def hold():
        with metric._lock:  # what a thread inside update() holds
            held.set()
            release.wait(30)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert held.wait(10)
    try:
        pid = os.fork()
        if pid == 0:  # the child: its own update and compute must not wait for the parent's thread
            code = 1
            try:
                metric.update(["a dog"], [["a dog barks"]])
                code = 0 if metric.count == 2 and metric.compute() is not None else 3
            finally:
                os._exit(code)
        status = _child_result(pid)
    finally:
        release.set()
        thread.join(10)
    assert status == 0, "the child deadlocked on the instance lock" if status is None else f"child exit {status}"
    # the parent's instance keeps its own lock and state
    metric.update(["x"], [["x"]])
    assert metric.count == 2
