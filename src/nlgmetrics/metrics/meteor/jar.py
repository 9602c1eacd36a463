"""Running the ``meteor-1.5.jar`` that pycocoevalcap ships: one Java process in ``-stdio`` mode, reused.

pycocoevalcap 1.2 (``pycocoevalcap/meteor/meteor.py``) starts ``java -jar -Xmx2G meteor-1.5.jar - - -stdio -l en
-norm`` in the jar's folder, writes one ``SCORE ||| ref1 ||| ... ||| hyp`` line per image and reads back one line
of Meteor's sufficient statistics per image. nlgmetrics does the same, and nothing more: the statistics are all it
asks the jar for (the final score is computed from summed statistics in Python, see
:mod:`nlgmetrics.metrics.meteor.v15`).

The process:

* starts on first use (the JVM loads WordNet and the 60 MB paraphrase table: a few seconds of CPU, about 1.2 GB
  of memory under ``-Xmx2G``), then serves the later calls of the same Python process: one JVM per process and
  setting, one call at a time (a lock);
* is closed when it has been idle for :data:`IDLE_SECONDS`, when Python exits, or by :func:`close`: its input is
  closed, it is waited for, and killed if it does not end (no zombie is left);
* is never shared with a forked child: a child starts its own;
* is watched: when it answers nothing for ``timeout`` seconds, or dies, it is killed and the call raises
  :class:`~nlgmetrics.errors.ExternalToolError` with the end of its standard error.

Threads drain its standard output and standard error, so that neither pipe can fill and stall it however many
lines a call sends; the lines are written by another thread, so a stalled JVM cannot block the caller past the
timeout either.
"""

from __future__ import annotations

import atexit
import collections
import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...errors import ExternalToolError, MissingDependencyError

__all__ = ["IDLE_SECONDS", "JAR", "TIMEOUT", "MeteorProcess", "close", "jar_dir", "java", "run"]

JAR = "meteor-1.5.jar"
PARAPHRASE = os.path.join("data", "paraphrase-en.gz")
#: Close a JVM that has answered no call for this long (seconds; ``math.inf``: never); the next call starts a
#: new one.
IDLE_SECONDS = 120.0
#: Default seconds to wait for the JVM's next line (its first one includes loading the paraphrase table).
TIMEOUT = 600.0
#: The extra that installs the jar.
EXTRA = "pip install 'nlgmetrics[coco-meteor]'"
_WHAT = "METEOR 1.5 (the meteor-1.5.jar of pycocoevalcap)"


_FOUND: dict[str, Any] = {}


def jar_dir() -> Path:
    """The folder of pycocoevalcap's ``meteor-1.5.jar`` (found without importing pycocoevalcap)."""
    found = _FOUND.get("jar")
    if found is not None:
        return found  # type: ignore[no-any-return]
    from ..._files import package_path

    jar = package_path("pycocoevalcap", "meteor", JAR, want=Path.is_file)
    if jar is None:
        raise MissingDependencyError(_WHAT, EXTRA)
    folder = jar.parent
    if not (folder / PARAPHRASE).is_file():
        missing = f"{_WHAT}: {PARAPHRASE} is missing from the pycocoevalcap installation, so it"
        raise MissingDependencyError(missing, EXTRA)
    _FOUND["jar"] = folder
    return folder


def java() -> str:
    """The ``java`` executable on the PATH."""
    key = ("java", os.environ.get("PATH"))
    found = _FOUND.get("java")
    if found is not None and found[0] == key:
        return found[1]  # type: ignore[no-any-return]
    path = shutil.which("java")
    if path is None:
        raise MissingDependencyError(
            f"{_WHAT} runs in Java, which is not on the PATH; it",
            "a Java runtime, 8 or later (e.g. apt-get install default-jre-headless, brew install openjdk), "
            "with `java` on the PATH",
        )
    _FOUND["java"] = (key, path)
    return path


def command(normalize: bool) -> list[str]:
    """pycocoevalcap's command line (``-norm`` when ``normalize``)."""
    return [java(), "-jar", "-Xmx2G", JAR, "-", "-", "-stdio", "-l", "en", *(["-norm"] if normalize else [])]


class MeteorProcess:
    """One ``meteor-1.5.jar -stdio`` process: :meth:`ask` sends lines and returns one answer line per line."""

    def __init__(self, cmd: Sequence[str], cwd: Path) -> None:
        self.cmd = list(cmd)
        self.owner = os.getpid()
        try:
            self.proc = subprocess.Popen(
                self.cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except OSError as err:
            raise ExternalToolError(f"could not start {JAR} ({' '.join(self.cmd[:3])} ...): {err}") from None
        self._lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._stderr: collections.deque[bytes] = collections.deque(maxlen=40)
        self._readers = [
            threading.Thread(target=self._read_stdout, name="meteor-jar-stdout", daemon=True),
            threading.Thread(target=self._read_stderr, name="meteor-jar-stderr", daemon=True),
        ]
        for t in self._readers:
            t.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)  # end of output: the process has ended

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._stderr.append(line)

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.proc.poll() is None

    def stderr_tail(self) -> str:
        text = b"".join(self._stderr).decode("utf-8", "replace").strip()
        return text[-3000:]

    def _failure(self, what: str) -> ExternalToolError:
        self.kill()
        for t in self._readers:
            t.join(timeout=2)
        tail = self.stderr_tail()
        code = self.proc.returncode
        status = f" (exit status {code})" if code is not None else ""
        detail = f"; its standard error ends with:\n{tail}" if tail else "; it wrote nothing to standard error"
        return ExternalToolError(f"{JAR} {what}{status}{detail}")

    def ask(self, lines: Sequence[bytes], timeout: float) -> list[str]:
        """Write ``lines`` (each ending in a newline) and return the process's answer to each."""
        failed: list[BaseException] = []

        def write() -> None:
            stdin = self.proc.stdin
            assert stdin is not None
            try:
                # in pieces: the JVM reads while we write, and the stdout thread drains its answers
                for lo in range(0, len(lines), 256):
                    stdin.write(b"".join(lines[lo : lo + 256]))
                stdin.flush()
            except (BrokenPipeError, OSError, ValueError) as err:  # it died, or was killed by a timeout
                failed.append(err)

        writer = None
        if sum(map(len, lines)) < 16384:
            # the JVM has read everything it was sent (every earlier line was answered): a small write fits in
            # the pipe's buffer and cannot block, so it needs no thread
            write()
        else:
            writer = threading.Thread(target=write, name="meteor-jar-stdin", daemon=True)
            writer.start()
        out: list[str] = []
        for i in range(len(lines)):
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise self._failure(
                    f"gave no answer for {timeout:g} s (segment {i} of {len(lines)}); it was stopped"
                ) from None
            if line is None:
                self.proc.wait()
                raise self._failure(f"ended unexpectedly while scoring segment {i} of {len(lines)}")
            out.append(line.decode("utf-8", "replace").strip())
        if writer is not None:
            writer.join(timeout=timeout)
        if failed:
            raise self._failure(f"stopped reading its input ({failed[0]})")
        return out

    def kill(self) -> None:
        if self.owner != os.getpid() or self.proc.poll() is not None:
            return
        self.proc.kill()
        self.proc.wait()

    def close(self, wait: float = 10.0) -> None:
        """End the process: close its input (the jar then exits), wait, kill it if it is still running."""
        if self.owner != os.getpid():  # a forked child never touches its parent's JVM
            return
        try:
            if self.proc.stdin is not None and not self.proc.stdin.closed:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for t in self._readers:
            t.join(timeout=2)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


_LOCK = threading.RLock()


def _new_lock_in_child() -> None:  # a lock held by another thread at a fork would never be released in the child
    global _LOCK
    _LOCK = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)
_RUNNING: dict[tuple[str, ...], MeteorProcess] = {}
_LAST_USED: dict[tuple[str, ...], float] = {}
#: the thread that closes idle JVMs, and the process it belongs to (a forked child starts its own)
_REAPER: dict[str, Any] = {"thread": None, "pid": None}


def run(lines: Sequence[bytes], *, normalize: bool = True, timeout: float = TIMEOUT) -> list[str]:
    """Send ``lines`` to the shared JVM (started if needed) and return its answers, one per line."""
    cwd = jar_dir()
    cmd = command(normalize)
    key = tuple(cmd)
    with _LOCK:
        proc = _RUNNING.get(key)
        if proc is None or not proc.alive():
            if proc is not None and proc.owner == os.getpid():
                proc.close(wait=0)
            proc = _RUNNING[key] = MeteorProcess(cmd, cwd)
        try:
            answers = proc.ask(lines, timeout)
        except BaseException:
            _RUNNING.pop(key, None)
            proc.kill()
            raise
        _LAST_USED[key] = time.monotonic()
        reaper = _REAPER["thread"]
        if reaper is None or _REAPER["pid"] != os.getpid() or not reaper.is_alive():
            reaper = threading.Thread(target=_reap, name="meteor-jar-idle", daemon=True)
            _REAPER.update(thread=reaper, pid=os.getpid())
            reaper.start()
        return answers


def _reap() -> None:
    """Close the JVMs idle for :data:`IDLE_SECONDS` (one thread per process, ending with the last JVM)."""
    while True:
        time.sleep(max(0.05, min(IDLE_SECONDS / 4, 5.0)))
        with _LOCK:
            now = time.monotonic()
            for key, proc in list(_RUNNING.items()):
                if now - _LAST_USED.get(key, now) >= IDLE_SECONDS:
                    del _RUNNING[key]
                    proc.close()
            if not _RUNNING:
                _REAPER.update(thread=None, pid=None)
                return


def close() -> None:
    """Close every METEOR 1.5 JVM this process started (the next call starts a new one)."""
    with _LOCK:
        procs = list(_RUNNING.values())
        _RUNNING.clear()
    for proc in procs:
        proc.close()


def running() -> list[Any]:
    """The running JVMs' ``subprocess.Popen`` objects (for tests and diagnostics)."""
    with _LOCK:
        return [p.proc for p in _RUNNING.values() if p.alive()]


atexit.register(close)
