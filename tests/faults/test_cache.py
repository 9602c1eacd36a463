"""Issue items 1, 2 (cache entries trusted blindly), 3 (cache size), 8 (orphan temporary files): the evaluation
cache stores data, never code, and verifies every entry before one of its numbers is used."""

from __future__ import annotations

import os
import pickle
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from nlgmetrics._store import Store, parse_size
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.evaluate import evaluate

REFS = [f"the quick brown fox {i} jumps over the lazy dog" for i in range(40)]
A = [f"the quick brown fox {i} jumped over a lazy dog" for i in range(40)]
B = [f"a fox {i} jumps" if i % 2 else f"the quick brown fox {i} jumps over the lazy dog" for i in range(40)]
METRICS = ["bleu", "nls"]


def lines(path, values):
    path.write_text("".join(v + "\n" for v in values), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    return {
        "ref": lines(tmp_path / "ref.txt", REFS),
        "a": lines(tmp_path / "a.txt", A),
        "b": lines(tmp_path / "b.txt", B),
        "cache": str(tmp_path / "cache"),
    }


def run(files, systems=("a", "b"), metrics=METRICS, **kw):
    from nlgmetrics.metrics.bleu import kernel as bleu

    bleu._CACHE.clear()  # a new process: only the disk can help
    kw = {"chunk_size": 16, "bootstrap": 0, "test": None, "cache_dir": files["cache"], **kw}
    return evaluate([files["ref"]], {s: files[s] for s in systems}, metrics, **kw)


def scores(ev):
    return {(m, s): ev.scores[m][s].score for m in ev.scores for s in ev.scores[m]}


def entries(cache, kind):
    return sorted(os.path.join(cache, n) for n in os.listdir(cache) if n.startswith(kind + "-"))


def test_no_pickle_is_ever_loaded(files, tmp_path):
    """Item 1: a crafted pickle under any name in the cache directory runs no code and changes no number."""
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    truth = scores(evaluate([files["ref"]], {"a": files["a"], "b": files["b"]}, METRICS, bootstrap=0, test=None))
    run(files)
    bad = pickle.dumps(Payload())
    # plant it under the old file names and over every entry of the current format
    os.makedirs(os.path.join(files["cache"], "references"), exist_ok=True)
    for name in ("references/refindex-" + "0" * 40 + ".pkl", "bleu-" + "0" * 32 + ".npz"):
        with open(os.path.join(files["cache"], name), "wb") as fh:
            fh.write(bad)
    for path in entries(files["cache"], "refs") + entries(files["cache"], "stats"):
        with open(path, "wb") as fh:
            fh.write(bad)
    with pytest.warns(UserWarning, match="failed verification"):
        again = run(files)
    assert not marker.exists()
    assert scores(again) == truth
    # the bad entries were replaced by good ones: the next run is quiet
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert scores(run(files)) == truth


@pytest.mark.parametrize("damage", ["truncate", "last-chunk", "random", "empty", "append"])
def test_damaged_entries_are_rebuilt_never_trusted(files, damage):
    """Item 2: a truncated or damaged entry gives a warning and the right numbers, never a traceback."""
    truth = scores(run(files))
    rng = np.random.default_rng(0)
    for path in entries(files["cache"], "stats") + entries(files["cache"], "refs"):
        data = Path(path).read_bytes()
        if damage == "truncate":
            data = data[: len(data) // 2]
        elif damage == "last-chunk":  # drop bytes just before the manifest: the last record loses its end
            cut = data.rindex(b'{"format"')
            data = data[: cut - 40] + data[cut:]
        elif damage == "random":
            data = rng.bytes(len(data))
        elif damage == "empty":
            data = b""
        else:
            data = data + b"\0" * 10
        with open(path, "wb") as fh:
            fh.write(data)
    with pytest.warns(UserWarning, match="failed verification"):
        assert scores(run(files)) == truth


def test_an_entry_copied_under_another_name_is_refused(files):
    """Item 2: one system's statistics copied over another's give the other's own numbers."""
    run(files, systems=("a",))
    a_entries = set(entries(files["cache"], "stats"))
    run(files, systems=("b",))
    b_entries = sorted(set(entries(files["cache"], "stats")) - a_entries)
    truth = scores(run(files))
    for src, dst in zip(sorted(a_entries), b_entries, strict=True):
        shutil.copyfile(src, dst)
    with pytest.warns(UserWarning, match="another key"):
        assert scores(run(files)) == truth


def test_a_reference_entry_of_another_chunk_is_refused(files):
    """Item 2: the tokenised references of one chunk copied over another chunk's do not change BLEU."""
    # chunks of at least 33 segments: smaller BLEU batches are counted row by row, with no reference entry
    lines(Path(files["ref"]), [f"{r} {k}" for k in range(3) for r in REFS])
    lines(Path(files["a"]), [f"{a} {k}" for k in range(3) for a in A])
    truth = scores(run(files, systems=("a",), chunk_size=40))
    refs = entries(files["cache"], "refs")
    assert len(refs) == 3  # 120 segments in chunks of 40
    data = Path(refs[0]).read_bytes()
    for path in refs[1:]:
        with open(path, "wb") as fh:
            fh.write(data)
    for path in entries(files["cache"], "stats"):
        os.unlink(path)  # so that the statistics are computed again, from the references' tokens
    with pytest.warns(UserWarning, match="another key"):
        assert scores(run(files, systems=("a",), chunk_size=40)) == truth


def test_a_forged_entry_needs_the_key(files, monkeypatch):
    """Item 2: an entry written with consistent digests, but without this user's key, is refused."""
    truth = scores(run(files))
    (stats_path,) = [p for p in entries(files["cache"], "stats")][:1]
    store = Store(files["cache"])
    entry = store.read("stats", _key_of(stats_path), max_record=1 << 30)
    key = entry.manifest["key"]
    arrays = list(entry.arrays())
    meta = entry.meta
    # the attacker knows the format and the key string, but not the secret: they use their own
    monkeypatch.setenv("NLGMETRICS_CACHE_KEY", "attacker's guess")
    forged = Store(files["cache"]).writer("stats", key)
    for a in arrays:
        forged.add(a * 0 + 1 if a.dtype.kind in "iu" else a)
    forged.commit(meta)
    monkeypatch.delenv("NLGMETRICS_CACHE_KEY")
    with pytest.warns(UserWarning, match="another key, edited or forged"):
        assert scores(run(files)) == truth


def _key_of(path):
    """The key stored in an entry's manifest (read without verification, as an attacker would)."""
    import json

    data = Path(path).read_bytes()
    start = data.rindex(b'{"format"')
    end = data.rindex(b"}") + 1
    raw = data[start:end]
    while True:
        try:
            return json.loads(raw)["key"]
        except (json.JSONDecodeError, UnicodeDecodeError):  # binary bytes may follow the manifest
            raw = raw[:-1]


def test_key_files_of_others_are_never_used(files):
    """A key file another user could have planted or read (too open a mode) is replaced, not used."""
    run(files)
    key_files = [n for n in os.listdir(files["cache"]) if n.startswith(".key")]
    assert len(key_files) == 1
    path = os.path.join(files["cache"], key_files[0])
    assert os.stat(path).st_mode & 0o777 == 0o600
    os.chmod(path, 0o644)  # readable by others: no longer a secret
    with pytest.warns(UserWarning, match="failed verification"):
        run(files)  # every entry is rebuilt under a fresh key
    assert len([n for n in os.listdir(files["cache"]) if n.startswith(".key")]) == 2


def test_the_cache_must_be_a_directory(files, tmp_path):
    """Item 5: --cache pointing at a file is a clear error."""
    a_file = lines(tmp_path / "not-a-dir", ["x"])
    with pytest.raises(InvalidInputError, match="not-a-dir: exists and is not a directory"):
        evaluate([files["ref"]], {"a": files["a"]}, ["nls"], bootstrap=0, test=None, cache_dir=a_file)


def test_temporary_files_of_killed_runs_are_cleaned(files):
    """Item 8: a killed run's temporary file is removed by the next run; a live process's is left alone."""
    import socket

    os.makedirs(files["cache"])
    host = "".join(c if c.isalnum() else "_" for c in socket.gethostname())[:40]
    dead = os.path.join(files["cache"], f".tmp-{host}-999999999-abcdef.part")
    alive = os.path.join(files["cache"], f".tmp-{host}-{os.getpid()}-abcdef.part")
    for p in (dead, alive):
        open(p, "wb").close()
    run(files)
    assert not os.path.exists(dead)
    assert os.path.exists(alive)
    assert [n for n in os.listdir(files["cache"]) if n.endswith(".part")] == [os.path.basename(alive)]


def test_a_failed_run_leaves_no_temporary_file(files, tmp_path):
    bad = str(tmp_path / "bad.txt")
    with open(bad, "wb") as fh:
        fh.write(("\n".join(A[:-1]) + "\n").encode() + b"\xff\n")
    with pytest.raises(InvalidInputError, match="invalid UTF-8"):
        evaluate([files["ref"]], {"x": bad}, METRICS, bootstrap=0, test=None, cache_dir=files["cache"])
    assert [n for n in os.listdir(files["cache"]) if not n.startswith(".key")] == []


def test_size_budget_evicts_least_recently_used(files):
    """Item 3: with --cache-max-size the directory stays within its budget; recent entries survive."""
    run(files, systems=("a",))
    first = set(entries(files["cache"], "stats"))
    run(files, systems=("b",), cache_max_size=1)
    left = set(entries(files["cache"], "stats"))
    assert not (first & left)  # a's entries (least recently used) went
    assert left  # b's, used by the run itself, stayed
    run(files, systems=("a",))
    run(files, systems=("b",))  # a hit refreshes b's entries ...
    run(files, systems=("a",), cache_max_size=sum(os.path.getsize(p) for p in os.scandir(files["cache"])) - 1)
    assert set(entries(files["cache"], "stats")) >= first  # ... but a's, in use, stay
    assert parse_size("1.5G") == int(1.5 * 1024**3)
    with pytest.raises(InvalidInputError, match="--cache-max-size must be a size"):
        parse_size("lots")


def test_memory_stays_flat_with_cache(tmp_path):
    """Item 3: with a cache and no interval, per-segment columns are written out as they come, not held."""
    import tracemalloc

    from nlgmetrics.metrics.catalog import get_family

    n = 30000
    ref = lines(tmp_path / "r.txt", [f"w{i % 97} x{i % 13}" for i in range(n)])
    sys_ = lines(tmp_path / "s.txt", [f"w{i % 89} x{i % 11}" for i in range(n)])
    metrics = ["wer", "cer"]
    held = sum(
        get_family(m).batch_stats(["a b"], ["a b"], get_family(m).make_config()).columns[f].itemsize
        * n
        * get_family(m).batch_stats(["a b"], ["a b"], get_family(m).make_config()).columns[f][0].size
        for m in metrics
        for f in get_family(m).stats_cls.field_names()
    )

    def peak(**kw):
        tracemalloc.start()
        evaluate([ref], {"s": sys_}, metrics, bootstrap=0, test=None, **kw)
        out = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return out

    plain = peak()
    cached = peak(cache_dir=str(tmp_path / "cache"))
    assert cached - plain < held / 4, (plain, cached, held)


def test_cache_never_changes_a_number(files):
    systems = {"a": files["a"], "b": files["b"]}
    plain = evaluate([files["ref"]], systems, METRICS, bootstrap=20, seed=3, baseline="a", chunk_size=16)
    first = run(files, bootstrap=20, seed=3, baseline="a", test="bs")
    second = run(files, bootstrap=20, seed=3, baseline="a", test="bs")
    assert plain.to_json() == first.to_json() == second.to_json()


def test_a_run_writes_less_than_its_input(tmp_path):
    """Item 3: the cache of a run is a small multiple of its input at most (12.4 GB for 74 MB before)."""
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(5000)])
    ref = lines(tmp_path / "r.txt", [" ".join(rng.choice(words, 12)) for _ in range(20000)])
    hyp = lines(tmp_path / "h.txt", [" ".join(rng.choice(words, 12)) for _ in range(20000)])
    cache = tmp_path / "cache"
    evaluate([ref], {"a": hyp}, ["bleu", "chrf", "ter"], bootstrap=0, test=None, cache_dir=str(cache))
    written = sum(p.stat().st_size for p in cache.iterdir())
    size_in = os.path.getsize(ref) + os.path.getsize(hyp)
    assert written < 1.0 * size_in, (written, size_in)


@pytest.mark.parametrize("metric", ["nist", "cider"])
def test_carried_columns_round_trip_as_data(files, metric):
    """NIST's n-gram tables and CIDEr's records are stored as bytes records under the entry's digest (never an
    object array, never a pickle) and come back exactly: scores, intervals, paired tests and the per-segment
    scores of a report are the same from the cache, across chunk sizes that split the corpus unevenly."""
    kw = {"bootstrap": 20, "seed": 7, "baseline": "a", "test": "bs", "paired_samples": 20, "keep_segments": True}
    plain = evaluate([files["ref"]], {"a": files["a"], "b": files["b"]}, [metric], chunk_size=16, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first = run(files, metrics=[metric], **kw)
        second = run(files, metrics=[metric], **kw)  # every statistic from the cache
    assert plain.to_json() == first.to_json() == second.to_json()
    assert plain.segment_scores == second.segment_scores
    stats = entries(files["cache"], "stats")
    assert stats
    for path in stats:  # data only: the entry format, never a pickle (whose protocol header is 0x80)
        assert Path(path).read_bytes().startswith(b"NLGMCACHE")
    # an edited carried record is refused and rebuilt, never trusted
    for path in stats:
        data = bytearray(Path(path).read_bytes())
        data[len(data) // 3] ^= 0xFF
        Path(path).write_bytes(bytes(data))
    with pytest.warns(UserWarning, match="failed verification"):
        assert run(files, metrics=[metric], **kw).to_json() == plain.to_json()


def test_carried_columns_through_the_cli_cache(files, tmp_path):
    """The same through ``nlgmetrics evaluate --cache``: nist and cider computed, then read back, unchanged."""
    import json
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "nlgmetrics", "evaluate", "--ref", files["ref"], "--sys", f"a={files['a']}"]
    cmd += ["--sys", f"b={files['b']}", "--metric", "nist", "--metric", "cider", "--bootstrap", "10"]
    cmd += ["--baseline", "a", "--paired-samples", "10", "--json", "--quiet", "--chunk-size", "16"]
    plain = subprocess.run(cmd, capture_output=True, text=True, check=True)
    cached = [*cmd, "--cache", files["cache"]]
    first = subprocess.run(cached, capture_output=True, text=True, check=True)
    second = subprocess.run(cached, capture_output=True, text=True, check=True)
    assert "warning" not in (first.stderr + second.stderr).lower()
    assert json.loads(plain.stdout) == json.loads(first.stdout) == json.loads(second.stdout)
    assert entries(files["cache"], "stats")
