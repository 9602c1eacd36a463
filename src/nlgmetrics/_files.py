"""The one way input files are found, opened and decoded: every CLI command and ``evaluate`` use it.

* **Resolution.** A path names a readable regular file, a pipe or FIFO (``<(...)``, ``mkfifo``), or ``-`` for
  standard input. Anything else is an error naming the option and the path: a path that does not exist (a
  typo), a directory, a character device such as ``/dev/null``, a socket, an unreadable file. A path is never
  taken for the text itself: literal text reaches the library only through an explicit Python argument
  (``evaluate(Texts([...]), ...)``, or a list of strings to the metric functions).
* **Decoding.** UTF-8, strictly; one leading byte-order mark is dropped. Lines are split on ``"\\n"`` only; a
  ``"\\r"`` right before it is dropped (CRLF files); a final newline does not start an extra segment; empty lines
  are real, empty segments. Invalid UTF-8 is an error naming the file, the line and the byte offset.
* **Streams** (standard input, pipes, FIFOs) can be read once only: :func:`spool` copies one to a temporary
  file, which can then be read as often as needed (``evaluate`` reads its inputs more than once: digests for the
  cache, the scores, the report's worst segments).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from .errors import InvalidInputError

__all__ = [
    "STDIN",
    "InputFileError",
    "check_input",
    "check_output",
    "decode_utf8",
    "display_name",
    "is_stream",
    "iter_lines",
    "package_path",
    "parse_json",
    "read_bytes",
    "read_text",
    "spool",
    "utf8_safe",
    "write_output_file",
    "write_text",
]

STDIN = "-"
_BOM = b"\xef\xbb\xbf"
_SURROGATE = re.compile("[\ud800-\udfff]")
_BLOCK = 1 << 20


class InputFileError(InvalidInputError):
    """A problem with an input file; the message is one line, naming the file (and the line when there is one)."""


def display_name(path: str) -> str:
    return "<stdin>" if path == STDIN else path


def _kind(mode: int) -> str | None:
    """Why a file of this mode cannot be read as text (``None`` when it can)."""
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return None
    if stat.S_ISDIR(mode):
        return "Is a directory"
    if stat.S_ISCHR(mode):
        return "not a regular file (a character device, such as /dev/null or a terminal)"
    if stat.S_ISBLK(mode):
        return "not a regular file (a block device)"
    if stat.S_ISSOCK(mode):
        return "not a regular file (a socket)"
    return "not a regular file"


def check_input(path: str | os.PathLike[str], option: str) -> str:
    """``path`` as a string once it names something readable (see the module docstring); otherwise raise
    :class:`InputFileError` naming ``option`` and the path."""
    name = os.fspath(path)
    if name == STDIN:
        return name
    where = f"{option} {name}" if option else name
    try:
        info = os.stat(name)
    except FileNotFoundError:
        reason = "a broken symbolic link" if os.path.lexists(name) else "No such file or directory"
        raise InputFileError(f"cannot read {where}: {reason}") from None
    except OSError as err:
        raise InputFileError(f"cannot read {where}: {err.strerror or err}") from None
    why = _kind(info.st_mode)
    if why is not None:
        raise InputFileError(f"cannot read {where}: {why}")
    if stat.S_ISREG(info.st_mode) and not os.access(name, os.R_OK):
        raise InputFileError(f"cannot read {where}: Permission denied")
    return name


def is_stream(path: str) -> bool:
    """Whether ``path`` (already checked) can be read only once: standard input, a pipe or a FIFO."""
    if path == STDIN:
        return True
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def _open(path: str, option: str) -> IO[bytes]:
    if path == STDIN:
        return os.fdopen(os.dup(sys.stdin.fileno()), "rb") if _has_fileno() else _StdinBuffer()  # type: ignore[return-value]
    check_input(path, option)
    try:
        return open(path, "rb")
    except OSError as err:
        raise InputFileError(f"cannot read {option} {path}: {err.strerror or err}") from None


def _has_fileno() -> bool:
    try:
        sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


class _StdinBuffer:
    """``sys.stdin.buffer`` (a replaced stdin without a file descriptor), not closed with the reader."""

    def __init__(self) -> None:
        self._fh = sys.stdin.buffer

    def read(self, n: int = -1) -> bytes:
        return self._fh.read(n)

    def close(self) -> None:
        pass

    def __enter__(self) -> _StdinBuffer:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def read_bytes(path: str, option: str) -> bytes:
    """The whole content of ``path`` (``-``: standard input)."""
    with _open(path, option) as fh:
        return fh.read()


def decode_utf8(data: bytes, name: str, *, offset: int = 0, first_line: int = 1, start: bool = True) -> str:
    """Decode strictly (one leading byte-order mark dropped when ``start``); on failure name the line, the byte
    offset in the file and the offending byte. ``offset``/``first_line``: where ``data`` starts in the file."""
    if start and data.startswith(_BOM):
        data, offset = data[len(_BOM) :], offset + len(_BOM)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = first_line + data.count(b"\n", 0, e.start)
        line_start = data.rfind(b"\n", 0, e.start) + 1
        raise InputFileError(
            f"{name}:{line}: invalid UTF-8 at byte offset {offset + e.start} (byte {e.start - line_start} of the "
            f"line, 0x{data[e.start]:02x}): the file must be UTF-8 encoded"
        ) from None


def read_text(path: str, option: str) -> str:
    """The whole file as ``str`` (strict UTF-8, byte-order mark dropped)."""
    return decode_utf8(read_bytes(path, option), display_name(path))


def iter_lines(path: str, option: str, name: str | None = None) -> Iterator[str]:
    """The lines of ``path``, streamed in large blocks (memory does not grow with the file), decoded and split as
    the module docstring says. ``name`` is how errors name the file (default: the path)."""
    name = name or display_name(path)
    fh = _open(path, option)
    try:
        carry = b""
        offset = 0  # file offset of carry[0]
        line = 1  # line number of carry's first line
        first = True
        while True:
            block = fh.read(_BLOCK)
            if not block:
                break
            data = carry + block
            cut = data.rfind(b"\n") + 1
            if not cut:
                carry = data
                continue
            complete, carry = data[:cut], data[cut:]
            text = decode_utf8(complete, name, offset=offset, first_line=line, start=first)
            first = False
            parts = text.split("\n")
            parts.pop()  # empty: the text ends with "\n"
            for p in parts:
                yield p[:-1] if p.endswith("\r") else p
            offset += cut
            line += len(parts)
        if carry:
            last = decode_utf8(carry, name, offset=offset, first_line=line, start=first)
            if last:  # empty only for a file that is a byte-order mark and nothing else
                yield last
    finally:
        fh.close()


def parse_json(
    text: str,
    name: str,
    *,
    at_line: str | None = None,
    error: type[InvalidInputError] = InputFileError,
    invalid: str = "invalid JSON at column {colno}: {msg}",
    too_deep: str = "the JSON is nested too deeply to read",
) -> Any:
    """``json.loads(text)``; every way it fails is an ``error`` whose message starts with ``name``: invalid JSON
    (``invalid``, filled with the column and the parser's message; named ``at_line:LINE`` instead when the text
    is a whole file named ``at_line``), JSON nested too deeply for the parser (``too_deep``) and a number too long
    to convert. Never a traceback."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        where = name if at_line is None else f"{at_line}:{e.lineno}"
        raise error(f"{where}: " + invalid.format(colno=e.colno, msg=e.msg)) from None
    except RecursionError:
        raise error(f"{name}: {too_deep}") from None
    except ValueError as e:  # e.g. an integer of more than 4300 digits
        raise error(f"{name}: cannot read the JSON: {e}") from None


def package_path(package: str, *parts: str, want: Callable[[Path], bool] = Path.exists) -> Path | None:
    """``parts`` inside an installed ``package`` (the first of its folders where ``want`` holds of it), found
    without importing the package; ``None`` when it is not installed or holds no such path."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location).joinpath(*parts)
        if want(path):
            return path
    return None


def spool(path: str, option: str, directory: str | None = None) -> str:
    """Copy a stream (standard input, a pipe, a FIFO) to a new temporary file and return its path; the caller
    removes it. Copies left behind by a killed process are removed here, by the next one."""
    _clean_spools(directory or tempfile.gettempdir())
    fd, tmp = tempfile.mkstemp(prefix=f"nlgmetrics-spool-{os.getpid()}-", suffix=".part", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out, _open(path, option) as src:
            shutil.copyfileobj(src, out, _BLOCK)  # type: ignore[misc]
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def _clean_spools(directory: str) -> None:
    try:
        names = [n for n in os.listdir(directory) if n.startswith("nlgmetrics-spool-") and n.endswith(".part")]
    except OSError:
        return
    for name in names:
        m = re.match(r"nlgmetrics-spool-(\d+)-", name)
        if m is None or _alive(int(m.group(1))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(directory, name))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


# ---------------------------------------------------------------------------------------------- outputs
def check_output(
    path: str | os.PathLike[str], option: str, inputs: Sequence[tuple[str, Any]] = (), outputs: Sequence[Any] = ()
) -> str:
    """``path`` as a string once a file can be written there (checked before any work is done); otherwise raise
    :class:`InputFileError` naming ``option`` and the path. ``inputs`` are the run's inputs as ``(option, path)``
    pairs, ``outputs`` its other outputs: an output that is one of them (the same file, by device and inode,
    through any link) is refused, so a run never overwrites what it reads."""
    name = os.fspath(path)
    if os.path.isdir(name):
        raise InputFileError(f"cannot write {option} {name}: Is a directory")
    # where the file will be: through a link (a dangling one too) to its target
    target = os.path.realpath(name) if os.path.islink(name) else name
    parent = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(parent):
        missing = "No such directory" if not os.path.lexists(parent) else "Not a directory"
        raise InputFileError(f"cannot write {option} {name}: {missing}: {os.path.dirname(target) or parent}")
    if not os.path.exists(name) and not os.access(parent, os.W_OK | os.X_OK):
        raise InputFileError(f"cannot write {option} {name}: Permission denied")
    exists = os.path.exists(name)
    if exists and not os.access(name, os.W_OK):
        raise InputFileError(f"cannot write {option} {name}: Permission denied")
    for what, other in [*inputs, *((None, o) for o in outputs)]:
        if other is None or not isinstance(other, (str, os.PathLike)) or os.fspath(other) == STDIN:
            continue
        try:  # the same file by device and inode, or (not made yet) the same resolved path
            same = os.path.samefile(name, other) if exists else os.path.realpath(name) == os.path.realpath(other)
        except (OSError, ValueError):
            continue
        if same and what is None:
            raise InputFileError(f"cannot write {option} {name}: another output of this run is the same file")
        if same:
            raise InputFileError(
                f"cannot write {option} {name}: it is the input {what} {os.fspath(other)} (it would be overwritten)"
            )
    return name


def write_output_file(path: str | os.PathLike[str], option: str, write: Callable[[str], None]) -> None:
    """Run ``write(path)`` (a writer that opens ``path`` itself), naming ``option`` and the path in the error
    of a failed write instead of a traceback."""
    name = os.fspath(path)
    try:
        write(name)
    except OSError as err:
        raise InputFileError(f"cannot write {option} {name}: {err.strerror or err}") from None


def utf8_safe(text: str) -> str:
    """``text`` with every lone surrogate (which UTF-8 cannot hold) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def write_text(path: str | os.PathLike[str], text: str, option: str) -> None:
    """Write ``text`` (UTF-8; lone surrogates as U+FFFD) to ``path`` as a program is expected to: a regular file
    (through a symbolic link, its target) is replaced atomically, a temporary file in its directory renamed into
    place with the old file's permissions, so it is never left empty or half written; anything else (a FIFO, a
    device such as ``/dev/stdout``) is opened and written, never replaced by a regular file."""
    name = check_output(path, option)
    data = utf8_safe(text).encode("utf-8")
    try:
        info: os.stat_result | None = os.stat(name)
    except OSError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        try:
            with open(name, "wb") as fh:
                fh.write(data)
        except OSError as err:
            raise InputFileError(f"cannot write {option} {name}: {err.strerror or err}") from None
        return
    target = os.path.realpath(name) if os.path.islink(name) else name
    directory = os.path.dirname(os.path.abspath(target))
    tmp = os.path.join(directory, f".{os.path.basename(target)}.{os.getpid()}-{secrets.token_hex(4)}.part")
    try:
        # created like any new file (mode 0666 less the umask), unlike mkstemp's 0600; an existing file keeps its
        # permissions
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if info is not None:
                with contextlib.suppress(OSError, AttributeError):  # (no fchmod on Windows)
                    os.fchmod(fh.fileno(), stat.S_IMODE(info.st_mode))
        os.replace(tmp, target)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise InputFileError(f"cannot write {option} {name}: {err.strerror or err}") from None
        raise
