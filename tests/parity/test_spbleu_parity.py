"""spBLEU: BLEU's flores101/flores200/spBLEU-1K tokenizers against sacrebleu 2.6 with the same SentencePiece
model. A small model is trained here on WMT22 references (nothing is downloaded), put where sacrebleu looks for
its models (``$SACREBLEU/models/``), and both score the same systems."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import nlgmetrics as nm
from nlgmetrics.errors import InvalidInputError, MissingDependencyError
from nlgmetrics.text.spm import SPM_MODELS

PAIRS = [("en-zh", "zh"), ("zh-en", "en"), ("en-ja", "ja")]
N = 400  # segments per pair: enough for every n-gram order, quick to score twice


@pytest.fixture(scope="module")
def sacrebleu_dir(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    spm = pytest.importorskip("sentencepiece")
    root = tmp_path_factory.mktemp("sacrebleu")
    corpus = root / "train.txt"
    refs = shared_data / "wmt22" / "references"
    lines: list[str] = []
    for name in ("zh-en.ref.A.en", "en-zh.ref.A.zh", "en-ja.ref.A.ja"):
        lines += (refs / f"generaltest2022.{name}").read_text(encoding="utf-8").splitlines()
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.Train(
        input=str(corpus),
        model_prefix=str(root / "small"),
        vocab_size=1000,
        model_type="unigram",
        character_coverage=0.98,
        input_sentence_size=3000,
        shuffle_input_sentence=False,
        hard_vocab_limit=False,
        num_threads=1,
        minloglevel=2,
    )
    (root / "models").mkdir()
    for model in SPM_MODELS.values():  # one small model under each of sacrebleu's file names
        (root / "models" / model.filename).write_bytes((root / "small.model").read_bytes())
    return root


def _data(shared_data: Path, pair: str, trg: str) -> tuple[list[str], list[str]]:
    d = shared_data / "wmt22"
    refs = (d / "references" / f"generaltest2022.{pair}.ref.A.{trg}").read_text(encoding="utf-8").splitlines()
    hyp_path = sorted((d / "system-outputs").glob(f"generaltest2022.{pair}.hyp.*.{trg}"))[0]
    return hyp_path.read_text(encoding="utf-8").splitlines()[:N], refs[:N]


@pytest.mark.realdata
@pytest.mark.parametrize(("pair", "trg"), PAIRS)
def test_spbleu_is_sacrebleus(pair: str, trg: str, shared_data: Path, sacrebleu_dir: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from sacrebleu.metrics import BLEU
    from sacrebleu.tokenizers import tokenizer_spm

    monkeypatch.setattr(tokenizer_spm, "SACREBLEU_DIR", str(sacrebleu_dir))  # read by sacrebleu at import
    monkeypatch.setenv("SACREBLEU", str(sacrebleu_dir))  # read here at each call
    hyps, refs = _data(shared_data, pair, trg)
    model = sacrebleu_dir / "small.model"
    for tok in ("flores101", "flores200", "spBLEU-1K", "spm"):
        theirs = BLEU(tokenize=tok)
        score = theirs.corpus_score(hyps, [refs])
        for ours in (nm.bleu(hyps, refs, tokenize=tok), nm.bleu(hyps, refs, tokenize=tok, spm_model=str(model))):
            assert ours.score == score.score
            assert list(ours.matches) == score.counts
            assert ours.sacrebleu_signature == str(theirs.get_signature())
            assert f"|spm:{ours.signature.split('|spm:')[1][:16]}|" in ours.signature
        print(f"{pair} {tok}: {score.score} (ours equal), signature {theirs.get_signature()}")


@pytest.mark.realdata
def test_sacrebleu_command_is_byte_for_byte(shared_data: Path, sacrebleu_dir: Path, tmp_path: Path) -> None:
    hyps, refs = _data(shared_data, "en-zh", "zh")
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    env = {**os.environ, "SACREBLEU": str(sacrebleu_dir)}
    for extra in ([], ["-f", "text"], ["-b"]):
        args = [str(tmp_path / "ref.txt"), "-i", str(tmp_path / "hyp.txt"), "-tok", "flores200", *extra]
        theirs = subprocess.run([sys.executable, "-m", "sacrebleu", *args], env=env, capture_output=True, text=True)
        ours = subprocess.run(
            [sys.executable, "-m", "nlgmetrics", "sacrebleu", *args, "--spm-model", str(sacrebleu_dir / "small.model")],
            env={**env, "SACREBLEU": str(tmp_path / "empty")},
            capture_output=True,
            text=True,
        )
        assert theirs.returncode == 0, theirs.stderr
        assert ours.returncode == 0, ours.stderr
        assert ours.stdout == theirs.stdout


@pytest.mark.realdata
def test_bleu_command_and_errors(sacrebleu_dir: Path, tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from nlgmetrics.cli.main import main

    (tmp_path / "h.txt").write_text("the cat sat on the mat\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("the cat sat on a mat\n", encoding="utf-8")
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "nothing"))
    model = str(sacrebleu_dir / "small.model")
    code = main(["bleu", "--pred", str(tmp_path / "h.txt"), "--ref", str(tmp_path / "r.txt"), "-tok", "flores200"])
    err = capsys.readouterr().err
    assert code == 2
    assert "https://tinyurl.com/flores200sacrebleuspm" in err
    assert "--spm-model PATH" in err
    args = ["--pred", str(tmp_path / "h.txt"), "--ref", str(tmp_path / "r.txt"), "-tok", "flores200"]
    assert main(["bleu", *args, "--spm-model", model, "--json"]) == 0
    assert "tok:flores200" in capsys.readouterr().out
    with pytest.raises(InvalidInputError, match=r"spm_model='nope.model' \(--spm-model\): no such file"):
        nm.bleu(["a"], ["a"], tokenize="flores101", spm_model="nope.model")
    with pytest.raises(InvalidInputError, match="the '13a' tokenizer takes none"):
        nm.bleu(["a"], ["a"], spm_model=model)
    assert "spm:" not in nm.bleu(["a"], ["a"]).signature  # other tokenizers' signatures are as they were
    monkeypatch.setitem(sys.modules, "sentencepiece", None)
    from nlgmetrics.text import spm

    monkeypatch.setattr(spm, "_BUILT", {})
    with pytest.raises(MissingDependencyError, match=r"pip install 'nlgmetrics\[spm\]'"):
        nm.bleu(["a"], ["a"], tokenize="flores200", spm_model=model)
