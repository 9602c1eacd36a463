"""Issue 23, tracebacks that are now clear errors (or, where the operation is valid, work): ``evaluate --metric
nist --jobs 2`` (a pickling error), perplexity over a mean NLL of 709 (``OverflowError``; torchmetrics gives
``inf``), a forged ``.npy`` header asking for petabytes, a cache size beyond any integer; and the smaller items:
``--cache-max-size`` without ``--cache`` is an error, and CSV/Parquet inputs find their cache entry again."""

from __future__ import annotations

import json
import math
import os
import re
import struct
import warnings

import numpy as np
import pytest

import nlgmetrics as nm
from nlgmetrics._store import parse_size
from nlgmetrics.errors import InvalidInputError
from nlgmetrics.evaluate import Texts, evaluate

REFS = [f"the cat {i} sat on the mat" for i in range(30)]
SYS = [f"the cat {i % 7} sat on a mat" for i in range(30)]


def test_nist_and_cider_run_in_worker_processes():
    kwargs = {"bootstrap": 10, "test": None, "chunk_size": 7}
    metrics = ["nist", "cider", {"name": "nist", "preset": "mteval-13a", "label": "nist13a"}]
    one = evaluate(Texts(REFS), {"a": SYS}, metrics, jobs=1, **kwargs)
    two = evaluate(Texts(REFS), {"a": SYS}, metrics, jobs=2, **kwargs)
    assert two.to_json() == one.to_json()


def test_perplexity_over_a_mean_nll_of_709_is_inf():
    result = nm.perplexity([np.array([-800.0, -900.0])])
    assert result.score == math.inf
    assert result.nll == 850.0


def test_perplexity_cli_over_709(cli, write):
    path = write("lp.jsonl", ['{"logprobs": [-800.0, -900.0]}'])
    run = cli("perplexity", "--pred", path, "--json", "--per-segment")
    assert run.code == 0, run.err
    assert json.loads(run.out)["perplexity"] == math.inf


def _npy_header(shape: str) -> bytes:
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }"
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("forged.npy", _npy_header("(111111111111111, 4)") + b"\0" * 64, r"3,555,555,555,555,552 bytes\), but 64"),
        ("short.npy", _npy_header("(3, 4)") + b"\0" * 80, r"\(96 bytes\), but 80 bytes follow"),
        ("long.npy", _npy_header("(3, 4)") + b"\0" * 100, r"\(96 bytes\), but 100 bytes follow"),
    ],
)
def test_a_npy_header_is_checked_against_the_file(cli, write, name, data, message):
    run = cli("perplexity", "--pred", write(name, data=data))
    assert run.code == 2
    assert "Traceback" not in run.err
    assert "as a numpy array (.npy)" in run.err
    assert re.search(message, run.err), run.err


def test_an_object_npy_is_never_unpickled(cli, tmp_path):
    path = tmp_path / "obj.npy"
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    run = cli("perplexity", "--pred", path)
    assert run.code == 2
    assert "it holds Python objects" in run.err


def test_a_valid_npy_still_reads(cli, tmp_path):
    logits, targets = tmp_path / "l.npy", tmp_path / "t.npy"
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 7))
    t = rng.integers(0, 7, size=(2, 5))
    np.save(logits, np.asfortranarray(x))
    np.save(targets, t)
    run = cli("perplexity", "--pred", logits, "--ref", targets, "--json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["perplexity"] == nm.perplexity(x, t).score


def test_cache_size_beyond_any_integer():
    with pytest.raises(InvalidInputError, match="below 8E"):
        parse_size("1" + "0" * 400)
    with pytest.raises(InvalidInputError, match="below 8E"):
        parse_size("9000000T")


def test_cache_max_size_needs_a_cache(cli, write):
    with pytest.raises(InvalidInputError, match="budget of a cache directory"):
        evaluate(Texts(REFS), {"a": SYS}, ["bleu"], bootstrap=0, test=None, cache_max_size="1G")
    ref, sys_ = write("r.txt", REFS), write("s.txt", SYS)
    run = cli("evaluate", "--ref", ref, "--sys", f"a={sys_}", "--metric", "bleu", "--cache-max-size", "1G")
    assert run.code == 2
    assert "--cache DIR" in run.err


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_table_inputs_find_their_cache_entry(cli, tmp_path, suffix):
    pd = pytest.importorskip("pandas")
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"prediction": SYS, "references": REFS})
    path = tmp_path / f"t{suffix}"
    frame.to_csv(path, index=False) if suffix == ".csv" else frame.to_parquet(path)
    cache = tmp_path / "cache"
    argv = ["evaluate", "--ref", path, "--sys", f"a={path}", "--metric", "bleu", "--bootstrap", "0", "--json"]
    first = cli(*argv, "--cache", cache)
    assert first.code == 0, first.err
    entries = {p.name: p.stat().st_mtime_ns for p in cache.iterdir() if p.name.startswith("stats-")}
    assert entries
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = cli(*argv, "--cache", cache)
    assert again.code == 0, again.err
    assert "failed verification" not in again.err
    assert json.loads(again.out)["systems"] == json.loads(first.out)["systems"]
    # the same entries served the rerun (none rewritten)
    assert {p.name for p in cache.iterdir() if p.name.startswith("stats-")} == set(entries)
    assert all(os.path.exists(cache / name) for name in entries)
