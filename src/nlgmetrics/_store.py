"""A cache directory that stores data, never code.

``nlgmetrics evaluate --cache DIR`` keeps per-segment statistics and tokenised references here. Everything in it
is numbers and text: each entry is one file holding numpy arrays in the ``.npy`` format (read back with
``allow_pickle=False``, so no object array and no pickle is ever loaded) and a JSON manifest. Nothing here ever
unpickles, imports or evaluates what it reads.

An entry file is::

    b"NLGMCACHE" + format byte
    records    [u64 raw length][u64 stored length][zlib-compressed .npy bytes], one per array
    manifest   UTF-8 JSON: format, kind, the full key, the library version, and per record its raw and stored
               lengths and a digest of its stored bytes (and its place), and the caller's metadata (segment
               counts, column layout)
    trailer    [u64 manifest offset][u64 manifest length][32-byte HMAC-SHA256 of the manifest] + b"NLGMEND\0"

The digests are HMAC-SHA256 under a secret key: ``$NLGMETRICS_CACHE_KEY`` when set (to share a cache between
users or machines), otherwise a random per-user key kept in ``DIR/.key-<uid>`` (mode 0600; a key file that is
not the user's own, that others can read or that is not a plain file is never used). Someone who can write into
the directory but cannot read that key cannot forge an entry: a planted, copied, truncated or edited file fails
verification. Every entry is verified before its numbers are used, and nothing is decompressed before it is: the
manifest's digest, key and version first, the records' lengths against the manifest (which must account for
every byte of the file) and against the caller's bound (what its inputs can produce), then each record's digest
over its compressed bytes, and only then is it decompressed, to exactly its declared length; then the caller's
own checks of shapes and counts. An entry that fails is reported with a warning and rebuilt; so is anything that
is not a regular file (a directory, a symbolic link, a FIFO) where an entry or the key file should be.

Writes go to a temporary file (``.tmp-<host>-<pid>-<random>.part``), created exclusively (never following a
link) and written through the descriptor of that one open, never reopened by name, then renamed into place once
complete, so a reader sees a whole entry or none; temporary files left by a killed run are removed by the next
run that opens the directory. With a per-user key, a new cache directory is created 0700 and entries 0600 (only
the user reads them); with ``$NLGMETRICS_CACHE_KEY`` they follow the umask, so that others sharing the key can
read them. The directory has a size budget: when it is exceeded, the least recently used entries (by
modification time, refreshed on every hit) are removed.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import io
import json
import os
import re
import secrets
import socket
import stat
import struct
import time
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from .errors import InvalidInputError

__all__ = ["DEFAULT_MAX_BYTES", "EntryError", "EntryWriter", "Store", "parse_size"]

FORMAT = 2
_MAGIC = b"NLGMCACHE" + bytes([FORMAT])
_END = b"NLGMEND\x00"
_REC = struct.Struct("<QQ")
_TRAILER = struct.Struct("<QQ32s8s")
_SUFFIX = ".nlgc"
#: Default size budget of a cache directory (``--cache-max-size``).
DEFAULT_MAX_BYTES = 8 << 30
#: A manifest larger than this is not read (a manifest holds a few numbers per chunk).
_MAX_MANIFEST = 64 << 20
#: The most entries one process writes at once (each holds its open temporary file); more wait for a later run.
MAX_OPEN_WRITERS = 128
#: The digest of a record, in hex digits (HMAC-SHA256, truncated).
_RECORD_DIGEST = 32
#: Temporary files of another host (or of a live process) are left alone for this long.
_STALE_SECONDS = 24 * 3600
_ALLOWED_KINDS = "biuf"  # bool, signed, unsigned, float: never object, string or structured arrays


class EntryError(Exception):
    """An entry failed verification (internal: the caller warns and rebuilds)."""


def parse_size(value: Any, option: str = "--cache-max-size") -> int:
    """``"500M"``, ``"2G"``, ``"1.5GB"``, ``"4096"`` or an int -> bytes (powers of 1024)."""
    if isinstance(value, bool):
        raise InvalidInputError(f"{option} must be a size such as 500M or 4G, got {value!r}")
    if isinstance(value, int):
        number, unit = float(value), ""
    else:
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", str(value))
        if m is None:
            raise InvalidInputError(f"{option} must be a size such as 500M or 4G, got {value!r}")
        number, unit = float(m.group(1)), m.group(2).upper()
    if not number * 1024 ** " KMGT".index(unit or " ") < 2**63:  # also inf, from more digits than a float holds
        raise InvalidInputError(f"{option} must be a size below 8E (2**63 bytes), got {value!r:.40}")
    size = int(number * 1024 ** " KMGT".index(unit or " "))
    if size <= 0:
        raise InvalidInputError(f"{option} must be larger than 0, got {value!r}")
    return size


def _digest_name(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", socket.gethostname())[:40] or "host"


class Store:
    """One cache directory. ``max_bytes`` is its size budget (``None``: :data:`DEFAULT_MAX_BYTES`)."""

    def __init__(self, root: str | os.PathLike[str], *, max_bytes: int | None = None, option: str = "--cache"):
        self.root = os.fspath(root)
        self.option = option
        self.max_bytes = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
        if os.path.lexists(self.root) and not os.path.isdir(self.root):
            raise InvalidInputError(f"{option} {self.root}: exists and is not a directory")
        self.shared = bool(os.environ.get("NLGMETRICS_CACHE_KEY"))
        try:
            os.makedirs(self.root, mode=0o777 if self.shared else 0o700, exist_ok=True)
        except OSError as err:
            raise InvalidInputError(
                f"{option} {self.root}: cannot create the cache directory ({err.strerror or err})"
            ) from None
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise InvalidInputError(f"{option} {self.root}: the cache directory is not writable")
        self._key = _secret(self.root)
        self._touched: set[str] = set()
        self.open_writers = 0  # entries being written (each holds its temporary file open)
        self._clean_temporaries()

    # ------------------------------------------------------------------ names
    def path(self, kind: str, key: str) -> str:
        return os.path.join(self.root, f"{kind}-{_digest_name(key)}{_SUFFIX}")

    def _mac(self, data: bytes = b"") -> hmac.HMAC:
        return hmac.new(self._key, data, digestmod=hashlib.sha256)

    @property
    def file_mode(self) -> int:
        """The mode entries are created with (before the umask): the user's alone, unless the key is shared."""
        return 0o666 if self.shared else 0o600

    # ------------------------------------------------------------------ reading
    def read(self, kind: str, key: str, *, max_record: int) -> Entry | None:
        """The entry stored under ``key``, with its manifest verified, or ``None`` when there is none. Raises
        :class:`EntryError` when something is there but fails verification (a file that is not an entry, or
        anything that is not a regular file). ``max_record`` bounds the size of one decompressed array (the
        caller knows how large its inputs let its arrays be): a record that claims more is refused before it is
        read."""
        path = self.path(kind, key)
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise EntryError("the entry is a symbolic link") from None
            raise EntryError(f"cannot open it ({err.strerror or err})") from None
        try:
            info = os.fstat(fd)  # before any read: a directory or a FIFO is refused, never opened as a file
            if not stat.S_ISREG(info.st_mode):
                raise EntryError(f"the entry is {_kind_of(info.st_mode)}, not a regular file")
            fh = os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise
        try:
            manifest, sizes = _read_manifest(fh, info.st_size, self._mac(), max_record)
            if manifest.get("format") != FORMAT or manifest.get("kind") != kind:
                raise EntryError("it has another format or kind")
            if manifest.get("key") != key:
                raise EntryError("it was stored under another key (a copied or renamed entry)")
            from ._version import __version__

            if manifest.get("library") != __version__:
                raise EntryError(f"it was written by nlgmetrics {manifest.get('library')}")
        except BaseException:
            fh.close()
            raise
        self._touched.add(path)
        with contextlib.suppress(OSError, NotImplementedError):
            os.utime(fh.fileno())  # least recently used: a hit refreshes the entry (the file opened, not a name)
        return Entry(fh, manifest, sizes, self._key)

    # ------------------------------------------------------------------ writing
    def writer(self, kind: str, key: str) -> EntryWriter:
        """A writer of the entry under ``key``. Raises :class:`OSError` when the directory cannot take it (or
        when :data:`MAX_OPEN_WRITERS` are open already)."""
        if self.open_writers >= MAX_OPEN_WRITERS:
            raise OSError(errno.EMFILE, f"{MAX_OPEN_WRITERS} cache entries are being written at once already")
        return EntryWriter(self, kind, key)

    def discard(self, kind: str, key: str) -> None:
        """Remove what is under ``key``'s name (an entry that failed verification, or something planted there:
        an empty directory is removed, another one renamed aside so that the entry can be written again)."""
        _remove_any(self.path(kind, key), self.root)

    # ------------------------------------------------------------------ housekeeping
    def _clean_temporaries(self) -> None:
        """Remove the temporary files of runs that were killed: those of a dead process on this host, and any
        older than a day."""
        host, now = _host(), time.time()
        try:
            names = os.listdir(self.root)
        except OSError:
            return
        for name in names:
            m = re.fullmatch(r"\.tmp-(.+)-(\d+)-[0-9a-f]+\.part", name)
            if m is None:
                continue
            path = os.path.join(self.root, name)
            try:
                age = now - os.lstat(path).st_mtime
            except OSError:
                continue
            dead = m.group(1) == host and not _pid_alive(int(m.group(2)))
            if dead or age > _STALE_SECONDS:
                with contextlib.suppress(OSError):
                    os.unlink(path)

    def entries(self) -> list[tuple[str, int, float]]:
        """``(path, size, mtime)`` of every entry file."""
        out: list[tuple[str, int, float]] = []
        try:
            names = os.listdir(self.root)
        except OSError:
            return out
        for name in names:
            if not name.endswith(_SUFFIX) or name.startswith("."):
                continue
            path = os.path.join(self.root, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                out.append((path, st.st_size, st.st_mtime))
        return out

    def evict(self) -> int:
        """Remove least recently used entries until the directory fits its budget; never an entry this store
        read or wrote. Returns the bytes left."""
        entries = sorted(self.entries(), key=lambda e: e[2])
        total = sum(size for _, size, _ in entries)
        for path, size, _ in entries:
            if total <= self.max_bytes:
                break
            if path in self._touched:
                continue
            with contextlib.suppress(OSError):
                os.unlink(path)
                total -= size
        return total


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _kind_of(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _remove_any(path: str, root: str) -> None:
    """Remove ``path`` whatever it is (never following a link); a directory that is not empty is renamed aside
    (``.damaged-*``: left for its owner to look at), so that the name is free."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISDIR(info.st_mode):
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    try:
        os.rmdir(path)
    except OSError:
        with contextlib.suppress(OSError):
            os.rename(path, os.path.join(root, f".damaged-{secrets.token_hex(6)}"))


class Entry:
    """A verified manifest and the records behind it. :meth:`arrays` yields the arrays in order, each verified
    against its digest before it is decompressed."""

    def __init__(self, fh: Any, manifest: dict[str, Any], sizes: list[tuple[int, int, str]], key: bytes) -> None:
        self._fh = fh
        self.manifest = manifest
        self.meta: dict[str, Any] = manifest.get("meta") or {}
        self._sizes = sizes
        self._key = key

    def arrays(self) -> Iterator[np.ndarray]:
        fh = self._fh
        try:
            fh.seek(len(_MAGIC))
            for index, (raw_len, stored_len, digest) in enumerate(self._sizes):
                yield _read_record(fh, index, raw_len, stored_len, digest, self._key)
        finally:
            fh.close()

    def close(self) -> None:
        self._fh.close()


def _record_digest(key: bytes, index: int, head: bytes, stored: bytes) -> str:
    """The digest of record ``index`` over its header and its *compressed* bytes (checked before inflating)."""
    mac = hmac.new(key, index.to_bytes(8, "little") + head, digestmod=hashlib.sha256)
    mac.update(stored)
    return mac.hexdigest()[:_RECORD_DIGEST]


def _read_manifest(fh: Any, size: int, mac: hmac.HMAC, max_record: int) -> tuple[dict[str, Any], list[Any]]:
    """The verified manifest and its record table ``[(raw length, stored length, digest), ...]``: the records
    fill the file exactly up to the manifest, and none claims more than ``max_record`` bytes."""
    if size < len(_MAGIC) + _TRAILER.size:
        raise EntryError("it is truncated")
    if fh.read(len(_MAGIC)) != _MAGIC:
        raise EntryError("it is not an nlgmetrics cache entry of this format")
    fh.seek(size - _TRAILER.size)
    offset, length, tag, end = _TRAILER.unpack(fh.read(_TRAILER.size))
    if end != _END or length > _MAX_MANIFEST or offset < len(_MAGIC) or offset + length != size - _TRAILER.size:
        raise EntryError("it is truncated or damaged")
    fh.seek(offset)
    raw = fh.read(length)
    mac.update(raw)
    if not hmac.compare_digest(mac.digest(), tag):
        raise EntryError("its manifest does not match its digest (written under another key, edited or forged)")
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise EntryError("its manifest is not valid JSON") from None
    if not isinstance(manifest, dict):
        raise EntryError("its manifest is not a JSON object")
    table = manifest.get("records")
    if not isinstance(table, list):
        raise EntryError("its manifest has no record table")
    sizes: list[tuple[int, int, str]] = []
    position = len(_MAGIC)
    for row in table:
        if (
            not isinstance(row, list)
            or len(row) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in row[:2])
            or not isinstance(row[2], str)
        ):
            raise EntryError("its record table is damaged")
        raw_len, stored_len = row[0], row[1]
        if raw_len > max_record:
            raise EntryError(f"a record claims {raw_len:,} bytes, more than its inputs can make ({max_record:,})")
        position += _REC.size + stored_len
        sizes.append((raw_len, stored_len, row[2]))
    if position != offset:
        raise EntryError("its records do not fill the file as its manifest says (truncated or padded)")
    return manifest, sizes


def _read_record(fh: Any, index: int, raw_len: int, stored_len: int, digest: str, key: bytes) -> np.ndarray:
    head = fh.read(_REC.size)
    if len(head) != _REC.size or _REC.unpack(head) != (raw_len, stored_len):
        raise EntryError("a record's lengths are not those of its manifest")
    stored = fh.read(stored_len)
    if len(stored) != stored_len:
        raise EntryError("it is truncated")
    if not hmac.compare_digest(_record_digest(key, index, head, stored), digest):
        raise EntryError("a record does not match its digest (edited or forged)")
    # authentic: inflate to exactly the declared length, never more
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(stored, raw_len)
    except zlib.error:
        raise EntryError("a record is not valid compressed data") from None
    if len(raw) != raw_len or not inflater.eof or inflater.unconsumed_tail:
        raise EntryError("a record does not have its declared size")
    return _parse_npy(raw)


def _parse_npy(raw: bytes) -> np.ndarray:
    """An array of numbers from ``.npy`` bytes, its header checked against their length before any allocation."""
    buf = io.BytesIO(raw)
    try:
        version = np.lib.format.read_magic(buf)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(buf)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(buf)
        else:
            raise ValueError(f"format version {version}")
    except (ValueError, OSError, EOFError, SyntaxError, TypeError) as err:
        raise EntryError(f"a record is not a numpy array ({err})") from None
    if dtype.kind not in _ALLOWED_KINDS or dtype.fields is not None or dtype.hasobject:
        raise EntryError(f"a record has dtype {dtype}, not numbers")
    count = 1
    for n in shape:
        count *= n
    if count * dtype.itemsize != len(raw) - buf.tell():
        raise EntryError("a record's array header does not match its data")
    data = np.frombuffer(raw, dtype=dtype, count=count, offset=buf.tell())
    return data.reshape(shape, order="F" if fortran else "C").copy()


class EntryWriter:
    """Writes one entry to a temporary file, record by record (nothing is held in memory), through the
    descriptor of its exclusive creation (never reopened by name), and renames it into place on
    :meth:`commit`. A writer that is never committed leaves nothing behind (:meth:`abort`)."""

    def __init__(self, store: Store, kind: str, key: str) -> None:
        self.store, self.kind, self.key = store, kind, key
        self.tmp = os.path.join(store.root, f".tmp-{_host()}-{os.getpid()}-{secrets.token_hex(6)}.part")
        self._records: list[list[Any]] = []
        self._done = False
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        fd = os.open(self.tmp, flags, store.file_mode)
        try:
            self._fh = os.fdopen(fd, "wb")
        except BaseException:
            os.close(fd)
            raise
        store.open_writers += 1
        try:
            self._fh.write(_MAGIC)
        except BaseException:
            self.abort()
            raise

    def add(self, array: np.ndarray, *, compact: bool = False) -> None:
        """Append one array (``compact``: integers in the smallest dtype that holds them, restored by the
        reader's ``astype``)."""
        array = np.ascontiguousarray(array)
        if array.dtype.kind not in _ALLOWED_KINDS:
            raise TypeError(f"the cache stores numbers only, not {array.dtype}")
        if compact and array.dtype.kind in "iu" and array.size:
            array = array.astype(_smallest_int(int(array.min()), int(array.max())), copy=False)
        buf = io.BytesIO()
        np.lib.format.write_array(buf, array, allow_pickle=False)
        raw = buf.getvalue()
        stored = zlib.compress(raw, 1)
        head = _REC.pack(len(raw), len(stored))
        digest = _record_digest(self.store._key, len(self._records), head, stored)
        self._fh.write(head)
        self._fh.write(stored)
        self._records.append([len(raw), len(stored), digest])

    def commit(self, meta: Mapping[str, Any]) -> None:
        from ._version import __version__

        manifest = {
            "format": FORMAT,
            "kind": self.kind,
            "key": self.key,
            "library": __version__,
            "records": self._records,
            "meta": dict(meta),
        }
        raw = json.dumps(manifest, ensure_ascii=True, sort_keys=True).encode("ascii")
        tag = hmac.new(self.store._key, raw, hashlib.sha256).digest()
        try:
            offset = self._fh.tell()
            self._fh.write(raw)
            self._fh.write(_TRAILER.pack(offset, len(raw), tag, _END))
            self._close()
            path = self.store.path(self.kind, self.key)
            try:
                os.replace(self.tmp, path)  # atomic: a reader sees the whole entry or none
            except OSError:
                # something that is not an entry holds the name (a planted directory): clear it, try once more
                _remove_any(path, self.store.root)
                os.replace(self.tmp, path)
            self._done = True
            self.store._touched.add(path)
        finally:
            if not self._done:
                self.abort()

    def _close(self) -> None:
        if not self._fh.closed:
            try:
                self._fh.close()
            finally:
                self.store.open_writers -= 1

    def abort(self) -> None:
        self._done = True
        with contextlib.suppress(OSError):
            self._close()
        with contextlib.suppress(OSError):
            os.unlink(self.tmp)


def _smallest_int(lo: int, hi: int) -> Any:
    for dtype in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32):
        info = np.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return dtype
    return np.int64


# ---------------------------------------------------------------------------------------------- the key
def _secret(root: str) -> bytes:
    """The HMAC key: ``$NLGMETRICS_CACHE_KEY``, or this user's key file in the cache directory (created on
    first use). A key file owned by someone else, readable by others or not a plain file is never used (one
    that is not a plain file is reported, and a new key file made beside it)."""
    shared = os.environ.get("NLGMETRICS_CACHE_KEY")
    if shared:
        return hashlib.sha256(b"nlgmetrics-cache-key|" + shared.encode("utf-8", "surrogatepass")).digest()
    uid = os.getuid() if hasattr(os, "getuid") else None
    base = ".key" if uid is None else f".key-{uid}"
    candidates = sorted(n for n in os.listdir(root) if n == base or re.fullmatch(re.escape(base) + r"-[0-9a-f]+", n))
    damaged = []
    for name in candidates:
        path = os.path.join(root, name)
        key = _read_key(path, uid)
        if key is not None:
            return key
        with contextlib.suppress(OSError):
            if not stat.S_ISREG(os.lstat(path).st_mode):
                damaged.append(path)
    if damaged:
        from .errors import warn

        warn(f"cache key file {damaged[0]} is not a regular file; using a new key (entries are rebuilt)")
        for path in damaged:  # out of the way, so that the next run finds the new key and says nothing
            _remove_any(path, root)
            if path == os.path.join(root, base) and not os.path.lexists(path):
                candidates.remove(base)
    name = base if base not in candidates else f"{base}-{secrets.token_hex(8)}"
    return _create_key(os.path.join(root, name), uid, os.path.join(root, base))


def _read_key(path: str, uid: int | None) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)  # before reading: a directory or a FIFO is never read
        if not stat.S_ISREG(st.st_mode):
            return None
        if uid is not None and (st.st_uid != uid or st.st_mode & 0o077):
            return None
        data = os.read(fd, 65)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) == 32 else None


def _create_key(path: str, uid: int | None, base: str | None = None) -> bytes:
    key = secrets.token_bytes(32)
    tmp = f"{path}.{secrets.token_hex(6)}.new"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        try:
            os.link(tmp, path)  # atomic and exclusive: two processes starting at once agree on one key
        except FileExistsError:
            existing = _read_key(path, uid)
            if existing is not None:
                return existing
            # the name is taken by something that is not a key (planted): a key under a name of its own
            base = base or path
            return _create_key(f"{base}-{secrets.token_hex(8)}", uid, base)
        except OSError:  # no hard links on this file system
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return key
