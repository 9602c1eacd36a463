"""A cache directory that stores data, never code.

``nlgmetrics evaluate --cache DIR`` keeps per-segment statistics and tokenised references here. Everything in it
is numbers and text: each entry is one file holding numpy arrays in the ``.npy`` format (read back with
``allow_pickle=False``, so no object array and no pickle is ever loaded) and a JSON manifest. Nothing here ever
unpickles, imports or evaluates what it reads.

An entry file is::

    b"NLGMCACHE" + format byte
    records    [u64 raw length][u64 stored length][zlib-compressed .npy bytes], one per array
    manifest   UTF-8 JSON: format, kind, the full key, the library version, the record count, a digest of the
               records (in order) and the caller's metadata (segment counts, column layout)
    trailer    [u64 manifest offset][u64 manifest length][32-byte HMAC-SHA256 of the manifest] + b"NLGMEND\\0"

Both digests are HMAC-SHA256 under a secret key: ``$NLGMETRICS_CACHE_KEY`` when set (to share a cache between
users or machines), otherwise a random per-user key kept in ``DIR/.key-<uid>`` (mode 0600; a key file that is
not the user's own or that others can read is never used). Someone who can write into the directory but cannot
read that key cannot forge an entry: a planted, copied, truncated or edited file fails verification. Every
entry is verified before its numbers are used (manifest digest, key, version, record count, payload digest, then
the caller's own checks of shapes and counts); one that fails is reported with a warning and rebuilt.

Writes go to a temporary file (``.tmp-<host>-<pid>-<random>.part``) renamed into place once complete, so a
reader sees a whole entry or none; temporary files left by a killed run are removed by the next run that opens
the directory. The directory has a size budget: when it is exceeded, the least recently used entries (by
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

FORMAT = 1
_MAGIC = b"NLGMCACHE" + bytes([FORMAT])
_END = b"NLGMEND\x00"
_REC = struct.Struct("<QQ")
_TRAILER = struct.Struct("<QQ32s8s")
_SUFFIX = ".nlgc"
#: Default size budget of a cache directory (``--cache-max-size``).
DEFAULT_MAX_BYTES = 8 << 30
#: A manifest larger than this is not read (a manifest holds a few numbers per chunk).
_MAX_MANIFEST = 64 << 20
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
        try:
            os.makedirs(self.root, exist_ok=True)
        except OSError as err:
            raise InvalidInputError(
                f"{option} {self.root}: cannot create the cache directory ({err.strerror or err})"
            ) from None
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise InvalidInputError(f"{option} {self.root}: the cache directory is not writable")
        self._key = _secret(self.root)
        self._touched: set[str] = set()
        self._clean_temporaries()

    # ------------------------------------------------------------------ names
    def path(self, kind: str, key: str) -> str:
        return os.path.join(self.root, f"{kind}-{_digest_name(key)}{_SUFFIX}")

    def _mac(self) -> hmac.HMAC:
        return hmac.new(self._key, digestmod=hashlib.sha256)

    # ------------------------------------------------------------------ reading
    def read(self, kind: str, key: str, *, max_record: int) -> Entry | None:
        """The entry stored under ``key``, with its manifest verified, or ``None`` when there is none. Raises
        :class:`EntryError` when a file is there but fails verification. ``max_record`` bounds the size of one
        decompressed array (the caller knows how large its arrays can be)."""
        path = self.path(kind, key)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            return None
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise EntryError("the entry is a symbolic link") from None
            raise EntryError(f"cannot open it ({err.strerror or err})") from None
        fh = os.fdopen(fd, "rb")
        try:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise EntryError("the entry is not a regular file")
            manifest, end = _read_manifest(fh, info.st_size, self._mac())
            if manifest.get("format") != FORMAT or manifest.get("kind") != kind:
                raise EntryError("it has another format or kind")
            if manifest.get("key") != key:
                raise EntryError("it was stored under another key (a copied or renamed entry)")
            from . import __version__

            if manifest.get("library") != __version__:
                raise EntryError(f"it was written by nlgmetrics {manifest.get('library')}")
        except BaseException:
            fh.close()
            raise
        self._touched.add(path)
        with contextlib.suppress(OSError):
            os.utime(path)  # least recently used: a hit refreshes the entry
        return Entry(fh, manifest, end, self._mac(), max_record)

    # ------------------------------------------------------------------ writing
    def writer(self, kind: str, key: str) -> EntryWriter:
        return EntryWriter(self, kind, key)

    def discard(self, kind: str, key: str) -> None:
        """Remove the entry under ``key`` (one that failed verification)."""
        with contextlib.suppress(OSError):
            os.unlink(self.path(kind, key))

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


class Entry:
    """A verified manifest and the records behind it. :meth:`arrays` yields the arrays in order and raises
    :class:`EntryError` at the end if the records do not match the manifest's digest: use the arrays only once
    the iteration has finished."""

    def __init__(self, fh: Any, manifest: dict[str, Any], end: int, mac: hmac.HMAC, max_record: int) -> None:
        self._fh = fh
        self.manifest = manifest
        self.meta: dict[str, Any] = manifest.get("meta") or {}
        self._end = end
        self._mac = mac
        self._max_record = max_record

    def arrays(self) -> Iterator[np.ndarray]:
        fh = self._fh
        try:
            fh.seek(len(_MAGIC))
            count = self.manifest.get("records")
            if not isinstance(count, int) or count < 0:
                raise EntryError("its manifest has no record count")
            for _ in range(count):
                yield _read_record(fh, self._end, self._max_record, self._mac)
            if fh.tell() != self._end:
                raise EntryError("it holds more records than its manifest lists")
            if not hmac.compare_digest(self._mac.hexdigest(), str(self.manifest.get("payload", ""))):
                raise EntryError("its records do not match their digest (edited or forged)")
        finally:
            fh.close()

    def close(self) -> None:
        self._fh.close()


def _read_manifest(fh: Any, size: int, mac: hmac.HMAC) -> tuple[dict[str, Any], int]:
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
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise EntryError("its manifest is not valid JSON") from None
    if not isinstance(manifest, dict):
        raise EntryError("its manifest is not a JSON object")
    return manifest, offset


def _read_record(fh: Any, end: int, max_record: int, mac: hmac.HMAC) -> np.ndarray:
    head = fh.read(_REC.size)
    if len(head) != _REC.size:
        raise EntryError("it is truncated")
    raw_len, stored_len = _REC.unpack(head)
    if raw_len > max_record or fh.tell() + stored_len > end:
        raise EntryError("a record is larger than any this cache writes")
    data = fh.read(stored_len)
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(data, raw_len + 1)
    except zlib.error:
        raise EntryError("a record is not valid compressed data") from None
    if len(raw) != raw_len or not inflater.eof:
        raise EntryError("a record does not have its declared size")
    mac.update(head)
    mac.update(raw)
    try:
        array = np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)
    except (ValueError, OSError, EOFError) as err:
        raise EntryError(f"a record is not a numpy array ({err})") from None
    if array.dtype.kind not in _ALLOWED_KINDS or array.dtype.fields is not None:
        raise EntryError(f"a record has dtype {array.dtype}, not numbers")
    return array


class EntryWriter:
    """Writes one entry to a temporary file, record by record (nothing is held in memory), and renames it into
    place on :meth:`commit`. A writer that is never committed leaves nothing behind (:meth:`abort`)."""

    def __init__(self, store: Store, kind: str, key: str) -> None:
        self.store, self.kind, self.key = store, kind, key
        self.tmp = os.path.join(store.root, f".tmp-{_host()}-{os.getpid()}-{secrets.token_hex(6)}.part")
        self._mac = store._mac()
        self._records = 0
        self._done = False
        with open(self.tmp, "xb") as fh:
            fh.write(_MAGIC)

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
        self._mac.update(head)
        self._mac.update(raw)
        with open(self.tmp, "ab") as fh:
            fh.write(head)
            fh.write(stored)
        self._records += 1

    def commit(self, meta: Mapping[str, Any]) -> None:
        from . import __version__

        manifest = {
            "format": FORMAT,
            "kind": self.kind,
            "key": self.key,
            "library": __version__,
            "records": self._records,
            "payload": self._mac.hexdigest(),
            "meta": dict(meta),
        }
        raw = json.dumps(manifest, ensure_ascii=True, sort_keys=True).encode("ascii")
        tag = hmac.new(self.store._key, raw, hashlib.sha256).digest()
        try:
            with open(self.tmp, "ab") as fh:
                offset = fh.tell()
                fh.write(raw)
                fh.write(_TRAILER.pack(offset, len(raw), tag, _END))
            path = self.store.path(self.kind, self.key)
            os.replace(self.tmp, path)  # atomic: a reader sees the whole entry or none
            self._done = True
            self.store._touched.add(path)
        finally:
            if not self._done:
                self.abort()

    def abort(self) -> None:
        self._done = True
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
    first use). A key file owned by someone else, readable by others or not a plain file is never used."""
    shared = os.environ.get("NLGMETRICS_CACHE_KEY")
    if shared:
        return hashlib.sha256(b"nlgmetrics-cache-key|" + shared.encode("utf-8", "surrogatepass")).digest()
    uid = os.getuid() if hasattr(os, "getuid") else None
    base = ".key" if uid is None else f".key-{uid}"
    candidates = sorted(n for n in os.listdir(root) if n == base or n.startswith(base + "-"))
    for name in candidates:
        key = _read_key(os.path.join(root, name), uid)
        if key is not None:
            return key
    name = base if base not in candidates else f"{base}-{secrets.token_hex(8)}"
    return _create_key(os.path.join(root, name), uid)


def _read_key(path: str, uid: int | None) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            return None
        if uid is not None and (st.st_uid != uid or st.st_mode & 0o077):
            return None
        data = fh.read(65)
    return data if len(data) == 32 else None


def _create_key(path: str, uid: int | None) -> bytes:
    key = secrets.token_bytes(32)
    tmp = f"{path}.{secrets.token_hex(6)}.new"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        try:
            os.link(tmp, path)  # atomic and exclusive: two processes starting at once agree on one key
        except FileExistsError:
            existing = _read_key(path, uid)
            if existing is None:
                raise
            return existing
        except OSError:  # no hard links on this file system
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return key
