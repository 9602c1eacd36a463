"""Issue 23, security 1-3, and the fuzz of the cache entry reader: the writer keeps the descriptor of its
exclusive open (a temporary file swapped for a symbolic link changes nothing outside the cache), entries are the
user's alone, every record is checked against the manifest and its digest before it is decompressed (no bomb),
and anything that is not a regular file where an entry or the key should be is warned about and rebuilt."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import struct
import warnings
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlgmetrics import _store
from nlgmetrics._store import EntryError, Store
from nlgmetrics.evaluate import Texts, evaluate

REFS = [f"the quick brown fox {i} jumps over the lazy dog" for i in range(30)]
SYS = [f"the quick brown fox {i} jumped over a lazy dog" for i in range(30)]


def run(cache):
    ev = evaluate(Texts(REFS), {"a": SYS}, ["bleu", "nls"], bootstrap=0, test=None, cache_dir=str(cache), chunk_size=8)
    return {m: ev.scores[m]["a"].score for m in ev.scores}


def quiet_run(cache):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return run(cache)


@pytest.fixture(scope="module")
def truth():
    return run_uncached()


def run_uncached():
    ev = evaluate(Texts(REFS), {"a": SYS}, ["bleu", "nls"], bootstrap=0, test=None, chunk_size=8)
    return {m: ev.scores[m]["a"].score for m in ev.scores}


def stats_entries(cache):
    return sorted(p for p in cache.iterdir() if p.name.startswith("stats-"))


def test_a_temporary_file_swapped_for_a_link_writes_nothing_outside(tmp_path):
    store = Store(tmp_path / "cache")
    victim = tmp_path / "victim.txt"
    victim.write_text("x" * 43)
    writer = store.writer("stats", "k")
    writer.add(np.arange(10))
    os.unlink(writer.tmp)
    os.symlink(victim, writer.tmp)
    writer.add(np.arange(100_000))
    writer.commit({})
    assert victim.read_text() == "x" * 43
    # what was renamed into place is the link, which the reader refuses
    with pytest.raises(EntryError, match="symbolic link"):
        store.read("stats", "k", max_record=1 << 20)


def test_private_modes(tmp_path, monkeypatch):
    monkeypatch.delenv("NLGMETRICS_CACHE_KEY", raising=False)
    cache = tmp_path / "cache"
    quiet_run(cache)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    for entry in cache.iterdir():
        assert stat.S_IMODE(entry.stat().st_mode) == 0o600, entry.name


def test_shared_key_entries_follow_the_umask(tmp_path, monkeypatch):
    monkeypatch.setenv("NLGMETRICS_CACHE_KEY", "team secret")
    old = os.umask(0o022)
    try:
        quiet_run(tmp_path / "cache")
    finally:
        os.umask(old)
    assert {stat.S_IMODE(p.stat().st_mode) for p in stats_entries(tmp_path / "cache")} == {0o644}


@pytest.mark.parametrize("plant", ["directory", "full directory", "fifo", "symlink"])
def test_something_planted_at_an_entry_name_is_rebuilt(tmp_path, truth, plant):
    cache = tmp_path / "cache"
    quiet_run(cache)
    for path in stats_entries(cache):
        path.unlink()
        if plant == "directory":
            path.mkdir()
        elif plant == "full directory":
            path.mkdir()
            (path / "inside").write_text("x")
        elif plant == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to(tmp_path / "elsewhere")
    with pytest.warns(UserWarning, match="failed verification"):
        assert run(cache) == truth
    assert quiet_run(cache) == truth  # rebuilt: the next run is quiet
    assert all(p.is_file() and not p.is_symlink() for p in stats_entries(cache))


@pytest.mark.parametrize("plant", ["directory", "fifo"])
def test_something_planted_as_the_key_file_is_replaced(tmp_path, truth, plant):
    cache = tmp_path / "cache"
    cache.mkdir()
    key = cache / f".key-{os.getuid()}"
    key.mkdir() if plant == "directory" else os.mkfifo(key)
    with pytest.warns(UserWarning, match="not a regular file"):
        assert run(cache) == truth
    assert quiet_run(cache) == truth


def _entry_bytes(store, key, arrays):
    writer = store.writer("stats", key)
    for a in arrays:
        writer.add(a)
    writer.commit({"n": len(arrays)})
    with open(store.path("stats", key), "rb") as fh:
        return fh.read()


def _sign(store, manifest):
    raw = json.dumps(manifest, ensure_ascii=True, sort_keys=True).encode("ascii")
    return raw, hmac.new(store._key, raw, hashlib.sha256).digest()


def test_a_forged_record_is_never_decompressed(tmp_path, monkeypatch):
    """A valid signed manifest with forged records (a bomb of the declared length): refused on the digest."""
    store = Store(tmp_path / "cache")
    size = 1 << 20
    _entry_bytes(store, "k", [np.zeros(size // 8)])
    path = store.path("stats", "k")
    with open(path, "rb") as fh:
        data = fh.read()
    raw_len, stored_len = struct.unpack("<QQ", data[10:26])
    bomb = zlib.compress(b"\0" * raw_len, 9)[:stored_len].ljust(stored_len, b"\0")
    with open(path, "r+b") as fh:
        fh.seek(26)
        fh.write(bomb)
    calls = []
    real = zlib.decompressobj
    monkeypatch.setattr(_store.zlib, "decompressobj", lambda *a: calls.append(1) or real(*a))
    entry = store.read("stats", "k", max_record=size + 4096)
    with pytest.raises(EntryError, match="does not match its digest"):
        list(entry.arrays())
    assert calls == []


def test_a_record_claiming_more_than_the_inputs_make_is_refused_unread(tmp_path):
    """Even under the right key (a manifest signed with it), a 16 GiB claim is refused by the input bound."""
    store = Store(tmp_path / "cache")
    data = _entry_bytes(store, "k", [np.arange(10)])
    offset, length, _, end = struct.unpack("<QQ32s8s", data[-56:])
    manifest = json.loads(data[offset : offset + length])
    stored = manifest["records"][0][1]
    manifest["records"][0][0] = 16 << 30
    raw, tag = _sign(store, manifest)
    head = _store._REC.pack(16 << 30, stored)
    body = data[:10] + head + data[26:offset]
    with open(store.path("stats", "k"), "wb") as fh:
        fh.write(body + raw + struct.pack("<QQ32s8s", len(body), len(raw), tag, end))
    with pytest.raises(EntryError, match="more than its inputs can make"):
        store.read("stats", "k", max_record=4096)


# ---------------------------------------------------------------------------------------------- the fuzz
ARRAYS = [np.arange(50, dtype=np.int64), np.linspace(0, 1, 7), np.zeros((3, 4), dtype=np.float64)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    action=st.sampled_from(["truncate", "flip", "insert", "replace-record", "append", "claim", "plant"]),
    where=st.integers(0, 10**6),
    byte=st.integers(0, 255),
    blob=st.binary(max_size=64),
    plant=st.sampled_from(["dir", "fifo", "symlink"]),
)
def test_fuzz_the_entry_reader(tmp_path_factory, action, where, byte, blob, plant):
    """Whatever is done to an entry, reading it gives exactly the arrays written or an EntryError (never another
    exception), and never inflates more than the caller's bound."""
    store = Store(tmp_path_factory.mktemp("fuzz"))
    data = bytearray(_entry_bytes(store, "k", ARRAYS))
    path = store.path("stats", "k")
    pos = where % len(data)
    if action == "truncate":
        data = data[:pos]
    elif action == "flip":
        data[pos] ^= byte or 1
    elif action == "insert":
        data[pos:pos] = blob or b"\0"
    elif action == "replace-record":
        data[10 : 10 + 16 + len(blob)] = struct.pack("<QQ", len(blob) * 1000, len(blob)) + blob
    elif action == "append":
        data += blob or b"\0"
    elif action == "claim":
        data[10:18] = struct.pack("<Q", (16 << 30) + byte)
    os.unlink(path)
    if action == "plant":
        if plant == "dir":
            os.mkdir(path)
        elif plant == "fifo":
            os.mkfifo(path)
        else:
            os.symlink(os.devnull, path)
    else:
        with open(path, "wb") as fh:
            fh.write(bytes(data))
    try:
        entry = store.read("stats", "k", max_record=1 << 16)
        if entry is None:
            raise EntryError("gone")
        got = list(entry.arrays())
    except EntryError:
        store.discard("stats", "k")
        assert not os.path.lexists(path)
        return
    assert len(got) == len(ARRAYS)
    for a, b in zip(got, ARRAYS, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_more_pairs_than_open_writers_are_cached_over_runs(tmp_path, truth, monkeypatch):
    from nlgmetrics.evaluate import runner

    monkeypatch.setattr(_store, "MAX_OPEN_WRITERS", 1)
    monkeypatch.setattr(runner, "MAX_OPEN_WRITERS", 1)
    cache = tmp_path / "cache"
    with pytest.warns(UserWarning, match="the first 1 are cached in this run"):
        assert run(cache) == truth
    assert len(stats_entries(cache)) == 1
    assert quiet_run(cache) == truth  # the other pair alone: it is written now
    assert len(stats_entries(cache)) == 2
    assert quiet_run(cache) == truth
